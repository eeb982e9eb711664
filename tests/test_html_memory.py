"""The HTML page of a session costs memory in proportion to the page, not to its
screens: a recording of many tall screens exports in a small multiple of the page
it writes (issue 33, defect 6: a 2.2 MB recording of 450 screens of 450 x 450
once peaked at 4 GB for a 1.25 MB page).

The recordings are made with the real writer, as a session would: a scrolling log
(every row of every screen moves) and a status display that redraws half its rows
in place (the other half stays, shared between screens). Peak memory is
tracemalloc's, which counts the Python allocations the export makes and is the same
from run to run (no timing in it); only the export is traced, not the writing of
its recording.

Each session is exported at two lengths, and what is checked is what the longer
one adds: the peak may grow by at most :data:`PER_PAGE_BYTE` bytes for each byte
the page grows by. The costs that do not depend on the session's length (the
terminals, the snapshots' cache of the rows grouped lately) cancel out of that
difference, so it is a sharp test of "holding every screen", which costs a
screen's cells for each screen: the peak then grows 39 times as fast as the page
(rows redrawn in place, where screens share their unchanged rows) to 70 times (a
scrolling log), against about 4 measured. A single length cannot tell the two
apart as sharply: its bound must leave room for the fixed costs, about 5 MB here,
so the page must be large enough to dwarf them (the one-length version of this
test exported 450 screens, twice the CPU of these two exports). What is left of
the peak once its growth is taken out, the fixed part, has a bound of its own
(:data:`FIXED`), so that the costs bounded by the screen cannot grow unseen
either.

Both lengths are past the export's warm-up: the snapshots' cache of grouped rows
(two generations of 256 rows, :data:`termsim.emulator.snapshot.rows.RUNS`) fills
over the first 30 to 40 screens (25 new rows a screen), then holds 256 to 512
rows; a length inside that filling would make the growth look steeper than it
is. A small export before measuring pays for what a process does once (imports,
argparse's parser), and a collection before each leaves no garbage of earlier
tests to be collected inside it."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from termsim.cli import main
from termsim.events import Output
from termsim.files import Recording
from termsim.recording.format import RecordingWriter, make_header
from termsim.report import html as report

ROOT = Path(__file__).resolve().parent.parent
COLS, ROWS = 160, 50
#: Rows each read of output writes: half the screen.
LINES = 25
#: The two lengths of each session, in reads of output (one screen each).
SIZES = (40, 80)
#: Peak traced memory an export may add, at most, for each byte its page grows by.
#: What grows with the session is the page's data as Python objects (the
#: distinct rows as lists of runs, the frames' lists of row indexes: two to three
#: times their JSON) and the recording it reads (about the page's size here).
#: Measured: about 4 (3.4 to 4.7, whatever ran before in the process). Holding
#: every screen, as the export once did, makes it 39 (rows redrawn in place) to
#: 70 (a scrolling log).
PER_PAGE_BYTE = 8
#: The peak's fixed part, at most: the costs bounded by the screen, not the
#: session (the live terminal and the one screen being encoded, a walk's terminal
#: that waits for the cycle collector, and the snapshots' cache of up to 512 rows
#: of 160 cells). Measured: 4.3 to 4.9 MB.
FIXED = 7_000_000


def scrolling_log(path: Path, frames: int) -> None:
    """LINES new full-width coloured lines a read: the screen scrolls each time."""
    writer = RecordingWriter(path, make_header(argv=["tail", "-f", "log"], cwd="/",
                                               cols=COLS, rows=ROWS,
                                               env={"TERM": "xterm-256color"}))
    n = 0
    for frame in range(frames):
        lines = []
        for k in range(LINES):
            n += 1
            text = (f"line {n} " * 40)[:COLS]
            lines.append(("\r\n" if n > 1 else "") + f"\x1b[3{k % 8}m{text}\x1b[m")
        writer.write(Output(frame / 100, "".join(lines).encode()))
    writer.close(frames / 100, "closed")


def rows_in_place(path: Path, frames: int) -> None:
    """LINES rows redrawn a read, by cursor position: the rest of the screen stays."""
    writer = RecordingWriter(path, make_header(argv=["status"], cwd="/", cols=COLS,
                                               rows=ROWS, env={"TERM": "xterm-256color"}))
    for frame in range(frames):
        parts = []
        for k in range(LINES):
            row = (frame * LINES + k) % ROWS + 1
            text = (f"frame {frame} row {row} " * 20)[:COLS - 1]
            parts.append(f"\x1b[{row};1H\x1b[3{k % 8}m{text}\x1b[m")
        writer.write(Output(frame / 100, "".join(parts).encode()))
    writer.close(frames / 100, "closed")


def last_line(make: Callable[[Path, int], None], frames: int) -> str:
    """Text of the last row the last read wrote."""
    if make is scrolling_log:
        return f"line {frames * LINES} "
    return f"frame {frames - 1} row {((frames - 1) * LINES + LINES - 1) % ROWS + 1} "


@pytest.mark.parametrize("make", [scrolling_log, rows_in_place])
def test_export_grows_by_a_small_multiple_of_the_page(
        tmp_path: Path, make: Callable[[Path, int], None],
        capsys: pytest.CaptureFixture[str]) -> None:
    make(tmp_path / "warm.tsr", 2)
    assert main(["export", str(tmp_path / "warm.tsr"), "-o", str(tmp_path / "warm.html")]) == 0
    peaks, sizes = [], []
    for frames in SIZES:
        session, page = tmp_path / f"{frames}.tsr", tmp_path / f"{frames}.html"
        make(session, frames)
        gc.collect()
        tracemalloc.start()
        try:
            status = main(["export", str(session), "-o", str(page)])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert status == 0, capsys.readouterr().err
        html = page.read_text(encoding="utf-8")
        assert f"{frames + 1} in this page" in html  # every screen is in it
        assert last_line(make, frames) in html
        peaks.append(peak)
        sizes.append(page.stat().st_size)
    grew, more = peaks[1] - peaks[0], sizes[1] - sizes[0]
    assert grew <= PER_PAGE_BYTE * more, (
        f"{SIZES[1] - SIZES[0]} more screens grew the page by {more:,} bytes and the "
        f"export's peak by {grew:,} ({grew / more:.1f} times; at most {PER_PAGE_BYTE})")
    fixed = peaks[1] - grew * sizes[1] // more
    assert fixed <= FIXED, (
        f"exporting a {sizes[1]:,}-byte page peaked at {peaks[1]:,} bytes traced, "
        f"{fixed:,} of them not growing with the page (at most {FIXED:,})")


def test_the_written_page_is_the_page_as_a_string(tmp_path: Path) -> None:
    """Streaming changes nothing in the page: every recording in recordings/ writes
    the very characters ``recording_html`` returns."""
    for path in sorted((ROOT / "recordings").glob("*.tsr")):
        recording = Recording.open(path)
        page = tmp_path / f"{path.stem}.html"
        with open(page, "w", encoding="utf-8") as out:
            report.write_recording_html(recording, out)
        assert page.read_text(encoding="utf-8") == report.recording_html(recording), path.name
