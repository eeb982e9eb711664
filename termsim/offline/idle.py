"""Nothing else can run: when a replay's virtual clock may move on.

A replay plays the program; the test's tasks play themselves. Live, time
passes between two events of the program, so a task that one of them woke
(a wait that ended) acts before the next: it sends its next input, starts
its next wait, sets an event another task waits for. On a virtual clock
nothing passes by itself, so the replay must wait for those tasks
explicitly, and the rule is that it waits until every other task of the
event loop is blocked: on the replay itself (a wait, an input the program
has not reached), on another task, on I/O or on a timer. Then nothing more
can happen at this virtual moment, and the clock moves on.

:func:`others_blocked` is that condition. On trio it is the scheduler's own
(``trio.testing.wait_all_tasks_blocked``); on asyncio the loop has no such
call (anyio's sleeps 0.1 s between looks), so it gives the other tasks one
turn at a time and looks at each task's future, as anyio's does. Tasks
inside this same wait count as blocked (two replays idle at once, or two
tasks of one), so they never wait for each other.

The one thing it cannot tell apart is a task that never blocks: one that
polls in a loop of ``await anyio.sleep(0)``. A test that polls a replay so
waits for the replay, which waits for it; such a test should wait on the
session instead (``wait_for``, an ``anyio.Event``), as it should live.
"""

from __future__ import annotations

import asyncio

import anyio
import anyio.lowlevel

#: The asyncio tasks inside :func:`others_blocked` now, per event loop.
_IDLE: anyio.lowlevel.RunVar[set[asyncio.Task[object]]] = anyio.lowlevel.RunVar(
    "termsim_idle_tasks")


async def others_blocked() -> None:
    """Return once every other task is blocked, having let them run till then."""
    try:
        me = asyncio.current_task()
    except RuntimeError:  # no asyncio loop runs this task: trio does
        import trio.testing

        await trio.testing.wait_all_tasks_blocked()
        return
    assert me is not None  # (anyio runs every coroutine in a task)
    try:
        idle = _IDLE.get()
    except LookupError:
        idle = set()
        _IDLE.set(idle)
    idle.add(me)
    try:
        while True:
            await anyio.lowlevel.checkpoint()
            if all(task is me or task in idle or _blocked(task)
                   for task in asyncio.all_tasks()):
                return
    finally:
        idle.discard(me)


def _blocked(task: asyncio.Task[object]) -> bool:
    """Whether an asyncio task waits on a future not done yet (else it is
    ready to run, or running)."""
    waiter = getattr(task, "_fut_waiter", None)
    return waiter is not None and not waiter.done()
