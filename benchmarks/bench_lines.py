"""Heavy plain output through a live session, and its replay.

    python benchmarks/bench_lines.py [--reps 3] [--previous CHECKOUT]

Two programs users run, side by side with a bare PTY read of the same
program (the floor: the program's own speed and the kernel's):

* ``seq 1 500000`` (3.4 MB of short lines): from spawn until a wait sees
  the last line; then the replay of that recording to its end;
* ``seq -f '%0199g' 1 100000`` (20 MB of 200-column lines, each wrapping
  over three rows at 80 columns): from spawn until a wait sees the last line.

With ``--previous``, the same runs of another termsim checkout (a git
worktree of an older commit) run in a subprocess, alternating with this
one. Medians of alternating repetitions. Targets (issue "Speed, round
two"): seq <= 1 s and <= 3x the bare read; its replay <= 0.3 s; the 20 MB
<= 1.5 s.
"""

from __future__ import annotations

import argparse
import os
import pty
import statistics
import subprocess
import tempfile
import time

from _previous import in_checkout

WORKLOADS = {
    "seq 1 500000": (["seq", "1", "500000"], "500000"),
    "20 MB of 200-column lines": (["seq", "-f", "%0199g", "1", "100000"],
                                  f"{100000:0199d}"[-39:]),
}


def bare(argv: list[str]) -> float:
    """Seconds for the program to finish, its PTY only read."""
    t0 = time.perf_counter()
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    while True:
        try:
            if not os.read(master, 1 << 16):
                break
        except OSError:  # EIO: the program closed its side
            break
    proc.wait()
    os.close(master)
    return time.perf_counter() - t0


def termsim_run(argv: list[str], last: str, record: str | None) -> float:
    """Seconds from spawn until a wait sees ``last`` at the end of a row."""
    import re

    import anyio

    import termsim

    async def main() -> float:
        t0 = time.perf_counter()
        # Only arguments every version has, so --previous can run this too.
        async with termsim.spawn(argv, record=record or False) as term:
            await term.wait_for(termsim.Regex(re.escape(last)), timeout=120)
            elapsed = time.perf_counter() - t0
            await term.wait_exit(timeout=120)
        return elapsed

    return anyio.run(main)


def replay_run(record: str) -> float:
    import anyio

    import termsim

    async def main() -> float:
        t0 = time.perf_counter()
        async with termsim.replay(record) as session:
            await session.wait_exit(timeout=120)
        return time.perf_counter() - t0

    return anyio.run(main)


def one_pass(record_dir: str) -> dict[str, float]:
    """Every measure once, in this process (the termsim on sys.path)."""
    out: dict[str, float] = {}
    for name, (argv, last) in WORKLOADS.items():
        record = os.path.join(record_dir, "seq.tsr") if name.startswith("seq") else None
        out[name] = termsim_run(argv, last, record)
        if record is not None:
            out[name + ", replay"] = replay_run(record)
    return out


def previous_pass(checkout: str, record_dir: str) -> dict[str, float]:
    result: dict[str, float] = in_checkout(checkout, "bench_lines",
                                           f"one_pass({record_dir!r})", cwd=record_dir)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--previous", help="another termsim checkout to compare with")
    args = parser.parse_args()
    results: dict[str, dict[str, list[float]]] = {}

    def add(who: str, values: dict[str, float]) -> None:
        for name, seconds in values.items():
            results.setdefault(name, {}).setdefault(who, []).append(seconds)

    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.reps):
            add("bare PTY", {name: bare(argv) for name, (argv, _) in WORKLOADS.items()})
            add("termsim", one_pass(tmp))
            if args.previous:
                add("previous", previous_pass(args.previous, tmp))
    who = ["bare PTY", "termsim"] + (["previous"] if args.previous else [])
    print(f"median of {args.reps} alternating runs, seconds")
    print(f"{'workload':<34}" + "".join(f"{w:>12}" for w in who) + f"{'termsim/bare':>14}")
    for name, by in results.items():
        cells = "".join(f"{statistics.median(by[w]):>12.3f}" if w in by else f"{'':>12}"
                        for w in who)
        ratio = (f"{statistics.median(by['termsim']) / statistics.median(by['bare PTY']):>13.1f}x"
                 if "bare PTY" in by else "")
        print(f"{name:<34}{cells}{ratio}")


if __name__ == "__main__":
    main()
