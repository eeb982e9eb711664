"""The sans-IO terminal: bytes from a program in, replies and screens out.

Theory of operation
-------------------

``Terminal.feed(data)`` decodes UTF-8 incrementally (``surrogateescape``, so
every byte keeps its offset and an undecodable byte is drawn as U+FFFD), hands
the text to the tokenizer (``_parser.py``), and the tokenizer calls the
``_Dispatch`` methods below, which drive a corrected pyte screen
(``_screen.py``). A query (``ESC[6n`` and friends) is answered the moment the
tokenizer reaches it, from the state the bytes *before* it produced: that is
what a real terminal does, and what prompt_toolkit relies on. The replies of
one ``feed()`` are returned in order; the caller writes them to the program.

Every query and its fate is logged in ``Terminal.queries``; how each kind is
answered is a policy (``"answer"``, ``"ignore"`` or ``"defer"``), which is how a
session reproduces a terminal that never answers CPR. Sequences termsim does
not understand are counted in ``Terminal.unknown``, never silently dropped,
and no byte sequence raises out of ``feed()`` or loses the bytes after it.

This module imports nothing that does I/O: no os, no clock, no event loop.

Why this module is long: it holds the whole dispatch from tokens to screen
operations and the table of queries and answers, which are rules to read
together; the tokenizer (``_parser.py``) and the screen (``_screen.py``)
are apart.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

import pyte
from pyte import graphics as g
from pyte import modes as mo
from pyte.screens import Char

from ._parser import Parser
from ._screen import TermScreen
from ._snapshot import Cursor, Modes, Snapshot, row_text

Policy = Literal["answer", "ignore", "defer"]

#: The queries termsim answers, and what each reply says.
QUERY_KINDS: Mapping[str, str] = {
    "cpr": "cursor position report, ESC[6n -> ESC[row;colR",
    "decxcpr": "extended cursor position, ESC[?6n -> ESC[?row;col;1R",
    "dsr": "device status, ESC[5n -> ESC[0n (ready)",
    "da1": "primary device attributes, ESC[c -> ESC[?62;22c (VT220, ANSI colour)",
    "da2": "secondary device attributes, ESC[>c -> ESC[>0;276;0c",
    "window-size": "text area size, ESC[18t -> ESC[8;rows;colst",
    "osc-fg": "foreground colour, OSC 10;? -> OSC 10;rgb:ffff/ffff/ffff",
    "osc-bg": "background colour, OSC 11;? -> OSC 11;rgb:0000/0000/0000",
    "osc-cursor": "cursor colour, OSC 12;? -> OSC 12;rgb:ffff/ffff/ffff",
    "decrqm": "mode report, ESC[?Ps$p -> ESC[?Ps;Pm$y",
}

FOREGROUND = "rgb:ffff/ffff/ffff"
BACKGROUND = "rgb:0000/0000/0000"
_KNOWN_PRIVATE_MODES = frozenset(
    {1, 3, 4, 5, 6, 7, 9, 12, 25, 47, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 1047,
     1048, 1049, 2004}
)
#: Private modes that change nothing termsim shows or tracks (input-side
#: options, smooth scrolling, autorepeat, bell handling): set or reset
#: without a count in ``Terminal.unknown``. Any other mode is counted.
_INERT_PRIVATE_MODES = frozenset({8, 1007, 1034, 1035, 1036, 1037, 1039, 1042, 1043})
_UNDERSTOOD_PRIVATE_MODES = _KNOWN_PRIVATE_MODES | _INERT_PRIVATE_MODES
#: Private modes that are only a flag in the screen's ``mode`` (DECTCEM also
#: shows or hides the cursor): no buffer switch, no homing, no resize.
_FLAG_PRIVATE_MODES = _UNDERSTOOD_PRIVATE_MODES - {3, 5, 6, 47, 1047, 1048, 1049}
#: ANSI modes pyte implements: IRM (4) and LNM (20).
_KNOWN_ANSI_MODES = frozenset({4, 20})
_MOUSE_MODES = ((1003, "any"), (1002, "button"), (1000, "normal"), (9, "x10"))
_MOUSE_ENCODINGS = ((1006, "sgr"), (1015, "urxvt"), (1005, "utf8"))
_MAX_PARAM = 65535
#: How many CSI sequences keep a ready action (``_Dispatch.sequences``).
_MAX_SEQUENCES = 4096
#: Entries in each of the two SGR memos (``_Dispatch._sgr``).
_MAX_SGR_MEMO = 4096
_DCS_HEAD = re.compile(r"[0-?]*([ -/]*[@-~])")
# OSC codes that are understood and have nothing to do with the screen.
_IGNORED_OSC = frozenset(
    {"4", "7", "8", "9", "22", "50", "52", "104", "110", "111", "112", "133", "633",
     "697", "777", "1337"}
)


@dataclass
class Query:
    """A query the program sent, and what became of it."""

    kind: str
    #: The request as printable text, e.g. ``"ESC[6n"``.
    request: str
    #: Byte offset of the request's first byte in the program's output.
    offset: int
    #: The reply computed at that offset (``None`` when termsim has none).
    reply: bytes | None
    #: ``"answered"``, ``"ignored"`` (policy), ``"deferred"`` (reply not sent
    #: yet), or ``"unsupported"`` (termsim has no answer for this kind).
    status: str = "answered"
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def unanswered(self) -> bool:
        return self.status != "answered"

    def describe(self) -> str:
        what = QUERY_KINDS.get(self.kind, self.kind)
        return f"{self.request} ({what.split(',')[0]}) at output byte {self.offset}: {self.status}"


def printable(seq: str) -> str:
    """``"\\x1b[6n"`` -> ``"ESC[6n"``: escape sequences as people write them."""
    out = []
    for ch in seq:
        if ch == "\x1b":
            out.append("ESC")
        elif ch == "\x07":
            out.append("BEL")
        elif ch < " " or "\x7f" <= ch <= "\x9f":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


#: Parameters that ``int`` reads as they are: no empty one, no colon, none
#: above ``_MAX_PARAM``.
_PLAIN_PARAMS = re.compile(r"[0-9]{1,4}(?:;[0-9]{1,4})*")


def _ints(params: str) -> list[int]:
    """CSI parameters as integers; empty ones are 0, sub-parameters dropped."""
    if not params:
        return []
    if _PLAIN_PARAMS.fullmatch(params):
        return list(map(int, params.split(";")))
    out = []
    for p in params.split(";"):
        if ":" in p:
            p = p.split(":", 1)[0]
        out.append(min(int(p), _MAX_PARAM) if p.isdigit() else 0)
    return out


def _sgr_params(params: str) -> tuple[int, ...]:
    """SGR parameters, with colon sub-parameters (``38:2::r:g:b``) translated."""
    if ":" not in params:
        if _PLAIN_PARAMS.fullmatch(params):
            return tuple(map(int, params.split(";")))
        return tuple(_ints(params))
    out: list[int] = []
    for p in params.split(";"):
        if ":" not in p:
            out.append(min(int(p), _MAX_PARAM) if p.isdigit() else 0)
            continue
        sub = [min(int(s), _MAX_PARAM) if s.isdigit() else 0 for s in p.split(":")]
        head = sub[0]
        if head in (38, 48) and len(sub) > 1:
            if sub[1] == 5 and len(sub) >= 3:
                out += [head, 5, sub[2]]
            elif sub[1] == 2:
                rgb = sub[-3:] if len(sub) >= 5 else [*sub[2:], 0, 0, 0][:3]
                out += [head, 2, *rgb]
        elif head == 58:
            pass  # underline colour (58:2::r:g:b): not kept, and its numbers are no SGR
        elif head == 4:
            out.append(24 if len(sub) > 1 and sub[1] == 0 else 4)
        else:
            out.append(head)
    return tuple(out)


#: What one SGR code sets, as pyte's ``select_graphic_rendition`` does it:
#: code -> (field of ``Char``, value). 0, 38 and 48 are apart; pyte drops
#: every other code (dim, conceal, overline...), and termsim counts them.
_SGR_FIELDS: dict[int, tuple[str, object]] = {
    **{code: ("fg", colour) for code, colour in g.FG_ANSI.items()},
    **{code: ("bg", colour) for code, colour in g.BG_ANSI.items()},
    **{code: ("fg", colour) for code, colour in g.FG_AIXTERM.items()},
    **{code: ("bg", colour) for code, colour in g.BG_AIXTERM.items()},
    **{code: (name[1:], name[0] == "+") for code, name in g.TEXT.items()},
}


#: What SGR 0 sets: pyte's ``Screen.default_char``, without and with DECSCNM.
_SGR_RESET = {
    reverse: dict(Char(" ", "default", "default", reverse=reverse)._asdict())
    for reverse in (False, True)
}


def _sgr_changes(
    values: tuple[int, ...], reverse: bool,
) -> tuple[dict[str, object], tuple[int, ...]]:
    """The fields of ``Char`` that SGR ``values`` set, and their values:
    exactly what pyte's ``select_graphic_rendition`` does (``reverse``: is
    DECSCNM set), as a dict that can be memoised and applied to any
    attributes; and the codes pyte drops (dim, conceal, overline...)."""
    if not values or values == (0,):
        return dict(_SGR_RESET[reverse]), ()
    changes: dict[str, object] = {}
    ignored: list[int] = []
    i, n = 0, len(values)
    while i < n:
        code = values[i]
        i += 1
        field = _SGR_FIELDS.get(code)
        if field is not None:
            changes[field[0]] = field[1]
        elif code == 0:
            changes.update(_SGR_RESET[reverse])
        elif code not in (38, 48):
            ignored.append(code)
        elif i < n:
            key = "fg" if code == 38 else "bg"
            mode = values[i]
            i += 1
            if mode == 5 and i < n:
                if values[i] < len(g.FG_BG_256):  # pyte skips other indexes
                    changes[key] = g.FG_BG_256[values[i]]
                i += 1
            elif mode == 2 and i + 3 <= n:
                changes[key] = "{:02x}{:02x}{:02x}".format(*values[i:i + 3])
                i += 3
            elif mode in (2, 5):
                break  # pyte runs out of parameters and stops there
    return changes, tuple(ignored)


def _true_colour(params: str) -> bool:
    """Whether SGR parameters set a 24-bit colour. Such sequences seldom come
    twice (gradients, images: 85% of them on the colour benchmark are
    unique), so they are not memoised: that would cost more than it saves."""
    return "8;2;" in params or "8:2:" in params


def _replaced(attrs: Char, changes: Mapping[str, object]) -> Char:
    """``attrs._replace(**changes)`` in one pass of C code (every new colour)."""
    return tuple.__new__(Char, map(changes.get, Char._fields, attrs))


class _SgrAction:
    """The action ``_Dispatch.sequences`` keeps for one SGR sequence.

    It remembers the attributes it last turned into others, so that the same
    sequence in the same context (``ESC[32m`` after ``ESC[0m``, as in a
    test runner's dots) costs an identity check: no key to build or hash.
    Hot path: ``benchmarks/bench_feed.py``, the colour stream.
    """

    __slots__ = ("_after", "_before", "_dispatch", "_params")

    def __init__(self, dispatch: _Dispatch, params: str) -> None:
        self._dispatch = dispatch
        self._params = params
        self._before: Char | None = None
        self._after: Char | None = None

    def __call__(self) -> None:
        s = self._dispatch.s
        cursor = s.cursor
        before = cursor.attrs
        if before is self._before and mo.DECSCNM not in s.mode:
            cursor.attrs = self._after  # type: ignore[assignment]
            return
        if self._dispatch._sgr(self._params) and mo.DECSCNM not in s.mode:
            self._before, self._after = before, cursor.attrs
        else:
            self._before = None


class Terminal:
    """A virtual terminal: feed it a program's output, get replies and screens.

    ``policy`` maps a query kind (see :data:`QUERY_KINDS`) to ``"answer"``
    (default), ``"ignore"`` (never answered, like a terminal without the
    feature) or ``"defer"`` (computed now, handed out by
    :meth:`take_deferred` for the caller to send later).
    """

    def __init__(
        self, cols: int = 80, rows: int = 24, *, policy: Mapping[str, Policy] | None = None,
    ) -> None:
        if cols < 1 or rows < 1:
            raise ValueError(f"a terminal needs at least 1x1 cells, not {cols}x{rows}")
        self._screen = TermScreen(cols, rows)
        self._dispatch = _Dispatch(self)
        self._parser = Parser(self._dispatch)
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.policy: dict[str, Policy] = dict(policy or {})
        for kind in self.policy:
            if kind not in QUERY_KINDS:
                raise ValueError(f"unknown query kind {kind!r}; known: {', '.join(QUERY_KINDS)}")
        #: Increases whenever the screen (text, cursor, modes, title) changes.
        self.generation = 0
        #: Total bytes fed so far.
        self.bytes_fed = 0
        #: The most recent queries (up to 1000), oldest first.
        self.queries: deque[Query] = deque(maxlen=1000)
        #: Sequences termsim did not understand, counted by kind.
        self.unknown: Counter[str] = Counter()
        self._replies: list[bytes] = []
        self._deferred: list[Query] = []
        self._buffer = ""
        # Byte offset of a string (OSC, DCS...) left open by an earlier feed().
        self._string_offset = 0
        self._rows_cache: list[dict[int, Char]] = [{} for _ in range(rows)]
        self._text_cache: list[str] = [" " * cols for _ in range(rows)]
        self._stale: set[int] = set()
        self._state = self._signature()
        self._snapshot: Snapshot | None = None

    # -- feeding -----------------------------------------------------------------

    def feed(self, data: bytes) -> bytes:
        """Process output from the program; return the replies it is owed.

        Never raises for any input, and never loses the bytes after a
        sequence it could not handle. Hot path: ``benchmarks/bench_feed.py``.
        """
        if not data:
            return b""
        self.bytes_fed += len(data)
        text = self._decoder.decode(data)
        self._run(text)
        return self._finish_feed()

    def _run(self, text: str) -> None:
        parser = self._parser
        self._buffer = parser.pending + text
        try:
            parser.feed(text)
        except Exception as exc:
            self.unknown[f"internal error {type(exc).__name__}"] += 1
            parser.reset()
        start = parser.open_string
        if start is not None and start >= 0:
            self._string_offset = self._offset_of(start)

    def _finish_feed(self) -> bytes:
        screen = self._screen
        if screen.dirty:
            self._stale.update(screen.dirty)
            screen.dirty.clear()
            self.generation += 1
            self._state = self._signature()
        else:
            state = self._signature()
            if state != self._state:
                self._state = state
                self.generation += 1
        if not self._replies:
            return b""
        replies = b"".join(self._replies)
        self._replies.clear()
        return replies

    def _signature(self) -> tuple[object, ...]:
        s = self._screen
        c = s.cursor
        return (c.x, c.y, c.hidden, s.title, frozenset(s.mode), s.alternate,
                s.cursor_shape, s.application_keypad)

    def resize(self, cols: int, rows: int) -> None:
        """Change the size, as a terminal window does; the program is told
        separately (the PTY's SIGWINCH), by whoever owns the program."""
        if cols < 1 or rows < 1:
            raise ValueError(f"a terminal needs at least 1x1 cells, not {cols}x{rows}")
        self._screen.resize(rows, cols)
        self._rows_cache = [{} for _ in range(rows)]
        self._text_cache = [" " * cols for _ in range(rows)]
        self._stale = set(range(rows))
        self._screen.dirty.clear()
        self.generation += 1
        self._state = self._signature()

    # -- queries -------------------------------------------------------------------

    def _offset_of(self, index: int) -> int:
        """Byte offset in the output stream of character ``index`` of the text
        being parsed (exact, thanks to ``surrogateescape``); -1 is a string
        that began in an earlier chunk."""
        if index < 0:
            return self._string_offset
        undecoded = len(self._decoder.getstate()[0])
        tail = self._buffer[index:].encode("utf-8", "surrogateescape")
        return self.bytes_fed - undecoded - len(tail)

    def _query(self, kind: str, request: str, index: int, reply: str | None) -> None:
        offset = self._offset_of(index)
        policy = self.policy.get(kind, "answer")
        if reply is None:
            query = Query(kind, printable(request), offset, None, "unsupported")
        elif policy == "ignore":
            query = Query(kind, printable(request), offset, reply.encode(), "ignored")
        elif policy == "defer":
            query = Query(kind, printable(request), offset, reply.encode(), "deferred")
            self._deferred.append(query)
        else:
            query = Query(kind, printable(request), offset, reply.encode())
            self._replies.append(query.reply)  # type: ignore[arg-type]
        self.queries.append(query)

    def take_deferred(self) -> list[Query]:
        """Deferred queries not yet handed out; mark them ``answered`` once sent."""
        deferred, self._deferred = self._deferred, []
        return deferred

    def unanswered(self) -> list[Query]:
        """Queries the program is still waiting for, oldest first."""
        return [q for q in self.queries if q.unanswered]

    # -- reading -------------------------------------------------------------------

    @property
    def cols(self) -> int:
        return self._screen.columns

    @property
    def rows(self) -> int:
        return self._screen.lines

    @property
    def modes(self) -> Modes:
        s = self._screen
        mode = s.mode
        mouse = next((name for m, name in _MOUSE_MODES if m << 5 in mode), None)
        encoding = next((name for m, name in _MOUSE_ENCODINGS if m << 5 in mode), None)
        return Modes(
            bracketed_paste=2004 << 5 in mode,
            application_cursor=1 << 5 in mode,
            application_keypad=s.application_keypad,
            autowrap=mo.DECAWM in mode,
            insert=mo.IRM in mode,
            origin=mo.DECOM in mode,
            mouse=mouse,
            mouse_encoding=encoding,
            focus_events=1004 << 5 in mode,
            cursor_shape=s.cursor_shape,
        )

    @property
    def screen(self) -> Snapshot:
        """The screen now, as an immutable snapshot (cached per generation)."""
        snap = self._snapshot
        if snap is not None and snap.generation == self.generation:
            return snap
        s = self._screen
        cols = s.columns
        rows_cache, text_cache = self._rows_cache, self._text_cache
        buffer = s.buffer
        for y in self._stale:
            if y < s.lines:
                line = buffer.get(y)
                row = dict(line) if line else {}
                rows_cache[y] = row
                text_cache[y] = row_text(row, cols)
        self._stale.clear()
        cursor = s.cursor
        snap = Snapshot(
            cols=cols, rows=s.lines, cells=tuple(rows_cache), lines=tuple(text_cache),
            cursor=Cursor(cursor.y, min(cursor.x, cols - 1), not cursor.hidden),
            title=s.title, alternate=s.alternate, modes=self.modes,
            generation=self.generation, default=s.default_char,
        )
        self._snapshot = snap
        return snap

    def __repr__(self) -> str:
        return f"<Terminal {self.cols}x{self.rows} generation={self.generation}>"


class _Dispatch:
    """Tokens to screen operations and query answers (the parser's handler)."""

    def __init__(self, term: Terminal) -> None:
        self.term = term
        s = term._screen
        self.s = s
        # SGR: (attributes, parameters, DECSCNM) -> new attributes;
        # (parameters, DECSCNM) -> (fields set, codes pyte ignores).
        self._sgr_memo: dict[tuple[Char, str, bool], Char] = {}
        self._sgr_parsed: dict[tuple[str, bool], tuple[dict[str, object], tuple[int, ...]]] = {}
        #: The screen draws text itself: no call in between (hot path).
        self.draw: Callable[[str], None] = s.draw
        self.controls: dict[str, Callable[[], None]] = {
            "\x07": s.bell, "\x08": s.backspace, "\x09": s.tab, "\x0a": s.linefeed,
            "\x0b": s.linefeed, "\x0c": s.linefeed, "\x0d": s.carriage_return,
            "\x0e": s.shift_out, "\x0f": s.shift_in,
        }
        #: Whole CSI sequences seen before, and the call each one makes: the
        #: parser calls it instead of ``csi()`` (see ``_csi_action``).
        self.sequences: dict[str, Callable[[], None]] = {}

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
            "`": one(s.cursor_to_column), "a": one(s.cursor_forward),
            "d": one(s.cursor_to_line), "e": one(s.cursor_down),
            "H": self._cup, "f": self._cup, "J": how(s.erase_in_display),
            "K": how(s.erase_in_line), "L": one(s.insert_lines), "M": one(s.delete_lines),
            "P": one(s.delete_characters), "X": one(s.erase_characters),
            "g": how(s.clear_tab_stop), "h": whole(self._set_ansi_modes),
            "l": whole(self._reset_ansi_modes), "r": self._margins,
            "S": whole(self._scroll_up), "T": whole(self._scroll_down),
            "b": one(s.repeat_last), "Z": one(s.tab_backward), "I": one(s.tab_forward),
            "s": bare(s.save_cursor), "u": bare(s.restore_cursor),
        }

    # -- the Handler protocol ----------------------------------------------------

    def control(self, char: str) -> None:
        handler = self.controls.get(char)
        if handler is not None:
            handler()
        elif char in "\x18\x1a":
            pass  # CAN/SUB outside a sequence: nothing to cancel
        elif char != "\x05":  # ENQ: no answerback, like xterm's default
            self.term.unknown[f"C0 control 0x{ord(char):02x}"] += 1

    def csi(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        action = self._csi_action(private, params, inter, final)
        if action is None:
            self._csi_other(private, params, inter, final, index)
            return
        if not (final == "m" and _true_colour(params)):
            sequences = self.sequences
            if len(sequences) >= _MAX_SEQUENCES:
                sequences.clear()
            sequences[f"\x1b[{private}{params}{inter}{final}"] = action
        action()

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
            return None
        if not private:
            if final == "m":
                return _SgrAction(self, params)
            build = self.plain.get(final)
            return build(_ints(params)) if build is not None else None
        if private == "?":
            if final in ("h", "l"):
                modes = _ints(params)
                on = final == "h"
                if _FLAG_PRIVATE_MODES.issuperset(modes):
                    return partial(s.switch_flags, frozenset(m << 5 for m in modes), on)
                return partial(self._private_modes, modes, on)
            if final in ("J", "K"):
                how = (_ints(params) or [0])[0]
                return partial(s.erase_in_display if final == "J" else s.erase_in_line, how)
        return None

    def _csi_other(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        """Queries, and sequences that are counted as not understood."""
        if inter:
            self._csi_intermediate(private, params, inter, final, index)
        elif not private:
            if final == "n":
                self._dsr(params, index)
            elif final == "c":
                if _ints(params) in ([], [0]):
                    self._query("da1", index, "\x1b[?62;22c", params, final)
                else:
                    self.term.unknown["CSI c"] += 1
            elif final == "t":
                self._window_ops(params, index)
            else:
                self.term.unknown[f"CSI {final}"] += 1
        elif private == "?":
            self._csi_private(params, final, index)
        elif private == ">":
            if final == "c":
                self._query("da2", index, "\x1b[>0;276;0c", params, final, private)
            elif final == "q":
                self._query("xtversion", index, None, params, final, private)
            elif final not in "mnut":  # modifyOtherKeys, kitty keys: nothing to draw
                self.term.unknown[f"CSI >{final}"] += 1
        elif private == "=":
            if final == "c":
                self._query("da3", index, None, params, final, private)
            elif final != "u":
                self.term.unknown[f"CSI ={final}"] += 1
        elif final != "u":  # "<u": kitty keyboard pop
            self.term.unknown[f"CSI {private}{final}"] += 1

    def esc(self, inter: str, final: str, index: int) -> None:
        s = self.s
        if not inter:
            action = {
                "7": s.save_cursor, "8": s.restore_cursor, "D": s.index, "E": s.next_line,
                "M": s.reverse_index, "H": s.set_tab_stop, "c": self._reset,
            }.get(final)
            if action is not None:
                action()
            elif final == "=":
                s.application_keypad = True
            elif final == ">":
                s.application_keypad = False
            elif final == "Z":
                self._query("da1", index, "\x1b[?62;22c", "", "Z", prefix="\x1b")
            elif final != "\\":  # a stray ST is harmless
                self.term.unknown[f"ESC {final}"] += 1
        elif inter in ("(", ")") and final in pyte.charsets.MAPS:
            s.define_charset(final, inter)
        elif inter == "#" and final == "8":
            s.alignment_display()
        elif inter not in ("%", " ", "*", "+"):
            # Unknown character sets, DEC double-size lines (ESC # 3..6)...
            # ESC % (UTF-8 selection), ESC SP (C1 transmission, conformance
            # level) and G2/G3 designations change nothing termsim shows
            # (invoking G2/G3, ESC N/O/n/o, is counted above).
            self.term.unknown[f"ESC {inter}{final}"] += 1

    def string(self, kind: str, body: str, terminator: str, index: int) -> None:
        if kind == "OSC":
            self._osc(body, terminator or "\x1b\\", index)
        elif kind == "DCS":
            if body.startswith("$q"):
                self._query("decrqss", index, None, body, "", prefix="\x1bP")
            elif body.startswith("+q"):
                self._query("xtgettcap", index, None, body, "", prefix="\x1bP")
            else:  # sixel, DECUDK, tmux passthrough...: swallowed whole, counted
                m = _DCS_HEAD.match(body)
                self.term.unknown[f"DCS {m.group(1) if m else body[:1]}"] += 1
        else:  # SOS, PM, APC (kitty graphics...): swallowed whole, counted
            self.term.unknown[kind] += 1

    def garbage(self, kind: str) -> None:
        self.term.unknown[kind] += 1

    def failed(self, exc: Exception) -> None:
        # The token is skipped; its effect may be partial, so redraw all rows.
        self.term.unknown[f"error in {type(exc).__name__}"] += 1
        self.s.dirty.update(range(self.s.lines))

    # -- CSI helpers ----------------------------------------------------------------

    def _cup(self, a: list[int]) -> Callable[[], None]:
        return partial(self.s.cursor_position, a[0] if a else None, a[1] if len(a) > 1 else None)

    def _margins(self, a: list[int]) -> Callable[[], None]:
        return partial(
            self.s.set_margins, a[0] if a else None, a[1] if len(a) > 1 and a[1] else None,
        )

    def _scroll_up(self, a: list[int]) -> None:
        if len(a) <= 1:
            self.s.scroll_up(a[0] if a else None)
        else:
            self.term.unknown["CSI S"] += 1

    def _scroll_down(self, a: list[int]) -> None:
        if len(a) <= 1:
            self.s.scroll_down(a[0] if a else None)
        else:  # CSI Ps;Ps;Ps;Ps;Ps T is mouse highlight tracking
            self.term.unknown["CSI T"] += 1

    def _set_ansi_modes(self, a: list[int]) -> None:
        self._count_modes(a, "", "h")
        self.s.set_mode(*a)

    def _reset_ansi_modes(self, a: list[int]) -> None:
        self._count_modes(a, "", "l")
        self.s.reset_mode(*a)

    def _count_modes(self, modes: list[int], private: str, final: str) -> None:
        known = _UNDERSTOOD_PRIVATE_MODES if private else _KNOWN_ANSI_MODES
        if known.issuperset(modes):
            return
        for mode in modes:
            if mode not in known:
                self.term.unknown[f"CSI {private}{mode}{final}"] += 1

    def _sgr(self, params: str) -> bool:
        """SGR (``CSI ... m``); return whether the result may be reused.

        Hot path (``benchmarks/bench_feed.py``, the colour stream): the new
        attributes are memoised per (attributes, parameters), and what the
        parameters set per parameters alone, so that a new colour costs one
        tuple built in C.
        """
        s = self.s
        cursor = s.cursor
        key = (cursor.attrs, params, mo.DECSCNM in s.mode)
        memo = self._sgr_memo
        attrs = memo.get(key)
        if attrs is not None:
            cursor.attrs = attrs
            return True
        changes, ignored = self._sgr_parse(params, key[2])
        cursor.attrs = attrs = _replaced(cursor.attrs, changes)
        if ignored:
            # Not memoised, so that every use is counted.
            unknown = self.term.unknown
            for code in ignored:
                unknown[f"SGR {code}"] += 1
            return False
        if _true_colour(params):
            return False
        if len(memo) >= _MAX_SGR_MEMO:
            memo.clear()
        memo[key] = attrs
        return True

    def _sgr_parse(self, params: str, reverse: bool) -> tuple[dict[str, object], tuple[int, ...]]:
        """What SGR ``params`` set, and the codes among them pyte drops."""
        key = (params, reverse)
        parsed = self._sgr_parsed.get(key)
        if parsed is None:
            values = _sgr_params(params)
            # Parameters that all were dropped (``58:2::1:2:3``) change
            # nothing; an empty ``CSI m`` is SGR 0.
            reset = values or not params
            parsed = _sgr_changes(values, reverse) if reset else ({}, ())
            if not _true_colour(params):
                if len(self._sgr_parsed) >= _MAX_SGR_MEMO:
                    self._sgr_parsed.clear()
                self._sgr_parsed[key] = parsed
        return parsed

    def _dsr(self, params: str, index: int) -> None:
        a = _ints(params)
        if a == [6]:
            y, x = self._cursor_report()
            self._query("cpr", index, f"\x1b[{y};{x}R", params, "n")
        elif a == [5]:
            self._query("dsr", index, "\x1b[0n", params, "n")
        else:
            self._query(f"dsr {params}", index, None, params, "n")

    def _cursor_report(self) -> tuple[int, int]:
        s = self.s
        # A pending wrap (cursor one past the last column) is reported as the
        # last column, as xterm does; pyte reports columns+1.
        x = min(s.cursor.x, s.columns - 1) + 1
        y = s.cursor.y + 1
        if mo.DECOM in s.mode and s.margins is not None:
            y -= s.margins.top
        return y, x

    def _private_modes(self, modes: list[int], on: bool) -> None:
        """DECSET/DECRST (``CSI ? Pm h``/``l``)."""
        if on:
            self._count_modes(modes, "?", "h")
            self.s.set_mode(*modes, private=True)
        else:
            self._count_modes(modes, "?", "l")
            self.s.reset_mode(*modes, private=True)

    def _csi_private(self, params: str, final: str, index: int) -> None:
        """``CSI ? ...`` sequences that ``_csi_action`` leaves out."""
        if final == "n":
            if _ints(params) == [6]:
                y, x = self._cursor_report()
                self._query("decxcpr", index, f"\x1b[?{y};{x};1R", params, final, "?")
            else:
                self._query(f"dsr ?{params}", index, None, params, final, "?")
        elif final == "u":
            self._query("kitty-keyboard", index, None, params, final, "?")
        elif final == "m":
            self._query("xtqmodkeys", index, None, params, final, "?")
        else:  # XTSAVE/XTRESTORE (?s, ?r) included: modes are not saved
            self.term.unknown[f"CSI ?{final}"] += 1

    def _csi_intermediate(
        self, private: str, params: str, inter: str, final: str, index: int,
    ) -> None:
        """``CSI ... <intermediate> <final>`` sequences that ``_csi_action``
        leaves out (DECSCUSR and DECSTR are there)."""
        s = self.s
        if inter == "$" and final == "p":
            a = _ints(params)
            mode = a[0] if a else 0
            if private == "?":
                known = mode in _KNOWN_PRIVATE_MODES
                on = mode << 5 in s.mode
            else:
                known = mode in (mo.IRM, mo.LNM)
                on = mode in s.mode
            state = (1 if on else 2) if known else 0
            self._query("decrqm", index, f"\x1b[{private}{mode};{state}$y",
                        params, final, private, inter)
        elif (private, inter, final) != ("", '"', "p"):  # DECSCL: nothing to do
            # DECSCA (protection), DECIC/DECDC (column editing) included.
            self.term.unknown[f"CSI {private}{inter}{final}"] += 1

    def _window_ops(self, params: str, index: int) -> None:
        a = _ints(params)
        op = a[0] if a else 0
        s = self.s
        if op == 18:
            self._query("window-size", index, f"\x1b[8;{s.lines};{s.columns}t", params, "t")
        elif op == 22:
            s.title_stack = [*s.title_stack, s.title][-10:]
        elif op == 23:
            if s.title_stack:
                s.title = s.title_stack.pop()
        elif op in (11, 13, 14, 15, 16, 19, 20, 21):
            self._query(f"xtwinops {op}", index, None, params, "t")
        else:  # window manipulation: a terminal in a test does not move
            self.term.unknown[f"CSI {op}t"] += 1

    def _osc(self, body: str, terminator: str, index: int) -> None:
        s = self.s
        code, _, text = body.partition(";")
        if code in ("0", "2"):
            s.set_title(text)
            if code == "0":
                s.set_icon_name(text)
        elif code == "1":
            s.set_icon_name(text)
        elif code in ("10", "11", "12") and text == "?":
            colour = BACKGROUND if code == "11" else FOREGROUND
            kind = {"10": "osc-fg", "11": "osc-bg", "12": "osc-cursor"}[code]
            request = f"\x1b]{body}{terminator}"
            self._query_raw(kind, index, f"\x1b]{code};{colour}{terminator}", request)
        elif code in ("10", "11", "12"):
            pass  # setting colours: nothing on the screen changes
        elif code in _IGNORED_OSC:
            if code == "4" and text.endswith("?"):
                self._query_raw("osc-palette", index, None, f"\x1b]{body}{terminator}")
        else:
            self.term.unknown[f"OSC {code[:8]}"] += 1

    def _query(
        self, kind: str, index: int, reply: str | None, params: str, final: str,
        private: str = "", inter: str = "", prefix: str = "\x1b[",
    ) -> None:
        request = f"{prefix}{private}{params}{inter}{final}"
        self._query_raw(kind, index, reply, request)

    def _query_raw(self, kind: str, index: int, reply: str | None, request: str) -> None:
        self.term._query(kind, request, index, reply)

    def _reset(self) -> None:
        self.s.reset()
        self.term._parser.reset()
