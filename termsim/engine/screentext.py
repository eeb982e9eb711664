"""Screens as text a reviewer can read in a diff: the golden file format.

::

    screen 60x8, cursor at row 1, col 2, styles
    |Starting the local server...                                |
    |❯                                                           |
    |                                                            |
    |{1: state: sleeping                                        }|
    {1}: reverse

* The first line says the size, where the cursor is (or that it is
  hidden), the region when only part of the screen is kept, and
  ``styles`` when styles are written.
* Each row sits between two ``|``, so trailing blanks are visible; a wide
  character takes its two columns as it does on a terminal.
* With styles, a run of cells whose style is not the default is written
  ``{id:text}`` (in the spirit of Neovim's ``screen:expect``) and the ids
  are explained at the end, numbered in the order they first appear, so
  the same screen always gives the same text. ``{``, ``}`` and ``\\`` in the
  text are then escaped with a backslash. A legend names the attributes in
  one order: bold, dim, italic, underline (``underline=curly`` and the like
  for a styled one), reverse, strikethrough, blink, invisible, then
  ``fg=``, ``bg=`` and ``underline-colour=``.
* Masked cells (a clock, a timing, a temp path) are written ``░``, on
  both sides of a comparison.

Comparing is rendering the actual screen the way the expectation was
written and comparing the texts. A hand-written expectation may leave out
the header (size and cursor are then not checked), the margins (trailing
blanks then do not count) and trailing blank rows.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..emulator.snapshot.region import Region
from ..emulator.snapshot.snapshot import Cell, Snapshot, Style

#: What a masked cell is written as.
MASKED = "░"
_DEFAULT = Style()
_HEADER = re.compile(r"screen \d+x\d+\b.*")
_LEGEND = re.compile(r"\{(\d+)\}: .*")
_CURSOR = re.compile(r", cursor (?:hidden|at row \d+, (?:col \d+|masked))")

Mask = Region | re.Pattern[str] | str


@dataclass(frozen=True)
class Options:
    """How a screen is written: which part, what is masked, what is kept."""

    region: Region | None = None
    mask: tuple[Mask, ...] = ()
    styles: bool = False
    cursor: bool = True


@dataclass
class ScreenText:
    """A screen as text, split into what a comparison looks at."""

    header: str | None
    rows: list[str]
    legend: list[str] = field(default_factory=list)
    margins: bool = True
    styles: bool = False

    def text(self) -> str:
        """The whole text, as a golden file holds it (ending with a newline)."""
        lines = [self.header] if self.header is not None else []
        lines += [f"|{row}|" if self.margins else row for row in self.rows]
        lines += self.legend
        return "\n".join(lines) + "\n"


def _style_words(style: Style) -> str:
    """A legend's description of ``style``. Attributes an older legend could
    not hold (dim, invisible, underline styles and colour, links) only add
    words, so the legends written before them still read the same."""
    words = [name for name in ("bold", "dim", "italic", "underline", "reverse",
                               "strikethrough", "blink", "invisible") if getattr(style, name)]
    if style.underline and style.underline_style:
        words[words.index("underline")] = f"underline={style.underline_style}"
    for name, word in (("fg", "fg"), ("bg", "bg"), ("underline_colour", "underline-colour")):
        colour = getattr(style, name)
        if colour != "default":
            hexed = re.fullmatch(r"[0-9a-fA-F]{6}", colour)
            words.append(f"{word}={'#' + colour.lower() if hexed else colour}")
    if style.link:  # an OSC 8 hyperlink: its URL is what a golden must keep
        words.append(f"link={style.link}")
        if style.link_id:
            words.append(f"link-id={style.link_id}")
    return ", ".join(words)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")


def _masked_columns(cells: Sequence[Cell], text: str, columns: list[int],
                    masks: Sequence[Mask], row: int, snap: Snapshot) -> set[int]:
    """The columns of one row that the masks hide."""
    hidden: set[int] = set()
    for mask in masks:
        if isinstance(mask, Region):
            top, bottom, left, right = mask.bounds(snap)
            if top <= row < bottom:
                hidden.update(range(left, right))
            continue
        pattern = re.compile(mask) if isinstance(mask, str) else mask
        for m in pattern.finditer(text):
            for index in range(m.start(), m.end()):
                col = columns[index]
                hidden.add(col)
                if col + 1 < len(cells) and cells[col + 1].char == "":
                    hidden.add(col + 1)  # both halves of a wide character
    return hidden


def _row(snap: Snapshot, row: int, options: Options, left: int, right: int,
         ids: dict[Style, int]) -> str:
    cells = snap.row_cells(row)
    # The row's text as a regex mask sees it, and the column of each character.
    columns = [c for c, cell in enumerate(cells) if cell.char != ""]
    text = "".join(cells[c].char or " " for c in columns)
    hidden = _masked_columns(cells, text, columns, options.mask, row, snap) \
        if options.mask else set()
    out: list[str] = []
    open_style: Style | None = None
    for col in range(left, right):
        cell = cells[col]
        if col in hidden:
            char, style = MASKED, _DEFAULT
        elif cell.char == "":
            if col == left:
                char, style = " ", cell.style  # the right half of a cut wide character
            else:
                continue
        else:
            char, style = cell.char, cell.style
        if options.styles:
            char = _escape(char)
            if style != open_style:
                if open_style is not None and open_style != _DEFAULT:
                    out.append("}")
                if style != _DEFAULT:
                    out.append(f"{{{ids.setdefault(style, len(ids) + 1)}:")
                open_style = style
        out.append(char)
    if options.styles and open_style is not None and open_style != _DEFAULT:
        out.append("}")
    return "".join(out)


def _cursor_masked(snap: Snapshot, options: Options) -> bool:
    if not options.mask:
        return False
    row, col = snap.cursor.row, snap.cursor.col
    cells = snap.row_cells(row)
    columns = [c for c, cell in enumerate(cells) if cell.char != ""]
    text = "".join(cells[c].char or " " for c in columns)
    hidden = _masked_columns(cells, text, columns, options.mask, row, snap)
    return col in hidden or col - 1 in hidden


def render(snap: Snapshot, options: Options = Options()) -> ScreenText:
    """``snap`` as text, the way a golden file holds it."""
    region = options.region
    top, bottom, left, right = region.bounds(snap) if region else (0, snap.rows, 0, snap.cols)
    parts = [f"screen {snap.cols}x{snap.rows}"]
    if region is not None:
        parts.append(str(region))
    if options.cursor:
        cursor = snap.cursor
        if not cursor.visible:
            parts.append("cursor hidden")
        elif _cursor_masked(snap, options):
            # On or right after masked cells: it moves with what they hide.
            parts.append(f"cursor at row {cursor.row}, masked")
        else:
            parts.append(f"cursor at row {cursor.row}, col {cursor.col}")
    if options.styles:
        parts.append("styles")
    ids: dict[Style, int] = {}
    rows = [_row(snap, r, options, left, right, ids) for r in range(top, bottom)]
    legend = [f"{{{n}}}: {_style_words(style)}" for style, n in ids.items()]
    return ScreenText(", ".join(parts), rows, legend, margins=True, styles=options.styles)


def parse(text: str) -> ScreenText:
    """An expectation: a golden file's text, or one written by hand."""
    lines = text.strip("\n").split("\n")
    header = None
    if lines and _HEADER.fullmatch(lines[0].strip()):
        header = lines.pop(0).strip()
    legend: list[str] = []
    while lines and _LEGEND.fullmatch(lines[-1].strip()):
        legend.insert(0, lines.pop().strip())
    margins = bool(lines) and all(
        len(line.strip()) >= 2 and line.strip()[0] == "|" == line.strip()[-1] for line in lines)
    if margins:
        rows = [line.strip()[1:-1] for line in lines]
    else:
        if text.startswith("\n"):
            # A triple-quoted screen opened on its own line, inside a test
            # function, is indented with the code: the indentation all its
            # rows share is the code's, not the screen's (rows that must
            # all start with blanks go between |, or in a one-line string).
            lines = textwrap.dedent("\n".join(lines)).split("\n")
        rows = [line.rstrip() for line in lines]
        while rows and not rows[-1]:
            rows.pop()
    styles = bool(legend) or (header is not None and header.endswith(", styles"))
    return ScreenText(header, rows, legend, margins, styles)


def options_for(expected: ScreenText, region: Region | None, mask: Sequence[Mask],
                styles: bool | None, cursor: bool | None) -> Options:
    """How to write the actual screen to compare it with ``expected``: with
    styles and the cursor if the expectation has them (or the call says)."""
    has_cursor = expected.header is not None and "cursor" in expected.header
    return Options(region, tuple(mask), expected.styles if styles is None else styles,
                   has_cursor if cursor is None else cursor)


def _header(expected: ScreenText, actual: ScreenText) -> str | None:
    """The expected header as compared: without the cursor when the actual
    one was written without it (``cursor=False``)."""
    header = expected.header
    if header is not None and actual.header is not None and not _CURSOR.search(actual.header):
        header = _CURSOR.sub("", header)
    return header


def comparable(expected: ScreenText, actual: ScreenText) -> ScreenText:
    """``actual`` reduced to what ``expected`` states (no header, no margins)."""
    rows = actual.rows
    if not expected.margins:
        rows = [row.rstrip() for row in rows]
        while rows and not rows[-1]:
            rows = rows[:-1]
    return ScreenText(actual.header if expected.header is not None else None, rows,
                      actual.legend, expected.margins, actual.styles)


def matches(expected: ScreenText, actual: ScreenText) -> bool:
    seen = comparable(expected, actual)
    return (seen.header == _header(expected, actual) and seen.rows == expected.rows
            and (not expected.styles or seen.legend == expected.legend))


def diff(expected: ScreenText, actual: ScreenText, *, width: int = 200) -> str:
    """Expected and actual, row by row, side by side, the differing rows
    marked ``!`` and their differing cells ``^``; stacked when too wide."""
    seen = comparable(expected, actual)
    out = []
    if seen.header != _header(expected, actual):
        out += [f"  expected: {expected.header}", f"  actual:   {seen.header}"]
    count = max(len(expected.rows), len(seen.rows))
    exp_rows = expected.rows + [""] * (count - len(expected.rows))
    act_rows = seen.rows + [""] * (count - len(seen.rows))
    bar = "|" if expected.margins else ""
    side = max((len(r) for r in exp_rows), default=0) + 2 * len(bar)
    number = len(str(max(count - 1, 0)))
    together = 2 * side + number + 8 <= width
    differ = [i for i in range(count) if exp_rows[i] != act_rows[i]]
    if together:
        out.append(f"  {'':>{number}}   {'expected':<{side}}   actual")
    for i in range(count):
        e, a = f"{bar}{exp_rows[i]}{bar}", f"{bar}{act_rows[i]}{bar}"
        mark = "!" if i in differ else " "
        if together:
            out.append(f"{mark} {i:>{number}}   {e:<{side}}   {a}")
            if i in differ:
                out.append(f"  {'':>{number}}   {'':<{side}}   {_carets(e, a)}")
        elif i in differ:
            out += [f"! {i:>{number}} - {e}", f"  {'':>{number}} + {a}",
                    f"  {'':>{number}}   {_carets(e, a)}"]
    if expected.styles and seen.legend != expected.legend:
        out.append("  styles: expected " + ("; ".join(expected.legend) or "none")
                   + " | actual " + ("; ".join(seen.legend) or "none"))
    return "\n".join(out)


def _carets(expected: str, actual: str) -> str:
    n = max(len(expected), len(actual))
    return "".join("^" if expected[i:i + 1] != actual[i:i + 1] else " "
                   for i in range(n)).rstrip()
