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

A wait that holds returns its screen with what it found there
(:func:`matched_screen`): the parts that held (:meth:`Predicate.held`; an
``|`` keeps in the :class:`Context` which of its sides did) and the text its
``Text`` and ``Regex`` matched (:meth:`Predicate.found`), so a test reads
``screen.match.group(1)`` and ``a in screen.matched`` instead of searching
the screen again.

This module is what every predicate shares: the protocol, its
:class:`Context`, composition (``&``, ``|``, ``~`` and :class:`Sequence`,
one piece with the base class since ``&`` must build a predicate) and
:class:`Quiet`, which looks at no screen. The predicates on text are in
``text_predicates``, those on the cursor and the tty mode in
``cursor_predicates``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ..emulator.snapshot.matches import Match
from ..emulator.snapshot.snapshot import Snapshot
from ..errors import ArgumentError
from .activity import Activity, Ignore, ignored_regions
from .activity import describe as describe_regions


@dataclass(frozen=True, slots=True)
class Context:
    """What a wait knows besides the screen, when the engine evaluates it."""

    #: Seconds since the session started, on its clock (virtual in a replay).
    now: float
    #: When the program last printed (None: it never did).
    last_output: float | None
    #: The text drawn since the wait's mark (see ``Region.transcript``).
    transcript: Callable[[], str] = lambda: ""
    #: Signals (a bell, a notification...) of a later screen generation than
    #: this count for the wait: -1 without ``since=``, else the generation
    #: after which the program had read the input
    #: (``causality.Inputs.signals_after``).
    after: int = -1
    #: What each ``|`` found of its parts in this check (by the ``Any``'s
    #: id): which side held, for the screen the wait returns (``held``).
    sides: dict[int, tuple[bool, ...]] = field(default_factory=dict, compare=False,
                                               repr=False)


class Predicate:
    """Base class: a yes/no question about a snapshot, with a description."""

    #: True when the answer can change without the screen changing (it reads
    #: the tty's mode), so a pending wait must re-check it on a short timer.
    polls: bool = False
    #: The predicate a :meth:`fresh` copy was made from (None: this is no
    #: copy), so that ``Snapshot.matched`` names the predicates the test
    #: wrote, not the wait's copies.
    _origin: Predicate | None = None

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

    def held(self, snap: Snapshot, ctx: Context) -> Iterator[Predicate]:
        """The parts of this predicate that held on ``snap``, itself first,
        once :meth:`check` said it holds with ``ctx`` (``Snapshot.matched``).
        A compound descends into the parts that held; a simple predicate
        is only itself."""
        yield self

    def found(self, snap: Snapshot, ctx: Context) -> Match | None:
        """What this predicate, which held on ``snap``, found there: a
        ``Text`` or ``Regex``'s :class:`~termsim.emulator.snapshot.matches.Match`
        (``Snapshot.match``); None for a predicate that finds no text."""
        return None

    def misfit(self, cols: int, rows: int) -> str | None:
        """What this predicate looks at outside a ``cols`` x ``rows`` screen
        (None: nothing). The engine raises :class:`ValueError` for it."""
        return None

    def describe(self) -> str:
        """What is awaited, in words: the first line of a failed wait's error,
        and what the recording and the HTML report show for the wait."""
        raise NotImplementedError

    def explain(self, snap: Snapshot) -> str:
        """What the screen showed instead, for an error message. Never empty:
        a predicate with nothing particular to say gets :func:`fallback`."""
        return fallback(snap)

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


class Quiet(Predicate):
    """The program has printed nothing for ``seconds`` (on the session's
    clock: virtual in a replay). For programs that show nothing when they are
    done: ``Text("saved") & Quiet(0.2)``.

    ``ignore=``: regions where the program keeps drawing when idle (a clock,
    a spinner): then quiet means nothing changed on the rest of the screen
    for ``seconds`` (``termsim.engine.activity``), whatever it printed there.
    """

    def __init__(self, seconds: float, *, ignore: Ignore | None = None) -> None:
        if not seconds >= 0:
            raise ValueError(f"Quiet() needs seconds >= 0, not {seconds!r}")
        self.seconds = seconds
        self.ignore = ignored_regions(ignore)
        self._activity: Activity | None = None

    def fresh(self) -> Predicate:
        return Quiet(self.seconds, ignore=self.ignore)

    def __call__(self, snap: Snapshot) -> bool:
        raise TypeError("Quiet() needs the session's clock: use it in wait_for()")

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if self.ignore:
            if self._activity is None:
                self._activity = Activity(self.ignore, ctx.last_output or 0.0)
            self._activity.see(snap, ctx.now)
        # The same sum as wake_at, so the timer it sets finds it true.
        return ctx.now >= self._since(ctx) + self.seconds

    def wake_at(self, ctx: Context) -> float | None:
        return self._since(ctx) + self.seconds

    def _since(self, ctx: Context) -> float:
        if self._activity is not None:
            return self._activity.changed_at
        return ctx.last_output or 0.0

    def describe(self) -> str:
        if self.ignore:
            return f"nothing drawn outside {describe_regions(self.ignore)} for {self.seconds:g} s"
        return f"no output for {self.seconds:g} s"


class _OfParts(Predicate):
    """A predicate made of others: its simple parts and what it looks at are theirs."""

    parts: tuple[Predicate, ...]

    def leaves(self) -> Iterator[Predicate]:
        for p in self.parts:
            yield from p.leaves()

    def misfit(self, cols: int, rows: int) -> str | None:
        return next((m for p in self.parts if (m := p.misfit(cols, rows))), None)


class Sequence(_OfParts):
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
        return copied(self, Sequence(*(fresh(p) for p in self.parts)))

    def __call__(self, snap: Snapshot) -> bool:
        # On this screen alone, from the start: a plain call must not move
        # the wait's own copy on (near-miss reports call it on screens that
        # do not count, drawn before the program read the input).
        return self.fresh().check(snap, Context(0.0, None))

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

    def held(self, snap: Snapshot, ctx: Context) -> Iterator[Predicate]:
        # The stages before the last held on earlier screens: only the last
        # is about this one (if it was this one that completed it).
        yield self
        if self._stage >= len(self.parts) and self._at == snap.generation:
            yield from self.parts[-1].held(snap, ctx)

    def describe(self) -> str:
        return ", then ".join(_group(p) for p in self.parts)

    def explain(self, snap: Snapshot) -> str:
        if self._stage >= len(self.parts):
            return f"all {len(self.parts)} seen, in order"
        done = "" if not self._stage else f"{self._stage} of {len(self.parts)} seen; "
        pending = self.parts[self._stage]
        why = _particular(pending, snap)
        return f"{done}waiting for {pending.describe()}" + (f" ({why})" if why else "")


class _Compound(_OfParts):
    """Parts that must all hold (:class:`All`) or one of them (:class:`Any`)."""

    #: The word between the parts' descriptions.
    _joiner: str

    @staticmethod
    def _combine(results: Iterable[bool]) -> bool:
        """``all`` or ``any``."""
        raise NotImplementedError

    def __init__(self, *parts: Predicate) -> None:
        flat: list[Predicate] = []
        for p in parts:
            flat.extend(p.parts if isinstance(p, _Compound) and type(p) is type(self) else [p])
        self.parts = tuple(flat)
        self.polls = any(p.polls for p in self.parts)

    def fresh(self) -> Predicate:
        parts = [fresh(p) for p in self.parts]
        if all(c is p for c, p in zip(parts, self.parts, strict=True)):
            return self
        return copied(self, type(self)(*parts))

    def wake_at(self, ctx: Context) -> float | None:
        times = [t for p in self.parts if (t := p.wake_at(ctx)) is not None]
        return min(times) if times else None

    def __call__(self, snap: Snapshot) -> bool:
        return self._combine(p(snap) for p in self.parts)

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        # Every part sees every screen: a Sequence inside must not miss one.
        results = [p.check(snap, ctx) for p in self.parts]
        return self._combine(results)

    def describe(self) -> str:
        return self._joiner.join(_group(p) for p in self.parts)

    def held(self, snap: Snapshot, ctx: Context) -> Iterator[Predicate]:
        yield self
        for p, ok in zip(self.parts, self._sides(snap, ctx), strict=True):
            if ok:
                yield from p.held(snap, ctx)

    def _sides(self, snap: Snapshot, ctx: Context) -> Iterable[bool]:
        """Which parts held (all of them, for :class:`All`)."""
        return [True] * len(self.parts)


class All(_Compound):
    _joiner = " and "

    @staticmethod
    def _combine(results: Iterable[bool]) -> bool:
        return all(results)

    def explain(self, snap: Snapshot) -> str:
        return "; ".join(
            f"not {p.describe()}" + (f" ({e})" if (e := _particular(p, snap)) else "")
            for p in self.parts if not _holds(p, snap)
        ) or fallback(snap)


class Any(_Compound):
    """One of the parts holds. Every part is asked on every screen, and which
    held is kept in the check's :class:`Context`, so the screen a wait
    returns names the side that held (``Snapshot.matched``)."""

    _joiner = " or "

    @staticmethod
    def _combine(results: Iterable[bool]) -> bool:
        return any(results)

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        results = tuple(p.check(snap, ctx) for p in self.parts)
        ctx.sides[id(self)] = results
        return any(results)

    def _sides(self, snap: Snapshot, ctx: Context) -> Iterable[bool]:
        known = ctx.sides.get(id(self))
        # Asked without a check of its own (by hand): each part on the screen alone.
        return known if known is not None else [_holds(p, snap) for p in self.parts]

    def explain(self, snap: Snapshot) -> str:
        return "; ".join(e for p in self.parts if (e := _particular(p, snap))) \
            or fallback(snap)


class Not(Predicate):
    def __init__(self, inner: Predicate) -> None:
        self.inner = inner
        self.polls = inner.polls

    def __call__(self, snap: Snapshot) -> bool:
        return not self.inner(snap)

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        return not self.inner.check(snap, ctx)

    def fresh(self) -> Predicate:
        inner = fresh(self.inner)
        return self if inner is self.inner else copied(self, Not(inner))

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


def fresh(p: Predicate) -> Predicate:
    """``p.fresh()``, which remembers ``p`` when it is a copy (whatever kind
    of predicate made it): the parts a compound waits on are its copies."""
    return copied(p, p.fresh())


def copied(original: Predicate, copy: Predicate) -> Predicate:
    """``copy``, marked as made from ``original`` (unless it is ``original``)."""
    if copy is not original and copy._origin is None:
        copy._origin = original._origin or original
    return copy


def matched_screen(predicate: Predicate, snap: Snapshot, ctx: Context) -> Snapshot:
    """``snap``, on which ``predicate`` just held (its :meth:`~Predicate.check`
    with ``ctx`` said so), carrying what it found: the parts that held and
    the matches of its text predicates (``Snapshot.matched``, ``.matches``,
    ``.match``). What ``wait_for`` returns, live or replayed alike."""
    # Named as the test wrote them: the wait's copies (``fresh``) by their
    # originals, each once (one predicate may be a part twice).
    held: list[Predicate] = []
    named: list[Predicate] = []
    for p in predicate.held(snap, ctx):
        origin = p._origin or p
        if not any(origin is q for q in named):
            held.append(p)
            named.append(origin)
    matches = tuple(m for p in held if (m := p.found(snap, ctx)) is not None)
    return snap.with_matches(tuple(named), matches)


def fallback(snap: Snapshot) -> str:
    """What a failure says when a predicate has nothing particular to say:
    that it was false, and where the cursor was (the screen itself is shown
    by the error)."""
    cur = snap.cursor
    hidden = "" if cur.visible else ", hidden"
    return (f"it is false on this screen (the cursor at row {cur.row}, "
            f"column {cur.col}{hidden})")


def _particular(p: Predicate, snap: Snapshot) -> str:
    """``p``'s explanation, or "" if it is only :func:`fallback`'s sentence
    (which a compound says once for all its parts)."""
    why = p.explain(snap)
    return "" if why == fallback(snap) else why


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
