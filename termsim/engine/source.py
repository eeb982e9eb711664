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

from ..emulator.terminal import Query
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
    """Where time, progress and tty state come from (a PTY, or a recording).

    What a source gives the engine: the session's clock (:meth:`now`), the
    tty mode (:meth:`input_ready`), the output already there
    (:meth:`catch_up`) and the passing of time (:meth:`run_until`). The
    engine only calls these; it never asks what the source is.

    What it gets: nothing at construction, no pointer back. A source that
    produces events by itself (the live PTY) is handed a :class:`Sink` by
    whoever composes the session, and gives the events to it in order; a
    replay is the session, and applies its recorded events with
    :meth:`~termsim.engine.engine.Engine.apply` inside :meth:`run_until`. Either way each event is
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
    :class:`~termsim.engine.engine.Engine` is one, and a PTY source is given it at construction
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
