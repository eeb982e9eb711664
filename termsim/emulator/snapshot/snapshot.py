"""Immutable screen snapshots: what predicates read and errors show.

A snapshot is a value: once built it never changes, so a test can keep the
screen a wait matched, compare two with ``==``, and an error can carry the
screen of the moment it failed. Only a :class:`~termsim.emulator.Terminal` builds them.

Rows and columns are 0-based; negative indexes count from the bottom/right.
Each row is kept as the terminal's own row of cells (shared, never mutated,
between snapshots whose row did not change), so building one costs a copy of
the rows that changed and nothing else.

This module holds :class:`Snapshot` itself. The values it hands out
(:class:`Style`, :class:`Cell`, :class:`Run`, :class:`Cursor`,
:class:`Modes`) are :mod:`.values`'s, and reading a stored row (its
text, its cells' styles, its runs and their cache) is :mod:`.rows`'s;
both are re-exported here, where the rest of termsim imports them from,
as is :class:`Match` (:mod:`.matches`): what the wait that returned a
snapshot found on it, which the snapshot carries but is not part of it.

Renderers read a row as :class:`Run` values (:meth:`Snapshot.runs`): cells of
one style grouped, the only view of a row they need, so that nothing outside
the emulator knows how pyte stores a cell.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any, Protocol

from pyte.screens import Char

from ..screen.styled import StyledText, styled_cells
from ..signals.signals import (
    EMPTY,
    BellRung,
    ClipboardWrite,
    Command,
    ImageSent,
    NotificationSent,
    ShellMark,
    Signals,
)
from .matches import Awaited, Match, Place
from .rows import EXTRA, RUNS, Row, build_lines, plain_cell, row_text, style_of
from .values import Cell, Cursor, LinkRun, Modes, Run, Style

__all__ = [
    "EXTRA",
    "Cell",
    "Cursor",
    "LinkRun",
    "Match",
    "Modes",
    "Place",
    "Row",
    "Run",
    "Snapshot",
    "Style",
    "build_lines",
    "row_text",
]


class _HasText(Protocol):
    """What :meth:`Snapshot.region` asks of a :class:`~termsim.Region` (which
    is built on snapshots, so it is not imported here)."""

    def text(self, snapshot: Snapshot) -> str: ...


class Snapshot:
    """The screen at one moment: text, cells, cursor, modes, title.

    ``generation`` orders snapshots of one terminal: a higher number is a
    later screen. ``input_ready`` is whether the program was reading its
    terminal in raw mode (``None`` where nobody knows, as in a bare
    :class:`~termsim.emulator.Terminal`).
    """

    __slots__ = (
        "__weakref__",
        "_built",
        "_cells",
        "_default",
        "_found",
        "_ready",
        "_runs",
        "_text",
        "alternate",
        "cols",
        "cursor",
        "generation",
        "input_ready",
        "lines",
        "modes",
        "rows",
        "signals",
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
    #: What the program said outside the cells up to this screen: bells,
    #: title changes, clipboard writes, notifications, shell marks, images
    #: (read through the properties below).
    signals: Signals
    #: A row's cells, or, for a row whose cells were never made (a flood's
    #: rows: ``TermScreen.settle``), its text: plain, in the default style,
    #: or ``StyledText``; ``_row`` makes the cells of such a row when asked.
    _cells: tuple[Row | str, ...]
    _built: list[Row | None] | None
    _default: Char
    _runs: list[tuple[Run, ...] | None] | None
    #: The text (``text``), made the first time it is asked for, in a list
    #: shared with the copies ``with_input_ready`` makes: the same screen;
    #: its second item, the rows without their trailing blanks, if the
    #: terminal had them (None: ``text`` strips ``lines``).
    _text: list[Any]
    #: The last copy ``with_input_ready`` made (None: none yet), so that a
    #: wait's every look at one screen gets the one object, and its caches.
    _ready: Snapshot | None
    #: What the wait that returned this screen found on it: the parts of its
    #: predicate that held, and the matches of its ``Text`` and ``Regex``
    #: (``matched``, ``matches``, ``match``).
    _found: tuple[tuple[Awaited, ...], tuple[Match, ...]]

    def __init__(
        self, *, cols: int, rows: int, cells: tuple[Row | str, ...], lines: tuple[str, ...],
        cursor: Cursor, title: str, alternate: bool, modes: Modes, generation: int,
        input_ready: bool | None = None, default: Char | None = None,
        signals: Signals = EMPTY, stripped: tuple[str, ...] | None = None,
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
        set_(self, "signals", signals)
        set_(self, "_default", default or Char(" "))
        set_(self, "_runs", None)
        set_(self, "_built", None)
        set_(self, "_text", [None, stripped])
        set_(self, "_ready", None)
        set_(self, "_found", _NOTHING)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Snapshot is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Snapshot is immutable")

    def with_input_ready(self, input_ready: bool | None) -> Snapshot:
        """The same screen, with what the session knows about the tty."""
        if input_ready is self.input_ready:
            return self
        ready = self._ready
        if ready is not None and ready.input_ready is input_ready:
            return ready  # asked again for the same screen (every look of a wait)
        snap = Snapshot(
            cols=self.cols, rows=self.rows, cells=self._cells, lines=self.lines,
            cursor=self.cursor, title=self.title, alternate=self.alternate,
            modes=self.modes, generation=self.generation, input_ready=input_ready,
            default=self._default, signals=self.signals,
        )
        set_ = object.__setattr__
        set_(snap, "_runs", self._runs)  # the same rows, the same runs
        set_(snap, "_text", self._text)  # and the same text
        set_(self, "_ready", snap)
        return snap

    def with_matches(self, matched: tuple[Awaited, ...], matches: tuple[Match, ...]) -> Snapshot:
        """The same screen, carrying what a wait found on it (the engine
        returns this from ``wait_for``). A copy, sharing the rows and their
        caches: the terminal's own snapshot may be another wait's answer."""
        snap = Snapshot(
            cols=self.cols, rows=self.rows, cells=self._cells, lines=self.lines,
            cursor=self.cursor, title=self.title, alternate=self.alternate,
            modes=self.modes, generation=self.generation, input_ready=self.input_ready,
            default=self._default, signals=self.signals,
        )
        set_ = object.__setattr__
        set_(snap, "_runs", self._runs)
        set_(snap, "_text", self._text)
        set_(snap, "_built", self._built)
        set_(snap, "_found", (matched, matches))
        return snap

    # -- what the wait that returned it found -------------------------------------

    @property
    def match(self) -> Match | None:
        """The text the wait that returned this screen matched: its first
        ``Text`` or ``Regex`` that held, with its groups and its place
        (``screen.match.group("n")``, ``screen.match.row``); None for a
        screen no wait returned, or a wait with no text in it.

        Not part of the screen: two snapshots of one screen are equal (and
        hash alike) whatever their waits found."""
        matches = self._found[1]
        return matches[0] if matches else None

    @property
    def matches(self) -> tuple[Match, ...]:
        """Every ``Text`` and ``Regex`` of the wait that held on this screen,
        in the predicate's order, with its match: both sides of ``a & b``."""
        return self._found[1]

    @property
    def matched(self) -> tuple[Awaited, ...]:
        """The parts of the wait's predicate that held on this screen, in
        order: the whole first, then, for ``a | b``, the side (or sides)
        that held, down to the simple predicates: ``a in screen.matched``
        says whether ``a`` did. Empty for a screen no wait returned."""
        return self._found[0]

    # -- what was said outside the cells ------------------------------------------

    @property
    def icon_title(self) -> str:
        """The icon name (OSC 1, or OSC 0 with the title)."""
        return self.signals.icon_title

    @property
    def cwd(self) -> str | None:
        """The working directory the program last announced (OSC 7), as a path."""
        return self.signals.cwd

    @property
    def bells(self) -> tuple[BellRung, ...]:
        """The bells rung so far (the last 1,000; ``signals.bell_count`` counts all)."""
        return self.signals.bells

    @property
    def clipboard(self) -> tuple[ClipboardWrite, ...]:
        """Clipboard writes (OSC 52), oldest first."""
        return self.signals.clipboard

    @property
    def notifications(self) -> tuple[NotificationSent, ...]:
        """Desktop notifications (OSC 9, OSC 777, OSC 99), oldest first."""
        return self.signals.notifications

    @property
    def marks(self) -> tuple[ShellMark, ...]:
        """Shell-integration marks (OSC 133, OSC 633), oldest first."""
        return self.signals.marks

    @property
    def commands(self) -> tuple[Command, ...]:
        """The commands the shell marks delimit, oldest first; the last
        may be running (``finished`` False)."""
        return self.signals.commands

    @property
    def graphics(self) -> tuple[ImageSent, ...]:
        """Images sent (sixel, kitty, iTerm2), counted and sized, not decoded."""
        return self.signals.graphics

    @property
    def links(self) -> tuple[LinkRun, ...]:
        """The OSC 8 hyperlinks on the screen: each run of linked cells in a
        row, with its text, URL and id, top to bottom, left to right."""
        found: list[LinkRun] = []
        for r in range(self.rows):
            for run in self.runs(r):
                style = run.style
                if not style.link:
                    continue
                last = found[-1] if found else None
                if (last is not None and last.row == r and last.stop == run.col
                        and (last.url, last.id) == (style.link, style.link_id)):
                    found[-1] = LinkRun(last.text + run.text, style.link, style.link_id, r,
                                     last.start, run.col + run.width)
                else:
                    found.append(LinkRun(run.text, style.link, style.link_id, r, run.col,
                                      run.col + run.width))
        return tuple(found)

    # -- reading ---------------------------------------------------------------

    @property
    def text(self) -> str:
        """All rows joined with newlines, trailing blanks of each row removed.

        Made once per screen: every whole-screen ``Text`` and ``Regex`` of
        every wait reads it (hot: ``benchmarks/bench_wait_latency.py``)."""
        memo = self._text
        text: str | None = memo[0]
        if text is None:
            stripped = memo[1]
            text = memo[0] = "\n".join(
                map(str.rstrip, self.lines) if stripped is None else stripped)
        return text

    def cell(self, row: int, col: int) -> Cell:
        """The cell at (row, col); negative indexes count from the bottom/right."""
        r = _index(row, self.rows, "row")
        c = _index(col, self.cols, "column")
        char = self._row(r).get(c, self._default)
        return Cell(char.data, style_of(char))

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
                cells = built[r] = dict(zip(range(len(row)), map(plain_cell, row),
                                            strict=False))
        return cells

    def row_cells(self, row: int) -> tuple[Cell, ...]:
        """Every cell of one row (negative counts from the bottom), with its style."""
        r = _index(row, self.rows, "row")
        # ``cell`` for each column, its checks and row lookup made once
        # (snapshots compare equal row by row: a quarter faster).
        get = self._row(r).get
        return tuple([Cell(char.data, style_of(char))
                      for char in map(get, range(self.cols), repeat(self._default))])

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
            runs = known[r] = RUNS.runs(self._row(r), text, self.cols, self._default)
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


#: A screen no wait returned: nothing matched.
_NOTHING: tuple[tuple[Awaited, ...], tuple[Match, ...]] = ((), ())


def _index(i: int, size: int, what: str) -> int:
    j = i + size if i < 0 else i
    if not 0 <= j < size:
        raise IndexError(f"{what} {i} is outside a screen of {size} {what}s")
    return j

