"""Screen-region predicates: what a test waits for, in words.

A predicate is a plain synchronous function of a :class:`~termsim.Snapshot`
that says yes or no, plus a description for error messages and recordings.
They compose with ``&``, ``|`` and ``~``; any callable taking a snapshot and
returning a bool works too (:func:`as_predicate` wraps it).

Why regions: prompt_toolkit's renderer rewrites only the cells that changed,
so ``sleeping`` may never cross the PTY as one word, and a prompt from the
previous turn stays on the screen. Asking "does the *bottom row* say
``state: sleeping``" or "is the *cursor* right after ``❯ ``" is what makes a
wait mean what the test author meant.

The waiting engine asks more than a snapshot can answer alone: how long the
program has been quiet (:class:`Quiet`), and which screens came before this
one (:class:`Sequence`). It calls :meth:`Predicate.check` with a
:class:`Context`, on a :meth:`Predicate.fresh` copy per wait, so predicates
with a memory start from nothing in each wait. Plain ``pred(snapshot)``
stays a pure function of the screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..emulator.region import Region, resolve
from ..emulator.snapshot import Snapshot
from ..errors import ArgumentError
from .nearmiss import closest, worth_showing


@dataclass(frozen=True, slots=True)
class Context:
    """What a wait knows besides the screen, when the engine evaluates it."""

    #: Seconds since the session started, on its clock (virtual in a replay).
    now: float
    #: When the program last printed (None: it never did).
    last_output: float | None
    #: The text drawn since the wait's mark (see ``Region.transcript``).
    transcript: Callable[[], str] = lambda: ""


def _shows(region: Region, snap: Snapshot) -> str:
    """``"the bottom row shows 'text'"``."""
    return f"{region} shows {region.text(snap).rstrip()!r}"


class Predicate:
    """Base class: a yes/no question about a snapshot, with a description."""

    #: True when the answer can change without the screen changing (it reads
    #: the tty's mode), so a pending wait must re-check it on a short timer.
    polls: bool = False

    def __call__(self, snap: Snapshot) -> bool:
        raise NotImplementedError

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        """The answer during a wait, which may also depend on time and on the
        screens before (the engine calls this; the default is ``self(snap)``)."""
        return self(snap)

    def fresh(self) -> Predicate:
        """The predicate a new wait evaluates: a copy with an empty memory for
        predicates that remember screens (:class:`Sequence`), else itself."""
        return self

    def wake_at(self, ctx: Context) -> float | None:
        """When the answer may change with no new screen (:class:`Quiet`), on
        the session's clock; None: only a new screen changes it."""
        return None

    def leaves(self) -> Iterator[Predicate]:
        """The simple predicates this one is made of (for near-miss reports)."""
        yield self

    def misfit(self, cols: int, rows: int) -> str | None:
        """What this predicate looks at outside a ``cols`` x ``rows`` screen
        (None: nothing). The engine raises :class:`ValueError` for it."""
        return None

    def describe(self) -> str:
        """What is awaited, in words: the first line of a failed wait's error,
        and what the recording and the HTML report show for the wait."""
        raise NotImplementedError

    def explain(self, snap: Snapshot) -> str:
        """What the screen showed instead, for an error message ("" if nothing useful)."""
        return ""

    def __and__(self, other: PredicateLike) -> Predicate:
        return All(self, as_predicate(other))

    def __rand__(self, other: PredicateLike) -> Predicate:
        return All(as_predicate(other), self)

    def __or__(self, other: PredicateLike) -> Predicate:
        return Any(self, as_predicate(other))

    def __ror__(self, other: PredicateLike) -> Predicate:
        return Any(as_predicate(other), self)

    def __invert__(self) -> Predicate:
        return Not(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"


PredicateLike = Predicate | Callable[[Snapshot], bool]


def as_predicate(obj: PredicateLike) -> Predicate:
    """Accept a predicate or any callable taking a snapshot."""
    if isinstance(obj, Predicate):
        return obj
    if callable(obj):
        return Function(obj)
    raise ArgumentError(
        f"expected a predicate (Text, Regex, CursorAt, ...) or a callable "
        f"taking a Snapshot, not {type(obj).__name__}"
    )


class _InRegion(Predicate):
    """Text or a pattern searched for in a region: shared near-miss reports."""

    region: Region

    def explain(self, snap: Snapshot) -> str:
        if self.region.history:
            return ""  # the transcript is the wait's, not the snapshot's
        parts = []
        whole = self.region == Region.screen()
        if not whole:
            parts.append(_shows(self.region, snap))
        miss = self._near_miss(snap)
        if miss:
            parts.append(miss)
        if not whole:
            elsewhere = self._count(Region.screen().text(snap)) - self._count(
                self.region.text(snap))
            if elsewhere > 0:
                parts.append(f"it is on the screen {elsewhere} time{'s' * (elsewhere > 1)} "
                             f"outside {self.region}")
        return "; ".join(parts)

    def _near_miss(self, snap: Snapshot) -> str:
        return ""

    def _count(self, text: str) -> int:
        raise NotImplementedError

    def misfit(self, cols: int, rows: int) -> str | None:
        return self.region.misfit(cols, rows)


class Text(_InRegion):
    """The region contains ``text``. The region's rows are joined with
    newlines (trailing blanks removed), so text with ``\\n`` spans rows.
    Blanks at the end of a line of ``text`` match blanks on the screen or
    the end of its row, as they look the same: ``Text("$ ")`` finds a
    prompt at the end of a row."""

    def __init__(self, text: str, region: Region | None = None) -> None:
        if not text:
            raise ValueError("Text() needs a non-empty string")
        self.text = text
        self.region = region or Region.screen()
        lines = text.split("\n")
        self._pattern: re.Pattern[str] | None = None
        if any(line != line.rstrip(" ") for line in lines):
            self._pattern = re.compile("\n".join(
                re.escape(line.rstrip(" ")) + (
                    f"(?: {{{len(line) - len(line.rstrip(' '))}}}|$)"
                    if line != line.rstrip(" ") else "")
                for line in lines), re.MULTILINE)

    def __call__(self, snap: Snapshot) -> bool:
        return self._find(self.region.text(snap))

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if self.region.history:
            return self._find(ctx.transcript())
        return self(snap)

    def _find(self, text: str) -> bool:
        if self._pattern is None:
            return self.text in text
        return self._pattern.search(text) is not None

    def describe(self) -> str:
        return f"text {self.text!r} in {self.region}"

    def _count(self, text: str) -> int:
        if self._pattern is None:
            return text.count(self.text)
        return sum(1 for _ in self._pattern.finditer(text))

    def _near_miss(self, snap: Snapshot) -> str:
        if "\n" in self.text:
            return ""
        top = self.region.bounds(snap)[0]
        found = closest(self.text, self.region.lines(snap))
        if found is None or not worth_showing(found[0], self.text):
            return ""
        distance, row, text = found
        return (f"closest: {text!r} on row {top + row} "
                f"({distance} edit{'s' * (distance > 1)} away)")


class Regex(_InRegion):
    """The region's text matches ``pattern`` (``re.search``). Rows are joined
    with newlines, trailing blanks removed; ``^`` and ``$`` match at each row
    (``re.MULTILINE``, unless a compiled pattern says otherwise)."""

    def __init__(self, pattern: str | re.Pattern[str], region: Region | None = None) -> None:
        self.pattern = (
            pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, re.MULTILINE)
        )
        self.region = region or Region.screen()

    def __call__(self, snap: Snapshot) -> bool:
        return self.pattern.search(self.region.text(snap)) is not None

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if self.region.history:
            return self.pattern.search(ctx.transcript()) is not None
        return self(snap)

    def describe(self) -> str:
        return f"regex /{self.pattern.pattern}/ in {self.region}"

    def _count(self, text: str) -> int:
        return sum(1 for _ in self.pattern.finditer(text))


def _visible_ok(visible: bool | None, snap: Snapshot) -> bool:
    return visible is None or snap.cursor.visible == visible


def _visibility(visible: bool | None) -> str:
    return {True: "", False: " (hidden)", None: " (visible or not)"}[visible]


class CursorAt(Predicate):
    """The cursor is at (row, col); ``None`` for either means any.

    ``visible``: True (the default) matches a visible cursor only, since a
    program hides it while it draws; False a hidden one; None either.
    """

    def __init__(self, row: int | None, col: int | None = None, *,
                 visible: bool | None = True) -> None:
        self.row = row
        self.col = col
        self.visible = visible

    def __call__(self, snap: Snapshot) -> bool:
        # Only negative indexes wrap: CursorAt(30) must not match row 6 of 24.
        cur = snap.cursor
        if not _visible_ok(self.visible, snap):
            return False
        if self.row is not None and cur.row != resolve(self.row, snap.rows):
            return False
        return self.col is None or cur.col == resolve(self.col, snap.cols)

    def misfit(self, cols: int, rows: int) -> str | None:
        for name, index, size in (("row", self.row, rows), ("column", self.col, cols)):
            if index is not None and not 0 <= resolve(index, size) < size:
                return f"the cursor's {name} {index}"
        return None

    def describe(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.col is not None:
            where.append(f"column {self.col}")
        place = f"at {', '.join(where)}" if where else "anywhere"
        return f"the cursor {place}{_visibility(self.visible)}"

    def explain(self, snap: Snapshot) -> str:
        cur = snap.cursor
        shown = "" if cur.visible else " (hidden)"
        return f"the cursor is at row {cur.row}, column {cur.col}{shown}"


class CursorAfter(Predicate):
    """The text immediately left of the cursor, on its row, ends with ``text``.

    The sharpest way to wait for a prompt: a prompt left over from the
    previous turn is still on the screen, but the cursor is not after it.
    ``visible`` as in :class:`CursorAt` (a visible cursor, by default).
    """

    def __init__(self, text: str, *, visible: bool | None = True) -> None:
        if not text:
            raise ValueError("CursorAfter() needs a non-empty string")
        self.text = text
        self.visible = visible

    def __call__(self, snap: Snapshot) -> bool:
        cur = snap.cursor
        return _visible_ok(self.visible, snap) and \
            snap.span(cur.row, 0, cur.col).endswith(self.text)

    def describe(self) -> str:
        return f"the cursor right after {self.text!r}{_visibility(self.visible)}"

    def explain(self, snap: Snapshot) -> str:
        cur = snap.cursor
        before = snap.span(cur.row, 0, cur.col)
        shown = "" if cur.visible else ", hidden"
        return f"left of the cursor (row {cur.row}, column {cur.col}{shown}): {before[-40:]!r}"


class InputReady(Predicate):
    """The program reads its terminal in raw mode (ICANON and ECHO off) now.

    That is when prompt_toolkit takes keys; keys sent while the line
    discipline is cooked are echoed, turned into signals or lost. termios
    changes print nothing, so a wait on this re-checks on a short timer.
    """

    polls = True

    def __call__(self, snap: Snapshot) -> bool:
        return snap.input_ready is True

    def describe(self) -> str:
        return "the program reading keys in raw mode"

    def explain(self, snap: Snapshot) -> str:
        if snap.input_ready is None:
            return "the tty mode is unknown here"
        return "the tty is in raw mode" if snap.input_ready else "the tty is cooked"


class Quiet(Predicate):
    """The program has printed nothing for ``seconds`` (on the session's
    clock: virtual in a replay). For programs that show nothing when they are
    done: ``Text("saved") & Quiet(0.2)``."""

    def __init__(self, seconds: float) -> None:
        if not seconds >= 0:
            raise ValueError(f"Quiet() needs seconds >= 0, not {seconds!r}")
        self.seconds = seconds

    def __call__(self, snap: Snapshot) -> bool:
        raise TypeError("Quiet() needs the session's clock: use it in wait_for()")

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        # The same sum as wake_at, so the timer it sets finds it true.
        return ctx.now >= (ctx.last_output or 0.0) + self.seconds

    def wake_at(self, ctx: Context) -> float | None:
        return (ctx.last_output or 0.0) + self.seconds

    def describe(self) -> str:
        return f"no output for {self.seconds:g} s"


class Sequence(Predicate):
    """``p1`` held on a screen, then ``p2`` on a later one, and so on.

    Every screen the program drew while the wait was pending is looked at,
    so a state shown for a single frame is seen. A prompt_toolkit turn::

        Sequence(Text("state: working", region=TOOLBAR),
                 PROMPT & Text("state: sleeping", region=TOOLBAR))
    """

    def __init__(self, *parts: PredicateLike) -> None:
        if not parts:
            raise ValueError("Sequence() needs at least one predicate")
        self.parts = tuple(as_predicate(p) for p in parts)
        self.polls = any(p.polls for p in self.parts)
        self._stage = 0
        self._at = -1  # the generation of the screen the last stage held on

    def fresh(self) -> Predicate:
        return Sequence(*(p.fresh() for p in self.parts))

    def __call__(self, snap: Snapshot) -> bool:
        return self.check(snap, Context(0.0, None))

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        while self._stage < len(self.parts):
            if snap.generation <= self._at or not self.parts[self._stage].check(snap, ctx):
                return False
            self._stage += 1
            self._at = snap.generation
        return True

    def wake_at(self, ctx: Context) -> float | None:
        if self._stage < len(self.parts):
            return self.parts[self._stage].wake_at(ctx)
        return None

    def leaves(self) -> Iterator[Predicate]:
        for p in self.parts:
            yield from p.leaves()

    def misfit(self, cols: int, rows: int) -> str | None:
        return next((m for p in self.parts if (m := p.misfit(cols, rows))), None)

    def describe(self) -> str:
        return ", then ".join(_group(p) for p in self.parts)

    def explain(self, snap: Snapshot) -> str:
        if self._stage >= len(self.parts):
            return ""
        done = "" if not self._stage else f"{self._stage} of {len(self.parts)} seen; "
        pending = self.parts[self._stage]
        why = pending.explain(snap)
        return f"{done}waiting for {pending.describe()}" + (f" ({why})" if why else "")


class _Compound(Predicate):
    parts: tuple[Predicate, ...]

    def __init__(self, *parts: Predicate) -> None:
        flat: list[Predicate] = []
        for p in parts:
            flat.extend(p.parts if isinstance(p, _Compound) and type(p) is type(self) else [p])
        self.parts = tuple(flat)
        self.polls = any(p.polls for p in self.parts)

    def fresh(self) -> Predicate:
        if all(p.fresh() is p for p in self.parts):
            return self
        return type(self)(*(p.fresh() for p in self.parts))

    def wake_at(self, ctx: Context) -> float | None:
        times = [t for p in self.parts if (t := p.wake_at(ctx)) is not None]
        return min(times) if times else None

    def leaves(self) -> Iterator[Predicate]:
        for p in self.parts:
            yield from p.leaves()

    def misfit(self, cols: int, rows: int) -> str | None:
        return next((m for p in self.parts if (m := p.misfit(cols, rows))), None)


class All(_Compound):
    def __call__(self, snap: Snapshot) -> bool:
        return all(p(snap) for p in self.parts)

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        # Every part sees every screen: a Sequence inside must not miss one.
        results = [p.check(snap, ctx) for p in self.parts]
        return all(results)

    def describe(self) -> str:
        return " and ".join(_group(p) for p in self.parts)

    def explain(self, snap: Snapshot) -> str:
        return "; ".join(
            f"not {p.describe()}" + (f" ({e})" if (e := p.explain(snap)) else "")
            for p in self.parts if not _holds(p, snap)
        )


class Any(_Compound):
    def __call__(self, snap: Snapshot) -> bool:
        return any(p(snap) for p in self.parts)

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        results = [p.check(snap, ctx) for p in self.parts]
        return any(results)

    def describe(self) -> str:
        return " or ".join(_group(p) for p in self.parts)

    def explain(self, snap: Snapshot) -> str:
        return "; ".join(e for p in self.parts if (e := p.explain(snap)))


class Not(Predicate):
    def __init__(self, inner: Predicate) -> None:
        self.inner = inner
        self.polls = inner.polls

    def __call__(self, snap: Snapshot) -> bool:
        return not self.inner(snap)

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        return not self.inner.check(snap, ctx)

    def fresh(self) -> Predicate:
        inner = self.inner.fresh()
        return self if inner is self.inner else Not(inner)

    def wake_at(self, ctx: Context) -> float | None:
        return self.inner.wake_at(ctx)

    def misfit(self, cols: int, rows: int) -> str | None:
        return self.inner.misfit(cols, rows)

    def describe(self) -> str:
        return f"not {_group(self.inner)}"

    def __invert__(self) -> Predicate:
        return self.inner


class Function(Predicate):
    """A plain callable, described by its docstring's first line or its name."""

    def __init__(self, fn: Callable[[Snapshot], bool]) -> None:
        self.fn = fn

    def __call__(self, snap: Snapshot) -> bool:
        return bool(self.fn(snap))

    def describe(self) -> str:
        doc = (getattr(self.fn, "__doc__", None) or "").strip().splitlines()
        if doc and not isinstance(self.fn, type) and type(self.fn).__doc__ != self.fn.__doc__:
            return doc[0]
        name = getattr(self.fn, "__qualname__", None) or repr(self.fn)
        return f"{name}(screen) is true"


def _holds(p: Predicate, snap: Snapshot) -> bool:
    """Whether ``p`` holds on ``snap`` alone, for explanations (time-dependent
    and stateful predicates are reported by their own ``explain``)."""
    try:
        return p(snap)
    except TypeError:
        return False


def _group(p: Predicate) -> str:
    text = p.describe()
    return f"({text})" if isinstance(p, (All, Any, Sequence)) else text
