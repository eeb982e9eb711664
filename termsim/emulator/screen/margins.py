"""Left and right margins: DECLRMM (``CSI ? 69 h``) and DECSLRM (``CSI Pl ; Pr s``).

Why a module of its own: pyte has no left/right margins, and xterm's rules
for them touch scrolling, line and character editing, the cursor and text;
the rectangle they make with the top and bottom margins is kept here, and
the operations that honour it (``scroll``, ``erase``,
``cursor``, ``draw``) ask it through these few helpers. tmux
sets them as soon as a terminal announces xterm (DA2, XTVERSION): a pane of
a vertical split then scrolls inside its columns only.

The rules are xterm's (patch 410 read, termsim announces 398; each helper
names the function it follows): the margins exist only while DECLRMM is set
(``IsLeftRightMode``, ``ScrnLeftMargin``/``ScrnRightMargin`` in ``xterm.h``),
resetting DECLRMM forgets them (``set_left_right_margin_mode``), DECSLRM is
``CSI s`` only while DECLRMM is set and SCOSC otherwise (``CASE_ANSI_SC``),
scrolling moves the rectangle only (``scrollInMargins``) and then keeps no
history (a partial row is not a line that scrolled off).
"""

from __future__ import annotations

from pyte import modes as mo
from pyte.screens import Char

from .cells import forget, is_stub
from .erase import EraseOps

#: DECLRMM, as pyte's ``mode`` stores private modes (shifted left by 5).
DECLRMM = 69 << 5


class MarginOps(EraseOps):
    """DECLRMM, DECSLRM, and the rectangle the margins make."""

    def set_lr_margins(self, left: int | None = None, right: int | None = None) -> None:
        """DECSLRM (``CSI Pl ; Pr s`` under DECLRMM): 1-based, right defaults
        to (and is capped at) the last column, ignored unless left < right;
        homes the cursor, origin-aware (xterm's ``CASE_ANSI_SC``,
        ``set_lr_margins``, then ``CursorSet(0, 0)``)."""
        lo = left or 1
        hi = right if right and right <= self.columns else self.columns
        if hi <= lo:
            return
        self.lr_margins = None if (lo == 1 and hi == self.columns) else (lo - 1, hi - 1)
        self.cursor_position()

    def left_right_mode(self, on: bool) -> None:
        """DECLRMM set or reset; reset forgets the margins (xterm's
        ``set_left_right_margin_mode``)."""
        if on:
            self.mode.add(DECLRMM)
        else:
            self.mode.discard(DECLRMM)
            self.lr_margins = None
            self._margin_wrap = None

    def _lr(self) -> tuple[int, int]:
        """The left and right margins, the whole width without them."""
        lr = self.lr_margins
        return (0, self.columns - 1) if lr is None else lr

    def _in_columns(self) -> bool:
        """Whether the cursor is between the left and right margins
        (``ScrnIsColInMargins``); a pending wrap at the screen's edge is on
        the last column, as xterm's cursor is."""
        lr = self.lr_margins
        return lr is None or lr[0] <= min(self.cursor.x, self.columns - 1) <= lr[1]

    def _scroll_rect(self, top: int, bottom: int, count: int, up: bool) -> None:
        """Rows ``top..bottom`` move ``count`` rows up (or down) between the
        left and right margins only; the rows that come in are blank in the
        pen's colours (xterm's ``scrollInMargins``). A wide character cut by
        a margin is blanked whole first, as there."""
        left, right = self._lr()
        count = min(count, bottom - top + 1)
        buffer = self.buffer
        blank = self._blank()
        for y in range(top, bottom + 1):
            line = buffer.get(y)
            if line is None:
                continue
            if left > 0 and is_stub(line.get(left)):
                self._erase_cells(y, left - 1, left + 1)
            if right + 1 < self.columns and is_stub(line.get(right + 1)):
                self._erase_cells(y, right, right + 2)
        # What each row of the rectangle holds now, by row.
        spans: dict[int, dict[int, Char]] = {}
        for y in range(top, bottom + 1):
            line = buffer.get(y)
            spans[y] = {} if line is None else {
                x: cell for x, cell in line.items() if left <= x <= right}
        for y in range(top, bottom + 1):
            source = y + count if up else y - count
            cells = spans.get(source) if top <= source <= bottom else None
            line = buffer[y]
            for x in spans[y]:
                dict.__delitem__(line, x)
            if cells:
                dict.update(line, cells)
            elif blank is not None:
                dict.update(line, dict.fromkeys(range(left, right + 1), blank))
            forget(line)
        self.dirty.update(range(top, bottom + 1))

    def _wrap_pending(self) -> bool:
        """A wrap pending at the screen's edge or at the right margin."""
        cursor = self.cursor
        return cursor.x >= self.columns or self._margin_wrap == (cursor.x, cursor.y)

    def _origin_columns(self) -> tuple[int, int]:
        """The columns cursor addressing may reach: the margins under origin
        mode (xterm's ``CursorSet``), else the whole width."""
        if mo.DECOM in self.mode:
            return self._lr()
        return 0, self.columns - 1
