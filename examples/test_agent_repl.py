"""How to test a prompt_toolkit REPL with termsim: the example agent CLI.

Run with ``python -m pytest examples/test_agent_repl.py``. Each test gets a
fresh HOME (so the first-run theme picker shows) and runs on asyncio and trio.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import termsim
from termsim import CursorAfter, InputReady, Region, Text

APP = [sys.executable, str(Path(__file__).with_name("agent_repl.py"))]
TOOLBAR = Region.row(-1)  # prompt_toolkit draws the bottom toolbar on the last row
PROMPT = CursorAfter("❯ ") & InputReady()  # the cursor sits after a live prompt

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    # The parent's TERM is whatever the CI shell has: leave it out, and
    # termsim gives the program the xterm-256color it emulates.
    env = {k: v for k, v in os.environ.items() if k != "TERM" and not k.startswith("XDG_")}
    return {**env, "HOME": str(tmp_path), "AGENT_REPL_BOOT_SECONDS": "0.3"}


async def test_first_run_then_two_turns(env: dict[str, str]) -> None:
    async with termsim.spawn(APP, cols=100, rows=30, env=env) as term:
        # The first-run picker takes arrow keys, not text.
        await term.wait_for(Text("Pick a theme"), timeout=30)
        await term.press("down", "enter")
        await term.wait_for(PROMPT & Text("state: sleeping", region=TOOLBAR), timeout=30)

        for question in ("hello", "and again"):
            await term.type(question)
            mark = await term.press("enter")
            # The toolbar said "sleeping" before Enter as well: since=mark
            # only counts screens drawn after the Enter was written.
            await term.wait_for(Text("state: working", region=TOOLBAR), since=mark, timeout=10)
            screen = await term.wait_for(
                PROMPT & Text("state: sleeping", region=TOOLBAR), since=mark, timeout=10,
            )
            assert f"assistant: thinking about '{question}'" in screen.text

        await term.press("ctrl+d")
        assert await term.wait_exit(timeout=10) == 0


async def test_server_that_never_starts_times_out_with_the_screen(env: dict[str, str]) -> None:
    env["AGENT_REPL_BOOT_HANG"] = "1"
    async with termsim.spawn(APP, env=env) as term:
        await term.wait_for(Text("Pick a theme"), timeout=30)
        await term.press("enter")
        with pytest.raises(termsim.WaitTimeout) as failure:
            await term.wait_for(PROMPT, timeout=2)
        # The error shows what was awaited and the screen at that moment.
        assert "Starting the local server..." in str(failure.value)
        assert "state: booting" in failure.value.snapshot.lines[-1]
