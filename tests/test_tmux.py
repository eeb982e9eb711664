"""Differential test: termsim and a real tmux pane, fed the same recorded bytes.

For each recording in recordings/ (the example REPL's sessions, IPython,
ptpython, a full-screen prompt_toolkit app) and a series of cut points, the
output up to the cut is written into a tmux pane of the same size (through
``stty raw``, so no byte is translated) and into a termsim Terminal; the two
screens' text must agree. tmux is installed by .ci/run from the OS packages;
without it the test skips.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import termsim
from termsim import Recording
from termsim.events import Output, Resize

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
CUTS = 8

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture(scope="module")
def tmux() -> Iterator[list[str]]:
    socket = f"termsim-test-{uuid.uuid4().hex[:8]}"
    base = ["tmux", "-L", socket, "-f", "/dev/null"]
    # A session that lives as long as the module: killing the last session
    # ends a tmux server, and a new-session racing that shutdown fails.
    subprocess.run([*base, "new-session", "-d", "-s", "keeper", "tail -f /dev/null"],
                   check=True, timeout=30)
    yield base
    subprocess.run([*base, "kill-server"], capture_output=True)


def tmux_screen(base: list[str], data: bytes, cols: int, rows: int, tmp: Path) -> list[str]:
    """The text tmux shows after the pane's program wrote ``data``."""
    name = uuid.uuid4().hex[:8]
    stream = tmp / f"{name}.bin"
    stream.write_bytes(data)
    # The title is set after the data, in the same stream, so once tmux shows
    # it, it has processed every byte before it; wait-for wakes us up.
    script = (
        f"stty raw -echo; cat {shlex.quote(str(stream))}; "
        f"printf '\\033]2;done-{name}\\007'; "
        f"{shlex.join(base)} wait-for -S {name}; exec tail -f /dev/null"
    )
    created = subprocess.run(
        [*base, "new-session", "-d", "-x", str(cols), "-y", str(rows), "-s", name, script],
        capture_output=True, text=True, timeout=30)
    assert created.returncode == 0, created.stderr
    try:
        subprocess.run([*base, "wait-for", name], check=True, timeout=30)
        for _ in range(100):  # the title normally arrived already; bounded re-check
            title = subprocess.run([*base, "display", "-p", "-t", name, "#{pane_title}"],
                                   capture_output=True, text=True, check=True).stdout.strip()
            if title == f"done-{name}":
                break
        else:
            pytest.fail("tmux never processed the stream")
        shown = subprocess.run([*base, "capture-pane", "-p", "-t", name],
                               capture_output=True, text=True, check=True, timeout=30).stdout
    finally:
        subprocess.run([*base, "kill-session", "-t", name], capture_output=True)
    lines = shown.split("\n")[:rows]
    return [line.rstrip() for line in lines] + [""] * (rows - len(lines))


def cut_points(recording: Recording) -> list[int]:
    outputs = list(recording.of_type(Output))
    if len(outputs) <= CUTS:
        return list(range(1, len(outputs) + 1))
    step = len(outputs) / CUTS
    return sorted({round(step * (i + 1)) for i in range(CUTS)})


@pytest.mark.parametrize("name", ["passing", "cpr-starvation", "ipython", "ptpython",
                                  "fullscreen"])
def test_termsim_and_tmux_show_the_same_text(
    name: str, tmux: list[str], tmp_path: Path,
) -> None:
    recording = Recording.open(RECORDINGS / f"{name}.tsr")
    assert not any(recording.of_type(Resize))  # no resizes to replay
    outputs = [e.data for e in recording.of_type(Output)]
    cols, rows = recording.cols, recording.rows
    for cut in cut_points(recording):
        data = b"".join(outputs[:cut])
        terminal = termsim.Terminal(cols, rows)
        terminal.feed(data)
        ours = [line.rstrip() for line in terminal.screen.lines]
        theirs = tmux_screen(tmux, data, cols, rows, tmp_path)
        assert ours == theirs, (
            f"{name}: after {cut} of {len(outputs)} output chunks ({len(data)} bytes) "
            "the screens differ:\n" + "\n".join(
                f"{r:2} termsim {a!r}\n   tmux    {b!r}"
                for r, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b
            )
        )
