"""Immutable screen snapshots: what predicates read and errors show.

A snapshot is a value: once built it never changes, so a test can keep the
screen a wait matched, compare two with ``==``, and an error can carry the
screen of the moment it failed. Only a :class:`~termsim.Terminal` builds them.

Rows and columns are 0-based; negative indexes count from the bottom/right.
Each row is kept as the terminal's own row of cells (shared, never mutated,
between snapshots whose row did not change), so building one costs a copy of
the rows that changed and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyte.screens import Char

if TYPE_CHECKING:
    from ._predicates import Region


@dataclass(frozen=True, slots=True)
class Style:
    """How a cell is drawn. Colours are pyte's names (``"red"``,
    ``"brightblue"``, ``"default"``) or ``"rrggbb"`` hex for 256/24-bit ones."""

    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False
    strikethrough: bool = False
    blink: bool = False


@dataclass(frozen=True, slots=True)
class Cell:
    """One screen cell. ``char`` is ``""`` for the right half of a wide character."""

    char: str
    style: Style


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


def row_text(row: Row, cols: int) -> str:
    """A row's text: one character per column, wide characters once."""
    if not row:
        return " " * cols
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
        "_cells",
        "_default",
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
    _cells: tuple[Row, ...]
    _default: Char

    def __init__(
        self, *, cols: int, rows: int, cells: tuple[Row, ...], lines: tuple[str, ...],
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

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Snapshot is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Snapshot is immutable")

    def with_input_ready(self, input_ready: bool | None) -> Snapshot:
        """The same screen, with what the session knows about the tty."""
        if input_ready is self.input_ready:
            return self
        return Snapshot(
            cols=self.cols, rows=self.rows, cells=self._cells, lines=self.lines,
            cursor=self.cursor, title=self.title, alternate=self.alternate,
            modes=self.modes, generation=self.generation, input_ready=input_ready,
            default=self._default,
        )

    # -- reading ---------------------------------------------------------------

    @property
    def text(self) -> str:
        """All rows joined with newlines, trailing blanks of each row removed."""
        return "\n".join(line.rstrip() for line in self.lines)

    def cell(self, row: int, col: int) -> Cell:
        """The cell at (row, col); negative indexes count from the bottom/right."""
        r = _index(row, self.rows, "row")
        c = _index(col, self.cols, "column")
        char = self._cells[r].get(c, self._default)
        return Cell(char.data, _style_of(char))

    def row_cells(self, row: int) -> tuple[Cell, ...]:
        r = _index(row, self.rows, "row")
        return tuple(self.cell(r, c) for c in range(self.cols))

    def span(self, row: int, start: int, stop: int) -> str:
        """Text of columns ``start:stop`` of a row, by column, not by character."""
        cells = self._cells[row]
        default = self._default.data
        return "".join(
            (cells[x].data if x in cells else default) for x in range(start, stop)
        )

    def region(self, region: Region) -> str:
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
