"""Differential test: termsim and a real tmux pane, fed the same recorded bytes.

For each recording in recordings/ (the example REPL's sessions, IPython,
ptpython, a full-screen prompt_toolkit app) and a series of cut points, the
output up to the cut is written into a fresh tmux pane of the same size (raw,
so no byte is translated: ``tests/tmux_pane.py``) and into a termsim
Terminal; the two screens' text must agree. tmux is installed by .ci/run
from the OS packages; without it the test skips.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_pane import TmuxServer, tmux_available, tmux_screen, tmux_server

import termsim
from termsim.events import Output, Resize
from termsim.files import Recording

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
CUTS = 8

pytestmark = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")


@pytest.fixture(scope="module")
def tmux() -> Iterator[TmuxServer]:
    with tmux_server() as server:
        yield server


def cut_points(recording: Recording) -> list[int]:
    outputs = list(recording.of_type(Output))
    if len(outputs) <= CUTS:
        return list(range(1, len(outputs) + 1))
    step = len(outputs) / CUTS
    return sorted({round(step * (i + 1)) for i in range(CUTS)})


@pytest.mark.parametrize("name", ["passing", "cpr-starvation", "ipython", "ptpython",
                                  "fullscreen"])
def test_termsim_and_tmux_show_the_same_text(name: str, tmux: TmuxServer) -> None:
    recording = Recording.open(RECORDINGS / f"{name}.tsr")
    assert not any(recording.of_type(Resize))  # no resizes to replay
    outputs = [e.data for e in recording.of_type(Output)]
    cols, rows = recording.cols, recording.rows
    for cut in cut_points(recording):
        data = b"".join(outputs[:cut])
        terminal = termsim.emulator.Terminal(cols, rows)
        terminal.feed(data)
        ours = [line.rstrip() for line in terminal.screen.lines]
        theirs = tmux_screen(tmux, data, cols, rows)
        assert ours == theirs, (
            f"{name}: after {cut} of {len(outputs)} output chunks ({len(data)} bytes) "
            "the screens differ:\n" + "\n".join(
                f"{r:2} termsim {a!r}\n   tmux    {b!r}"
                for r, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b
            )
        )
