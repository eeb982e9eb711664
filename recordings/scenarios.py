"""The sessions behind the recordings in this folder, written once against the
driver API so that the same function runs live (``termsim.spawn``) and
offline (``termsim.replay``) and must end the same way."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from termsim import CursorAfter, InputReady, Region, Text
from termsim._driver import Driver

APP = [sys.executable, str(Path(__file__).resolve().parent.parent / "examples" / "agent_repl.py")]
TOOLBAR = Region.row(-1)
PROMPT = CursorAfter("❯ ") & InputReady()
#: How long the boot-hang scenario waits for a prompt that never comes.
HANG_TIMEOUT = 30.0


async def passing(term: Driver) -> int | None:
    """First run: picker, boot, one question, Ctrl-D."""
    await term.wait_for(Text("Pick a theme"), timeout=30)
    await term.press("down", "enter")
    await term.wait_for(PROMPT & Text("state: sleeping", region=TOOLBAR), timeout=30)
    await term.type("hello")
    mark = await term.press("enter")
    await term.wait_for(Text("state: working", region=TOOLBAR), since=mark, timeout=10)
    await term.wait_for(PROMPT & Text("state: sleeping", region=TOOLBAR), since=mark, timeout=10)
    await term.press("ctrl+d")
    return await term.wait_exit(timeout=10)


async def boot_hang(term: Driver) -> int | None:
    """The server never starts: the wait for the prompt times out."""
    await term.wait_for(Text("state: booting", region=TOOLBAR), timeout=30)
    await term.wait_for(PROMPT, timeout=HANG_TIMEOUT)
    return None


async def cpr_starvation(term: Driver) -> int | None:
    """CPR never answered: the toolbar never appears."""
    await term.wait_for(Text("Starting the local server"), timeout=30)
    await term.wait_for(Text("state:", region=TOOLBAR), timeout=5)
    return None


Scenario = Callable[[Driver], Awaitable[int | None]]

#: name -> (scenario, extra environment, configured HOME?, cpr policy)
SCENARIOS: dict[str, tuple[Scenario, dict[str, str], bool, str]] = {
    "passing": (passing, {}, False, "answer"),
    "boot-hang": (boot_hang, {"AGENT_REPL_BOOT_HANG": "1"}, True, "answer"),
    "cpr-starvation": (cpr_starvation, {}, True, "ignore"),
}


def scenario_env(home: Path, extra: dict[str, str], configured: bool) -> dict[str, str]:
    drop = ("XDG_", "AGENT_REPL_", "PROMPT_TOOLKIT_", "NO_COLOR")
    env = {k: v for k, v in os.environ.items()
           if k not in ("TERM", "COLUMNS", "LINES") and not k.startswith(drop)}
    env.update(TERM="xterm-256color", HOME=str(home), AGENT_REPL_BOOT_SECONDS="0.3", **extra)
    if configured:
        config = home / ".config" / "agent-repl"
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.json").write_text('{"theme": "dark"}\n')
    return env
