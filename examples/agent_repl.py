"""agent-repl: a tiny prompt_toolkit REPL that behaves like an "agent CLI".

It is the demo and test target of the terminal-testing library: small enough
to read in one sitting, but it shows the behaviours that break naive terminal
tests (the ones that pipe bytes in, grep the raw output, or sleep and hope).

What it does
------------
1. First run: no config file yet, so a theme picker (``choice()``) asks
   "Pick a theme:" (Dark / Light / Solarized, default Dark). The choice is
   saved to ``$XDG_CONFIG_HOME/agent-repl/config.json`` (default
   ``$HOME/.config/agent-repl/config.json``) and ``Theme: <value>`` is printed.
2. Boot: prints ``Starting the local server...`` and "boots" a fake server.
   Meanwhile the bottom toolbar reads ``state: booting``, there is no prompt
   and Enter is ignored. The boot's clock starts when the toolbar is first
   drawn, so that state is always shown (without a CPR answer it never is,
   and the boot never ends).
3. Then the ``❯ `` prompt appears (toolbar ``state: sleeping``). Submitting a
   non-empty line switches to ``state: working <spinner>`` and streams a
   four-line reply above the prompt over about one second, starting with
   ``assistant: thinking about '<line>'`` and ending with
   ``assistant: done (N chars)``. The prompt stays open while it works;
   Enter on an empty line does nothing.
4. Ctrl-C clears the line; Ctrl-D on an empty line prints ``bye`` and exits 0.

Environment variables
---------------------
HOME, XDG_CONFIG_HOME      where the config file lives.
AGENT_REPL_BOOT_SECONDS    boot duration in seconds, from the toolbar's first
                           frame (float, default 0.5).
AGENT_REPL_BOOT_HANG=1     the boot never finishes (kill the program).

Traps it demonstrates
---------------------
* Words split by the diff renderer: prompt_toolkit only rewrites the cells
  that changed, with cursor moves and style escapes in between, so a string
  such as ``state: sleeping`` may never appear contiguously in the raw
  byte stream. Read a rendered screen, not the bytes.
* Toolbar drawn only after a CPR answer: the bottom toolbar is hidden until
  the terminal answers the cursor position request ``ESC[6n``. A fake
  terminal that never answers never shows ``state: ...``.
* The CPR warning: if ``ESC[6n`` is unanswered for 2 s, prompt_toolkit prints
  "WARNING: your terminal doesn't support cursor position requests (CPR)."
  into the output.
* The first-run picker blocks on raw keys: it waits for arrow keys and
  Enter; typing "dark\\n" does not answer it, and a test that forgets the
  picker hangs before ever seeing a prompt.
* A prompt left over from the previous turn: the accepted line
  (``❯ hello``) stays on screen above the reply, so "wait until ``❯`` is
  visible" is satisfied at once after submitting. Wait for the state or
  for the last line of the screen instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.shortcuts import choice, set_title
from prompt_toolkit.styles import Style

PROMPT = "❯ "
SPINNER = "|/-\\"
THEMES = {"dark": "ansicyan", "light": "ansiblue", "solarized": "ansiyellow"}


def _write(line: str) -> None:
    sys.__stdout__.write(line + "\n")
    sys.__stdout__.flush()


def config_path() -> Path:
    home_config = os.path.join(os.environ["HOME"], ".config")
    base = os.environ.get("XDG_CONFIG_HOME") or home_config
    return Path(base) / "agent-repl" / "config.json"


def load_or_pick_theme() -> str:
    """Return the saved theme; on first run ask for one and save it."""
    path = config_path()
    if path.exists():
        return str(json.loads(path.read_text()).get("theme", "dark"))
    theme = choice(
        message="Pick a theme:",
        options=[("dark", "Dark"), ("light", "Light"), ("solarized", "Solarized")],
        default="dark",
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"theme": theme}) + "\n")
    print(f"Theme: {theme}")
    return theme


class AgentRepl:
    def __init__(self, theme: str) -> None:
        self.booting = True
        self.busy = 0  # number of replies being streamed
        self.frame = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.session: PromptSession[str] = PromptSession(
            message=self.message,
            bottom_toolbar=self.toolbar,
            key_bindings=self.key_bindings(),
            style=Style.from_dict({"prompt": THEMES.get(theme, "")}),
        )
        # The boot's clock starts once "state: booting" has been drawn, so
        # every run shows that state, however late its first frame comes
        # (the toolbar waits for the CPR answer; a loaded machine delays it).
        self.toolbar_drawn = asyncio.Event()
        self._toolbar_rendered = False
        self.session.app.after_render += self._after_render

    @property
    def state(self) -> str:
        if self.booting:
            return "booting"
        return "working" if self.busy else "sleeping"

    def message(self) -> StyleAndTextTuples:
        return [] if self.booting else [("class:prompt", PROMPT)]

    def _after_render(self, _app: object) -> None:
        if self._toolbar_rendered:
            self.toolbar_drawn.set()

    def toolbar(self) -> StyleAndTextTuples:
        self._toolbar_rendered = True  # called only when the toolbar is drawn
        spinner = f" {SPINNER[self.frame % len(SPINNER)]}" if self.busy else ""
        return [("reverse", f" state: {self.state}{spinner} ")]

    def key_bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @Condition
        def nothing_to_submit() -> bool:
            return self.booting or not self.session.default_buffer.text.strip()

        @kb.add("enter", filter=nothing_to_submit, eager=True)
        def _ignore_enter(event: KeyPressEvent) -> None:
            """Booting (no prompt yet) or empty line: Enter does nothing."""

        return kb

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def redraw(self) -> None:
        self.session.app.invalidate()

    async def boot(self, seconds: float, hang: bool) -> None:
        await self.toolbar_drawn.wait()
        if hang:
            await asyncio.Event().wait()  # never set: boots forever
        await asyncio.sleep(seconds)
        self.booting = False
        self.redraw()

    async def spin(self) -> None:
        while True:
            await asyncio.sleep(0.1)
            if self.busy:
                self.frame += 1
                self.redraw()

    async def reply(self, text: str) -> None:
        self.busy += 1
        self.redraw()
        try:
            lines = [
                f"assistant: thinking about '{text}'",
                "assistant: line 2 of the reply",
                "assistant: line 3 of the reply",
                f"assistant: done ({len(text)} chars)",
            ]
            for line in lines:
                await asyncio.sleep(0.25)
                # run_in_terminal prints above the prompt *now*; patch_stdout
                # would batch it, so the state could say sleeping before the
                # last line is on the screen.
                await run_in_terminal(lambda line=line: _write(line))
        finally:
            self.busy -= 1
            self.redraw()

    async def run(self) -> None:
        seconds = float(os.environ.get("AGENT_REPL_BOOT_SECONDS", "0.5"))
        hang = os.environ.get("AGENT_REPL_BOOT_HANG") == "1"
        print("Starting the local server...")
        with patch_stdout():
            self.spawn(self.boot(seconds, hang))
            self.spawn(self.spin())
            try:
                while True:
                    try:
                        text = await self.session.prompt_async()
                    except KeyboardInterrupt:
                        continue  # Ctrl-C: drop the line, ask again
                    self.spawn(self.reply(text))
            except EOFError:
                pass  # Ctrl-D on an empty line
            finally:
                for task in list(self.tasks):
                    task.cancel()
                await asyncio.gather(*self.tasks, return_exceptions=True)
        print("bye")


def main() -> int:
    set_title("agent-repl")
    try:
        theme = load_or_pick_theme()
    except KeyboardInterrupt:
        return 130
    asyncio.run(AgentRepl(theme).run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
