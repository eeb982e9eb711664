"""The state of a ``TermScreen`` beneath its concerns.

Why a module of its own: the concerns (``erase``, ``scroll``,
``draw``...) are mixin classes, and each one reads the same state:
the buffers, the history, the caches, the saved cursors. ``ScreenState``
creates all of it in one ``__init__``, so that each concern can be read (and
type-checked) knowing every attribute it may touch, and holds the two rules
several concerns share: what a new row and a blank cell are, and how a
pending wrap ends.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable
from typing import NamedTuple

import pyte
from pyte import modes as mo
from pyte.screens import Char, StaticDefaultDict

from ..terminals.emulation import Emulation
from ..terminals.profiles import XTERM, Profile
from .cells import (
    BLANK,
    HISTORY_ROWS,
    MAX_GLYPH_CACHES,
    REVERSE_BLANK,
    Glyphs,
    HistoryRow,
    TextRow,
)
from .segments import KeptSegments


class ScreenState(pyte.Screen):
    """pyte's ``Screen`` with the state termsim adds; the concerns build on it."""

    # -- what a program can change: declared here, set by ``reset_state`` --
    #: The buffer not in use (the main one while the alternate is shown).
    _other_buffer: defaultdict[int, StaticDefaultDict[int, Char]]
    #: The alternate screen is shown (``?47``/``?1047``/``?1049``).
    alternate: bool
    #: DECSCUSR's shape (``CSI Ps SP q``); 0: the terminal's default.
    cursor_shape: int
    #: DECKPAM/DECKPNM.
    application_keypad: bool
    #: The last graphic character drawn (REP repeats it).
    last_char: str
    #: Titles pushed by XTWINOPS (``CSI 22 t``).
    title_stack: list[str]
    #: The kitty keyboard protocol's flag stacks (``CSI > flags u``...),
    #: one for the main screen and one for the alternate screen, as kitty
    #: keeps them (keyboard-protocol.rst: "Terminals must maintain separate
    #: stacks for the main and alternate screens"; kitty screen.c
    #: ``screen_toggle_screen_buffer``): ``kitty_keyboard`` is the one of
    #: the screen in use.
    _kitty_stacks: tuple[list[int], list[int]]
    #: xterm's modifyOtherKeys level (``CSI > 4 ; n m``).
    modify_other_keys: int
    #: The left and right margins (DECSLRM), columns counted from 0, while
    #: DECLRMM (private mode 69) is set and they are narrower than the
    #: screen; ``None`` otherwise (the whole width): ``margins.py``.
    lr_margins: tuple[int, int] | None
    #: A wrap pending at the right margin: the cursor's (x, y) when the
    #: text reached it (xterm's ``do_wrap`` there; the pending wrap at the
    #: screen's edge is ``cursor.x == columns``). Pending while the cursor
    #: is still there; every move and ``_end_wrap`` drop it.
    _margin_wrap: tuple[int, int] | None
    #: Where BS or CUB left the cursor ((x, y)), while it is still there:
    #: a combining mark then joins the cell the cursor is on, as in xterm
    #: (``draw``'s ``_cell_before_cursor``).
    _backed: tuple[int, int] | None
    #: Palette entries the program set (OSC 4), 16 bits a component; the
    #: others are xterm's (``palette.py``).
    palette: dict[int, tuple[int, int, int]]
    #: DEC private modes saved by XTSAVE (``CSI ? Pm s``): set or not.
    saved_modes: dict[int, bool]
    #: Erase only unprotected cells: DECSED/DECSEL in progress.
    selective: bool
    #: DECSC state per buffer (primary, alternate), as xterm's ``sc[2]``.
    _saved: list[Saved | None]
    #: G1, G2 and G3 (``ESC ) F``, ``ESC * F``, ``ESC + F``), invoked into
    #: GL by SO, LS2, LS3 (``charset`` 1 to 3) or for one character by SS2,
    #: SS3 (``single_shift``). G1 too is ASCII until designated, as in xterm
    #: and tmux (pyte's is the Linux console's line drawing, so SO alone
    #: turned "q" into "─").
    g1_charset: str
    g2_charset: str
    g3_charset: str
    single_shift: int
    # What the screen keeps only to draw faster, each checked against what
    # it stands for before use: a row's blank text, the glyphs of a pen,
    # blank cells by colours, the last single character's attributes, and
    # long segments drawn before (``draw``'s kept segments fast path).
    _blank_text: str
    _glyphs: dict[Char, Glyphs]
    _blanks: dict[tuple[str, str], Char]
    _single: Char | None
    _segments: KeptSegments

    def __init__(self, columns: int, lines: int, *, profile: Profile = XTERM,
                 emulation: Emulation | None = None, cell_size: tuple[int, int] = (10, 20),
                 term_name: str = "xterm-256color",
                 on_inband_resize: Callable[[], None] | None = None) -> None:
        """What the screen is made with, which RIS keeps; everything a
        program can change is set by :meth:`reset_state` (from ``reset``,
        which pyte's ``__init__`` calls), and declared above, once."""
        emulation = emulation or profile.emulation
        #: The terminal this screen answers as (``profiles.py``).
        self.profile = profile
        #: Called when a program sets in-band resize reports (``CSI ? 2048
        #: h``), which the terminal answers with the size at that byte.
        self.on_inband_resize = on_inband_resize
        #: What pixel-size reports (``CSI 14 t``, ``CSI 16 t``) say a cell is:
        #: (width, height).
        self.cell_size = (int(cell_size[0]), int(cell_size[1]))
        #: The ``TERM`` the program was given: XTGETTCAP's ``TN``.
        self.term_name = term_name
        # Where terminals disagree (``Emulation``), as the screen asks it:
        #: BS and CUB from a pending wrap count from the column past the
        #: last (tmux, kitty), not from the last (xterm).
        self.backspace_past_edge = emulation.backspace_at_wrap == "tmux"
        #: Rewrap soft-wrapped lines when the width changes.
        self.reflow = emulation.reflow
        #: Draw grapheme clusters in one cell (mode 2027).
        self.graphemes = emulation.graphemes
        #: LF, VT, FF and IND end a pending wrap (xterm), or keep it (tmux).
        self.index_ends_wrap = emulation.linefeed_at_wrap == "xterm"
        #: IL and DL move the cursor to the left margin.
        self.lines_home = emulation.lines_home
        #: ``?1049`` saves and restores the cursor whatever the buffer.
        self.alternate_cursor = emulation.alternate_cursor
        #: DECCOLM clears and homes (else it is ignored).
        self.column_mode_clears = emulation.column_mode == "clear"
        #: Bytes that are not UTF-8 make one U+FFFD a sequence as xterm reads
        #: them (else one per maximal subpart).
        self.xterm_utf8 = emulation.invalid_utf8 == "xterm"
        #: Rows that scrolled off the top of the primary screen, newest last
        #: (``None``: a blank row), for transcripts. Kept as pyte rows (their
        #: text is built only when asked) and capped at ``HISTORY_ROWS``; RIS
        #: keeps them, as xterm keeps its saved lines.
        self.history: deque[HistoryRow] = deque(maxlen=HISTORY_ROWS)
        #: How many rows ever scrolled off (more than ``history`` keeps).
        self.scrolled = 0
        #: Whether some rows on screen have no cells yet (``feed_lines``).
        self.unbuilt = False
        #: Rows the whole screen moved up since ``Terminal`` last looked
        #: (``_shift_rows``): it moves its copies of the unchanged rows too,
        #: rather than copy every row again after a scroll.
        self.shifted = 0
        super().__init__(columns, lines)
        # pyte's factory builds each new row through typing's generic alias
        # (``StaticDefaultDict[int, Char](...)``), slow on every scroll.
        self.buffer = defaultdict(self._new_line)

    def reset_state(self) -> None:
        """Every field a program can change (declared above), as a fresh
        terminal has it: the one place that sets them (RIS runs it too)."""
        self._blank_text = ""
        self._glyphs = {}
        self._blanks = {}
        self._single = None
        self._segments = KeptSegments()
        self._other_buffer = defaultdict(self._new_line)
        self.alternate = False
        self.cursor_shape = 0
        self.application_keypad = False
        self.last_char = ""
        self.title_stack = []
        self._kitty_stacks = ([], [])
        self.modify_other_keys = 0
        self.lr_margins = None
        self._margin_wrap = None
        self._backed = None
        self.palette = {}  # xterm's ReallyReset: ResetAnsiColorRequest
        self.saved_modes = {}
        self.selective = False
        self._saved = [None, None]
        self.g1_charset = self.g2_charset = self.g3_charset = pyte.charsets.LAT1_MAP
        self.single_shift = 0

    def _shift_rows(self, k: int, new: int) -> None:
        """The whole screen scrolled: every row moved up ``k``, and the
        ``new`` bottom rows (``new >= k``) are new. ``dirty`` (the rows that
        changed since ``Terminal`` last looked) moves with its rows, and
        ``shifted`` says how far, so that ``Terminal`` moves its copies of
        the other rows instead of copying them again (hot: a scrolling
        screen, ``benchmarks/bench_wait_latency.py``). When every row is
        changed anyway, they all just are, as before."""
        dirty, lines = self.dirty, self.lines
        if new >= lines or len(dirty) >= lines:
            dirty.update(range(lines))
            return
        moved = [y - k for y in dirty if k <= y < lines]
        dirty.clear()
        dirty.update(moved)
        dirty.update(range(lines - new, lines))
        self.shifted += k

    def take_shifted(self) -> int:
        """How far the whole screen moved up since the last call (``shifted``),
        and from now on 0: ``Terminal`` moves its copies of the rows by it."""
        shifted, self.shifted = self.shifted, 0
        return shifted

    @property
    def kitty_keyboard(self) -> list[int]:
        """The kitty keyboard flag stack of the screen in use (main or
        alternate), the flags in force on top."""
        return self._kitty_stacks[self.alternate]

    @kitty_keyboard.setter
    def kitty_keyboard(self, stack: list[int]) -> None:
        # Assigning is a reset (RIS): both screens' stacks start again.
        self._kitty_stacks = (list(stack), [])

    @property
    def kitty_flags(self) -> int:
        """The kitty keyboard flags in force: the top of the stack, 0 when
        it is empty."""
        stack = self._kitty_stacks[self.alternate]
        return stack[-1] if stack else 0

    @property
    def default_char(self) -> Char:
        """A blank cell; reverse video under DECSCNM. pyte builds a new one
        at every call (each new row, each erase); these are shared."""
        return REVERSE_BLANK if mo.DECSCNM in self.mode else BLANK

    def _blank(self) -> Char | None:
        """The cell an erase leaves: the current colours, no other attribute
        (xterm's ``ClearCells``); also the half of a wide character that a
        character written over the other half leaves (xterm's ``WriteText``
        clears it with ``ClearInLine``). ``None`` for default colours: such
        cells are removed from the sparse buffer instead."""
        attrs = self.cursor.attrs
        fg, bg = attrs.fg, attrs.bg
        if fg == "default" and bg == "default":
            return None
        blank = self._blanks.get((fg, bg))
        if blank is None:
            if len(self._blanks) > MAX_GLYPH_CACHES:
                self._blanks.clear()
            blank = self._blanks[fg, bg] = self.default_char._replace(fg=fg, bg=bg)
        return blank

    def _new_line(self) -> StaticDefaultDict[int, Char]:
        blank = self._blank_text
        if len(blank) != self.columns:
            blank = self._blank_text = " " * self.columns
        return TextRow(self.default_char, blank)

    def _end_wrap(self) -> int:
        """End a pending wrap (xterm's ``ResetWrap``); return the column."""
        cursor = self.cursor
        self._margin_wrap = None
        if cursor.x >= self.columns:
            cursor.x = self.columns - 1
        return cursor.x


class Saved(NamedTuple):
    """What DECSC saves."""

    x: int
    y: int
    attrs: Char
    g0: str
    g1: str
    charset: int
    origin: bool
    g2: str
    g3: str
    #: The wrap was pending at the right margin (``_margin_wrap``).
    margin_wrap: bool = False
