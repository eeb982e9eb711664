"""The HTML page of a session costs memory in proportion to the page, not to its
screens: a recording of hundreds of tall screens exports in a small multiple of the
page it writes (issue 33, defect 6: a 2.2 MB recording of 450 screens of 450 x 450
once peaked at 4 GB for a 1.25 MB page).

The recordings are made with the real writer, as a session would: a scrolling log
(every row of every screen moves) and a status display that redraws a few rows in
place. Peak memory is tracemalloc's, which counts the Python allocations the export
makes and is the same from run to run (no timing in it)."""

from __future__ import annotations

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
FRAMES, COLS, ROWS = 450, 160, 50
#: Peak traced memory of an export, at most, as a multiple of the page's bytes.
#: What the export must hold: the page's data as Python objects (the distinct
#: rows as lists of runs, the frames' lists of row indexes: two to three times
#: their JSON) and the recording it reads (about the page's size here), plus
#: costs bounded by the screen, not the session: the live terminal and the one
#: screen being encoded, a walk's terminal that waits for the cycle collector,
#: and the snapshots' cache of the rows grouped lately (512 rows of cells).
#: Measured: 7-10 times this page. Holding every screen, as the export did,
#: cost 40 times it (rows redrawn in place) to over 100 (a scrolling log).
BOUND = 12


def scrolling_log(path: Path) -> None:
    """Ten new full-width coloured lines a read: the screen scrolls each time."""
    writer = RecordingWriter(path, make_header(argv=["tail", "-f", "log"], cwd="/",
                                               cols=COLS, rows=ROWS,
                                               env={"TERM": "xterm-256color"}))
    n = 0
    for frame in range(FRAMES):
        lines = []
        for k in range(10):
            n += 1
            text = (f"line {n} " * 40)[:COLS]
            lines.append(("\r\n" if n > 1 else "") + f"\x1b[3{k % 8}m{text}\x1b[m")
        writer.write(Output(frame / 100, "".join(lines).encode()))
    writer.close(FRAMES / 100, "closed")


def rows_in_place(path: Path) -> None:
    """Ten rows redrawn a read, by cursor position: the rest of the screen stays."""
    writer = RecordingWriter(path, make_header(argv=["status"], cwd="/", cols=COLS,
                                               rows=ROWS, env={"TERM": "xterm-256color"}))
    for frame in range(FRAMES):
        parts = []
        for k in range(10):
            row = (frame * 10 + k) % ROWS + 1
            text = (f"frame {frame} row {row} " * 20)[:COLS - 1]
            parts.append(f"\x1b[{row};1H\x1b[3{k % 8}m{text}\x1b[m")
        writer.write(Output(frame / 100, "".join(parts).encode()))
    writer.close(FRAMES / 100, "closed")


@pytest.mark.parametrize("make", [scrolling_log, rows_in_place])
def test_export_peaks_within_a_small_multiple_of_the_page(
        tmp_path: Path, make: Callable[[Path], None],
        capsys: pytest.CaptureFixture[str]) -> None:
    make(tmp_path / "session.tsr")
    page = tmp_path / "page.html"
    tracemalloc.start()
    try:
        status = main(["export", str(tmp_path / "session.tsr"), "-o", str(page)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert status == 0, capsys.readouterr().err
    size = page.stat().st_size
    html = page.read_text(encoding="utf-8")
    assert f"{FRAMES + 1} in this page" in html  # every screen is in it
    last = f"line {FRAMES * 10} " if make is scrolling_log else f"frame {FRAMES - 1} row {ROWS} "
    assert last in html
    assert peak <= BOUND * size, (
        f"exporting a {size:,}-byte page peaked at {peak:,} bytes traced "
        f"({peak / size:.1f} times the page; at most {BOUND})")


def test_the_written_page_is_the_page_as_a_string(tmp_path: Path) -> None:
    """Streaming changes nothing in the page: every recording in recordings/ writes
    the very characters ``recording_html`` returns."""
    for path in sorted((ROOT / "recordings").glob("*.tsr")):
        recording = Recording.open(path)
        page = tmp_path / f"{path.stem}.html"
        with open(page, "w", encoding="utf-8") as out:
            report.write_recording_html(recording, out)
        assert page.read_text(encoding="utf-8") == report.recording_html(recording), path.name
