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

**Screens before the wait.** A program may read a key and draw several
frames before the test's wait has started (the reader and the test are
separate tasks). From an input until the next wait, settled screens are
kept (``KEPT_SCREENS`` at most), and a wait with ``since=`` looks at them
first, in order, each counting only if drawn after the read: so a
``Sequence`` sees every frame whichever task ran first.

**The end of a recording.** A replay knows nothing past its recording's end
(the recorded test's close, or the file's last event); a wait still pending
there fails then (:class:`~termsim.RecordingEnded`), never after silence
the program did not keep.

**Timers.** Besides screens, time decides three things: a screen left open
settles, :class:`~termsim.Quiet` holds once output has paused, and a wait
with ``stall=`` fails as soon as the program sits reading keys with nothing
to do. The engine computes when the next of these is due and has the source
wake it then (an event that moves a timer wakes the waiting task early, to
look again); on a replay that is virtual time, so the outcome is the same.

The three interlock (a timer settles a screen that a since-mark may not
count yet), so their code stays here together; the contract with sources
(``source``), the books of reads (``causality``), a wait's near misses and
errors (``waits``) and the film strip (``film``) live apart. That is why
this module is near 600 lines: what is left is the one loop that keeps the
guarantees above, and splitting it would put half of a rule in another file
(the screen's own state would come apart from it first).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import anyio

from ..emulator.snapshot.region import Region
from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminal.terminal import Query, Terminal
from ..errors import Scrub, SessionClosed, same
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
    stamp,
)
from .activity import Activity
from .causality import Inputs
from .failures import ProcessExited, WaitTimeout, owed
from .film import Film
from .playback import apply_to_terminal
from .predicates import Context, Predicate, PredicateLike, as_predicate, fresh, matched_screen
from .source import Emit, Mark, Sink, Source
from .waits import Wait, check_seconds, exited_error, misfit_error, outcome_of, timeout_error

__all__ = ["HIDDEN_FRAME", "SETTLE", "Emit", "Engine", "Mark", "Sink", "Source"]

#: Seconds of no output after which a screen still inside a frame counts.
SETTLE = 0.1
#: Seconds after which a cursor still hidden is no longer "a frame being drawn".
HIDDEN_FRAME = 0.25
#: Settled screens kept between an input and the wait that follows it (the
#: oldest go first: a test that sends many inputs without waiting).
KEPT_SCREENS = 64


class Engine:
    """Pending waits over one :class:`~termsim.emulator.Terminal` and one :class:`Source`."""

    def __init__(self, terminal: Terminal, source: Source, emit: Emit | None = None) -> None:
        self.terminal = terminal
        self.source = source
        self.emit: Emit = emit or (lambda event: None)
        self._waits: list[Wait] = []
        self._exit_event = anyio.Event()
        self.exit_status: int | None = None
        self.exited = False
        self.closed = False
        #: A replay's recording ended at this time (None: live, or not yet):
        #: nothing past it is known.
        self.ended_at: float | None = None
        #: The recording's path, for error messages (None: not recorded).
        self.recording: str | None = None
        #: Said in every error a wait ends with, under its head: what is
        #: wrong with the evidence itself (a replay of a recording cut short).
        self.caveats: list[str] = []
        #: Applied to every text an error shows (the session's ``redact=``).
        self.scrub: Scrub = same
        #: When the program last printed (None: never), on the source's clock.
        self.last_output: float | None = None
        #: The tty mode the event stream last reported (:class:`TtyMode`),
        #: live as in a replay: the only tty mode the engine knows.
        self.tty_raw: bool | None = None
        self._waits_started = 0
        self.film = Film()
        #: Which inputs the program has read, so which screens count.
        self.inputs = Inputs()
        self._hidden_since: float | None = None
        self._evaluated: tuple[int, bool | None] = (-1, None)
        #: The time of the output being fed, for the frame edges the terminal
        #: reports during the feed (``_frame_edge``).
        self._feeding_at = 0.0
        #: The generation of the last screen that counted as settled.
        self._settled = -1
        #: How many waits have ended so far (a replay yields after each).
        self.resolved = 0
        #: Settled screens drawn since the last input, while no wait was
        #: pending (the next wait looks at them first, in order): a program
        #: may read a key and draw several frames before the test's wait
        #: starts, and ``Sequence`` must still see each.
        self._kept: deque[tuple[float, Snapshot]] = deque(maxlen=KEPT_SCREENS)
        self._keeping = False

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
                report = apply_to_terminal(self.terminal, event)
                for wait in self._waits:
                    misfit = misfit_error(wait.predicate, self.terminal)
                    if misfit is not None and not wait.event.is_set():
                        self._resolve(wait, error=misfit)
                self._evaluate(settled=True)
                return report
            case TtyMode(raw=raw):
                self.tty_raw = raw
                self.notify()
                self._nudge()
            case Exit(status=status):
                self.process_exited(status)
            case _:
                apply_to_terminal(self.terminal, event)
        return b""

    def _resolve(self, wait: Wait, *, matched: Snapshot | None = None,
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

        Hot path (``benchmarks/bench_feed.py``): the chunk is fed whole.
        While waits are pending (or screens are kept for the next one) the
        terminal reports each frame edge as it meets it, with the screen as
        it stands there (see the module's theory of operation), so every
        settled screen is evaluated, even one that the same read erases.
        """
        t = self.last_output = event.t
        if not self._waits and not self._keeping:
            replies = apply_to_terminal(self.terminal, event)
            self._track_cursor(t)
            return replies
        self._feeding_at = t
        self.terminal.on_frame_edge = self._frame_edge
        try:
            replies = apply_to_terminal(self.terminal, event)
        finally:
            self.terminal.on_frame_edge = None
        self._track_cursor(t)
        if self._frame_closed(t):
            self._evaluate(settled=True, now=t)
        return replies

    def _frame_edge(self, opens: bool) -> None:
        """The terminal met a frame edge in the output being fed: just before
        a frame opens (the cursor hidden, a synchronized update begun), the
        screen counts if no frame was open; just after one closes (the
        cursor shown, the update ended), it counts unless an update is
        still open."""
        t = self._feeding_at
        self._track_cursor(t)
        if (not opens and not self.terminal.synchronized) or self._frame_closed(t):
            self._evaluate(settled=True, now=t)

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
        self.inputs.sent(mark, tracked=tracked, fed=self.terminal.bytes_fed,
                         history=self.terminal.history_mark())
        self.film.input(mark.at, mark.label, mark.generation)
        self._keeping = not self._waits
        self._nudge()

    def _input_read(self, index: int, answered: bool) -> None:
        self.inputs.read(index, answered, self.terminal.generation)
        self._evaluated = (-1, None)
        self._evaluate(settled=False)
        self._nudge()

    def transcript(self, since: Mark | None = None) -> str:
        """The text drawn after ``since`` was written (everything for None), in
        reading order, rows that scrolled off included."""
        return self.terminal.transcript(self.inputs.history(since))

    def unread(self) -> list[Mark]:
        """Inputs written in raw mode that the program has not read yet."""
        return self.inputs.unread()

    def awaits_read(self) -> bool:
        """Whether a pending wait counts from an input the program is not
        known to have read (for the source: a wait with ``since=`` decides
        only once the read is in the stream, so the live source asks about
        reads as soon as output comes, not a turn of its loop later)."""
        after = self.inputs.after
        return any(wait.since is not None and not wait.event.is_set()
                   and after(wait.since) is None for wait in self._waits)

    # -- state ---------------------------------------------------------------------

    def silent_for(self) -> float | None:
        """Seconds since the program last printed (None: it never did)."""
        if self.last_output is None:
            return None
        return self.source.now() - self.last_output

    def snapshot(self) -> Snapshot:
        """The screen now, with the tty mode the stream last reported."""
        return self.terminal.screen.with_input_ready(self.tty_raw)

    def _context(self, since: Mark | None = None, now: float | None = None) -> Context:
        after = self.inputs.signals_after(since)
        return Context(self.source.now() if now is None else now, self.last_output,
                       lambda: self.transcript(since), -1 if after is None else after)

    def notify(self) -> None:
        """Re-evaluate pending waits (the tty mode or the time may have changed)."""
        self._evaluate(settled=False)

    def _evaluate(self, *, settled: bool, now: float | None = None) -> None:
        """Evaluate pending waits against the current screen.

        ``settled``: the screen is complete (a frame edge, a resize...);
        otherwise it counts only if no frame is open or it has settled.
        ``now``: the time of the output that made the screen (a live source
        may apply it a little after reading it; a replay applies it at that
        time), so both judge a screen at the same moment.
        """
        if not self._waits and not self._keeping:
            return
        if now is None:
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
            if not self._waits:
                self._kept.append((now, snap))
        for wait in list(self._waits):
            if not wait.event.is_set():
                self._check(wait, snap, self._context(wait.since, now), now, fresh_screen)

    def _check(self, wait: Wait, snap: Snapshot, ctx: Context, now: float,
               fresh_screen: bool) -> None:
        after = self.inputs.after(wait.since)
        eligible = after is not None and snap.generation > after
        if fresh_screen:
            wait.sight(snap, now, eligible=eligible)
            if wait.activity is not None:
                wait.activity.see(snap, now)
        if not eligible:
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
            self._resolve(wait, matched=matched_screen(wait.predicate, snap, ctx))

    def _look_back(self, wait: Wait) -> None:
        """A new wait with ``since=`` first looks at the screens drawn since
        the last input while no wait was pending, in order, on their own
        time: whichever task ran first, the program's first frames in answer
        count (each only if drawn after the read, as always). A wait without
        ``since=`` is about the screen from now on, as before."""
        kept, self._kept = list(self._kept), deque(maxlen=KEPT_SCREENS)
        self._keeping = False
        if wait.since is None:
            return
        for at, snap in kept:
            if wait.event.is_set():
                break
            self._check(wait, snap, self._context(wait.since, at), at, True)

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

    def recording_ended(self, at: float) -> None:
        """A replay reached the end of its recording at ``at``: pending waits
        fail now (:class:`RecordingEnded`), for nothing more can happen."""
        self.ended_at = at
        self._evaluate(settled=True)  # the last output may still satisfy a wait
        for wait in self._waits:
            if not wait.event.is_set():
                self._resolve(wait, error=self.timed_out(
                    wait.predicate.describe(), at - wait.started, wait=wait))
        self._exit_event.set()

    def close(self) -> None:
        """The session is closing: pending waits fail with SessionClosed."""
        self.closed = True
        for wait in self._waits:
            if not wait.event.is_set():
                self._resolve(wait, error=SessionClosed(
                    "the session was closed while a wait was pending"))
        self._exit_event.set()

    def _exited_error(self, predicate: Predicate, started: float | None = None) -> ProcessExited:
        film = self.film.strip(started) if started is not None else ""
        return exited_error(self.exit_status, self.snapshot(), predicate,
                            recording=self.recording, scrub=self.scrub, film=film,
                            caveats=self.caveats)

    # -- timers ----------------------------------------------------------------------

    def _stalled_since(self, wait: Wait) -> float | None:
        """Since when the program has sat reading keys with nothing to do
        (None: it is not: it is printing, cooked, has input to read, or waits
        for an answer to a query)."""
        if wait.stall is None or self.tty_raw is not True or self.unread():
            return None
        fed = self.inputs.fed_at_last
        if any(q.offset >= fed for q in owed(self.terminal.queries)):
            return None
        active = self.last_output if wait.activity is None else wait.activity.changed_at
        return max(active or 0.0, self.inputs.last_at)

    def _next_timer(self, wait: Wait) -> float:
        """When this wait must be looked at again without a new event: its
        deadline, or an earlier timer that is still ahead."""
        now = self.source.now()
        due = [self._settle_due(), wait.predicate.wake_at(self._context())]
        stalled = self._stalled_since(wait)
        if stalled is not None and wait.stall is not None:
            due.append(stalled + wait.stall)
        return min([wait.deadline, *(t for t in due if t is not None and t > now)])

    def _on_timer(self, wait: Wait) -> None:
        self.source.catch_up()  # output already there is no pause
        if wait.event.is_set():
            return
        now = self.source.now()
        due = self._settle_due()
        self._evaluate(settled=due is not None and now >= due)
        stalled = self._stalled_since(wait)
        if not wait.event.is_set() and stalled is not None and wait.stall is not None \
                and now >= stalled + wait.stall:
            self._resolve(wait, error=self.timed_out(
                wait.predicate.describe(), now - wait.started, wait=wait,
                stalled_for=now - stalled))

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
        ignore: tuple[Region, ...] = (),
    ) -> Snapshot:
        """Wait until ``predicate`` holds on a settled screen drawn after ``since``.

        Returns the snapshot that matched. Raises :class:`WaitTimeout`
        (:class:`Stalled` with ``stall=``), :class:`ProcessExited` or
        :class:`SessionClosed`. ``started`` is told the wait's id as it
        starts, for events about it (:meth:`compared`): other tasks may
        start waits meanwhile, so the id cannot be guessed. ``ignore``:
        screen regions whose changes are not activity for ``stall``
        (:mod:`~termsim.engine.activity`).
        """
        __tracebackhide__ = True
        pred = fresh(as_predicate(predicate))
        check_seconds("timeout", timeout)
        if stall is not None:
            check_seconds("stall", stall)
        if self.closed:
            raise SessionClosed("the session is closed")
        misfit = misfit_error(pred, self.terminal)
        if misfit is not None:
            raise misfit
        wait_id, began = self._started(pred.describe(), since, timeout)
        if started is not None:
            started(wait_id)
        wait = Wait(pred, since, anyio.Event(), began, began + timeout, stall,
                    timed=stall is not None or pred.wake_at(self._context()) is not None,
                    wake=anyio.Event())
        if ignore and stall is not None:
            wait.activity = Activity(ignore, self.last_output or 0.0)
        outcome: WaitOutcome = "timed out"
        self._waits.append(wait)
        try:
            self._look_back(wait)
            self._evaluated = (-1, None)
            self._evaluate(settled=False)
            if not wait.event.is_set() and self.exited:
                self._resolve(wait, error=self._exited_error(pred))
            elif not wait.event.is_set() and self.ended_at is not None:
                self._resolve(wait, error=self.timed_out(pred.describe(), 0.0, wait=wait))
            while not wait.event.is_set():
                wake = self._next_timer(wait)
                if wait.wake.is_set():
                    wait.wake = anyio.Event()
                # A stall is about a program sitting raw: the tty's mode
                # matters to it as to a predicate that reads it.
                await self.source.run_until(wait.wake, wake, pred.polls or stall is not None)
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
                outcome = outcome_of(wait.error)
                raise wait.error
            raise self.timed_out(pred.describe(), timeout, wait=wait)
        except BaseException as exc:
            if outcome == "timed out" and not isinstance(exc, WaitTimeout):
                outcome = "cancelled" if isinstance(exc, anyio.get_cancelled_exc_class()) \
                    else outcome_of(exc)
            raise
        finally:
            self._waits.remove(wait)
            self._ended(wait_id, outcome)

    def timed_out(self, awaited: str, timeout: float, *, wait: Wait | None = None,
                  stalled_for: float | None = None) -> WaitTimeout:
        """The error for ``awaited`` not happening within ``timeout``: the one
        place a :class:`WaitTimeout`'s evidence is gathered, so every one shows
        the same (the screen, the silence, queries left unanswered...). A
        session raises it when the program does not read its input."""
        snap = self.snapshot()
        film = ""
        if wait is not None:
            self.film.screen(self.source.now(), snap)
            film = self.film.strip(wait.started)
        return timeout_error(awaited, timeout, snap, self.terminal, silent_for=self.silent_for(),
                             recording=self.recording, scrub=self.scrub, wait=wait, film=film,
                             unread=self.unread(), stalled_for=stalled_for,
                             ended_at=self.ended_at, last_output=self.last_output,
                             caveats=self.caveats)

    async def wait_exit(self, *, timeout: float) -> int | None:
        """Wait for the program to exit; return its status."""
        __tracebackhide__ = True
        check_seconds("timeout", timeout)
        if not self.exited and not self.closed and self.ended_at is not None:
            raise self.timed_out("the program to exit", 0.0)
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
                raise self.timed_out("the program to exit", self.source.now() - started
                                     if self.ended_at is not None else timeout)
        if not self.exited:
            raise SessionClosed("the session is closed")
        return self.exit_status

