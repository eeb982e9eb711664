"""Shaking a recording: other ways the same session could physically have happened.

Theory of operation
-------------------

A test that passed once may pass only because its program's output
happened to arrive in certain reads, at certain moments. A recording keeps
every byte with its time, so the same session can be replayed with the
output delivered differently, and the test body run against each variant
(``pytest --termsim-shake=N``, ``termsim.replay(path, perturb=...)``). A
variant that fails the test is a race found before CI finds it.

Only variants that could have happened are made, so a correct test never
fails under shake. A variant is a list of operations on the recorded events
(``docs/shake.md`` has the model in full):

* :class:`Split`: a read is cut in two at a byte (inside an escape
  sequence or a UTF-8 character too): a PTY may deliver any prefix first.
* :class:`Pause`: a read cut in two whose second half comes up to
  ``PAUSE`` later (a program that drew one screen in two writes,
  descheduled between them), so a test that relies on a screen arriving
  whole is caught though the live run never cut it; never so long that a
  recorded wait spanning it would use more than half its timeout.
* :class:`Merge`: two consecutive reads become one, at the later one's
  time: the reader was late.
* :class:`Delay`: output the test did not wait for, read just before the
  test's input, arrives just after it instead: the program wrote it before
  it read the input, and it was still in flight. It stays before the event
  that says the program read the input, so causality is kept; it never
  moves past a wait's end, an input read, a reply, a tty change or the exit.
* :class:`Stretch`: a pause between two events of at least ``MIN_GAP`` gets
  longer or shorter (x0.5 to x2), and so does everything after it; never so
  much that a recorded wait spanning it would use more than half its
  timeout.

Operations name events by their index in the recording and bytes by their
offset in the session's whole output, so a variant is a short text
(``"split 3021; delay 17x2"``) that :func:`parse` reads back, a failure can
be shrunk to its fewest operations, and described in words.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..emulator.answers.queries import printable
from ..emulator.parsing.grammar import PLAIN, Span, sequences
from ..events import (
    Event,
    Input,
    Output,
    WaitEnded,
    WaitStarted,
)

#: The shortest pause a Stretch changes (shorter gaps are one burst of output).
MIN_GAP = 0.02
#: How far a Stretch goes either way.
STRETCH = (0.5, 2.0)
#: The longest pause a Split puts between the halves of a read.
PAUSE = 0.5


@dataclass(frozen=True, slots=True)
class Split:
    """The read holding output byte ``at`` is cut just before it."""

    at: int

    def __str__(self) -> str:
        return f"split {self.at}"


@dataclass(frozen=True, slots=True)
class Pause:
    """The output from byte ``at`` on arrives ``seconds`` later (the read
    holding it is cut there, and everything after it moves): the program
    wrote one screen in two writes, or was descheduled between them. Apart
    from :class:`Split`, so that shrinking drops the pause when the cut
    alone fails the test."""

    at: int
    seconds: float

    def __str__(self) -> str:
        return f"pause {self.at}+{self.seconds:g}"


@dataclass(frozen=True, slots=True)
class Merge:
    """The read at event ``index`` and the next read are one read."""

    index: int

    def __str__(self) -> str:
        return f"merge {self.index}"


@dataclass(frozen=True, slots=True)
class Delay:
    """The last ``count`` reads before the input at event ``index`` arrive
    right after that input instead."""

    index: int
    count: int = 1

    def __str__(self) -> str:
        return f"delay {self.index}x{self.count}"


@dataclass(frozen=True, slots=True)
class Stretch:
    """The pause before event ``index`` lasts ``factor`` times as long."""

    index: int
    factor: float

    def __str__(self) -> str:
        return f"stretch {self.index}*{self.factor:g}"


Op = Split | Pause | Merge | Delay | Stretch

@dataclass(frozen=True, slots=True)
class Perturbation:
    """A variant of a recorded session: operations applied in a fixed order."""

    ops: tuple[Op, ...] = ()

    def __str__(self) -> str:
        return "; ".join(str(op) for op in self.ops) or "(none)"

    def __bool__(self) -> bool:
        return bool(self.ops)

    def without(self, ops: Sequence[Op]) -> Perturbation:
        """This variant less some of its operations: how shake shrinks a
        failing variant to the smallest that still fails."""
        drop = set(ops)
        return Perturbation(tuple(op for op in self.ops if op not in drop))

    def apply(self, events: Sequence[Event]) -> list[Event]:
        """The events of the variant (operations that do not fit are skipped)."""
        merges = {op.index for op in self.ops if isinstance(op, Merge)}
        delays = {op.index: op.count for op in self.ops if isinstance(op, Delay)}
        stretch = {op.index: op.factor for op in self.ops if isinstance(op, Stretch)}
        pauses: dict[int, float] = {}
        for op in self.ops:
            if isinstance(op, Split | Pause):
                pause = op.seconds if isinstance(op, Pause) else 0.0
                pauses[op.at] = max(pauses.get(op.at, 0.0), pause)
        splits = sorted(pauses)
        out: list[Event] = []
        shift = 0.0
        offset = 0
        held: Output | None = None  # a read merged with the next one
        prev_t = events[0].t if events else 0.0
        for i, event in enumerate(events):
            gap = event.t - prev_t
            prev_t = event.t
            if i in stretch and gap >= MIN_GAP:
                shift += gap * (stretch[i] - 1)
            t = event.t + shift
            if isinstance(event, Output):
                data = event.data
                pieces = _cut(data, offset, splits)
                times = [t]
                for at in splits:
                    if offset < at < offset + len(data):
                        shift += pauses[at]
                        times.append(event.t + shift)
                offset += len(data)
                if held is not None:
                    pieces[0] = held.data + pieces[0]
                    held = None
                if i in merges and _next_is_output(events, i):
                    held = Output(t, b"".join(pieces))
                    continue
                out.extend(Output(when, piece) for when, piece in zip(times, pieces, strict=True))
                continue
            if held is not None:  # the next event was not a read after all
                out.append(held)
                held = None
            if isinstance(event, Input) and i in delays:
                moved = _movable_tail(out, delays[i])
                del out[len(out) - len(moved):]
                out.append(replace(event, t=t))
                out.extend(replace(m, t=max(m.t, t)) for m in moved)
                continue
            out.append(replace(event, t=t))
        if held is not None:
            out.append(held)
        return out

    def describe(self, events: Sequence[Event]) -> list[str]:
        """Each operation in words, with the output around it."""
        return [_describe(op, events) for op in self.ops]


def _cut(data: bytes, offset: int, splits: Sequence[int]) -> list[bytes]:
    cuts = [at - offset for at in splits if offset < at < offset + len(data)]
    pieces, start = [], 0
    for cut in cuts:
        pieces.append(data[start:cut])
        start = cut
    pieces.append(data[start:])
    return pieces


def _next_is_output(events: Sequence[Event], i: int) -> bool:
    return i + 1 < len(events) and isinstance(events[i + 1], Output)


def _movable_tail(out: list[Event], count: int) -> list[Event]:
    """Up to ``count`` reads at the end of ``out``, after its last other event:
    a wait's end, an input read, a reply, a tty change, an exit... each says
    what the test or the program had seen or done by then."""
    tail: list[Event] = []
    for event in reversed(out):
        if not isinstance(event, Output) or len(tail) == count:
            break
        tail.insert(0, event)
    return tail


def output_offsets(events: Sequence[Event]) -> list[int]:
    """For each event, the output bytes before it."""
    out, offset = [], 0
    for event in events:
        out.append(offset)
        if isinstance(event, Output):
            offset += len(event.data)
    return out


def random_variant(events: Sequence[Event], rng: random.Random) -> Perturbation:
    """A variant that could have happened, drawn from ``rng``.

    Each read is cut at a random byte with probability 0.3; one read in
    twenty is cut at every byte (read one byte at a time); consecutive reads
    merge with probability 0.2; output read just before an input the test
    sent without waiting arrives after it with probability 0.5; each pause
    is stretched or shrunk with probability 0.2. The time pauses and
    stretches add is counted per recorded wait, all of them together: no
    wait is taken past half its timeout by the variant as a whole, not
    only by each operation.
    """
    ops: list[Op] = []
    offsets = output_offsets(events)
    waits = _wait_spans(events)
    # Pauses are drawn from a generator of their own, seeded from ``rng``'s
    # state without drawing from it: the variants made before pauses
    # existed stay the same, pause or not. Seeded with the state's text, not
    # its ``hash()``: before Python 3.12 the hash of the None in that state
    # is its address, so the same seed drew other pauses in another process.
    pauses = random.Random(repr(rng.getstate()[1]))
    for i, event in enumerate(events):
        if isinstance(event, Output) and len(event.data) > 1:
            base = offsets[i]
            if rng.random() < 0.05 and len(event.data) <= 256:
                ops += [Split(base + k) for k in range(1, len(event.data))]
            elif rng.random() < 0.3:
                at = base + rng.randrange(1, len(event.data))
                ops.append(Split(at))
                if pauses.random() < 0.3:
                    room = _pause_limit(waits, event.t)
                    pause = _milliseconds(min(pauses.uniform(MIN_GAP, PAUSE), room))
                    if pause >= MIN_GAP:
                        ops.append(Pause(at, pause))
                        _spend(waits, event.t, pause, inclusive=True)
            if _next_is_output(events, i) and rng.random() < 0.2:
                ops.append(Merge(i))
        elif isinstance(event, Input) and i and isinstance(events[i - 1], Output) \
                and rng.random() < 0.5:
            ops.append(Delay(i, rng.randint(1, 3)))
        if i and rng.random() < 0.2:
            gap = event.t - events[i - 1].t
            if gap >= MIN_GAP:
                factor = rng.uniform(*STRETCH)
                limit = _stretch_limit(waits, events[i - 1].t, gap)
                factor = _milliseconds(min(factor, limit))
                ops.append(Stretch(i, factor))
                _spend(waits, events[i - 1].t, gap * max(0.0, factor - 1), inclusive=False)
    return Perturbation(tuple(ops))


def _milliseconds(value: float) -> float:
    """``value`` to three decimals (as variants are written), rounded down:
    never past the limit it was held to."""
    return math.floor(value * 1000) / 1000


class _WaitSpan:
    """A recorded wait, and the time a variant's operations add to it."""

    __slots__ = ("added", "end", "start", "timeout")

    def __init__(self, start: float, end: float, timeout: float) -> None:
        self.start, self.end, self.timeout = start, end, timeout
        self.added = 0.0

    def room(self) -> float:
        """How much more time it may take and stay within half its timeout."""
        return max(0.0, self.timeout / 2 - (self.end - self.start) - self.added)

    def spans(self, at: float, *, inclusive: bool) -> bool:
        return self.start <= at <= self.end if inclusive else self.start <= at < self.end


def _wait_spans(events: Sequence[Event]) -> list[_WaitSpan]:
    """Each recorded wait: its start, its end and its timeout."""
    starts = {e.id: e for e in events if isinstance(e, WaitStarted)}
    return [_WaitSpan(starts[e.id].t, e.t, starts[e.id].timeout)
            for e in events if isinstance(e, WaitEnded) and e.id in starts]


def _spend(waits: list[_WaitSpan], at: float, seconds: float, *, inclusive: bool) -> None:
    """An operation at ``at`` added ``seconds`` to every wait spanning it."""
    if seconds > 0:
        for wait in waits:
            if wait.spans(at, inclusive=inclusive):
                wait.added += seconds


def _stretch_limit(waits: list[_WaitSpan], at: float, gap: float) -> float:
    """The largest factor for the pause at ``at`` that keeps every wait
    spanning it within half its timeout, with what the variant added so far."""
    limit = STRETCH[1]
    for wait in waits:
        if gap > 0 and wait.spans(at, inclusive=False):
            limit = min(limit, 1 + wait.room() / gap)
    return max(1.0, limit)


def _pause_limit(waits: list[_WaitSpan], at: float) -> float:
    """The longest pause at ``at`` that keeps every wait spanning it within
    half its timeout, with what the variant added so far."""
    limit = PAUSE
    for wait in waits:
        if wait.spans(at, inclusive=True):
            limit = min(limit, wait.room())
    return limit


def parse(spec: str) -> Perturbation:
    """A variant from its text (``str(perturbation)``): ``"split 3021; merge 12"``."""
    ops: list[Op] = []
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        if part == "(none)":
            continue
        if m := re.fullmatch(r"split (\d+)", part):
            ops.append(Split(int(m[1])))
        elif m := re.fullmatch(r"pause (\d+)\+([\d.]+)", part):
            ops.append(Pause(int(m[1]), float(m[2])))
        elif m := re.fullmatch(r"merge (\d+)", part):
            ops.append(Merge(int(m[1])))
        elif m := re.fullmatch(r"delay (\d+)x(\d+)", part):
            ops.append(Delay(int(m[1]), int(m[2])))
        elif m := re.fullmatch(r"stretch (\d+)\*([\d.]+)", part):
            ops.append(Stretch(int(m[1]), float(m[2])))
        else:
            raise ValueError(f"not a perturbation: {part!r} (split N; merge N; delay NxK; "
                             "stretch N*F; pause N+S)")
    return Perturbation(tuple(ops))


# -- words ------------------------------------------------------------------------------


def _spans(stream: bytes, start: int, end: int) -> list[Span]:
    """The tokens of ``stream[start:end]`` as the terminal reads them
    (``grammar.sequences``), offsets in ``stream``."""
    return [span._replace(start=span.start + start, end=span.end + start)
            for span in sequences(stream[start:end])]


def _inside(spans: list[Span], at: int) -> Span | None:
    """The escape sequence or string ``at`` falls strictly inside."""
    for span in spans:
        if span.start < at < span.end and span.kind not in PLAIN:
            return span
    return None


def visible(data: bytes, limit: int = 24, *, tail: bool = False) -> str:
    """The printable text of some output (escape sequences and strings
    dropped, controls as spaces)."""
    kept = [data[span.start:span.end] if span.kind == "text" else b" "
            for span in sequences(data) if span.kind in PLAIN]
    text = " ".join(b"".join(kept).decode("utf-8", "replace").split())
    if len(text) > limit:
        text = ("…" + text[-limit:]) if tail else (text[:limit] + "…")
    return text


def text_before(stream: bytes, at: int, size: int = 200) -> str:
    """The visible text of the ``size`` bytes before ``at``, never starting in
    the middle of an escape sequence."""
    start = max(0, at - size)
    span = _inside(_spans(stream, max(0, start - 64), at), start)
    if span is not None:
        start = span.end
    return visible(stream[start:at], tail=True)


def _around(stream: bytes, at: int) -> str:
    """``between 'text before' and 'text after'``, naming the escape sequence
    (or the character) the byte falls inside."""
    window = 300
    start = max(0, at - window)
    inside = ""
    cut_before, cut_after = at, at
    span = _inside(_spans(stream, start, min(len(stream), at + window)), at)
    if span is not None:
        inside = f", inside {printable(stream[span.start:span.end].decode('latin-1'))}"
        cut_before, cut_after = span.start, span.end
    if not inside and at < len(stream) and 0x80 <= stream[at] < 0xC0:
        inside = ", inside a UTF-8 character"
        while cut_before > 0 and 0x80 <= stream[cut_before] < 0xC0:
            cut_before -= 1
        while cut_after < len(stream) and 0x80 <= stream[cut_after] < 0xC0:
            cut_after += 1
    before = text_before(stream, cut_before, window)
    after = visible(stream[cut_after:cut_after + window])
    return f"{inside}, between {before!r} and {after!r}"


def _stream(events: Sequence[Event]) -> bytes:
    return b"".join(e.data for e in events if isinstance(e, Output))


def _describe(op: Op, events: Sequence[Event]) -> str:
    stream = _stream(events)
    if isinstance(op, Split):
        return f"output split at byte {op.at}{_around(stream, op.at)}"
    if isinstance(op, Pause):
        return (f"output from byte {op.at} on arrives {op.seconds:g} s later"
                f"{_around(stream, op.at)}")
    if isinstance(op, Merge):
        at = output_offsets(events)[op.index]
        return f"two reads delivered as one, at byte {at}"
    if isinstance(op, Delay):
        event = events[op.index] if op.index < len(events) else None
        label = event.label if isinstance(event, Input) else f"event {op.index}"
        moved = [e for e in events[:op.index] if isinstance(e, Output)][-op.count:]
        text = visible(b"".join(m.data for m in moved), tail=True)
        return (f"output {text!r}, written before the program read {label}, "
                f"arrives after {label} was sent")
    gap = events[op.index].t - events[op.index - 1].t if 0 < op.index < len(events) else 0.0
    after = visible(_stream(events[op.index:])[:200])
    return (f"the {gap:.3f} s pause before {after!r} lasts {gap * op.factor:.3f} s")
