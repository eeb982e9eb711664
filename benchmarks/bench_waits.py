"""What pending waits cost: one wait against ten on a flooding program, and
what one snapshot costs after a one-row change.

    python benchmarks/bench_waits.py [--lines 200000] [--repeats 5]
                                     [--backend asyncio|trio]

1. Pending waits. The child (``python -c``) prints ``--lines`` short lines
   (``line <i>``, 7-12 bytes) as fast as it can, then ``THE END``, then
   waits for a line on stdin (so the session is still running when the wait
   resolves). In one session (``termsim.spawn(..., record=False)``, 80x24)
   the parent starts, in one task group, either one wait (``Text("THE END")``)
   or ten: that one plus nine that never match (``Text`` on the screen, the
   bottom row, rows 0-11 and a rectangle, three ``Regex``, a ``CursorAfter``
   and a ``Text & Regex``). When the one for ``THE END`` returns, the other
   nine are cancelled. Measured from just before ``spawn`` to that return:
   wall time and the parent's CPU time (``time.process_time()``). The two
   configurations alternate (order flipped every repetition), ``--repeats``
   each; the table shows medians, the ratio ten/one, and the median of the
   per-repetition ratios. Target: ten waits cost no more than 2x one.
2. Screen changes and predicates. The number of PTY reads, and offline, on a
   full 80x24 screen of such lines, the time the nine extra predicates take
   per evaluation: what the engine adds per screen change for nine more
   waits (it builds one snapshot per change, whatever the number of waits).
3. Snapshot cost. ``termsim.emulator.Terminal(80, 24)``, screen full of text; then
   repeatedly a small feed that rewrites one row (a CUP and 20 characters),
   untimed, and ``time.perf_counter_ns()`` around ``terminal.screen``. Median
   and p90 of ``--snapshots`` builds; also after a feed that scrolls the
   screen by one line (every row moves) and with no change at all (the
   cached snapshot). Target: <= 100 us after a one-row change.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

import anyio

import termsim
from termsim import CursorAfter, Regex, Region, Text

CHILD = r"""
import sys
n = int(sys.argv[1])
out = sys.stdout
out.write("".join(f"line {i}\n" for i in range(n)))
out.write("THE END\n")
out.flush()
sys.stdin.readline()
"""

TARGET = Text("THE END")
NEVER = [
    Text("no such text"),
    Text("line -1", region=Region.row(-1)),
    Text("zzz", region=Region.rows(0, 12)),
    Text("qqq", region=Region.rect(2, 10, 20, 60)),
    Regex(r"line \d+ extra"),
    Regex(r"^ERROR"),
    Regex(r"(?i)traceback \(most recent call last\)"),
    CursorAfter("nope> "),
    Text("never") & Regex(r"never \d"),
]


async def one_run(lines: int, waits: int) -> tuple[float, float, int]:
    """Wall and CPU seconds until the wait for THE END returned; PTY reads."""
    reads = 0

    def count(event: termsim.files.Event) -> None:
        nonlocal reads
        if isinstance(event, termsim.events.Output):
            reads += 1

    gc.collect()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    async with termsim.spawn([sys.executable, "-c", CHILD, str(lines)], record=False) as term:
        term.listeners.append(count)
        async with anyio.create_task_group() as tg:
            for pred in NEVER[: waits - 1]:
                tg.start_soon(never, term, pred)
            await term.wait_for(TARGET, timeout=600)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
            tg.cancel_scope.cancel()
        await term.send(b"\n")
        status = await term.wait_exit(timeout=30)
    if status != 0:
        raise SystemExit(f"the child exited with status {status}")
    return wall, cpu, reads


async def never(term: termsim.Session, pred: termsim.Predicate) -> None:
    await term.wait_for(pred, timeout=600)
    raise AssertionError(f"{pred.describe()} matched")


def predicate_cost(lines: int) -> tuple[float, float]:
    """Microseconds per evaluation: the target alone, and the nine others."""
    terminal = termsim.emulator.Terminal(80, 24)
    terminal.feed("".join(f"line {i}\r\n" for i in range(lines - 30, lines)).encode())
    snap = terminal.screen
    reps = 2000
    out = []
    for preds in ([TARGET], NEVER):
        samples = []
        for _ in range(5):
            t0 = time.perf_counter_ns()
            for _ in range(reps):
                for p in preds:
                    p(snap)
            samples.append((time.perf_counter_ns() - t0) / reps / 1000)
        out.append(statistics.median(samples))
    return out[0], out[1]


def snapshot_cost(n: int) -> dict[str, tuple[float, float]]:
    """Median and p90 microseconds of ``terminal.screen`` after each kind of feed."""
    terminal = termsim.emulator.Terminal(80, 24)
    terminal.feed(b"".join(b"row %02d " % r + b"x" * 60 + b"\r\n" for r in range(23)))
    terminal.feed(b"row 23 " + b"x" * 60)
    terminal.screen  # noqa: B018 - the first snapshot builds every row
    feeds = {
        "one row changed": lambda i: b"\x1b[6;1H" + b"changed %012d!!!!!!" % i,
        "scrolled one line": lambda i: b"\x1b[24;1H\r\nnew line %d" % i,
        "nothing (cached)": lambda i: b"",
    }
    out = {}
    for name, make in feeds.items():
        samples = []
        gc.collect()
        for i in range(n):
            data = make(i)
            if data:
                terminal.feed(data)
            t0 = time.perf_counter_ns()
            terminal.screen  # noqa: B018 - the timed build
            samples.append((time.perf_counter_ns() - t0) / 1000)
        samples.sort()
        out[name] = (statistics.median(samples), samples[int(0.9 * len(samples))])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--snapshots", type=int, default=3000)
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    args = parser.parse_args()

    runs: dict[int, list[tuple[float, float, int]]] = {1: [], 10: []}
    for rep in range(args.repeats):
        order = (1, 10) if rep % 2 == 0 else (10, 1)
        for waits in order:
            runs[waits].append(anyio.run(one_run, args.lines, waits, backend=args.backend))

    def med(waits: int, i: int) -> float:
        return statistics.median(r[i] for r in runs[waits])

    def paired(i: int) -> float:
        return statistics.median(b[i] / a[i] for a, b in zip(runs[1], runs[10], strict=True))

    print(f"{args.lines:,} lines (+ THE END), 80x24, {args.backend}, "
          f"median of {args.repeats} alternating runs each")
    print(f"  {'':30} {'1 wait':>9} {'10 waits':>9} {'10/1':>7} {'paired':>7}  target")
    for label, i, target in (("wall time to the match (s)", 0, ""),
                             ("parent CPU time (s)", 1, "<= 2x")):
        a, b = med(1, i), med(10, i)
        print(f"  {label:30} {a:9.3f} {b:9.3f} {b / a:6.2f}x {paired(i):6.2f}x  {target}")
    print(f"  {'PTY reads (median)':30} {med(1, 2):9.0f} {med(10, 2):9.0f}")
    one, nine = predicate_cost(args.lines)
    print(f"  predicates per screen change, offline: the target {one:.1f} us, "
          f"the nine others {nine:.1f} us")
    print()
    print(f"snapshot cost, 80x24, median of {args.snapshots} builds (us)")
    print(f"  {'change since the last build':30} {'median':>8} {'p90':>8}  target")
    for name, (median, p90) in snapshot_cost(args.snapshots).items():
        target = "<= 100 us" if name == "one row changed" else ""
        print(f"  {name:30} {median:8.1f} {p90:8.1f}  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
