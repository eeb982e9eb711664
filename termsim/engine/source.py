"""The contract between the engine and whoever gives it events and time.

It exists apart so that the two kinds of source, the live PTY
(:mod:`termsim.live`) and the replay (:mod:`termsim.offline`), and the
driver that writes inputs, can read what they owe the engine and what it
owes them without reading how the engine keeps its guarantees
(:mod:`termsim.engine.engine`). A :class:`Mark` is here because it is what
crosses that line: the driver makes one per input, the engine counts
screens from it, the sources never look inside.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import anyio

from ..emulator.terminal.terminal import Query
from ..events import Event


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
    """Where time and progress come from (a PTY, or a recording).

    What a source gives the engine: the session's clock (:meth:`now`), the
    events already there (:meth:`catch_up`) and the passing of time
    (:meth:`run_until`). The engine only calls these; it never asks what
    the source is. Everything else, the tty's mode included, reaches the
    engine as events (:class:`~termsim.events.TtyMode`), live as replayed.

    What it gets: nothing at construction, no pointer back. Every event
    enters the session's :class:`~termsim.engine.stream.EventStream`, which
    records it and applies it to the engine (a :class:`Sink`) in that
    order: a live PTY pushes what it reads (and its tty's changes) there,
    a replay, which is the session, pushes its recorded events inside
    :meth:`run_until`. Either way each event is applied once, in order, and
    the engine answers with the replies the terminal owes the program.
    """

    def now(self) -> float:
        """Seconds since the session started, on this source's clock."""
        ...

    def catch_up(self) -> None:
        """Apply what has already happened (output read, the tty's mode
        changed): a timer is about to decide that the program paused, and a
        late reader must not fool it."""
        ...

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        """Return when ``event`` is set or the clock reaches ``deadline``.

        ``poll``: the wait depends on the tty's mode (``InputReady``,
        ``stall=``), which changes without output; look at it as the wait
        starts and then on a short timer, and put a change in the stream.
        """
        ...


class Sink(Protocol):
    """What a live source may do to the engine, and nothing more: the
    :class:`~termsim.engine.engine.Engine` is one, and a PTY source is given it at construction
    (so it holds no engine, and a test can give it a fake). Events reach it
    only through the session's :class:`~termsim.engine.stream.EventStream`."""

    def apply(self, event: Event) -> bytes:
        """The next event of the session; returns the replies owed to the program."""
        ...

    def take_deferred(self) -> list[Query]:
        """The queries whose replies the policy delays (the source sends each
        after its delay, in order with the output)."""
        ...

    def awaits_read(self) -> bool:
        """Whether a pending wait counts from an input the program is not
        known to have read: the source should ask about reads before it
        applies the next output, not after."""
        ...

    def close(self) -> None:
        """The source is going away: pending waits fail now."""
        ...


#: Receives the wait events (and, from the session, every other event).
Emit = Callable[[Event], None]
