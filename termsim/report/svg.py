"""A screen as a standalone SVG picture, for bug reports and committed snapshots.

The output is deterministic: the same :class:`~termsim.Snapshot` always gives
the same bytes (no ids, no timestamps, attributes always in the same order,
integer coordinates), so an SVG committed next to a test diffs cleanly.

This module only writes SVG: colours, the cursor, wide characters and what
becomes of characters XML cannot hold are decided in :mod:`termsim.report.draw`,
shared with the HTML report. Each row arrives as drawn runs; backgrounds
other than the default become ``<rect>`` elements (a run of one colour is
one rect), the text becomes ``<text>`` elements stretched to their columns
(``textLength``), so that the picture keeps the grid whatever font draws it.
Cells in an OSC 8 hyperlink are drawn as the text they are: a screenshot
is a picture, and a link in it would be one more thing to make safe.
"""

from __future__ import annotations

from ..emulator.snapshot.snapshot import Snapshot
from .draw import (
    DEFAULT_BG,
    DEFAULT_FG,
    DrawnRun,
    Look,
    cursor_cell,
    decoration,
    drawn_row,
    escape,
)

#: Geometry of one cell, in SVG user units (pixels).
CELL_WIDTH = 9
CELL_HEIGHT = 18
FONT_SIZE = 15
BASELINE = 14
PADDING = 8
FONT_FAMILY = "'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace"


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
        out.append(f"<title>{escape(title)}</title>")
    out.append(f'<rect width="{_n(width)}" height="{_n(height)}" fill="{DEFAULT_BG}"/>')
    out.append(f'<g transform="translate({_n(PADDING)} {_n(PADDING)})">')
    cursor = cursor_cell(snapshot)
    texts: list[str] = []
    cursor_outline = ""
    for row in range(snapshot.rows):
        runs = drawn_row(snapshot, row, cursor)
        y = row * ch
        # Backgrounds: runs of one colour other than the default.
        start = 0
        while start < len(runs):
            first = runs[start]
            end = start + 1
            while (end < len(runs) and runs[end].look.bg == first.look.bg
                   and not runs[end].look.cursor and not first.look.cursor):
                end += 1
            if first.look.bg != DEFAULT_BG or first.look.cursor:
                last = runs[end - 1]
                span = last.col + last.width - first.col
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
        while start < len(runs):
            first = runs[start]
            end = start + 1
            if not first.wide:
                while (end < len(runs) and not runs[end].wide
                       and _same_ink(runs[end].look, first.look)):
                    end += 1
            texts.extend(_text_run(runs[start:end], y + BASELINE))
            start = end
    out.extend(texts)
    if cursor_outline:
        out.append(cursor_outline)
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _same_ink(a: Look, b: Look) -> bool:
    return (a.fg, a.bold, a.italic, a.underline, a.strikethrough, a.cursor, a.blink,
            a.invisible, a.underline_style, a.underline_colour) == (
        b.fg, b.bold, b.italic, b.underline, b.strikethrough, b.cursor, b.blink,
        b.invisible, b.underline_style, b.underline_colour)


def _one_cell(run: DrawnRun) -> bool:
    """Whether ``run`` is one cell, whose text cannot be cut into columns (a
    wide character, or a character with combining marks)."""
    return run.wide or run.width == 1


def _blank(run: DrawnRun) -> bool:
    """Whether every cell of ``run`` is a blank (exactly " "), which draws
    nothing unless underlined or struck through."""
    return run.text == " " if _one_cell(run) else not run.text.strip(" ")


def _text_run(runs: list[DrawnRun], y: int) -> list[str]:
    look = runs[0].look
    if look.invisible:
        return []  # SGR 8: nothing but the background, which is drawn apart
    decorated = look.underline or look.strikethrough
    lead = trail = 0
    if not decorated:
        # Blanks draw nothing: leave them out at both ends (whole runs, then
        # the blank cells at the ends of the first and the last).
        i, j = 0, len(runs)
        while i < j and _blank(runs[i]):
            i += 1
        while j > i and _blank(runs[j - 1]):
            j -= 1
        if i == j:
            return []
        runs = runs[i:j]
        if not _one_cell(runs[0]):
            lead = len(runs[0].text) - len(runs[0].text.lstrip(" "))
        if not _one_cell(runs[-1]):
            trail = len(runs[-1].text) - len(runs[-1].text.rstrip(" "))
    text = "".join(r.text for r in runs)
    text = text[lead:len(text) - trail]
    x = runs[0].col + lead
    span = runs[-1].col + runs[-1].width - trail - x
    attrs = [
        f'x="{_n(x * CELL_WIDTH)}"',
        f'y="{_n(y)}"',
        f'fill="{look.fg}"',
        f'textLength="{_n(span * CELL_WIDTH)}"',
    ]
    if look.bold:
        attrs.append('font-weight="bold"')
    if look.italic:
        attrs.append('font-style="italic"')
    if decorated:
        lines, rules = decoration(look)
        attrs.append(f'text-decoration="{lines}"')
        if rules:
            # CSS (SVG 2): viewers that lack it still draw the plain line.
            attrs.append(f'style="{escape(";".join(rules))}"')
    if look.dim:
        attrs.append('class="dim"')  # its colour is already dimmed: a mark for readers
    body = escape(text)
    if look.blink:
        body += ('<animate attributeName="opacity" values="1;0" dur="1s" '
                 'calcMode="discrete" repeatCount="indefinite"/>')
    return [f"<text {' '.join(attrs)}>{body}</text>"]
