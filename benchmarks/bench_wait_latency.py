"""Wait latency: from the child writing a line to the waiting task waking.

The child (a small Python script, run with ``-c``) puts its terminal in raw
mode, then for each line it reads prints ``MARK <n> <t> END``, where ``<t>``
is its ``time.monotonic()`` just before the write. CLOCK_MONOTONIC is
system-wide on Linux, so the parent can subtract it from its own
``time.monotonic()`` taken as soon as
``await term.wait_for(termsim.Regex(...))`` returns. That interval covers the
PTY, the reader task's wake-up (epoll), ``os.read``, ``Terminal.feed``, the
snapshot, evaluating the predicate and waking the waiting task.

Each configuration (80x24 and 200x60, asyncio and trio) runs ``ROUNDS``
sessions, alternating with the others, of ``WARMUP`` unrecorded then
``SAMPLES`` recorded round trips; the samples of all rounds are pooled.

With ``--busy N``, each measured session shares its event loop with N other
sessions, started first: each runs a program that redraws a status line
every 0.1 s (``BUSY_CHILD``) and has a wait pending that never matches, so
every one of their reads is emulated and evaluated while the measured
session waits (issue "Speed, round two": latency "also while 50 sessions
run").

With ``--previous CHECKOUT`` (a git worktree of an older commit), the
same sessions run for that checkout's termsim too, and the table gives the
median and p99 of both side by side with their ratio (now/previous, below
1: this one is faster). Two termsim versions cannot share a process, so
with ``--previous`` every session, this termsim's as well as the previous
one's, runs in a new process of its own (``session_pass()``, through
``_previous.in_checkout``), the same code in both: for each configuration
of a round, one session of each version, back to back, their order flipped
every round, so that both meet the same load on this shared 2-core machine
and neither gets a process the other did not (startup, warm caches: each
session also has its warm-up round trips). The passes use only public API
(``spawn``, ``send``, ``wait_for``, ``Text``, ``Regex``, ``wait_exit``).

Usage: ``python benchmarks/bench_wait_latency.py [--busy 50] [--rounds 5]
[--quick] [--previous CHECKOUT]``; ``--quick``: 2 rounds, a smoke run.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import anyio
from _previous import in_checkout

import termsim

SAMPLES = 200
WARMUP = 5
ROUNDS = 5
QUICK_ROUNDS = 2
SIZES = ((80, 24), (200, 60))
BACKENDS = ("asyncio", "trio")

CHILD = r"""
import os, sys, termios, time, tty
tty.setraw(0, termios.TCSANOW)
os.write(1, b"READY\r\n")
n = 0
for line in iter(sys.stdin.buffer.readline, b""):
    if line.strip() == b"quit":
        break
    sys.stdout.write(f"MARK {n} {time.monotonic():.9f} END\r\n")
    sys.stdout.flush()
    n += 1
"""


BUSY_CHILD = r"""
import sys, time
n = 0
while True:
    sys.stdout.write(f"\rstatus: step {n} of the background job ")
    sys.stdout.flush()
    n += 1
    time.sleep(0.1)  # the program's own pace
"""


async def background(cols: int, rows: int, started: list[int], all_started: anyio.Event,
                     busy: int) -> None:
    """A session redrawing its status line, with a wait that never matches."""
    async with termsim.spawn([sys.executable, "-c", BUSY_CHILD], cols=cols, rows=rows,
                             record=False) as term:
        await term.wait_for(termsim.Text("status: step"), timeout=60)
        started[0] += 1
        if started[0] == busy:
            all_started.set()
        await term.wait_for(termsim.Text("never printed"), timeout=3600)


async def session(cols: int, rows: int, busy: int = 0) -> list[float]:
    """One session (beside ``busy`` others): WARMUP + SAMPLES round trips;
    latencies in seconds."""
    if not busy:
        return await measured(cols, rows)
    async with anyio.create_task_group() as tg:
        started, all_started = [0], anyio.Event()
        for _ in range(busy):
            tg.start_soon(background, cols, rows, started, all_started, busy)
        with anyio.fail_after(120):
            await all_started.wait()
        latencies = await measured(cols, rows)
        tg.cancel_scope.cancel()
    return latencies


async def measured(cols: int, rows: int) -> list[float]:
    latencies = []
    async with termsim.spawn([sys.executable, "-c", CHILD], cols=cols, rows=rows) as term:
        await term.wait_for(termsim.Text("READY"), timeout=10)
        for n in range(WARMUP + SAMPLES):
            pattern = re.compile(rf"MARK {n} (\d+\.\d+) END")
            await term.send(b"go\n")
            snap = await term.wait_for(termsim.Regex(pattern), timeout=5)
            woke = time.monotonic()
            match = pattern.search(snap.text)
            assert match is not None
            if n >= WARMUP:
                latencies.append(woke - float(match.group(1)))
        await term.send(b"quit\n")
        await term.wait_exit(timeout=5)
    return latencies


def session_pass(backend: str, cols: int, rows: int, busy: int) -> list[float]:
    """For ``--previous``: one session, in this process (the termsim on
    ``sys.path``); latencies in seconds."""
    return anyio.run(partial(session, cols, rows, busy), backend=backend)


def session_in(checkout: str, backend: str, cols: int, rows: int, busy: int) -> list[float]:
    """``session_pass`` in a new process, with termsim from ``checkout``."""
    result: list[float] = in_checkout(
        checkout, "bench_wait_latency", f"session_pass({backend!r}, {cols}, {rows}, {busy})",
        cwd=checkout)
    return result


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    index = max(0, min(len(sorted_values) - 1, round(q / 100 * len(sorted_values)) - 1))
    return sorted_values[index]


def versus_previous(previous: str, configs: list[tuple[str, int, int]], rounds: int,
                    busy: int) -> int:
    """Every session in a new process, this termsim's and ``previous``'s
    alternating; the table of both side by side."""
    here = str(Path(__file__).resolve().parent.parent)
    samples: dict[tuple[str, str, int, int], list[float]] = {}
    for round_ in range(rounds):
        order = configs if round_ % 2 == 0 else configs[::-1]
        for backend, cols, rows in order:
            versions = [("now", here), ("previous", previous)]
            if round_ % 2:
                versions.reverse()
            for who, checkout in versions:
                samples.setdefault((who, backend, cols, rows), []).extend(
                    session_in(checkout, backend, cols, rows, busy))
    print(f"Wait latency, child write -> waiting task awake (ms); {rounds} alternating "
          f"sessions x {SAMPLES} round trips per row and version, every session in a new "
          "process" + (f", each beside {busy} busy sessions" if busy else ""))
    print(f"Python {sys.version.split()[0]}; now: termsim in {here}; previous: {previous}; "
          "now/previous below 1: now is faster")
    print(f"{'backend':<8} {'size':<7} {'n':>5} {'p50 now':>8} {'previous':>9} "
          f"{'now/prev':>9} {'p99 now':>8} {'previous':>9} {'now/prev':>9} "
          f"{'max now':>8} {'previous':>9}")
    for backend, cols, rows in configs:
        now = sorted(1000 * v for v in samples["now", backend, cols, rows])
        before = sorted(1000 * v for v in samples["previous", backend, cols, rows])
        p50 = statistics.median(now), statistics.median(before)
        p99 = percentile(now, 99), percentile(before, 99)
        print(f"{backend:<8} {f'{cols}x{rows}':<7} {len(now):5d} "
              f"{p50[0]:8.3f} {p50[1]:9.3f} {p50[0] / p50[1]:9.2f} "
              f"{p99[0]:8.3f} {p99[1]:9.3f} {p99[0] / p99[1]:9.2f} "
              f"{now[-1]:8.3f} {before[-1]:9.3f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--busy", type=int, default=0,
                        help="other sessions running beside each measured one")
    parser.add_argument("--rounds", type=int, help=f"sessions per row (default {ROUNDS})")
    parser.add_argument("--quick", action="store_true",
                        help=f"a smoke run: {QUICK_ROUNDS} rounds")
    parser.add_argument("--previous", metavar="CHECKOUT",
                        help="another termsim checkout to compare with")
    args = parser.parse_args()
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else ROUNDS)
    configs = [(backend, cols, rows) for cols, rows in SIZES for backend in BACKENDS]
    if args.previous:
        return versus_previous(str(Path(args.previous).resolve()), configs, rounds,
                               args.busy)
    samples: dict[tuple[str, int, int], list[float]] = {c: [] for c in configs}
    for round_ in range(rounds):
        order = configs if round_ % 2 == 0 else configs[::-1]
        for backend, cols, rows in order:
            samples[backend, cols, rows] += anyio.run(
                partial(session, cols, rows, args.busy), backend=backend,
            )
    print(f"Wait latency, child write -> waiting task awake (ms); {rounds} alternating "
          f"sessions x {SAMPLES} round trips per row"
          + (f", each beside {args.busy} busy sessions" if args.busy else ""))
    print(f"Python {sys.version.split()[0]}, termsim {termsim.__version__}")
    print(f"{'backend':<8} {'size':<7} {'n':>5} {'median':>8} {'p90':>8} {'p99':>8} "
          f"{'max':>8}")
    for backend, cols, rows in configs:
        values = sorted(1000 * v for v in samples[backend, cols, rows])
        print(f"{backend:<8} {f'{cols}x{rows}':<7} {len(values):5d} "
              f"{statistics.median(values):8.3f} {percentile(values, 90):8.3f} "
              f"{percentile(values, 99):8.3f} {values[-1]:8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
