"""How fast a Python screen could be at all, on colour-dense output.

    python benchmarks/bench_ceiling.py [--reps 7]

Issue "Speed, round two" asks for SGR-dense colour (``sgr.bin``: an SGR
change every 1-5 printed characters) at 4x bare pyte, and the
prompt_toolkit stream at 6x. This script measures, side by side in one run,
alternating, medians of ``--reps``, bare pyte (``pyte.ByteStream`` into
``pyte.Screen(80, 24)``), termsim (``termsim.emulator.Terminal(80, 24)``) and loops
that do only a part of the work, as fast as Python allows: upper bounds,
not designs (no wrapping, scrolling, erasing, wide characters, queries or
SGR semantics).

On the colour streams (``sgr.bin``, ``colour.bin``: nothing but SGR,
printable ASCII and CR LF), each line is split on SGR sequences in one call
of C code (``re.split``), and each SGR's result is looked up in a memo
keyed by (attributes, parameters), built in C on a miss. Then:

* **the per-cell ceiling** stores a shared ``Char`` per printed character
  in a dict per row: the cell model pyte and termsim share;
* **the style-run ceiling** stores one (attributes, text) pair per run:
  the shape of a screen with shared style ids.

On ``ptk.bin`` (cursor moves, mode switches, queries, text), **the dispatch
ceiling** finds each token with one regular expression, as termsim's
tokenizer does, and calls an empty action looked up by the sequence's
bytes: what handing out the tokens costs before anything is done.

If a ceiling is below a target, no tuning of that shape reaches it.
"""

from __future__ import annotations

import argparse
import gc
import re
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pyte
from pyte.screens import Char

import termsim

DATA = Path(__file__).resolve().parent / "data"
CHUNK = 4096
_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_DISPATCH_TOKENS = re.compile(r"([^\x00-\x1f\x7f-\x9f]+)|\x1b\[[0-?]*[ -/]*[@-~]|[\x00-\x1f]|.",
                              re.S)


def _restyled(attrs: Char, params: str) -> Char:
    """A stand-in for SGR at its cheapest: one field set, the tuple built in
    C (as termsim's ``_sgr._replaced`` builds it)."""
    changes = {"fg": params or "default"}
    new: Char = tuple.__new__(Char, map(changes.get, Char._fields, attrs))
    return new


def run_pyte(data: bytes) -> float:
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    t0 = time.perf_counter()
    for i in range(0, len(data), CHUNK):
        try:
            stream.feed(data[i:i + CHUNK])
        except Exception:  # stock pyte raises on some valid sequences
            pass
    return time.perf_counter() - t0


def run_termsim(data: bytes) -> float:
    term = termsim.emulator.Terminal(80, 24)
    t0 = time.perf_counter()
    for i in range(0, len(data), CHUNK):
        term.feed(data[i:i + CHUNK])
    return time.perf_counter() - t0


def run_ceiling(text: str, per_cell: bool) -> float:
    """The least loop on an SGR-only stream: a cell per character
    (``per_cell``), or one (attributes, text) pair per run."""
    t0 = time.perf_counter()
    memo: dict[tuple[Char, str], Char] = {}
    tables: dict[Char, _Table] = {}
    rows: list[dict[int, Char] | list[tuple[Char, str]]] = []
    attrs = Char(" ")
    for line in text.split("\r\n"):
        parts = iter(_SGR.split(line))  # text, parameters, text, ..., text
        part = next(parts)
        cells: list[Char] = []
        runs: list[tuple[Char, str]] = []
        while True:
            if part:
                if per_cell:
                    table = tables.get(attrs)
                    if table is None:
                        table = tables[attrs] = _Table(attrs)
                    cells += map(table.__getitem__, part)
                else:
                    runs.append((attrs, part))
            params = next(parts, None)
            if params is None:
                break
            key = (attrs, params)
            new = memo.get(key)
            if new is None:
                new = memo[key] = _restyled(attrs, params)
            attrs = new
            part = next(parts)
        rows.append(dict(enumerate(cells)) if per_cell else runs)
    del rows[:-24]
    return time.perf_counter() - t0


class _Table(dict[str, Char]):
    """Character -> its shared ``Char`` in one set of attributes."""

    def __init__(self, attrs: Char) -> None:
        super().__init__()
        self.style = attrs[1:]

    def __missing__(self, ch: str) -> Char:
        cell: Char = tuple.__new__(Char, (ch, *self.style))
        self[ch] = cell
        return cell


def _nothing() -> None:
    pass


def run_dispatch(text: str) -> float:
    """Tokens found and handed out, each to an empty action."""
    t0 = time.perf_counter()
    actions: dict[str, Callable[[], None]] = {}
    for m in _DISPATCH_TOKENS.finditer(text):
        if m.lastindex:
            continue
        action = actions.get(m.group())
        if action is None:
            action = actions[m.group()] = _nothing
        action()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    print(f"MB/s, median of {args.reps} alternating repetitions; x: against bare pyte")
    print(f"{'workload':<12}{'pyte':>8}{'termsim':>16}  ceilings")
    for name in ("sgr.bin", "colour.bin", "ptk.bin"):
        data = (DATA / name).read_bytes()
        text = data.decode("utf-8", "replace")
        runners: dict[str, Callable[[], float]] = {
            "pyte": partial(run_pyte, data), "termsim": partial(run_termsim, data)}
        if name == "ptk.bin":
            runners["dispatch"] = partial(run_dispatch, text)
        else:
            runners["per-cell"] = partial(run_ceiling, text, True)
            runners["style-run"] = partial(run_ceiling, text, False)
        times: dict[str, list[float]] = {who: [] for who in runners}
        for rep in range(args.reps):
            order = list(runners) if rep % 2 == 0 else list(reversed(runners))
            for who in order:
                gc.collect()
                times[who].append(runners[who]())
        mbs = {who: len(data) / statistics.median(t) / 1e6 for who, t in times.items()}
        shown = "".join(f"  {w} {mbs[w]:.2f} ({mbs[w] / mbs['pyte']:.1f}x)" for w in runners
                        if w not in ("pyte", "termsim"))
        print(f"{name:<12}{mbs['pyte']:>8.2f}{mbs['termsim']:>9.2f} "
              f"({mbs['termsim'] / mbs['pyte']:.1f}x){shown}")


if __name__ == "__main__":
    main()
