"""Many example-REPL sessions at once, in one event loop: do they all pass,
and what does the harness cost next to the programs it drives?

    python benchmarks/bench_sessions.py [--sessions 50] [--turns 3] [--timeout 120]
                                        [--backend asyncio|trio]
    python benchmarks/bench_sessions.py --diagnose             # + event-loop stalls
    python benchmarks/bench_sessions.py --nice 10              # programs niced
    python benchmarks/bench_sessions.py --record-dir /tmp/rec  # keep recordings
    python benchmarks/bench_sessions.py --spawn-close [--sessions 20] [--repeat 30]
                                        [--ballast MB]

Each session runs ``examples/agent_repl.py`` (a prompt_toolkit app) under
``termsim.spawn(..., record=False)``, all of them concurrently in one anyio
task group. Every session has its own fresh ``HOME`` holding
``.config/agent-repl/config.json`` = ``{"theme": "dark"}`` (no theme
picker), ``AGENT_REPL_BOOT_SECONDS=0.3``, and an environment without
``TERM`` (termsim sets ``xterm-256color``) or ``XDG_*`` variables. A session
waits for its first prompt, then for each turn ``n``:

    await term.type(f"q{n}")
    mark = await term.press("enter")
    await term.wait_for(Regex(rf"thinking about 'q{n}'[\\s\\S]*assistant: done")
                        & CursorAfter("❯ ") & InputReady()
                        & Text("state: sleeping", region=Region.row(-1)), since=mark)

(It does not wait for ``state: working``: on a starved machine prompt_toolkit
may never draw that toolbar, since after each line it prints it needs a new
cursor-position answer before it draws the toolbar again, and by then the
reply can be over. The screen never showed it, so no harness could see it.)

then presses Ctrl-D and expects exit status 0 (and no warnings). Reported:
sessions passed (and the first line of each kind of failure), total wall
time, the harness's CPU time (``RUSAGE_SELF``) and the programs'
(``RUSAGE_CHILDREN``: termsim reaps each child with ``waitpid``, so they
count) per session, the harness's share of all that CPU time, how long the
harness waited for a CPU (``/proc/self/schedstat``), how many programs
printed prompt_toolkit's CPR warning, and how many children were left
unreaped. Failures are results here: the script exits 0 once it has printed
its table.

Diagnosis options: ``--diagnose`` runs a task that sleeps 5 ms in a loop and
reports how late it woke (p50/p99/max) and the five longest stalls with the
harness's own CPU time during each (a stall spent off the CPU is the
scheduler, one spent on it is the harness's work); ``--nice N`` sets the
programs' nice value *and their autogroup's* (each PTY child is a session
leader, so with ``kernel.sched_autogroup_enabled=1`` each one is its own
scheduling group, weighed like the whole harness); ``--stagger S`` starts
session ``i`` after ``i * S`` seconds; ``--record-dir`` records every
session.

``--spawn-close`` measures what starting and ending sessions costs the event
loop and the test, on asyncio and trio side by side in one run, with a small
program (``python -c``: print ``ready``, then read stdin until the terminal
hangs up, so SIGHUP ends it):

* the longest loop stall: a task sleeping 1 ms in a loop reports how late
  it woke, while ``--sessions`` sessions (20 by default) are entered at
  once, each waits for ``ready``, and all leave their blocks at once; the
  stall is told for each phase (spawn, wait, close) and overall, with the
  loop thread's CPU time during it (the rest is waiting for a CPU) and the
  garbage collector's pauses within it (a full collection of a heap this
  size takes about 10 ms here, whoever made the garbage; the heap is
  collected before this phase, so the backend measured second does not pay
  for the first one's garbage);
* ``spawn()`` to first output: from before ``spawn()`` to the first
  ``Output`` event, against a bare ``subprocess.Popen`` of the same program
  on a PTY (``os.openpty``, ``start_new_session=True``, the slave as its
  stdio) to the first byte read from the master, alternating, median of
  ``--repeat``;
* closing: from the end of the block to its exit, for a session whose
  program exits on SIGHUP, median of ``--repeat``.

``--ballast MB`` first fills that much memory in the harness (a test
process with many imports is large, and a plain ``fork`` copies its page
tables).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import anyio

import termsim
from termsim import CursorAfter, InputReady, Regex, Region, Text

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "examples" / "agent_repl.py"
TOOLBAR = Region.row(-1)
PROMPT = CursorAfter("❯ ") & InputReady()
SLEEPING = PROMPT & Text("state: sleeping", region=TOOLBAR)


@dataclass
class Result:
    index: int
    ok: bool = False
    error: str = ""
    #: seconds from the start of the run: first prompt, each turn's end, exit
    booted: float = 0.0
    turns: list[float] = field(default_factory=list)
    done: float = 0.0
    #: prompt_toolkit printed its "terminal doesn't support CPR" warning
    cpr_warning: bool = False


@dataclass
class Options:
    turns: int
    timeout: float
    record_dir: str | None
    nice: int
    stagger: float
    diagnose: bool


@dataclass
class Run:
    results: list[Result]
    wall: float
    cpu_self: float
    cpu_children: float
    #: how late the harness's event loop woke from 5 ms sleeps (s)
    lags: list[tuple[float, float, float]]
    #: time the harness spent runnable but not running (/proc/self/schedstat)
    runqueue_wait: float | None
    #: children of the harness still there (running, or zombies not reaped)
    left: list[str]


def session_env(home: Path) -> dict[str, str]:
    drop = ("XDG_", "AGENT_REPL_", "PROMPT_TOOLKIT_")
    env = {k: v for k, v in os.environ.items()
           if k not in ("TERM", "COLUMNS", "LINES") and not k.startswith(drop)}
    env.update(HOME=str(home), AGENT_REPL_BOOT_SECONDS="0.3")
    config = home / ".config" / "agent-repl"
    config.mkdir(parents=True)
    (config / "config.json").write_text('{"theme": "dark"}\n')
    return env


async def one_session(result: Result, home: Path, opts: Options, t0: float) -> None:
    env = session_env(home)
    record: str | bool = False
    if opts.record_dir is not None:
        record = os.path.join(opts.record_dir, f"session{result.index:03d}.tsr")
    argv = [sys.executable, str(APP)]
    await anyio.sleep(result.index * opts.stagger)  # spreading the starts, if asked

    def watch(event: termsim.files.Event) -> None:
        if isinstance(event, termsim.events.Output) \
                and b"cursor position requests" in event.data:
            result.cpr_warning = True

    try:
        async with termsim.spawn(argv, env=env, record=record) as term:  # type: ignore[arg-type]
            term.listeners.append(watch)
            if opts.nice:
                lower_priority(term.pid, opts.nice)
            await term.wait_for(SLEEPING, timeout=opts.timeout)
            result.booted = time.monotonic() - t0
            for n in range(opts.turns):
                await term.type(f"q{n}")
                mark = await term.press("enter")
                answered = Regex(rf"thinking about 'q{n}'[\s\S]*assistant: done")
                await term.wait_for(answered & SLEEPING, since=mark, timeout=opts.timeout)
                result.turns.append(time.monotonic() - t0)
            await term.press("ctrl+d")
            status = await term.wait_exit(timeout=opts.timeout)
            result.done = time.monotonic() - t0
            if status != 0:
                result.error = f"exit status {status}"
                return
            if term.warnings:
                result.error = "warnings: " + "; ".join(term.warnings)
                return
            result.ok = True
    except termsim.TermsimError as exc:
        result.error = str(exc)


def lower_priority(pid: int, nice: int) -> None:
    """Nice the program, and its autogroup: the PTY made it a session leader,
    and with kernel.sched_autogroup_enabled=1 every new session gets its own
    autogroup, which the scheduler shares the CPU with as one unit, whatever
    the niceness of the processes inside."""
    os.setpriority(os.PRIO_PROCESS, pid, nice)
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(nice))
    except OSError:
        pass  # no autogroups here


def autogroups_enabled() -> bool:
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip() == "1"
    except OSError:
        return False


def children_left() -> list[str]:
    """Processes whose parent is this harness, after every session closed."""
    me = str(os.getpid())
    left = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[1] == me:
            left.append(f"{name} ({fields[0]})")
    return left


def runqueue_wait() -> float | None:
    """Seconds this process has spent waiting for a CPU (needs schedstats)."""
    try:
        with open("/proc/self/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


async def monitor_lag(lags: list[tuple[float, float, float]], stop: anyio.Event,
                      t0: float) -> None:
    """How late a 5 ms sleep wakes (the harness's responsiveness), and how much
    of that the harness spent on the CPU (busy) rather than waiting for it."""
    while not stop.is_set():
        before, cpu = time.monotonic(), time.thread_time()
        await anyio.sleep(0.005)  # a measurement interval, not synchronisation
        lags.append((before - t0, time.monotonic() - before - 0.005,
                     time.thread_time() - cpu))


async def run(sessions: int, opts: Options) -> Run:
    with tempfile.TemporaryDirectory(prefix="bench_sessions_") as tmp:
        homes = [Path(tmp) / f"home{i}" for i in range(sessions)]
        results = [Result(i) for i in range(sessions)]
        lags: list[tuple[float, float, float]] = []
        stop = anyio.Event()
        self0 = resource.getrusage(resource.RUSAGE_SELF)
        child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        rq0 = runqueue_wait()
        t0 = time.monotonic()
        async with anyio.create_task_group() as outer:
            if opts.diagnose:
                outer.start_soon(monitor_lag, lags, stop, t0)
            async with anyio.create_task_group() as tg:
                for result, home in zip(results, homes, strict=True):
                    tg.start_soon(one_session, result, home, opts, t0)
            stop.set()
        wall = time.monotonic() - t0
        left = children_left()
        rq1 = runqueue_wait()
        self1 = resource.getrusage(resource.RUSAGE_SELF)
        child1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_self = (self1.ru_utime + self1.ru_stime) - (self0.ru_utime + self0.ru_stime)
    cpu_children = (child1.ru_utime + child1.ru_stime) - (child0.ru_utime + child0.ru_stime)
    rq = None if rq0 is None or rq1 is None else rq1 - rq0
    return Run(results, wall, cpu_self, cpu_children, lags, rq, left)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- --spawn-close: what starting and ending sessions costs the loop -------------------

#: Prints a line, then reads until the terminal hangs up (SIGHUP ends it).
READY = [sys.executable, "-c", "import sys; print('ready', flush=True); sys.stdin.read()"]
PHASES = ("spawn", "wait", "close")


@dataclass
class SpawnClose:
    #: the longest stall of a 1 ms ticker in each phase: how long, when, how
    #: much of it the loop's thread spent on the CPU, and in the garbage
    #: collector (s, s, s, s)
    stalls: dict[str, tuple[float, float, float, float]]
    #: spawn() to the first Output, and a bare Popen to the first byte (s)
    first_output: list[float]
    bare_first_output: list[float]
    #: from the end of the block to its exit (s)
    close: list[float]


async def _ticker(samples: list[tuple[float, float, float]], stop: anyio.Event) -> None:
    while not stop.is_set():
        before, cpu = time.monotonic(), time.thread_time()
        await anyio.sleep(0.001)  # the ticker's period: a measurement, not synchronisation
        samples.append((before, time.monotonic() - before - 0.001, time.thread_time() - cpu))


async def _stalls(sessions: int) -> dict[str, tuple[float, float, float, float]]:
    """Enter ``sessions`` blocks at once, wait for ``ready`` in each, leave
    them all at once; the longest stall of each phase."""
    samples: list[tuple[float, float, float]] = []
    collections: list[tuple[float, float]] = []  # the garbage collector's pauses
    collecting = [0.0]

    def collector(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collecting[0] = time.monotonic()
        else:
            collections.append((collecting[0], time.monotonic()))
    stop = anyio.Event()
    spawned, seen = anyio.Event(), anyio.Event()
    counts = {"spawned": 0, "seen": 0}
    ends: dict[str, float] = {}

    async def one() -> None:
        async with termsim.spawn(READY, record=False) as term:
            counts["spawned"] += 1
            if counts["spawned"] == sessions:
                ends["spawn"] = time.monotonic()
                spawned.set()
            await spawned.wait()
            await term.wait_for(Text("ready"), timeout=60)
            counts["seen"] += 1
            if counts["seen"] == sessions:
                ends["wait"] = time.monotonic()
                seen.set()
            await seen.wait()

    gc.callbacks.append(collector)
    try:
        async with anyio.create_task_group() as outer:
            outer.start_soon(_ticker, samples, stop)
            await anyio.lowlevel.checkpoint()
            t0 = time.monotonic()
            async with anyio.create_task_group() as tg:
                for _ in range(sessions):
                    tg.start_soon(one)
            ends["close"] = time.monotonic()
            stop.set()
    finally:
        gc.callbacks.remove(collector)
    # A stall counts in every phase it overlaps.
    starts = {"spawn": t0, "wait": ends["spawn"], "close": ends["wait"]}
    worst = {phase: (0.0, 0.0, 0.0, 0.0) for phase in (*PHASES, "overall")}
    for at, lag, cpu in samples:
        woke = at + 0.001 + lag
        for phase in PHASES:
            if at <= ends[phase] and woke >= starts[phase]:
                for key in (phase, "overall"):
                    if lag > worst[key][0]:
                        gc_time = sum(max(0.0, min(end, woke) - max(begin, at))
                                      for begin, end in collections)
                        worst[key] = (lag, at - t0, cpu, gc_time)
    return worst


def _bare_first_output() -> float:
    """A bare subprocess.Popen of READY on a PTY: to the first byte read."""
    t0 = time.monotonic()
    master, slave = os.openpty()
    proc = subprocess.Popen(READY, stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True)
    os.close(slave)
    select.select([master], [], [])
    os.read(master, 1024)
    took = time.monotonic() - t0
    os.close(master)  # the hangup ends it
    proc.wait()
    return took


async def _first_output_and_close() -> tuple[float, float]:
    first: list[float] = []

    def watch(event: termsim.files.Event) -> None:
        if isinstance(event, termsim.events.Output) and not first:
            first.append(time.monotonic())

    t0 = time.monotonic()
    session = termsim.spawn(READY, record=False)
    session.listeners.append(watch)
    async with session as term:
        await term.wait_for(Text("ready"), timeout=60)
        closing = time.monotonic()
    return first[0] - t0, time.monotonic() - closing


async def spawn_close(sessions: int, repeat: int) -> SpawnClose:
    # One session first: imports and the worker thread pool are a one-time cost.
    await _first_output_and_close()
    # From a collected heap: a full collection that an earlier run's garbage
    # owes (10-45 ms here) would otherwise land in whichever backend runs second.
    gc.collect()
    stalls = await _stalls(sessions)
    first, bare, close = [], [], []
    for _ in range(repeat):
        bare.append(_bare_first_output())
        took, closing = await _first_output_and_close()
        first.append(took)
        close.append(closing)
    return SpawnClose(stalls, first, bare, close)


def main_spawn_close(sessions: int, repeat: int, ballast: int) -> int:
    kept = bytearray(ballast << 20)  # touched, so the pages are really there
    for i in range(0, len(kept), 4096):
        kept[i] = 1
    runs = {backend: anyio.run(spawn_close, sessions, repeat, backend=backend)
            for backend in ("asyncio", "trio")}
    load = os.getloadavg()
    print(f"{sessions} sessions of `python -c ...` spawned, waited on and "
          f"closed at once; {repeat} sequential sessions for the medians; harness "
          f"RSS {_rss_mb():.0f} MB (ballast {ballast} MB); {os.cpu_count()} CPUs, load "
          f"average after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    ms = 1e3
    rows: list[tuple[str, ...]] = [("", *runs)]
    for phase in (*PHASES, "overall"):
        rows.append((f"longest loop stall, {phase} (ms: CPU, GC)", *(
            f"{r.stalls[phase][0] * ms:.1f}: {r.stalls[phase][2] * ms:.1f}, "
            f"{r.stalls[phase][3] * ms:.1f}" for r in runs.values())))
    rows += [
        ("spawn() to first output, median (ms)",
         *(f"{statistics.median(r.first_output) * ms:.1f}" for r in runs.values())),
        ("bare Popen on a PTY to first byte, median (ms)",
         *(f"{statistics.median(r.bare_first_output) * ms:.1f}" for r in runs.values())),
        ("spawn() / bare Popen", *(
            f"{statistics.median(r.first_output) / statistics.median(r.bare_first_output):.2f}x"
            for r in runs.values())),
        ("spawn() - bare Popen, median of pairs (ms)",
         *(f"{_paired(r.first_output, r.bare_first_output) * ms:+.2f}" for r in runs.values())),
        ("close, median / max (ms)", *(
            f"{statistics.median(r.close) * ms:.1f} / {max(r.close) * ms:.1f}"
            for r in runs.values())),
    ]
    width = max(len(row[0]) for row in rows)
    for row in rows:
        print(f"  {row[0]:<{width}}" + "".join(f"  {cell:>16}" for cell in row[1:]))
    del kept
    return 0


def _paired(ours: list[float], bare: list[float]) -> float:
    """The median difference of runs made side by side (steadier than a
    ratio of medians when the machine's speed drifts)."""
    return statistics.median(a - b for a, b in zip(ours, bare, strict=True))


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--show-failures", type=int, default=1,
                        help="print this many failures in full")
    parser.add_argument("--record-dir", help="record every session into this folder "
                        "(for diagnosis; by default nothing is recorded)")
    parser.add_argument("--nice", type=int, default=0,
                        help="lower the programs' priority (process and autogroup "
                        "nice N): an experiment, does the harness keep up when it "
                        "gets the CPU first?")
    parser.add_argument("--stagger", type=float, default=0.0,
                        help="start session i after i*S seconds (an experiment)")
    parser.add_argument("--diagnose", action="store_true",
                        help="also measure the harness's event-loop lag (a task "
                        "waking every 5 ms; it costs some harness CPU)")
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    parser.add_argument("--spawn-close", action="store_true",
                        help="measure what starting and ending sessions costs instead "
                        "(loop stalls, spawn to first output, close; see above)")
    parser.add_argument("--repeat", type=int, default=30,
                        help="--spawn-close: sequential sessions for the medians")
    parser.add_argument("--ballast", type=int, default=0,
                        help="--spawn-close: MB of memory the harness holds first")
    args = parser.parse_args()
    if args.spawn_close:
        sessions = 20 if "--sessions" not in sys.argv else args.sessions
        return main_spawn_close(sessions, args.repeat, args.ballast)

    opts = Options(args.turns, args.timeout, args.record_dir, args.nice, args.stagger,
                   args.diagnose)
    r = anyio.run(run, args.sessions, opts, backend=args.backend)
    n = args.sessions
    passed = sum(x.ok for x in r.results)
    failed = [x for x in r.results if not x.ok]
    for x in failed[: args.show_failures]:
        print(f"session {x.index} failed: {x.error}\n")
    kinds = Counter(x.error.splitlines()[0] if x.error else "?" for x in failed)
    for kind, count in kinds.most_common():
        print(f"{count:4d} failed: {kind}")
    lags = [lag for _, lag, _ in r.lags]
    worst = sorted(r.lags, key=lambda x: -x[1])[:5]
    if worst:
        print("longest loop stalls: " + ", ".join(
            f"{lag * 1e3:.0f} ms at {at:.2f} s ({cpu * 1e3:.0f} ms on the CPU)"
            for at, lag, cpu in worst))
    booted = [x.booted for x in r.results if x.booted]
    done = [x.done for x in r.results if x.done]
    load = os.getloadavg()
    cpus = os.cpu_count() or 1
    extra = []
    if args.nice:
        extra.append(f"programs (and their autogroups) at nice {args.nice}")
    if args.stagger:
        extra.append(f"starts {args.stagger} s apart")
    print(f"\n{n} sessions x {args.turns} turns of examples/agent_repl.py in one "
          f"{args.backend} loop{''.join(', ' + e for e in extra)}; {cpus} CPUs, "
          f"load average after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"autogroups {'on' if autogroups_enabled() else 'off'}")
    rows = [
        ("sessions passed", f"{passed} / {n}"),
        ("total wall time (s)", f"{r.wall:.2f}"),
        ("first prompt, median / last (s)",
         f"{statistics.median(booted):.2f} / {max(booted):.2f}" if booted else "-"),
        ("exit, median / last (s)",
         f"{statistics.median(done):.2f} / {max(done):.2f}" if done else "-"),
        ("harness CPU per session (s)", f"{r.cpu_self / n:.3f}"),
        ("programs' CPU per session (s)", f"{r.cpu_children / n:.3f}"),
        ("harness share of all CPU", f"{r.cpu_self / (r.cpu_self + r.cpu_children):.1%}"),
        ("harness waiting for a CPU (s)",
         "-" if r.runqueue_wait is None else f"{r.runqueue_wait:.2f}"),
        ("sessions that printed the CPR warning", f"{sum(x.cpr_warning for x in r.results)}"),
        ("children left after the sessions closed", str(len(r.left))),
    ]
    if lags:  # --diagnose
        rows.append(("harness loop lag p50 / p99 / max (ms)",
                     f"{quantile(lags, 0.5) * 1e3:.1f} / {quantile(lags, 0.99) * 1e3:.0f} / "
                     f"{max(lags) * 1e3:.0f}"))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"  {key:<{width}}  {value:>16}")
    if r.left:
        print(f"  children left (pid, state): {', '.join(r.left)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
