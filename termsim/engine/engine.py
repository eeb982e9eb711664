"""The waiting engine: one for live sessions and replays.

Theory of operation
-------------------

A session is a stream of :mod:`termsim.events`. Whoever produces them (the
live PTY source, or a replay walking a recording) hands each one to
:meth:`Engine.apply`, in order. The engine applies it to the terminal
(through :func:`~termsim.engine.playback.apply_to_terminal`, the one place that
says what an event does to a screen) and evaluates the pending waits on
each *settled* screen, waking those that hold. Time and progress come from
a :class:`Source`: a live source's ``run_until`` sleeps while the PTY reader
applies events in the background; a replay's ``run_until`` *is* the
progress, applying recorded events on a virtual clock. That one method is
the whole difference, which is why a replayed failure fails at the same
point with the same screen. Each guarantee below holds for both.

**Settled screens.** Programs draw a frame in pieces: prompt_toolkit hides
the cursor (``ESC[?25l``), draws, and shows it again; modern ones bracket a
frame with a synchronized update (``ESC[?2026h`` ... ``ESC[?2026l``). A read
may end anywhere inside. Waits are evaluated where a frame is complete: when
the cursor is shown, when a synchronized update ends, just before the next
frame starts (so a state drawn and erased within one read is still seen),
and at the end of a read unless a frame is still open. A screen left open
counts once output pauses for ``SETTLE`` seconds; a program that keeps its
cursor hidden for good (top, full-screen apps) is not inside a frame, so
after ``HIDDEN_FRAME`` seconds its screens count at the end of each read.

**Causality.** ``since=mark`` counts only screens drawn from output the
program wrote *after it read* that input. The live source watches the
program's side of the PTY and puts an :class:`~termsim.events.InputRead`
event in the stream at the exact place where the read was seen (after every
byte written before it); screens after it count, and the screen at it once
the program has provably written something since (``answered``). Input
written while the tty was cooked counts from the write (the line discipline
echoes it at once), as does a resize.

**Timers.** Besides screens, time decides three things: a screen left open
settles, :class:`~termsim.Quiet` holds once output has paused, and a wait
with ``stall=`` fails as soon as the program sits reading keys with nothing
to do. The engine computes when the next of these is due and has the source
wake it then (an event that moves a timer wakes the waiting task early, to
look again); on a replay that is virtual time, so the outcome is the same.

Why this module is long: the guarantees above interlock (a timer settles a
screen that a since-mark may not count yet) and are easiest to check in one
place; the film strip (``_film``) and near misses (``_nearmiss``) live apart.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import anyio

from ..emulator.snapshot import Snapshot
from ..emulator.terminal import HistoryMark, Query, Terminal
from ..errors import ArgumentError, Scrub, SessionClosed, _same
from ..events import (
    Event,
    Exit,
    InputRead,
    Output,
    Resize,
    ScreenCompared,
    TtyMode,
    WaitEnded,
    WaitOutcome,
    WaitStarted,
    errored,
    stamp,
)
from .failures import ProcessExited, Stalled, WaitTimeout
from .film import Film
from .nearmiss import Sighting
from .playback import apply_to_terminal
from .predicates import Context, Predicate, PredicateLike, as_predicate

#: Seconds of no output after which a screen still inside a frame counts.
SETTLE = 0.1
#: Seconds after which a cursor still hidden is no longer "a frame being drawn".
HIDDEN_FRAME = 0.25


@dataclass(frozen=True, slots=True)
class Mark:
    """A point in the session: what was sent, and the screen generation then.

    Returned by ``type``, ``press``, ``send`` and ``resize``; pass it as
    ``since=`` so a wait counts only screens the program drew in answer.
    """

    index: int
    generation: int
    at: float
    label: str

    def __str__(self) -> str:
        return f"input #{self.index} ({self.label}) at {self.at:.3f} s"


class Source(Protocol):
    """Where time, progress and tty state come from (a PTY, or a recording).

    What a source gives the engine: the session's clock (:meth:`now`), the
    tty mode (:meth:`input_ready`), the output already there
    (:meth:`catch_up`) and the passing of time (:meth:`run_until`). The
    engine only calls these; it never asks what the source is.

    What it gets: nothing at construction, no pointer back. A source that
    produces events by itself (the live PTY) is handed a :class:`Sink` by
    whoever composes the session, and gives the events to it in order; a
    replay is the session, and applies its recorded events with
    :meth:`Engine.apply` inside :meth:`run_until`. Either way each event is
    applied once, in order, and the engine answers with the replies the
    terminal owes the program.
    """

    def now(self) -> float:
        """Seconds since the session started, on this source's clock."""
        ...

    def input_ready(self) -> bool | None:
        """Whether the program reads its tty in raw mode now (None: unknown)."""
        ...

    def catch_up(self) -> None:
        """Apply the output that is already there (a timer is about to decide
        that the program paused: a late reader must not fool it)."""
        ...

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        """Return when ``event`` is set or the clock reaches ``deadline``.

        ``poll``: a pending predicate reads the tty mode, which changes without
        output; re-check it (``Sink.notify``) on a short timer.
        """
        ...


class Sink(Protocol):
    """What a live source may do to the engine, and nothing more: the
    :class:`Engine` is one, and a PTY source is given it at construction
    (so it holds no engine, and a test can give it a fake)."""

    def apply(self, event: Event) -> bytes:
        """The next event of the session; returns the replies owed to the program."""
        ...

    def take_deferred(self) -> list[Query]:
        """The queries whose replies the policy delays (the source sends each
        after its delay, in order with the output)."""
        ...

    def notify(self) -> None:
        """Something that prints nothing may have changed (the tty mode): look again."""
        ...

    def close(self) -> None:
        """The source is going away: pending waits fail now."""
        ...


@dataclass
class _MarkState:
    mark: Mark
    tracked: bool
    #: Screens with a generation above this count (None: not read yet).
    after: int | None
    #: Bytes of output fed when the input was written (for stall checks).
    fed_at_write: int = 0
    #: Where its transcript starts (the screen when it was written).
    history: HistoryMark | None = None


@dataclass
class _Wait:
    predicate: Predicate
    since: Mark | None
    event: anyio.Event
    started: float
    deadline: float
    stall: float | None
    #: Whether time alone can change the outcome (stall=, Quiet...).
    timed: bool = False
    matched: Snapshot | None = None
    error: BaseException | None = None
    #: Set to make the waiting task look at its timers again (an event moved
    #: one); replaced before each look. ``event`` is set when the wait ends.
    wake: anyio.Event = field(default_factory=anyio.Event)
    last_eligible: int = -1
    #: Near misses: when the whole predicate held on a screen that did not
    #: count, and when each simple part held.
    ineligible: Sighting = field(default_factory=Sighting)
    leaves: list[tuple[Predicate, Sighting]] = field(default_factory=list)


_FRAME_EDGE = re.compile(rb"\x1b\[\?(?:25[lh]|2026[hl])")

#: Receives the wait events (and, from the session, every other event).
Emit = Callable[[Event], None]


class Engine:
    """Pending waits over one :class:`~termsim.Terminal` and one :class:`Source`."""

    def __init__(self, terminal: Terminal, source: Source, emit: Emit | None = None) -> None:
        self.terminal = terminal
        self.source = source
        self.emit: Emit = emit or (lambda event: None)
        self._waits: list[_Wait] = []
        self._exit_event = anyio.Event()
        self.exit_status: int | None = None
        self.exited = False
        self.closed = False
        #: The recording's path, for error messages (None: not recorded).
        self.recording: str | None = None
        #: Applied to every text an error shows (the session's ``redact=``).
        self.scrub: Scrub = _same
        #: When the program last printed (None: never), on the source's clock.
        self.last_output: float | None = None
        #: The tty mode the event stream last reported.
        self.tty_raw: bool | None = None
        self._waits_started = 0
        self.film = Film()
        self._marks: dict[int, _MarkState] = {}
        #: Tracked inputs not read yet, and read but not answered yet (so an
        #: InputRead event costs what is pending, not the session's length).
        self._unread: list[_MarkState] = []
        self._unanswered: list[_MarkState] = []
        self._last_input_at = 0.0
        self._fed_at_last_input = 0
        self._hidden_since: float | None = None
        self._evaluated: tuple[int, bool | None] = (-1, None)
        #: The generation of the last screen that counted as settled.
        self._settled = -1
        #: How many waits have ended so far (a replay yields after each).
        self.resolved = 0

    # -- the event stream ----------------------------------------------------------

    def apply(self, event: Event) -> bytes:
        """Apply the next event of the session; return the replies the terminal owes."""
        match event:
            case Output():
                replies = self._feed(event)
                self._nudge()
                return replies
            case InputRead(index=index, answered=answered):
                self._input_read(index, answered)
            case Resize():
                apply_to_terminal(self.terminal, event)
                for wait in self._waits:
                    misfit = self._misfit(wait.predicate)
                    if misfit is not None and not wait.event.is_set():
                        self._resolve(wait, error=misfit)
                self._evaluate(settled=True)
            case TtyMode(raw=raw):
                self.tty_raw = raw
                self.notify()
                self._nudge()
            case Exit(status=status):
                self.process_exited(status)
            case _:
                apply_to_terminal(self.terminal, event)
        return b""

    def _misfit(self, predicate: Predicate) -> ArgumentError | None:
        """The error for a wait on something outside the screen (it could
        never match: better said at once than after the whole timeout)."""
        cols, rows = self.terminal.cols, self.terminal.rows
        what = predicate.misfit(cols, rows)
        if what is None:
            return None
        return ArgumentError(f"{what} is outside the screen, which is {cols} columns x {rows} "
                          f"rows: waiting for {predicate.describe()} could never succeed")

    def _resolve(self, wait: _Wait, *, matched: Snapshot | None = None,
                 error: BaseException | None = None) -> None:
        self.resolved += 1
        wait.matched, wait.error = matched, error
        wait.event.set()
        wait.wake.set()

    def _nudge(self) -> None:
        """Time-based conditions may have moved (new output, a tty change):
        waits that use timers look at them again."""
        settling = self._settle_due() is not None
        for wait in self._waits:
            if settling or wait.timed:
                wait.wake.set()

    def _feed(self, event: Output) -> bytes:
        """Feed program output to the terminal and wake the waits it satisfies.

        Hot path (``benchmarks/bench_feed.py``): with no wait pending a chunk
        is fed whole. While waits are pending it is fed in pieces that end at
        frame edges (see the module's theory of operation), so every settled
        screen is evaluated, even one that the same read erases.
        """
        self.last_output = event.t
        if not self._waits:
            replies = apply_to_terminal(self.terminal, event)
            self._track_cursor(event.t)
            return replies
        chunk = event.data
        out = []
        start = 0
        for edge in _FRAME_EDGE.finditer(chunk):
            # ESC[?25l and ESC[?2026h open a frame (cut before them), ESC[?25h
            # and ESC[?2026l close one (cut after them).
            opens = chunk[edge.end() - 2:edge.end()] in (b"5l", b"6h")
            cut = edge.start() if opens else edge.end()
            if cut > start:
                out.append(self._feed_piece(event.t, chunk[start:cut], closed=not opens))
                start = cut
        if start < len(chunk):
            out.append(self._feed_piece(event.t, chunk[start:], closed=False))
        return b"".join(out)

    def _feed_piece(self, t: float, piece: bytes, *, closed: bool) -> bytes:
        """Feed one piece; evaluate if it leaves a settled screen. ``closed``:
        the piece ends a frame (cursor shown, or a synchronized update ended)."""
        replies = apply_to_terminal(self.terminal, Output(t, piece))
        self._track_cursor(t)
        if (closed and not self.terminal.synchronized) or self._frame_closed(t):
            self._evaluate(settled=True)
        return replies

    def _track_cursor(self, t: float) -> None:
        if self.terminal.cursor_hidden:
            if self._hidden_since is None:
                self._hidden_since = t
        else:
            self._hidden_since = None

    def _frame_closed(self, t: float) -> bool:
        """No frame is being drawn: no synchronized update is open, and the
        cursor is visible or has been hidden for longer than a frame takes."""
        if self.terminal.synchronized:
            return False
        return self._hidden_since is None or t - self._hidden_since >= HIDDEN_FRAME

    def _settle_due(self) -> float | None:
        """When the current screen counts although a frame is open (None: it counts)."""
        if self.terminal.generation <= self._settled or self._frame_closed(self.source.now()):
            return None
        return (self.last_output or 0.0) + SETTLE

    @property
    def waiting(self) -> bool:
        """Whether any wait is pending (so every screen matters)."""
        return bool(self._waits)

    def take_deferred(self) -> list[Query]:
        """The queries whose replies the policy delays, taken once each."""
        return self.terminal.take_deferred()

    # -- inputs and their reading ---------------------------------------------------

    def input_sent(self, mark: Mark, *, tracked: bool = False) -> None:
        """The driver wrote an input (or resized). ``tracked``: screens count
        from when the program reads it (an :class:`InputRead` event), else
        from now."""
        state = _MarkState(mark, tracked, None if tracked else mark.generation,
                           self.terminal.bytes_fed, self.terminal.history_mark())
        self._marks[mark.index] = state
        if tracked:
            self._unread.append(state)
        self._last_input_at = mark.at
        self._fed_at_last_input = state.fed_at_write
        self.film.input(mark.at, mark.label, mark.generation)
        self._nudge()

    def _input_read(self, index: int, answered: bool) -> None:
        generation = self.terminal.generation
        read = [s for s in self._unread if s.mark.index <= index]
        self._unread = [s for s in self._unread if s.mark.index > index]
        for state in read:
            state.after = generation
        self._unanswered += read
        if answered:
            for state in self._unanswered:
                if state.mark.index <= index and state.after is not None:
                    # The screen right here holds output written after the read.
                    state.after = min(state.after, generation - 1)
            self._unanswered = [s for s in self._unanswered if s.mark.index > index]
        self._evaluated = (-1, None)
        self._evaluate(settled=False)
        self._nudge()

    def _after(self, mark: Mark | None) -> int | None:
        """Screens above this generation count for a wait since ``mark``."""
        if mark is None:
            return -1
        state = self._marks.get(mark.index)
        if state is None or state.mark != mark:
            return mark.generation  # a mark of another session, or made by hand
        return state.after

    def transcript(self, since: Mark | None = None) -> str:
        """The text drawn after ``since`` was written (everything for None), in
        reading order, rows that scrolled off included."""
        state = self._marks.get(since.index) if since is not None else None
        if since is not None and (state is None or state.mark != since):
            raise ArgumentError(f"{since} is not an input of this session")
        return self.terminal.transcript(state.history if state is not None else None)

    def unread(self) -> list[Mark]:
        """Inputs written in raw mode that the program has not read yet."""
        return [s.mark for s in self._unread]

    # -- state ---------------------------------------------------------------------

    def silent_for(self) -> float | None:
        """Seconds since the program last printed (None: it never did)."""
        if self.last_output is None:
            return None
        return self.source.now() - self.last_output

    def snapshot(self) -> Snapshot:
        """The screen now, with what the source knows of the tty mode."""
        return self.terminal.screen.with_input_ready(self.source.input_ready())

    def _context(self, since: Mark | None = None) -> Context:
        return Context(self.source.now(), self.last_output, lambda: self.transcript(since))

    def notify(self) -> None:
        """Re-evaluate pending waits (the tty mode or the time may have changed)."""
        self._evaluate(settled=False)

    def _evaluate(self, *, settled: bool) -> None:
        """Evaluate pending waits against the current screen.

        ``settled``: the screen is complete (a frame edge, a resize...);
        otherwise it counts only if no frame is open or it has settled.
        """
        if not self._waits:
            return
        now = self.source.now()
        generation = self.terminal.generation
        if not settled and generation > self._settled and not self._frame_closed(now):
            due = self._settle_due()
            if due is not None and now < due:
                return  # a frame is being drawn: wait for it, or for a pause
        self._settled = generation
        snap = self.snapshot()
        key = (snap.generation, snap.input_ready)
        fresh_screen = key != self._evaluated
        self._evaluated = key
        if fresh_screen:
            self.film.screen(now, snap)
        for wait in list(self._waits):
            if not wait.event.is_set():
                self._check(wait, snap, self._context(wait.since), now, fresh_screen)

    def _check(self, wait: _Wait, snap: Snapshot, ctx: Context, now: float,
               fresh_screen: bool) -> None:
        after = self._after(wait.since)
        eligible = after is not None and snap.generation > after
        if fresh_screen:
            for leaf, sighting in wait.leaves:
                sighting.saw(now - wait.started, _safe(leaf, snap))
        if not eligible:
            if fresh_screen and _safe(wait.predicate, snap):
                wait.ineligible.saw(now - wait.started, True)
            return
        if snap.generation == wait.last_eligible and not fresh_screen and not wait.timed:
            return  # same screen, same answer
        wait.last_eligible = snap.generation
        try:
            ok = wait.predicate.check(snap, ctx)
        except Exception as exc:
            self._resolve(wait, error=exc)
            return
        if ok:
            self._resolve(wait, matched=snap)

    def process_exited(self, status: int | None) -> None:
        """The program is gone: pending waits fail now, not at their timeout."""
        if self.exited:
            return
        self.exited = True
        self.exit_status = status
        self._evaluate(settled=True)  # the last output may still satisfy a wait
        for wait in self._waits:
            if not wait.event.is_set():
                self._resolve(wait, error=self._exited_error(wait.predicate, wait.started))
        self._exit_event.set()

    def close(self) -> None:
        """The session is closing: pending waits fail with SessionClosed."""
        self.closed = True
        for wait in self._waits:
            if not wait.event.is_set():
                self._resolve(wait, error=SessionClosed(
                    "the session was closed while a wait was pending"))
        self._exit_event.set()

    def _exited_error(
        self, predicate: Predicate | None, started: float | None = None,
    ) -> ProcessExited:
        return ProcessExited(
            status=self.exit_status, snapshot=self.snapshot(),
            awaited=predicate.describe() if predicate else None, predicate=predicate,
            recording=self.recording,
            film=self.film.strip(started) if started is not None else "", scrub=self.scrub,
        )

    # -- timers ----------------------------------------------------------------------

    def _stalled_since(self, wait: _Wait) -> float | None:
        """Since when the program has sat reading keys with nothing to do
        (None: it is not: it is printing, cooked, has input to read, or waits
        for an answer to a query)."""
        if wait.stall is None or self.source.input_ready() is not True or self._unread:
            return None
        fed = self._fed_at_last_input
        if any(q.unanswered and q.offset >= fed for q in self.terminal.queries):
            return None
        return max(self.last_output or 0.0, self._last_input_at)

    def _next_timer(self, wait: _Wait) -> float:
        """When this wait must be looked at again without a new event: its
        deadline, or an earlier timer that is still ahead."""
        now = self.source.now()
        due = [self._settle_due(), wait.predicate.wake_at(self._context())]
        stalled = self._stalled_since(wait)
        if stalled is not None and wait.stall is not None:
            due.append(stalled + wait.stall)
        return min([wait.deadline, *(t for t in due if t is not None and t > now)])

    def _on_timer(self, wait: _Wait) -> None:
        self.source.catch_up()  # output already there is no pause
        if wait.event.is_set():
            return
        now = self.source.now()
        due = self._settle_due()
        self._evaluate(settled=due is not None and now >= due)
        stalled = self._stalled_since(wait)
        if not wait.event.is_set() and stalled is not None and wait.stall is not None \
                and now >= stalled + wait.stall:
            self._resolve(wait, error=self._timeout_error(
                wait, now - wait.started, stalled_for=now - stalled))

    # -- waiting ---------------------------------------------------------------------

    @property
    def waits_started(self) -> int:
        """How many waits have started (each wait's id is its number)."""
        return self._waits_started

    def _started(self, description: str, since: Mark | None, timeout: float) -> tuple[int, float]:
        self._waits_started += 1
        started = self.source.now()
        self.emit(WaitStarted(stamp(started), self._waits_started, description,
                              str(since) if since is not None else None, timeout))
        return self._waits_started, started

    def _ended(self, wait_id: int, outcome: WaitOutcome) -> None:
        self.emit(WaitEnded(stamp(self.source.now()), wait_id, outcome))

    def compared(self, wait_id: int, expected: str, actual: str, golden: str | None) -> None:
        """Put both screens of a screen comparison that wait ``wait_id`` made
        in the session's events, for the recording and its report."""
        self.emit(ScreenCompared(stamp(self.source.now()), wait_id, expected, actual, golden))

    async def wait_for(
        self, predicate: PredicateLike, *, timeout: float, since: Mark | None = None,
        stall: float | None = None, started: Callable[[int], None] | None = None,
    ) -> Snapshot:
        """Wait until ``predicate`` holds on a settled screen drawn after ``since``.

        Returns the snapshot that matched. Raises :class:`WaitTimeout`
        (:class:`Stalled` with ``stall=``), :class:`ProcessExited` or
        :class:`SessionClosed`. ``started`` is told the wait's id as it
        starts, for events about it (:meth:`compared`): other tasks may
        start waits meanwhile, so the id cannot be guessed.
        """
        __tracebackhide__ = True
        pred = as_predicate(predicate).fresh()
        _check_seconds("timeout", timeout)
        if stall is not None:
            _check_seconds("stall", stall)
        if self.closed:
            raise SessionClosed("the session is closed")
        misfit = self._misfit(pred)
        if misfit is not None:
            raise misfit
        wait_id, began = self._started(pred.describe(), since, timeout)
        if started is not None:
            started(wait_id)
        wait = _Wait(pred, since, anyio.Event(), began, began + timeout, stall,
                     timed=stall is not None or pred.wake_at(self._context()) is not None)
        wait.leaves = [(leaf, Sighting()) for leaf in pred.leaves()]
        outcome: WaitOutcome = "timed out"
        self._waits.append(wait)
        try:
            self._evaluated = (-1, None)
            self._evaluate(settled=False)
            if not wait.event.is_set() and self.exited:
                self._resolve(wait, error=self._exited_error(pred))
            while not wait.event.is_set():
                wake = self._next_timer(wait)
                wait.wake = anyio.Event()
                await self.source.run_until(wait.wake, wake, pred.polls)
                if wait.event.is_set():
                    break
                if wait.wake.is_set() and self.source.now() < wake:
                    continue  # nudged: a timer moved, look again
                self._on_timer(wait)
                if not wait.event.is_set() and self.source.now() >= wait.deadline:
                    break
            if wait.matched is not None:
                outcome = "matched"
                return wait.matched
            if wait.error is not None:
                outcome = _outcome_of(wait.error)
                raise wait.error
            raise self._timeout_error(wait, timeout)
        except BaseException as exc:
            if outcome == "timed out" and not isinstance(exc, WaitTimeout):
                outcome = "cancelled" if isinstance(exc, anyio.get_cancelled_exc_class()) \
                    else _outcome_of(exc)
            raise
        finally:
            self._waits.remove(wait)
            self._ended(wait_id, outcome)

    def _timeout_error(self, wait: _Wait, timeout: float, *,
                       stalled_for: float | None = None) -> WaitTimeout:
        return self.timed_out(wait.predicate.describe(), timeout, wait=wait,
                              stalled_for=stalled_for)

    def timed_out(self, awaited: str, timeout: float, *, wait: _Wait | None = None,
                  stalled_for: float | None = None) -> WaitTimeout:
        """The error for ``awaited`` not happening within ``timeout``: the one
        place a :class:`WaitTimeout` is made, so every one shows the same
        evidence (the screen, the silence, queries left unanswered...). A
        session raises it when the program does not read its input."""
        snap = self.snapshot()
        if wait is None:
            return WaitTimeout(
                awaited=awaited, timeout=timeout, snapshot=snap, silent_for=self.silent_for(),
                unanswered=self.terminal.unanswered(), recording=self.recording,
                unknown=dict(self.terminal.unknown), scrub=self.scrub,
            )
        self.film.screen(self.source.now(), snap)
        pred = wait.predicate
        notes = []
        unread = [m for m in self.unread() if wait.since is not None
                  and m.index <= wait.since.index]
        if unread:
            notes.append(f"the program has not read input #{unread[-1].index} "
                         f"({unread[-1].label}) yet, so no screen counts")
        seen = wait.ineligible.describe()
        if seen:
            notes.append(f"the screen matched, but before the program answered "
                         f"{wait.since}: {seen}")
        for leaf, sighting in wait.leaves:
            if sighting.spans and (sighting.spans[-1][1] is not None or not _safe(leaf, snap)):
                notes.append(f"{leaf.describe()}: {sighting.describe()}")
        kind = Stalled if stalled_for is not None else WaitTimeout
        return kind(
            awaited=awaited, timeout=timeout, snapshot=snap,
            silent_for=self.silent_for(), predicate=pred,
            unanswered=self.terminal.unanswered(), explanation=pred.explain(snap),
            since=str(wait.since) if wait.since else "", recording=self.recording,
            unknown=dict(self.terminal.unknown), film=self.film.strip(wait.started),
            notes=notes, stalled_for=stalled_for, scrub=self.scrub,
        )

    async def wait_exit(self, *, timeout: float) -> int | None:
        """Wait for the program to exit; return its status."""
        __tracebackhide__ = True
        _check_seconds("timeout", timeout)
        if not self.exited and not self.closed:
            wait_id, started = self._started("the program to exit", None, timeout)
            outcome: WaitOutcome = "timed out"
            try:
                await self.source.run_until(self._exit_event, started + timeout, False)
                if self.exited:
                    outcome = "matched"
            except BaseException as exc:
                if isinstance(exc, anyio.get_cancelled_exc_class()):
                    outcome = "cancelled"
                raise
            finally:
                self._ended(wait_id, outcome)
            if not self.exited:
                if self.closed:
                    raise SessionClosed("the session was closed while waiting for the exit")
                raise self.timed_out("the program to exit", timeout)
        if not self.exited:
            raise SessionClosed("the session is closed")
        return self.exit_status


def _check_seconds(name: str, value: float) -> None:
    if value is None or not (value >= 0) or math.isnan(value):
        raise ArgumentError(f"{name} must be a number of seconds >= 0, not {value!r}")


def _safe(p: Predicate, snap: Snapshot) -> bool:
    """Whether ``p`` holds on ``snap`` alone (for near-miss reports only)."""
    try:
        return bool(p(snap))
    except Exception:
        return False


def _outcome_of(exc: BaseException) -> WaitOutcome:
    if isinstance(exc, Stalled):
        return "stalled"
    if isinstance(exc, ProcessExited):
        return "program exited"
    if isinstance(exc, SessionClosed):
        return "session closed"
    return errored(type(exc).__name__)
