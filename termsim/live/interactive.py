"""``termsim record``: a person at a real terminal, a program, a recording.

Like ``script(1)``: the user's terminal is put in raw mode, their keys go to
the program, the program's output goes to their screen, and everything is
recorded. The user's own terminal answers the program's queries (its answers
arrive as keystrokes and are recorded as input), so termsim's virtual
terminal stays silent here, and the header records that policy. The user's
terminal modes are restored however the session ends.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import termios
import tty

import anyio

from ..emulator.terminal import QUERY_KINDS
from ..events import Event, Output
from .session import spawn


async def record_interactively(cmd: list[str], output: str, cols: int, rows: int) -> int | None:
    stdin = sys.stdin.fileno()
    stdout = sys.stdout.fileno()
    saved = termios.tcgetattr(stdin) if os.isatty(stdin) else None
    # The user's terminal answers queries; two answers would confuse the program.
    session = spawn(cmd, cols=cols, rows=rows, record=output,
                    policy=dict.fromkeys(QUERY_KINDS, "ignore"))

    def show(event: Event) -> None:
        if isinstance(event, Output):
            os.write(stdout, event.data)

    session.listeners.append(show)

    async def pump_keys() -> None:
        while True:
            await anyio.wait_readable(stdin)
            data = os.read(stdin, 1 << 16)
            if not data:
                return  # end of input: the program decides what happens next
            await session.send(data)

    async def follow_resizes() -> None:
        with anyio.open_signal_receiver(signal.SIGWINCH) as signals:
            async for _ in signals:
                size = os.get_terminal_size(stdout)
                await session.resize(size.columns, size.lines)

    try:
        async with session:
            if saved is not None:
                tty.setraw(stdin)
            async with anyio.create_task_group() as tg:
                tg.start_soon(pump_keys)
                if saved is not None:
                    tg.start_soon(follow_resizes)
                status = await session.wait_exit(timeout=math.inf)
                tg.cancel_scope.cancel()
    finally:
        if saved is not None:
            termios.tcsetattr(stdin, termios.TCSADRAIN, saved)
    return status
