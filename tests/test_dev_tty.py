"""Causal waits hold for programs that talk to their terminal through /dev/tty.

less, fzf, emacs, pinentry and password prompts open ``/dev/tty`` instead of
using fds 0 and 1. The kernel then reports their reads and writes on
``/dev/tty``, not on the pts termsim watched, so ``since=`` never counted
and every such wait timed out saying the screen matched "before the
program answered". These tests drive a small program that does only that
(everywhere), and less (where installed), live on both backends and on
replay of the same recording.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import termsim
from termsim import Text
from termsim.live import process

pytestmark = pytest.mark.anyio

DEVTTY = [sys.executable, str(Path(__file__).parent / "programs" / "devtty.py")]
RAWECHO = [sys.executable, str(Path(__file__).parent / "programs" / "rawecho.py")]


async def _two_keys(term: termsim.Driver) -> None:
    await term.wait_for(Text("ready> "), timeout=10)
    for key in "ab":
        mark = await term.press(key)
        snap = await term.wait_for(Text(f"got {key}"), since=mark, timeout=10)
        assert f"got {key}" in snap.text


async def test_a_program_reading_dev_tty_answers_a_causal_wait(tmp_path: Path) -> None:
    path = tmp_path / "devtty.tsr"
    async with termsim.spawn(DEVTTY, record=path) as term:
        await _two_keys(term)
        await term.press("ctrl+d")
        assert await term.wait_exit(timeout=10) == 0
    # The reads are in the recording, so the replay counts them the same way.
    async with termsim.replay(path) as again:
        await _two_keys(again)


async def test_a_stale_screen_still_does_not_count_for_a_dev_tty_program() -> None:
    # "ready> " is on the screen before the key: only the prompt drawn after
    # the program read the key may satisfy a wait since it.
    async with termsim.spawn(DEVTTY) as term:
        await term.wait_for(Text("ready> "), timeout=10)
        mark = await term.press("x")
        snap = await term.wait_for(Text("ready> "), since=mark, timeout=10)
        assert "got x" in snap.text


async def test_only_this_sessions_use_of_dev_tty_counts() -> None:
    async with termsim.spawn(DEVTTY) as uses, termsim.spawn(RAWECHO) as does_not:
        await uses.wait_for(Text("ready> "), timeout=10)
        await does_not.wait_for(Text("READY"), timeout=10)
        assert process.session_holds(uses.pid, "/dev/tty")
        assert not process.session_holds(does_not.pid, "/dev/tty")


@pytest.mark.skipif(shutil.which("less") is None, reason="needs less")
async def test_less_reads_its_keys_from_dev_tty_and_answers_causal_waits(
    tmp_path: Path,
) -> None:
    text = tmp_path / "numbers.txt"
    text.write_text("".join(f"line {n}\n" for n in range(1, 201)))
    path = tmp_path / "less.tsr"
    env = {"PATH": "/usr/bin:/bin", "LESS": "", "LESSHISTFILE": "-", "TERM": "xterm-256color"}

    async def body(term: termsim.Driver) -> None:
        await term.wait_for(Text("line 23"), timeout=10)
        mark = await term.press("G")  # to the end
        snap = await term.wait_for(Text("line 200"), since=mark, timeout=10)
        assert "line 1\n" not in snap.text
        mark = await term.press("g")  # back to the top
        await term.wait_for(Text("line 1 ") | Text("line 2"), since=mark, timeout=10)

    async with termsim.spawn(["less", str(text)], env=env, cols=80, rows=24,
                             record=path) as term:
        await body(term)
        await term.press("q")
        assert await term.wait_exit(timeout=10) == 0
    async with termsim.replay(path) as again:
        await body(again)
