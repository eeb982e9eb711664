"""Cursor movement, margins, and DECSC/DECRC, as xterm's ``cursor.c``.

Why a module of its own: every move has to agree on the pending wrap
(``cursor.x == columns``), origin mode and the scroll margins, which pyte
handles differently move by move; read together, the rules are checkable
against xterm's source line by line. DECSC/DECRC save and restore the
character sets too, hence ``CharsetOps`` beneath.
"""

from __future__ import annotations

from pyte import modes as mo
from pyte.screens import Margins

from .cells import new_tuple
from .charsets import LAT1, CharsetOps
from .state import Saved


class CursorOps(CharsetOps):
    """CUU/CUD/CUF/CUB, CUP, HPA/VPA, HPR/VPR, DECSTBM, DECSC and DECRC."""

    def cursor_back(self, count: int | None = None) -> None:
        """CUB and BS. From a pending wrap the cursor is on the last column
        (xterm's ``do_wrap`` flag), so one step back lands left of it, as in
        xterm, VTE, alacritty, libvterm and pyte; tmux and kitty (and
        vt100-rust) keep the cursor past the last column and land on it:
        ``Emulation(backspace_at_wrap="tmux")``. It stops at the left margin
        from inside the margins, at column 0 from left of it (xterm's
        ``CursorBack``)."""
        cursor = self.cursor
        x = cursor.x
        self._margin_wrap = None
        if x >= self.columns:
            # Without autowrap there is no pending wrap in tmux either.
            past = self.backspace_past_edge and mo.DECAWM in self.mode
            x = self.columns if past else self.columns - 1
        lr = self.lr_margins
        left = 0 if lr is None or x < lr[0] else lr[0]
        cursor.x = max(left, x - (count or 1))
        if not self.backspace_past_edge:
            # A mark after this joins the cell the cursor is on (xterm:
            # CursorBack's ResetWrap clears ``char_was_written``).
            self._backed = (cursor.x, cursor.y)

    def cursor_forward(self, count: int | None = None) -> None:
        """CUF: pyte's, in one call (hot path: prompt_toolkit moves right
        over what it keeps, 805 times in ``ptk.bin``); it stops at the right
        margin from left of it (xterm's ``CursorForward``)."""
        cursor = self.cursor
        lr = self.lr_margins
        if lr is None:
            cursor.x = min(max(0, cursor.x + (count or 1)), self.columns - 1)
            return
        self._margin_wrap = None
        x = min(cursor.x, self.columns - 1)
        last = lr[1] if x <= lr[1] else self.columns - 1
        cursor.x = min(max(0, x + (count or 1)), last)

    def cursor_up(self, count: int | None = None) -> None:
        """CUU: stops at the top margin, or at the top row from above it."""
        self._end_wrap()
        top = self.margins.top if self.margins is not None else 0
        y = self.cursor.y
        self.cursor.y = max(y - (count or 1), top if y >= top else 0)

    def cursor_down(self, count: int | None = None) -> None:
        """CUD: stops at the bottom margin, or at the bottom row from below it."""
        self._end_wrap()
        bottom = self.margins.bottom if self.margins is not None else self.lines - 1
        y = self.cursor.y
        self.cursor.y = min(y + (count or 1), bottom if y <= bottom else self.lines - 1)

    def cursor_position(self, line: int | None = None, column: int | None = None) -> None:
        """CUP: under origin mode rows count from the top margin and stop at
        the bottom one, columns from the left margin to the right one
        (xterm's ``CursorSet``; pyte ignores such a move)."""
        self._margin_wrap = None
        x = (column or 1) - 1
        y = (line or 1) - 1
        top, bottom = 0, self.lines - 1
        left, right = 0, self.columns - 1
        if mo.DECOM in self.mode:
            if self.margins is not None:
                top, bottom = self.margins
                y += top
            if self.lr_margins is not None:
                left, right = self.lr_margins
                x += left
        self.cursor.x = min(max(x, 0), right)
        self.cursor.y = min(max(y, top), bottom)

    def cursor_to_column(self, column: int | None = None) -> None:
        """CHA and HPA (``CSI n G``, ``CSI n ```): the column, counted from
        the left margin under origin mode (xterm's ``CASE_HPA``)."""
        self._margin_wrap = None
        x = (column or 1) - 1
        left, right = 0, self.columns - 1
        if mo.DECOM in self.mode and self.lr_margins is not None:
            left, right = self.lr_margins
            x += left
        self.cursor.x = min(max(x, 0), right)

    def cursor_to_line(self, line: int | None = None) -> None:
        """VPA (``CSI n d``), origin-aware; pyte asserts margins exist under
        DECOM, and without margins the whole screen is the region."""
        self._end_wrap()
        y = (line or 1) - 1
        top, bottom = 0, self.lines - 1
        if mo.DECOM in self.mode and self.margins is not None:
            top, bottom = self.margins
            y += top
        self.cursor.y = min(max(y, top), bottom)

    def column_relative(self, count: int | None = None) -> None:
        """HPR (``CSI n a``): HPA counted from the cursor's column, so it
        stops at the screen's edge (the right margin under origin mode),
        not at the right margin CUF stops at (xterm's ``CASE_HPR`` calls
        ``CursorSet``; Ghostty agrees)."""
        x = min(self.cursor.x, self.columns - 1)
        if mo.DECOM in self.mode and self.lr_margins is not None:
            x -= self.lr_margins[0]
        self.cursor_to_column(x + (count or 1) + 1)

    def line_relative(self, count: int | None = None) -> None:
        """VPR (``CSI n e``): VPA counted from the cursor's row, so it stops
        at the bottom row (the bottom margin under origin mode), not at the
        bottom margin CUD stops at (xterm's ``CASE_VPR`` calls
        ``CursorSet``; Ghostty agrees)."""
        y = self.cursor.y
        if mo.DECOM in self.mode and self.margins is not None:
            y -= self.margins.top
        self.cursor_to_line(y + (count or 1) + 1)

    def set_margins(self, top: int | None = None, bottom: int | None = None) -> None:
        """DECSTBM: ignored unless top < bottom; homes the cursor (to the top
        margin under origin mode), ``CSI r`` included."""
        t = (top or 1) - 1
        b = min((bottom or self.lines), self.lines) - 1
        if t >= b:
            return
        self.margins = None if (t == 0 and b == self.lines - 1) else Margins(t, b)
        self.cursor_position()

    def save_cursor(self) -> None:
        """DECSC (``ESC 7``, ``CSI s``): position (pending wrap included),
        attributes, character sets and origin mode, for the current buffer."""
        c = self.cursor
        x, y = c.x, c.y
        wrap = self._margin_wrap
        # ``Saved(...)`` without its Python-level ``__new__`` (a flood of
        # ``ESC 7`` makes one each).
        self._saved[self.alternate] = new_tuple(Saved, (
            x, y, c.attrs, self.g0_charset, self.g1_charset, self.charset,
            mo.DECOM in self.mode, self.g2_charset, self.g3_charset,
            wrap is not None and wrap == (x, y),
        ))

    def restore_cursor(self) -> None:
        """DECRC (``ESC 8``, ``CSI u``): what DECSC saved in this buffer, which
        stays saved; without one, home with default attributes (xterm)."""
        saved = self._saved[self.alternate]
        cursor = self.cursor
        self._margin_wrap = None
        if saved is None:
            self.mode.discard(mo.DECOM)
            self.charset = 0
            self.g0_charset = LAT1
            self.g1_charset = LAT1
            self._reset_g2_g3()
            cursor.attrs = self.default_char
            cursor.x = cursor.y = 0
            return
        x, y, attrs, g0, g1, charset, origin, g2, g3, margin_wrap = saved
        self.g0_charset, self.g1_charset, self.charset = g0, g1, charset
        self.g2_charset, self.g3_charset = g2, g3
        if origin:
            self.mode.add(mo.DECOM)
        else:
            self.mode.discard(mo.DECOM)
        cursor.attrs = attrs
        cursor.x = min(x, self.columns)
        top, bottom = 0, self.lines - 1
        if origin and self.margins is not None:
            top, bottom = self.margins
        cursor.y = min(max(y, top), bottom)
        if margin_wrap:
            self._margin_wrap = (cursor.x, cursor.y)
