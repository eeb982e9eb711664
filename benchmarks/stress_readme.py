"""Stress: the README's example test and examples/test_agent_repl.py, many copies at once.

The promise under test: a wait after an input means the program answered
that input, even on a machine too busy to keep up. Before causal waits,
six copies of the README's test run together on 2 cores failed 15 times in
36 (``../shared``'s research notes): the echo of the typed text, written
before the program read Enter, counted as "after" it.

Each round writes ``--copies`` copies of both test files into a temporary
folder and runs them with ``pytest -n COPIES`` (every test runs on asyncio
and trio), so that many REPLs, pytest workers and the harness share the
machine. It counts runs and failures per file until both have at least
``--runs`` runs, and prints the failures' first lines.

Usage: ``python benchmarks/stress_readme.py [--copies 6] [--runs 200] [--readme FILE]``
(``--readme``: take the example from another README, e.g. an older one:
``git show REV:README.md > old.md``).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parent.parent


def readme_test(readme_path: Path) -> str:
    readme = readme_path.read_text()
    block = re.search(r"## A test\n\n```python\n(.*?)```", readme, re.S)
    if block is None:
        raise SystemExit("README.md has no '## A test' python block")
    return block.group(1)


def example_test() -> str:
    # The example finds its app next to itself; point it at the real one.
    source = (ROOT / "examples" / "test_agent_repl.py").read_text()
    app = ROOT / "examples" / "agent_repl.py"
    return source.replace('Path(__file__).with_name("agent_repl.py")', f"Path({str(app)!r})")


def one_round(folder: Path, copies: int, readme: Path,
              ) -> dict[str, tuple[int, int, list[str]]]:
    """``{file kind: (runs, failures, failure lines)}`` for one parallel run."""
    for n in range(copies):
        (folder / f"test_readme_{n}.py").write_text(readme_test(readme))
        (folder / f"test_example_{n}.py").write_text(example_test())
    report = folder / "report.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(copies),
         f"--junitxml={report}", f"--rootdir={folder}", "--termsim-keep=none", str(folder)],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
    )
    counts: dict[str, tuple[int, int, list[str]]] = {}
    cases = ElementTree.parse(report).getroot().iter("testcase")
    results: dict[str, list[tuple[str, str | None]]] = {"readme": [], "example": []}
    for case in cases:
        kind = "readme" if "test_readme_" in case.get("classname", "") else "example"
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        why = None if problem is None else (problem.get("message") or "").splitlines()[0]
        results[kind].append((f"{case.get('classname')}::{case.get('name')}", why))
    for kind, cases_ in results.items():
        failed = [f"{name}: {why}" for name, why in cases_ if why is not None]
        counts[kind] = (len(cases_), len(failed), failed)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md",
                        help="take the example from this README (e.g. an older one)")
    args = parser.parse_args()
    totals = {"readme": [0, 0], "example": [0, 0]}
    failures: list[str] = []
    started = time.monotonic()
    rounds = 0
    with tempfile.TemporaryDirectory(prefix="stress_readme_") as tmp:
        folder = Path(tmp)
        (folder / "conftest.py").write_text("")
        while min(t[0] for t in totals.values()) < args.runs:
            rounds += 1
            for kind, (runs, failed, lines) in one_round(folder, args.copies,
                                                         args.readme).items():
                totals[kind][0] += runs
                totals[kind][1] += failed
                failures += lines
            print(f"round {rounds}: " + ", ".join(
                f"{k} {r} runs, {f} failed" for k, (r, f) in totals.items()), flush=True)
    minutes = (time.monotonic() - started) / 60
    print(f"\n{args.copies} copies in parallel, {rounds} rounds, {minutes:.1f} min")
    for kind, (runs, failed) in totals.items():
        print(f"  {kind:<8} {runs:5d} runs  {failed:3d} failures")
    for line in failures[:20]:
        print("  " + line[:200])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
