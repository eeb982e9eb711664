"""Panes: the rectangles a screen is split into by lines drawn in
box-drawing characters (tmux's ``│`` between split panes, the boxes of mc
or a textual app, a prompt_toolkit ``VSplit`` with a vertical line).

A wait on text in one pane looks in that pane (``Region.rect``), not in the
row, which runs on through the panes beside it and holds whatever they show
(a clock, another program's output) at that moment.

A separator is a column of cells, at least :data:`MIN_RUN` rows high, each
of which has a stroke up or down (``│ ┃ ║``, the corners and junctions). A
row is split where a separator crosses it inside the screen (a frame around
the whole screen, on its first and last columns, splits nothing). The pane
holding columns ``left:right`` of a split row runs between the separators
on either side of them, and from the row below the nearest horizontal line
above to the nearest one below: the rows where a separator has a stroke
into the pane (``├`` on its left, ``┤`` on its right, a box's corners), or
where the separator ends.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache

from ..emulator.snapshot.snapshot import Snapshot

#: A column of line-drawing cells this high, at least, separates panes.
MIN_RUN = 3

_STROKES = {"VERTICAL": ("up", "down"), "HORIZONTAL": ("left", "right"),
            "UP": ("up",), "DOWN": ("down",), "LEFT": ("left",), "RIGHT": ("right",)}


@cache
def strokes(char: str) -> frozenset[str]:
    """The directions a box-drawing character has lines in (``┌``: down
    and right); empty for any other character."""
    if len(char) != 1 or not 0x2500 <= ord(char) <= 0x257F:
        return frozenset()
    words = unicodedata.name(char, "").split()
    if "DIAGONAL" in words:
        return frozenset()
    return frozenset(s for word in words for s in _STROKES.get(word, ()))


@dataclass(frozen=True)
class Pane:
    """A pane's rectangle: rows ``top:bottom``, columns ``left:right``
    (ends exclusive, as ``Region.rect`` takes them)."""

    top: int
    left: int
    bottom: int
    right: int

    def holds(self, row: int, col: int) -> bool:
        return self.top <= row < self.bottom and self.left <= col < self.right


class Layout:
    """The separators of one screen, and the panes they make."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.rows, self.cols = snap.rows, snap.cols
        #: Column -> its separators, as row ranges ``(start, stop)``.
        self.runs: dict[int, list[tuple[int, int]]] = {}
        cells = [self._cells(r) for r in range(self.rows)]
        self._chars = cells
        for col in range(self.cols):
            start = None
            for row in range(self.rows + 1):
                vertical = row < self.rows and bool(cells[row]) \
                    and bool(strokes(cells[row][col]) & {"up", "down"})
                if vertical and start is None:
                    start = row
                elif not vertical and start is not None:
                    if row - start >= MIN_RUN:
                        self.runs.setdefault(col, []).append((start, row))
                    start = None

    def _cells(self, row: int) -> list[str]:
        """A row's characters by column; empty when it draws no lines."""
        line = self.snap.lines[row]
        if not any(strokes(c) for c in line):
            return []
        return [self.snap.span(row, col, col + 1) for col in range(self.cols)]

    def char(self, row: int, col: int) -> str:
        cells = self._chars[row]
        return cells[col] if cells else " "

    def _run(self, col: int, row: int) -> tuple[int, int] | None:
        return next(((a, b) for a, b in self.runs.get(col, ()) if a <= row < b), None)

    def crossings(self, row: int) -> list[int]:
        """The columns where separators cross ``row``, left to right."""
        return sorted(c for c in self.runs if self._run(c, row) is not None)

    def split(self, row: int) -> bool:
        """Whether ``row`` runs through more than one pane."""
        return any(0 < c < self.cols - 1 for c in self.crossings(row))

    def segments(self, row: int) -> list[tuple[int, int]]:
        """The column ranges of ``row`` between its separators, left to right."""
        out, left = [], 0
        for col in [*self.crossings(row), self.cols]:
            if col > left:
                out.append((left, col))
            left = col + 1
        return out

    def pane(self, row: int, left: int, right: int) -> Pane | None:
        """The pane holding columns ``left:right`` of ``row`` (a segment of
        it), or None when the row is not split or lies on a pane's edge."""
        if not self.split(row):
            return None
        top, bottom = 0, self.rows
        sides = [(left - 1, "right"), (right, "left")]
        bounded = False
        for col, inward in sides:
            run = self._run(col, row) if 0 <= col < self.cols else None
            if run is None:
                continue
            bounded = True
            start, stop = run
            edges = [r for r in range(start, stop) if inward in strokes(self.char(r, col))]
            if row in edges:
                return None  # a horizontal line, not the inside of a pane
            top = max(top, max((r + 1 for r in edges if r < row), default=start))
            bottom = min(bottom, min((r for r in edges if r > row), default=stop))
        return Pane(top, left, bottom, right) if bounded else None

    def pane_at(self, row: int, col: int) -> Pane | None:
        """The pane that holds the cell at ``row``, ``col``, if the row is split."""
        for left, right in self.segments(row):
            if left <= col < right:
                return self.pane(row, left, right)
        return None
