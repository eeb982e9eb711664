"""A child prints N MB as fast as it can: how long does it take to finish
under termsim, compared with a bare PTY that is only read?

    python benchmarks/bench_flood.py [--mb 20] [--reps 3]

The child measures its own run time (time.monotonic() around its writes) and
prints it last; the harness reads it from the screen. Both runs read the same
PTY the same way; termsim also emulates, records nothing, and answers queries.
Target (issue "Speed"): the child finishes within 1.5x of the bare run, and
waits still see the final screen.
"""

from __future__ import annotations

import argparse
import os
import re
import select
import statistics
import sys
import time

import anyio

import termsim
from termsim.live.spawn import start

CHILD = """
import sys, time
n = int(sys.argv[1])
line = b"\\x1b[32mINFO\\x1b[0m worker-3 handled request id=123456 in 4.2ms " + b"x" * 20 + b"\\r\\n"
block = line * (65536 // len(line))
start = time.monotonic()
written = 0
while written < n:
    sys.stdout.buffer.write(block)
    written += len(block)
sys.stdout.buffer.flush()
print(f"ELAPSED {time.monotonic() - start:.4f}", flush=True)
sys.stdin.readline()
"""


def bare(mb: int) -> float:
    proc = start([sys.executable, "-c", CHILD, str(mb << 20)], env=dict(os.environ), cwd=None,
                 cols=80, rows=24)
    data = bytearray()
    while b"ELAPSED" not in data[-200:]:
        select.select([proc.fd], [], [], 10)
        data += os.read(proc.fd, 1 << 16)
    while not re.search(rb"ELAPSED [\d.]+\r\n", data[-200:]):
        select.select([proc.fd], [], [], 10)
        data += os.read(proc.fd, 1 << 16)
    os.write(proc.fd, b"\n")
    proc.popen.wait()
    os.close(proc.fd)
    return float(re.findall(rb"ELAPSED ([\d.]+)", bytes(data[-200:]))[-1])


async def under_termsim(mb: int) -> tuple[float, float]:
    started = time.monotonic()
    async with termsim.spawn([sys.executable, "-c", CHILD, str(mb << 20)], record=False) as t:
        snap = await t.wait_for(termsim.Regex(r"ELAPSED [\d.]+"), timeout=600)
        harness = time.monotonic() - started
        await t.send(b"\n")
        await t.wait_exit(timeout=60)
    child = float(re.findall(r"ELAPSED ([\d.]+)", snap.text)[-1])
    return child, harness


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    bare_runs, child_runs, harness_runs = [], [], []
    for _ in range(args.reps):
        bare_runs.append(bare(args.mb))
        child, harness = anyio.run(under_termsim, args.mb)
        child_runs.append(child)
        harness_runs.append(harness)
    b, c, h = (statistics.median(x) for x in (bare_runs, child_runs, harness_runs))
    print(f"{args.mb} MB, median of {args.reps} alternating runs")
    print(f"  child run time, bare PTY read:   {b:8.3f} s")
    print(f"  child run time, under termsim:   {c:8.3f} s   ratio {c / b:5.2f}x (target <= 1.5x)")
    print(f"  until the wait saw the end:      {h:8.3f} s   ({args.mb / h:.1f} MB/s emulated)")


if __name__ == "__main__":
    main()
