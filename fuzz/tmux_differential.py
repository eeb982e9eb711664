"""Differential fuzzing of termsim against a real tmux pane (not part of the tests).

    python fuzz/tmux_differential.py --programs 5000 --seed 1
    python fuzz/tmux_differential.py --size 10x3 --hex 1b5b4903     # one program again
    python fuzz/tmux_differential.py --size 10x3 --program "b'\\x1b[I'"

Generates programs from the grammar in ``tests/differential.py`` (text,
controls, ESC and CSI sequences with edge parameters, at random sizes),
feeds each to termsim and to a tmux pane, and shrinks every disagreement to
a minimal program. Each distinct minimal disagreement is printed once, when
first found, with both screens and the command that shows it again; a
summary follows. Exits 1 if any disagreement is neither a documented
difference (``docs/differences.md``) nor a reported termsim bug.
``tests/test_differential.py`` runs a bounded slice of the same in the suite.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from collections import Counter
from pathlib import Path

# The grammar and the pane live beside the tests (tests/ is not a package).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from differential import (
    Differ,
    Finding,
    parse,
    programs,
    side_by_side,
)
from tmux_pane import tmux_available, tmux_server

from termsim.emulator import Emulation


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=1000, help="how many to generate")
    parser.add_argument("--seed", type=int, default=0, help="the generator's seed")
    parser.add_argument("--budget", type=int, default=400,
                        help="runs each shrink may take (default 400)")
    parser.add_argument("--size", help="COLSxROWS, with --hex or --program: run that one")
    parser.add_argument("--hex", help="the program's bytes, in hex")
    parser.add_argument("--program", help="the program's bytes, as a Python bytes literal")
    parser.add_argument("--emulation", default="",
                        help="termsim options, as backspace_at_wrap=tmux,...")
    args = parser.parse_args()
    if not tmux_available():
        print("tmux is not installed", file=sys.stderr)
        return 2
    if args.hex is not None or args.program is not None:
        return replay(args)
    return fuzz(args.seed, args.programs, args.budget)


def replay(args: argparse.Namespace) -> int:
    """Run one program: both screens, then its disagreements shrunk and named."""
    if args.size is None:
        print("--size COLSxROWS is needed with --hex or --program", file=sys.stderr)
        return 2
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    data = bytes.fromhex(args.hex) if args.hex is not None else ast.literal_eval(args.program)
    program = parse(cols, rows, data)
    options: dict[str, object] = {}
    for item in filter(None, args.emulation.split(",")):
        key, _, value = item.partition("=")
        options[key] = {"True": True, "False": False}.get(value, value)
    emulation = Emulation(**options) if options else None  # type: ignore[arg-type]
    with tmux_server() as server, server.pane() as pane:
        differ = Differ(pane)
        outcome = differ.check(program, emulation)
        print(f"{program}" + (f" with {emulation}" if emulation else ""))
        print("\n".join(side_by_side(outcome.ours, outcome.theirs)))
        if differ.crashes:
            print("tmux crashed on this program")
            return 1
        if not outcome.aspects:
            print("termsim and tmux agree")
            return 0
        findings = differ.find(program, args.budget, emulation)
        for finding in findings:
            print(f"\n=== {kind(finding)}")
            print(finding.report())
        return 1 if any(kind(f) == "UNKNOWN" for f in findings) else 0


def fuzz(seed: int, count: int, budget: int) -> int:
    started = time.monotonic()
    groups: dict[tuple[str, tuple[str, ...]], list[Finding]] = {}
    disagreeing = 0
    with tmux_server() as server, server.pane() as pane:
        differ = Differ(pane)
        for n, program in enumerate(programs(seed, count), 1):
            findings = differ.find(program, budget)
            disagreeing += bool(findings)
            for finding in findings:
                group = groups.setdefault(finding.key, [])
                group.append(finding)
                if len(group) == 1:
                    print(f"=== {kind(finding)} (program {n} of seed {seed})")
                    print(finding.report(), end="\n\n", flush=True)
            if n % 100 == 0:
                print(f"... {n} programs, {len(groups)} distinct findings, "
                      f"{time.monotonic() - started:.0f}s", file=sys.stderr, flush=True)
        crashes = list(differ.crashes)
        runs = differ.runs
    kinds = Counter(kind(group[0]) for group in groups.values())
    print(f"=== summary: seed {seed}, {count} programs, {disagreeing} disagreed; "
          f"{runs} tmux runs in {time.monotonic() - started:.0f}s")
    for name, group in sorted(groups.items(), key=lambda kv: (kind(kv[1][0]), -len(kv[1]))):
        best = min(group, key=lambda f: f.program.size)
        print(f"  {len(group):5}x  {kind(best):9} {name[0] or '-':32} {best.program}")
    print(f"  kinds: {dict(kinds)}")
    if crashes:
        print(f"  tmux crashed or hung on {len(crashes)} programs, e.g. {crashes[0]}")
    return 1 if kinds["UNKNOWN"] else 0


def kind(finding: Finding) -> str:
    """known (documented), bug (a reported termsim bug) or UNKNOWN."""
    if finding.known is not None:
        return "known"
    return "bug" if finding.bug is not None else "UNKNOWN"


if __name__ == "__main__":
    sys.exit(main())
