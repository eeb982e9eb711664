"""How fast a Python screen could be at all, on colour-dense output.

    python benchmarks/bench_ceiling.py [--reps 7]

Issue "Speed, round two" asks for SGR-dense colour (``sgr.bin``: an SGR
change every 1-5 printed characters) at 4x bare pyte. This script measures,
side by side in one run, alternating, medians of ``--reps``:

* bare pyte (``pyte.ByteStream`` into ``pyte.Screen(80, 24)``);
* termsim (``termsim.Terminal(80, 24)``);
* **the per-cell ceiling**: the least a screen stored as pyte stores it (a
  dict of rows, a dict of ``Char`` tuples per row, as termsim's is) must do
  on this stream: one regular expression splits it into SGR sequences,
  text runs and line ends; an SGR looks its result up in a memo keyed by
  (attributes, parameters); each printed character becomes a shared
  ``Char`` from a per-attributes table and is stored in its row; a line
  end starts a new row. No wrapping, scrolling, erasing, wide characters,
  queries or SGR semantics: an upper bound, not a design;
* **the style-run ceiling**: the same loop storing each text run as one
  (attributes, text) pair instead of a cell per character, the shape of a
  screen with shared style ids.

All four run on the same bytes (decoded once for the two ceilings, which
gives them a head start). If the per-cell ceiling is below the target, no
amount of tuning of termsim's per-cell screen reaches it; the style-run
ceiling says what changing the cell model could buy.
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
_TOKENS = re.compile(r"\x1b\[([0-9;]*)m|([ -~]+)|\r\n|\x1b\[[0-?]*[ -/]*[@-~]|.", re.S)


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
    term = termsim.Terminal(80, 24)
    t0 = time.perf_counter()
    for i in range(0, len(data), CHUNK):
        term.feed(data[i:i + CHUNK])
    return time.perf_counter() - t0


def run_ceiling(text: str, per_cell: bool) -> float:
    """The least loop: a cell per character (``per_cell``), or one
    (attributes, text) pair per run."""
    t0 = time.perf_counter()
    memo: dict[tuple[Char, str], Char] = {}
    tables: dict[Char, dict[str, Char]] = {}
    rows: list[dict[int, Char] | list[tuple[Char, str]]] = []
    cells: dict[int, Char] = {}
    runs: list[tuple[Char, str]] = []
    x = 0
    attrs = Char(" ")
    for m in _TOKENS.finditer(text):
        params, run = m.groups()
        if params is not None:
            key = (attrs, params)
            new = memo.get(key)
            if new is None:
                new = memo[key] = _restyled(attrs, params)
            attrs = new
        elif run is None:
            if m.group() == "\r\n":
                rows.append(cells if per_cell else runs)
                cells, runs, x = {}, [], 0
        elif not per_cell:
            runs.append((attrs, run))
        else:
            table = tables.get(attrs)
            if table is None:
                table = tables[attrs] = {}
            for ch in run:
                cell = table.get(ch)
                if cell is None:
                    cell = table[ch] = attrs._replace(data=ch)
                cells[x] = cell
                x += 1
    del rows[:-24]
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("workloads", nargs="*", default=["sgr.bin", "colour.bin", "ptk.bin"])
    args = parser.parse_args()
    print(f"MB/s, median of {args.reps} alternating repetitions; x: against bare pyte")
    print(f"{'workload':<12}{'pyte':>8}{'termsim':>16}{'cell ceiling':>18}{'run ceiling':>18}")
    for name in args.workloads:
        data = (DATA / name).read_bytes()
        text = data.decode("utf-8", "replace")
        runners: dict[str, Callable[[], float]] = {
            "pyte": partial(run_pyte, data), "termsim": partial(run_termsim, data),
            "cells": partial(run_ceiling, text, True), "spans": partial(run_ceiling, text, False),
        }
        times: dict[str, list[float]] = {who: [] for who in runners}
        for rep in range(args.reps):
            order = list(runners) if rep % 2 == 0 else list(reversed(runners))
            for who in order:
                gc.collect()
                times[who].append(runners[who]())
        mbs = {who: len(data) / statistics.median(t) / 1e6 for who, t in times.items()}
        cells = "".join(f"{mbs[w]:>9.2f} ({mbs[w] / mbs['pyte']:.1f}x)"
                        for w in ("termsim", "cells", "spans"))
        print(f"{name:<12}{mbs['pyte']:>8.2f}{cells}")


if __name__ == "__main__":
    main()
