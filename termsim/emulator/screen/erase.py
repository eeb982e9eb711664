"""Erasing, and inserting and deleting characters, as xterm does.

Why a module of its own: erase (ED, EL, ECH, DECSED/DECSEL, ICH, DCH) is
where pyte and xterm differ most (xterm's ``ClearCells``: blanks in the
current colours only, in every cell, including those never written; a wide
character cut by an edit is blanked whole; protected cells stay under
selective erase). Scrolling and the modes reuse its blank rows, so it sits
low, on ``ScreenState`` alone.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from pyte.screens import Char, StaticDefaultDict

from .cells import (
    Protected,
    ProtectedStyledChar,
    StyledChar,
    TextRow,
    forget,
    is_stub,
)
from .state import ScreenState


class EraseOps(ScreenState):
    """ED, EL, ECH, ICH, DCH, DECSED/DECSEL and DECSCA, over blanks in the pen's colours."""

    def _blank_line(self, blank: Char) -> StaticDefaultDict[int, Char]:
        line: StaticDefaultDict[int, Char] = StaticDefaultDict(self.default_char)
        line.update(dict.fromkeys(range(self.columns), blank))
        return line

    def _erase_cells(self, y: int, start: int, stop: int) -> None:
        """Blank columns ``start:stop`` of row ``y``; a wide character cut by
        either end is blanked whole."""
        columns = self.columns
        buffer = self.buffer
        line = buffer.get(y)
        blank = self._blank()
        self.dirty.add(y)
        if line is not None:
            if start > 0 and is_stub(line.get(start)):
                start -= 1
            if stop < columns and is_stub(line.get(stop)):
                stop += 1
        if self.selective:
            # The wide character cut by an end is erased whole here too
            # (xterm's ClearInLine2 goes through ClearCells' checks); a
            # protected one stays whole, its two halves drawn with one pen.
            if line is not None:
                for x in [x for x, cell in line.items()
                          if start <= x < stop and not isinstance(cell, Protected)]:
                    if blank is None:
                        del line[x]
                    else:
                        line[x] = blank
                forget(line)
            if blank is not None:
                buffer[y].update((x, blank) for x in range(start, stop) if x not in buffer[y])
            return
        if blank is None:
            if line is None:
                return
            if start <= 0 and stop >= columns:
                del buffer[y]
                return
            # dict's own delete (a TextRow's text is updated below), looped in C.
            gone = [x for x in line if start <= x < stop]
            any(map(dict.__delitem__, repeat(line, len(gone)), gone))
        else:
            line = buffer[y]
            dict.update(line, dict.fromkeys(range(start, stop), blank))
        if type(line) is TextRow and line.text is not None:
            line.text = line.text[:start] + " " * (stop - start) + line.text[stop:]

    def _erase_rows(self, rows: range) -> None:
        if self.selective:
            for y in rows:
                self._erase_cells(y, 0, self.columns)
            return
        blank = self._blank()
        buffer = self.buffer
        for y in rows:
            if blank is None:
                buffer.pop(y, None)
            else:
                buffer[y] = self._blank_line(blank)
        self.dirty.update(rows)

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        if how not in (0, 1, 2):
            return  # xterm ignores other values; pyte raises UnboundLocalError
        x = self._end_wrap()
        y = self.cursor.y
        if how == 0:
            self._erase_cells(y, x, self.columns)
        elif how == 1:
            self._erase_cells(y, 0, x + 1)
        else:
            self._erase_cells(y, 0, self.columns)

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        if how not in (0, 1, 2):
            # 3 erases saved lines only (xterm), and termsim keeps none;
            # xterm ignores other values.
            return
        x = self._end_wrap()
        y = self.cursor.y
        if how == 0:
            self._erase_cells(y, x, self.columns)
            self._erase_rows(range(y + 1, self.lines))
        elif how == 1:
            self._erase_cells(y, 0, x + 1)
            self._erase_rows(range(y))
        else:
            self._erase_rows(range(self.lines))

    def selective_erase(self, in_display: bool, how: int) -> None:
        """DECSED (``CSI ? Ps J``) and DECSEL (``CSI ? Ps K``): as ED and EL,
        but cells drawn under DECSCA 1 stay (xterm's ``do_erase_display``
        with ``DEC_PROTECT``). ED and EL themselves erase protected cells, as
        in xterm."""
        self.selective = True
        try:
            (self.erase_in_display if in_display else self.erase_in_line)(how)
        finally:
            self.selective = False

    def set_protection(self, mode: int) -> None:
        """DECSCA (``CSI Ps " q``): 1 protects what is drawn next from
        selective erase; 0 and 2 do not."""
        attrs = self.cursor.attrs
        if len(attrs) > len(Char._fields):  # a pen with attributes Char lacks
            kind: type[Char] = ProtectedStyledChar if mode == 1 else StyledChar
        else:
            kind = Protected if mode == 1 else Char
        if type(attrs) is not kind:
            self.cursor.attrs = tuple.__new__(kind, attrs)

    def erase_characters(self, count: int | None = None) -> None:
        """ECH (``CSI n X``)."""
        x = self._end_wrap()
        self._erase_cells(self.cursor.y, x, min(x + (count or 1), self.columns))

    def _edited_span(self, count: int | None) -> tuple[int, int, int, int] | None:
        """Where ICH and DCH act: the cursor's column (a pending wrap ends
        first), how many cells (at most to the right margin), the row, marked
        dirty, and the column past the right margin (the screen's edge
        without one). ``None``: the cursor is outside the left and right
        margins, and nothing moves (xterm's ``InsertChar``,
        ``DeleteChar``)."""
        x = self._end_wrap()
        edge = self.columns
        lr = self.lr_margins
        if lr is not None:
            if not lr[0] <= x <= lr[1]:
                return None
            edge = lr[1] + 1
        n = min(count or 1, edge - x)
        y = self.cursor.y
        self.dirty.add(y)
        return x, n, y, edge

    def insert_characters(self, count: int | None = None) -> None:
        """ICH (``CSI n @``): blanks at the cursor, the rest of the line (up
        to the right margin) moves right and off the edge (the margin)."""
        span = self._edited_span(count)
        if span is None:
            return
        x, n, y, edge = span
        line = self.buffer.get(y)
        if line is not None:
            cut = edge - n  # cells from here on fall off the edge
            if is_stub(line.get(cut)) and cut - 1 >= x:
                self._erase_cells(y, cut - 1, cut)  # its right half would
            if is_stub(line.get(x)):
                self._erase_cells(y, x, x + 1)  # a wide character is split
            if edge < self.columns and is_stub(line.get(edge)):
                self._erase_cells(y, edge - 1, edge + 1)  # one across the margin
        self._move_cells(y, x, edge, range(x, edge - n), n, range(x, x + n))

    def _move_cells(self, y: int, x: int, edge: int, moved: range, by: int,
                    blanks: range) -> None:
        """What ICH and DCH do to row ``y`` between ``x`` and ``edge`` (the
        margin), once no wide character is cut: the cells in ``moved`` move
        ``by`` columns, ``blanks`` become the erase blank; the rest of the
        row stays."""
        blank = self._blank()
        line = self.buffer.get(y)
        if line is None:
            if blank is None:
                return
            line = self.buffer[y]
        cells = {k: v for k, v in line.items() if k < x or k >= edge}
        cells.update((k + by, v) for k, v in line.items() if k in moved)
        if blank is not None:
            cells.update(dict.fromkeys(blanks, blank))
        line.clear()
        line.update(cells)

    def delete_characters(self, count: int | None = None) -> None:
        """DCH (``CSI n P``): the rest of the line (up to the right margin)
        moves left; blanks come in at the right edge (the margin)."""
        span = self._edited_span(count)
        if span is None:
            return
        x, n, y, edge = span
        line = self.buffer.get(y)
        if line is not None:
            # A wide character cut by either end of the deleted span.
            if is_stub(line.get(x)):
                self._erase_cells(y, x, x + 1)
            if is_stub(line.get(x + n)):
                self._erase_cells(y, x + n - 1, x + n)
            if edge < self.columns and is_stub(line.get(edge)):
                self._erase_cells(y, edge - 1, edge + 1)  # one across the margin
        self._move_cells(y, x, edge, range(x + n, edge), -n, range(edge - n, edge))
