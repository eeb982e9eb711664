"""The sans-IO terminal: bytes from a program in, replies and screens out.

Theory of operation
-------------------

``Terminal.feed(data)`` decodes UTF-8 incrementally (``surrogateescape``, so
every byte keeps its offset and an undecodable byte is drawn as U+FFFD), hands
the text to the tokenizer (``_parser.py``), and the tokenizer calls the
``_Dispatch`` methods below, which drive a corrected pyte screen
(``_screen.py``); SGR, the commonest sequence, has its own module
(``_sgr.py``). A query (``ESC[6n`` and friends) is answered the moment the
tokenizer reaches it, from the state the bytes *before* it produced: that is
what a real terminal does, and what prompt_toolkit relies on. The dispatcher
only recognises which kind of query a sequence is; the answer comes from the
table in ``_queries.py``. The replies of one ``feed()`` are returned in
order; the caller writes them to the program.

Every query and its fate is logged in ``Terminal.queries``; how each kind is
answered is a policy (``"answer"``, ``"ignore"`` or a delay in seconds),
which is how a session reproduces a terminal that never answers CPR, or one
that answers late. Sequences termsim does not understand are counted in
``Terminal.unknown``, never silently dropped, and no byte sequence raises out
of ``feed()`` or loses the bytes after it.

This module imports nothing that does I/O: no os, no clock, no event loop.

Why this module is longer than 500 lines: it holds the whole dispatch from
tokens to screen operations (which sequence does what, which are queries,
which are counted as not understood), rules to read together, beside the
``Terminal`` that owns the screen, the offsets and the query log. What can
be read apart is apart: the tokenizer (``_parser.py``), the screen
(``_screen.py``), SGR (``_sgr.py``) and the queries' answers
(``_queries.py``).
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from collections.abc import Callable, Mapping
from functools import partial
from typing import NamedTuple, TypeVar

import pyte
from pyte import modes as mo
from pyte.screens import Char

from .emulation import Emulation
from .queries import (
    KINDS,
    KNOWN_ANSI_MODES,
    KNOWN_PRIVATE_MODES,
    QUERY_KINDS,
    Policy,
    Query,
    Request,
    check_policy,
    printable,
)
from .screen import _BLANK, MOUSE_ENCODING, MOUSE_TRACKING, FlagSwitch, TermScreen, TextRow
from .sgr import Sgr, SgrAction, true_colour
from .sgr import ints as _ints
from .snapshot import Cursor, Modes, Snapshot, row_text
from .styled import SGR, line_end_pen
from .tokenizer import Parser, Part

__all__ = ["QUERY_KINDS", "Policy", "Query", "Terminal", "printable"]

#: How many of the most recent queries ``Terminal.queries`` keeps.
QUERY_LOG = 1000
#: Private modes that change nothing termsim shows or tracks (input-side
#: options, smooth scrolling, autorepeat, bell handling): set or reset
#: without a count in ``Terminal.unknown``. Any other mode is counted.
_INERT_PRIVATE_MODES = frozenset({8, 1007, 1034, 1035, 1036, 1037, 1039, 1042, 1043})
_UNDERSTOOD_PRIVATE_MODES = KNOWN_PRIVATE_MODES | _INERT_PRIVATE_MODES
#: Private modes that are only a flag in the screen's ``mode`` (DECTCEM also
#: shows or hides the cursor): no buffer switch, no homing, no resize.
_FLAG_PRIVATE_MODES = _UNDERSTOOD_PRIVATE_MODES - {3, 5, 6, 47, 1047, 1048, 1049}
_MOUSE_MODES = ((1003, "any"), (1002, "button"), (1000, "normal"), (9, "x10"))
_MOUSE_ENCODINGS = ((1006, "sgr"), (1015, "urxvt"), (1005, "utf8"))
#: How many CSI sequences keep a ready action (``_Dispatch.sequences``).
_MAX_SEQUENCES = 4096
#: What ``_Dispatch.fuse`` knows of a kept action: a flag switch, a CR, an
#: action that neither reads nor changes the pen, any other; or an SGR, with
#: two flags: it begins with SGR 0, it holds codes counted as not understood.
_SWITCH, _CR, _PEN_FREE, _OTHER = 1, 2, 3, 4
_SGR, _WIPES, _COUNTED = 8, 16, 32
_DCS_HEAD = re.compile(r"[0-?]*([ -/]*[@-~])")
# OSC codes that are understood and have nothing to do with the screen.
_IGNORED_OSC = frozenset(
    {"4", "7", "8", "9", "22", "50", "52", "104", "110", "111", "112", "133", "633",
     "697", "777", "1337"}
)
#: Which query a CSI sequence is, where its private marker and final byte
#: tell; the others are sorted by ``_csi_query``.
_CSI_QUERIES = {
    ">c": "da2", ">q": "xtversion", "=c": "da3", "?u": "kitty-keyboard", "?m": "xtqmodkeys",
}
#: XTWINOPS reports (``CSI Ps t``) by ``Ps``: every ``"xtwinops Ps"`` kind.
_XTWINOPS = {int(kind[9:]): kind for kind in KINDS if kind.startswith("xtwinops ")}
_OSC_COLOURS = {"10": "osc-fg", "11": "osc-bg", "12": "osc-cursor"}
#: Final bytes of ``CSI <private> ... <final>`` that are not counted as not
#: understood (modifyOtherKeys, kitty keyboard pushes and pops: nothing to
#: draw); any other private marker: only ``u``.
_SILENT_PRIVATE_FINALS = {"?": "", ">": "mnut"}


class HistoryMark(NamedTuple):
    """What :meth:`Terminal.transcript` counts from (see :meth:`Terminal.history_mark`)."""

    lines: tuple[str, ...]
    scrolled: int


class Terminal:
    """A virtual terminal: feed it a program's output, get replies and screens.

    ``policy`` maps a query kind (see :data:`QUERY_KINDS`) to a
    :data:`Policy`: ``"answer"`` (the default), ``"ignore"`` (never
    answered, like a terminal without the feature) or a delay in seconds
    (computed now, handed out by :meth:`take_deferred` for the caller to
    send that much later). ``cell_size`` is the (width, height) in pixels
    the pixel-size reports (``CSI 14 t``, ``CSI 16 t``) give a cell; ``term``
    the ``TERM`` the program sees (XTGETTCAP reports it).
    """

    def __init__(
        self, cols: int = 80, rows: int = 24, *, policy: Mapping[str, Policy] | None = None,
        cell_size: tuple[int, int] = (10, 20), term: str = "xterm-256color",
        emulation: Emulation | None = None,
    ) -> None:
        if cols < 1 or rows < 1:
            raise ValueError(f"a terminal needs at least 1x1 cells, not {cols}x{rows}")
        if len(cell_size) != 2 or min(cell_size) < 1:
            raise ValueError(f"cell_size is (width, height) in pixels, not {cell_size!r}")
        self.policy: dict[str, Policy] = dict(policy or {})
        for kind, value in self.policy.items():
            check_policy(kind, value)
        #: Increases whenever the screen (text, cursor, modes, title) changes.
        self.generation = 0
        #: Total bytes fed so far.
        self.bytes_fed = 0
        #: The queries the program sent, oldest first: a list of the most
        #: recent :data:`QUERY_LOG` (``query_count`` counts them all).
        self.queries: list[Query] = []
        self.query_count = 0
        #: Sequences termsim did not understand, counted by kind.
        self.unknown: Counter[str] = Counter()
        self._screen = TermScreen(cols, rows)
        self._screen.cell_size = (int(cell_size[0]), int(cell_size[1]))
        self._screen.term_name = term
        #: Where terminals disagree, which way this one goes.
        self.emulation = emulation or Emulation()
        self._screen.backspace_past_edge = self.emulation.backspace_at_wrap == "tmux"
        self._screen.graphemes = self.emulation.graphemes
        self._screen.reflow = self.emulation.reflow
        self._dispatch = _Dispatch(self)
        self._parser = Parser(self._dispatch)
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._replies: list[bytes] = []
        self._deferred: list[Query] = []
        self._buffer = ""
        # The last offset ``_offset_of`` found: in which text (of the read
        # that ended at which byte), at what index, the offset.
        self._offset_known: tuple[str, int, int, int] = ("", -1, 0, 0)
        #: SGR parameters -> the codes in them pyte drops (``_colour_lines``).
        self._sgr_ignored: dict[str, tuple[int, ...]] = {}
        # Byte offset of a string (OSC, DCS...) left open by an earlier feed().
        self._string_offset = 0
        # A row of the last snapshot: its cells, or its text when it has
        # none yet (``TermScreen.settle``).
        self._rows_cache: list[dict[int, Char] | str] = [{} for _ in range(rows)]
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
        parser, screen = self._parser, self._screen
        if screen.unbuilt or len(text) >= _FAST_LINES * 8:
            text = self._lines(text)
        self._buffer = parser.pending + text
        try:
            parser.feed(text)
        except Exception as exc:
            self.unknown[f"internal error {type(exc).__name__}"] += 1
            parser.reset()
        start = parser.open_string
        if start is not None and start >= 0:
            self._string_offset = self._offset_of(start)

    def _lines(self, text: str) -> str:
        """A read of lines (printable ASCII, CR LF, and SGR sequences) the
        fast way (``_feed_lines``); return what is left for the parser. Any
        other read first makes the cells of the rows an earlier one left
        as text (``TermScreen.settle``): it may read or change any row.
        """
        parser, screen = self._parser, self._screen
        if parser.open_string is None:
            if not parser.pending and _PLAIN_LINES.fullmatch(text) is not None:
                if (len(text) >= _FAST_LINES * 8 and text.count("\n") >= _FAST_LINES
                        and screen.plain_lines_ok()):
                    return self._feed_lines(text)
                return text
            rest = self._colour_lines(text)
            if rest is not None:
                return rest
        screen.settle()
        return text

    def _colour_lines(self, text: str) -> str | None:
        """``_lines`` for a read with SGR sequences; ``None`` if it holds
        anything else. SGR codes pyte drops are counted in ``unknown`` at
        each use, as the parser counts them (``_feed_lines``)."""
        parser, screen = self._parser, self._screen
        end = _COLOUR_TEXT.match(text).end()  # type: ignore[union-attr]
        if end != len(text) and _CUT_SGR.fullmatch(text, end) is None:
            return None  # (stops at the first other sequence: cheap for the rest)
        pending = parser.pending
        params = SGR.findall(text)
        if pending:  # the last read cut an SGR sequence: complete it first
            whole = SGR.match(pending + text)
            if whole is None or whole.end() <= len(pending):
                return None
            cut = whole.end() - len(pending)
            head, text = text[:cut], text[cut:]
            params.append(whole.group(1))
        elif not params:
            return None
        visible = SGR.sub("", text)
        if (_COLOUR_LINES.fullmatch(visible) is None
                # An SGR sequence between CR and LF (the LF would end up in a line):
                or visible.count("\r\n") != text.count("\r\n")
                or (visible[:1] == "\n" and text[:1] != "\n")):
            return None
        known = self._sgr_ignored
        unknown = False  # some hold codes counted in ``unknown`` each time
        for p in set(params):
            ignored = known.get(p)
            if ignored is None:
                ignored = _keep(known, p, self._dispatch.sgr.ignored(p), _MAX_SGR_IGNORED)
            if ignored:
                unknown = True
        if pending:
            self._buffer = pending + head + text  # (no query: nothing asks the offsets)
            parser.feed(head)
        if (len(text) >= _FAST_LINES * 8 and text.count("\n") >= _FAST_LINES
                and screen.colour_lines_ok()):
            return self._feed_lines(text, visible, unknown)
        return text

    def _feed_lines(self, text: str, visible: str | None = None, unknown: bool = False) -> str:
        """Lines the fast way: lines go through the parser until the cursor
        stands at the start of an empty bottom row, then the rest at once
        (``TermScreen.feed_lines``: rows that scroll off within this read
        are never drawn cell by cell). ``visible``: ``text`` without its SGR
        sequences, if it has any; then the rows are kept as coloured text
        (``_styled.py``) up to a line whose end leaves a coloured pen (its
        LF would fill the new row with that background). ``unknown``: some
        of them hold codes counted in ``unknown`` at each use, here (the
        parser counts those it sees). Returns the rest,
        from the last, unfinished line, for the usual path."""
        screen, feed = self._screen, self._parser.feed
        if text[0] == "\n":  # the LF of a CR LF the last read cut
            feed("\n")
            text = text[1:]
            visible = visible and visible[1:]
        *lines, tail = text.split("\r\n")
        bottom = screen.lines - 1
        i = 0
        while i < len(lines) and (screen.cursor.x or screen.cursor.y != bottom
                                  or screen.buffer.get(bottom)):
            feed(lines[i] + "\r\n")
            i += 1
        if i == len(lines):
            return tail
        if visible is None:
            screen.feed_lines(lines[i:] if i else lines)
            return tail
        shown = visible.split("\r\n")[i:len(lines)]
        sources = lines[i:]
        step = self._dispatch.sgr.after
        pen = screen.cursor.attrs
        pens: list[Char] = []
        for source in sources:
            end = line_end_pen(source, pen, _BLANK, step) if "\x1b" in source else pen
            if end.fg != "default" or end.bg != "default":
                break
            pens.append(pen)
            pen = end
        n = len(pens)
        if n:
            screen.feed_lines(shown[:n], (sources[:n], pens, pen, step))
            if unknown:
                count, ignored = self.unknown, self._sgr_ignored
                for params in SGR.findall("".join(sources[:n])):
                    for code in ignored.get(params) or self._dispatch.sgr.ignored(params):
                        count[f"SGR {code}"] += 1
        if n < len(sources):
            return "\r\n".join([*sources[n:], tail])
        return tail

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
        self._screen.settle()
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
        buffer = self._buffer
        known, fed, at, offset = self._offset_known
        if known is buffer and fed == self.bytes_fed and at <= index:
            # A later query of the same read (prompt_toolkit asks for the
            # cursor's position every frame): count from the one before.
            offset += len(buffer[at:index].encode("utf-8", "surrogateescape"))
        else:
            undecoded = len(self._decoder.getstate()[0])
            tail = buffer[index:].encode("utf-8", "surrogateescape")
            offset = self.bytes_fed - undecoded - len(tail)
        self._offset_known = (buffer, self.bytes_fed, index, offset)
        return offset

    def _ask(self, request: Request, index: int) -> None:
        """Log the query the dispatcher recognised at character ``index``,
        answered from the table (``_queries.py``) as the policy says."""
        self._answer(request, printable(request.text), index)

    def _answer(self, request: Request, text: str, index: int) -> None:
        """``_ask``, with the request's printable ``text`` made already: the
        dispatcher keeps this call for a CSI query met before."""
        kind = request.kind
        reply = KINDS[kind].answer(self._screen, request)
        offset = self._offset_of(index)
        if reply is None:
            query = Query(kind, text, offset, None, "unsupported")
        else:
            policy = self.policy.get(kind, "answer")
            data = reply.encode()
            if policy == "ignore":
                query = Query(kind, text, offset, data, "ignored")
            elif isinstance(policy, str):
                query = Query(kind, text, offset, data)
                self._replies.append(data)
            else:
                query = Query(kind, text, offset, data, "deferred", delay=float(policy))
                self._deferred.append(query)
        self.queries.append(query)
        self.query_count += 1
        if len(self.queries) > QUERY_LOG:
            del self.queries[0]

    def take_deferred(self) -> list[Query]:
        """Deferred queries not yet handed out, oldest first: send each one's
        ``reply`` ``delay`` seconds after it was read, then call
        :meth:`deferred_answered`."""
        deferred, self._deferred = self._deferred, []
        return deferred

    def deferred_answered(self, reply: bytes | None = None) -> Query | None:
        """Mark the oldest query still ``"deferred"`` (with this ``reply``, if
        given) as ``"answered"``, and return it (``None`` if there is none).

        A live session calls this when it sends a deferred reply, a replay
        when it meets a recorded reply; either way it is no longer handed
        out by :meth:`take_deferred`. A recorded reply that answered a query
        at once matches no deferred one, and changes nothing.
        """
        query = next((q for q in self.queries if q.status == "deferred"
                      and (reply is None or q.reply == reply)), None)
        if query is not None:
            query.status = "answered"
            self._deferred = [q for q in self._deferred if q is not query]
        return query

    def unanswered(self) -> list[Query]:
        """Queries the program is still waiting for, oldest first."""
        return [q for q in self.queries if q.unanswered]

    # -- reading -------------------------------------------------------------------

    # -- transcripts ---------------------------------------------------------------

    def history_mark(self) -> HistoryMark:
        """Where a transcript starts: the screen now, and how many rows have
        scrolled off the top so far."""
        # The rows' text only: a mark is kept for the whole session, and holding
        # its snapshot would keep every row object of that screen alive.
        return HistoryMark(self.screen.lines, self._screen.scrolled)

    def transcript(self, since: HistoryMark | None = None) -> str:
        """The text drawn after ``since`` (all of it for None), in reading
        order: rows that scrolled off the top (the last ``HISTORY_ROWS``
        only), then the screen; no escape sequences, trailing blanks and
        trailing blank rows removed.

        A row that holds what the screen showed at ``since``, at the place
        that text has moved to by scrolling, was drawn before it and is left
        out; any other row is in, even if a program redrew it unchanged
        elsewhere.
        """
        screen = self._screen
        before = [line.rstrip() for line in since.lines] if since is not None else []
        gone = screen.scrolled - (since.scrolled if since is not None else 0)
        kept = min(gone, len(screen.history))
        out: list[str] = []
        if gone > kept:
            out.append(f"[… {gone - kept} earlier rows not kept]")
        history = list(screen.history)[len(screen.history) - kept:] if kept else []
        for i, row in enumerate(history, start=gone - kept):
            # A row as wide as it was drawn: the screen may be narrower now.
            text = (row if isinstance(row, str) else row_text(row, max(row) + 1)).rstrip() \
                if row else ""
            if not (i < len(before) and before[i] == text):
                out.append(text)
        for y, line in enumerate(self.screen.lines):
            text = line.rstrip()
            if not (y + gone < len(before) and before[y + gone] == text):
                out.append(text)
        while out and not out[-1]:
            out.pop()
        return "\n".join(out)

    @property
    def cursor_hidden(self) -> bool:
        """The program hid the cursor (``ESC[?25l``): usually, it is drawing a frame."""
        return bool(self._screen.cursor.hidden)

    @property
    def synchronized(self) -> bool:
        """A synchronized update (``ESC[?2026h``) is open: the frame is not done."""
        return 2026 << 5 in self._screen.mode

    @property
    def cols(self) -> int:
        """The width, in cells."""
        return self._screen.columns  # pyte's Screen.columns: a count

    @property
    def rows(self) -> int:
        """The height, in rows."""
        return self._screen.lines  # pyte's Screen.lines: a count, not Snapshot.lines

    @property
    def modes(self) -> Modes:
        """The modes the program set now (bracketed paste, mouse, keypad...)."""
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
        rows, cols = self.rows, self.cols
        rows_cache, text_cache = self._rows_cache, self._text_cache
        buffer = s.buffer
        for y in self._stale:
            if y < rows:
                line = buffer.get(y)
                if type(line) is TextRow and line.raw is not None:
                    # No cells yet: the snapshot makes them if asked.
                    rows_cache[y] = line.raw
                    text_cache[y] = line.text  # type: ignore[assignment]
                    continue
                row = dict(line) if line else {}
                rows_cache[y] = row
                # A row that still knows its text (TextRow) saves rebuilding it.
                text = line.text if type(line) is TextRow else None
                text_cache[y] = text if text is not None else row_text(row, cols)
        self._stale.clear()
        cursor = s.cursor
        snap = Snapshot(
            cols=cols, rows=rows, cells=tuple(rows_cache), lines=tuple(text_cache),
            cursor=Cursor(cursor.y, min(cursor.x, cols - 1), not cursor.hidden),
            title=s.title, alternate=s.alternate, modes=self.modes,
            generation=self.generation, default=s.default_char,
        )
        self._snapshot = snap
        return snap

    def __repr__(self) -> str:
        return f"<Terminal {self.cols}x{self.rows} generation={self.generation}>"


#: Output that is only printable ASCII lines ended by CR LF (logs, ``seq``,
#: test runners without colour), and how many lines make the fast path
#: worth its checks.
_PLAIN_LINES = re.compile(r"\n?[ -~]*(?:\r\n[ -~]*)*\r?")  # a read may cut a CR LF
_FAST_LINES = 2
#: The same with its SGR sequences taken out (``_styled.SGR``); a read may
#: also cut one, left at its end.
_COLOUR_LINES = re.compile(r"\n?[ -~]*(?:\r\n[ -~]*)*\r?(?:\x1b(?:\[[0-9;]*)?)?")
#: Where a read stops being text, CR, LF and SGR sequences (possessive: no
#: backtracking), and a sequence a read may cut at its end.
_COLOUR_TEXT = re.compile(r"(?:[ -~\r\n]++|\x1b\[[0-9;]*+m)*+")
_CUT_SGR = re.compile(r"\x1b(?:\[[0-9;]*)?")
#: SGR parameters whose dropped codes ``_colour_lines`` remembers.
_MAX_SGR_IGNORED = 4096


class _Dispatch:
    """Tokens to screen operations and query answers (the parser's handler)."""

    def __init__(self, term: Terminal) -> None:
        self.term = term
        s = term._screen
        self.s = s
        self.sgr = Sgr(s, term.unknown)
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
        #: CSI queries met before, by their text (as 7-bit): the call that
        #: logs and answers one at an index (``Terminal._answer``).
        self.queries: dict[str, Callable[[int], None]] = {}
        # CR LF ``n`` times (``newlines``) -> its action.
        self._newlines: dict[int, Callable[[], None]] = {}
        # Two flag switches -> the one doing both (``_then``).
        self._switches: dict[tuple[FlagSwitch, FlagSwitch], FlagSwitch] = {}
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
            "`": one(s.cursor_to_column), "a": one(s.cursor_forward),
            "d": one(s.cursor_to_line), "e": one(s.cursor_down),
            "H": self._cup, "f": self._cup, "J": how(s.erase_in_display),
            "K": how(s.erase_in_line), "L": one(s.insert_lines), "M": one(s.delete_lines),
            "P": one(s.delete_characters), "X": one(s.erase_characters),
            "g": how(s.clear_tab_stop), "h": whole(self._set_ansi_modes),
            "l": whole(self._reset_ansi_modes), "r": self._margins,
            "S": whole(self._scroll_up), "T": whole(self._scroll_down),
            "b": one(self._repeat), "Z": one(s.tab_backward), "I": one(s.tab_forward),
            # HPB and VPB: ECMA-48's backward moves, CUB and CUU in xterm.
            "j": one(s.cursor_back), "k": one(s.cursor_up),
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
            action = _keep(self._newlines, count, made)
        return action

    def prepare(
        self, private: str, params: str, inter: str, final: str,
    ) -> Callable[[], None] | None:
        if final == "m" and not (private or inter) and true_colour(params):
            return None
        action = self._csi_action(private, params, inter, final)
        if action is not None:
            _keep(self.sequences, f"\x1b[{private}{params}{inter}{final}", action)
        return action

    def fuse(self, parts: list[Part]) -> list[Part]:
        """A run's parts (see ``Parser``), with fewer calls doing the same:

        * flag switches commute with SGR, so those of a run up to its first
          other part (a cursor move, a query) become one switch, at the
          first one's place;
        * an SGR that a later one beginning with SGR 0 overrides, with only
          parts that never read the pen in between (flag switches, cursor
          moves, CR), is left out, unless it holds codes counted in
          ``Terminal.unknown``;
        * CR right after CR is left out.

        A failure in a fused part would skip to the end of the last one it
        holds; none of these can fail. Hot path: prompt_toolkit ends every
        frame with ``ESC[?7h ESC[0m ESC[?12l ESC[?25h`` and begins the next
        with ``ESC[?25l ESC[?7l ESC[0m``, then often ``CR CR LF``.
        """
        out: list[Part | None] = []
        group = -1  # where in ``out`` the switch being fused stands
        sgr = -1  # where the last SGR stands, while nothing has read the pen since
        dropped = False
        kinds = self._kinds
        for part in parts:
            action = part[0]
            kind = kinds.get(action)
            if kind is None:
                kind = self._kind(action)
            if kind == _SWITCH:
                if group < 0:
                    group = len(out)
                    out.append(part)
                else:
                    first, at, _ = out[group]  # type: ignore[misc]
                    assert type(first) is FlagSwitch and type(action) is FlagSwitch
                    out[group] = (self._then(first, action), at, part[2])
                continue
            if kind & _SGR:
                if sgr >= 0 and kind & _WIPES:
                    out[sgr] = None
                    dropped = True
                sgr = -1 if kind & _COUNTED else len(out)
            else:
                group = -1
                if kind == _CR:
                    last = out[-1] if out else None
                    if last is not None and last[0] is action:
                        continue
                elif kind != _PEN_FREE:
                    sgr = -1
            out.append(part)
        return [part for part in out if part is not None] if dropped else out  # type: ignore[return-value]

    def _then(self, first: FlagSwitch, then: FlagSwitch) -> FlagSwitch:
        """``first.then(then)``, memoised: runs share their switches
        (``ESC[?7h`` then ``ESC[?12l``...), so a new run's fused switches
        are mostly made already. Bounded as a whole: switches fused from
        fused ones would otherwise pile up with every new order."""
        fused = self._switches.get((first, then))
        if fused is None:
            fused = _keep(self._switches, (first, then), first.then(then))
        return fused

    def _kind(self, action: Callable[[], None] | None) -> int:
        """What ``fuse`` needs to know of a kept action, memoised: the
        actions are those of ``sequences`` and ``controls``, met again and
        again."""
        if type(action) is FlagSwitch:
            kind = _SWITCH
        elif isinstance(action, SgrAction):
            try:
                kind = (_SGR | (_WIPES if action.wipes() else 0)
                        | (_COUNTED if action.counted() else 0))
            except ValueError:
                # A parameter too long to read (over 4,300 digits): running
                # it fails too, and the parser skips it alone; not fused.
                kind = _OTHER
        elif action is self.controls["\r"]:
            kind = _CR
        else:
            func = action.func if type(action) is partial else action
            kind = _PEN_FREE if getattr(func, "__func__", None) in _PEN_FREE_OPS else _OTHER
        return _keep(self._kinds, action, kind)

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
                modes = _ints(params)
                on = final == "h"
                if _FLAG_PRIVATE_MODES.issuperset(modes):
                    shifted = frozenset(m << 5 for m in modes)
                    if shifted.isdisjoint(MOUSE_TRACKING | MOUSE_ENCODING):
                        none: frozenset[int] = frozenset()
                        return FlagSwitch(s, shifted, none) if on else FlagSwitch(s, none, shifted)
                    return partial(s.switch_flags, shifted, on)
                return partial(self._private_modes, modes, on)
            if final in ("J", "K"):
                how = (_ints(params) or [0])[0]
                return partial(s.selective_erase, final == "J", how)
            if final == "W" and _ints(params) == [5]:
                return s.default_tab_stops  # DECST8C
        return None

    def _csi_other(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        """Queries, the title stack, and sequences counted as not understood."""
        a = _ints(params)
        kind = _csi_query(private, a, inter, final)
        if kind is not None:
            text = f"\x1b[{private}{params}{inter}{final}"
            request = Request(kind, text, tuple(a), private)
            ask: Callable[[int], None] = partial(self.term._answer, request, printable(text))
            _keep(self.queries, text, ask)
            ask(index)
        elif inter:
            if (private, inter, final) != ("", '"', "p"):  # DECSCL: nothing to do
                # DECIC/DECDC (column editing) included.
                self.term.unknown[f"CSI {private}{inter}{final}"] += 1
        elif private:  # XTSAVE/XTRESTORE (?s, ?r) included: modes are not saved
            if final not in _SILENT_PRIVATE_FINALS.get(private, "u"):
                self.term.unknown[f"CSI {private}{final}"] += 1
        elif final == "t":
            self._window_ops(a)
        else:  # DA1 with parameters included
            self.term.unknown[f"CSI {final}"] += 1

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
                self.term._ask(Request("da1", "\x1bZ"), index)
            elif final in "no":  # LS2, LS3: G2 or G3 into GL until changed
                s.charset = 2 if final == "n" else 3
            elif final in "NO":  # SS2, SS3: G2 or G3 for the next character
                s.single_shift = 2 if final == "N" else 3
            elif final != "\\":  # a stray ST is harmless
                self.term.unknown[f"ESC {final}"] += 1
        elif inter in ("(", ")", "*", "+") and (final in pyte.charsets.MAPS or final == "A"):
            s.define_charset(final, inter)
        elif inter == "#" and final == "8":
            s.alignment_display()
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
        self.s.dirty.update(range(self.term.rows))

    # -- CSI helpers ----------------------------------------------------------------

    def _cup(self, a: list[int]) -> Callable[[], None]:
        return partial(self.s.cursor_position, a[0] if a else None, a[1] if len(a) > 1 else None)

    def _margins(self, a: list[int]) -> Callable[[], None]:
        return partial(
            self.s.set_margins, a[0] if a else None, a[1] if len(a) > 1 and a[1] else None,
        )

    def _scroll_up(self, a: list[int]) -> None:
        """SU: by the first parameter, whatever follows (xterm's CASE_SU;
        ``CSI ? ... S`` is another sequence)."""
        self.s.scroll_up(a[0] if a else None)

    def _scroll_down(self, a: list[int]) -> None:
        if len(a) <= 1:
            self.s.scroll_down(a[0] if a else None)
        else:  # CSI Ps;Ps;Ps;Ps;Ps T is mouse highlight tracking
            self.term.unknown["CSI T"] += 1

    def _repeat(self, count: int | None) -> None:
        """REP repeats the character printed just before it, and nothing
        when anything else (a control, a sequence, another REP) came in
        between: xterm forgets its ``lastchar`` then."""
        if self.term._parser.printed:
            self.s.repeat_last(count)

    def _set_ansi_modes(self, a: list[int]) -> None:
        self._count_modes(a, "", "h")
        self.s.set_mode(*a)

    def _reset_ansi_modes(self, a: list[int]) -> None:
        self._count_modes(a, "", "l")
        self.s.reset_mode(*a)

    def _count_modes(self, modes: list[int], private: str, final: str) -> None:
        known = _UNDERSTOOD_PRIVATE_MODES if private else KNOWN_ANSI_MODES
        if known.issuperset(modes):
            return
        for mode in modes:
            if mode not in known:
                self.term.unknown[f"CSI {private}{mode}{final}"] += 1

    def _private_modes(self, modes: list[int], on: bool) -> None:
        """DECSET/DECRST (``CSI ? Pm h``/``l``)."""
        if on:
            self._count_modes(modes, "?", "h")
            self.s.set_mode(*modes, private=True)
        else:
            self._count_modes(modes, "?", "l")
            self.s.reset_mode(*modes, private=True)

    def _window_ops(self, a: list[int]) -> None:
        """XTWINOPS (``CSI Ps t``) that are not queries: the title stack."""
        op = a[0] if a else 0
        s = self.s
        if op == 22:
            s.title_stack = [*s.title_stack, s.title][-10:]
        elif op == 23:
            if s.title_stack:
                s.title = s.title_stack.pop()
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
        elif code in _OSC_COLOURS:
            if text == "?":  # otherwise setting a colour: nothing on the screen changes
                self._ask_string(_OSC_COLOURS[code], body, terminator, index)
        elif code in _IGNORED_OSC:
            if code == "4" and text.endswith("?"):
                self._ask_string("osc-palette", body, terminator, index)
        else:
            self.term.unknown[f"OSC {code[:8]}"] += 1

    def _ask_string(self, kind: str, body: str, terminator: str, index: int) -> None:
        text = f"\x1b]{body}{terminator}"
        self.term._ask(Request(kind, text, body=body, terminator=terminator), index)

    def _reset(self) -> None:
        self.s.reset()
        self.term._parser.reset()


_K = TypeVar("_K")
_V = TypeVar("_V")


def _keep(cache: dict[_K, _V], key: _K, value: _V, limit: int = _MAX_SEQUENCES) -> _V:
    """Store ``value`` in a cache of things met before, emptied when full
    (what is met again is soon kept again): memory stays bounded whatever
    a program prints."""
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


#: Screen operations that neither read nor change the pen (LF does: it fills
#: a new row with the pen's background; so do erasures).
_PEN_FREE_OPS = frozenset({
    TermScreen.carriage_return, TermScreen.cursor_up, TermScreen.cursor_down,
    TermScreen.cursor_forward, TermScreen.cursor_back, TermScreen.cursor_to_column,
    TermScreen.cursor_to_line, TermScreen.cursor_position, TermScreen.cursor_down1,
    TermScreen.cursor_up1,
})


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
