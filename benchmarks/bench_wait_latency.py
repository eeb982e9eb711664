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

A second table (``--only scroll`` for it alone) measures the same interval
on a screen that scrolls, beside pexpect. The child (``SCROLL_CHILD``) fills
the screen with text first, then answers each line with ``SCROLL_LINES``
lines as wide as the screen and the ``MARK`` line, so every reply scrolls a
screen full of earlier lines, and the wait is a whole-screen
``termsim.Regex`` for the new mark. A termsim session alternates two waits:
a plain one, and one with ``since=`` the mark of the line just sent (the
usual test, which needs the program's read of the input seen: the read
watch). pexpect's ``expect`` of the same regex on the same child runs in the
same process, a pexpect session right before or after each termsim session
(the order flipped every round), so both meet the same load; the ratios
termsim/pexpect are the figures to read on this shared machine. Each row is
measured twice: back to back (the next line sent as soon as a wait
returns), and paced, ``PAUSE`` seconds before each line, as a test does its
own work between two steps (and as pexpect's default ``delaybeforesend``
of 50 ms does): the CPU idles meanwhile and the next round trip runs on cold
caches, several times slower than a hot loop, so the work on the path
counts for more. The pause paces the workload; nothing waits on it.

Usage: ``python benchmarks/bench_wait_latency.py [--busy 50] [--rounds 5]
[--quick] [--previous CHECKOUT] [--only mark|scroll]``; ``--quick``: 2
rounds, a smoke run; ``--only``: one of the two tables (with
``--previous``: the MARK table unless ``--only scroll``, whose termsim
columns then compare with the previous termsim instead of pexpect).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import anyio
from _previous import in_checkout

import termsim

T = TypeVar("T")

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

#: Lines of text each reply of ``SCROLL_CHILD`` prints before its mark.
SCROLL_LINES = 3
#: The paced rows of the scrolling table: the pause before each line sent,
#: and the round trips per wait and session (fewer: each costs the pause).
PAUSE = 0.02
PACED_SAMPLES = 60

SCROLL_CHILD = r"""
import os, sys, termios, time, tty
tty.setraw(0, termios.TCSANOW)
cols, rows = os.get_terminal_size(0)
words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod "
def line(n, i):
    # As wide as the screen but a column, different on every row.
    return (f"line {n}.{i} " + words * (cols // len(words) + 1))[:cols - 1]
out = sys.stdout
out.write("".join(line(-1, i) + "\r\n" for i in range(rows)) + "READY\r\n")
out.flush()
n = 0
for got in iter(sys.stdin.buffer.readline, b""):
    if got.strip() == b"quit":
        break
    body = "".join(line(n, i) + "\r\n" for i in range(LINES))
    out.write(body + f"MARK {n} {time.monotonic():.9f} END\r\n")
    out.flush()
    n += 1
""".replace("LINES", str(SCROLL_LINES))


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
    return await beside(busy, cols, rows, partial(measured, cols, rows))


async def beside(busy: int, cols: int, rows: int, body: Callable[[], Awaitable[T]]) -> T:
    """``body()``, once ``busy`` background sessions have started."""
    if not busy:
        return await body()
    async with anyio.create_task_group() as tg:
        started, all_started = [0], anyio.Event()
        for _ in range(busy):
            tg.start_soon(background, cols, rows, started, all_started, busy)
        with anyio.fail_after(120):
            await all_started.wait()
        result = await body()
        tg.cancel_scope.cancel()
    return result


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


async def scrolled(cols: int, rows: int, pause: float, samples: int) -> list[list[float]]:
    """The scrolling child: WARMUP + ``samples`` round trips of each wait,
    alternating (a plain whole-screen Regex, then the same with ``since=``),
    each line sent ``pause`` seconds after the last wait returned;
    latencies in seconds, [plain, since]."""
    found: list[list[float]] = [[], []]
    async with termsim.spawn([sys.executable, "-c", SCROLL_CHILD], cols=cols,
                             rows=rows) as term:
        await term.wait_for(termsim.Text("READY"), timeout=10)
        for n in range(2 * (WARMUP + samples)):
            pattern = re.compile(rf"MARK {n} (\d+\.\d+) END")
            if pause:
                await anyio.sleep(pause)  # the test's own work: pacing, not synchronisation
            mark = await term.send(b"go\n")
            snap = await term.wait_for(termsim.Regex(pattern), timeout=5,
                                       since=mark if n % 2 else None)
            woke = time.monotonic()
            match = pattern.search(snap.text)
            assert match is not None
            if n >= 2 * WARMUP:
                found[n % 2].append(woke - float(match.group(1)))
        await term.send(b"quit\n")
        await term.wait_exit(timeout=5)
    return found


def pexpect_session(cols: int, rows: int, pause: float, samples: int) -> list[float]:
    """``scrolled``'s plain wait with pexpect's ``expect``: WARMUP +
    ``samples`` round trips; latencies in seconds."""
    import pexpect  # only this table needs it

    latencies = []
    child = pexpect.spawn(sys.executable, ["-c", SCROLL_CHILD], dimensions=(rows, cols),
                          encoding="utf-8", timeout=10)
    # Its own pause before each send is 50 ms; here both tools pause alike.
    child.delaybeforesend = None
    try:
        child.expect("READY")
        for n in range(WARMUP + samples):
            pattern = re.compile(rf"MARK {n} (\d+\.\d+) END")
            if pause:
                time.sleep(pause)  # the test's own work: pacing, not synchronisation
            child.send("go\n")
            child.expect(pattern, timeout=5)
            woke = time.monotonic()
            if n >= WARMUP:
                latencies.append(woke - float(child.match.group(1)))
        child.send("quit\n")
        child.expect(pexpect.EOF, timeout=5)
    finally:
        child.close(force=True)
    return latencies


def session_pass(backend: str, cols: int, rows: int, busy: int) -> list[float]:
    """For ``--previous``: one session, in this process (the termsim on
    ``sys.path``); latencies in seconds."""
    return anyio.run(partial(session, cols, rows, busy), backend=backend)


def scroll_pass(backend: str, cols: int, rows: int, busy: int, pause: float,
                samples: int) -> list[list[float]]:
    """``scrolled`` in this process, beside ``busy`` sessions: [plain, since]."""
    return anyio.run(partial(beside, busy, cols, rows,
                             partial(scrolled, cols, rows, pause, samples)), backend=backend)


def session_in(checkout: str, backend: str, cols: int, rows: int, busy: int) -> list[float]:
    """``session_pass`` in a new process, with termsim from ``checkout``."""
    result: list[float] = in_checkout(
        checkout, "bench_wait_latency", f"session_pass({backend!r}, {cols}, {rows}, {busy})",
        cwd=checkout)
    return result


def scroll_in(checkout: str, backend: str, cols: int, rows: int, busy: int, pause: float,
              samples: int) -> list[list[float]]:
    """``scroll_pass`` in a new process, with termsim from ``checkout``."""
    result: list[list[float]] = in_checkout(
        checkout, "bench_wait_latency",
        f"scroll_pass({backend!r}, {cols}, {rows}, {busy}, {pause}, {samples})", cwd=checkout)
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
                        help="other sessions running beside each measured termsim one")
    parser.add_argument("--rounds", type=int, help=f"sessions per row (default {ROUNDS})")
    parser.add_argument("--quick", action="store_true",
                        help=f"a smoke run: {QUICK_ROUNDS} rounds")
    parser.add_argument("--previous", metavar="CHECKOUT",
                        help="another termsim checkout to compare with")
    parser.add_argument("--only", choices=("mark", "scroll"),
                        help="one table: the MARK child's, or the scrolling one beside pexpect")
    args = parser.parse_args()
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else ROUNDS)
    configs = [(backend, cols, rows) for cols, rows in SIZES for backend in BACKENDS]
    previous = str(Path(args.previous).resolve()) if args.previous else None
    if args.only == "scroll":
        scroll_table(configs, rounds, args.busy, previous)
    elif previous is not None:
        return versus_previous(previous, configs, rounds, args.busy)
    else:
        mark_table(configs, rounds, args.busy)
        if args.only is None:
            print()
            scroll_table(configs, rounds, args.busy, None)
    return 0


def mark_table(configs: list[tuple[str, int, int]], rounds: int, busy: int) -> None:
    """The MARK child's round trips, every configuration alternating."""
    samples: dict[tuple[str, int, int], list[float]] = {c: [] for c in configs}
    for round_ in range(rounds):
        order = configs if round_ % 2 == 0 else configs[::-1]
        for backend, cols, rows in order:
            samples[backend, cols, rows] += anyio.run(
                partial(session, cols, rows, busy), backend=backend,
            )
    print(f"Wait latency, child write -> waiting task awake (ms); {rounds} alternating "
          f"sessions x {SAMPLES} round trips per row"
          + (f", each beside {busy} busy sessions" if busy else ""))
    print(f"Python {sys.version.split()[0]}, termsim {termsim.__version__}")
    print(f"{'backend':<8} {'size':<7} {'n':>5} {'median':>8} {'p90':>8} {'p99':>8} "
          f"{'max':>8}")
    for backend, cols, rows in configs:
        values = sorted(1000 * v for v in samples[backend, cols, rows])
        print(f"{backend:<8} {f'{cols}x{rows}':<7} {len(values):5d} "
              f"{statistics.median(values):8.3f} {percentile(values, 90):8.3f} "
              f"{percentile(values, 99):8.3f} {values[-1]:8.3f}")


def scroll_table(configs: list[tuple[str, int, int]], rounds: int, busy: int,
                 previous: str | None) -> None:
    """The scrolling child, back to back and paced: termsim's whole-screen
    Regex waits (plain and ``since=``) beside pexpect's ``expect`` (or, with
    ``previous``, beside that termsim's, every session in a new process),
    the two sessions of a row back to back, their order flipped every round."""
    paces = ((0.0, SAMPLES), (PAUSE, PACED_SAMPLES))
    here = str(Path(__file__).resolve().parent.parent)
    ours: dict[tuple[float, str, int, int], list[list[float]]] = {}
    theirs: dict[tuple[float, str, int, int], list[list[float]]] = {}
    for round_ in range(rounds):
        order = configs if round_ % 2 == 0 else configs[::-1]
        for pause, samples in paces:
            for backend, cols, rows in order:
                key = (pause, backend, cols, rows)
                mine, other = ours.setdefault(key, [[], []]), theirs.setdefault(key, [[], []])
                for is_ours in (round_ % 2 == 0, round_ % 2 == 1):
                    if is_ours and previous is None:
                        got = scroll_pass(backend, cols, rows, busy, pause, samples)
                    elif is_ours:
                        got = scroll_in(here, backend, cols, rows, busy, pause, samples)
                    elif previous is None:
                        got = [pexpect_session(cols, rows, pause, samples), []]
                    else:
                        got = scroll_in(previous, backend, cols, rows, busy, pause, samples)
                    for kept, new in zip(mine if is_ours else other, got, strict=True):
                        kept += new
    other_name = "pexpect" if previous is None else "previous"
    print(f"Scrolling screen ({SCROLL_LINES + 1} lines per reply, the screen full of earlier "
          f"lines): child write -> wait returns (ms); {rounds} alternating sessions per row "
          f"and tool, of {SAMPLES} round trips back to back, or {PACED_SAMPLES} each "
          f"{1000 * PAUSE:g} ms after the last (paced)")
    print("termsim: wait_for(Regex(...)) on the whole screen, plain and since=mark, "
          "alternating in one session" + (f", beside {busy} busy sessions" if busy else ""))
    if previous is None:
        print(f"pexpect {pexpect_version()}: expect() of the same regex on the same child, in "
              "this process; ratios termsim/pexpect, below 1: termsim answers sooner")
    else:
        print(f"previous: termsim in {previous}, the same waits; every session in a new "
              "process; ratios now/previous, below 1: now is faster")
    print(f"{'backend':<8} {'size':<7} {'paced':<6} {'n':>5} {'termsim':>8} {'p90':>6} "
          f"{'p99':>6} {'since=':>7} {'p90':>6} {'p99':>6} {other_name:>8} {'p90':>6} "
          f"{'p99':>6} {'p50 ratio':>9} {'since=':>6} {'p99 ratio':>9} {'since=':>6}")
    for pause, _ in paces:
        for backend, cols, rows in configs:
            key = (pause, backend, cols, rows)
            plain, since = (sorted(1000 * v for v in vs) for vs in ours[key])
            # pexpect: its one wait against both; a previous termsim: like against like.
            them = [sorted(1000 * v for v in vs) for vs in theirs[key] if vs]
            base_plain, base_since = them[0], them[-1]
            p50 = [statistics.median(v) for v in (plain, since, base_plain, base_since)]
            p99 = [percentile(v, 99) for v in (plain, since, base_plain, base_since)]
            paced = f"{1000 * pause:g}ms" if pause else "no"
            print(f"{backend:<8} {f'{cols}x{rows}':<7} {paced:<6} {len(plain):5d} "
                  f"{p50[0]:8.3f} {percentile(plain, 90):6.3f} {p99[0]:6.3f} "
                  f"{p50[1]:7.3f} {percentile(since, 90):6.3f} {p99[1]:6.3f} "
                  f"{p50[2]:8.3f} {percentile(base_plain, 90):6.3f} {p99[2]:6.3f} "
                  f"{p50[0] / p50[2]:9.2f} {p50[1] / p50[3]:6.2f} "
                  f"{p99[0] / p99[2]:9.2f} {p99[1] / p99[3]:6.2f}")
    if previous is not None:
        print("(the previous columns show its plain wait; the since= ratios compare "
              "since= with since=)")


def pexpect_version() -> str:
    import pexpect

    return str(pexpect.__version__)


if __name__ == "__main__":
    sys.exit(main())
