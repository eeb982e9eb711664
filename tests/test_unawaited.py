"""A verb called without ``await`` fails the session at the end of its block,
naming the line, instead of passing with a RuntimeWarning at collection."""

from __future__ import annotations

import sys
import warnings

import anyio
import pytest

import termsim
from termsim import ArgumentError, Text

pytestmark = pytest.mark.anyio

ECHO = [sys.executable, "-c", "print('READY'); input(); print('DONE')"]


async def test_a_wait_without_await_fails_the_session_naming_its_line() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no RuntimeWarning of Python's own
        with pytest.raises(ArgumentError) as caught:
            async with termsim.spawn(ECHO, record=False) as term:
                term.wait_for(Text("NEVER SHOWN"))  # type: ignore[unused-coroutine]
                await term.wait_for(Text("READY"), timeout=10)
    message = str(caught.value)
    assert "term.wait_for() at test_unawaited.py:" in message
    assert "was never awaited" in message and "await term.wait_for(...)" in message


async def test_a_forgotten_type_is_named_too_and_the_awaited_ones_are_not() -> None:
    with pytest.raises(ArgumentError) as caught:
        async with termsim.spawn(ECHO, record=False) as term:
            await term.wait_for(Text("READY"), timeout=10)
            term.type("hello\n")  # type: ignore[unused-coroutine]
    message = str(caught.value)
    assert "term.type()" in message and "wait_for" not in message.split("\n")[1]


async def test_verbs_still_start_in_a_task_group_and_awaited_ones_pass() -> None:
    async with termsim.spawn(ECHO, record=False) as term:
        async with anyio.create_task_group() as tg:
            tg.start_soon(term.wait_for, Text("READY"))
        mark = await term.type("x\n")
        await term.wait_for(Text("DONE"), since=mark, timeout=10)
        assert await term.wait_exit(timeout=10) == 0


async def test_an_error_in_the_block_is_not_masked_by_a_forgotten_await() -> None:
    with pytest.raises(ZeroDivisionError):
        async with termsim.spawn(ECHO, record=False) as term:
            term.wait_for(Text("READY"))  # type: ignore[unused-coroutine]
            1 / 0  # noqa: B018


async def test_a_replay_reports_it_the_same_way(tmp_path: object) -> None:
    path = f"{tmp_path}/echo.tsr"
    async with termsim.spawn(ECHO, record=path) as term:
        await term.wait_for(Text("READY"), timeout=10)
    with pytest.raises(ArgumentError, match=r"term\.wait_for\(\) at test_unawaited\.py:"):
        async with termsim.replay(path) as replayed:
            replayed.wait_for(Text("READY"))  # type: ignore[unused-coroutine]
