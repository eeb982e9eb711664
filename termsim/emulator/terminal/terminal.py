"""The sans-IO terminal: bytes from a program in, replies and screens out.

Theory of operation
-------------------

``Terminal.feed(data)`` decodes UTF-8 incrementally (``surrogateescape``, so
every byte keeps its offset and an undecodable byte is drawn as U+FFFD) and
hands the text to ``_run``. The tokenizer (``tokenizer.py``) calls the
dispatcher (``Dispatch``, ``dispatch.py``), which drives a corrected pyte
screen (``screen.py``); SGR, the commonest sequence, has its own module
(``sgr.py``). A query (``ESC[6n`` and friends) is answered the moment the
tokenizer reaches it, from the state the bytes *before* it produced: that is
what a real terminal does, and what prompt_toolkit relies on. The dispatcher
only recognises which kind of query a sequence is; the answer comes from the
table in ``queries.py``. The replies of one ``feed()`` are returned in
order; the caller writes them to the program.

Every query and its fate is logged in ``Terminal.queries``; how each kind is
answered is a policy (``"answer"``, ``"ignore"`` or a delay in seconds),
which is how a session reproduces a terminal that never answers CPR, or one
that answers late. Sequences termsim does not understand are counted in
``Terminal.unknown``, never silently dropped, and no byte sequence raises out
of ``feed()`` or loses the bytes after it.

One way into the screen
-----------------------

Every byte goes in through ``_run``, and the plain path from there is
tokenizer -> ``Dispatch`` method -> ``TermScreen`` operation. Three
shortcuts skip part of it; each sits behind one primitive, has a switch that
only tests turn off, and a property test in ``tests/test_fast_paths.py``
holds the screen, the replies and their offsets equal to the plain path:

* kept text rows: a read made only of lines skips the tokenizer for the
  rows it scrolls off at once (``TermScreen.feed_lines``, called from
  ``lines.py``; switch ``Terminal.fast_lines``);
* kept CSI queries: a query met before is a ready call the tokenizer makes
  itself at the query's index (``Dispatch.keep_query``; switch
  ``Dispatch.keep_queries``); other CSI sequences met before are ready calls
  too (``Dispatch.sequences``);
* fused runs: a run of CSI sequences, CR and LF is learnt once and run as
  fewer calls (``Dispatch.fuse``; switch ``Dispatch.fuse_runs``).

This module imports nothing that does I/O: no os, no clock, no event loop.
Why it exists apart from the dispatcher: ``Terminal`` owns the state a test
reads (the snapshot and its cache, the offsets, the query log, the
transcript), the dispatcher only the rules from tokens to operations.
"""

from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Callable, Mapping
from typing import NamedTuple

from pyte import modes as mo
from pyte.screens import Char

from ..answers.queries import (
    QUERY_KINDS,
    Policy,
    Query,
    check_policy,
    printable,
)
from ..parsing.decoding import XtermUtf8Decoder
from ..parsing.tokenizer import Parser
from ..parsing.unknown import UnknownCounts
from ..screen.screen import TermScreen, TextRow
from ..signals.log import SignalLog
from ..snapshot.snapshot import Cursor, Modes, Snapshot, row_text
from ..terminals.emulation import Emulation
from ..terminals.profiles import Profile, profile_named
from .answers import QUERY_LOG as QUERY_LOG
from .answers import TerminalAnswers, inband_resize_report
from .dispatch import Dispatch
from .hygiene import Leftover, leftovers, modes_on
from .lines import FAST_LINES, LinesFastPath
from .signals import TerminalSignals

__all__ = ["QUERY_KINDS", "Policy", "Query", "Terminal", "printable"]


_MOUSE_MODES = ((1003, "any"), (1002, "button"), (1000, "normal"), (9, "x10"))
_MOUSE_ENCODINGS = ((1006, "sgr"), (1015, "urxvt"), (1005, "utf8"))


class HistoryMark(NamedTuple):
    """What :meth:`Terminal.transcript` counts from (see :meth:`Terminal.history_mark`)."""

    lines: tuple[str, ...]
    scrolled: int


class Terminal(LinesFastPath, TerminalSignals, TerminalAnswers):
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
        emulation: Emulation | None = None, profile: str | Profile = "xterm",
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
        #: Sequences termsim did not understand, counted by kind (at most
        #: ``unknown.MAX_UNKNOWN_KINDS`` kinds, the rest as ``"other"``).
        self.unknown: Counter[str] = UnknownCounts()
        #: What the program said outside the cells (``signals.py``).
        self._signals = SignalLog()
        #: Modes a fresh terminal has off that are on, and since when (the
        #: clock and output byte of the read that turned each on).
        self._modes_on: frozenset[str] = frozenset()
        self._on_since: dict[str, tuple[float | None, int]] = {}
        #: The terminal it answers as (``termsim profiles`` lists them).
        self.profile = profile_named(profile)
        #: Where terminals disagree, which way this one goes: the profile's
        #: unless said (``Terminal(profile="kitty")`` draws as
        #: ``spawn(profile="kitty")`` does).
        self.emulation = emulation or self.profile.emulation
        self._screen = TermScreen(cols, rows, profile=self.profile, emulation=self.emulation,
                                  cell_size=cell_size, term_name=term,
                                  on_inband_resize=self._inband_resize)
        self._dispatch = Dispatch(self, self._signals)
        self._parser = Parser(self._dispatch)
        self._decoder: codecs.IncrementalDecoder = (
            XtermUtf8Decoder() if self.emulation.invalid_utf8 == "xterm"
            else codecs.getincrementaldecoder("utf-8")("surrogateescape"))
        self._replies: list[bytes] = []
        #: Called at each frame edge while set (``_frame_edge``): the engine
        #: sets it while a wait may look at the screens a read draws, so
        #: that the screen before a frame opens and after it closes is seen
        #: even when the same read draws the next frame. The terminal is the
        #: only parser of the output: nothing else reads it to find them.
        self.on_frame_edge: Callable[[bool], None] | None = None
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
        #: The same without trailing blanks (what ``Snapshot.text`` joins).
        self._stripped_cache: list[str] = ["" for _ in range(rows)]
        self._stale: set[int] = set()
        self._state = self._signature()
        self._snapshot: Snapshot | None = None

    def feed(self, data: bytes, t: float | None = None) -> bytes:
        """Process output from the program; return the replies it is owed.

        ``t``: the session's time the output was read at, if the caller has
        a clock: what the program says outside the cells (a bell, a title)
        is stamped with it (``Snapshot.bells``...).

        Never raises for any input, and never loses the bytes after a
        sequence it could not handle. Hot path: ``benchmarks/bench_feed.py``.
        """
        if not data:
            return b""
        if t is not None:
            self._signals.clock = t
        self._signals.generation = self.generation + 1
        self.bytes_fed += len(data)
        text = self._decoder.decode(data)
        self._run(text)
        return self._finish_feed()

    def _run(self, text: str) -> None:
        """The one way into the screen: decoded text to the tokenizer, which
        calls ``Dispatch``, which calls the screen. A read of lines may
        first go the kept text rows way (``_lines``, the one exception, at
        this one place: see the module's docstring); ``fast_lines`` off, it
        never does."""
        parser, screen = self._parser, self._screen
        if self.fast_lines and (screen.unbuilt or len(text) >= FAST_LINES * 8):
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

    def _finish_feed(self) -> bytes:
        self._settle()
        if not self._replies:
            return b""
        replies = b"".join(self._replies)
        self._replies.clear()
        return replies

    def _frame_edge(self, opens: bool) -> None:
        """The dispatcher met a frame edge: ``opens`` just before a sequence
        that hides the cursor or begins a synchronized update takes effect,
        not ``opens`` just after one that shows it or ends the update (a
        combined one, ``ESC[?25;2026l``, is both). The listener, if any,
        sees the screen as it stands at that byte: the generation is
        settled first, and what the rest of the read changes is a later one."""
        listener = self.on_frame_edge
        if listener is not None:
            self._settle()
            self._signals.generation = self.generation + 1
            listener(opens)

    def _settle(self) -> None:
        """Count what the screen changed since the last settling as one new
        generation (the rows to copy into the next snapshot, the modes a
        program must turn off again)."""
        screen = self._screen
        shifted = screen.take_shifted()
        if shifted:
            self._shift(shifted)
        if screen.dirty:
            self._stale.update(screen.dirty)
            screen.dirty.clear()
            self.generation += 1
            state = self._signature()
            if state != self._state:
                self._state = state
                self._follow_modes()
        else:
            state = self._signature()
            if state != self._state:
                self._state = state
                self.generation += 1
                self._follow_modes()

    def _shift(self, k: int) -> None:
        """The whole screen scrolled ``k`` rows up since the last feed
        (``TermScreen._shift_rows``, whose ``dirty`` already says which rows
        changed, where they are now): the copies of the rows that only
        moved move too, and the next snapshot copies only the changed ones
        (after a read of a few lines, a few rows, not the whole screen)."""
        rows, stale = self.rows, self._stale
        if k >= rows or len(stale) >= rows:
            stale.update(range(rows))
            return
        cells, text, stripped = self._rows_cache, self._text_cache, self._stripped_cache
        cells[:] = cells[k:] + cells[:k]
        text[:] = text[k:] + text[:k]
        stripped[:] = stripped[k:] + stripped[:k]
        moved = [y - k for y in stale if k <= y < rows]
        stale.clear()
        stale.update(moved)
        stale.update(range(rows - k, rows))

    def _signature(self) -> tuple[object, ...]:
        s = self._screen
        c = s.cursor
        return (c.x, c.y, c.hidden, s.title, frozenset(s.mode), s.alternate,
                s.cursor_shape, s.application_keypad, self._signals.count)

    def _follow_modes(self) -> None:
        """Note when each mode a program must turn off again turned on (for
        :meth:`leftovers`); run when the modes, cursor or title changed."""
        on = modes_on(self._screen)
        if on != self._modes_on:
            for key in on - self._modes_on:
                self._on_since[key] = (self._signals.clock, self.bytes_fed)
            self._modes_on = on

    def leftovers(self) -> list[Leftover]:
        """What the program left on that a fresh terminal has off (the
        alternate screen, mouse tracking, bracketed paste, a hidden
        cursor...), each with the sequence that undoes it: a program that
        exits should leave none (see ``hygiene.py``)."""
        return leftovers(self._screen, self._on_since)

    def resize(self, cols: int, rows: int) -> bytes:
        """Change the size, as a terminal window does; the program is told
        separately (the PTY's SIGWINCH), by whoever owns the program.
        Returns what the terminal owes the program for it: the in-band
        resize report, where the program asked for one (mode 2048)."""
        if cols < 1 or rows < 1:
            raise ValueError(f"a terminal needs at least 1x1 cells, not {cols}x{rows}")
        self._screen.settle()
        self._screen.resize(rows, cols)
        self._rows_cache = [{} for _ in range(rows)]
        self._text_cache = [" " * cols for _ in range(rows)]
        self._stripped_cache = ["" for _ in range(rows)]
        self._stale = set(range(rows))
        self._screen.dirty.clear()
        self._screen.take_shifted()  # every row is copied again anyway
        self.generation += 1
        self._state = self._signature()
        return inband_resize_report(self._screen) or b""

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
    def scrolled(self) -> int:
        """How many rows have scrolled off the top so far (more than the
        history keeps)."""
        return self._screen.scrolled

    @property
    def cursor_hidden(self) -> bool:
        """The program hid the cursor (``ESC[?25l``): usually, it is drawing a frame."""
        return bool(self._screen.cursor.hidden)

    @property
    def synchronized(self) -> bool:
        """A synchronized update (``ESC[?2026h``) is open: the frame is not done."""
        return 2026 << 5 in self._screen.mode

    @property
    def cell_size(self) -> tuple[int, int]:
        """A cell's (width, height) in pixels, as pixel reports say."""
        return self._screen.cell_size

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
        if 1016 << 5 in mode and s.offers(1016):
            encoding = "sgr-pixels"
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
            # Flags a terminal without the protocol ignores are in force nowhere.
            kitty_keyboard=s.kitty_flags if s.profile.kitty_keyboard else 0,
            modify_other_keys=s.modify_other_keys,
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
        stripped = self._stripped_cache
        buffer = s.buffer
        for y in self._stale:
            if y < rows:
                line = buffer.get(y)
                if type(line) is TextRow and line.raw is not None:
                    # No cells yet: the snapshot makes them if asked.
                    rows_cache[y] = line.raw
                    text = line.text
                else:
                    row = dict(line) if line else {}
                    rows_cache[y] = row
                    # A row that still knows its text (TextRow) saves rebuilding it.
                    text = line.text if type(line) is TextRow else None
                    if text is None:
                        text = row_text(row, cols)
                text_cache[y] = text  # type: ignore[assignment]
                stripped[y] = text.rstrip()  # type: ignore[union-attr]
        self._stale.clear()
        cursor = s.cursor
        signals = self._signals
        if signals.running_command is not None:
            signals.running(self._output_between)
        snap = Snapshot(
            cols=cols, rows=rows, cells=tuple(rows_cache), lines=tuple(text_cache),
            cursor=Cursor(cursor.y, min(cursor.x, cols - 1), not cursor.hidden),
            title=s.title, alternate=s.alternate, modes=self.modes,
            generation=self.generation, default=s.default_char, signals=signals.signals,
            stripped=tuple(stripped),
        )
        self._snapshot = snap
        return snap

    def __repr__(self) -> str:
        return f"<Terminal {self.cols}x{self.rows} generation={self.generation}>"
