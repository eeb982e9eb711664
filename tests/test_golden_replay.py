"""A golden written from a replay is the golden written live, even when the
live run was late (a loaded machine).

``expect_screen(golden=...)`` with goldens being updated writes the screen
once it has stayed the same for ``UPDATE_QUIET`` seconds on the session's
clock, and the README promises that a replay of the recording writes the
same file. A replay decides that on the recorded times: it moves its clock
to the timer's due time before it applies any output recorded later. Live,
the session once decided it on the clock when its tasks happened to run:
output the reader took late was stamped late (after the due time), yet
applied, and the screen compared, before the late timer looked; a live run
that was descheduled wrote the later screen, and its replay the earlier
one. Now the live clock holds at a wait's deadline until the wait has
looked, and each screen is judged at its output's time, as in a replay.

Here the machine's load is played deterministically: the program draws
one screen, pauses longer than ``UPDATE_QUIET``, and draws a second; the
test process is frozen from the moment it reads the first screen until the
second is on the PTY (a listener that blocks, as a descheduled process
would), so both are read in the same burst, the second stamped after the
first one's quiet time was over.
"""

from __future__ import annotations

import os
import select
import sys
import textwrap
from pathlib import Path

import pytest

import termsim
from termsim.events import Event, Output

pytestmark = pytest.mark.anyio

PROGRAM = textwrap.dedent("""
    import sys, time
    sys.stdin.readline()
    sys.stdout.write("first screen\\r\\n"); sys.stdout.flush()
    time.sleep(0.6)  # sync-ok: the program's pause, longer than a golden's quiet time
    sys.stdout.write("second screen\\r\\n"); sys.stdout.flush()
    with open(sys.argv[1], "w") as done:  # tells the frozen test the second is out
        done.write("x")
    sys.stdin.readline()
""")


async def test_a_replay_writes_the_golden_a_late_live_run_wrote(tmp_path: Path) -> None:
    recording = tmp_path / "late.tsr"
    fifo = tmp_path / "second-drawn"
    os.mkfifo(fifo)
    # Opened before the program (non-blocking: no writer yet), so the freeze
    # below can wait for the program's byte with select().
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    frozen: list[float] = []

    def freeze_after_the_first_screen(event: Event) -> None:
        """A descheduled test process: nothing runs from the read of the first
        screen until the program has drawn the second."""
        if isinstance(event, Output) and b"first screen" in event.data and not frozen:
            frozen.append(event.t)
            ready, _, _ = select.select([reader], [], [], 30)
            assert ready, "the program never drew its second screen"

    async def body(term: termsim.Driver) -> None:
        mark = await term.press("enter")
        await term.expect_screen(golden="late", since=mark, timeout=30)

    written: dict[str, str] = {}
    try:
        for source in ("live", "replay"):
            directory = tmp_path / source
            with termsim.runner.golden_screens(lambda name, d=directory: d / f"{name}.screen",
                                        update=True):
                if source == "live":
                    argv = [sys.executable, "-c", PROGRAM, str(fifo)]
                    async with termsim.spawn(argv, cols=20, rows=3, record=recording) as t:
                        t.listeners.append(freeze_after_the_first_screen)
                        await body(t)
                else:
                    async with termsim.replay(recording) as r:
                        await body(r)
            written[source] = (directory / "late.screen").read_text()
    finally:
        os.close(reader)
    assert frozen, "the live run never drew the first screen"
    # What the live run wrote is what its replay writes, byte for byte.
    assert written["replay"] == written["live"]


BUSY = textwrap.dedent("""
    import sys, time
    for i in range(10_000):
        sys.stdout.write(f"x{i}\\r\\n"); sys.stdout.flush()
        if i == 30:  # 25 lines (1.25 s) after the test froze: it may go on
            with open(sys.argv[1], "w") as done:
                done.write("x")
        time.sleep(0.05)  # sync-ok: the program's own pace, a line every 50 ms
""")


async def test_a_late_wait_does_not_see_a_busy_program_as_quiet(tmp_path: Path) -> None:
    # While a wait is late (the test process descheduled), the session clock
    # holds at the wait's deadline; once the wait has looked, it must go on
    # from there, not jump to the real time it missed: else the output read
    # meanwhile, stamped at the deadline, looks long past, and a program
    # printing every 50 ms satisfies Quiet(0.4) (the freeze outlasts the
    # wait's deadline by more than that).
    fifo = tmp_path / "printed-on"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    frozen: list[float] = []

    def freeze_a_while(event: Event) -> None:
        if isinstance(event, Output) and b"x5\r" in event.data and not frozen:
            frozen.append(event.t)
            ready, _, _ = select.select([reader], [], [], 30)
            assert ready, "the program stopped printing"

    try:
        async with termsim.spawn([sys.executable, "-c", BUSY, str(fifo)],
                                 record=False) as term:
            await term.wait_for(termsim.Text("x3"), timeout=30)
            term.listeners.append(freeze_a_while)
            with pytest.raises(termsim.WaitTimeout):
                await term.wait_for(termsim.Quiet(0.4), timeout=2)
            assert frozen, "the freeze never happened"
    finally:
        os.close(reader)
