"""Line feeds, scrolling, and the history of rows scrolled off.

Why a module of its own: LF at the bottom is the hottest operation after
drawing, and the one place rows leave the screen for the history (which a
transcript reads); xterm's rules for the scroll region (LF below it goes to
the screen bottom, IL/DL only inside it, new rows in the pen's colours) are
read together here. It builds on ``EraseOps`` for the blank rows it makes.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import is_not
from typing import Any

from pyte import modes as mo

from .cells import (
    kept,
)
from .margins import MarginOps


def _move_rows(buffer: dict[int, Any], first: int, last: int, by: int) -> None:
    """Rows ``first`` to ``last`` of ``buffer`` moved ``by`` rows, onto
    rows that are among them or emptied already; a row that is not there
    stays missing where it lands. Each row is popped once and set once, by
    ``map`` and ``dict.update``: a scroll of the whole screen (every LF at
    the bottom, every RI at the top) costs a row's number no bytecode."""
    before = len(buffer)
    if before * 4 < last - first + 1:
        # Few rows there, or none (a screen scrolled blank by RI): those.
        if before:
            rows = [row for row in buffer if first <= row <= last]
            lines = list(map(buffer.pop, rows))
            buffer.update(zip([row + by for row in rows], lines, strict=True))
        return
    lines = list(map(buffer.pop, range(first, last + 1), repeat(None)))
    found = before - len(buffer)
    if found:
        targets = range(first + by, last + by + 1)
        if found == len(lines):  # every row was there
            buffer.update(zip(targets, lines, strict=True))
        else:
            buffer.update(compress(zip(targets, lines, strict=True),
                                   map(is_not, lines, repeat(None))))


class ScrollOps(MarginOps):
    """IND, RI, LF, NEL, SU, SD, IL, DL, and the history they feed."""

    def index(self) -> None:
        """IND, and LF/VT/FF: down one row, scrolling at the bottom margin;
        below the scroll region, down to the screen bottom (xterm's
        ``xtermIndex``; pyte moves the cursor up to the bottom margin).

        A pending wrap ends here, as in xterm (``CursorDown`` ->
        ``ResetWrap``): the next character overwrites the last column of the
        new row. ``Emulation(linefeed_at_wrap="tmux")`` keeps it pending, as
        tmux and vt100-rust do: the next character starts the row after.
        """
        cursor = self.cursor
        if self.index_ends_wrap:
            # ``_end_wrap``, inlined (hot: every LF).
            self._margin_wrap = None
            if cursor.x >= self.columns:
                cursor.x = self.columns - 1
        y = cursor.y
        margins = self.margins
        if margins is None:
            top, bottom = 0, self.lines - 1
        else:
            top, bottom = margins
        if y != bottom:
            if y < self.lines - 1:
                cursor.y = y + 1
            return
        if self.lr_margins is not None:
            # Only the rectangle scrolls, and only from inside its columns
            # (xterm's ``xtermIndex``: else the cursor stays at the bottom).
            if self._in_columns():
                self._scroll_rect(top, bottom, 1, up=True)
            return
        # Scroll the region up one row; inlined, this is the hot path.
        buffer = self.buffer
        gone = buffer.pop(top, None)
        if top == 0 and not self.alternate:
            self.history.append(kept(gone) if self.unbuilt else gone)
            self.scrolled += 1
        _move_rows(buffer, top + 1, bottom, -1)
        attrs = cursor.attrs
        if attrs.bg != "default" or attrs.fg != "default":
            buffer[bottom] = self._blank_line(self._blank())  # type: ignore[arg-type]
        if top == 0 and bottom == self.lines - 1:
            self._shift_rows(1, 1)  # the other rows only moved
        else:
            self.dirty.update(range(top, bottom + 1))

    def reverse_index(self) -> None:
        """RI (``ESC M``): up one row, scrolling down at the top margin."""
        cursor = self.cursor
        self._margin_wrap = None  # ``_end_wrap``, inlined
        if cursor.x >= self.columns:
            cursor.x = self.columns - 1
        y = cursor.y
        margins = self.margins
        if margins is None and self.lr_margins is None:
            if y:
                cursor.y = y - 1
                return
            # The whole screen moves down one row: ``_scroll_down(1)``,
            # inlined as ``index`` inlines the way up (a flood of RI at the
            # top is one row's move each).
            buffer = self.buffer
            bottom = self.lines - 1
            buffer.pop(bottom, None)
            _move_rows(buffer, 0, bottom - 1, 1)
            blank = self._blank()
            if blank is not None:
                buffer[0] = self._blank_line(blank)
            self.dirty.update(range(bottom + 1))
            return
        if y == (0 if margins is None else margins.top):
            if self._in_columns():  # outside them, stay (xterm's ``RevIndex``)
                self._scroll_down(1)
        elif y > 0:
            cursor.y = y - 1

    def linefeed(self) -> None:
        self.index()
        if mo.LNM in self.mode:
            self.carriage_return()

    def carriage_return(self) -> None:
        """CR: to the left margin, or to column 0 from left of it, or under
        origin mode always to the margin (xterm's ``CarriageReturn``)."""
        cursor = self.cursor
        lr = self.lr_margins
        if lr is None:
            cursor.x = 0
            return
        self._margin_wrap = None
        left = lr[0]
        cursor.x = left if cursor.x >= left or mo.DECOM in self.mode else 0

    def newlines(self, count: int) -> None:
        """CR LF, ``count`` times: what ``carriage_return`` and ``linefeed``
        would do, with the rows the cursor goes down without scrolling gone
        down at once (prompt_toolkit moves down to its toolbar so)."""
        cursor = self.cursor
        if self.lr_margins is not None:
            for _ in range(count):
                self.carriage_return()
                self.index()
            return
        cursor.x = 0
        free = self.lines - 1 - cursor.y
        if self.margins is None and free > 0:
            free = min(count, free)
            cursor.y += free
            count -= free
        for _ in range(count):
            self.index()

    def next_line(self) -> None:
        """NEL (``ESC E``): pyte maps it to LF, which keeps the column. With
        left/right margins, the index first (from the column the cursor is
        in), then CR (xterm's ``CASE_NEL``)."""
        if self.lr_margins is not None:
            self.index()
            self.carriage_return()
            return
        self.cursor.x = 0
        self.index()

    def _region(self) -> tuple[int, int]:
        margins = self.margins
        return (0, self.lines - 1) if margins is None else (margins.top, margins.bottom)

    def _scroll_up(self, count: int, top: int | None = None) -> None:
        """The scroll region (from row ``top`` if given: DL) moves up
        ``count`` rows (hot: every LF at the bottom, every wrap there)."""
        if self.lr_margins is not None:
            region_top, bottom = self._region()
            self._scroll_rect(region_top if top is None else top, bottom, count, up=True)
            return
        margins = self.margins
        if margins is None:
            region_top, bottom = 0, self.lines - 1
        else:
            region_top, bottom = margins
        scrolls_off = top is None and region_top == 0 and not self.alternate  # not DL
        if top is None:
            top = region_top
        buffer = self.buffer
        if scrolls_off:
            for y in range(min(count, bottom + 1)):
                self.history.append(buffer.get(y))
            self.scrolled += min(count, bottom + 1)
        if count == 1:
            buffer.pop(top, None)
            _move_rows(buffer, top + 1, bottom, -1)
        else:
            count = min(count, bottom - top + 1)
            self._shift_up(top, bottom, count)
        attrs = self.cursor.attrs
        if attrs.bg != "default" or attrs.fg != "default":
            blank = self._blank()
            assert blank is not None
            for y in range(bottom - count + 1, bottom + 1):
                buffer[y] = self._blank_line(blank)
        self.dirty.update(range(top, bottom + 1))

    def _scroll_down(self, count: int, top: int | None = None) -> None:
        """The scroll region (from row ``top`` if given: IL) moves down."""
        region_top, bottom = self._region()
        if top is None:
            top = region_top
        if self.lr_margins is not None:
            self._scroll_rect(top, bottom, count, up=False)
            return
        count = min(count, bottom - top + 1)
        self._shift_down(top, bottom, count)
        blank = self._blank()
        if blank is not None:
            for y in range(top, top + count):
                self.buffer[y] = self._blank_line(blank)
        self.dirty.update(range(top, bottom + 1))

    def _shift_up(self, top: int, bottom: int, count: int) -> None:
        buffer = self.buffer
        for y in range(top, bottom + 1):
            source = y + count
            if source <= bottom and source in buffer:
                buffer[y] = buffer.pop(source)
            else:
                buffer.pop(y, None)

    def _shift_down(self, top: int, bottom: int, count: int) -> None:
        buffer = self.buffer
        for y in range(bottom, top - 1, -1):
            source = y - count
            if source >= top and source in buffer:
                buffer[y] = buffer.pop(source)
            else:
                buffer.pop(y, None)

    def insert_lines(self, count: int | None = None) -> None:
        """IL (``CSI n L``): inside the scroll region only, and between the
        left and right margins, on their columns; then the cursor goes to
        the left margin, its wrap no longer pending (xterm's ``InsertLine``,
        ECMA-48's "line home position", pyte). ``Emulation(lines_home=False)``
        keeps its column and a pending wrap, as tmux and vt100-rust do."""
        top, bottom = self._region()
        y0 = self.cursor.y
        if top <= y0 <= bottom and self._in_columns():
            self._scroll_down(count or 1, top=y0)
            self._line_home()

    def delete_lines(self, count: int | None = None) -> None:
        """DL (``CSI n M``): as IL, the other way (xterm's ``DeleteLine``)."""
        top, bottom = self._region()
        y0 = self.cursor.y
        if top <= y0 <= bottom and self._in_columns():
            self._scroll_up(count or 1, top=y0)
            self._line_home()

    def _line_home(self) -> None:
        """After IL or DL: to the left margin (``Emulation.lines_home``)."""
        if self.lines_home:
            self._margin_wrap = None
            lr = self.lr_margins
            self.cursor.x = 0 if lr is None else lr[0]

    def scroll_up(self, count: int | None = None) -> None:
        """SU (``CSI n S``): the scroll region moves up, the cursor stays."""
        self._scroll_up(count or 1)

    def scroll_down(self, count: int | None = None) -> None:
        """SD (``CSI n T``): the scroll region moves down, the cursor stays."""
        self._scroll_down(count or 1)
