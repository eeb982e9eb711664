"""Recording: what ``spawn(..., record=path)`` costs, how fast it reads back, its size.

1. Overhead. A child (``python -c``) builds about 1 MB of mixed log output
   (timestamps, SGR-coloured levels, 256-colour tags, lines that wrap at 80
   columns, a little non-ASCII), then writes it over and over in big writes
   until it has written ``--mb`` MB, and exits. Its last line is
   ``ELAPSED <s> WROTE <bytes> NL <newlines>``: ``time.monotonic()`` from its
   first write to its last. It runs under ``termsim.spawn(..., cols=80,
   rows=24)`` without and with ``record=``, alternating (the order flips every
   repetition), ``--repeats`` times each. Each run reports the child's own
   time (parsed from the final screen) and the parent's wall time from
   ``spawn`` to ``await term.wait_exit()`` returning. The child is throttled
   by the PTY: it can only write as fast as the parent reads, so both times
   measure the parent's read-feed(-record) loop. The table shows medians and
   the ratio recorded/unrecorded.

   Every byte is checked: a listener on ``term.listeners`` counts the
   ``"output"`` bytes in both runs; that count must equal what the child
   wrote as seen through the PTY (its bytes plus one CR per LF, ONLCR), and in
   the recorded run also the sum of the ``o`` event payloads read back from
   the file.
2. Reading back. ``termsim.Recording.open(path)`` on each recorded file
   (``gc.collect()`` first); median MB/s of the file size.
3. Size. The ``.tsr`` file against its asciicast v2 export
   (``termsim._asciicast.export_asciicast(recording, out, version=2)``).

Usage: ``python benchmarks/bench_recording.py [--mb 20] [--repeats 3]
[--backend asyncio|trio]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial

import anyio

import termsim
from termsim._asciicast import export_asciicast

CHILD = r"""
import random, sys, time
target = int(sys.argv[1])
rng = random.Random(1234)
LEVELS = [
    (b"\x1b[32mINFO \x1b[0m", 60), (b"\x1b[2mDEBUG\x1b[0m", 20),
    (b"\x1b[33mWARN \x1b[0m", 12), (b"\x1b[1;31mERROR\x1b[0m", 8),
]
WORDS = (b"request handled cache miss retry upstream worker queue flushed user "
         b"session opened closed timeout payload bytes checksum ok \xe2\x9c\x93 "
         b"caf\xc3\xa9 \xe2\x86\x92 item").split()
levels, weights = zip(*LEVELS)
lines, size = [], 0
while size < 1_000_000:
    ts = b"2024-05-01T12:%02d:%02d.%03dZ" % (rng.randrange(60), rng.randrange(60),
                                              rng.randrange(1000))
    level = rng.choices(levels, weights)[0]
    tag = b"\x1b[38;5;%dm[worker-%d]\x1b[0m" % (rng.randrange(16, 232), rng.randrange(8))
    # 3-30 words: most lines fit in 80 columns, about a quarter wrap
    text = b" ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 30)))
    line = b"%s %s %s %s id=%d dur=%dms\n" % (ts, level, tag, text, rng.randrange(10**6),
                                             rng.randrange(500))
    lines.append(line)
    size += len(line)
block = b"".join(lines)
out = sys.stdout.buffer
written = newlines = 0
t0 = time.monotonic()
while written + len(block) <= target:
    out.write(block)
    written += len(block)
    newlines += block.count(b"\n")
tail = []
for line in lines:
    if written + len(line) > target:
        break
    tail.append(line)
    written += len(line)
    newlines += 1
out.write(b"".join(tail))
out.flush()
elapsed = time.monotonic() - t0
out.write(b"ELAPSED %.4f WROTE %d NL %d\n" % (elapsed, written, newlines))
out.flush()
"""

FINAL = re.compile(r"ELAPSED (\d+\.\d+) WROTE (\d+) NL (\d+)")


@dataclass
class Run:
    recorded: bool
    child: float      # the child's own time (s)
    wall: float       # spawn -> wait_exit returned (s)
    seen: int         # "output" bytes counted by the listener
    expected: int     # what the child wrote, as seen through the PTY (LF -> CRLF)
    path: str | None


async def session(mb: float, record: str | None) -> Run:
    seen = 0

    def count(kind: str, t: float, data: object) -> None:
        nonlocal seen
        if kind == "output":
            seen += len(data)  # type: ignore[arg-type]

    argv = [sys.executable, "-c", CHILD, str(round(mb * 1e6))]
    t0 = time.monotonic()
    async with termsim.spawn(argv, cols=80, rows=24, record=record) as term:
        term.listeners.append(count)
        status = await term.wait_exit(timeout=600)
        wall = time.monotonic() - t0
        text = term.screen.text
    if status != 0:
        raise SystemExit(f"the child exited with {status}:\n{text}")
    match = FINAL.search(text)
    if match is None:
        raise SystemExit(f"no ELAPSED line on the final screen:\n{text}")
    last_line = match.group(0).encode() + b"\r\n"
    expected = int(match[2]) + int(match[3]) + len(last_line)
    return Run(record is not None, float(match[1]), wall, seen, expected, record)


def check_file(run: Run) -> tuple[float, int, int, termsim.Recording]:
    """Read the recording back: (seconds to open, output bytes in it, events, recording)."""
    assert run.path is not None
    gc.collect()
    t0 = time.perf_counter()
    recording = termsim.Recording.open(run.path)
    seconds = time.perf_counter() - t0
    output = sum(len(e.data[0]) for e in recording.events if e.kind == "o")
    return seconds, output, len(recording.events), recording


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=20.0, help="MB the child writes (20)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each kind (3)")
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    args = parser.parse_args()

    runs: dict[bool, list[Run]] = {False: [], True: []}
    opens: list[float] = []
    sizes: list[tuple[int, int, int]] = []  # (tsr bytes, cast bytes, events)
    problems: list[str] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench_recording-") as tmp:
        for rep in range(args.repeats):
            order = (False, True) if rep % 2 == 0 else (True, False)
            for recorded in order:
                path = os.path.join(tmp, f"run{rep}.tsr") if recorded else None
                gc.collect()
                run = anyio.run(partial(session, args.mb, path), backend=args.backend)
                runs[recorded].append(run)
                kind = "recorded" if recorded else "unrecorded"
                line = (f"  rep {rep + 1} {kind:<10} child {run.child:7.3f} s  "
                        f"wall {run.wall:7.3f} s  bytes {run.seen:,}")
                if run.seen != run.expected:
                    problems.append(f"rep {rep + 1} {kind}: the listener saw {run.seen:,} "
                                    f"bytes, the child wrote {run.expected:,}")
                if recorded:
                    seconds, output, events, recording = check_file(run)
                    opens.append(seconds)
                    if output != run.seen:
                        problems.append(f"rep {rep + 1}: the file holds {output:,} output "
                                        f"bytes, the listener saw {run.seen:,}")
                    if not recording.complete:
                        problems.append(f"rep {rep + 1}: the recording is incomplete")
                    cast_path = path + ".cast"  # type: ignore[operator]
                    with open(cast_path, "w", encoding="utf-8") as out:
                        export_asciicast(recording, out, version=2)
                    sizes.append((recording.size, os.path.getsize(cast_path), events))
                    line += (f"  file {recording.size / 1e6:.2f} MB, {events:,} events, "
                             f"read {recording.size / 1e6 / seconds:.1f} MB/s")
                    del recording
                    os.remove(cast_path)
                    os.remove(path)  # type: ignore[arg-type]
                print(line, flush=True)

    def med(recorded: bool, attr: str) -> float:
        return statistics.median(getattr(r, attr) for r in runs[recorded])

    mb = statistics.median(r.seen for r in runs[True]) / 1e6
    tsr, cast, events = sorted(sizes)[len(sizes) // 2]
    read_mbs = statistics.median(s / t for (s, _, _), t in zip(sizes, opens, strict=True)) / 1e6
    print()
    print(f"Recording, {mb:.2f} MB of output through an 80x24 PTY, median of "
          f"{args.repeats} alternating runs each ({args.backend}); "
          f"total {time.monotonic() - started:.0f} s")
    print(f"Python {sys.version.split()[0]}, termsim {termsim.__version__}")
    print(f"{'measure':<34} {'unrecorded':>11} {'recorded':>11} {'ratio':>8} {'target':>10}")
    for label, attr in (("child's own time (s)", "child"), ("spawn -> wait_exit (s)", "wall")):
        plain, recorded = med(False, attr), med(True, attr)
        print(f"{label:<34} {plain:11.3f} {recorded:11.3f} {recorded / plain:7.2f}x "
              f"{'<= 1.5x':>10}")
    print(f"{'throughput, wall (MB/s)':<34} {mb / med(False, 'wall'):11.2f} "
          f"{mb / med(True, 'wall'):11.2f}")
    print(f"{'Recording.open() (MB/s of file)':<34} {'':>11} {read_mbs:11.1f} {'':>8} "
          f"{'tens MB/s':>10}")
    print(f"{'.tsr size (MB)':<34} {'':>11} {tsr / 1e6:11.2f} {'':>8}")
    print(f"{'asciicast v2 size (MB)':<34} {'':>11} {cast / 1e6:11.2f} {'':>8}")
    print(f"{'.tsr / asciicast v2':<34} {'':>11} {'':>11} {tsr / cast:7.2f}x {'<= 1x':>10}")
    print(f"events per recording: {events:,} (mean {mb * 1e6 / events:,.0f} output "
          f"bytes each); every byte accounted for: {'no' if problems else 'yes'}")
    for problem in problems:
        print("PROBLEM:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
