"""Screens as pictures: a PNG of one screen, and the painter the animated GIF shares.

Where bug reports are read (GitHub and GitLab issues, chat, pull-request
comments) a PNG or a GIF is what people look at: those sites show pictures,
not SVG files, pages or recordings. :func:`snapshot_png` draws one
:class:`~termsim.Snapshot` the way the SVG and the HTML report do, from the
same :func:`~termsim.report.draw.drawn_row` (xterm's palette, reverse video
and dim already resolved, the cursor as a block in reverse video with an
outline): bold and italic in their own faces, the five underline styles in
their colour, strikethrough, wide characters over two cells. A wait's region
is outlined (red for a failed wait, green for one that matched) and a
one-line caption under the screen says what was awaited and when.

The same recording gives the same pixels on every machine: the font is
shipped with termsim (DejaVu Sans Mono, ``fonts/``, with its licence), laid
out by Pillow's own basic layout (not Raqm, which some machines have and
some do not), each character placed on its cell, never by the font's
advances. A character the font has no glyph for is an empty box over its
cells. The bytes are equal for equal Pillow versions (Pillow brings its own
FreeType and zlib; a new FreeType may shade an edge differently).

Rasterizing is Pillow's: the one well-kept imaging library for Python, with
wheels for every platform, FreeType inside, and PNG and GIF writers. It is
an optional extra (``pip install 'termsim[pictures]'``), not a dependency:
a test run that never writes a picture need not carry it.
:class:`PicturesUnavailable` says how to install it.

A picture's size is capped before anything is allocated
(:data:`MAX_PICTURE_PIXELS`, :data:`MAX_PICTURE_CELLS`): a recording's
screen may be 1000 x 1000 cells, which would be a picture of 162 million
pixels. Everything drawn comes from the screen's runs and, for captions,
from :func:`~termsim.emulator.terminals.xterm.printable` text: nothing a program
printed is interpreted.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from wcwidth import wcwidth

from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminals.xterm import printable
from .draw import DEFAULT_BG, DEFAULT_FG, DrawnRun, Look, clean, cursor_cell, drawn_row
from .picture_canvas import (
    CAPTION_BG,
    CAPTION_FG,
    FAILED,
    FONT_FILES,
    FONT_SIZE,
    INSTALL,
    MATCHED,
    MAX_GLYPHS,
    MAX_PICTURE_CELLS,
    MAX_PICTURE_PIXELS,
    MAX_SCALE,
    MIN_SCALE,
    NOTDEF,
    OUTSIDE,
    PADDING,
    Geometry,
    PicturesUnavailable,
    PictureTooLarge,
    check_scale,
    check_size,
    font,
    picture_size,
    pictures_available,
    require_pillow,
    rgb,
    size_problem,
)
from .steps import Outline

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

#: This module's names, and those of :mod:`~termsim.report.picture_canvas`
#: it gives on (what a picture is made of: callers read them from here).
__all__ = [
    "CAPTION_BG", "CAPTION_FG", "FAILED", "FONT_FILES", "FONT_SIZE", "INSTALL", "MATCHED",
    "MAX_GLYPHS", "MAX_PICTURE_CELLS", "MAX_PICTURE_PIXELS", "MAX_SCALE", "MIN_SCALE",
    "OUTSIDE", "PADDING", "Geometry", "Painter", "PictureTooLarge", "PicturesUnavailable",
    "caption_cells", "check_scale", "check_size", "font", "picture_size", "pictures_available",
    "require_pillow", "rgb", "size_problem", "snapshot_png",
]

#: A row never painted yet (no row state equals it).
_UNPAINTED: Final = object()
#: A glyph the font lacks (drawn as a box).
_MISSING: Final = "missing"


class Painter:
    """A picture of a ``cols`` x ``rows`` screen with ``caption_lines`` of
    caption under it, painted a row at a time.

    :meth:`paint` repaints only the rows that differ from what the picture
    shows (a GIF's frames share most rows), and says which pixel rows
    changed, so a frame can be cut to them.
    """

    def __init__(self, cols: int, rows: int, *, scale: float = 1.0, caption_lines: int = 0,
                 max_pixels: int = MAX_PICTURE_PIXELS) -> None:
        # (Says how to install Pillow without it.)
        self.geometry = g = check_size(cols, rows, scale, caption_lines, max_pixels)
        from PIL import Image, ImageDraw

        self.cols, self.rows, self.caption_lines = cols, rows, caption_lines
        self.width, self.height = picture_size(cols, rows, g, caption_lines)
        self.image: Picture = Image.new("RGB", (self.width, self.height), rgb(DEFAULT_BG))
        self._draw = ImageDraw.Draw(self.image)
        self._shown: list[object] = [_UNPAINTED] * rows
        self._glyphs: dict[tuple[str, bool, bool, int], Picture | str | None] = {}
        self._notdef: dict[tuple[bool, bool], bytes] = {}

    # -- the screen -------------------------------------------------------------------

    def paint(self, snapshot: Snapshot) -> tuple[int, int] | None:
        """Draw ``snapshot`` (at the top left; cells past a smaller screen
        are :data:`OUTSIDE`). Returns the first and last pixel rows
        repainted, or None when every row already showed what it shows."""
        g = self.geometry
        cursor = cursor_cell(snapshot)
        changed: tuple[int, int] | None = None
        for r in range(self.rows):
            if r < snapshot.rows:
                col = cursor[1] if cursor is not None and cursor[0] == r else -1
                state: object = (min(snapshot.cols, self.cols), snapshot.runs(r), col)
            else:
                state = None
            if state == self._shown[r]:
                continue
            self._shown[r] = state
            top = g.padding + r * g.cell_height
            self._row(snapshot, r, cursor, top)
            bottom = top + g.cell_height - 1
            changed = (top, bottom) if changed is None else (changed[0], bottom)
        return changed

    def _row(self, snapshot: Snapshot, r: int, cursor: tuple[int, int] | None,
             top: int) -> None:
        g, draw = self.geometry, self._draw
        bottom = top + g.cell_height - 1
        cols = min(snapshot.cols, self.cols) if r < snapshot.rows else 0
        inside = g.padding * (2 if cols else 0) + cols * g.cell_width
        draw.rectangle((0, top, self.width - 1, bottom), fill=rgb(DEFAULT_BG))
        if inside < self.width:
            draw.rectangle((max(inside, g.padding), top, self.width - 1, bottom),
                           fill=rgb(OUTSIDE))
        if not cols:
            return
        runs = [run for run in drawn_row(snapshot, r, cursor) if run.col < cols]
        for run in runs:
            if run.look.bg != DEFAULT_BG:
                draw.rectangle((self._x(run.col), top, self._x(min(run.col + run.width, cols)) - 1,
                                bottom), fill=rgb(run.look.bg))
        for run in runs:
            self._run(run, top, cols)

    def _x(self, col: int) -> int:
        return self.geometry.padding + col * self.geometry.cell_width

    def _run(self, run: DrawnRun, top: int, cols: int) -> None:
        g, look = self.geometry, run.look
        end = min(run.col + run.width, cols)
        if not look.invisible:  # SGR 8: only the background, as in the SVG
            ink = rgb(look.fg)
            if run.wide or run.width == 1:
                self._glyph(run.text, look, run.width, self._x(run.col), top, ink)
            else:
                for i, char in enumerate(run.text[:end - run.col]):
                    if char != " ":
                        self._glyph(char, look, 1, self._x(run.col + i), top, ink)
            self._decorate(look, self._x(run.col), self._x(end), top)
        if look.cursor:
            self._draw.rectangle((self._x(run.col), top, self._x(end) - 1,
                                  top + g.cell_height - 1), outline=rgb(DEFAULT_FG),
                                 width=g.line)

    def _glyph(self, text: str, look: Look, span: int, x: int, top: int,
               ink: tuple[int, int, int]) -> None:
        mask = self._mask(text, look.bold, look.italic, span)
        if mask is None:
            return
        g = self.geometry
        if isinstance(mask, str):  # no glyph: an empty box over the cells
            inset = g.line
            self._draw.rectangle((x + inset, top + 2 * inset, x + span * g.cell_width - 1 - inset,
                                  top + g.cell_height - 1 - 2 * inset), outline=ink, width=g.line)
            return
        self._draw.bitmap((x - g.cell_width, top), mask, fill=ink)

    def _mask(self, text: str, bold: bool, italic: bool, span: int) -> Picture | str | None:
        """The glyph of ``text`` (one cell's code points) as a mask, with a
        cell of room on each side for what leans out of it (italics), cut to
        the cell's height; None for a blank, :data:`_MISSING` for a
        character the font has no glyph for."""
        key = (text, bold, italic, span)
        if key in self._glyphs:
            return self._glyphs[key]
        from PIL import Image, ImageDraw

        g = self.geometry
        face = font(bold, italic, g.size)
        mask: Picture | str | None = Image.new("L", ((span + 2) * g.cell_width, g.cell_height), 0)
        assert not isinstance(mask, str | None)
        draw = ImageDraw.Draw(mask)
        base = text[:1]
        # A wide glyph the font has is centred on its cells; marks go on the base.
        x = g.cell_width + max(0, (span * g.cell_width - round(face.getlength(base))) // 2)
        for char in text:
            draw.text((x, g.baseline), char, fill=255, font=face, anchor="ls")
        if mask.getbbox() is None:
            mask = None
        elif not base.isascii() and self._lacks(base, bold, italic):
            mask = _MISSING
        if len(self._glyphs) >= MAX_GLYPHS:
            self._glyphs.clear()
        self._glyphs[key] = mask
        return mask

    def _lacks(self, char: str, bold: bool, italic: bool) -> bool:
        """Whether the font draws ``char`` as its missing-glyph box."""
        from PIL import Image, ImageDraw

        g = self.geometry
        face = font(bold, italic, g.size)

        def drawn(text: str) -> bytes:
            mask = Image.new("L", (3 * g.cell_width, g.cell_height), 0)
            ImageDraw.Draw(mask).text((g.cell_width, g.baseline), text, fill=255, font=face,
                                      anchor="ls")
            return mask.tobytes()

        if (bold, italic) not in self._notdef:
            self._notdef[bold, italic] = drawn(NOTDEF)
        return drawn(char) == self._notdef[bold, italic]

    def _decorate(self, look: Look, left: int, right: int, top: int) -> None:
        """Underline (in its style and colour) and strikethrough, over
        pixel columns ``left:right`` of the row at ``top``."""
        if right <= left or not (look.underline or look.strikethrough):
            return
        g, draw = self.geometry, self._draw
        t = g.line
        floor = top + g.cell_height - t  # the lowest a line of thickness t may start
        if look.underline:
            ink = rgb(look.underline_colour or look.fg)
            y = min(top + g.baseline + t, floor)
            style = look.underline_style
            if style == "double":
                low = min(y + 2 * t, floor)
                for line_y in (low - 2 * t, low):
                    draw.rectangle((left, line_y, right - 1, line_y + t - 1), fill=ink)
            elif style == "wavy":
                y = min(y, floor - t)
                points = [(x, y + (t if (x - left) // (2 * t) % 2 else 0))
                          for x in range(left, right, 2 * t)] + [(right - 1, y)]
                draw.line(points, fill=ink, width=t)
            elif style in ("dotted", "dashed"):
                on, off = (t, t) if style == "dotted" else (3 * t, 2 * t)
                for x in range(left, right, on + off):
                    draw.rectangle((x, y, min(x + on, right) - 1, y + t - 1), fill=ink)
            else:
                draw.rectangle((left, y, right - 1, y + t - 1), fill=ink)
        if look.strikethrough:
            y = top + g.baseline - round(g.baseline * 0.3)
            draw.rectangle((left, y, right - 1, y + t - 1), fill=rgb(look.fg))

    # -- what is drawn over it --------------------------------------------------------

    def outline(self, outlines: Sequence[Outline], colour: str = FAILED, *,
                cols: int | None = None, rows: int | None = None) -> tuple[int, int] | None:
        """Outline each region (cells ``top:bottom``, ``left:right``) around
        its cells, within a screen of ``cols`` x ``rows`` (the picture's by
        default). Returns the pixel rows drawn on, or None."""
        g = self.geometry
        cols = self.cols if cols is None else min(cols, self.cols)
        rows = self.rows if rows is None else min(rows, self.rows)
        w = max(2, round(2 * g.scale))
        drawn: tuple[int, int] | None = None
        for o in outlines:
            top, bottom = max(0, o.top), min(rows, o.bottom)
            left, right = max(0, o.left), min(cols, o.right)
            if top >= bottom or left >= right:
                continue
            box = (self._x(left) - w, g.padding + top * g.cell_height - w,
                   self._x(right) + w - 1, g.padding + bottom * g.cell_height + w - 1)
            self._draw.rectangle(box, outline=rgb(colour), width=w)
            drawn = (box[1], box[3]) if drawn is None else (min(drawn[0], box[1]),
                                                            max(drawn[1], box[3]))
            for r in range(max(0, top - 1), min(self.rows, bottom + 1)):
                self._shown[r] = _UNPAINTED  # drawn over: repainted next time
        return drawn

    def caption(self, lines: Sequence[tuple[str, str]]) -> tuple[int, int] | None:
        """Write ``(text, colour)`` lines in the band under the screen, each
        on one line (made visible with ``printable``, cut to the width with
        an ellipsis). Returns the band's pixel rows, or None without a band."""
        if not self.caption_lines:
            return None
        g = self.geometry
        band = self.height - self.caption_lines * g.cell_height - g.padding
        self._draw.rectangle((0, band, self.width - 1, self.height - 1), fill=rgb(CAPTION_BG))
        plain = Look(CAPTION_FG, CAPTION_BG)
        for i, (text, colour) in enumerate(lines[:self.caption_lines]):
            top = band + g.padding // 2 + i * g.cell_height
            for col, cluster, width in caption_cells(text, self.cols):
                self._glyph(cluster, plain, width, self._x(col), top, rgb(colour))
        return band, self.height - 1

    def png(self) -> bytes:
        """The picture as PNG bytes (no timestamp, no metadata: the same
        pixels are the same bytes)."""
        out = io.BytesIO()
        self.image.save(out, format="PNG", compress_level=6)
        return out.getvalue()


def caption_cells(text: str, cols: int) -> list[tuple[int, str, int]]:
    """``text`` made visible and laid out in cells: ``(column, characters,
    width)``, a combining mark with its base, cut with "…" to ``cols``."""
    cells: list[tuple[int, str, int]] = []
    col = 0
    shown = clean(printable(text))
    for i, char in enumerate(shown):
        width = wcwidth(char)
        if width == 0 and cells:
            last = cells[-1]
            cells[-1] = (last[0], last[1] + char, last[2])
            continue
        width = 2 if width == 2 else 1
        if col + width > cols or (col + width == cols and i + 1 < len(shown)
                                  and wcwidth(shown[i + 1]) != 0):
            while cells and cells[-1][0] + cells[-1][2] > cols - 1:
                cells.pop()
            if cols >= 1:
                cells.append((cells[-1][0] + cells[-1][2] if cells else 0, "…", 1))
            return cells
        if char != " ":
            cells.append((col, char, width))
        col += width
    return cells


def snapshot_png(snapshot: Snapshot, *, caption: str = "", outlines: Sequence[Outline] = (),
                 outline_colour: str = FAILED, scale: float = 1.0) -> bytes:
    """The screen as PNG bytes, the same pixels on every machine: ``snapshot`` drawn
    from the runs the SVG draws (in the font termsim ships), ``outlines``
    (cells a wait looked at) drawn round their cells and ``caption`` as one
    line under the screen ("" for none).

    Raises :class:`PicturesUnavailable` without Pillow, and
    :class:`PictureTooLarge` past the caps, before anything is drawn.
    """
    painter = Painter(snapshot.cols, snapshot.rows, scale=scale,
                      caption_lines=1 if caption else 0)
    painter.paint(snapshot)
    painter.outline(outlines, outline_colour)
    if caption:
        painter.caption([(caption, outline_colour if outlines else CAPTION_FG)])
    return painter.png()
