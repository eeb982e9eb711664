"""A screen as a standalone SVG picture, for bug reports and committed snapshots.

The output is deterministic: the same :class:`~termsim.Snapshot` always gives
the same bytes (no ids, no timestamps, attributes always in the same order,
integer coordinates), so an SVG committed next to a test diffs cleanly.

Everything the program printed is data: it is XML-escaped, and characters XML
cannot hold (control characters, lone surrogates, U+FFFE/U+FFFF) become U+FFFD.

The colour and cell helpers here are shared with :mod:`termsim._html`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._snapshot import Snapshot

#: xterm's default 16 colours, under pyte's names (pyte says "brown" for yellow,
#: and "bfightmagenta" for the bright magenta background, a typo kept here).
PALETTE: dict[str, str] = {
    "black": "#000000",
    "red": "#cd0000",
    "green": "#00cd00",
    "brown": "#cdcd00",
    "yellow": "#cdcd00",
    "blue": "#0000ee",
    "magenta": "#cd00cd",
    "cyan": "#00cdcd",
    "white": "#e5e5e5",
    "brightblack": "#7f7f7f",
    "brightred": "#ff0000",
    "brightgreen": "#00ff00",
    "brightbrown": "#ffff00",
    "brightyellow": "#ffff00",
    "brightblue": "#5c5cff",
    "brightmagenta": "#ff00ff",
    "bfightmagenta": "#ff00ff",
    "brightcyan": "#00ffff",
    "brightwhite": "#ffffff",
}
#: The default foreground (light grey) and background (dark).
DEFAULT_FG = "#d0d0d0"
DEFAULT_BG = "#1c1c1c"

#: Geometry of one cell, in SVG user units (pixels).
CELL_WIDTH = 9
CELL_HEIGHT = 18
FONT_SIZE = 15
BASELINE = 14
PADDING = 8
FONT_FAMILY = "'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace"

_HEX = re.compile(r"[0-9a-fA-F]{6}")
# Characters XML 1.0 cannot hold, plus the C0/C1 controls and DEL (legal in XML
# but invisible, and never meant to be on a screen).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def colour(name: str, default: str) -> str:
    """``#rrggbb`` for a pyte colour name or hex string; ``default`` for "default"
    and anything not understood."""
    if name in PALETTE:
        return PALETTE[name]
    if len(name) == 6 and _HEX.fullmatch(name):
        return "#" + name.lower()
    return default


def clean(text: str) -> str:
    """``text`` with every character XML cannot hold replaced by U+FFFD."""
    return _UNSAFE.sub("\ufffd", text)


def xml_escape(text: str) -> str:
    """Escape for XML/HTML text and double- or single-quoted attributes."""
    return (
        clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace('"', "&quot;").replace("'", "&#39;")
    )


@dataclass(frozen=True, slots=True)
class Look:
    """How a cell is drawn, resolved: colours as ``#rrggbb``, reverse video and
    the cursor already applied."""

    fg: str
    bg: str
    bold: bool = False
    italic: bool = False
    underline: bool = False
    strikethrough: bool = False
    cursor: bool = False


@dataclass(frozen=True, slots=True)
class DrawnCell:
    """A cell as drawn: ``width`` is 2 for a wide character (whose right half,
    the empty cell after it, is not listed)."""

    col: int
    width: int
    char: str
    look: Look


def cursor_cell(snapshot: Snapshot) -> tuple[int, int] | None:
    """Where a visible cursor is drawn (clamped into the screen), or None."""
    cur = snapshot.cursor
    if not cur.visible or snapshot.rows < 1 or snapshot.cols < 1:
        return None
    return min(max(cur.row, 0), snapshot.rows - 1), min(max(cur.col, 0), snapshot.cols - 1)


def drawn_row(snapshot: Snapshot, row: int, cursor: tuple[int, int] | None) -> list[DrawnCell]:
    """The cells of one row as drawn, left to right."""
    cols = snapshot.cols
    cells = [snapshot.cell(row, c) for c in range(cols)]
    out: list[DrawnCell] = []
    c = 0
    while c < cols:
        cell = cells[c]
        char = cell.char
        width = 2 if c + 1 < cols and cells[c + 1].char == "" and char != "" else 1
        if char == "":
            char = " "  # an orphaned right half: a blank
        style = cell.style
        fg = colour(style.fg, DEFAULT_FG)
        bg = colour(style.bg, DEFAULT_BG)
        if style.reverse:
            fg, bg = bg, fg
        is_cursor = cursor is not None and cursor[0] == row and c <= cursor[1] < c + width
        if is_cursor:
            fg, bg = bg, fg
        look = Look(fg, bg, style.bold, style.italic, style.underline, style.strikethrough,
                    is_cursor)
        out.append(DrawnCell(c, width, clean(char), look))
        c += width
    return out


def _n(value: int) -> str:
    return str(int(value))


def snapshot_svg(snapshot: Snapshot, *, title: str | None = None) -> str:
    """The screen as a standalone SVG document (a string ending in a newline).

    ``title`` (default: the terminal's title, if it has one) becomes the SVG's
    ``<title>``. Cells of the same look are drawn as one ``<rect>`` (background)
    and one ``<text>`` (characters) per run; a wide character gets a run of its
    own, two cells wide; a visible cursor is a block in reverse video, with an
    outline (``class="cursor"``).
    """
    cw, ch = CELL_WIDTH, CELL_HEIGHT
    width = snapshot.cols * cw + 2 * PADDING
    height = snapshot.rows * ch + 2 * PADDING
    if title is None:
        title = snapshot.title
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" font-family="{FONT_FAMILY}" '
        f'font-size="{_n(FONT_SIZE)}" xml:space="preserve" style="white-space: pre">',
    ]
    if title:
        out.append(f"<title>{xml_escape(title)}</title>")
    out.append(f'<rect width="{_n(width)}" height="{_n(height)}" fill="{DEFAULT_BG}"/>')
    out.append(f'<g transform="translate({_n(PADDING)} {_n(PADDING)})">')
    cursor = cursor_cell(snapshot)
    texts: list[str] = []
    cursor_outline = ""
    for row in range(snapshot.rows):
        cells = drawn_row(snapshot, row, cursor)
        y = row * ch
        # Backgrounds: runs of one colour other than the default.
        start = 0
        while start < len(cells):
            first = cells[start]
            end = start + 1
            while (end < len(cells) and cells[end].look.bg == first.look.bg
                   and not cells[end].look.cursor and not first.look.cursor):
                end += 1
            if first.look.bg != DEFAULT_BG or first.look.cursor:
                span = sum(c.width for c in cells[start:end])
                out.append(
                    f'<rect x="{_n(first.col * cw)}" y="{_n(y)}" width="{_n(span * cw)}" '
                    f'height="{_n(ch)}" fill="{first.look.bg}"/>'
                )
            if first.look.cursor:
                cursor_outline = (
                    f'<rect class="cursor" x="{_n(first.col * cw)}" y="{_n(y)}" '
                    f'width="{_n(first.width * cw)}" height="{_n(ch)}" fill="none" '
                    f'stroke="{DEFAULT_FG}" stroke-width="1"/>'
                )
            start = end
        # Characters: runs of one look; a wide character is a run of its own.
        start = 0
        while start < len(cells):
            first = cells[start]
            end = start + 1
            if first.width == 1:
                while (end < len(cells) and cells[end].width == 1
                       and _same_ink(cells[end].look, first.look)):
                    end += 1
            texts.extend(_text_run(cells[start:end], y + BASELINE))
            start = end
    out.extend(texts)
    if cursor_outline:
        out.append(cursor_outline)
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _same_ink(a: Look, b: Look) -> bool:
    return (a.fg, a.bold, a.italic, a.underline, a.strikethrough, a.cursor) == (
        b.fg, b.bold, b.italic, b.underline, b.strikethrough, b.cursor)


def _text_run(cells: list[DrawnCell], y: int) -> list[str]:
    look = cells[0].look
    decorated = look.underline or look.strikethrough
    if not decorated:
        # Blanks draw nothing: leave them out at both ends.
        while cells and cells[0].char == " ":
            cells = cells[1:]
        while cells and cells[-1].char == " ":
            cells = cells[:-1]
        if not cells:
            return []
    text = "".join(c.char for c in cells)
    span = sum(c.width for c in cells)
    attrs = [
        f'x="{_n(cells[0].col * CELL_WIDTH)}"',
        f'y="{_n(y)}"',
        f'fill="{look.fg}"',
        f'textLength="{_n(span * CELL_WIDTH)}"',
    ]
    if look.bold:
        attrs.append('font-weight="bold"')
    if look.italic:
        attrs.append('font-style="italic"')
    if decorated:
        lines = [n for n, on in (("underline", look.underline),
                                 ("line-through", look.strikethrough)) if on]
        attrs.append(f'text-decoration="{" ".join(lines)}"')
    return [f"<text {' '.join(attrs)}>{xml_escape(text)}</text>"]
