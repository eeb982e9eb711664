"""The parser's handler: which escape sequence does what on the screen.

Why a module of its own: the rules that map tokens to screen operations
(which sequence is which call, which are queries, which are counted in
``Terminal.unknown`` as not understood) are read together, and apart from
the ``Terminal`` that owns the screen, the offsets and the query log. The
tokenizer (``tokenizer.py``) calls ``Dispatch``; a CSI sequence met before
is a ready call it makes itself (``sequences``, ``queries``), and runs of
sequences are fused: that machinery is in ``dispatch_memo.py``.

Why it is long: it is the table of what every sequence, control and string
does, one handler the tokenizer calls; the mode rules (``dispatch_modes.py``)
and the memo are already apart, and the rest is read as one table.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Protocol

import pyte

from ..answers.queries import (
    KINDS,
    Request,
    printable,
)
from ..parsing.tokenizer import Parser
from ..screen.margins import DECLRMM
from ..screen.screen import MOUSE_ENCODING, MOUSE_TRACKING, FlagSwitch, TermScreen
from ..screen.sgr import Sgr, SgrAction, linked, true_colour
from ..screen.sgr import ints as _ints
from ..signals.log import SignalLog
from ..signals.signals import MARK_KINDS, OutputReader
from .dispatch_memo import RunMemo, keep
from .dispatch_modes import FLAG_PRIVATE_MODES, FrameEdge, ModeRules, frame_switch

_DCS_HEAD = re.compile(r"[0-?]*([ -/]*[@-~])")

# OSC codes that are understood and have nothing to do with the screen or
# with what a test may ask (``signals.py`` has those: 7, 9, 52, 99, 133,
# 633, 777, 1337).
_IGNORED_OSC = frozenset({"22", "50", "110", "111", "112", "697"})

#: OSC codes ``signals.SignalLog.osc`` reads.
_SIGNAL_OSC = frozenset({"7", "9", "52", "99", "777", "1337"})

#: Which query a CSI sequence is, where its private marker and final byte
#: tell; the others are sorted by ``_csi_query``.
_CSI_QUERIES = {
    ">c": "da2", ">q": "xtversion", "=c": "da3", "?u": "kitty-keyboard", "?m": "xtqmodkeys",
}

#: XTWINOPS reports (``CSI Ps t``) by ``Ps``: every ``"xtwinops Ps"`` kind.
_XTWINOPS = {int(kind[9:]): kind for kind in KINDS if kind.startswith("xtwinops ")}

_OSC_COLOURS = {"10": "osc-fg", "11": "osc-bg", "12": "osc-cursor"}

#: The longest OSC 8 URI and ``id=`` a cell keeps: a longer URI is no link,
#: a longer id none (VTE's ``VTE_HYPERLINK_URI_LENGTH_MAX`` and
#: ``VTE_HYPERLINK_ID_LENGTH_MAX``, ``src/vtedefines.hh``). Every cell
#: drawn holds its link, and the kept history holds a thousand rows of
#: cells: at 64K a link, those could hold gigabytes.
MAX_LINK = 2083
MAX_LINK_ID = 250

#: What ``Terminal.unknown`` counts a C0 control without an action as (made
#: once: random bytes hold one every few characters).
_C0_NAMES = {chr(code): f"C0 control 0x{code:02x}" for code in range(0x20)}

#: C0 controls that do nothing and are not counted: CAN and SUB outside a
#: sequence (nothing to cancel), ENQ (no answerback, like xterm's default).
_C0_IGNORED = "\x18\x1a\x05"

#: Final bytes of ``CSI <private> ... <final>`` that are not counted as not
#: understood (modifyOtherKeys, kitty keyboard pushes and pops: nothing to
#: draw); any other private marker: only ``u``.
_SILENT_PRIVATE_FINALS = {"?": "", ">": "mnut"}


#: What DECALN does to the pen besides filling the screen: every rendition
#: off, the colours kept (xterm's CASE_DECALN calls ``resetRendition``;
#: Ghostty agrees): normal intensity, not italic, not underlined, not
#: blinking, not reversed, visible, not crossed out.
RENDITION_OFF = "22;23;24;25;27;28;29"


class Owner(Protocol):
    """What the dispatcher needs of the terminal that owns it (``Terminal``):
    a protocol, so that this module does not import ``terminal.py`` back."""

    unknown: Counter[str]
    bytes_fed: int
    on_frame_edge: Callable[[bool], None] | None
    _screen: TermScreen
    _parser: Parser

    @property
    def rows(self) -> int: ...
    def _ask(self, request: Request, index: int) -> None: ...
    def _answer(self, request: Request, text: str, index: int) -> None: ...
    def _offset_of(self, index: int) -> int: ...
    def _frame_edge(self, opens: bool) -> None: ...
    def _place(self) -> tuple[int, int]: ...
    @property
    def _output_between(self) -> OutputReader: ...


class Dispatch(RunMemo, ModeRules):
    """Tokens to screen operations and query answers (the parser's handler)."""

    term: Owner

    def __init__(self, term: Owner, signals: SignalLog) -> None:
        self.term = term
        #: Where bells, titles, graphics and marks are told (the terminal's log).
        self.signals = signals
        s = term._screen
        self.s = s
        self.sgr = Sgr(s, term.unknown)
        #: The screen draws text itself: no call in between (hot path).
        self.draw: Callable[[str], None] = s.draw
        self.controls: dict[str, Callable[[], None]] = {
            "\x07": self._bell, "\x08": s.backspace, "\x09": s.tab, "\x0a": s.linefeed,
            "\x0b": s.linefeed, "\x0c": s.linefeed, "\x0d": s.carriage_return,
            "\x0e": s.shift_out, "\x0f": s.shift_in,
        }
        # Every other C0 control but ESC and NUL (which the parser ignores)
        # has a ready action too, what ``control()`` does with it: counted as
        # not understood, or nothing (ENQ; CAN and SUB outside a sequence).
        # The parser then calls it at once (random bytes hold one every few
        # characters).
        for char, name in _C0_NAMES.items():
            if char not in self.controls and char not in "\x00\x1b":
                self.controls[char] = (_nothing if char in _C0_IGNORED
                                       else partial(self._count, name))
        #: ``ESC final`` sequences that are one screen operation.
        self._escapes: dict[str, Callable[[], None]] = {
            "7": s.save_cursor, "8": s.restore_cursor, "D": s.index, "E": s.next_line,
            "M": s.reverse_index, "H": s.set_tab_stop, "c": self._reset,
        }
        #: A run of BEL is one call, whatever its length (``SignalLog.bell``).
        self.repeated: dict[str, Callable[[int], None]] = {"\x07": self._bells}
        #: Whole CSI sequences seen before, and the call each one makes: the
        #: parser calls it instead of ``csi()`` (see ``_csi_action``), which
        #: saves splitting the same bytes into fields again (a frame's
        #: sequences are mostly those of the last one). Every test of this
        #: module feeds sequences twice or more, on both ways.
        self.sequences: dict[str, Callable[[], None]] = {}
        #: CSI queries met before, by their text (as 7-bit): the call that
        #: logs and answers one at an index (``Terminal._answer``), kept by
        #: ``keep_query`` (prompt_toolkit asks for the cursor every frame);
        #: held equal to ``csi()`` by ``tests/test_fast_paths.py``.
        self.queries: dict[str, Callable[[int], None]] = {}
        # CR LF ``n`` times (``newlines``) -> its action.
        self._newlines: dict[int, Callable[[], None]] = {}
        # Two flag switches -> the one doing both (``_then``).
        self._switches: dict[tuple[object, object], FlagSwitch | FrameEdge] = {}
        #: Kept actions -> what ``fuse`` needs to know of them.
        self._kinds: dict[Callable[[], None] | None, int] = {}

        # For each final byte of a plain CSI sequence, how its parameters
        # make the call to the screen.
        def one(method: Callable[..., None]) -> Callable[[list[int]], Callable[[], None]]:
            return lambda a: partial(method, a[0] if a else None)

        def how(method: Callable[..., None]) -> Callable[[list[int]], Callable[[], None]]:
            return lambda a: partial(method, a[0] if a else 0)

        def whole(method: Callable[[list[int]], None]) -> Callable[[list[int]], Callable[[], None]]:
            return lambda a: partial(method, a)

        def bare(method: Callable[[], None]) -> Callable[[list[int]], Callable[[], None]]:
            return lambda a: method

        self.plain: dict[str, Callable[[list[int]], Callable[[], None]]] = {
            "@": one(s.insert_characters), "A": one(s.cursor_up), "B": one(s.cursor_down),
            "C": one(s.cursor_forward), "D": one(s.cursor_back), "E": one(s.cursor_down1),
            "F": one(s.cursor_up1), "G": one(s.cursor_to_column),
            "`": one(s.cursor_to_column), "a": one(s.column_relative),
            "d": one(s.cursor_to_line), "e": one(s.line_relative),
            "H": self._cup, "f": self._cup, "J": how(s.erase_in_display),
            "K": how(s.erase_in_line), "L": one(s.insert_lines), "M": one(s.delete_lines),
            "P": one(s.delete_characters), "X": one(s.erase_characters),
            "g": how(s.clear_tab_stop), "h": whole(self._set_ansi_modes),
            "l": whole(self._reset_ansi_modes), "r": self._margins,
            "S": whole(self._scroll_up), "T": whole(self._scroll_down),
            "b": one(self._repeat), "Z": one(s.tab_backward), "I": one(s.tab_forward),
            # HPB and VPB: ECMA-48's backward moves, done as CUB and CUU, as
            # Ghostty does; xterm ignores both (VTPrsTbl.c: CASE_GROUND_STATE),
            # a difference tests/xterm_oracle.py lists.
            "j": one(s.cursor_back), "k": one(s.cursor_up),
            "s": self._ansi_sc, "u": bare(s.restore_cursor),
        }

    def control(self, char: str) -> None:
        handler = self.controls.get(char)
        if handler is not None:
            handler()
        elif char not in _C0_IGNORED:
            self.term.unknown[_C0_NAMES.get(char) or f"C0 control 0x{ord(char):02x}"] += 1

    def _count(self, name: str) -> None:
        """One more of ``name`` not understood (a ready action's count)."""
        self.term.unknown[name] += 1

    def csi(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        if final == "m" and not (private or inter) and true_colour(params):
            # Seldom seen twice: neither kept as a sequence nor memoised.
            self.sgr.apply_true_colour(params)
            return
        ask = self.queries.get(f"\x1b[{private}{params}{inter}{final}")
        if ask is not None:
            # A query met before, that the parser did not find in
            # ``queries`` itself: 8-bit, or with controls inside.
            ask(index)
            return
        action = self.prepare(private, params, inter, final)
        if action is None:
            self._csi_other(private, params, inter, final, index)
        else:
            action()

    def newlines(self, count: int) -> Callable[[], None]:
        action = self._newlines.get(count)
        if action is None:
            # Once is NEL's CR and index: the commonest, without a partial.
            made: Callable[[], None] = (self.s.next_line if count == 1
                                        else partial(self.s.newlines, count))
            action = keep(self._newlines, count, made)
        return action

    def prepare(
        self, private: str, params: str, inter: str, final: str,
    ) -> Callable[[], None] | None:
        if final == "m" and not (private or inter) and true_colour(params):
            return None
        action = self._csi_action(private, params, inter, final)
        if action is not None:
            keep(self.sequences, f"\x1b[{private}{params}{inter}{final}", action)
        return action

    def prepare_esc(self, final: str) -> Callable[[], None] | None:
        """The ready action of ``ESC final`` (a final of
        ``escapes.RUN_ESCAPES``), kept in ``sequences``: a run of them
        (cursor saves and restores, index and reverse index) is then a run
        of calls, as one of CSI sequences is. Each does what ``esc()`` does."""
        if final == "=" or final == ">":
            action: Callable[[], None] = partial(self.s.set_keypad, final == "=")
        elif final != "c" and final in self._escapes:
            action = self._escapes[final]
        else:
            return None
        return keep(self.sequences, "\x1b" + final, action)

    def _csi_action(
        self, private: str, params: str, inter: str, final: str,
    ) -> Callable[[], None] | None:
        """The call a CSI sequence makes when it depends on nothing but the
        sequence itself, ready to be repeated each time the same bytes come
        again; ``None`` for queries (their log holds where they stand) and
        for sequences counted in ``Terminal.unknown``.

        Hot path (``benchmarks/bench_feed.py``, the prompt_toolkit stream):
        the parser looks a sequence up in ``sequences`` first, and a repeated
        ``ESC[?25l`` costs a dictionary lookup and this call.
        """
        s = self.s
        if inter:
            if inter == " " and final == "q" and not private:
                a = _ints(params)
                return partial(s.set_cursor_shape, a[0] if a else 0)
            if inter == "!" and final == "p":
                return s.soft_reset
            if inter == '"' and final == "q" and not private:
                return partial(s.set_protection, (_ints(params) or [0])[0])
            return None
        if not private:
            if final == "m":
                return SgrAction(self.sgr, params)
            build = self.plain.get(final)
            return build(_ints(params)) if build is not None else None
        if private == "?":
            if final in ("h", "l"):
                opens, closes = frame_switch(private, params, final)
                if opens or closes:
                    return FrameEdge(self.term, self._mode_action(params, final), opens, closes)
                return self._mode_action(params, final)
            if final in ("J", "K"):
                how = (_ints(params) or [0])[0]
                return partial(s.selective_erase, final == "J", how)
            if final == "W" and _ints(params) == [5]:
                return s.default_tab_stops  # DECST8C
            if final in ("s", "r"):  # XTSAVE, XTRESTORE
                saved = tuple(self._kept_modes(_ints(params), "?"))
                return partial(s.save_modes if final == "s" else s.restore_modes, saved)
        if final == "u" and private in "><=":  # the kitty keyboard protocol's flags
            a = _ints(params)
            return partial(s.key_encoding_flags, private, a[0] if a else 0,
                           a[1] if len(a) > 1 else 1)
        if private == ">" and final == "m" and params.split(";")[0] == "4":
            a = _ints(params)
            return partial(s.set_modify_other_keys, a[1] if len(a) > 1 else 0)
        return None

    def _mode_action(self, params: str, final: str) -> Callable[[], None]:
        """What DECSET or DECRST (``CSI ? Pm h``/``l``) does, ready to repeat."""
        s = self.s
        modes = _ints(params)
        on = final == "h"
        if FLAG_PRIVATE_MODES.issuperset(modes):
            shifted = frozenset(m << 5 for m in modes)
            if shifted.isdisjoint(MOUSE_TRACKING | MOUSE_ENCODING):
                none: frozenset[int] = frozenset()
                return FlagSwitch(s, shifted, none) if on else FlagSwitch(s, none, shifted)
            return partial(s.switch_flags, shifted, on)
        return partial(self._private_modes, modes, on)

    def _csi_other(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        """Queries, the title stack, and sequences counted as not understood."""
        a = _ints(params)
        kind = _csi_query(private, a, inter, final)
        if kind is not None:
            text = f"\x1b[{private}{params}{inter}{final}"
            request = Request(kind, text, tuple(a), private)
            ask: Callable[[int], None] = partial(self.term._answer, request, printable(text))
            self.keep_query(text, ask)
            ask(index)
        elif inter:
            if (private, inter, final) != ("", '"', "p"):  # DECSCL: nothing to do
                # DECIC/DECDC (column editing) included.
                self.term.unknown[f"CSI {private}{inter}{final}"] += 1
        elif private:
            if final not in _SILENT_PRIVATE_FINALS.get(private, "u"):
                self.term.unknown[f"CSI {private}{final}"] += 1
        elif final == "t":
            self._window_ops(a)
        else:  # DA1 with parameters included
            self.term.unknown[f"CSI {final}"] += 1

    def esc(self, inter: str, final: str, index: int) -> None:
        s = self.s
        if not inter:
            action = self._escapes.get(final)
            if action is not None:
                action()
            elif final in "=>":
                s.set_keypad(final == "=")
            elif final == "Z":
                self.term._ask(Request("da1", "\x1bZ"), index)
            elif final in "no":  # LS2, LS3: G2 or G3 into GL until changed
                s.lock_shift(2 if final == "n" else 3)
            elif final in "NO":  # SS2, SS3: G2 or G3 for the next character
                s.single_shift_next(2 if final == "N" else 3)
            elif final != "\\":  # a stray ST is harmless
                self.term.unknown[f"ESC {final}"] += 1
        elif inter in ("(", ")", "*", "+") and (final in pyte.charsets.MAPS or final == "A"):
            s.define_charset(final, inter)
        elif inter == "#" and final == "8":
            s.alignment_display()
            self.sgr.apply(RENDITION_OFF)
        elif inter not in ("%", " "):
            # Unknown character sets, DEC double-size lines (ESC # 3..6),
            # counted so a wait's error shows them. ESC % (UTF-8 selection)
            # and ESC SP (C1 transmission, conformance level) change nothing
            # termsim shows.
            self.term.unknown[f"ESC {inter}{final}"] += 1

    def string(self, kind: str, body: str, terminator: str, index: int) -> None:
        if kind == "OSC":
            self._osc(body, terminator or "\x1b\\", index)
        elif kind == "DCS":
            if body.startswith(("$q", "+q")):
                kind = "decrqss" if body[0] == "$" else "xtgettcap"
                self.term._ask(Request(kind, f"\x1bP{body}", body=body), index)
            else:
                m = _DCS_HEAD.match(body)
                final = m.group(1) if m else body[:1]
                if final == "q":
                    self.signals.sixel(self.term._offset_of(index), body)
                else:  # DECUDK, tmux passthrough...: swallowed whole, counted
                    self.term.unknown[f"DCS {final}"] += 1
        elif kind == "APC" and body.startswith("G"):
            self.signals.kitty_graphics(self.term._offset_of(index), body)
        else:  # SOS, PM, other APC: swallowed whole, counted
            self.term.unknown[kind] += 1

    def garbage(self, kind: str) -> None:
        self.term.unknown[kind] += 1

    def failed(self, exc: Exception) -> None:
        # The token is skipped; its effect may be partial, so redraw all rows.
        self.term.unknown[f"error in {type(exc).__name__}"] += 1
        self.s.dirty.update(range(self.term.rows))

    def _cup(self, a: list[int]) -> Callable[[], None]:
        return partial(self.s.cursor_position, a[0] if a else None, a[1] if len(a) > 1 else None)

    def _margins(self, a: list[int]) -> Callable[[], None]:
        return partial(
            self.s.set_margins, a[0] if a else None, a[1] if len(a) > 1 and a[1] else None,
        )

    def _ansi_sc(self, a: list[int]) -> Callable[[], None]:
        return partial(self._save_or_margins, a)

    def _save_or_margins(self, a: list[int]) -> None:
        """``CSI s``: DECSLRM while DECLRMM is set, else SCOSC, and that
        only without parameters (xterm's ``CASE_ANSI_SC``). Decided when the
        sequence comes, not when it is first met: the mode may change."""
        s = self.s
        if DECLRMM in s.mode:
            s.set_lr_margins(a[0] if a else None, a[1] if len(a) > 1 else None)
        elif not a:
            s.save_cursor()

    def _scroll_up(self, a: list[int]) -> None:
        """SU: by the first parameter, whatever follows (xterm's CASE_SU;
        ``CSI ? ... S`` is another sequence)."""
        self.s.scroll_up(a[0] if a else None)

    def _scroll_down(self, a: list[int]) -> None:
        """SD, but ``CSI 0 T`` and ``CSI Ps;Ps;Ps;Ps;Ps T`` are xterm's mouse
        highlight tracking (charproc.c CASE_TRACK_MOUSE: ``nparam > 1 ||
        GetParam(0) == 0``), which scrolls nothing (Ghostty agrees):
        counted as not understood."""
        if len(a) <= 1 and a != [0]:
            self.s.scroll_down(a[0] if a else None)
        else:
            self.term.unknown["CSI T"] += 1

    def _repeat(self, count: int | None) -> None:
        """REP repeats the character printed just before it, and nothing
        when anything else (a control, a sequence, another REP) came in
        between: xterm forgets its ``lastchar`` then."""
        if self.term._parser.printed:
            self.s.repeat_last(count)

    def _window_ops(self, a: list[int]) -> None:
        """XTWINOPS (``CSI Ps t``) that are not queries: the title stack."""
        op = a[0] if a else 0
        s = self.s
        if op == 22:
            s.push_title()
        elif op == 23:
            title = s.pop_title()
            if title is not None:
                self._title(title, self.term.bytes_fed)
        else:  # window manipulation: a terminal in a test does not move
            self.term.unknown[f"CSI {op}t"] += 1

    def _bell(self) -> None:
        # A control is called with no index: the parser has already set
        # ``next`` past the token it runs, a BEL of one character.
        self.signals.bell(self.term._offset_of(self.term._parser.next - 1))

    def _bells(self, count: int) -> None:
        # The parser has set ``next`` past the run.
        term = self.term
        self.signals.bell(term._offset_of(term._parser.next - count), count)

    def _title(self, text: str, at: int) -> None:
        if text != self.s.title:
            self.s.set_title(text)
            self.signals.title(at, self.s.title, icon=False)

    def _osc(self, body: str, terminator: str, index: int) -> None:
        s = self.s
        code, _, text = body.partition(";")
        signals = self.signals
        if code in ("0", "1", "2"):
            at = self.term._offset_of(index)
            if code != "1":
                self._title(text, at)
            if code != "2":
                s.set_icon_name(text)
                signals.title(at, s.icon_name, icon=True)
        elif code == "8":
            params, _, uri = text.partition(";")
            ident = next((p[3:] for p in params.split(":") if p.startswith("id=")), "")
            if len(uri) > MAX_LINK:
                uri = ""
            link = f"{ident}\x1f{uri}" if ident and uri and len(ident) <= MAX_LINK_ID else uri
            s.cursor.attrs = linked(s.cursor.attrs, link)
        elif code in ("133", "633"):
            letter, _, rest = text.partition(";")
            if letter in MARK_KINDS:
                term = self.term
                line, col = term._place()
                signals.mark(term._offset_of(index), letter, rest, line, col,
                             term._output_between)
            elif code == "633" and letter == "P" and rest.startswith("Cwd="):
                signals.osc(self.term._offset_of(index), "7", rest[4:])
        elif code in _SIGNAL_OSC:
            # (A form that is no signal, ConEmu's OSC 9;n;..., changes nothing.)
            signals.osc(self.term._offset_of(index), code, text)
        elif code in _OSC_COLOURS:
            if text == "?":  # otherwise setting a colour: nothing on the screen changes
                self._ask_string(_OSC_COLOURS[code], body, terminator, index)
        elif code == "4":
            # Set what is set, then answer what is asked (``screen.palette``).
            if s.set_palette(text):
                self._ask_string("osc-palette", body, terminator, index)
        elif code == "104":
            s.reset_palette(text)
        elif code not in _IGNORED_OSC:
            self.term.unknown[f"OSC {code[:8]}"] += 1

    def _ask_string(self, kind: str, body: str, terminator: str, index: int) -> None:
        text = f"\x1b]{body}{terminator}"
        self.term._ask(Request(kind, text, body=body, terminator=terminator), index)

    def _reset(self) -> None:
        self.s.reset()
        self.term._parser.reset()


def _nothing() -> None:
    """The ready action of a control that does nothing."""


def _csi_query(private: str, a: list[int], inter: str, final: str) -> str | None:
    """The kind of query ``CSI <private> <a> <inter> <final>`` is, if it is one."""
    if inter:
        return "decrqm" if (inter, final) == ("$", "p") else None
    if private:
        if (private, final) == ("?", "n"):
            return "decxcpr" if a == [6] else "decdsr-other"
        return _CSI_QUERIES.get(private + final)
    if final == "n":
        return "cpr" if a == [6] else "dsr" if a == [5] else "dsr-other"
    if final == "c":
        return "da1" if a in ([], [0]) else None
    if final == "t":
        op = a[0] if a else 0
        return "window-size" if op == 18 else _XTWINOPS.get(op)
    return None
