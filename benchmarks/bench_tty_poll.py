"""What waiting on ``InputReady()`` costs while a program sits idle.

    python benchmarks/bench_tty_poll.py [--sessions 50] [--seconds 4]

termios changes print nothing, so a wait on the tty mode has to look. N
sessions each run ``cat`` (cooked, silent, never ready) under a wait for
``InputReady()``; once all are waiting, the harness's CPU time (this
process: the event loop, the checks, the evaluations) is measured over S
seconds, as a share of the wall time. Side by side in one run: the fixed
10 ms re-check termsim had (``TTY_POLL = (0.01, 0.01)``) and the backing-off
one it has now. Target (issue "Speed, round two"): at most 2% of the harness.
"""

from __future__ import annotations

import argparse
import time

import anyio

import termsim
from termsim import InputReady, WaitTimeout
from termsim.live import pty as _pty


async def idle_sessions(sessions: int, seconds: float) -> tuple[float, float]:
    """(harness CPU seconds, wall seconds) over ``seconds`` of the window in
    which all ``sessions`` idle waits run (spawning and teardown excluded)."""
    started = 0
    all_started = anyio.Event()

    async def one() -> None:
        nonlocal started
        async with termsim.spawn(["cat"], record=False) as term:
            started += 1
            if started == sessions:
                all_started.set()
            try:
                await term.wait_for(InputReady(), timeout=seconds + 5)
            except WaitTimeout:
                pass

    async with anyio.create_task_group() as tg:
        for _ in range(sessions):
            tg.start_soon(one)
        await all_started.wait()
        await anyio.sleep(0.5)  # past the first checks after the spawn's output
        cpu, wall = time.process_time(), time.perf_counter()
        await anyio.sleep(seconds)  # the measured window
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        tg.cancel_scope.cancel()
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()
    now = _pty.TTY_POLL
    results: dict[str, list[float]] = {"fixed 10 ms": [], "backing off": []}
    for _ in range(args.reps):  # alternating, so drift hits both alike
        for name, poll in (("fixed 10 ms", (0.01, 0.01)), ("backing off", now)):
            _pty.TTY_POLL = poll
            cpu, wall = anyio.run(idle_sessions, args.sessions, args.seconds)
            results[name].append(cpu / wall)
    _pty.TTY_POLL = now
    print(f"{args.sessions} idle sessions waiting on InputReady(), {args.seconds:.0f} s "
          "measured; harness CPU as a share of wall time")
    for name, shares in results.items():
        print(f"  {name:<12} {min(shares):6.1%}   (best of {len(shares)})")


if __name__ == "__main__":
    main()
