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

Usage: ``python benchmarks/bench_wait_latency.py``.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from functools import partial

import anyio

import termsim

SAMPLES = 200
WARMUP = 5
ROUNDS = 5
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


async def session(cols: int, rows: int) -> list[float]:
    """One session: WARMUP + SAMPLES round trips; latencies in seconds."""
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
        await term.wait_exit(5)
    return latencies


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    index = max(0, min(len(sorted_values) - 1, round(q / 100 * len(sorted_values)) - 1))
    return sorted_values[index]


def main() -> int:
    configs = [(backend, cols, rows) for cols, rows in SIZES for backend in BACKENDS]
    samples: dict[tuple[str, int, int], list[float]] = {c: [] for c in configs}
    for round_ in range(ROUNDS):
        order = configs if round_ % 2 == 0 else configs[::-1]
        for backend, cols, rows in order:
            samples[backend, cols, rows] += anyio.run(
                partial(session, cols, rows), backend=backend,
            )
    print(f"Wait latency, child write -> waiting task awake (ms); {ROUNDS} alternating "
          f"sessions x {SAMPLES} round trips per row")
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
