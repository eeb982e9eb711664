"""A session verb called without ``await``, found when the session closes.

``term.wait_for(Text("done"))`` without ``await`` makes a coroutine and
drops it: nothing waits, the test goes on and passes, and Python's only word
is a ``RuntimeWarning`` printed at garbage collection, often under another
test's name. A forgotten ``await`` on ``type()`` is worse: the input is never
sent, and the next wait times out for no visible reason.

So each verb's coroutine is remembered with the line that made it, and when
the session's block ends, those never started are a failure naming that
line and the fix. The verbs stay coroutine functions in all but name: they
return the coroutine itself, so ``tg.start_soon(term.wait_for, pred)`` and
``await`` work as before, and a coroutine a task started is never reported.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

from ..errors import ArgumentError

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound="Verbs")

#: Past this many remembered coroutines, the finished ones are dropped.
_PRUNE_AT = 64


class Verbs:
    """Mixed into a session: the coroutines of its verbs not yet started."""

    _made: list[tuple[Coroutine[Any, Any, Any], str]]

    def _remember(self, coro: Coroutine[Any, Any, Any], call: str) -> None:
        if len(self._made) >= _PRUNE_AT:
            self._made = [(c, s) for c, s in self._made if _never_started(c)]
        self._made.append((coro, call))

    def _never_awaited(self) -> ArgumentError | None:
        """The error for the verbs called and never awaited (their coroutines
        closed, so Python adds no warning of its own); None if there were none."""
        forgotten = [(coro, call) for coro, call in self._made if _never_started(coro)]
        self._made = []
        for coro, _ in forgotten:
            coro.close()
        if not forgotten:
            return None
        lines = "\n".join(f"  {call}" for _, call in forgotten)
        return ArgumentError(
            f"{len(forgotten)} call{'s' if len(forgotten) > 1 else ''} of this session "
            f"{'were' if len(forgotten) > 1 else 'was'} never awaited, so "
            f"{'they' if len(forgotten) > 1 else 'it'} did nothing:\n{lines}\n"
            "the session's verbs are coroutines: write `await term.wait_for(...)`, "
            "`mark = await term.type(...)`")


def _never_started(coro: Coroutine[Any, Any, Any]) -> bool:
    return inspect.getcoroutinestate(coro) == inspect.CORO_CREATED


def verb(
    fn: Callable[Concatenate[S, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """Remember each call's coroutine and where it was made (see the module)."""

    @functools.wraps(fn)
    def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> Coroutine[Any, Any, R]:
        coro = fn(self, *args, **kwargs)
        caller = sys._getframe(1)
        where = f"{caller.f_code.co_filename.rsplit('/', 1)[-1]}:{caller.f_lineno}"
        self._remember(coro, f"term.{fn.__name__}() at {where}")
        return coro

    return call
