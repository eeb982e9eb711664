"""Sessions nest: ``async with spawn(...)`` is the lifetime, and without the
block ``start()`` and ``aclose()`` are its two ends.

Each case runs a real program (``tests/programs/stubborn.py``, which ignores
SIGHUP and SIGTERM and forks a grandchild that does too) in a real PTY, on
both anyio backends, and then checks that nothing of the session is left:
no task in the event loop, no fd in this process, no process of its tree.
A misuse (a second start, an aclose from a task that could not leave what
start entered, an aclose at another level of cancel scopes) is a termsim
error that names the fix, not anyio's "cancel scope" error later.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest
from conftest import program, stubborn_pids

import termsim
from termsim import ArgumentError, SessionClosed, Text
from termsim.live.process import descendants, is_running
from termsim.live.pty import CLOSER

pytestmark = pytest.mark.anyio


def open_fds() -> set[int]:
    return {int(fd) for fd in os.listdir("/proc/self/fd")}


@contextmanager
def nothing_left() -> Iterator[list[int]]:
    """Around a session: afterwards no task, fd or process of it is left.
    The session's program's pids go in the list it gives."""
    tasks = {task.id for task in anyio.get_running_tasks()}
    fds = open_fds()
    pids: list[int] = []
    yield pids
    assert pids, "the program's pids were not read"
    assert not [pid for pid in pids if is_running(pid)]
    assert not descendants(os.getpid())
    assert {task.id for task in anyio.get_running_tasks()} <= tasks
    # The inotify fd is closed by a thread of its own (the kernel makes its
    # close wait): nothing waits for it but this check.
    assert CLOSER.settled(timeout=10)
    assert open_fds() <= fds


async def test_start_then_aclose_in_a_cancel_scope_leaves_nothing() -> None:
    with nothing_left() as pids:
        with anyio.fail_after(30):
            term = termsim.spawn(program("stubborn.py"), record=False)
            await term.start()
            pids += await stubborn_pids(term)
            await term.aclose()
        assert term._pty._tg is None  # the task group start() entered is left


async def test_aclose_in_a_cancelled_scope_still_leaves_nothing() -> None:
    with nothing_left() as pids:
        with anyio.CancelScope() as scope:
            term = termsim.spawn(program("stubborn.py"), record=False)
            await term.start()
            pids += await stubborn_pids(term)
            scope.cancel()
            await term.aclose()  # shielded: the whole teardown runs
            await anyio.lowlevel.checkpoint()  # here the scope's cancellation lands
            pytest.fail("the cancelled scope let the block go on")
        assert scope.cancelled_caught


async def test_start_and_aclose_pair_in_a_task_of_their_own() -> None:
    """The two ends in a task of a task group: leaving the group raises nothing."""
    with nothing_left() as pids:
        async def session() -> None:
            term = termsim.spawn(program("stubborn.py"), record=False)
            await term.start()
            try:
                pids.extend(await stubborn_pids(term))
            finally:
                await term.aclose()

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(session)


async def test_a_block_can_be_closed_from_any_task_and_inside_a_scope() -> None:
    with nothing_left() as pids:
        with anyio.fail_after(30):
            async with termsim.spawn(program("stubborn.py"), record=False) as term:
                pids += await stubborn_pids(term)
                async with anyio.create_task_group() as tg:
                    tg.start_soon(term.aclose)  # another task: it ends the program
                with anyio.fail_after(10):  # a scope entered in the block: no misnesting
                    await term.aclose()
            assert term._pty._tg is None


async def test_starting_twice_names_the_fix() -> None:
    with nothing_left() as pids:
        async with termsim.spawn(program("stubborn.py"), record=False) as term:
            pids += await stubborn_pids(term)
            with pytest.raises(ArgumentError, match=r"started already.*call start\(\) once"):
                await term.start()
        with pytest.raises(SessionClosed, match=r"spawn\(\) a new one"):
            await term.start()


async def test_aclose_from_another_task_ends_the_program_and_names_the_fix() -> None:
    with nothing_left() as pids:
        term = termsim.spawn(program("stubborn.py"), record=False)
        await term.start()
        pids += await stubborn_pids(term)
        raised: list[BaseException] = []

        async def other() -> None:
            try:
                await term.aclose()
            except ArgumentError as exc:
                raised.append(exc)

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(other)
        assert len(raised) == 1
        assert "call aclose() in the task that called start()" in str(raised[0])
        assert not [pid for pid in pids if is_running(pid)]  # the program has ended
        assert term._pty._tg is not None  # what only this task can leave
        await term.aclose()  # the owner's: leaves it
        assert term._pty._tg is None


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_aclose_inside_a_scope_start_was_not_in_names_the_fix() -> None:
    """A ``with`` around aclose() alone misnests the task group start()
    entered; anyio refuses, and the error says what to change. (asyncio only:
    trio, refusing, marks its own state as corrupted for the rest of the run.)"""
    term = termsim.spawn(program("stubborn.py"), record=False)
    await term.start()
    pids = await stubborn_pids(term)
    with pytest.raises(ArgumentError, match="at the same level") as info:
        with anyio.fail_after(30):
            await term.aclose()
    assert "cancel scope" in str(info.value.__cause__)
    assert not [pid for pid in pids if is_running(pid)]  # the teardown ran first


async def test_a_session_in_a_block_still_waits_and_types() -> None:
    """The lifetime changes nothing of what the block does with the program."""
    async with termsim.spawn(["sh", "-c", "echo ready; read line; echo got $line"],
                             record=False) as term:
        await term.wait_for(Text("ready"), timeout=10)
        mark = await term.type("x\n")
        await term.wait_for(Text("got x"), since=mark, timeout=10)
