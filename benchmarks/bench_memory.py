"""Peak memory of the harness while a program floods its terminal.

    python benchmarks/bench_memory.py [--mb 1024] [--backend asyncio|trio]

The child (``python -c``) builds about 1 MB of seeded log lines (an
``HH:MM:SS.mmm`` time, a level in SGR colour, a worker tag, a message of
3-30 words: 40-200 bytes, so about a third wrap at 80 columns) and writes
that block again and again, one ``write`` per block, as fast as it can,
until it has written ``--mb`` MB (MiB); then it prints
``ELAPSED <s> WROTE <bytes>`` and waits for a line on stdin. The parent runs
it under ``termsim.spawn(..., record=False)`` (80x24), waits for that last
line on the screen (so everything was emulated), sends the line, and waits
for the exit.

Memory is the harness's resident set: ``ru_maxrss`` (``RUSAGE_SELF``, the
peak over the process's life) before ``spawn`` and after the exit, and a
task that reads ``/proc/self/statm`` every 0.5 s (a measurement interval,
not synchronisation), which also samples how much output is read but not
yet emulated (the session's backlog, capped by ``termsim.live.pty.MAX_BACKLOG``).
Target: peak RSS < 200 MB. Also shown: the child's own time, the wall time
until the last line was on the screen, and the emulation rate.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import sys
import time

import anyio

import termsim
from termsim.live import pty as _pty

CHILD = r"""
import random, sys, time
limit = int(sys.argv[1])
rng = random.Random(7)
words = ("request handled cache miss user session token refresh queue worker db "
         "query slow retry upstream timeout ok created deleted updated").split()
levels = ("\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[31mERROR\x1b[0m",
          "\x1b[2mDEBUG\x1b[0m")
lines, size = [], 0
while size < 1 << 20:
    ms = len(lines) * 7
    line = (f"{ms // 3600000 % 24:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}."
            f"{ms % 1000:03d} {rng.choice(levels)} worker-{rng.randrange(16)} "
            + " ".join(rng.choice(words) for _ in range(rng.randint(3, 30))))
    lines.append(line)
    size += len(line) + 1
block = ("\n".join(lines) + "\n").encode()
out = sys.stdout.buffer
written = 0
start = time.monotonic()
while written < limit:
    part = block if limit - written >= len(block) else block[: limit - written]
    out.write(part)
    written += len(part)
out.flush()
out.write(b"\nELAPSED %.3f WROTE %d\n" % (time.monotonic() - start, written))
out.flush()
sys.stdin.readline()
"""

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 1e6


def maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6  # KiB on Linux


async def run(mb: int) -> dict[str, float]:
    samples: list[tuple[float, float, int]] = []  # (t, rss MB, backlog bytes)
    term: termsim.Session | None = None
    t0 = time.monotonic()

    async def sample() -> None:
        while True:
            backlog = getattr(term, "_backlog_size", 0) if term is not None else 0
            samples.append((time.monotonic() - t0, rss_mb(), backlog))
            await anyio.sleep(0.5)  # the sampling interval

    before = {"rss": rss_mb(), "maxrss": maxrss_mb()}
    async with anyio.create_task_group() as tg:
        tg.start_soon(sample)
        t0 = time.monotonic()
        async with termsim.spawn([sys.executable, "-c", CHILD, str(mb << 20)],
                                 record=False) as term:
            snap = await term.wait_for(termsim.Regex(r"ELAPSED [\d.]+ WROTE \d+"),
                                       timeout=7200)
            wall = time.monotonic() - t0
            await term.send(b"\n")
            status = await term.wait_exit(timeout=60)
        samples.append((time.monotonic() - t0, rss_mb(), 0))
        tg.cancel_scope.cancel()
    if status != 0:
        raise SystemExit(f"the child exited with status {status}")
    found = re.search(r"ELAPSED ([\d.]+) WROTE (\d+)", snap.text)
    assert found is not None
    peak_at = max(samples, key=lambda s: s[1])
    return {
        "rss_before": before["rss"], "maxrss_before": before["maxrss"],
        "maxrss_after": maxrss_mb(), "sampled_peak": peak_at[1], "peak_at": peak_at[0],
        "backlog_peak": max(s[2] for s in samples) / 1e6, "samples": len(samples),
        "child": float(found.group(1)), "wrote": int(found.group(2)) / 1e6, "wall": wall,
        "rss_end": samples[-1][1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=1024, help="MiB the child writes")
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    args = parser.parse_args()
    r = anyio.run(run, args.mb, backend=args.backend)
    print(f"{r['wrote']:,.0f} MB of log lines through termsim.spawn(record=False), 80x24, "
          f"{args.backend}; backlog cap {_pty.MAX_BACKLOG / 1e6:.0f} MB")
    rows = [
        ("RSS before spawn (statm)", f"{r['rss_before']:.1f} MB", ""),
        ("ru_maxrss before spawn", f"{r['maxrss_before']:.1f} MB", ""),
        ("peak RSS, sampled every 0.5 s", f"{r['sampled_peak']:.1f} MB",
         f"at {r['peak_at']:.0f} s, {r['samples']} samples"),
        ("ru_maxrss after the exit", f"{r['maxrss_after']:.1f} MB", "target < 200 MB"),
        ("RSS after the exit", f"{r['rss_end']:.1f} MB", ""),
        ("largest backlog sampled", f"{r['backlog_peak']:.1f} MB", "read, not yet emulated"),
        ("child's own time", f"{r['child']:.1f} s", f"{r['wrote'] / r['child']:.1f} MB/s"),
        ("until the last line was on screen", f"{r['wall']:.1f} s",
         f"{r['wrote'] / r['wall']:.2f} MB/s emulated"),
    ]
    for key, value, note in rows:
        print(f"  {key:34} {value:>10}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
