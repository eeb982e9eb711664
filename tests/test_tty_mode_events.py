"""The tty's mode is an event, live as in a replay: the ``TtyMode`` events a
live session records are exactly the ones its engine applied, in order.

Before the session had one path for events, a live engine never applied
``TtyMode`` (it asked the PTY whenever a wait wanted to know), while a
replay fed its engine from the recorded events: the two could decide
``InputReady()`` differently. A real program in a real PTY goes raw,
reads a key, goes back to line mode and exits; the test compares what the
recording holds with what the engine was given, and replays the file to
the same decisions.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import termsim
from termsim import InputReady, Text
from termsim.events import Event, TtyMode
from termsim.files import Recording

pytestmark = pytest.mark.anyio

#: Line mode, then raw until a key comes, then line mode again.
PROGRAM = """
import sys, termios, tty
print("cooked", flush=True)
sys.stdin.readline()
saved = termios.tcgetattr(0)
tty.setraw(0)
sys.stdout.write("raw\\r\\n"); sys.stdout.flush()
key = sys.stdin.read(1)
termios.tcsetattr(0, termios.TCSANOW, saved)
print("got", key, "done", flush=True)
sys.stdin.readline()
"""


async def _drive(term: termsim.Driver) -> None:
    await term.wait_for(Text("cooked"))
    mark = await term.type("go\r")
    await term.wait_for(Text("raw") & InputReady(), since=mark)
    mark = await term.press("x")
    await term.wait_for(Text("done") & ~InputReady(), since=mark)
    await term.type("bye\r")


async def test_the_recorded_tty_modes_are_the_ones_the_engine_applied(tmp_path: Path) -> None:
    path = tmp_path / "modes.tsr"
    applied: list[TtyMode] = []
    async with termsim.spawn([sys.executable, "-c", PROGRAM], record=path) as term:
        engine = term._engine
        apply = engine.apply

        def watched(event: Event) -> bytes:
            if isinstance(event, TtyMode):
                applied.append(event)
            return apply(event)

        engine.apply = watched  # type: ignore[method-assign]
        await _drive(term)
        assert await term.wait_exit() == 0
    recorded = list(Recording.open(path).of_type(TtyMode))
    # The first mode may be read before the watch above was in place.
    assert recorded[len(recorded) - len(applied):] == applied
    assert [m.raw for m in applied].count(True) >= 1
    assert [m.raw for m in recorded][-1] is False
    # And a replay of the file decides the same waits.
    async with termsim.replay(path) as replayed:
        await _drive(replayed)
