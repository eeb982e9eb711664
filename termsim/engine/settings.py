"""Defaults that tools set around tests: where sessions record, what stands
in for them, and where golden screens live.

The pytest plugin records every session a test spawns without the test
saying so. It does that through :func:`record_sessions`, a public hook any
other runner can use too, instead of reaching into a module of termsim.
``spawn(record=...)`` always wins over the hook; ``record=False`` opts out.
Shaking a test (``--termsim-shake``) runs its body again with
:func:`substitute_sessions` handing out replays where it calls ``spawn``,
and its goldens checked, never written (:func:`goldens_checked_only`).

Each setting is a :class:`contextvars.ContextVar`, not a module global: a
test (or one task of it) that sets one cannot change what a concurrent test
or task sees, while the tasks it starts inherit it (anyio and asyncio copy
the context into a new task). A test runner that runs a test's coroutine in
a task made before the test (anyio's pytest runner keeps one task for a
whole module) carries them over with :func:`current` and :func:`applied`,
as the pytest plugin does.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

#: Given the argv of a session about to start, the file to record it to
#: (None: do not record this one).
PathFor = Callable[[list[str]], "str | os.PathLike[str] | None"]


class StandIn(Protocol):
    """A session given out instead of a live one (a replay, under shake).

    Typed by what ``spawn()``'s caller does with it, so this module needs
    nothing of the driver (which, through ``expect_screen``, needs this one).
    """

    async def __aenter__(self) -> Any: ...

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> bool | None: ...


#: Given the argv of a session about to start and spawn's other arguments,
#: a session to use instead (a replay), or None to start the program.
Substitute = Callable[[list[str], dict[str, Any]], "StandIn | None"]

#: Given a golden screen's name (``expect_screen(golden="prompt")``), its file.
GoldenPath = Callable[[str], "str | os.PathLike[str]"]
#: Told of every golden used: its path and what became of it ("matched",
#: "written", "updated", "missing", "differs").
GoldenUsed = Callable[[str, str], None]


@dataclass(frozen=True, slots=True)
class Goldens:
    path_for: GoldenPath | None = None
    update: bool = False
    used: GoldenUsed | None = None
    #: Compared, never written, whatever ``update`` or TERMSIM_UPDATE say
    #: (:func:`goldens_checked_only`).
    checked_only: bool = False


@dataclass(frozen=True, slots=True)
class Matrix:
    """One combination of a test matrix (``@pytest.mark.termsim(profiles=...,
    sizes=...)``, ``--termsim-profiles``): the terminal profile and the size
    sessions take when the test does not say."""

    profile: str | None = None
    size: tuple[int, int] | None = None

    def label(self) -> str:
        """As in a test's id: ``kitty-40x12``."""
        parts = [self.profile] if self.profile else []
        if self.size is not None:
            parts.append(f"{self.size[0]}x{self.size[1]}")
        return "-".join(parts)


@dataclass(frozen=True, slots=True)
class Settings:
    """All the settings of one context, to carry them into another task."""

    path_for: PathFor | None
    substitute: Substitute | None
    goldens: Goldens
    hygiene: bool = False
    matrix: Matrix | None = None


_path_for: ContextVar[PathFor | None] = ContextVar("termsim_record_sessions", default=None)
_substitute: ContextVar[Substitute | None] = ContextVar("termsim_substitute_sessions",
                                                        default=None)
_NO_GOLDENS = Goldens()  # frozen: one default for every context
_goldens: ContextVar[Goldens] = ContextVar("termsim_golden_screens", default=_NO_GOLDENS)
_hygiene: ContextVar[bool] = ContextVar("termsim_check_hygiene", default=False)
_matrix: ContextVar[Matrix | None] = ContextVar("termsim_matrix", default=None)


def current() -> Settings:
    """The settings seen here (to apply them where a test's coroutine runs)."""
    return Settings(_path_for.get(), _substitute.get(), _goldens.get(), _hygiene.get(),
                    _matrix.get())


@contextmanager
def applied(settings: Settings) -> Iterator[None]:
    """Inside this block, ``settings`` hold (taken elsewhere by :func:`current`)."""
    tokens = (_path_for.set(settings.path_for), _substitute.set(settings.substitute),
              _goldens.set(settings.goldens))
    hygiene = _hygiene.set(settings.hygiene)
    matrix = _matrix.set(settings.matrix)
    try:
        yield
    finally:
        _matrix.reset(matrix)
        _hygiene.reset(hygiene)
        _goldens.reset(tokens[2])
        _substitute.reset(tokens[1])
        _path_for.reset(tokens[0])


@contextmanager
def record_sessions(path_for: PathFor | None) -> Iterator[None]:
    """Record every session started in this block to ``path_for(argv)``.

    Seen by the tasks this block's task starts (sessions run in many tasks
    of one test), not by concurrent ones; restored when the block ends;
    blocks nest. ``None`` turns the default off.
    """
    token = _path_for.set(path_for)
    try:
        yield
    finally:
        _path_for.reset(token)


def recording_path_for(argv: list[str]) -> str | None:
    """Where a session of ``argv`` records by default (None: nowhere)."""
    path_for = _path_for.get()
    if path_for is None:
        return None
    path = path_for(list(argv))
    return None if path is None else os.fspath(path)


@contextmanager
def substitute_sessions(substitute: Substitute | None) -> Iterator[None]:
    """Inside this block, ``spawn()`` asks ``substitute(argv, options)`` first
    (``options``: spawn's other arguments) and returns what it gives, if
    anything, instead of starting the program. The pytest plugin's shake runs
    a test's body against replays this way."""
    token = _substitute.set(substitute)
    try:
        yield
    finally:
        _substitute.reset(token)


def substitute_for(argv: list[str], options: dict[str, Any]) -> StandIn | None:
    """The session to use instead of starting ``argv`` (None: start it)."""
    substitute = _substitute.get()
    return None if substitute is None else substitute(list(argv), options)


@contextmanager
def golden_screens(path_for: GoldenPath | None, *, update: bool = False,
                   used: GoldenUsed | None = None) -> Iterator[None]:
    """Inside this block, ``expect_screen(golden=name)`` reads (and with
    ``update``, writes) the file ``path_for(name)``, and calls ``used(path,
    outcome)`` for each. The pytest plugin sets it for every test
    (``--termsim-update``); other runners can too. Blocks nest."""
    token = _goldens.set(Goldens(path_for, update, used))
    try:
        yield
    finally:
        _goldens.reset(token)


@contextmanager
def goldens_checked_only() -> Iterator[None]:
    """Inside this block, goldens are compared and never written (not even
    with ``update`` or TERMSIM_UPDATE=1), and their use is not reported.
    Shake runs a passing test's body against variants of its recordings
    this way: a variant checks the goldens the live run checked, and must
    neither rewrite one (a screen a variant made would pass as the new
    golden) nor count in the run's "written, unchanged" summary."""
    goldens = _goldens.get()
    token = _goldens.set(Goldens(goldens.path_for, checked_only=True))
    try:
        yield
    finally:
        _goldens.reset(token)


def golden_path(name: str | os.PathLike[str]) -> str | None:
    """The file of a golden: a path as given, or a name the hook resolves
    (None: a name, and no hook to resolve it)."""
    text = os.fspath(name)
    if os.sep in text or text.endswith(".screen"):
        return text
    path_for = _goldens.get().path_for
    return None if path_for is None else os.fspath(path_for(text))


def updating_goldens() -> bool:
    """Whether goldens are written (the hook's ``update``, or TERMSIM_UPDATE=1;
    never inside :func:`goldens_checked_only`)."""
    goldens = _goldens.get()
    return not goldens.checked_only and (goldens.update or
                                         os.environ.get("TERMSIM_UPDATE") == "1")


def golden_used(path: str, outcome: str) -> None:
    used = _goldens.get().used
    if used is not None:
        used(path, outcome)


@contextmanager
def check_hygiene(on: bool = True) -> Iterator[None]:
    """Inside this block, a session whose ``hygiene=`` is not given checks
    its program's leftovers (``Driver.hygiene``) when it ends, as if given
    ``hygiene=on``. The pytest plugin's ``--termsim-hygiene`` sets it."""
    token = _hygiene.set(on)
    try:
        yield
    finally:
        _hygiene.reset(token)


def hygiene_checked(given: bool | None) -> bool:
    """Whether a session checks its leftovers: as given, else this block's default."""
    return _hygiene.get() if given is None else given


@contextmanager
def matrix_combination(matrix: Matrix | None) -> Iterator[None]:
    """Inside this block, sessions that do not give a profile or a size take
    ``matrix``'s (the pytest plugin sets it for each combination)."""
    token = _matrix.set(matrix)
    try:
        yield
    finally:
        _matrix.reset(token)


def matrix_defaults() -> Matrix | None:
    """The combination this block runs in (None: no matrix)."""
    return _matrix.get()


def carried(func: Callable[..., Any], values: Settings) -> Callable[..., Any]:
    """``func`` (a coroutine function, or an async generator function: a
    pytest fixture) with ``values`` applied where its body runs, which may
    be a task made before them (anyio's runner). An async generator has them
    up to its first ``yield`` only: what it starts there (a session and its
    tasks) keeps them, and its teardown runs in whatever context ends it."""
    if inspect.isasyncgenfunction(func):
        @functools.wraps(func)
        async def generator(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            steps = func(*args, **kwargs)
            with applied(values):
                value = await steps.__anext__()
            yield value
            try:
                await steps.__anext__()
            except StopAsyncIteration:
                return
            await steps.aclose()
            raise RuntimeError(f"the fixture {func.__name__} yielded twice")

        return generator

    @functools.wraps(func)
    async def coroutine(*args: Any, **kwargs: Any) -> Any:
        with applied(values):
            return await func(*args, **kwargs)

    return coroutine
