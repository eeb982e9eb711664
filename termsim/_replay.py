"""Offline replay: a recording drives the same Terminal and the same Engine.

The replay is a :class:`~termsim._engine.Source` whose ``run_until`` *is* the
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
"""

from __future__ import annotations

import os

import anyio

from ._driver import Driver
from ._engine import Engine, Mark
from ._errors import ReplayDivergence, SessionClosed
from ._playback import terminal_for
from ._recording import Recording
from .events import Event, Exit, Input, InputRead, Output, Reply, Resize, TtyMode, Warned


class ReplaySession(Driver):
    """What :func:`termsim.replay` returns: a session whose program is a file."""

    def __init__(self, recording: Recording, *, speed: float | None, strict: bool,
                 timeout: float = 10.0, stall: float | None = None) -> None:
        super().__init__(timeout=timeout, stall=stall)
        if speed is not None and not speed > 0:
            raise ValueError(f"speed must be > 0, not {speed!r}")
        self.recording = recording
        self.speed = speed
        self.strict = strict
        self.terminal = terminal_for(recording)
        self.engine = Engine(self.terminal, self, self._emit)
        self.engine.recording = recording.path
        #: Inputs that did not match the recording (lenient mode).
        self.divergences: list[str] = []
        self._events = recording.events
        self._next = 0
        self._clock = 0.0
        self._closed = False

    # -- the Source protocol -------------------------------------------------------

    def now(self) -> float:
        return self._clock

    def input_ready(self) -> bool | None:
        return self.engine.tty_raw

    def catch_up(self) -> None:
        pass  # the clock stands still between recorded events

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        await anyio.lowlevel.checkpoint()
        while not event.is_set():
            if self._next >= len(self._events):
                self._advance_clock(deadline)  # the recording says nothing more
                return
            upcoming = self._events[self._next]
            if isinstance(upcoming, Input | Resize) and not self.strict \
                    and upcoming.t <= deadline:
                # Lenient: the test did not send it; the recording goes on.
                what = upcoming.label if isinstance(upcoming, Input) else \
                    f"resize {upcoming.cols}x{upcoming.rows}"
                self._diverge(f"the test did not send {what}; replayed as recorded")
                await self._advance_clock_async(upcoming.t)
                self._next += 1
                self._apply(upcoming)
                continue
            if upcoming.t > deadline or isinstance(upcoming, Input | Resize):
                # The program waits for the input the test has not sent yet:
                # what it did next was in answer, so only the clock moves.
                self._advance_clock(deadline)
                return
            await self._advance_clock_async(upcoming.t)
            self._next += 1
            self._apply(upcoming)

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
            case Output() | Resize() | TtyMode() | Reply() | Exit() | InputRead():
                self._emit(event)
                self.engine.apply(event)
            case Input():
                self._emit(event)  # lenient mode, an input the test did not send
            case Warned(message=message):
                self.warnings.append(message)
                self._emit(event)
            case _:
                pass  # the recorded run's inputs, waits and notes

    # -- lifecycle -----------------------------------------------------------------------

    async def aclose(self) -> None:
        self._closed = True
        self.engine.close()

    # -- input -----------------------------------------------------------------------------

    async def _catch_up_to(self, kind: type[Input] | type[Resize], label: str) -> Event | None:
        """Apply the events before the next ``kind`` event; return it (consumed)."""
        if self._closed:
            raise SessionClosed("the replay is closed")
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
            self._apply(upcoming)
        found = self._events[j]
        await self._advance_clock_async(found.t)
        self._next = j + 1
        return found

    def _diverge(self, message: str) -> None:
        message = f"replay diverged at {self._clock:.3f} s: {message}"
        if self.strict:
            raise ReplayDivergence(message)
        self.divergences.append(message)

    async def _send_input(self, data: bytes, label: str, *, keys: bool, secret: bool) -> Mark:
        recorded = await self._catch_up_to(Input, label)
        tracked = isinstance(recorded, Input) and recorded.tracked
        mark = self._mark(label, tracked=tracked)
        if isinstance(recorded, Input):
            secret = secret or recorded.secret
            # A secret was recorded as a mask: there is nothing to compare.
            if not recorded.secret and recorded.data != data:
                self._diverge(f"{label} sends {data!r}, the recording has "
                              f"{recorded.data!r} ({recorded.label})")
        self._emit(Input(mark.at, data, label, secret, tracked))
        return mark

    async def resize(self, cols: int, rows: int) -> Mark:
        """Resize as the recording did (a different size is a divergence)."""
        recorded = await self._catch_up_to(Resize, f"resize {cols}x{rows}")
        if isinstance(recorded, Resize):
            if (recorded.cols, recorded.rows) != (cols, rows):
                self._diverge(f"resize to {cols}x{rows}, the recording has "
                              f"{recorded.cols}x{recorded.rows}")
            self._emit(recorded)
            self.engine.apply(recorded)
        return self._mark(f"resize {cols}x{rows}")


def replay(
    path: str | os.PathLike[str], *, speed: float | None = None, strict: bool = True,
    timeout: float = 10.0, stall: float | None = None,
) -> ReplaySession:
    """Replay a recording through the same terminal and waiting engine.

    ``async with termsim.replay(path) as term:`` gives the API of a live
    session. Time is virtual (a wait that timed out after two minutes fails
    in milliseconds) unless ``speed`` is given (1.0 = real time). Input that
    differs from the recording raises :class:`ReplayDivergence`; with
    ``strict=False`` it is listed in ``term.divergences`` instead, and a
    recorded input the test does not send is replayed as recorded (strict, the
    program waits for it, as a live one would).
    ``timeout`` and ``stall``: the defaults of its waits, as in :func:`spawn`.
    """
    return ReplaySession(Recording.open(path), speed=speed, strict=strict, timeout=timeout,
                         stall=stall)
