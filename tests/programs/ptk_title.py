"""A prompt_toolkit REPL that puts its state in the window title, as agent
CLIs do: "idle" at the prompt, "working: <question>" while it answers (a
short pause, then the answer), "idle" again. Its screen never says which.
(prompt_toolkit's output buffers a title until its next flush: without the
flush, "working" would reach the terminal only with the answer.)"""

import asyncio

from prompt_toolkit import PromptSession
from prompt_toolkit.patch_stdout import patch_stdout


async def main() -> None:
    session: PromptSession[str] = PromptSession("> ")
    output = session.app.output

    def set_title(title: str) -> None:
        output.set_title(title)
        output.flush()

    while True:
        set_title("idle")
        try:
            question = await session.prompt_async()
        except EOFError:
            return
        set_title(f"working: {question}")
        with patch_stdout():
            await asyncio.sleep(0.2)  # sync-ok: the work the program does, not a wait
            print(f"answer to {question}")


asyncio.run(main())
