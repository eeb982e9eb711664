"""Peak memory of ``termsim export session.tsr -o page.html`` on a tall session.

    python benchmarks/bench_html_memory.py [--previous CHECKOUT]
        [--frames 450] [--cols 450] [--rows 450] [--lines 10]

The case of issue 33 (defect 6): a scrolling log of 450 reads of output at
450 x 450, ten new full-width coloured lines a read (a 2.1 MB recording,
written by the real writer), exported to HTML by the real command
(``termsim.cli.main``). It prints, for this checkout and, with
``--previous``, for another one (a git worktree of an older commit, as
``git worktree add /tmp/prev HEAD`` makes), each measured in a process of
its own (``_previous.in_checkout``): the peak RSS of the export, the RSS
before it (the interpreter and termsim's modules), the growth between the
two, the page's size, and the growth over the page. The same recording goes to both; the pages they
write are compared byte for byte.
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path
from typing import Any

from _previous import in_checkout

ROOT = Path(__file__).resolve().parent.parent


def tall_session(path: str, frames: int, cols: int, rows: int, lines: int) -> None:
    """``frames`` reads of ``lines`` new full-width coloured lines each."""
    from termsim.events import Output
    from termsim.recording.format import RecordingWriter, make_header

    writer = RecordingWriter(path, make_header(argv=["tail", "-f", "log"], cwd="/",
                                               cols=cols, rows=rows,
                                               env={"TERM": "xterm-256color"}))
    n = 0
    for frame in range(frames):
        out = []
        for k in range(lines):
            n += 1
            text = (f"line {n} " * (cols // 6 + 1))[:cols]
            out.append(("\r\n" if n > 1 else "") + f"\x1b[3{k % 8}m{text}\x1b[m")
        writer.write(Output(frame / 100, "".join(out).encode()))
    writer.close(frames / 100, "closed")


def export_pass(recording: str, page: str) -> dict[str, Any]:
    """One ``termsim export`` in this process: its peak RSS and the page.

    Called in a fresh process per checkout, so that the peak is the export's
    own (``ru_maxrss`` only grows)."""
    import resource
    import time

    import termsim.report.html  # noqa: F401  (imported before the baseline)
    from termsim.cli import main

    def rss_mb() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB

    baseline = rss_mb()
    began = time.perf_counter()
    status = main(["export", recording, "-o", page])
    seconds = time.perf_counter() - began
    return {"status": status, "baseline_mb": baseline, "peak_mb": rss_mb(),
            "page_bytes": Path(page).stat().st_size, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--previous", help="another termsim checkout to compare with")
    parser.add_argument("--frames", type=int, default=450)
    parser.add_argument("--cols", type=int, default=450)
    parser.add_argument("--rows", type=int, default=450)
    parser.add_argument("--lines", type=int, default=10, help="new lines per read")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        recording = str(Path(tmp) / "tall.tsr")
        tall_session(recording, args.frames, args.cols, args.rows, args.lines)
        size = Path(recording).stat().st_size
        print(f"recording: {args.frames} reads at {args.cols}x{args.rows}, "
              f"{args.lines} new lines each: {size:,} bytes")
        runs = [("this checkout", str(ROOT))]
        if args.previous:
            runs.append(("previous", str(Path(args.previous).resolve())))
        pages = []
        print(f"{'':14} {'peak RSS':>10} {'before':>8} {'growth':>9} {'page':>9} "
              f"{'growth/page':>11} {'seconds':>8}")
        for name, checkout in runs:
            page = str(Path(tmp) / f"{len(pages)}.html")
            got = in_checkout(checkout, "bench_html_memory",
                              f"export_pass({recording!r}, {page!r})", cwd=tmp)
            if got["status"] != 0:
                raise SystemExit(f"{name}: termsim export exited {got['status']}")
            pages.append(page)
            peak, before = got["peak_mb"], got["baseline_mb"]
            growth = peak - before
            print(f"{name:14} {peak:7.0f} MB {before:5.0f} MB {growth:6.0f} MB "
                  f"{got['page_bytes'] / 1e6:6.2f} MB {growth * 2**20 / got['page_bytes']:10.1f}x "
                  f"{got['seconds']:8.1f}")
        if len(pages) == 2:
            same = filecmp.cmp(pages[0], pages[1], shallow=False)
            print("pages: byte for byte the same" if same else "pages: DIFFERENT")


if __name__ == "__main__":
    main()
