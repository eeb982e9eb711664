"""Drive the example agent REPL end to end and show what termsim saw.

    python examples/demo.py

Spawns ``agent_repl.py`` in a pseudo-terminal with a fresh HOME, answers its
theme picker, waits for the prompt and the toolbar, asks one question, and
prints the screen at each step: the same waits a test would make.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import anyio

import termsim
from termsim import CursorAfter, InputReady, Region, Text

APP = [sys.executable, str(Path(__file__).with_name("agent_repl.py"))]
TOOLBAR = Region.row(-1)


def show(title: str, screen: termsim.Snapshot) -> None:
    print(f"\n== {title}\n{screen.render()}")


async def main() -> int:
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if k != "TERM"}
        env.update(HOME=home, AGENT_REPL_BOOT_SECONDS="0.5")
        async with termsim.spawn(APP, cols=80, rows=16, env=env) as term:
            show("first run: a theme picker", await term.wait_for(Text("Pick a theme"), timeout=30))
            await term.press("down", "enter")
            booting = await term.wait_for(Text("state: booting", region=TOOLBAR), timeout=30)
            show("booting: no prompt yet, toolbar drawn after the CPR answer", booting)
            ready = CursorAfter("❯ ") & InputReady() & Text("state: sleeping", region=TOOLBAR)
            show("ready", await term.wait_for(ready, timeout=30))
            await term.type("what is termsim?")
            mark = await term.press("enter")
            await term.wait_for(Text("state: working", region=TOOLBAR), since=mark, timeout=10)
            show("answered", await term.wait_for(ready, since=mark, timeout=10))
            await term.press("ctrl+d")
            status = await term.wait_exit(timeout=10)
            cprs = sum(q.kind == "cpr" for q in term.queries)
            print(f"\nexit status {status}; {cprs} cursor position requests answered")
            return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(anyio.run(main))
