"""Offline replay: a recording drives the same Terminal and the same Engine.

The replay is a :class:`~termsim._engine.Source` whose ``run_until`` *is* the
program: it applies recorded events (output, resizes, tty mode changes, the
exit) in order on a virtual clock until the wait's event is set or the
clock reaches the wait's deadline. So a test written against ``spawn`` runs
unchanged against ``replay``, and fails at the same point with the same
screen; a two-minute boot hang reaches its ``WaitTimeout`` in milliseconds.

Input the test sends is checked against the input recorded at that point;
output recorded before that input is applied first, exactly as the live
session had read it. Query replies are recomputed by the terminal, never
copied from the file.
"""

from __future__ import annotations

import os
from types import TracebackType

import anyio

from . import _recording as rec
from ._driver import Driver
from ._engine import Engine, Mark
from ._errors import SessionClosed, TermsimError
from ._recording import Event, Recording


class ReplayDivergence(TermsimError):
    """The test sent input the recording does not have at that point."""


class ReplaySession(Driver):
    """What :func:`termsim.replay` returns: a session whose program is a file."""

    def __init__(self, recording: Recording, *, speed: float | None, strict: bool) -> None:
        if speed is not None and not speed > 0:
            raise ValueError(f"speed must be > 0, not {speed!r}")
        self.recording = recording
        self.speed = speed
        self.strict = strict
        self.terminal = recording.terminal_at(-1.0)  # the recorded policy, no events
        self.engine = Engine(self.terminal, self)
        self.engine.recording = recording.path
        #: Inputs that did not match the recording (lenient mode).
        self.divergences: list[str] = []
        self.warnings: list[str] = []
        self._events = recording.events
        self._next = 0
        self._clock = 0.0
        self._last_output: float | None = None
        self._tty: bool | None = None
        self._inputs = 0
        self._closed = False

    # -- the Source protocol -------------------------------------------------------

    def now(self) -> float:
        return self._clock

    def silent_for(self) -> float | None:
        return None if self._last_output is None else self._clock - self._last_output

    def input_ready(self) -> bool | None:
        return self._tty

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        await anyio.lowlevel.checkpoint()
        while not event.is_set():
            if self._next >= len(self._events):
                self._advance_clock(deadline)  # the recording says nothing more
                return
            upcoming = self._events[self._next]
            if upcoming.t > deadline:
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
        self._advance_clock(event.t)
        kind = event.kind
        if kind == rec.OUTPUT:
            self._last_output = event.t
            self.engine.feed(bytes(event.data[0]))  # the replies go nowhere
        elif rec.apply_to_terminal(self.terminal, event):
            self.engine.notify()
        elif kind == rec.TTY:
            self._tty = bool(event.data[0]) if event.data[0] is not None else None
            self.engine.notify()
        elif kind == rec.EXIT:
            self.engine.process_exited(event.data[0])
        elif kind == rec.WARNING:
            self.warnings.append(str(event.data[0]))

    # -- lifecycle -----------------------------------------------------------------------

    async def __aenter__(self) -> ReplaySession:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True
        self.engine.close()

    # -- input -----------------------------------------------------------------------------

    async def _catch_up_to(self, kind: str, label: str) -> Event | None:
        """Apply the events before the next ``kind`` event; return it (consumed)."""
        if self._closed:
            raise SessionClosed("the replay is closed")
        j = self._next
        while j < len(self._events) and self._events[j].kind != kind:
            j += 1
        if j >= len(self._events):
            self._diverge(f"{label}: the recording has no more {_KIND_NAMES[kind]} here")
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

    async def _send_input(self, data: bytes, label: str, *, keys: bool) -> Mark:
        recorded = await self._catch_up_to(rec.INPUT, label)
        self._inputs += 1
        mark = Mark(self._inputs, self.terminal.generation, self._clock, label)
        self.engine.input_sent(mark)
        if recorded is not None and bytes(recorded.data[0]) != data:
            self._diverge(
                f"{label} sends {data!r}, the recording has {bytes(recorded.data[0])!r} "
                f"({recorded.data[1] if len(recorded.data) > 1 else 'input'})"
            )
        return mark

    async def resize(self, cols: int, rows: int) -> Mark:
        recorded = await self._catch_up_to(rec.RESIZE, f"resize {cols}x{rows}")
        if recorded is not None:
            if (int(recorded.data[0]), int(recorded.data[1])) != (cols, rows):
                self._diverge(f"resize to {cols}x{rows}, the recording has "
                              f"{recorded.data[0]}x{recorded.data[1]}")
            self.terminal.resize(int(recorded.data[0]), int(recorded.data[1]))
        self._inputs += 1
        mark = Mark(self._inputs, self.terminal.generation, self._clock, f"resize {cols}x{rows}")
        self.engine.notify()
        return mark

    def note(self, label: str) -> None:
        pass


_KIND_NAMES = {rec.INPUT: "input", rec.RESIZE: "resize"}


def replay(
    path: str | os.PathLike[str], *, speed: float | None = None, strict: bool = True,
) -> ReplaySession:
    """Replay a recording through the same terminal and waiting engine.

    ``async with termsim.replay(path) as term:`` gives the API of a live
    session. Time is virtual (a wait that timed out after two minutes fails
    in milliseconds) unless ``speed`` is given (1.0 = real time). Input that
    differs from the recording raises :class:`ReplayDivergence`; with
    ``strict=False`` it is listed in ``term.divergences`` instead.
    """
    return ReplaySession(Recording.open(path), speed=speed, strict=strict)
