"""pyte's ``Screen``, corrected where it matters to a test harness.

pyte 0.8.2 is frozen (its maintainer calls it maintenance mode), so every fix
lives in termsim, in a subclass, and pyte itself is used unchanged from PyPI.

What ``TermScreen`` changes in pyte, and why (each in the module of its
concern, below):

* ``draw`` is rewritten. pyte's version stops drawing at the first zero-width
  character that is not a combining mark (ZWJ, VS16, U+200B: selectel/pyte#190),
  so the rest of a run silently disappears; it lets a wide character straddle
  the right margin; overwriting half of a wide character leaves the other half
  behind (selectel/pyte#75, #207). It is also the hot path: printable ASCII is
  written a line segment at a time with shared ``Char`` values (benchmark:
  ``benchmarks/bench_feed.py``).
* The alternate screen (private modes 47, 1047, 1049), which pyte records as a
  mode and ignores (selectel/pyte#90): the primary buffer comes back on exit,
  and with 1049 the cursor too.
* ``delete_lines`` and ``insert_lines`` forget stale lines correctly. pyte's
  result depends on whether anyone *read* the sparse buffer before (a read
  creates the line), a heisenbug for a harness whose waits read the screen.
* NEL returns to column 0; SU/SD, REP, CBT/CHT, DECSCUSR, DECKPAM/DECKPNM,
  SCOSC/SCORC, DECSTR and the title stack exist.
* Cursor, erase and scroll operations follow xterm (its ``cursor.c``,
  ``util.c`` and ``charproc.c``), checked against the vt100-rust fixtures
  (``tests/test_conformance.py``, which lists where vt100-rust and xterm
  differ):

  - the pending wrap (pyte: ``cursor.x == columns``) ends on LF/VT/FF/IND/RI,
    CUU/CUD, EL/ED/ECH, ICH/DCH and IL/DL, which then act on the last column,
    as xterm's ``ResetWrap`` does; DECSC saves it and DECRC restores it;
  - LF/IND below the scroll region moves down to the screen bottom (pyte moves
    the cursor *up* to the bottom margin), and RI above it moves up;
  - erasing (ED, EL, ECH, ICH, DCH, IL, DL, SU, SD, scrolling) leaves blank
    cells in the current colours and no other attribute (xterm's
    ``ClearCells``), in every cell, including those never written (pyte
    rewrites only the cells its sparse buffer already holds, with every
    attribute of the cursor, reverse and bold included); ED 3 clears saved
    lines only, and termsim keeps none;
  - an edit that splits a wide character blanks both halves;
  - DECSC/DECRC are per buffer (xterm's ``sc[whichBuf]``), DECRC does not
    consume the saved state, and restores origin mode but not autowrap;
  - DECSTBM homes the cursor (origin-aware), ``CSI r`` included; CUP/VPA
    under origin mode clamp to the margins instead of being ignored;
  - BS and CUB from a pending wrap start at the last column (xterm, VTE,
    alacritty; tmux and kitty start past it: ``Emulation``);
  - DECCOLM clears and homes without resizing; DECSCNM (the visual bell)
    inverts every cell and inverts it back, where pyte wipes reverse video;
  - selective erase (DECSCA, DECSED, DECSEL) leaves protected cells
    (``Protected``); tab stops survive a resize; the UK set, DECST8C;
  - undecodable input is one U+FFFD a sequence as xterm reads it
    (``decoding.py``; one per maximal subpart the Unicode way), and REP
    repeats a character with its combining marks;
  - 47 and 1047 switch buffers without clearing on entry, 1047 clears the
    alternate buffer on exit, 1049 saves the cursor (as DECSC) and clears;
    1048 is DECSC/DECRC; XTSAVE/XTRESTORE (``CSI ? Pm s``/``r``) save and
    restore private modes.

* Left and right margins (DECLRMM, DECSLRM), which pyte lacks, as xterm
  has them: scrolling, IL/DL, ICH/DCH, CR, BS, CUF, HT, wrapping and origin
  mode keep to them (``margins.py``; tmux sets them for the panes of
  a vertical split).

Why this module: it is where ``TermScreen`` is composed, and what the rest of
termsim imports. Each concern is a mixin in a module of its own, which says
why it exists and how it differs from pyte; a concern that calls another's
operations subclasses it, so the order below is the order of dependence::

    ScreenState         state.py     buffers, history, caches; new rows, blanks
    ├─ EraseOps         erase.py     ED, EL, ECH, ICH, DCH, selective erase
    │  └─ MarginOps     margins.py   DECLRMM, DECSLRM: the margins' rectangle
    │     ├─ ScrollOps  scroll.py    LF, IND, RI, SU, SD, IL, DL; the history
    │     └─ ModeOps    modes.py     alternate screen, DECSCNM, DECCOLM, flags
    ├─ CharsetOps       charsets.py  G0..G3, shifts
    │  ├─ CursorOps     cursor.py    moves, margins, DECSC/DECRC
    │  └─ MarkOps       marks.py     what joins the cell before the cursor
    │     └─ DrawOps    draw.py      text, wide characters, REP
    │        └─ KeptRows lines.py    whole lines kept as text (fast path)
    ├─ TabOps           tabs.py      HT, CHT, CBT
    ├─ ResizeOps        resize.py    resize and reflow
    └─ PaletteOps       palette.py   OSC 4, OSC 104: the colour palette

Below them all, ``cells.py`` holds the rows and cells they share
(``TextRow``, ``Protected``, the history's rows), and
``segments.py`` the kept segments of ``draw``. The query answers
live in ``queries.py``, which reads this screen's state.

Each fast path of the screen sits behind one primitive, with a switch that
only tests use: ``KeptRows.feed_lines`` (called by ``Terminal`` only when a
read is lines; off: ``Terminal.fast_lines``) and ``KeptSegments.cells``
(off: ``screen._segments.enabled``). ``tests/test_fast_paths.py`` holds
each equal to the plain path.
"""

from __future__ import annotations

from typing import Any

from pyte import modes as mo
from pyte.screens import Char

from .cells import (
    BLANK,
    HISTORY_ROWS,
    HistoryRow,
    Protected,
    StyledChar,
    TextRow,
    WrappedText,
    history_cells,
)
from .charsets import LAT1
from .cursor import CursorOps
from .lines import KeptRows
from .modes import MOUSE_ENCODING, MOUSE_TRACKING, FlagSwitch, ModeOps
from .palette import PaletteOps
from .resize import ResizeOps
from .scroll import ScrollOps
from .tabs import TabOps

__all__ = [
    "BLANK",
    "HISTORY_ROWS",
    "MOUSE_ENCODING",
    "MOUSE_TRACKING",
    "FlagSwitch",
    "HistoryRow",
    "Protected",
    "TermScreen",
    "TextRow",
    "WrappedText",
    "history_cells",
]


#: Titles XTWINOPS 22 (``CSI 22 t``) pushes, at most: the oldest goes, as
#: xterm's ring of ``MAX_SAVED_TITLES`` (10, ``ptyx.h``).
TITLE_STACK = 10


class TermScreen(KeptRows, ModeOps, ScrollOps, CursorOps, TabOps, ResizeOps, PaletteOps):
    """The screen state behind a :class:`termsim.emulator.Terminal`; not public API.

    Its operations come from the concerns above; what is left here is what
    spans all of them: RIS, DECSTR, DECALN.
    """

    def reset(self) -> None:
        """RIS: pyte's fields (the buffer, the cursor, modes, tab stops,
        charsets G0 and G1), then termsim's (``ScreenState.reset_state``)."""
        super().reset()
        self.reset_state()

    def soft_reset(self) -> None:
        """DECSTR (``CSI ! p``): modes and attributes back, screen kept."""
        self.mode.discard(mo.IRM)
        self.mode.discard(mo.DECOM)
        self.mode.add(mo.DECAWM)
        self.mode.add(mo.DECTCEM)
        self.cursor.hidden = False
        self.margins = None
        self.left_right_mode(False)  # and the margins (xterm's ``resetMarginMode``)
        self.palette.clear()  # xterm's ``ResetAnsiColorRequest``, in soft resets too
        self.charset = 0
        self.g0_charset = LAT1
        self.g1_charset = LAT1
        self._reset_g2_g3()
        self.cursor.attrs = self._pen_after_soft_reset(self.cursor.attrs)
        self.set_protection(0)
        # xterm's DECSTR ends with CursorSave and the saved position set
        # home: ESC 8 after it goes home with the pen, character sets and
        # origin mode as DECSTR left them (its strikethrough, say), not with
        # a default pen as when nothing was saved.
        self.save_cursor()
        saved = self._saved[self.alternate]
        assert saved is not None
        self._saved[self.alternate] = saved._replace(x=0, y=0, margin_wrap=False)

    def _pen_after_soft_reset(self, pen: Char) -> Char:
        """The pen DECSTR leaves: xterm's, not SGR 0's. Its DECSTR branch of
        ``ReallyReset`` (charproc.c) clears INVERSE, BOLD, BLINK, UNDERLINE,
        INVISIBLE, the italics and the colours, and not ATR_FAINT,
        ATR_STRIKEOUT or ATR_DBL_UNDER: text a program writes after its soft
        reset stays dim, struck through or doubly underlined in xterm (seen
        in xterm 379 by the oracle, ``tests/xterm_oracle.py``)."""
        blank = self.default_char
        if isinstance(pen, StyledChar):  # dim and the underline style
            dim, double = pen.dim, pen.underline_style == "double"
        else:
            dim = double = False
        if dim or double:
            return StyledChar(*blank._replace(strikethrough=pen.strikethrough, underscore=double),
                              dim=dim, underline_style="double" if double else "")
        return blank._replace(strikethrough=True) if pen.strikethrough else blank

    def set_modify_other_keys(self, level: int) -> None:
        """xterm's modifyOtherKeys (``CSI > 4 ; n m``): how keys are sent."""
        self.modify_other_keys = level

    def set_keypad(self, application: bool) -> None:
        """DECKPAM, DECKPNM (``ESC =``, ``ESC >``): the keypad's mode."""
        self.application_keypad = application

    def push_title(self) -> None:
        """XTWINOPS 22 (``CSI 22 t``): the title onto the stack, the oldest
        dropped past ``TITLE_STACK``."""
        self.title_stack = [*self.title_stack, self.title][-TITLE_STACK:]

    def pop_title(self) -> str | None:
        """XTWINOPS 23 (``CSI 23 t``): the title last pushed (None: none)."""
        return self.title_stack.pop() if self.title_stack else None

    def alignment_display(self) -> None:
        """DECALN (``ESC # 8``): the screen full of E in the default style,
        and, as in tmux and DEC STD 070, the margins and origin mode reset
        and the cursor home. The pen stays here; the dispatcher then turns
        its rendition off, as xterm does (``RENDITION_OFF``)."""
        self.margins = None
        self.lr_margins = None  # xterm's ``resetMargins``; DECLRMM stays
        self.mode.discard(mo.DECOM)
        line = dict.fromkeys(range(self.columns), self.default_char._replace(data="E"))
        for y in range(self.lines):
            row = self._new_line()
            dict.update(row, line)
            if type(row) is TextRow:
                row.text = "E" * self.columns
            self.buffer[y] = row
        self.cursor.x = self.cursor.y = 0
        self.dirty.update(range(self.lines))

    def bell(self, *args: Any) -> None:
        pass
