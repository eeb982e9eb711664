"""A newcomer's commonest slips say what went wrong and how to fix it,
instead of an internal error from deep inside termsim."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import program

import termsim
from termsim import ArgumentError, RecordingError, Text
from termsim.cli import main

pytestmark = pytest.mark.anyio


async def test_a_mark_that_was_not_awaited_says_so() -> None:
    async with termsim.spawn(program("rawecho.py"), record=False) as term:
        await term.wait_for(Text("READY"), timeout=10)
        forgotten = term.press("x")  # the slip: no await
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # and no "never awaited" warning on top
            with pytest.raises(ArgumentError, match=r"since= got a coroutine, not a Mark: "
                               r".*`mark = await term\.press\(\.\.\.\)`"):
                await term.wait_for(Text("x"), since=forgotten, timeout=5)  # type: ignore[arg-type]
        with pytest.raises(ArgumentError, match="since= takes the Mark that type"):
            term.transcript(since="x")  # type: ignore[arg-type]


async def test_send_takes_bytes_and_names_type_for_text() -> None:
    async with termsim.spawn(program("rawecho.py"), record=False) as term:
        await term.wait_for(Text("READY"), timeout=10)
        with pytest.raises(ArgumentError, match=r"send\(\) takes bytes, not str: "
                           r"type\('hello'\) types text as keys"):
            await term.send("hello")  # type: ignore[arg-type]
        # An int would have sent that many NUL bytes.
        with pytest.raises(ArgumentError, match=r"send\(\) takes bytes, not int"):
            await term.send(5)  # type: ignore[arg-type]
        mark = await term.send(b"ok")
        await term.wait_for(Text("ok"), since=mark, timeout=10)


def test_an_asciicast_renamed_tsr_points_at_termsim_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cast = tmp_path / "session.tsr"
    cast.write_text(json.dumps({"version": 2, "width": 80, "height": 24}) + "\n"
                    + json.dumps([0.5, "o", "hello\r\n"]) + "\n")
    with pytest.raises(RecordingError, match=r"asciicast .*`termsim import"):
        termsim.files.Recording.open(cast)
    assert main(["info", str(cast)]) == 1
    err = capsys.readouterr().err
    assert "looks like an asciicast" in err and "termsim import" in err


def test_a_closed_pipe_ends_a_command_quietly() -> None:
    # `termsim profiles | head`: the reader is gone before the output is
    # written (closed here before the command starts, so it is certain).
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "termsim", "profiles"], stdout=write,
                              stderr=subprocess.PIPE, timeout=60, check=False)
    finally:
        os.close(write)
    assert done.stderr == b""
    assert done.returncode == 141  # as a shell reports a command that SIGPIPE ended


async def test_a_key_pressed_after_the_block_says_where_input_goes(tmp_path: Path) -> None:
    path = tmp_path / "echo.tsr"
    async with termsim.spawn(program("rawecho.py"), record=path) as term:
        await term.wait_for(Text("READY"), timeout=10)
    with pytest.raises(termsim.SessionClosed, match=r"cannot send key enter: the session "
                       r"is closed \(its `async with` block has ended.*inside the block"):
        await term.press("enter")
    with pytest.raises(termsim.SessionClosed, match=r"cannot send resize 10x5: the session"):
        await term.resize(10, 5)
    async with termsim.replay(path) as replayed:
        await replayed.wait_for(Text("READY"), timeout=10)
    with pytest.raises(termsim.SessionClosed, match=r"cannot send typed 'x': the session is"):
        await replayed.type("x")


def test_a_mistyped_shake_variant_is_one_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_one="def test_nothing():\n    pass\n")
    result = pytester.runpytest("--termsim-shake-variant=splt 29")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert err.count("not a perturbation: 'splt 29'") == 1, err
    assert "Traceback" not in err + result.stdout.str()


def test_spawn_outside_async_code_says_how_to_call_it() -> None:
    with pytest.raises(ArgumentError, match=r"termsim\.spawn\(\) needs a running event loop: "
                       r"use `async with termsim\.spawn\(\.\.\.\) as term:`"):
        termsim.spawn(program("rawecho.py"))


def test_an_async_test_without_the_anyio_mark_is_told_to_add_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_unmarked="async def test_turn():\n    pass\n")
    result = pytester.runpytest("-p", "no:asyncio")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*test_turn is an async test, and nothing runs it: mark it "
                                 "for anyio's pytest plugin*pytestmark = pytest.mark.anyio*"])
