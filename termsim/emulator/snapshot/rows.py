"""Reading a screen's stored rows: their text, their cells' styles, their runs.

A row is kept as the terminal's own mapping of columns to pyte ``Char``
cells; this module is the only place that knows that layout, so that
:class:`~termsim.emulator.snapshot.snapshot.Snapshot` (and, through it, every
renderer) reads rows as :class:`~.values.Style` and
:class:`~.values.Run` values. It is apart from the snapshot because
it is the hot path of both building snapshots (``row_text``) and drawing
them (the grouping into runs), with caches of its own.

Grouping is the costly part of drawing a row, and a report draws thousands
of snapshots that share most of their rows (the same row object while a row
is unchanged, an equal one after a scroll), so runs are cached twice: each
snapshot keeps the runs of the rows it was asked about, and a small
module-wide cache (:data:`RUNS`) finds them for other snapshots by content,
keyed by the row's text (which each snapshot already has) and trusted only
for equal cells (usually the very same row object). That cache is bounded,
and holds no object per row besides the runs themselves: a page keeps tens
of thousands of rows alive, and every object they hold makes each garbage
collection slower.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import groupby, repeat
from operator import itemgetter
from typing import Any

from pyte.screens import Char

from .values import Run, Style

#: Where a cell's fields beyond pyte's ``Char`` start (``sgr.EXTRA``, which
#: this module cannot import: ``sgr`` imports the screen).
EXTRA = len(Char._fields)

_DEFAULT_STYLE = Style()


def style_of(char: Char) -> Style:
    """The style of a stored cell (``Style()`` itself for a default one)."""
    if len(char) > EXTRA:
        # A StyledChar, or a cell of that length in another Char class: its
        # extra fields are read by position (``sgr.EXTRA``).
        extra: tuple[bool, bool, str, str, str] = char[EXTRA:EXTRA + 5]  # type: ignore[assignment]
        dim, invisible, underline_style, underline_colour, link = extra
        if not char.underscore:
            underline_style, underline_colour = "", "default"
        link_id, _, url = link.rpartition("\x1f")
        return Style(
            char.fg, char.bg, char.bold, char.italics, char.underscore, char.reverse,
            char.strikethrough, char.blink, dim, invisible, underline_style, underline_colour,
            url, link_id,
        )
    if (
        char.fg == "default" and char.bg == "default" and not char.bold and not char.italics
        and not char.underscore and not char.reverse and not char.strikethrough
        and not char.blink
    ):
        return _DEFAULT_STYLE
    return Style(
        char.fg, char.bg, char.bold, char.italics, char.underscore, char.reverse,
        char.strikethrough, char.blink,
    )


Row = Mapping[int, Char]

#: A pyte character's attributes (all but its text), its text, and the
#: attributes of a blank in the default style.
_ATTRS = itemgetter(slice(1, None))
_DATA = itemgetter(0)
_PLAIN = Char(" ")[1:]
#: Styles shared by the runs of every row (bounded: 24-bit colours are many).
_STYLES: dict[Any, Style] = {}
_MAX_STYLES = 1 << 14


def _interned_style(attrs: Any, char: Char) -> Style:
    """One ``Style`` object per set of attributes, so that a renderer can
    memoise what it derives from a style by identity."""
    style = _STYLES.get(attrs)
    if style is None:
        if len(_STYLES) >= _MAX_STYLES:
            _STYLES.clear()
        style = _STYLES[attrs] = style_of(char)
    return style


def _group(row: Row, cols: int, default: Char) -> tuple[Run, ...]:
    """A row's runs (see :meth:`Snapshot.runs`). Hot for a report (one call
    per row content, thousands), so rows are grouped with C-level tools, a
    cell at a time only where a cell is not one code point."""
    end = cols
    if default[1:] == _PLAIN and default.data == " ":
        # Past the last stored cell, everything is a default blank.
        end = min(cols, max(row) + 1) if row else 0
    chars: list[Char] = list(map(row.get, range(end), repeat(default, end)))
    end = _trimmed(chars, end)
    if not end:
        return ()
    del chars[end:]
    datas: list[str] = list(map(_DATA, chars))
    text = "".join(datas)
    if len(text) == end and "" not in datas:
        return tuple(_plain_runs(chars, text, 0))
    return _odd_runs(chars, datas)


def _trimmed(chars: list[Char], end: int) -> int:
    """Where the row ends once its trailing default blanks are left out."""
    while end and chars[end - 1].data == " " and chars[end - 1][1:] == _PLAIN:
        end -= 1
    return end


def _plain_runs(chars: list[Char], text: str, col: int) -> list[Run]:
    """Runs of cells of one code point each, starting at column ``col``."""
    runs = []
    at = 0
    styles = _STYLES
    for attrs, group in groupby(chars, _ATTRS):
        cells = list(group)
        width = len(cells)
        style = styles.get(attrs) or _interned_style(attrs, cells[0])
        runs.append(Run(col + at, text[at:at + width], style, width))
        at += width
    return runs


def _odd_runs(chars: list[Char], datas: list[str]) -> tuple[Run, ...]:
    """``_group`` for a row with cells that are not one code point: wide
    characters and their right halves, characters with combining marks."""
    # Cells that are runs of their own: column -> (text, width, wide).
    alone: dict[int, tuple[str, int, bool]] = {}
    orphans = []
    for x in [x for x, data in enumerate(datas) if len(data) != 1]:
        data = datas[x]
        if data:
            alone[x] = (data, 1, False)
        elif x and datas[x - 1]:
            alone[x - 1] = (datas[x - 1], 2, True)  # x is its right half
        else:
            # A right half whose left half is gone: a terminal never leaves
            # one (an edit that splits a wide character blanks both halves);
            # it reads as the blank it looks like.
            orphans.append(x)
    for x in orphans:
        chars[x] = chars[x]._replace(data=" ")
        datas[x] = " "
    end = len(chars)
    while end:
        end = _trimmed(chars, end)  # blanks that were right halves may end it now
        last = alone.get(end - 2)
        if last is None or last[:2] != (" ", 2) or chars[end - 2][1:] != _PLAIN:
            break
        end -= 2  # a wide blank in the default style (never from a terminal)
    runs: list[Run] = []
    x = 0
    for col in sorted(c for c in alone if c < end):
        if x < col:
            runs += _plain_runs(chars[x:col], "".join(datas[x:col]), x)
        text, width, wide = alone[col]
        runs.append(Run(col, text, _interned_style(chars[col][1:], chars[col]), width, wide))
        x = col + width
    if x < end:
        runs += _plain_runs(chars[x:end], "".join(datas[x:end]), x)
    return tuple(runs)


_Key = tuple[str, int, Char]


class _RunsCache:
    """Runs by row content, for the rows seen lately.

    Keyed by (row text, cols, blank), which each snapshot has at hand; the
    text only narrows the search, and runs are reused only for equal cells
    (the same row object, usually, so ``is`` settles it). Two generations of
    at most ``size`` rows each: a row in use is moved to the new one, so
    memory stays bounded while a row that stays on screen is grouped once.
    Each dict is only ever read, added to, or dropped whole, so threads
    sharing it need no lock.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._new: dict[_Key, tuple[Row, tuple[Run, ...]]] = {}
        self._old: dict[_Key, tuple[Row, tuple[Run, ...]]] = {}

    def runs(self, row: Row, text: str, cols: int, default: Char) -> tuple[Run, ...]:
        key = (text, cols, default)
        new = self._new
        known = new.get(key)
        if known is not None and (known[0] is row or known[0] == row):
            return known[1]
        known = self._old.get(key)
        if known is None or (known[0] is not row and known[0] != row):
            known = (row, _group(row, cols, default))
        if len(new) >= self._size:
            self._old, self._new = new, {}
        self._new[key] = known
        return known[1]


#: The runs of the rows seen lately, shared by every snapshot.
RUNS = _RunsCache(256)
_PLAIN_STYLE = Char(" ", "default", "default")[1:]


def plain_cell(char: str) -> Char:
    """A cell of text in the default style, as the screen draws it."""
    cell: Char = tuple.__new__(Char, (char, *_PLAIN_STYLE))
    return cell


#: ``list(range(n))`` for every row length: what a row written left to
#: right from column 0 has as keys.
_COLUMNS = [list(range(n)) for n in range(1025)]


def row_text(row: Row, cols: int) -> str:
    """A row's text: one character per column, wide characters once.

    Hot path (every changed row of every snapshot): a row written left to
    right from column 0, the common case, is joined in one pass of C code.
    """
    if not row:
        return " " * cols
    n = len(row)
    if n <= cols and n < len(_COLUMNS) and list(row) == _COLUMNS[n]:
        return "".join(map(_DATA, row.values())) + " " * (cols - n)
    chars = [" "] * cols
    for x, char in row.items():
        if x < cols:
            chars[x] = char.data
    return "".join(chars)


def build_lines(cells: Iterable[Row], cols: int) -> tuple[str, ...]:
    """Each row's text (see :func:`row_text`)."""
    return tuple(row_text(row, cols) for row in cells)
