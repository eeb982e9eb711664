"""Shake: run a passing test's body again against variants of its own recordings.

A test passed live. Its sessions were recorded, every byte with its time.
Shaking runs its body again, N times, with each ``spawn()`` answered by a
replay of the matching recording played as a variant that could physically
have happened (``_perturb``): output cut or merged differently, output still
in flight when the test sent its next key, pauses stretched or shrunk. The
replay checks the inputs as a strict replay does, on a virtual clock, so a
variant costs milliseconds. A variant that fails the body is a race the
test has: the shaker shrinks it to the fewest operations that still fail
it, and reports them in words, with the failure and a line that replays it.

Sessions a test's function-scoped fixtures started are shaken too: the
fixtures that started them (and those that take their values) run again,
up to their ``yield``, with their ``spawn()`` answered by replays, and the
body runs against what they give (:func:`run_with_fixtures`). What follows
a fixture's ``yield`` is not run again: its recording ends where the live
test's body did (the fixture's teardown had not run yet), so the replay
has nothing for it; the generator is closed, which still runs its
``finally`` and ``async with`` exits.
"""

from __future__ import annotations

import inspect
import os
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine.driver import Driver
from ..engine.settings import record_sessions
from ..engine.standins import standing_in
from ..errors import ReplayDivergence, ShakeFailure, TermsimError
from ..events import Warned
from ..recording.format import Recording
from .perturb import Op, Pause, Perturbation, Split, Stretch, parse, random_variant
from .session import ReplaySession

#: How many times the body may run while a failing variant is shrunk.
SHRINK_BUDGET = 200


def only_divergences(error: BaseException) -> bool:
    """The error is the test sending input its replay does not have (and
    nothing else went wrong)."""
    if isinstance(error, BaseExceptionGroup):
        return all(only_divergences(e) for e in error.exceptions)
    return isinstance(error, ReplayDivergence)


def describe_error(error: BaseException, depth: int = 0) -> str:
    """An error as text; for an exception group, its first few errors too."""
    head = f"{type(error).__name__}: {error}" if depth or not isinstance(
        error, TermsimError) else str(error)
    if not isinstance(error, BaseExceptionGroup):
        return head
    parts = [head]
    for sub in error.exceptions[:3]:
        parts.append("  " + describe_error(sub, depth + 1).replace("\n", "\n  "))
    if len(error.exceptions) > 3:
        parts.append(f"  … {len(error.exceptions) - 3} more")
    return "\n".join(parts)


def variant_text(variants: Sequence[object]) -> str:
    """The text of one variant per session: ``"split 3021 | (none)"``."""
    return " | ".join(str(v) for v in variants)


def parse_variants(text: str) -> list[Perturbation]:
    return [parse(part) for part in text.split("|")]


@dataclass
class FixtureRun:
    """A function-scoped fixture as the test's setup ran it: what shaking
    needs to run it again (a runner such as the pytest plugin notes these)."""

    #: The name the test and other fixtures ask for it by.
    name: str
    #: The fixture's function (a generator, a coroutine or an async generator
    #: function, or a plain one).
    func: Callable[..., Any]
    #: The arguments it was called with: the values of the fixtures it asks for.
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: How many sessions its setup started (recorded before the test's own).
    sessions: int = 0
    #: Why it cannot be run again (a method of a test class...), or None.
    unrunnable: str | None = None


def fixtures_to_rerun(runs: Sequence[FixtureRun]) -> tuple[list[FixtureRun], str | None]:
    """The fixtures a shaken body needs again, in the order they were set up
    (each after those it takes): those that started sessions and those that
    take, directly or not, one of their values; or why that cannot be done."""
    again: list[FixtureRun] = []
    names: set[str] = set()
    for run in runs:
        if run.sessions or names.intersection(run.kwargs):
            if run.unrunnable is not None:
                return [], f"its fixture {run.name!r} {run.unrunnable}"
            again.append(run)
            names.add(run.name)
    return again, None


async def run_with_fixtures(test: Callable[..., Awaitable[Any]], testargs: dict[str, Any],
                            fixtures: Sequence[FixtureRun]) -> Any:
    """Set ``fixtures`` up again (inside a :class:`Shaker`, their sessions are
    replays), then run ``test`` with their new values in place of the
    ``testargs`` the live run gave it; then close them (see the module)."""
    values: dict[str, Any] = {}
    closers: list[Callable[[], Awaitable[None]]] = []
    try:
        for run in fixtures:
            value, close = await _set_up(run, {k: values.get(k, v) for k, v in run.kwargs.items()})
            values[run.name] = value
            if close is not None:
                closers.append(close)
        return await test(**{k: values.get(k, v) for k, v in testargs.items()})
    finally:
        for close in reversed(closers):
            await close()


async def _set_up(run: FixtureRun, kwargs: dict[str, Any],
                  ) -> tuple[Any, Callable[[], Awaitable[None]] | None]:
    """The fixture's value, and what closes it (None: nothing to close)."""
    func = run.func
    if inspect.isasyncgenfunction(func):
        steps = func(**kwargs)
        return await steps.__anext__(), steps.aclose
    if inspect.isgeneratorfunction(func):
        generator = func(**kwargs)

        async def close() -> None:
            generator.close()

        return next(generator), close
    value = func(**kwargs)
    if inspect.isawaitable(value):
        value = await value
    return value, None


@dataclass
class Shaker:
    """Runs ``body`` against replays of ``paths`` (one per ``spawn()``, in order)."""

    paths: Sequence[str | os.PathLike[str]]
    body: Callable[[], None]
    #: For reports: how to name the test, and where a person should look.
    name: str = "the test"
    #: For reports: how to name each of ``paths`` (default: as given). The
    #: files are opened by ``paths``, which a caller makes absolute so that
    #: they are found from any working directory.
    shown: Sequence[str] | None = None

    def __post_init__(self) -> None:
        self.recordings = [Recording.open(p) for p in self.paths]
        self.names = [os.fspath(p) for p in self.paths] if self.shown is None \
            else list(self.shown)
        self.runs = 0
        #: Variants tried by :meth:`shake` (not counting shrinking).
        self.tried = 0
        self.mismatched = 0
        self._budget_end = SHRINK_BUDGET

    def variant(self, seed: int) -> list[Perturbation]:
        return [random_variant(r.events, random.Random(f"{seed}:{k}"))
                for k, r in enumerate(self.recordings)]

    def attempt(self, variants: Sequence[Perturbation]) -> BaseException | None:
        """Run the body once against these variants; what it raised, if anything."""
        self.runs += 1
        queue = list(zip(self.recordings, variants, strict=True))

        def substitute(argv: list[str], options: dict[str, Any]) -> Driver:
            if not queue:
                raise TermsimError(
                    "shake: the test started more sessions than it recorded when it passed")
            recording, variant = queue.pop(0)
            end = recording.end
            if end is not None and end.how == "error: not started":
                # spawn() failed live; it fails the same way here.
                warned = next((e.message for e in recording.of_type(Warned)), end.how)
                raise TermsimError(warned)
            return ReplaySession(recording, perturb=variant, timeout=options["timeout"],
                                 stall=options["stall"], hygiene=options.get("hygiene"),
                                 ignore=options.get("ignore"))

        with standing_in(substitute), record_sessions(None):
            try:
                self.body()
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # pytest.fail() and friends are BaseExceptions
                return exc
        return None

    def replayable(self) -> BaseException | None:
        """None if the body passes against its recordings replayed as they
        are; else what it raised (it checks something a replay does not
        have, such as a process id): such a test cannot be shaken."""
        return self.attempt([Perturbation() for _ in self.recordings])

    def shake(self, count: int, *, first: int = 1) -> ShakeFailure | None:
        """Try ``count`` variants; the first that fails, shrunk, or None.

        A variant on which the test sends input its recording does not have
        is not counted as a race: the sessions were matched to the wrong
        recordings (concurrent sessions of one command start in another
        order, as trio's scheduler shuffles them); :attr:`mismatched` counts
        those variants.
        """
        for seed in range(first, first + count):
            variants = self.variant(seed)
            self.tried += 1
            error = self.attempt(variants)
            if error is not None and only_divergences(error):
                self.mismatched += 1
            elif error is not None:
                return self.failure(seed, variants, error, count)
        return None

    def failure(self, seed: int, variants: list[Perturbation], error: BaseException,
                count: int) -> ShakeFailure:
        variants, error = self.shrink(variants, error)
        lines = [f"{self.name} passed live, but fails on variant {seed} of {count} of its "
                 "recorded sessions (a way its output could have arrived).",
                 f"  the smallest variant that still fails ({self.runs} runs to find it):"]
        for k, (path, variant) in enumerate(zip(self.names, variants, strict=True)):
            if not variant:
                continue
            where = f"session {k + 1} ({path})" if len(variants) > 1 else path
            lines.append(f"    {where}: {variant}")
            lines += [f"      - {d}" for d in variant.describe(self.recordings[k].events)]
        lines.append("  replay it:")
        for path, variant in zip(self.names, variants, strict=True):
            if variant or len(variants) == 1:
                lines.append(f"    termsim.replay({path!r}, "
                             f"perturb={str(variant)!r})")
        lines.append("  the failure:")
        lines += ["    " + line for line in describe_error(error).splitlines()]
        return ShakeFailure("\n".join(lines), variants=variants, error=error)

    def shrink(self, variants: list[Perturbation], error: BaseException,
               ) -> tuple[list[Perturbation], BaseException]:
        """The fewest operations (delta debugging), then the gentlest, that
        still fail the body the same way."""
        kind = type(error)
        items: list[tuple[int, Op]] = [(k, op) for k, v in enumerate(variants) for op in v.ops]

        def build(chosen: Sequence[tuple[int, Op]]) -> list[Perturbation]:
            return [Perturbation(tuple(op for j, op in chosen if j == k))
                    for k in range(len(variants))]

        def fails(chosen: Sequence[tuple[int, Op]]) -> BaseException | None:
            if self.runs >= self._budget_end:
                return None
            found = self.attempt(build(chosen))
            return found if isinstance(found, kind) else None

        self._budget_end = self.runs + SHRINK_BUDGET
        chunks = 2
        while len(items) >= 2 and chunks <= len(items):
            size = -(-len(items) // chunks)
            for start in range(0, len(items), size):
                rest = items[:start] + items[start + size:]
                found = fails(rest)
                if found is not None:
                    items, error = rest, found
                    chunks = max(chunks - 1, 2)
                    break
            else:
                if chunks == len(items):
                    break
                chunks = min(chunks * 2, len(items))
        if len(items) == 1:
            found = fails([])
            if found is not None:  # it fails with no perturbation at all
                return build([]), found
        # Gentler: a cut without its pause, a stretch closer to 1.
        for i, (k, op) in enumerate(items):
            if isinstance(op, Pause):
                candidate = [*items[:i], (k, Split(op.at)), *items[i + 1:]]
                found = fails(candidate)
                if found is not None:
                    items, error = candidate, found
        for i, (k, op) in enumerate(items):
            if isinstance(op, Stretch):
                gentler = Stretch(op.index, round((op.factor + 1) / 2, 3))
                candidate = [*items[:i], (k, gentler), *items[i + 1:]]
                found = fails(candidate)
                if found is not None:
                    items, error = candidate, found
        items.sort(key=lambda item: (item[0], not isinstance(item[1], Split)))
        return build(items), error
