"""A session's stream: the one place an event enters, recorded and applied in one order.

Whatever happens in a session, live or replayed (output read, the tty's
mode changed, an input sent, a reply written, the program's read of an
input, a resize, the exit, a warning, a note, the hangup), is handed to
:meth:`Stream.push`, and nowhere else. ``push`` records it at once (the
listeners: the recorder first) and queues it for the engine; :meth:`apply`
gives the queued events to the engine in the order they were recorded, so
what a listener saw, what the recording holds and what the engine applied
are the same values in the same order, and a replay, which pushes the
recorded events again, applies them as the live session did.

Recording and applying are two steps because a live session reads faster
than it emulates: the PTY reader records each read as it comes (so the
recording has its time) and applies the backlog in slices between reads
(``limit``); a replay pushes one event and applies it at once
(:meth:`enter`). The one kind of event that does not come through here is
the engine's own account of its waits (started, ended, screens compared):
the engine makes those itself, records them through the same listeners,
and applies none of them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ..events import Event, Output
from .source import Emit, Sink

#: Told the replies the terminal owes the program, as each event is applied.
Answer = Callable[[bytes], None]


class EventStream:
    """The events of one session, recorded as they happen and applied in that order."""

    def __init__(self, record: Emit, sink: Sink) -> None:
        self._record = record
        #: What applies the events (the engine, seen as a Sink).
        self.sink = sink
        self._queue: deque[Event] = deque()
        #: Bytes of output recorded but not applied yet (the live backlog).
        self.pending_output = 0

    @property
    def pending(self) -> bool:
        """Whether events are recorded that the engine has not applied yet."""
        return bool(self._queue)

    def push(self, event: Event) -> None:
        """``event`` happened now: record it, and queue it for the engine."""
        self._record(event)
        self._queue.append(event)
        if isinstance(event, Output):
            self.pending_output += len(event.data)

    def apply(self, limit: int | None = None, answer: Answer | None = None) -> None:
        """Apply the queued events in order, up to ``limit`` bytes of output
        (all for None: the rest of a cut output stays first in the queue, at
        its read time). ``answer`` is told the replies each event makes the
        terminal owe, before the next is applied (a live session writes them
        at once); an event it pushes meanwhile is applied in its turn."""
        fed = 0
        queue = self._queue
        sink = self.sink
        while queue and (limit is None or fed < limit):
            event = queue.popleft()
            if isinstance(event, Output):
                data = event.data
                if limit is not None and len(data) > limit - fed:
                    queue.appendleft(Output(event.t, data[limit - fed:]))
                    event = Output(event.t, data[:limit - fed])
                self.pending_output -= len(event.data)
                fed += len(event.data)
            replies = sink.apply(event)
            if replies and answer is not None:
                answer(replies)

    def enter(self, event: Event) -> bytes:
        """Record ``event`` and apply it now, with whatever was queued before
        it; the replies it makes the terminal owe (a resize's report)."""
        self.push(event)
        owed: list[bytes] = []
        self.apply(answer=owed.append)
        return b"".join(owed)
