"""One pending wait's books, and the words a wait ends with.

The engine (:mod:`termsim.engine.engine`) decides *when* a wait ends; this
module holds what a wait carries while it is pending and what that adds
up to when it fails: which simple parts of the predicate held on which
screens, and whether the whole held on a screen that did not count yet
(near misses, :mod:`termsim.engine.nearmiss`). None of it decides a match,
so it is kept out of the module whose every line does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import anyio

from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminal.terminal import Terminal
from ..errors import ArgumentError, Scrub, SessionClosed
from ..events import WaitOutcome, errored
from .activity import Activity
from .failures import ProcessExited, RecordingEnded, Stalled, WaitTimeout, owed
from .nearmiss import Sighting
from .predicates import Predicate
from .source import Mark


@dataclass
class Wait:
    """A wait the engine has pending."""

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
    #: With ``ignore=``: when the screen last changed outside those regions
    #: (the stall timer counts from then, not from the last output).
    activity: Activity | None = None
    #: Near misses: when the whole predicate held on a screen that did not
    #: count, and when each simple part held.
    ineligible: Sighting = field(default_factory=Sighting)
    leaves: list[tuple[Predicate, Sighting]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.leaves = [(leaf, Sighting()) for leaf in self.predicate.leaves()]

    def sight(self, snap: Snapshot, now: float, *, eligible: bool) -> None:
        """A new screen: note which parts hold on it, and whether the whole
        does on a screen that does not count (``eligible`` False)."""
        for leaf, sighting in self.leaves:
            sighting.saw(now - self.started, holds_alone(leaf, snap))
        if not eligible and holds_alone(self.predicate, snap):
            self.ineligible.saw(now - self.started, True)

    def notes(self, snap: Snapshot, unread: list[Mark]) -> list[str]:
        """What the wait almost saw, for its error; ``snap`` is the screen
        now, ``unread`` the inputs the program has not read."""
        notes = []
        unread = [m for m in unread if self.since is not None and m.index <= self.since.index]
        if unread:
            notes.append(f"the program has not read input #{unread[-1].index} "
                         f"({unread[-1].label}) yet, so no screen counts")
        seen = self.ineligible.describe()
        if seen:
            notes.append(f"the screen matched, but before the program answered "
                         f"{self.since}: {seen}")
        for leaf, sighting in self.leaves:
            if sighting.spans and (sighting.spans[-1][1] is not None
                                   or not holds_alone(leaf, snap)):
                notes.append(f"{leaf.describe()}: {sighting.describe()}")
        return notes


def timeout_error(
    awaited: str, timeout: float, snap: Snapshot, terminal: Terminal, *,
    silent_for: float | None, recording: str | None, scrub: Scrub, wait: Wait | None,
    film: str, unread: list[Mark], stalled_for: float | None,
    ended_at: float | None = None, last_output: float | None = None,
    caveats: Sequence[str] = (),
) -> WaitTimeout:
    """The error for ``awaited`` not happening within ``timeout``
    (:meth:`~termsim.engine.engine.Engine.timed_out` gathers the evidence;
    ``wait``: the pending wait, None for one that is not a predicate's)."""
    if ended_at is not None:
        return RecordingEnded(
            ended_at=ended_at, last_output=last_output,
            awaited=awaited, timeout=timeout, snapshot=snap, silent_for=silent_for,
            predicate=wait.predicate if wait is not None else None,
            unanswered=owed(terminal.queries), recording=recording, caveats=caveats,
            explanation=wait.predicate.explain(snap) if wait is not None else "",
            since=str(wait.since) if wait is not None and wait.since else "",
            unknown=dict(terminal.unknown), film=film, scrub=scrub,
            notes=wait.notes(snap, unread) if wait is not None else (),
        )
    if wait is None:
        return WaitTimeout(
            awaited=awaited, timeout=timeout, snapshot=snap, silent_for=silent_for,
            unanswered=owed(terminal.queries), recording=recording, caveats=caveats,
            unknown=dict(terminal.unknown), scrub=scrub,
        )
    pred = wait.predicate
    notes = wait.notes(snap, unread)
    activity = wait.activity
    if activity is not None:
        notes.insert(0, f"ignored (ignore=): {activity.describe()}, which changed on "
                        f"{activity.ignored_changes} screens while nothing else did")
    kind: Callable[..., WaitTimeout] = WaitTimeout if stalled_for is None else partial(
        Stalled, ignored=activity.describe() if activity is not None else "")
    return kind(
        awaited=awaited, timeout=timeout, snapshot=snap,
        silent_for=silent_for, predicate=pred,
        unanswered=owed(terminal.queries), explanation=pred.explain(snap), caveats=caveats,
        since=str(wait.since) if wait.since else "", recording=recording,
        unknown=dict(terminal.unknown), film=film,
        notes=notes, stalled_for=stalled_for, scrub=scrub,
    )


def exited_error(status: int | None, snap: Snapshot, predicate: Predicate, *,
                 recording: str | None, scrub: Scrub, film: str,
                 caveats: Sequence[str] = ()) -> ProcessExited:
    """The error for a wait on ``predicate`` that the program's exit ended."""
    return ProcessExited(
        status=status, snapshot=snap, awaited=predicate.describe(), predicate=predicate,
        recording=recording, film=film, scrub=scrub, caveats=caveats,
    )


def misfit_error(predicate: Predicate, terminal: Terminal) -> ArgumentError | None:
    """The error for a wait on something outside the screen (it could
    never match: better said at once than after the whole timeout)."""
    cols, rows = terminal.cols, terminal.rows
    what = predicate.misfit(cols, rows)
    if what is None:
        return None
    return ArgumentError(f"{what} is outside the screen, which is {cols} columns x {rows} "
                         f"rows: waiting for {predicate.describe()} could never succeed")


def check_seconds(name: str, value: float) -> None:
    if value is None or not (value >= 0) or math.isnan(value):
        raise ArgumentError(f"{name} must be a number of seconds >= 0, not {value!r}")


def holds_alone(p: Predicate, snap: Snapshot) -> bool:
    """Whether ``p`` holds on ``snap`` alone (for near-miss reports only)."""
    try:
        return bool(p(snap))
    except Exception:
        return False


def outcome_of(exc: BaseException) -> WaitOutcome:
    """How a wait that ended with ``exc`` is recorded."""
    if isinstance(exc, Stalled):
        return "stalled"
    if isinstance(exc, ProcessExited):
        return "program exited"
    if isinstance(exc, SessionClosed):
        return "session closed"
    return errored(type(exc).__name__)
