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
"""

from __future__ import annotations

import codecs
import re
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import pyte
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
#: ANSI modes pyte implements: IRM (4) and LNM (20).
_KNOWN_ANSI_MODES = frozenset({4, 20})
#: SGR codes pyte keeps (38 and 48 with their arguments, handled apart).
_KNOWN_SGR = frozenset(
    {0, 1, 3, 4, 5, 7, 9, 22, 23, 24, 25, 27, 29, 39, 49, *range(30, 38), *range(40, 48),
     *range(90, 98), *range(100, 108)}
)
#: Parameters with no ignored code among them are all in here (the numbers
#: after 38/48 are colours, never ignored, so their being here is harmless).
_SGR_PLAIN = _KNOWN_SGR | {38, 48}
_MOUSE_MODES = ((1003, "any"), (1002, "button"), (1000, "normal"), (9, "x10"))
_MOUSE_ENCODINGS = ((1006, "sgr"), (1015, "urxvt"), (1005, "utf8"))
_MAX_PARAM = 65535
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


def _ints(params: str) -> list[int]:
    """CSI parameters as integers; empty ones are 0, sub-parameters dropped."""
    if not params:
        return []
    out = []
    for p in params.split(";"):
        if ":" in p:
            p = p.split(":", 1)[0]
        out.append(min(int(p), _MAX_PARAM) if p.isdigit() else 0)
    return out


def _sgr_params(params: str) -> tuple[int, ...]:
    """SGR parameters, with colon sub-parameters (``38:2::r:g:b``) translated."""
    if ":" not in params:
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


def _ignored_sgr(values: tuple[int, ...]) -> tuple[int, ...]:
    """The SGR codes among ``values`` that pyte drops (dim, conceal,
    overline, double underline...); the arguments of 38/48 are skipped."""
    ignored: list[int] = []
    i, n = 0, len(values)
    while i < n:
        code = values[i]
        if code in (38, 48):
            mode = values[i + 1] if i + 1 < n else None
            i += 3 if mode == 5 else 5 if mode == 2 else 2
            continue
        if code not in _KNOWN_SGR:
            ignored.append(code)
        i += 1
    return tuple(ignored)


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
        self._sgr_memo: dict[tuple[Char, str, bool], Char] = {}
        self.controls: dict[str, Callable[[], None]] = {
            "\x07": s.bell, "\x08": s.backspace, "\x09": s.tab, "\x0a": s.linefeed,
            "\x0b": s.linefeed, "\x0c": s.linefeed, "\x0d": s.carriage_return,
            "\x0e": s.shift_out, "\x0f": s.shift_in,
        }

        def one(method: Callable[..., None]) -> Callable[[list[int]], None]:
            return lambda a: method(a[0] if a else None)

        def how(method: Callable[..., None]) -> Callable[[list[int]], None]:
            return lambda a: method(a[0] if a else 0)

        self.plain: dict[str, Callable[[list[int]], None]] = {
            "@": one(s.insert_characters), "A": one(s.cursor_up), "B": one(s.cursor_down),
            "C": one(s.cursor_forward), "D": one(s.cursor_back), "E": one(s.cursor_down1),
            "F": one(s.cursor_up1), "G": one(s.cursor_to_column),
            "`": one(s.cursor_to_column), "a": one(s.cursor_forward),
            "d": one(s.cursor_to_line), "e": one(s.cursor_down),
            "H": self._cup, "f": self._cup, "J": how(s.erase_in_display),
            "K": how(s.erase_in_line), "L": one(s.insert_lines), "M": one(s.delete_lines),
            "P": one(s.delete_characters), "X": one(s.erase_characters),
            "g": how(s.clear_tab_stop), "h": self._set_ansi_modes,
            "l": self._reset_ansi_modes, "r": self._margins,
            "S": self._scroll_up, "T": self._scroll_down, "b": one(s.repeat_last),
            "Z": one(s.tab_backward), "I": one(s.tab_forward),
            "s": lambda a: s.save_cursor(), "u": lambda a: s.restore_cursor(),
        }

    # -- the Handler protocol ----------------------------------------------------

    def draw(self, text: str) -> None:
        self.s.draw(text)

    def control(self, char: str) -> None:
        handler = self.controls.get(char)
        if handler is not None:
            handler()
        elif char in "\x18\x1a":
            pass  # CAN/SUB outside a sequence: nothing to cancel
        elif char != "\x05":  # ENQ: no answerback, like xterm's default
            self.term.unknown[f"C0 control 0x{ord(char):02x}"] += 1

    def csi(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        if inter:
            self._csi_intermediate(private, params, inter, final, index)
        elif not private:
            if final == "m":
                self._sgr(params)
                return
            fn = self.plain.get(final)
            if fn is not None:
                fn(_ints(params))
            elif final == "n":
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

    def _cup(self, a: list[int]) -> None:
        self.s.cursor_position(a[0] if a else None, a[1] if len(a) > 1 else None)

    def _margins(self, a: list[int]) -> None:
        self.s.set_margins(a[0] if a else None, a[1] if len(a) > 1 and a[1] else None)

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

    def _sgr(self, params: str) -> None:
        s = self.s
        cursor = s.cursor
        key = (cursor.attrs, params, mo.DECSCNM in s.mode)
        attrs = self._sgr_memo.get(key)
        if attrs is not None:
            cursor.attrs = attrs
            return
        values = _sgr_params(params)
        if values or not params:  # no values at all would mean SGR 0
            s.select_graphic_rendition(*values)
        ignored = () if _SGR_PLAIN.issuperset(values) else _ignored_sgr(values)
        if ignored:
            # Not memoised, so that every use is counted.
            unknown = self.term.unknown
            for code in ignored:
                unknown[f"SGR {code}"] += 1
            return
        if len(self._sgr_memo) > 4096:
            self._sgr_memo.clear()
        self._sgr_memo[key] = cursor.attrs

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

    def _csi_private(self, params: str, final: str, index: int) -> None:
        s = self.s
        if final == "h":
            modes = _ints(params)
            self._count_modes(modes, "?", "h")
            s.set_mode(*modes, private=True)
        elif final == "l":
            modes = _ints(params)
            self._count_modes(modes, "?", "l")
            s.reset_mode(*modes, private=True)
        elif final == "n":
            if _ints(params) == [6]:
                y, x = self._cursor_report()
                self._query("decxcpr", index, f"\x1b[?{y};{x};1R", params, final, "?")
            else:
                self._query(f"dsr ?{params}", index, None, params, final, "?")
        elif final == "J":
            s.erase_in_display((_ints(params) or [0])[0])
        elif final == "K":
            s.erase_in_line((_ints(params) or [0])[0])
        elif final == "u":
            self._query("kitty-keyboard", index, None, params, final, "?")
        elif final == "m":
            self._query("xtqmodkeys", index, None, params, final, "?")
        else:  # XTSAVE/XTRESTORE (?s, ?r) included: modes are not saved
            self.term.unknown[f"CSI ?{final}"] += 1

    def _csi_intermediate(
        self, private: str, params: str, inter: str, final: str, index: int,
    ) -> None:
        s = self.s
        if inter == " " and final == "q" and not private:
            a = _ints(params)
            s.cursor_shape = a[0] if a and a[0] <= 6 else 0
        elif inter == "!" and final == "p":
            s.soft_reset()
        elif inter == "$" and final == "p":
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
