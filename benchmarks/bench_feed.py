"""Feed throughput and snapshot cost: termsim.emulator.Terminal against bare pyte.

1. Throughput. Each workload of ``benchmarks/data/`` (``make_streams.py``)
   is fed in 4096-byte chunks into a fresh ``pyte.Screen(80, 24)`` with a
   ``pyte.ByteStream``, and into a fresh ``termsim.emulator.Terminal(80, 24)``;
   the two alternate (their order flips every repetition), five repetitions
   each, and the median MB/s of each is reported with the ratio
   termsim/pyte (above 1: termsim is faster). termsim's time includes
   making every cell of the final screen (``all_cells``): rows that floods
   of lines leave as text (plain or coloured) get their cells only when
   asked, and this asks, so that both sides end with the same screen
   built. Stock pyte raises out of
   ``feed()`` on some valid sequences (``TypeError`` for ``CSI ? 6 n``...),
   losing the rest of that chunk; those exceptions are caught around each
   feed and counted.
2. Final screens. The text of pyte's ``screen.display`` and of termsim's
   ``screen.lines`` after each workload, compared row by row after
   ``rstrip()``; differing rows are printed.
3. Snapshot cost. Building ``terminal.screen`` after a feed that dirtied one
   row, after a feed that changed every row, and when nothing changed
   (cached), at 80x24 and 200x60, against pyte's ``screen.display`` after the
   same feeds; the median of many builds, in microseconds (the feeds are not
   timed).

A native core beside them: ``pyghostty`` (Ghostty's ``libghostty-vt``,
Zig, loaded through cffi) is fed the same chunks in the same rotation, a
fresh ``pyghostty.Terminal(80, 24, scrollback=GHOSTTY_SCROLLBACK)`` each
time, and reported as "ghostty MB/s" and "ghostty/pyte". Its feed rate
depends on the scrollback it keeps (``--ghostty-scrollback``, default
10,000 lines, pyghostty's own default); its time is the feed only, its
screen lives in native memory with nothing to build (reading every cell
back through cffi costs more than the feed and is not measured). Without
pyghostty (it has a wheel for x86_64 Linux only) the columns are left out,
with a note.

With ``--previous CHECKOUT`` (a git worktree of an older commit), the
throughput table gains "previous", that termsim's ratio to pyte, and
"now/previous", this one's ratio over that one (above 1: this one is
faster). Two termsim versions cannot share a process, so both are measured
the same way, each in new processes, and each against bare pyte measured in
the same process: every repetition runs one pass of this termsim and one
of the previous (``feed_pass()``, through ``_previous.in_checkout``), their
order flipped every repetition. A pass feeds each workload to termsim
twice, then to bare pyte, then to termsim twice again (a fresh terminal
each time), and keeps its own ratio: pyte's time over the least of the
four termsim runs, which enclose pyte's in time (they are short, tens of
ms, and the least is the one least disturbed by other processes). Times
in a pass are the process's CPU time (``time.process_time()``), not wall
time: on a loaded machine the wall time of a run grows with whatever else
is scheduled while it runs, its CPU time much less (caches and the other
core's load still count). So each ratio's baseline is measured beside it
under the same load, a burst of load falls on both versions alike, and
the pyte is the same (this venv's) for both. The termsim/pyte and previous
columns are the medians of each version's ``--reps`` paired ratios; the
MB/s columns are medians over the passes (pyte's over both versions', CPU
time, so above what wall time gives on a loaded machine). The
warm column (CPU time too, against the passes' pyte), the pyte errors
and the screen comparison are measured in this process, as without
``--previous``. The passes use only public API
(``Terminal``, ``feed``, ``screen.runs``), so any checkout runs them.

Usage: ``python benchmarks/bench_feed.py [--reps 5] [--quick] [--previous
CHECKOUT] [--ghostty-scrollback 10000]`` (after ``make_streams.py``).
``--quick``: 2 repetitions and 100 snapshot builds per cell, a smoke run.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pyte
from _previous import in_checkout

import termsim

try:
    import pyghostty
except ImportError:  # the native column is left out, with a note
    pyghostty = None

DATA = Path(__file__).resolve().parent / "data"
WORKLOADS = ("logs.bin", "colour.bin", "sgr.bin", "seq.bin", "ptk.bin", "fullscreen.bin")
CHUNK = 4096
REPEATS = 5
SNAPSHOT_ITERATIONS = 300
QUICK_REPEATS = 2
QUICK_SNAPSHOT_ITERATIONS = 100
ROOT = str(Path(__file__).resolve().parent.parent)
SIZES = ((80, 24), (200, 60))
LEAVE_ALTERNATE = b"\x1b[?1049l"
MAX_DIFF_ROWS = 3
#: Lines of scrollback the pyghostty terminal keeps (pyghostty's default).
GHOSTTY_SCROLLBACK = 10_000


def chunks_of(data: bytes) -> list[bytes]:
    return [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)]


# -- throughput -------------------------------------------------------------------


def run_pyte(chunks: list[bytes], clock: Callable[[], float] = time.perf_counter,
             ) -> tuple[float, pyte.Screen, Counter[str]]:
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    errors: Counter[str] = Counter()
    gc.collect()
    t0 = clock()
    for chunk in chunks:
        try:
            stream.feed(chunk)
        except Exception as exc:
            errors[type(exc).__name__] += 1
    return clock() - t0, screen, errors


def run_ghostty(chunks: list[bytes], clock: Callable[[], float] = time.perf_counter,
                scrollback: int = GHOSTTY_SCROLLBACK) -> float:
    """The native core: the chunks fed into a fresh pyghostty terminal."""
    terminal = pyghostty.Terminal(80, 24, scrollback=scrollback)
    try:
        gc.collect()
        t0 = clock()
        for chunk in chunks:
            terminal.feed(chunk)
        return clock() - t0
    finally:
        terminal.close()


def all_cells(terminal: termsim.emulator.Terminal) -> None:
    """Make every cell of the screen, as a test reading styles would."""
    snap = terminal.screen
    for row in range(snap.rows):
        snap.runs(row)


def run_termsim(chunks: list[bytes], clock: Callable[[], float] = time.perf_counter,
                ) -> tuple[float, termsim.emulator.Terminal]:
    terminal = termsim.emulator.Terminal(80, 24)
    gc.collect()
    t0 = clock()
    for chunk in chunks:
        terminal.feed(chunk)
    all_cells(terminal)
    return clock() - t0, terminal


def run_termsim_warm(chunks: list[bytes], clock: Callable[[], float] = time.perf_counter,
                     ) -> float:
    """The second pass of the stream through one terminal: what a long
    session costs once the sequences it repeats have been met."""
    terminal = termsim.emulator.Terminal(80, 24)
    for chunk in chunks:
        terminal.feed(chunk)
    gc.collect()
    t0 = clock()
    for chunk in chunks:
        terminal.feed(chunk)
    all_cells(terminal)
    return clock() - t0


def screen_diff(pyte_screen: pyte.Screen, terminal: termsim.emulator.Terminal) -> list[str]:
    """Rows whose text differs, as printable lines (empty when identical)."""
    ours = [line.rstrip() for line in terminal.screen.lines]
    theirs = [line.rstrip() for line in pyte_screen.display]
    out = []
    for row, (a, b) in enumerate(zip(theirs, ours, strict=True)):
        if a != b:
            out.append(f"    row {row:2d} pyte    {a[:70]!r}")
            out.append(f"           termsim {b[:70]!r}")
    return out


def explain_alternate(data: bytes) -> list[str]:
    """Compare again just before the stream leaves the alternate screen."""
    leave = data.rfind(LEAVE_ALTERNATE)
    if leave < 0:
        return []
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    terminal = termsim.emulator.Terminal(80, 24)
    for chunk in chunks_of(data[:leave]):
        try:
            stream.feed(chunk)
        except Exception:  # counted in the main run
            pass
        terminal.feed(chunk)
    if screen_diff(screen, terminal):
        return ["    (they differ just before the final ESC[?1049l too)"]
    return [
        "    just before the final ESC[?1049l the screens are identical: pyte ignores the",
        "    alternate screen (selectel/pyte#90) and keeps showing the last frame, while",
        "    termsim restores the primary screen (blank here), as a real terminal does",
    ]


def workload(name: str) -> bytes:
    path = DATA / name
    if not path.exists():
        sys.exit(f"{path} is missing: run python benchmarks/make_streams.py first")
    return path.read_bytes()


def feed_pass() -> dict[str, dict[str, float]]:
    """For ``--previous``: each workload once, in this process (the termsim
    on ``sys.path``): termsim twice, bare pyte, termsim twice again (a
    fresh ``Terminal`` each time). Seconds of this process's CPU time:
    ``{"pyte": ..., "termsim": the least of the four termsim runs}``."""
    out: dict[str, dict[str, float]] = {}
    for name in WORKLOADS:
        chunks = chunks_of(workload(name))
        cpu = time.process_time
        ours = [run_termsim(chunks, cpu)[0] for _ in range(2)]
        theirs = run_pyte(chunks, cpu)[0]
        ours += [run_termsim(chunks, cpu)[0] for _ in range(2)]
        out[name] = {"pyte": theirs, "termsim": min(ours)}
    return out


def versus_previous(previous: str, repeats: int) -> dict[str, dict[str, list[float]]]:
    """``feed_pass()`` of this checkout and of ``previous``, each in new
    processes, alternating (order flipped every repetition). Per workload:
    the pyte and termsim seconds and the paired ratio of each version's
    passes, under ``"now ..."`` and ``"previous ..."``."""
    out: dict[str, dict[str, list[float]]] = {name: {} for name in WORKLOADS}
    for rep in range(repeats):
        order = [("now", ROOT), ("previous", previous)]
        if rep % 2:
            order.reverse()
        for who, checkout in order:
            passed = in_checkout(checkout, "bench_feed", "feed_pass()", cwd=checkout)
            for name, times in passed.items():
                by = out[name]
                by.setdefault(f"{who} pyte", []).append(times["pyte"])
                by.setdefault(f"{who} termsim", []).append(times["termsim"])
                by.setdefault(f"{who} ratio", []).append(times["pyte"] / times["termsim"])
    return out


def throughput(repeats: int = REPEATS, previous: str | None = None,
               scrollback: int = GHOSTTY_SCROLLBACK) -> list[str]:
    notes: list[str] = []
    compared = versus_previous(previous, repeats) if previous else None
    native = pyghostty is not None
    print(f"Feed throughput: {CHUNK}-byte chunks, 80x24, median of {repeats} alternating "
          "repetitions;")
    print("termsim/pyte is the throughput ratio (above 1: termsim is faster)")
    if native:
        print(f"ghostty: pyghostty {pyghostty.__version__} (libghostty-vt, native), "
              f"scrollback={scrollback} lines, feed only; ghostty/pyte its ratio")
    else:
        notes.append("  ghostty columns left out: pyghostty is not installed (the test "
                     "extra has it on x86_64 Linux)")
    print("warm: the same terminal fed the stream a second time (sequences met before)")
    if previous:
        print(f"previous: {previous}'s termsim, its ratio to pyte; now/previous: "
              "termsim/pyte over previous (above 1: now is faster)")
        print("termsim/pyte and previous: medians of the ratios of passes in new processes, "
              "alternating, each against pyte measured in the same pass; MB/s and ratios "
              "from CPU time")
    print(f"{'workload':<15} {'MB':>5} {'pyte MB/s':>10} {'termsim MB/s':>13} "
          f"{'termsim/pyte':>13} {'warm/pyte':>10} {'pyte errors':>12} {'screens':>9}"
          + (f" {'ghostty MB/s':>13} {'ghostty/pyte':>13}" if native else "")
          + (f" {'previous':>9} {'now/previous':>13}" if previous else ""))
    for name in WORKLOADS:
        data = workload(name)
        chunks = chunks_of(data)
        pyte_times: list[float] = []
        ours_times: list[float] = []
        native_times: list[float] = []
        clock = time.perf_counter if compared is None else time.process_time
        warm_times = [run_termsim_warm(chunks, clock) for _ in range(repeats)]
        if compared is None:
            for rep in range(repeats):
                # pyte, termsim, ghostty rotated: each goes first in turn.
                order = ["pyte", "termsim"] + (["ghostty"] if native else [])
                order = order[rep % len(order):] + order[:rep % len(order)]
                for which in order:
                    if which == "pyte":
                        elapsed, screen, errors = run_pyte(chunks)
                        pyte_times.append(elapsed)
                    elif which == "termsim":
                        elapsed, terminal = run_termsim(chunks)
                        ours_times.append(elapsed)
                    else:
                        native_times.append(run_ghostty(chunks, scrollback=scrollback))
        else:  # the figures come from the passes; here only the screens and errors
            screen, errors = run_pyte(chunks)[1:]
            terminal = run_termsim(chunks)[1]
            by = compared[name]
            pyte_times = by["now pyte"] + by["previous pyte"]
            ours_times = by["now termsim"]
            if native:  # CPU time, as the passes' pyte
                native_times = [run_ghostty(chunks, clock, scrollback) for _ in range(repeats)]
        mb = len(data) / 1e6
        pyte_rate = mb / statistics.median(pyte_times)
        ours_rate = mb / statistics.median(ours_times)
        ratio = (ours_rate / pyte_rate if compared is None
                 else statistics.median(compared[name]["now ratio"]))
        diff = screen_diff(screen, terminal)
        n_errors = sum(errors.values())
        warm_rate = mb / statistics.median(warm_times)
        line = (f"{name:<15} {mb:5.2f} {pyte_rate:10.2f} {ours_rate:13.2f} "
                f"{ratio:13.2f} {warm_rate / pyte_rate:10.2f} {n_errors:12d} "
                f"{'same' if not diff else f'{len(diff) // 2} rows':>9}")
        if native:
            native_rate = mb / statistics.median(native_times)
            line += f" {native_rate:13.2f} {native_rate / pyte_rate:13.2f}"
        if compared is not None:
            before = statistics.median(compared[name]["previous ratio"])
            line += f" {before:9.2f} {ratio / before:13.3f}"
        print(line)
        if errors:
            kinds = ", ".join(f"{n} x {kind}" for kind, n in errors.most_common())
            notes.append(f"  {name}: stock pyte raised out of feed() {kinds} (per run; "
                         "the rest of each such chunk is lost)")
        if diff:
            shown = diff[:2 * MAX_DIFF_ROWS]
            more = len(diff) // 2 - len(shown) // 2
            notes.append(f"  {name}: final screens differ in {len(diff) // 2} rows"
                         + (f" (first {len(shown) // 2} shown):" if more else ":"))
            notes.extend(shown)
            notes.extend(explain_alternate(data))
        if terminal.unknown:
            kinds = ", ".join(f"{kind} x {n}" for kind, n in terminal.unknown.most_common(5))
            notes.append(f"  {name}: termsim counted sequences it does not handle: {kinds}")
    return notes


# -- snapshot cost ----------------------------------------------------------------


def fill(cols: int, rows: int, seed: int) -> bytes:
    """A feed that rewrites every row with different text."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    body = "\r\n".join(
        "".join(letters[(seed + r + c) % 26] for c in range(cols - 1)) for r in range(rows)
    )
    return b"\x1b[H" + body.encode()


def median_us(build: Callable[[], object], dirty: Callable[[int], None],
              iterations: int = SNAPSHOT_ITERATIONS) -> float:
    samples = []
    for i in range(iterations):
        dirty(i)
        t0 = time.perf_counter_ns()
        build()
        samples.append(time.perf_counter_ns() - t0)
    return statistics.median(samples) / 1000


def snapshot_cost(iterations: int = SNAPSHOT_ITERATIONS) -> None:
    print()
    print(f"Snapshot cost (microseconds, median of {iterations} builds; feeds not "
          "timed; time ratio below 1: termsim is faster)")
    print(f"{'size':<8} {'change':<12} {'termsim .screen':>16} {'pyte .display':>14} "
          f"{'time termsim/pyte':>18}")
    for cols, rows in SIZES:
        fills = [fill(cols, rows, seed) for seed in range(2)]
        scenarios: dict[str, Callable[[int], bytes]] = {
            "one row": lambda i, r=rows: f"\x1b[{i % r + 1};1H{i % 10}".encode(),
            "every row": lambda i, f=fills: f[i % 2],
            "nothing": lambda i: b"",
        }
        for label, payload in scenarios.items():
            terminal = termsim.emulator.Terminal(cols, rows)
            screen = pyte.Screen(cols, rows)
            stream = pyte.ByteStream(screen)
            for setup in fills:  # start from a full screen
                terminal.feed(setup)
                stream.feed(setup)
            terminal.screen  # noqa: B018 - build the first snapshot outside the timing

            def feed_ours(i: int, t: termsim.emulator.Terminal = terminal,
                          p: Callable[[int], bytes] = payload) -> None:
                t.feed(p(i))

            def feed_pyte(i: int, s: pyte.ByteStream = stream,
                          p: Callable[[int], bytes] = payload) -> None:
                s.feed(p(i))

            results = {}
            for rep in range(2):  # alternate; keep the second round of each
                order = ("termsim", "pyte") if rep % 2 == 0 else ("pyte", "termsim")
                for which in order:
                    if which == "termsim":
                        results[which] = median_us(lambda t=terminal: t.screen, feed_ours,
                                                   iterations)
                    else:
                        results[which] = median_us(lambda s=screen: s.display, feed_pyte,
                                                   iterations)
            ours, theirs = results["termsim"], results["pyte"]
            print(f"{f'{cols}x{rows}':<8} {label:<12} {ours:16.1f} {theirs:14.1f} "
                  f"{ours / theirs:18.3f}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, help=f"repetitions (default {REPEATS})")
    parser.add_argument("--quick", action="store_true",
                        help=f"a smoke run: {QUICK_REPEATS} repetitions, "
                        f"{QUICK_SNAPSHOT_ITERATIONS} snapshot builds")
    parser.add_argument("--previous", metavar="CHECKOUT",
                        help="another termsim checkout to compare with")
    parser.add_argument("--ghostty-scrollback", type=int, default=GHOSTTY_SCROLLBACK,
                        metavar="LINES", help="scrollback lines of the pyghostty terminal "
                        f"(default {GHOSTTY_SCROLLBACK})")
    args = parser.parse_args()
    repeats = args.reps or (QUICK_REPEATS if args.quick else REPEATS)
    iterations = QUICK_SNAPSHOT_ITERATIONS if args.quick else SNAPSHOT_ITERATIONS
    print(f"Python {sys.version.split()[0]}, pyte {pyte_version()}, termsim "
          f"{termsim.__version__}")
    print()
    previous = str(Path(args.previous).resolve()) if args.previous else None
    notes = throughput(repeats, previous, args.ghostty_scrollback)
    if notes:
        print()
        print("Notes:")
        for note in notes:
            print(note)
    snapshot_cost(iterations)
    return 0


def pyte_version() -> str:
    from importlib.metadata import version

    return version("pyte")


if __name__ == "__main__":
    sys.exit(main())
