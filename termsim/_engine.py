"""The waiting engine: one for live sessions and replays.

Theory of operation
-------------------

A wait is a predicate, a deadline and a causality bound (``since``). The
engine keeps the pending waits; whoever feeds the terminal (the live PTY
reader, or a replay walking a recording) calls :meth:`Engine.notify` after
each feed that changed the screen, and the engine evaluates every pending
wait once against one snapshot and wakes the ones that hold. So a wait
resolves on the very feed that made it true, predicates run only when the
screen changed, and ten waiting tasks cost one snapshot per change.

Time and progress come from a :class:`Source`. A live source's
``run_until`` simply sleeps on the wait's event until the deadline (the PTY
reader makes progress in the background); a replay source's ``run_until``
*is* the progress: it feeds recorded events on a virtual clock until the event
is set or the deadline passes. That one method is the whole difference
between live and replayed sessions, which is why a replayed failure fails at
the same point with the same screen.

``since=mark`` is a generation number, never a flag that gets reset: a mark
records the terminal's generation when the input was written, and only
snapshots of a later generation (drawn from output read after the write)
count.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import anyio

from ._errors import ProcessExited, SessionClosed, WaitTimeout
from ._predicates import Predicate, PredicateLike, as_predicate
from ._snapshot import Snapshot
from ._terminal import Terminal


@dataclass(frozen=True, slots=True)
class Mark:
    """A point in the session: what was sent, and the screen generation then.

    Returned by ``type``, ``press`` and ``send``; pass it as ``since=`` so a
    wait counts only screens drawn from output read after that input.
    """

    index: int
    generation: int
    at: float
    label: str

    def __str__(self) -> str:
        return f"input #{self.index} ({self.label}) at {self.at:.3f} s"


class Source(Protocol):
    """Where output, time and tty state come from (a PTY, or a recording)."""

    def now(self) -> float:
        """Seconds since the session started, on this source's clock."""
        ...

    def silent_for(self) -> float | None:
        """Seconds since the program last printed (None: it never did)."""
        ...

    def input_ready(self) -> bool | None:
        """Whether the program reads its tty in raw mode now (None: unknown)."""
        ...

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        """Return when ``event`` is set or the clock reaches ``deadline``.

        ``poll``: a pending predicate reads the tty mode, which changes without
        output; re-check it (``Engine.notify``) on a short timer.
        """
        ...


@dataclass
class _Wait:
    predicate: Predicate
    after: int  # only snapshots with generation > after count
    event: anyio.Event
    started: float
    matched: Snapshot | None = None
    error: BaseException | None = None


_FRAME_START = re.compile(rb"\x1b\[\?(?:25l|2026h)")

#: How many screens before a failure its error message shows.
FILM_FRAMES = 4
#: Rows shown per screen of the film strip.
FILM_ROWS = 6

#: Called with ("wait-start" | "wait-end", details) for recorders and reports.
Observer = Callable[[str, dict[str, object]], None]


class Engine:
    """Pending waits over one :class:`~termsim.Terminal` and one :class:`Source`."""

    def __init__(self, terminal: Terminal, source: Source) -> None:
        self.terminal = terminal
        self.source = source
        self._waits: list[_Wait] = []
        self._exit_event = anyio.Event()
        self.exit_status: int | None = None
        self.exited = False
        self.closed = False
        self.observers: list[Observer] = []
        self._last_key: tuple[int, bool | None] = (-1, None)
        self.recording: str | None = None
        self._waits_started = 0
        # For film-strip error messages: recent distinct screens and inputs.
        self._screens: deque[tuple[float, Snapshot]] = deque(maxlen=FILM_FRAMES + 1)
        self._inputs: deque[tuple[float, str]] = deque(maxlen=20)

    def feed(self, chunk: bytes) -> bytes:
        """Feed program output to the terminal and wake the waits it satisfies.

        Returns the terminal's replies. A chunk may hold several frames (the
        reader was late on a busy machine; a recording keeps reads as they
        were); a state drawn by one frame and erased by the next would then
        never be seen. So while waits are pending the chunk is fed in pieces
        that end where the next frame begins (``ESC[?25l``, which starts every
        prompt_toolkit frame, or ``ESC[?2026h``, the start of a synchronized
        update), and waits are evaluated after each. Live and replayed
        sessions both feed through here, so they see the same screens.
        """
        terminal = self.terminal
        if not self._waits or len(chunk) < 16:
            generation = terminal.generation
            replies = terminal.feed(chunk)
            if terminal.generation != generation:
                self.notify()
            return replies
        out = []
        start = 0
        for match in _FRAME_START.finditer(chunk):
            if match.start() > start:
                out.append(self._feed_piece(chunk[start:match.start()]))
                start = match.start()
        out.append(self._feed_piece(chunk[start:]))
        return b"".join(out)

    def _feed_piece(self, piece: bytes) -> bytes:
        generation = self.terminal.generation
        replies = self.terminal.feed(piece)
        if self.terminal.generation != generation:
            self.notify()
        return replies

    @property
    def waiting(self) -> bool:
        """Whether any wait is pending (so every screen matters)."""
        return bool(self._waits)

    # -- state ---------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The screen now, with what the source knows of the tty mode."""
        return self.terminal.screen.with_input_ready(self.source.input_ready())

    def notify(self) -> None:
        """Evaluate pending waits against the current screen (if it changed)."""
        if not self._waits:
            return
        snap = self.snapshot()
        key = (snap.generation, snap.input_ready)
        if key == self._last_key:
            return
        self._last_key = key
        self._remember(snap)
        for wait in list(self._waits):
            if wait.event.is_set() or snap.generation <= wait.after:
                continue
            try:
                ok = wait.predicate(snap)
            except Exception as exc:
                wait.error = exc
                wait.event.set()
                continue
            if ok:
                wait.matched = snap
                wait.event.set()

    def _remember(self, snap: Snapshot) -> None:
        if not self._screens or self._screens[-1][1].generation != snap.generation:
            self._screens.append((self.source.now(), snap))

    def input_sent(self, mark: Mark) -> None:
        """Called by the driver for every input, for film-strip errors."""
        self._inputs.append((mark.at, mark.label))

    def film_strip(self, started: float) -> str:
        """The last screens and the inputs between them, as text, for an error.

        It starts at the last input sent before the wait (what the test did
        that the wait is about) and keeps the last ``FILM_FRAMES`` screens.
        """
        begin = started
        before = [t for t, _ in self._inputs if t < started]
        if before:
            begin = before[-1]
        all_screens = list(self._screens)
        recent = [i for i, (t, _) in enumerate(all_screens) if t >= begin][-FILM_FRAMES:]
        first = recent[0] if recent else len(all_screens)
        previous = all_screens[first - 1][1] if first > 0 else None
        items: list[tuple[float, int, object]] = [(all_screens[i][0], 1, all_screens[i][1])
                                                  for i in recent]
        since = all_screens[first][0] if recent else begin
        items += [(t, 0, label) for t, label in self._inputs if t >= min(begin, since)]
        if not items:
            return ""
        out = ["  what happened during the wait (seconds from its start):"]
        for t, is_screen, what in sorted(items, key=lambda x: (x[0], x[1])):
            when = f"    {t - started:+8.3f} s  "
            if not is_screen:
                out.append(f"{when}sent {what}")
                continue
            assert isinstance(what, Snapshot)
            if previous is not None and previous.lines == what.lines \
                    and previous.cursor == what.cursor:
                continue  # only modes or the title changed: nothing to see
            out += _screen_change(when, previous, what)
            previous = what
        return "\n".join(out)

    def process_exited(self, status: int | None) -> None:
        """The program is gone: pending waits fail now, not at their timeout."""
        if self.exited:
            return
        self.exited = True
        self.exit_status = status
        self.notify()  # the last output may still satisfy a wait
        for wait in self._waits:
            if not wait.event.is_set():
                wait.error = self._exited_error(wait.predicate, wait.started)
                wait.event.set()
        self._exit_event.set()

    def close(self) -> None:
        """The session is closing: pending waits fail with SessionClosed."""
        self.closed = True
        for wait in self._waits:
            if not wait.event.is_set():
                wait.error = SessionClosed("the session was closed while a wait was pending")
                wait.event.set()
        self._exit_event.set()

    def _exited_error(
        self, predicate: Predicate | None, started: float | None = None,
    ) -> ProcessExited:
        return ProcessExited(
            status=self.exit_status, snapshot=self.snapshot(),
            awaited=predicate.describe() if predicate else None, predicate=predicate,
            recording=self.recording,
            film=self.film_strip(started) if started is not None else "",
        )

    def _emit(self, kind: str, **details: object) -> None:
        for observer in self.observers:
            observer(kind, details)

    # -- waiting ---------------------------------------------------------------------

    async def wait_for(
        self, predicate: PredicateLike, *, timeout: float, since: Mark | None = None,
    ) -> Snapshot:
        """Wait until ``predicate`` holds on a screen drawn after ``since``.

        Returns the snapshot that matched. Raises :class:`WaitTimeout`,
        :class:`ProcessExited` or :class:`SessionClosed`.
        """
        pred = as_predicate(predicate)
        if timeout is None or not (timeout >= 0) or math.isnan(timeout):
            raise ValueError(f"timeout must be a number of seconds >= 0, not {timeout!r}")
        if self.closed:
            raise SessionClosed("the session is closed")
        after = since.generation if since is not None else -1
        started = self.source.now()
        self._waits_started += 1
        wait_id = self._waits_started
        self._emit("wait-start", id=wait_id, predicate=pred.describe(), since=since,
                   at=started, timeout=timeout)
        outcome = "timed out"
        try:
            snap = self.snapshot()
            if snap.generation > after and pred(snap):
                outcome = "matched"
                return snap
            self._remember(snap)
            if self.exited:
                outcome = "program exited"
                raise self._exited_error(pred)
            wait = _Wait(pred, after, anyio.Event(), started)
            self._waits.append(wait)
            try:
                await self.source.run_until(wait.event, started + timeout, pred.polls)
            finally:
                self._waits.remove(wait)
            if wait.matched is not None:
                outcome = "matched"
                return wait.matched
            if wait.error is not None:
                outcome = _outcome_of(wait.error)
                raise wait.error
            raise self._timeout_error(pred, timeout, since, started)
        except BaseException as exc:
            if outcome == "timed out" and not isinstance(exc, WaitTimeout):
                outcome = "cancelled" if isinstance(exc, anyio.get_cancelled_exc_class()) \
                    else _outcome_of(exc)
            raise
        finally:
            self._emit("wait-end", id=wait_id, predicate=pred.describe(), outcome=outcome,
                       at=self.source.now(), started=started)

    def _timeout_error(
        self, pred: Predicate, timeout: float, since: Mark | None, started: float,
    ) -> WaitTimeout:
        snap = self.snapshot()
        self._remember(snap)
        return WaitTimeout(
            awaited=pred.describe(), timeout=timeout, snapshot=snap,
            silent_for=self.source.silent_for(), predicate=pred,
            unanswered=self.terminal.unanswered(), explanation=pred.explain(snap),
            since=str(since) if since else "", recording=self.recording,
            unknown=dict(self.terminal.unknown), film=self.film_strip(started),
        )

    async def wait_exit(self, *, timeout: float) -> int | None:
        """Wait for the program to exit; return its status."""
        if not self.exited and not self.closed:
            started = self.source.now()
            self._waits_started += 1
            wait_id = self._waits_started
            self._emit("wait-start", id=wait_id, predicate="the program to exit", since=None,
                       at=started, timeout=timeout)
            outcome = "timed out"
            try:
                await self.source.run_until(self._exit_event, started + timeout, False)
                if self.exited:
                    outcome = "matched"
            finally:
                self._emit("wait-end", id=wait_id, predicate="the program to exit",
                           outcome=outcome,
                           at=self.source.now(), started=started)
            if not self.exited:
                if self.closed:
                    raise SessionClosed("the session was closed while waiting for the exit")
                snap = self.snapshot()
                raise WaitTimeout(
                    awaited="the program to exit", timeout=timeout, snapshot=snap,
                    silent_for=self.source.silent_for(),
                    unanswered=self.terminal.unanswered(), recording=self.recording,
                    unknown=dict(self.terminal.unknown),
                )
        if not self.exited:
            raise SessionClosed("the session is closed")
        return self.exit_status


def _screen_change(when: str, before: Snapshot | None, after: Snapshot) -> list[str]:
    """One film-strip frame: the rows that changed since the previous screen."""
    if before is None or (before.cols, before.rows) != (after.cols, after.rows):
        changed = [r for r, line in enumerate(after.lines) if line.strip()]
        what = f"screen ({len(changed)} rows with text)"
    else:
        changed = [r for r in range(after.rows) if before.lines[r] != after.lines[r]]
        what = f"screen ({len(changed)} row{'s' if len(changed) != 1 else ''} changed"
        if before.cursor != after.cursor:
            what += f", cursor to row {after.cursor.row}, col {after.cursor.col}"
        what += ")"
    width = len(str(after.rows - 1))
    out = [f"{when}{what}"]
    for r in changed[:FILM_ROWS]:
        out.append(f"{' ' * 16}{str(r).rjust(width)} │{after.lines[r].rstrip()}")
    if len(changed) > FILM_ROWS:
        out.append(f"{' ' * 16}… {len(changed) - FILM_ROWS} more rows")
    return out


def _outcome_of(exc: BaseException) -> str:
    if isinstance(exc, ProcessExited):
        return "program exited"
    if isinstance(exc, SessionClosed):
        return "session closed"
    return f"error: {type(exc).__name__}"
