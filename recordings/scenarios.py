"""The sessions behind the recordings in this folder, written once against the
driver API so that the same function runs live (``termsim.spawn``) and
offline (``termsim.replay``) and must end the same way."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from termsim import CursorAfter, Driver, InputReady, Region, Text

TOOLBAR = Region.row(-1)
PROMPT = CursorAfter("❯ ") & InputReady()
#: How long the boot-hang scenario waits for a prompt that never comes.
HANG_TIMEOUT = 120.0


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


async def ipython(term: Driver) -> int | None:
    """IPython: evaluate, see the result, exit."""
    await term.wait_for(CursorAfter("In [1]: ") & InputReady(), timeout=60)
    await term.type("sum(range(10))")
    mark = await term.press("enter")
    await term.wait_for(Text("Out[1]: 45"), since=mark, timeout=30)
    await term.wait_for(CursorAfter("In [2]: ") & InputReady(), since=mark, timeout=30)
    await term.type("exit")
    await term.press("enter")
    return await term.wait_exit(timeout=30)


async def ptpython(term: Driver) -> int | None:
    """ptpython: its status bar needs a CPR answer; Ctrl-D asks to confirm."""
    await term.wait_for(CursorAfter(">>> ") & InputReady() & Text("[F4]", region=TOOLBAR),
                        timeout=60)
    await term.type("6 * 7")
    mark = await term.press("enter")
    await term.wait_for(CursorAfter(">>> ") & InputReady(), since=mark, timeout=30)
    await term.press("ctrl+d")
    await term.wait_for(Text("Do you really want to exit"), timeout=30)
    await term.press("y")
    return await term.wait_exit(timeout=30)


async def fullscreen(term: Driver) -> int | None:
    """The full-screen task list: alternate screen, selection, input, quit."""
    await term.wait_for(Text("0/4 done"), timeout=30)
    await term.press("down", "space")
    await term.wait_for(Text("1/4 done"), timeout=10)
    await term.press("tab")
    await term.type("ship it")
    mark = await term.press("enter")
    await term.wait_for(Text("ship it") & Text("1/5 done"), since=mark, timeout=10)
    await term.press("ctrl+q")
    return await term.wait_exit(timeout=10)


Scenario = Callable[[Driver], Awaitable[int | None]]
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@dataclass(frozen=True)
class Setup:
    scenario: Scenario
    #: argv after the Python interpreter, as written in the committed header.
    args: tuple[str, ...] = ("examples/agent_repl.py",)
    env: dict[str, str] = field(default_factory=dict)
    configured: bool = False  # the example's theme already chosen (no picker)
    cpr: str = "answer"
    size: tuple[int, int] = (80, 24)

    def argv(self) -> list[str]:
        root = EXAMPLES.parent
        return [sys.executable, *(str(root / a) if a.endswith(".py") else a for a in self.args)]


SCENARIOS: dict[str, Setup] = {
    "passing": Setup(passing),
    "boot-hang": Setup(boot_hang, env={"AGENT_REPL_BOOT_HANG": "1"}, configured=True),
    # The same test on a boot that ends: the run boot-hang is diffed against.
    "boot-ok": Setup(boot_hang, configured=True),
    "cpr-starvation": Setup(cpr_starvation, configured=True, cpr="ignore"),
    "ipython": Setup(ipython, args=("-m", "IPython", "--no-banner"), size=(100, 30)),
    "ptpython": Setup(ptpython, args=("-m", "ptpython"), size=(100, 30)),
    "fullscreen": Setup(fullscreen, args=("examples/fullscreen_app.py",), size=(80, 20)),
}


def scenario_env(home: Path, extra: dict[str, str], configured: bool) -> dict[str, str]:
    drop = ("XDG_", "AGENT_REPL_", "PROMPT_TOOLKIT_", "NO_COLOR", "IPYTHON")
    env = {k: v for k, v in os.environ.items()
           if k not in ("TERM", "COLUMNS", "LINES", "PYTHONSTARTUP") and not k.startswith(drop)}
    env.update(TERM="xterm-256color", HOME=str(home), AGENT_REPL_BOOT_SECONDS="0.3",
               IPYTHONDIR=str(home / "ipython"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_DATA_HOME=str(home / "data"), **extra)
    if configured:
        config = home / "config" / "agent-repl"
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.json").write_text('{"theme": "dark"}\n')
    return env
