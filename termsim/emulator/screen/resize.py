"""Resizing, with reflow of soft-wrapped lines.

Why a module of its own: resizing touches both buffers and the history at
once, and reflow (``Emulation(reflow=True)``, as tmux, VTE and kitty do)
rejoins rows a wrap split, which no other operation needs; pyte's resize
goes through its ``delete_lines``, whose sparse-buffer bug termsim fixes.
"""

from __future__ import annotations

from pyte.screens import Char, StaticDefaultDict

from .cells import (
    TextRow,
    forget,
    history_cells,
)
from .state import ScreenState


class ResizeOps(ScreenState):
    """The size changing under the program, as a terminal window's does."""

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        lines = lines or self.lines
        columns = columns or self.columns
        if lines == self.lines and columns == self.columns:
            return
        if self.reflow and columns != self.columns and not self.alternate:
            self._reflow(columns)
        if lines < self.lines:
            # Rows leave at the top, as in xterm, and the cursor moves with
            # its row. pyte routes this through delete_lines, which had the
            # sparse-buffer bug fixed above; this does it directly, for both
            # buffers.
            drop = self.lines - lines
            keep = max(0, self.cursor.y - (lines - 1))
            drop = min(drop, keep) if self.cursor.y >= lines else 0
            for buffer in (self.buffer, self._other_buffer):
                shifted = {y - drop: line for y, line in buffer.items() if drop <= y < drop + lines}
                buffer.clear()
                buffer.update(shifted)
            self.cursor.y = max(0, self.cursor.y - drop)
        if columns != self.columns:
            for buffer in (self.buffer, self._other_buffer):
                for line in buffer.values():
                    for x in [x for x in line if x >= columns]:
                        del line[x]
                    if type(line) is TextRow:
                        line.text = None  # its width changed: rebuilt from the cells
        # Tab stops set by the program (``tabs -4``) stay; only new columns
        # get the default stops, every eight (xterm, tmux).
        old = self.columns
        self.tabstops = {s for s in self.tabstops if s < columns} | {
            s for s in range(8, columns, 8) if s >= old}
        self.lines, self.columns = lines, columns
        self.margins = None
        # The left and right margins too, as the top and bottom ones here
        # (xterm clamps both to the new size); DECLRMM stays.
        self.lr_margins = None
        self._margin_wrap = None
        self.cursor.x = min(self.cursor.x, columns)
        self.cursor.y = min(self.cursor.y, lines - 1)
        self.dirty.update(range(lines))

    def _reflow(self, columns: int) -> None:
        """Rewrap the primary screen and its history to ``columns``, as tmux,
        VTE and kitty do: rows a wrap joined (``line.wrapped``, set when the
        text ran past the last column) are one line again, cut anew, and the
        cursor keeps its place in its line. As in tmux, the bottom of the
        screen stays the bottom: rows that no longer fit go to the history,
        and rows the history gave back come down, but the cursor stays on
        the screen. Tab stops, margins and the row count are then handled
        by ``resize``."""
        old, lines, cursor = self.columns, self.lines, self.cursor
        rows: list[StaticDefaultDict[int, Char] | None] = [
            history_cells(row) for row in self.history]
        cursor_at = len(rows) + cursor.y
        rows += [self.buffer.get(y) for y in range(lines)]
        out: list[StaticDefaultDict[int, Char] | None] = []
        new_cursor = (0, 0)
        i = 0
        while i < len(rows):
            cells: list[Char | None] = []  # one logical line: rows joined by wraps
            mark = -1
            while True:
                line = rows[i]
                wrapped = line is not None and getattr(line, "wrapped", False)
                width = old if wrapped else (max(line) + 1 if line else 0)
                row_cells = [line.get(x) if line else None for x in range(min(width, old))]
                if i == cursor_at:
                    mark = len(cells) + min(cursor.x, old)
                    # Blanks up to the cursor, which may stand past the text.
                    row_cells += [None] * (min(cursor.x, old) - len(row_cells))
                cells += row_cells
                i += 1
                if not wrapped or i >= len(rows):
                    break
            rewrapped, at = self._rewrap(cells, columns, mark)
            if at is not None:
                new_cursor = (len(out) + at[0], at[1])
            out += rewrapped
        screen_top = min(max(0, len(out) - lines), new_cursor[0])
        # The history keeps its cap; rows it drops stay counted in ``scrolled``.
        self.scrolled += screen_top - len(self.history)
        self.history.clear()
        self.history.extend(out[:screen_top])
        self.buffer.clear()
        for y, line in enumerate(out[screen_top:screen_top + lines]):
            if line:
                self.buffer[y] = line
        cursor.y = new_cursor[0] - screen_top
        cursor.x = new_cursor[1]
        self.dirty.update(range(lines))

    def _rewrap(
        self, cells: list[Char | None], columns: int, mark: int,
    ) -> tuple[list[StaticDefaultDict[int, Char] | None], tuple[int, int] | None]:
        """A logical line's cells cut into rows of ``columns`` (a wide
        character that would straddle the edge starts the next row), and
        where cell ``mark`` landed (``columns`` as the column: a pending
        wrap), if it is in the line."""
        rows: list[StaticDefaultDict[int, Char] | None] = []
        line: StaticDefaultDict[int, Char] = self._new_line()
        at: tuple[int, int] | None = None
        x = i = 0
        while i < len(cells):
            cell = cells[i]
            nxt = cells[i + 1] if i + 1 < len(cells) else None
            width = 2 if cell is not None and cell.data and nxt is not None \
                and nxt.data == "" else 1
            if x + width > columns:
                line.wrapped = True  # type: ignore[attr-defined]
                rows.append(line)
                line, x = self._new_line(), 0
            if i <= mark < i + width:
                at = (len(rows), x)
            if width <= columns:
                for k in range(width):
                    if cells[i + k] is not None:
                        line[x + k] = cells[i + k]  # type: ignore[assignment]
                        forget(line)
                x += width
            i += width
        if mark >= len(cells) and at is None and mark >= 0:
            at = (len(rows), x)  # after the text: x == columns is a pending wrap
        rows.append(line if line else None)
        return rows, at
