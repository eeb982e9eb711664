"""A recorded session as steps: what the test did, what it waited for, and what came of it.

The trace viewer (:mod:`termsim.report.html`) and ``termsim show --steps``
(:mod:`termsim.report.steps_text`) tell a session the same way, from this
one model: a list of :class:`Step` values, one per input (as the test
wrote it: ``type 'select 1;'``, ``press enter``, ``click 3,10``), wait
(what it awaited, since when, how it ended, how long it took), query the
program asked and the answer it got, resize, note, warning, signal (a bell,
a title...), the program's exit and the session's end.

A step stands between two places in the recording's events: ``before``
and ``after`` are positions (the screen "at position k" is the one after
applying the first k events), so the screens a step shows are exact, not
the nearest frame. An input's ``after`` is the next input (what the
program drew in answer, however many waits the test made in between); a
wait's is its end; a query's or signal's, the read of output that carried
it.

A failed wait gets a :class:`Failure`: the predicate rebuilt from its
description (:mod:`termsim.report.predicate_text`), its explanation on the
final screen (what the test's error said), which of its parts held when
during the wait, the near misses, the cells it looked at (to outline), and
since when screens counted (``since=``: when the program read that input).

:func:`story` walks the recording once, through the same
:func:`~termsim.engine.playback.apply_to_terminal` as every replay, taking
a screen only where a step, a frame of the page or a failed wait's
sightings needs one.

Why this module is long: that one walk makes every kind of step, and each
kind's ``before``/``after`` depends on the others' (an input's answer ends
at the next input), so they are built together, in one place.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..emulator.answers.queries import printable
from ..emulator.signals.signals import Signal
from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminal.terminal import Terminal
from ..engine.cursor_predicates import CursorAfter, CursorAt
from ..engine.nearmiss import Sighting, closest, worth_showing
from ..engine.playback import ScreenBudget, apply_to_terminal, terminal_for
from ..engine.predicates import Predicate
from ..engine.waits import holds_alone
from ..errors import describe_status
from ..events import (
    End,
    Event,
    Exit,
    Hangup,
    Input,
    InputRead,
    Note,
    Output,
    Reply,
    Resize,
    TtyMode,
    WaitEnded,
    WaitStarted,
    Warned,
)
from ..recording.format import Recording, WaitRecord
from .predicate_text import parse, region_of

#: Screens a failed wait's parts are checked on, at most (evenly chosen).
SIGHTINGS = 400
#: Queries of one kind listed as steps when answered (all unanswered ones are).
QUERIES_PER_KIND = 3
#: Signals of one kind listed as steps.
SIGNALS_PER_KIND = 20


@dataclass
class Outline:
    """Cells a failed wait looked at, on its final screen: rows
    ``top:bottom``, columns ``left:right`` (exclusive ends), and what they are."""

    top: int
    left: int
    bottom: int
    right: int
    label: str


@dataclass
class Failure:
    """Why a wait did not match, as far as a recording can tell."""

    #: What the test's error said instead, on the final screen (None: the
    #: predicate cannot be rebuilt from its words).
    explanation: str | None
    #: Each simple part: whether it held at the end, and when during the wait.
    parts: list[str] = field(default_factory=list)
    #: What almost matched.
    near: list[str] = field(default_factory=list)
    outline: list[Outline] = field(default_factory=list)
    #: Since when screens counted, in words ("" without ``since=``).
    since: str = ""
    #: When that was (None: every screen of the wait counted, or never).
    since_t: float | None = None


@dataclass
class Step:
    """One thing that happened, in the order it happened."""

    n: int
    kind: str
    t: float
    end: float
    title: str
    details: list[str] = field(default_factory=list)
    #: A wait's outcome (``"matched"``, ``"timed out"``...).
    outcome: str | None = None
    bad: bool = False
    before: int = 0
    after: int = 0
    #: Which input the program had read when the step began (the causal mark).
    read: str = ""
    failure: Failure | None = None


@dataclass
class Story:
    """A recording's steps, the one to open on, and the screens they need."""

    steps: list[Step]
    #: The index (in ``steps``) of the first failed wait, or of the last step.
    focus: int
    #: Position -> (time of the screen, the screen): every ``before`` and
    #: ``after`` of a step, and whatever else :func:`story` was asked for.
    screens: dict[int, tuple[float, Snapshot]]
    #: The recording's events, for callers that show the bytes of a step.
    events: list[Event]
    #: Every position whose screen the story shows, in order: the keys of
    #: :attr:`screens`, which ``story(screens=False)`` leaves empty for a
    #: caller that takes them one at a time (:func:`walk_screens`).
    positions: list[int] = field(default_factory=list)


def input_title(label: str) -> str:
    """An input as the test wrote it: ``type 'x'``, ``press enter``, ``click 3,10``."""
    m = re.fullmatch(r"(typed|pasted) (.*?)( \+ enter)?", label, re.S)
    if m:
        verb = "type" if m[1] == "typed" else "paste"
        return f"{verb} {m[2]}" + (", press enter" if m[3] else "")
    if label.startswith("key "):
        return "press " + label[4:]
    m = re.fullmatch(r"(click|scroll) (.*?) ?at row (-?\d+), col (-?\d+)", label)
    if m:
        what = "" if m[2] in ("left", "") else f" {m[2]}"
        return f"{m[1]}{what} {m[3]},{m[4]}"
    if label.startswith("bytes "):
        return "send " + label[6:]
    return label


def wait_title(w: WaitRecord, duration: float) -> str:
    end = w.end if w.end is not None else duration
    return f"wait for {w.predicate}: {w.outcome} after {end - w.start:.3f} s"


def evenly(items: list[int], room: int) -> list[int]:
    """At most ``room`` of ``items``, spread evenly, the last one kept."""
    if len(items) <= room:
        return items
    if room <= 1:
        return items[-1:]
    last = len(items) - 1
    return sorted({items[round(k * last / (room - 1))] for k in range(room)})


class _Index:
    """Where things stand in a recording's events."""

    def __init__(self, recording: Recording) -> None:
        events = self.events = recording.events
        self.outputs = [i for i, e in enumerate(events) if isinstance(e, Output)]
        # Output byte offset at the start of each output event.
        self.offsets: list[int] = []
        fed = 0
        for i in self.outputs:
            self.offsets.append(fed)
            fed += len(events[i].data)  # type: ignore[union-attr]
        #: Inputs and resizes, numbered as marks are (1-based): event indexes.
        self.marks = [i for i, e in enumerate(events) if isinstance(e, Input | Resize)]
        self.reads = [i for i, e in enumerate(events) if isinstance(e, InputRead)]
        self.boundaries = [i for i, e in enumerate(events)
                           if isinstance(e, Input | Resize | Exit | Hangup | End)]

    def output_at(self, offset: int) -> int | None:
        """The event index of the output that holds byte ``offset``."""
        k = bisect.bisect_right(self.offsets, offset) - 1
        return self.outputs[k] if k >= 0 else None

    def next_boundary(self, i: int) -> int:
        k = bisect.bisect_right(self.boundaries, i)
        return self.boundaries[k] if k < len(self.boundaries) else len(self.events)

    def mark_label(self, index: int) -> str:
        if 1 <= index <= len(self.marks):
            event = self.events[self.marks[index - 1]]
            if isinstance(event, Input):
                return input_title(event.label)
            if isinstance(event, Resize):
                return f"resize to {event.cols}x{event.rows}"
        return "?"

    def read_by(self, position: int) -> str:
        """Which input the program had read before ``position``, in words."""
        k = bisect.bisect_left(self.reads, position) - 1
        if k < 0:
            return ""
        event = self.events[self.reads[k]]
        assert isinstance(event, InputRead)
        answered = ", and had answered it" if event.answered else ""
        return (f"the program had read input #{event.index} "
                f"({self.mark_label(event.index)}){answered}")


def story(recording: Recording, *, extra: Iterable[int] = (), between: int = 0,
          screens: bool = True) -> Story:
    """The steps of ``recording`` (see the module's description); ``extra``:
    more positions whose screens the caller wants in :attr:`Story.screens`;
    ``between``: also up to this many screens (after a read of output,
    evenly chosen) inside each input's, wait's and resize's span;
    ``screens``: False to get only their positions (:attr:`Story.positions`),
    for a caller that walks them with :func:`walk_screens` one at a time
    rather than hold every screen at once (the HTML page of a tall session)."""
    index = _Index(recording)
    events = recording.events
    steps = _steps(recording, index)
    waits = {w.id: w for w in recording.waits()}
    needed = {0, len(events), *extra}
    for step in steps:
        needed.update((step.before, step.after))
        if between and step.kind in ("input", "wait", "resize", "exit", "hangup"):
            lo = bisect.bisect_right(index.outputs, step.before)
            hi = bisect.bisect_left(index.outputs, step.after - 1)
            needed.update(evenly([i + 1 for i in index.outputs[lo:hi]], between))
    failed = [s for s in steps if s.kind == "wait" and s.bad]
    sight: dict[int, list[int]] = {}
    for step in failed:
        positions = [i + 1 for i in index.outputs if step.before <= i < step.after]
        sight[step.n] = [step.before, *evenly(positions, SIGHTINGS)]
        needed.update(sight[step.n])
    # A failed wait's screens are needed here, whatever the caller wants.
    looked_at = needed if screens else {p for s in failed for p in (s.after, *sight[s.n])}
    shown = _screens(recording, looked_at) if looked_at else {}
    for step in failed:
        w = next((w for w in waits.values() if w.start == step.t
                  and step.title == wait_title(w, recording.duration)), None)
        if w is not None:
            step.failure = _failure(w, step, shown, sight[step.n], index)
    focus = next((k for k, s in enumerate(steps) if s.kind == "wait" and s.bad),
                 len(steps) - 1)
    return Story(steps, max(focus, 0), shown if screens else {}, events, sorted(needed))


def _screens(recording: Recording, needed: set[int]) -> dict[int, tuple[float, Snapshot]]:
    """The screen at each position in ``needed``, in one walk, within the
    budget of cells a reader may keep."""
    budget = ScreenBudget(recording, "telling the steps (show --steps, a trace)")
    return {k: (t, budget.keep(snap)) for k, t, snap in walk_screens(recording, needed)}


def walk_screens(recording: Recording,
                 positions: Iterable[int]) -> Iterator[tuple[int, float, Snapshot]]:
    """``(position, time of the screen, the screen)`` for each of
    ``positions``, in order, in one walk, each handed out as it is taken,
    with the tty mode the recording says the program had (as a replay's
    screens do)."""
    needed = set(positions)
    terminal = terminal_for(recording)
    shown_t = 0.0
    ready: bool | None = None
    events = recording.events
    last: Snapshot | None = None  # the screen taken, while nothing changed it
    for k in range(len(events) + 1):
        if k in needed:
            if last is None:
                last = terminal.screen
            yield k, shown_t, last.with_input_ready(ready)
        if k == len(events):
            break
        event = events[k]
        apply_to_terminal(terminal, event)
        if isinstance(event, Output | Resize | Reply):
            last = None
            if not isinstance(event, Reply):
                shown_t = event.t
        elif isinstance(event, TtyMode):
            ready = event.raw


def _steps(recording: Recording, index: _Index) -> list[Step]:
    events = recording.events
    duration = recording.duration
    found: list[tuple[int, int, Step]] = []  # (position, order, step)
    waits = {w.id: w for w in recording.waits()}
    ends = {e.id: i for i, e in enumerate(events) if isinstance(e, WaitEnded)}
    mark = 0
    for i, event in enumerate(events):
        match event:
            case Input(label=label, data=data, secret=secret):
                mark += 1
                step = Step(0, "input", event.t, event.t, input_title(label), before=i,
                            after=index.next_boundary(i))
                step.details.append(f"input #{mark}, bytes: "
                                    + ("(secret)" if secret else _shown_bytes(data)))
            case Resize(cols=cols, rows=rows):
                mark += 1
                step = Step(0, "resize", event.t, event.t, f"resize to {cols}x{rows}",
                            before=i, after=index.next_boundary(i))
                step.details.append(f"input #{mark} (a resize counts as one)")
            case WaitStarted(id=wid):
                w = waits.get(wid)
                if w is None:
                    continue
                end = w.end if w.end is not None else duration
                step = Step(0, "wait", event.t, end, wait_title(w, duration),
                            outcome=str(w.outcome), bad=w.failed, before=i,
                            after=ends.get(wid, len(events)))
                step.details.append(f"timeout {w.timeout:g} s" if w.timeout is not None
                                    else "no timeout")
                if w.since:
                    step.details.append(f"since {w.since}")
            case Note(label=label):
                step = Step(0, "note", event.t, event.t, f"note: {label}", before=i, after=i)
            case Warned(message=message):
                step = Step(0, "warning", event.t, event.t, f"warning: {message}", bad=True,
                            before=i, after=i)
            case Hangup():
                step = Step(0, "hangup", event.t, event.t,
                            "termsim hung up on the program (the test closed the session)",
                            before=i, after=index.next_boundary(i))
            case Exit(status=status):
                step = Step(0, "exit", event.t, event.t,
                            f"the program exited: {describe_status(status)}",
                            bad=status not in (0, None), before=i, after=len(events))
            case End(how=how):
                step = Step(0, "end", event.t, event.t, f"session {how}", before=i + 1,
                            after=i + 1)
            case _:
                continue
        found.append((step.before, 0, step))
    terminal = terminal_for(recording)
    for event in events:
        apply_to_terminal(terminal, event)
    found += [(p, 1, s) for p, s in _queries(recording, index, terminal)]
    found += [(p, 2, s) for p, s in _signals(recording, index, terminal)]
    found.sort(key=lambda item: (item[0], item[1]))
    steps = [s for _, _, s in found]
    for n, step in enumerate(steps, start=1):
        step.n = n
        step.read = index.read_by(step.before)
    return steps


def _shown_bytes(data: bytes) -> str:
    text = printable(bytes(data).decode("utf-8", "backslashreplace"))
    return text if len(text) <= 80 else text[:79] + "…"


def _queries(recording: Recording, index: _Index,
             terminal: Terminal) -> list[tuple[int, Step]]:
    """The queries the program sent, as steps (the answered ones, a few of
    each kind; every unanswered one), from the terminal after the session."""
    seen: dict[str, int] = {}
    out = []
    for query in terminal.queries:
        seen[query.kind] = seen.get(query.kind, 0) + 1
        if not query.unanswered and seen[query.kind] > QUERIES_PER_KIND:
            continue
        i = index.output_at(query.offset)
        if i is None:
            continue
        t = recording.events[i].t
        what = query.describe().split(" at output byte")[0]
        reply = printable(query.reply.decode("utf-8", "replace")) if query.reply else ""
        fate = f"answered {reply}" if query.status == "answered" else query.status
        step = Step(0, "query", t, t, f"query {what}: {fate}", bad=query.unanswered,
                    before=i, after=i + 1)
        step.details.append(f"at output byte {query.offset}")
        if seen[query.kind] == QUERIES_PER_KIND:
            more = sum(1 for q in terminal.queries if q.kind == query.kind) - QUERIES_PER_KIND
            if more > 0:
                step.details.append(f"(and {more} more of this kind, not listed)")
        out.append((i, step))
    return out


def _signals(recording: Recording, index: _Index,
             terminal: Terminal) -> list[tuple[int, Step]]:
    """What the program said outside the cells, as steps (a few of each kind)."""
    kinds: dict[type, int] = {}
    out = []
    signals: list[Signal] = sorted(terminal.screen.signals.all(), key=lambda s: s.at)
    for signal in signals:
        kinds[type(signal)] = kinds.get(type(signal), 0) + 1
        if kinds[type(signal)] > SIGNALS_PER_KIND:
            continue
        i = index.output_at(max(signal.at - 1, 0)) if signal.at else index.output_at(0)
        if i is None:
            continue
        t = signal.t if signal.t is not None else recording.events[i].t
        text = signal.describe()
        if len(text) > 200:
            text = text[:199] + "…"
        out.append((i, Step(0, "signal", t, t, f"said: {text}", before=i, after=i + 1)))
    return out


def _failure(w: WaitRecord, step: Step, screens: dict[int, tuple[float, Snapshot]],
             sightings: list[int], index: _Index) -> Failure:
    final = screens[step.after][1]
    predicate = parse(w.predicate)
    since, since_t = _since(w, index)
    if predicate is None:
        return Failure(None, since=since, since_t=since_t,
                       near=["termsim cannot check this predicate again from the recording "
                             "(it is not one of termsim's own, or made of them)"])
    failure = Failure(predicate.explain(final), since=since, since_t=since_t)
    leaves = list(dict.fromkeys(predicate.leaves()))
    seen = [(leaf, Sighting()) for leaf in leaves]
    whole = Sighting()
    for position in sightings:
        snap = screens[position][1]
        at = screens[position][0] - step.t
        for leaf, sighting in seen:
            sighting.saw(max(at, 0.0), holds_alone(leaf, snap))
        whole.saw(max(at, 0.0), holds_alone(predicate, snap))
    for leaf, sighting in seen:
        holds = holds_alone(leaf, final)
        when = sighting.describe()
        mark = "holds" if holds else "does not hold"
        failure.parts.append(f"{leaf.describe()}: {mark} on the final screen"
                             + (f"; {when}" if when else "; never held during the wait"))
        if holds and len(leaves) > 1:
            failure.near.append(f"{leaf.describe()} held on the final screen, but not the rest")
        elif not holds and sighting.spans:
            failure.near.append(f"{leaf.describe()}: {when}")
        failure.near += _leaf_near(leaf, final)
        failure.outline += leaf_outlines(leaf, final)
    if whole.spans and w.since:
        failure.near.insert(0, f"the whole predicate held during the wait "
                            f"({whole.describe()}), on a screen drawn before {since_t}")
    if not failure.near:
        failure.near.append("nothing close: no part of it held on any screen of the wait")
    return failure


def _since(w: WaitRecord, index: _Index) -> tuple[str, float | None]:
    """Since when a wait's screens counted, in words, and when."""
    if not w.since:
        return "", None
    m = re.match(r"input #(\d+)", w.since)
    if m is None:
        return f"since {w.since}", None
    n = int(m[1])
    for i in index.reads:
        event = index.events[i]
        if isinstance(event, InputRead) and event.index >= n:
            return (f"screens counted from {event.t:.3f} s, when the program had read "
                    f"input #{n} ({index.mark_label(n)})", event.t)
    if 1 <= n <= len(index.marks):
        written = index.events[index.marks[n - 1]]
        if isinstance(written, Input) and written.tracked:
            return (f"the program never read input #{n} ({index.mark_label(n)}): "
                    "no screen counted", None)
        return (f"screens counted from {written.t:.3f} s, when input #{n} was written",
                written.t)
    return f"since {w.since}", None


def _leaf_near(leaf: Predicate, snap: Snapshot) -> list[str]:
    """What almost matched ``leaf`` on ``snap`` (beyond its explanation)."""
    text = getattr(leaf, "text", None)
    if not isinstance(text, str) or holds_alone(leaf, snap):
        return []
    lines = [line.rstrip() for line in snap.lines]
    if isinstance(leaf, CursorAfter):
        places = [(r, line.find(text)) for r, line in enumerate(snap.lines) if text in line]
        if places:
            r, c = places[0]
            return [f"{text!r} is on the screen at row {r}, col {c}, but the cursor is at "
                    f"row {snap.cursor.row}, col {snap.cursor.col}"]
        return [f"{text!r} is nowhere on the screen"]
    region = region_of(leaf)
    if region is None or region.history or region.command is not None or "\n" in text:
        return []
    found = closest(text, lines)
    if found is not None and worth_showing(found[0], text):
        return [f"closest on the screen: {found[2]!r} on row {found[1]} "
                f"({found[0]} edit{'s' * (found[0] > 1)} away)"]
    return []


def leaf_outlines(leaf: Predicate, snap: Snapshot) -> list[Outline]:
    """The cells ``leaf`` looked at on ``snap``."""
    region = region_of(leaf)
    if region is not None:
        if region.history or region.command is not None:
            return []
        top, bottom, left, right = region.bounds(snap)
        return [Outline(top, left, bottom, right, str(region))]
    cur = snap.cursor
    if isinstance(leaf, CursorAfter):
        width = max(1, len(leaf.text))
        left = max(0, cur.col - width)
        return [Outline(cur.row, left, cur.row + 1, max(cur.col, left + 1),
                        f"left of the cursor, where {leaf.text!r} was awaited")]
    if isinstance(leaf, CursorAt):
        rows = range(snap.rows) if leaf.row is None else [leaf.row % snap.rows]
        cols = (0, snap.cols) if leaf.col is None else (leaf.col % snap.cols,
                                                       leaf.col % snap.cols + 1)
        return [Outline(min(rows), cols[0], max(rows) + 1, cols[1], leaf.describe())]
    return []
