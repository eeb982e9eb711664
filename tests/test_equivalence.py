"""termsim shows what stock pyte shows, on the benchmark workloads.

The speed work (issue "Speed") replaced pyte's parser and drawing; this
guards the claim that the screens did not change, on the four workloads of
``benchmarks/bench_feed.py`` (plain logs, colour-heavy output, a recorded
prompt_toolkit session, a full-screen application), compared at many cut
points, cell by cell.

Where termsim deliberately differs from pyte, the comparison says so:

* the alternate screen: pyte has none, so after ``ESC[?1049l`` it still shows
  the full-screen application; termsim shows the primary screen again. The
  full-screen stream is compared before it leaves the alternate screen.
* erased cells: pyte gives them every attribute of the cursor (bold, reverse
  ...), and only to cells that were written before; termsim gives every erased
  cell the current colours only, as xterm does (background colour erase). So
  attributes are compared on cells that hold a character.
"""

from __future__ import annotations

from pathlib import Path

import pyte
import pytest

import termsim

DATA = Path(__file__).resolve().parent.parent / "benchmarks" / "data"
WORKLOADS = ["logs", "colour", "sgr", "seq", "ptk", "fullscreen"]
CUTS = 24


def pyte_rows(screen: pyte.Screen) -> list[str]:
    # Not Screen.display: it raises on half-overwritten wide characters.
    return [
        "".join(screen.buffer[y][x].data for x in range(screen.columns)).rstrip()
        for y in range(screen.lines)
    ]


@pytest.mark.parametrize("name", WORKLOADS)
def test_termsim_screens_equal_stock_pyte(name: str) -> None:
    data = (DATA / f"{name}.bin").read_bytes()
    if name == "fullscreen":
        data = data[: data.rindex(b"\x1b[?1049l")]  # see the module docstring
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    terminal = termsim.emulator.Terminal(80, 24)
    step = max(1, len(data) // CUTS)
    compared = 0
    for start in range(0, len(data), 4096):
        chunk = data[start:start + 4096]
        stream.feed(chunk)
        terminal.feed(chunk)
        if (start // 4096) % max(1, step // 4096) and start + 4096 < len(data):
            continue
        snap = terminal.screen
        where = f"{name} after {start + len(chunk)} bytes"
        assert pyte_rows(screen) == [line.rstrip() for line in snap.lines], where
        cursor = screen.cursor
        assert (cursor.y, min(cursor.x, 79), not cursor.hidden) == (
            snap.cursor.row, snap.cursor.col, snap.cursor.visible), where
        for y in range(24):
            for x in range(80):
                theirs = screen.buffer[y][x]
                if theirs.data in ("", " "):
                    continue
                ours = snap.cell(y, x)
                assert (ours.char, ours.style.fg, ours.style.bg, ours.style.bold,
                        ours.style.italic, ours.style.underline, ours.style.reverse) == (
                    theirs.data, theirs.fg, theirs.bg, theirs.bold, theirs.italics,
                    theirs.underscore, theirs.reverse), f"{where}, cell {y},{x}"
        compared += 1
    assert compared >= CUTS // 2
