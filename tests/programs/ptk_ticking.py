"""An agent REPL whose toolbar never stops moving: a clock ticking ten
times a second, as agent CLIs show elapsed time or a spinner while idle.
Each submitted line is answered ``assistant: <line>`` unless
``TICKING_SILENT=1``: then the agent goes idle without a reply, reading keys
and redrawing only its toolbar (the hang an agent suite must fail on at
once, not at its timeout)."""

import os
import time

from prompt_toolkit import PromptSession
from prompt_toolkit.patch_stdout import patch_stdout

START = time.monotonic()


def toolbar() -> str:
    return f" idle {time.monotonic() - START:6.1f} s "


def main() -> None:
    silent = os.environ.get("TICKING_SILENT") == "1"
    session: PromptSession[str] = PromptSession(bottom_toolbar=toolbar, refresh_interval=0.1)
    with patch_stdout():
        while True:
            try:
                line = session.prompt("❯ ")
            except EOFError:
                return
            if not silent:
                print(f"assistant: {line}")


if __name__ == "__main__":
    main()
