"""Character sets: G0 to G3, locking and single shifts.

Why a module of its own: pyte's tables are the Linux console's (its DEC
special graphics also turn ``+,-.0`` into arrows, and G1 starts as line
drawing); termsim's follow xterm, and the drawing code, DECSC/DECRC and the
kept text rows all need to know when text passes through unchanged
(``LAT1`` in GL). The tables and the rules live here once.
"""

from __future__ import annotations

import pyte

from .state import ScreenState

#: ASCII: text through G0 as designated at start costs nothing.
LAT1 = pyte.charsets.LAT1_MAP
#: DEC Special Graphics as xterm has it: only 0x5f..0x7e replaced, and two
#: of those as xterm and the VT100 draw them, not as pyte (the Linux
#: console): ``_`` is a blank (xterm's ``map_DEC_Spec_Graphic`` leaves 0x5F
#: undefined, and ``xtermCharSetOut`` makes it an empty cell; pyte: a no-break
#: space), ``h`` the symbol for newline, U+2424 (pyte: a shade, U+2591).
_DEC_SPECIAL = (LAT1[:0x5F] + " " + pyte.charsets.VT100_MAP[0x60:0x68] + "\u2424"
                + pyte.charsets.VT100_MAP[0x69:0x7F] + LAT1[0x7F:])
#: The UK national set (``ESC ( A``): ASCII with a pound sign for ``#``.
_UK = LAT1[:0x23] + "£" + LAT1[0x24:]


class CharsetOps(ScreenState):
    """SCS (``ESC ( B``...), LS2/LS3 and SS2/SS3, as xterm has them."""

    def _reset_g2_g3(self) -> None:
        """G1, G2 and G3 as RIS leaves them (DECSTR too): ASCII, no single shift."""
        self.g1_charset = self.g2_charset = self.g3_charset = LAT1
        self.single_shift = 0

    def _gl_table(self) -> str:
        """The character set invoked into GL (SI, SO, LS2, LS3)."""
        return (self.g0_charset, self.g1_charset, self.g2_charset,
                self.g3_charset)[self.charset]

    def _in_gl(self, data: str) -> str:
        """``data`` through the character set invoked into GL; G0 as ASCII
        costs nothing. (``_gl_table``, inlined: text after SO comes here.)"""
        table = (self.g0_charset, self.g1_charset, self.g2_charset,
                 self.g3_charset)[self.charset]
        return data if table is LAT1 else data.translate(table)

    def lock_shift(self, g: int) -> None:
        """LS2, LS3 (``ESC n``, ``ESC o``): G2 or G3 into GL until changed."""
        self.charset = g

    def single_shift_next(self, g: int) -> None:
        """SS2, SS3 (``ESC N``, ``ESC O``): G2 or G3 for the next character."""
        self.single_shift = g

    def define_charset(self, code: str, mode: str) -> None:
        # pyte's "0" is the Linux console's map, which also turns ``+,-.0``
        # into arrows and a block; DEC Special Graphics (and xterm) only
        # replace 0x5f..0x7e.
        table = {"B": LAT1, "0": _DEC_SPECIAL, "A": _UK}.get(code) \
            or pyte.charsets.MAPS.get(code)
        if table is None:
            return
        if mode == "(":
            self.g0_charset = table
        elif mode == ")":
            self.g1_charset = table
        elif mode == "*":
            self.g2_charset = table
        elif mode == "+":
            self.g3_charset = table
