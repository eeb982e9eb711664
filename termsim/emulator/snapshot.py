"""Immutable screen snapshots: what predicates read and errors show.

A snapshot is a value: once built it never changes, so a test can keep the
screen a wait matched, compare two with ``==``, and an error can carry the
screen of the moment it failed. Only a :class:`~termsim.Terminal` builds them.

Rows and columns are 0-based; negative indexes count from the bottom/right.
Each row is kept as the terminal's own row of cells (shared, never mutated,
between snapshots whose row did not change), so building one costs a copy of
the rows that changed and nothing else.

Renderers read a row as :class:`Run` values (:meth:`Snapshot.runs`): cells of
one style grouped, the only view of a row they need, so that nothing outside
this module knows how pyte stores a cell. Grouping is the costly part of
drawing a row, and a report draws thousands of snapshots that share most of
their rows (the same row object while a row is unchanged, an equal one after
a scroll), so runs are cached twice: each snapshot keeps the runs of the rows
it was asked about, and a small module-wide cache finds them for other
snapshots by content, keyed by the row's text (which each snapshot already
has) and trusted only for equal cells (usually the very same row object).
That cache is bounded, and holds no object per row besides the runs
themselves: a page keeps tens of thousands of rows alive, and every object
they hold makes each garbage collection slower.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import groupby, repeat
from operator import itemgetter
from typing import Any, Protocol

from pyte.screens import Char

from .styled import StyledText, styled_cells

#: Where a cell's fields beyond pyte's ``Char`` start (``sgr.EXTRA``, which
#: this module cannot import: ``sgr`` imports the screen).
EXTRA = len(Char._fields)


class _HasText(Protocol):
    """What :meth:`Snapshot.region` asks of a :class:`~termsim.Region` (which
    is built on snapshots, so it is not imported here)."""

    def text(self, snapshot: Snapshot) -> str: ...


@dataclass(frozen=True, slots=True)
class Style:
    """How a cell is drawn: every attribute xterm keeps for a cell, and the
    underline styles and colour of kitty and VTE. Colours are pyte's names
    (``"red"``, ``"brightblue"``, ``"default"``) or ``"rrggbb"`` hex for
    256/24-bit ones.

    ``underline`` is any underline; ``underline_style`` is ``""`` for a plain
    single one (so that ``Style(underline=True)`` is what ``ESC[4m`` draws)
    and ``"double"``, ``"curly"``, ``"dotted"`` or ``"dashed"`` otherwise.
    ``underline_colour`` is ``"default"`` (the text's colour) for cells that
    are not underlined, whatever SGR 58 said: it draws nothing there.
    ``invisible`` is SGR 8 (conceal). The fields added after ``blink`` come
    last, so that styles written positionally keep their meaning.
    """

    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False
    strikethrough: bool = False
    blink: bool = False
    dim: bool = False
    invisible: bool = False
    underline_style: str = ""
    underline_colour: str = "default"


@dataclass(frozen=True, slots=True)
class Cell:
    """One screen cell. ``char`` is ``""`` for the right half of a wide character."""

    char: str
    style: Style


@dataclass(frozen=True, slots=True)
class Run:
    """Cells of one style side by side, from :meth:`Snapshot.runs`.

    The run covers columns ``col`` to ``col + width - 1``. A wide character
    is a run of its own (``wide``, two columns, its text the character
    once), and so is a cell holding several code points (a character with
    combining marks, a ZWJ sequence); so every other run has exactly one
    code point per column, and a renderer can cut it at any column
    (``text[i]`` is column ``col + i``) or place each character on the grid
    without knowing about Unicode widths.
    """

    col: int
    text: str
    style: Style
    width: int
    wide: bool = False


@dataclass(frozen=True, slots=True)
class Cursor:
    row: int
    col: int
    visible: bool


@dataclass(frozen=True, slots=True)
class Modes:
    """Terminal modes a test may want to check or that change what keys send."""

    bracketed_paste: bool = False
    application_cursor: bool = False
    application_keypad: bool = False
    autowrap: bool = True
    insert: bool = False
    origin: bool = False
    #: ``None``, ``"x10"`` (9), ``"normal"`` (1000), ``"button"`` (1002) or ``"any"`` (1003).
    mouse: str | None = None
    #: ``None`` (X10 bytes), ``"utf8"`` (1005), ``"sgr"`` (1006) or ``"urxvt"`` (1015).
    mouse_encoding: str | None = None
    focus_events: bool = False
    #: DECSCUSR value: 0 default, 1/2 block, 3/4 underline, 5/6 bar.
    cursor_shape: int = 0


_DEFAULT_STYLE = Style()


def _style_of(char: Char) -> Style:
    if len(char) > EXTRA:
        # A StyledChar, or a cell of that length in another Char class: its
        # extra fields are read by position (``sgr.EXTRA``).
        extra: tuple[bool, bool, str, str] = char[EXTRA:EXTRA + 4]  # type: ignore[assignment]
        dim, invisible, underline_style, underline_colour = extra
        if not char.underscore:
            underline_style, underline_colour = "", "default"
        return Style(
            char.fg, char.bg, char.bold, char.italics, char.underscore, char.reverse,
            char.strikethrough, char.blink, dim, invisible, underline_style, underline_colour,
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
        style = _STYLES[attrs] = _style_of(char)
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


_CACHE = _RunsCache(256)
_PLAIN_STYLE = Char(" ", "default", "default")[1:]


def _plain_cell(char: str) -> Char:
    """A cell of text in the default style, as the screen draws it."""
    cell: Char = tuple.__new__(Char, (char, *_PLAIN_STYLE))
    return cell

_DATA = itemgetter(0)  # Char.data
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


class Snapshot:
    """The screen at one moment: text, cells, cursor, modes, title.

    ``generation`` orders snapshots of one terminal: a higher number is a
    later screen. ``input_ready`` is whether the program was reading its
    terminal in raw mode (``None`` where nobody knows, as in a bare
    :class:`~termsim.Terminal`).
    """

    __slots__ = (
        "_built",
        "_cells",
        "_default",
        "_runs",
        "alternate",
        "cols",
        "cursor",
        "generation",
        "input_ready",
        "lines",
        "modes",
        "rows",
        "title",
    )

    cols: int
    rows: int
    lines: tuple[str, ...]
    cursor: Cursor
    title: str
    alternate: bool
    modes: Modes
    generation: int
    input_ready: bool | None
    #: A row's cells, or, for a row whose cells were never made (a flood's
    #: rows: ``TermScreen.settle``), its text: plain, in the default style,
    #: or ``StyledText``; ``_row`` makes the cells of such a row when asked.
    _cells: tuple[Row | str, ...]
    _built: list[Row | None] | None
    _default: Char
    _runs: list[tuple[Run, ...] | None] | None

    def __init__(
        self, *, cols: int, rows: int, cells: tuple[Row | str, ...], lines: tuple[str, ...],
        cursor: Cursor, title: str, alternate: bool, modes: Modes, generation: int,
        input_ready: bool | None = None, default: Char | None = None,
    ) -> None:
        set_ = object.__setattr__
        set_(self, "cols", cols)
        set_(self, "rows", rows)
        set_(self, "_cells", cells)
        set_(self, "lines", lines)
        set_(self, "cursor", cursor)
        set_(self, "title", title)
        set_(self, "alternate", alternate)
        set_(self, "modes", modes)
        set_(self, "generation", generation)
        set_(self, "input_ready", input_ready)
        set_(self, "_default", default or Char(" "))
        set_(self, "_runs", None)
        set_(self, "_built", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Snapshot is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Snapshot is immutable")

    def with_input_ready(self, input_ready: bool | None) -> Snapshot:
        """The same screen, with what the session knows about the tty."""
        if input_ready is self.input_ready:
            return self
        snap = Snapshot(
            cols=self.cols, rows=self.rows, cells=self._cells, lines=self.lines,
            cursor=self.cursor, title=self.title, alternate=self.alternate,
            modes=self.modes, generation=self.generation, input_ready=input_ready,
            default=self._default,
        )
        object.__setattr__(snap, "_runs", self._runs)  # the same rows, the same runs
        return snap

    # -- reading ---------------------------------------------------------------

    @property
    def text(self) -> str:
        """All rows joined with newlines, trailing blanks of each row removed."""
        return "\n".join(line.rstrip() for line in self.lines)

    def cell(self, row: int, col: int) -> Cell:
        """The cell at (row, col); negative indexes count from the bottom/right."""
        r = _index(row, self.rows, "row")
        c = _index(col, self.cols, "column")
        char = self._row(r).get(c, self._default)
        return Cell(char.data, _style_of(char))

    def _per_row(self, slot: str) -> list[Any]:
        """The memo in ``slot``, a place per row, made the first time it is
        needed (most snapshots are only read as text)."""
        memo: list[Any] | None = getattr(self, slot)
        if memo is None:
            memo = [None] * self.rows
            object.__setattr__(self, slot, memo)
        return memo

    def _row(self, r: int) -> Row:
        """Row ``r``'s cells, made the first time for a row kept as text."""
        row = self._cells[r]
        if not isinstance(row, str):  # (WrappedText is a str)
            return row
        built: list[Row | None] = self._per_row("_built")
        cells = built[r]
        if cells is None:
            if type(row) is StyledText:
                cells = built[r] = styled_cells(row)
            else:
                cells = built[r] = dict(zip(range(len(row)), map(_plain_cell, row),
                                            strict=False))
        return cells

    def row_cells(self, row: int) -> tuple[Cell, ...]:
        """Every cell of one row (negative counts from the bottom), with its style."""
        r = _index(row, self.rows, "row")
        return tuple(self.cell(r, c) for c in range(self.cols))

    def runs(self, row: int) -> tuple[Run, ...]:
        """The row as runs of cells of one style, left to right, for renderers.

        The runs cover the row from column 0 without gaps, up to its last
        cell that is not a blank in the default style (``Style()``): those
        trailing blanks are left out, so a blank row is ``()``, and the
        columns from the end of the last run to ``cols`` are default blanks.
        Blanks anywhere else, and blanks in any other style (reverse video
        under DECSCNM, a coloured erase), are in the runs.

        Adjacent runs may share a style: a wide character, or a cell of
        several code points, is a run of its own (see :class:`Run`). A right
        half left without its wide character reads as a blank. The cursor
        plays no part: it is the renderer's to draw.

        The result is cached for the row's cells, shared between snapshots
        that share the row, so asking again is cheap, and an unchanged row
        is grouped once however many snapshots show it.
        """
        r = row if 0 <= row < self.rows else _index(row, self.rows, "row")
        known: list[tuple[Run, ...] | None] = self._per_row("_runs")
        runs = known[r]
        if runs is None:
            text = self.lines[r] if r < len(self.lines) else ""
            runs = known[r] = _CACHE.runs(self._row(r), text, self.cols, self._default)
        return runs

    def span(self, row: int, start: int, stop: int) -> str:
        """Text of columns ``start:stop`` of a row, by column, not by character."""
        cells = self._row(row)
        default = self._default.data
        return "".join(
            (cells[x].data if x in cells else default) for x in range(start, stop)
        )

    def region(self, region: _HasText) -> str:
        """The text inside a :class:`~termsim.Region`, rows joined with newlines."""
        return region.text(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Snapshot):
            return NotImplemented
        return (
            self.lines == other.lines and self.cursor == other.cursor
            and self.title == other.title and self.alternate == other.alternate
            and self.modes == other.modes
            and all(self.row_cells(r) == other.row_cells(r) for r in range(self.rows))
        )

    def __hash__(self) -> int:
        return hash((self.lines, self.cursor, self.title))

    def __repr__(self) -> str:
        return (
            f"<Snapshot {self.cols}x{self.rows} generation={self.generation} "
            f"cursor=({self.cursor.row}, {self.cursor.col})>"
        )

    def render(self, *, numbers: bool = True) -> str:
        """The screen as text for people: numbered rows, a frame, the cursor.

        Used by error messages; trailing blank rows are folded into one line.
        """
        width = len(str(self.rows - 1))
        lines = [line.rstrip() for line in self.lines]
        last = max((i for i, line in enumerate(lines) if line), default=-1)
        last = max(last, self.cursor.row)
        cur = self.cursor
        shown = "visible" if cur.visible else "hidden"
        out = [
            f"screen {self.cols}x{self.rows}"
            + (", alternate buffer" if self.alternate else "")
            + f", cursor at row {cur.row}, col {cur.col} ({shown})"
            + (f", title {self.title!r}" if self.title else ""),
        ]
        bar = "─" * min(self.cols, 100)
        pad = " " * width
        out.append(f"{pad} ┌{bar}")
        for i in range(last + 1):
            label = str(i).rjust(width) if numbers else pad
            marker = "│"
            line = lines[i]
            if i == cur.row:
                col = min(cur.col, self.cols)
                line = line.ljust(col)
                out.append(f"{label} {marker}{line}")
                out.append(f"{pad}  {' ' * col}^ cursor")
                continue
            out.append(f"{label} {marker}{line}")
        if last + 1 < self.rows:
            hidden = self.rows - last - 1
            plural = "s" if hidden != 1 else ""
            out.append(f"{pad} │… {hidden} blank row{plural} (to row {self.rows - 1})")
        out.append(f"{pad} └{bar}")
        return "\n".join(out)


def _index(i: int, size: int, what: str) -> int:
    j = i + size if i < 0 else i
    if not 0 <= j < size:
        raise IndexError(f"{what} {i} is outside a screen of {size} {what}s")
    return j


def build_lines(cells: Iterable[Row], cols: int) -> tuple[str, ...]:
    return tuple(row_text(row, cols) for row in cells)
