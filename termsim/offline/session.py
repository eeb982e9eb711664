"""Offline replay: a recording drives the same Terminal and the same Engine.

The replay is a :class:`~termsim.engine.source.Source` whose ``run_until`` *is* the
program: it applies the recorded events (output, tty mode changes, replies,
the program's reads, the exit) to the engine in order, on a virtual clock,
until the wait's event is set or the clock reaches the wait's deadline. It
never goes past the next recorded input or resize: the program got those
from the test, and what followed may have been its answer, so it waits
until the test sends them. So a test
written against ``spawn`` runs unchanged against ``replay``, and fails at
the same point with the same screen; a two-minute boot hang reaches its
``WaitTimeout`` in milliseconds.

Input the test sends is checked against the input recorded at that point;
output recorded before that input is applied first, exactly as the live
session had read it. Query replies are recomputed by the terminal, never
copied from the file. The recorded waits and notes belong to the run that
made the file and are not replayed: the test's own waits are what run now,
and they reach the replay's listeners as events, as in a live session.
Every event the replay plays enters its
:class:`~termsim.engine.stream.EventStream`, as a live session's do: recorded
for its listeners, then applied to the engine, in that order.

**When the clock moves.** Several tasks may use one replay (a test waits in
one task and types in another), and a replayed event may wake one of them.
Live, time passes between two events, so a woken task acts before the next
one; here the rule is explicit: the virtual clock moves on (to the next
recorded event, or to the earliest deadline of the pending waits) only once
every other task is blocked (:func:`~termsim.offline.idle.others_blocked`):
waiting on this replay, on another task, on I/O or on a timer. It is checked
after an event that ended a wait, and whenever nothing recorded is due
before the earliest deadline (the program waits for the test, or for time).
So a replay decides the same however many scheduler turns a task takes to
come back with its next input, and on trio as on asyncio.
"""

from __future__ import annotations

import os
import random
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import replace

import anyio

from ..emulator.snapshot.region import Region
from ..emulator.terminals.xterm import printable
from ..engine.driver import Driver
from ..engine.engine import Engine
from ..engine.playback import terminal_for
from ..engine.source import Mark
from ..engine.stream import EventStream
from ..engine.unawaited import verb
from ..errors import ArgumentError, ReplayDivergence, surface, surface_sync
from ..events import (
    Event,
    Exit,
    Hangup,
    Input,
    InputRead,
    Output,
    Reply,
    Resize,
    TtyMode,
    Warned,
)
from ..recording.format import Recording
from ..recording.redact import CONTINUED
from .idle import others_blocked
from .perturb import Perturbation, parse, random_variant


class ReplaySession(Driver):
    """What :func:`termsim.replay` returns: a session whose program is a file."""

    def __init__(self, recording: Recording, *, speed: float | None = None,
                 strict: bool = True, timeout: float = 10.0, stall: float | None = None,
                 perturb: Perturb = None, hygiene: bool | None = None,
                 ignore: Region | Sequence[Region] | None = None) -> None:
        super().__init__(timeout=timeout, stall=stall, hygiene=hygiene, ignore=ignore)
        if speed is not None and not speed > 0:
            raise ArgumentError(f"speed must be > 0, not {speed!r}")
        self.recording = recording
        self.speed = speed
        self.strict = strict
        self._terminal = terminal_for(recording)
        self._engine = Engine(self._terminal, self, self._emit)
        self._stream = EventStream(self._emit, self._engine)
        self._engine.recording = recording.path
        #: Inputs that did not match the recording (lenient mode).
        self.divergences: list[str] = []
        #: The variant of the recording this replay plays (see ``_perturb``).
        self.perturbation = as_perturbation(perturb, recording.events)
        self._events = self.perturbation.apply(recording.events) \
            if self.perturbation else recording.events
        self._next = 0
        self._clock = 0.0
        self._closed = False
        #: The deadlines of the tasks waiting in run_until.
        self._sleepers: list[float] = []
        #: Recorded inputs and resizes met so far (the recording's own mark
        #: numbers), and, per mark of this replay, the last recorded one it
        #: stands for: a test may send in one write what was recorded as
        #: several (a person's keys), and the recording's read reports
        #: count in the recording's numbers (``_own_index``).
        self._recorded_marks = 0
        self._mark_ends: list[int] = []
        #: What is left of a recorded input the test sent part of.
        self._left_over: Input | None = None
        if not recording.complete:
            # Not a Python warning: a replay of a crashed run's recording is
            # what a suite under ``-W error`` must still be able to run.
            self.warnings.append(incomplete(recording))
            self._engine.caveats.append(self.warnings[-1])

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("exited" if self._engine.exited else "replaying")
        return f"<termsim.ReplaySession {self.recording.path!r} at {self._clock:.3f} s {state}>"

    # -- the Source protocol -------------------------------------------------------

    def now(self) -> float:
        """The replay's virtual clock: seconds into the recording."""
        return self._clock

    def catch_up(self) -> None:
        """Nothing to do: the clock stands still between recorded events."""

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        """Apply recorded events until ``event`` is set or the virtual clock
        reaches ``deadline``.

        Several tasks may wait at once, each in this loop. The clock only
        moves to the next recorded event, or to the earliest deadline of all
        of them, and only once every other task is blocked (the module's
        rule): live, time passes between two events, and a task woken by one
        (to send the next input, say) acts before the next.
        """
        self._sleepers.append(deadline)
        try:
            await anyio.lowlevel.checkpoint()
            while not event.is_set() and self._clock < deadline:
                upcoming = self._events[self._next] if self._next < len(self._events) else None
                if upcoming is not None and not self._blocked(upcoming) \
                        and upcoming.t <= min(self._sleepers):
                    await self._advance_clock_async(upcoming.t)
                    self._next += 1
                    if isinstance(upcoming, Input | Resize):  # lenient, not sent by the test
                        what = upcoming.label if isinstance(upcoming, Input) else \
                            f"resize {upcoming.cols}x{upcoming.rows}"
                        self._diverge(f"the test did not send {what}; replayed as recorded")
                    await self._apply_and_yield(upcoming)
                    continue
                # Nothing recorded happens before the earliest deadline (or the
                # program waits for the test): other tasks first, then the clock.
                if await self._others_moved(event):
                    continue
                end = self._end_of_recording(upcoming)
                if end is not None and min(self._sleepers) > end:
                    # What the program did after the recording's end was never
                    # recorded: pending waits end there, not at a deadline
                    # reached through silence the replay would invent.
                    await self._advance_clock_async(end)
                    self._engine.recording_ended(end)
                    return
                await self._advance_clock_async(min(self._sleepers))
        finally:
            self._sleepers.remove(deadline)

    def _end_of_recording(self, upcoming: Event | None) -> float | None:
        """When the recording ends, if nothing is left that the replay could
        still play (None: an event is still to come, or the test's own
        input is awaited): the recorded test's close, or the last event."""
        if isinstance(upcoming, Hangup):
            return max(upcoming.t, self._clock)
        if upcoming is None:
            return max(self._events[-1].t if self._events else 0.0, self._clock)
        return None

    def _blocked(self, event: Event) -> bool:
        """The program cannot go past this event before the test acts: an input
        or resize it has not sent (strict), or the recorded test's close."""
        return isinstance(event, Hangup) or (self.strict and isinstance(event, Input | Resize))

    async def _others_moved(self, event: anyio.Event) -> bool:
        """Let the other tasks run until every one is blocked; whether they
        moved the replay (an event applied, an input taken, a wait's
        deadline added or gone) or set ``event``."""
        before = (self._next, self._clock, min(self._sleepers))
        await others_blocked()
        return event.is_set() or (self._next, self._clock, min(self._sleepers)) != before

    async def _apply_and_yield(self, event: Event) -> None:
        """Apply an event; if it ended a wait, let the woken tasks run until
        they block before the next, as they would live, where time passes
        between two events."""
        before = self._engine.resolved
        self._apply(event)
        if self._engine.resolved != before:
            await others_blocked()

    def _advance_clock(self, t: float) -> None:
        self._clock = max(self._clock, t)

    async def _advance_clock_async(self, t: float) -> None:
        if self.speed is not None and t > self._clock:
            await anyio.sleep((t - self._clock) / self.speed)  # watching at real speed
        self._advance_clock(t)

    def _apply(self, event: Event) -> None:
        """What the program did, as the live session saw it (the replies it is
        owed were written at the time; here they go nowhere)."""
        self._advance_clock(event.t)
        match event:
            case InputRead(index=index):
                own = self._own_index(index)
                if own:
                    self._stream.enter(replace(event, index=own))
            case Output() | Resize() | TtyMode() | Reply() | Exit():
                if isinstance(event, Resize):
                    self._recorded_marks += 1
                self._stream.enter(event)
            case Input():
                self._recorded_marks += 1
                self._stream.enter(event)  # lenient mode, an input the test did not send
            case Warned(message=message):
                self.warnings.append(message)
                self._stream.enter(event)
            case _:
                pass  # the recorded run's inputs, waits and notes

    # -- lifecycle -----------------------------------------------------------------------

    async def aclose(self) -> None:
        self._closed = True
        self._engine.close()

    # -- input -----------------------------------------------------------------------------

    async def _catch_up_to(self, kind: type[Input] | type[Resize], label: str) -> Event | None:
        """Apply the events before the next ``kind`` event; return it (consumed)."""
        if self._closed:
            raise self._closed_error(label)
        j = self._next
        while j < len(self._events) and not isinstance(self._events[j], kind):
            j += 1
        if j >= len(self._events):
            what = "input" if kind is Input else "resize"
            self._diverge(f"{label}: the recording has no more {what} here")
            return None
        while self._next < j:
            upcoming = self._events[self._next]
            await self._advance_clock_async(upcoming.t)
            self._next += 1
            await self._apply_and_yield(upcoming)
        found = self._events[j]
        await self._advance_clock_async(found.t)
        self._next = j + 1
        self._recorded_marks += 1
        return found

    def _own_index(self, recorded: int) -> int:
        """This replay's mark up to which a recorded read report (``read every
        input up to ``recorded``) says the program has read: the last mark
        all of whose recorded inputs are that old (0: none)."""
        return bisect_right(self._mark_ends, recorded)

    async def _rest_of(self, data: bytes, recorded: Input, label: str) -> Input:
        """The recorded inputs that, with ``recorded``, make ``data``: text
        typed in one write by the test that a person typed key by key (the
        program's echo between the keys is played as recorded)."""
        got = recorded.data
        while len(got) < len(data) and data.startswith(got):
            j = self._next
            while j < len(self._events) and not isinstance(self._events[j], Input | Resize):
                j += 1
            upcoming = self._events[j] if j < len(self._events) else None
            if not isinstance(upcoming, Input) or upcoming.secret:
                break
            following = await self._catch_up_to(Input, label)
            assert isinstance(following, Input)
            got += following.data
        return replace(recorded, data=got)

    async def _rest_of_secret(self, recorded: Input, data: bytes, label: str, *,
                              secret: bool) -> None:
        """Take the recorded inputs that held the rest of a secret the test
        sends in one write (as codegen writes it).

        A secret redaction found across inputs is masked a character for a
        character, and each input after the first is labelled as its rest
        (``CONTINUED``): those are taken while they make up no more
        characters than the test sends (all of them when it sends none, a
        replay without the secret). A test's own secret also takes the
        secret inputs that follow with no output between them (a password
        typed key by key, nothing echoed), unless it sends one character
        (then it types key by key too)."""
        have = len(recorded.data.decode("utf-8", "replace"))
        want = len(data.decode("utf-8", "replace"))
        while True:
            j = self._next
            drawn = False
            while j < len(self._events) and not isinstance(self._events[j], Input | Resize):
                drawn = drawn or isinstance(self._events[j], Output)
                j += 1
            upcoming = self._events[j] if j < len(self._events) else None
            if not isinstance(upcoming, Input) or not upcoming.secret:
                return
            if upcoming.label.endswith(CONTINUED):
                size = len(upcoming.data.decode("utf-8", "replace"))
                if want and have + size > want:
                    return
                have += size
            elif not (secret and not drawn and want != 1):
                return
            await self._catch_up_to(Input, label)

    def _diverge(self, message: str) -> None:
        # The labels quoted are a recording's: shown, not obeyed, by a terminal.
        message = printable(f"replay diverged at {self._clock:.3f} s: {message}")
        if self.strict:
            raise ReplayDivergence(message)
        self.divergences.append(message)

    async def _send_input(self, data: bytes, label: str, *, keys: bool, secret: bool) -> Mark:
        recorded: Event | None
        if self._left_over is not None:
            recorded, self._left_over = self._left_over, None
        else:
            recorded = await self._catch_up_to(Input, label)
        if isinstance(recorded, Input) and recorded.secret:
            await self._rest_of_secret(recorded, data, label, secret=secret)
        if isinstance(recorded, Input) and not recorded.secret and recorded.data != data:
            if data.startswith(recorded.data):
                recorded = await self._rest_of(data, recorded, label)
            if data and recorded.data.startswith(data) and recorded.data != data:
                # Recorded as one read (a person's fast keys), sent by the
                # test as several calls: the rest is the next call's.
                self._left_over = replace(recorded, data=recorded.data[len(data):])
                recorded = replace(recorded, data=data)
        tracked = isinstance(recorded, Input) and recorded.tracked
        self._mark_ends.append(self._recorded_marks)
        mark = self._mark(label, tracked=tracked)
        if isinstance(recorded, Input):
            secret = secret or recorded.secret
            # A secret was recorded as a mask: there is nothing to compare.
            if not recorded.secret and recorded.data != data:
                self._diverge(f"{label} sends {data!r}, the recording has "
                              f"{recorded.data!r} ({recorded.label})")
        self._stream.enter(Input(mark.at, data, label, secret, tracked))
        return mark

    @verb
    @surface
    async def resize(self, cols: int, rows: int) -> Mark:
        """Resize as the recording did (a different size is a divergence)."""
        recorded = await self._catch_up_to(Resize, f"resize {cols}x{rows}")
        if isinstance(recorded, Resize):
            if (recorded.cols, recorded.rows) != (cols, rows):
                self._diverge(f"resize to {cols}x{rows}, the recording has "
                              f"{recorded.cols}x{recorded.rows}")
            self._stream.enter(recorded)
        self._mark_ends.append(self._recorded_marks)
        return self._mark(f"resize {cols}x{rows}")


def incomplete(recording: Recording) -> str:
    """The warning a replay of a recording cut short carries (the session
    crashed or was killed before it closed the file): what the replay
    cannot know, so that no error it ends with is taken for the whole
    story."""
    return (f"the recording is incomplete: it stops at byte {recording.stopped_at} of "
            f"{recording.size}, {recording.duration:.2f} s in (the session did not close: "
            "a crash or a kill); what the program did after that was never recorded")


Perturb = Perturbation | str | int | None


def as_perturbation(perturb: Perturb, events: list[Event]) -> Perturbation:
    """A variant from a seed (drawn at random), its text, or itself."""
    if perturb is None:
        return Perturbation()
    if isinstance(perturb, Perturbation):
        return perturb
    if isinstance(perturb, str):
        return parse(perturb)
    if isinstance(perturb, int) and not isinstance(perturb, bool):
        return random_variant(events, random.Random(perturb))
    raise ArgumentError(
        f"perturb takes a seed, a variant's text or a Perturbation, not {perturb!r}")


@surface_sync
def replay(
    path: str | os.PathLike[str], *, speed: float | None = None, strict: bool = True,
    timeout: float = 10.0, stall: float | None = None, perturb: Perturb = None,
    hygiene: bool | None = None, ignore: Region | Sequence[Region] | None = None,
) -> ReplaySession:
    """Replay a recording through the same terminal and waiting engine.

    ``async with termsim.replay(path) as term:`` gives the API of a live
    session. Time is virtual (a wait that timed out after two minutes fails
    in milliseconds) unless ``speed`` is given (1.0 = real time). Input that
    differs from the recording raises :class:`ReplayDivergence`; with
    ``strict=False`` it is listed in ``term.divergences`` instead, and a
    recorded input the test does not send is replayed as recorded (strict, the
    program waits for it, as a live one would).
    ``timeout``, ``stall`` and ``ignore``: the defaults of its waits, as in :func:`spawn`.
    ``perturb``: play a variant of the recording that could physically have
    happened (output cut or merged differently, in-flight output arriving
    after an input, pauses stretched): a seed draws one at random, a text
    (``"split 3021; delay 17x2"``, as shake reports print) names one exactly.
    ``hygiene``: fail when the recorded program exited leaving modes on, as
    in :func:`spawn`.
    """
    return ReplaySession(Recording.open(path), speed=speed, strict=strict, timeout=timeout,
                         stall=stall, perturb=perturb, hygiene=hygiene, ignore=ignore)
