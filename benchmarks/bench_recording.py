"""Recording: what ``spawn(..., record=path)`` costs, how fast it reads back, its size.

1. Overhead. A child (``python -c``) builds about 1 MB of mixed log output
   (timestamps, SGR-coloured levels, 256-colour tags; about 108 bytes and 4
   SGR sequences per line, a quarter of the lines wrapping at 80 columns,
   non-ASCII in 2% of them), then writes it over and over, the whole block
   per ``write``, until it has written ``--mb`` MB, and exits. Its last line
   is ``ELAPSED <s> WROTE <bytes> NL <newlines>``: ``time.monotonic()`` from
   its first write to its last. It runs under ``termsim.spawn(..., cols=80,
   rows=24)`` without and with ``record=``, alternating (the order flips
   every repetition), ``--repeats`` times each. Each run reports the child's
   own time (parsed from the final screen) and the parent's wall time from
   ``spawn`` to ``await term.wait_exit()`` returning.

   The two times measure different loops. The session's reader empties the
   PTY into a backlog (up to 64 MB), recording each chunk as it is read,
   and emulates the backlog in slices between reads: so the child, which can
   only write as fast as the PTY is read, waits for reading and recording
   but not for the emulator, and its time is where recording shows. By
   ``wait_exit()`` the whole backlog has been emulated, so the wall time is
   mostly ``Terminal.feed``. (Above 64 MB of backlog the PTY pushes back and
   the child waits for the emulator too.)

   The parent's CPU time (``time.process_time()``) over the same interval,
   and the child's (``RUSAGE_CHILDREN``), are shown too: on a shared machine
   CPU time moves less with other jobs than wall time does. The table shows
   the medians, their ratio recorded/unrecorded, and the median of the
   per-repetition ratios (the two runs of a repetition run back to back).

   Every byte is checked: a listener on ``term.listeners`` counts the
   ``"output"`` bytes in both runs; that count must equal what the child
   wrote as seen through the PTY (its bytes plus one CR per LF, ONLCR), and
   in the recorded run also the sum of the ``o`` event payloads read back
   from the file. The exit status is 1 if any count differs.
2. The recorder's own cost: the events of each file are written again with a
   fresh ``Recorder`` (msgpack, CRC-32, one ``write(2)`` per event), offline,
   and shown as a share of the unrecorded child's time: the slowdown of the
   read loop that the recorder alone explains (a floor: offline, the caches
   are warm and nothing else runs between two events).
3. Reading back. ``termsim.files.Recording.open(path)`` on each recorded file
   (``gc.collect()`` first); median MB/s of the file size.
4. Size. The ``.tsr`` file against its asciicast v2 export
   (``termsim.report.asciicast.export_asciicast(recording, out, version=2)``).

Usage: ``python benchmarks/bench_recording.py [--mb 20] [--repeats 3]
[--backend asyncio|trio]`` (about 40 s with the defaults).
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial

import anyio

import termsim
from termsim.events import Output
from termsim.recording.format import RecordingWriter
from termsim.report.asciicast import export_asciicast

CHILD = r"""
import random, sys, time
target = int(sys.argv[1])
rng = random.Random(1234)
LEVELS = [
    (b"\x1b[32mINFO \x1b[0m", 60), (b"\x1b[2mDEBUG\x1b[0m", 20),
    (b"\x1b[33mWARN \x1b[0m", 12), (b"\x1b[1;31mERROR\x1b[0m", 8),
]
WORDS = (b"request handled cache miss retry upstream worker queue flushed user "
         b"session opened closed timeout payload bytes checksum ok item").split()
UNICODE = "\u2713 caf\u00e9 \u2192 \u2500\u2500".encode().split()
levels, weights = zip(*LEVELS)
lines, size = [], 0
while size < 1_000_000:
    ts = b"12:%02d:%02d.%03d" % (rng.randrange(60), rng.randrange(60), rng.randrange(1000))
    level = rng.choices(levels, weights)[0]
    tag = b"\x1b[38;5;%dm[worker-%d]\x1b[0m" % (rng.randrange(16, 232), rng.randrange(8))
    # three lines in four fit in 80 columns; one in ten takes 2-3 rows
    count = rng.randrange(15, 35) if rng.random() < 0.1 else rng.randrange(1, 6)
    words = [rng.choice(WORDS) for _ in range(count)]
    if rng.random() < 0.02:  # a little non-ASCII, in 2% of the lines
        words.insert(rng.randrange(len(words)), rng.choice(UNICODE))
    text = b" ".join(words)
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
    cpu: float        # the parent's CPU time over the same interval (s)
    child_cpu: float  # the child's CPU time (s)
    seen: int         # "output" bytes counted by the listener
    expected: int     # what the child wrote, as seen through the PTY (LF -> CRLF)
    path: str | None


async def session(mb: float, record: str | None) -> Run:
    seen = 0

    def count(event: termsim.files.Event) -> None:
        nonlocal seen
        if isinstance(event, Output):
            seen += len(event.data)

    argv = [sys.executable, "-c", CHILD, str(round(mb * 1e6))]
    children0 = _children_cpu()
    cpu0 = time.process_time()
    t0 = time.monotonic()
    # record=False: never the pytest plugin's default recording
    async with termsim.spawn(argv, cols=80, rows=24, record=record or False) as term:
        term.listeners.append(count)
        status = await term.wait_exit(timeout=600)
        wall = time.monotonic() - t0
        cpu = time.process_time() - cpu0
        child_cpu = _children_cpu() - children0  # termsim reaped it before wait_exit returned
        text = term.screen.text
    if status != 0:
        raise SystemExit(f"the child exited with {status}:\n{text}")
    match = FINAL.search(text)
    if match is None:
        raise SystemExit(f"no ELAPSED line on the final screen:\n{text}")
    last_line = match.group(0).encode() + b"\r\n"
    expected = int(match[2]) + int(match[3]) + len(last_line)
    return Run(record is not None, float(match[1]), wall, cpu, child_cpu, seen, expected,
               record)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check_file(run: Run) -> tuple[float, int, int, termsim.files.Recording]:
    """Read the recording back: (seconds to open, output bytes in it, events, recording)."""
    assert run.path is not None
    gc.collect()
    t0 = time.perf_counter()
    recording = termsim.files.Recording.open(run.path)
    seconds = time.perf_counter() - t0
    output = sum(len(e.data) for e in recording.of_type(Output))
    return seconds, output, len(recording.events), recording


def rewrite_cost(recording: termsim.files.Recording, path: str) -> float:
    """Seconds to write every event of ``recording`` again with a fresh writer.

    That is the recorder's share of a recorded run (msgpack, CRC-32, one
    ``write(2)`` per event), measured without the PTY and the terminal.
    """
    recorder = RecordingWriter(path, recording.header)
    gc.collect()
    t0 = time.perf_counter()
    for event in recording.events:
        recorder.write(event)
    seconds = time.perf_counter() - t0
    recorder.close(recording.duration, "closed")
    os.remove(path)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=20.0, help="MB the child writes (20)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each kind (3)")
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    args = parser.parse_args()

    runs: dict[bool, list[Run]] = {False: [], True: []}
    opens: list[float] = []
    rewrites: list[float] = []
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
                line = (f"  rep {rep + 1} {kind:<10} child {run.child:6.2f} s  "
                        f"wall {run.wall:6.2f} s  parent CPU {run.cpu:6.2f} s  "
                        f"child CPU {run.child_cpu:5.2f} s  bytes {run.seen:,}")
                if run.seen != run.expected:
                    problems.append(f"rep {rep + 1} {kind}: the listener saw {run.seen:,} "
                                    f"bytes, the child wrote {run.expected:,}")
                if path is not None:
                    seconds, output, events, recording = check_file(run)
                    opens.append(seconds)
                    rewrites.append(rewrite_cost(recording, path + ".again"))
                    if output != run.seen:
                        problems.append(f"rep {rep + 1}: the file holds {output:,} output "
                                        f"bytes, the listener saw {run.seen:,}")
                    if not recording.complete:
                        problems.append(f"rep {rep + 1}: the recording is incomplete")
                    cast_path = path + ".cast"
                    with open(cast_path, "w", encoding="utf-8") as out:
                        export_asciicast(recording, out, version=2)
                    sizes.append((recording.size, os.path.getsize(cast_path), events))
                    line += (f"  file {recording.size / 1e6:.2f} MB  {events:,} events  "
                             f"open {recording.size / 1e6 / seconds:.0f} MB/s")
                    del recording
                    os.remove(cast_path)
                    os.remove(path)
                print(line, flush=True)

    def med(recorded: bool, attr: str) -> float:
        return statistics.median(getattr(r, attr) for r in runs[recorded])

    def paired(attr: str) -> float:
        """Median of recorded/unrecorded within each repetition (run back to back)."""
        return statistics.median(
            getattr(r, attr) / getattr(u, attr)
            for r, u in zip(runs[True], runs[False], strict=True)
        )

    mb = statistics.median(r.seen for r in runs[True]) / 1e6
    tsr, cast, events = sorted(sizes)[len(sizes) // 2]
    read_mbs = statistics.median(s / t for (s, _, _), t in zip(sizes, opens, strict=True)) / 1e6
    print()
    print(f"Recording, {mb:.2f} MB of output through an 80x24 PTY, median of "
          f"{args.repeats} alternating runs each ({args.backend}); "
          f"total {time.monotonic() - started:.0f} s")
    print(f"Python {sys.version.split()[0]}, termsim {termsim.__version__}")
    print("ratio: of the medians; paired: median of the per-repetition ratios")
    print(f"{'measure':<32} {'unrecorded':>10} {'recorded':>10} {'ratio':>7} {'paired':>7} "
          f"{'target':>11}")
    for label, attr in (("child's own time (s)", "child"), ("spawn -> wait_exit (s)", "wall"),
                        ("parent CPU time (s)", "cpu"), ("child CPU time (s)", "child_cpu")):
        plain, recorded = med(False, attr), med(True, attr)
        target = "<= 1.5x" if attr in ("child", "wall") else ""
        print(f"{label:<32} {plain:10.3f} {recorded:10.3f} {recorded / plain:6.2f}x "
              f"{paired(attr):6.2f}x {target:>11}".rstrip())
    rewrite = statistics.median(rewrites)
    print(f"{'Recorder.event, all events (s)':<32} {'':>10} {rewrite:10.3f} "
          f"{100 * rewrite / med(False, 'child'):+6.1f}% {'':>7} {'(offline)':>11}")
    print(f"{'throughput, wall (MB/s)':<32} {mb / med(False, 'wall'):10.2f} "
          f"{mb / med(True, 'wall'):10.2f}")
    print(f"{'Recording.open() (MB/s of file)':<32} {'':>10} {read_mbs:10.0f} {'':>7} {'':>7} "
          f"{'>= 10 MB/s':>11}")
    print(f"{'.tsr size (MB)':<32} {'':>10} {tsr / 1e6:10.2f}")
    print(f"{'asciicast v2 size (MB)':<32} {'':>10} {cast / 1e6:10.2f}")
    print(f"{'.tsr / asciicast v2':<32} {'':>10} {'':>10} {tsr / cast:6.2f}x {'':>7} "
          f"{'<= 1x':>11}")
    print(f"events per recording: {events:,} (mean {mb * 1e6 / events:,.0f} output "
          f"bytes each); every byte accounted for: {'no' if problems else 'yes'}")
    for problem in problems:
        print("PROBLEM:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
