"""Tab stops.

Why a module of its own: HT, CHT and CBT must leave a pending wrap alone
(xterm's ``TabToNextStop``) and count from the last column during one, which
pyte's ``tab`` does not; small, and independent of every other concern.
"""

from __future__ import annotations

from .state import ScreenState


class TabOps(ScreenState):
    """HT, CHT, CBT and DECST8C."""

    def tab(self) -> None:
        """HT: to the next tab stop, or the last column. A pending wrap stays
        pending (xterm's ``TabToNextStop`` does not reset it)."""
        x = self.cursor.x
        if x >= self.columns:
            return
        self._margin_wrap = None
        # Under DECLRMM, the right margin whichever side the cursor is on
        # (xterm's ``TabToNextStop``).
        last = self.columns - 1 if self.lr_margins is None else self.lr_margins[1]
        self.cursor.x = min(min((s for s in self.tabstops if s > x), default=last), last)

    def default_tab_stops(self) -> None:
        """DECST8C (``CSI ? 5 W``): a stop every eight columns, as at start."""
        self.tabstops = set(range(8, self.columns, 8))

    def tab_forward(self, count: int | None = None) -> None:
        """CHT (``CSI n I``)."""
        for _ in range(min(count or 1, self.columns)):
            self.tab()

    def tab_backward(self, count: int | None = None) -> None:
        """CBT (``CSI n Z``). From a pending wrap it counts from the last
        column, where the cursor is (xterm's ``TabPrev`` from ``cur_col``)."""
        self._margin_wrap = None
        for _ in range(min(count or 1, self.columns)):
            stops = [s for s in self.tabstops if s < min(self.cursor.x, self.columns - 1)]
            self.cursor.x = max(stops) if stops else 0
