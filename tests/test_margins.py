"""Left and right margins (DECLRMM ``CSI ? 69 h``, DECSLRM ``CSI Pl ; Pr s``), as xterm.

termsim announces xterm patch 398 (DA2, XTVERSION), so tmux sets left and
right margins around each pane of a vertical split and scrolls inside them.
The unit tests below check each rule against xterm's source (patch 410:
``charproc.c`` ``CASE_ANSI_SC``, ``cursor.c`` ``CarriageReturn``,
``CursorSet``, ``xtermIndex``, ``util.c`` ``scrollInMargins``,
``InsertLine``, ``InsertChar``, ``DeleteChar``, ``charproc.c`` ``dotext``
and ``WrapLine``) and libvterm's ``12state_scroll``; the property test holds
the fast paths equal to the plain one with margins set; the last test runs
real tmux in termsim with a vertical and a horizontal split and compares
termsim's screen of the tmux client with tmux's own ``capture-pane`` of
each pane.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import partial
from pathlib import Path

import helpers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import termsim
from termsim import Region, Text
from termsim.emulator import Terminal

feed = partial(helpers.fed, cols=10, rows=5)
#: The rows, without trailing blanks and blank rows at the bottom.
rows_of = partial(helpers.rows_of, blank_bottom=False)
cursor = helpers.cursor_of


FILL = "".join(f"\x1b[{y + 1}H{chr(ord('a') + y) * 10}" for y in range(5))
LRMM = "\x1b[?69h"


def test_lf_at_the_bottom_scrolls_only_between_the_margins() -> None:
    term = feed(FILL + LRMM + "\x1b[3;6s\x1b[5;4H\n")
    assert rows_of(term) == ["aabbbbaaaa", "bbccccbbbb", "ccddddcccc", "ddeeeedddd", "ee    eeee"]
    assert cursor(term) == (4, 3)


def test_lf_at_the_bottom_outside_the_margins_does_nothing() -> None:
    term = feed(FILL + LRMM + "\x1b[3;6s\x1b[5;8H\n")
    assert rows_of(term) == ["a" * 10, "b" * 10, "c" * 10, "d" * 10, "e" * 10]
    assert cursor(term) == (4, 7)


def test_scrolling_between_margins_keeps_no_history() -> None:
    term = feed(FILL + LRMM + "\x1b[3;6s\x1b[2S")
    assert term._screen.scrolled == 0
    assert rows_of(term) == ["aaccccaaaa", "bbddddbbbb", "cceeeecccc", "dd    dddd", "ee    eeee"]


def test_ri_sd_il_dl_between_the_margins() -> None:
    assert rows_of(feed(FILL + LRMM + "\x1b[3;6s\x1b[1;4H\x1bM")) == [
        "aa    aaaa", "bbaaaabbbb", "ccbbbbcccc", "ddccccdddd", "eeddddeeee"]
    assert rows_of(feed(FILL + LRMM + "\x1b[3;6s\x1b[T")) == [
        "aa    aaaa", "bbaaaabbbb", "ccbbbbcccc", "ddccccdddd", "eeddddeeee"]
    assert rows_of(feed(FILL + LRMM + "\x1b[3;6s\x1b[2;4H\x1b[L")) == [
        "a" * 10, "bb    bbbb", "ccbbbbcccc", "ddccccdddd", "eeddddeeee"]
    assert rows_of(feed(FILL + LRMM + "\x1b[3;6s\x1b[2;4H\x1b[2M")) == [
        "a" * 10, "bbddddbbbb", "cceeeecccc", "dd    dddd", "ee    eeee"]
    # IL/DL from outside the margins do nothing (xterm's InsertLine).
    assert rows_of(feed(FILL + LRMM + "\x1b[3;6s\x1b[2;8H\x1b[L")) == [
        "a" * 10, "b" * 10, "c" * 10, "d" * 10, "e" * 10]


def test_ich_and_dch_stop_at_the_right_margin() -> None:
    assert rows_of(feed("0123456789" + LRMM + "\x1b[3;6s\x1b[1;4H\x1b[@")) == ["012 346789"]
    assert rows_of(feed("0123456789" + LRMM + "\x1b[3;6s\x1b[1;4H\x1b[P")) == ["01245 6789"]
    # Outside the margins, nothing moves (xterm's InsertChar, DeleteChar).
    assert rows_of(feed("0123456789" + LRMM + "\x1b[3;6s\x1b[1;8H\x1b[P")) == ["0123456789"]


def test_text_wraps_at_the_right_margin_to_the_left_margin() -> None:
    term = feed(LRMM + "\x1b[3;6s\x1b[1;3HABCDEFG")
    assert rows_of(term) == ["  ABCD", "  EFG"]
    assert cursor(term) == (1, 5)
    # The wrap is pending on the margin column: CR from there, no wrap.
    term = feed(LRMM + "\x1b[3;6s\x1b[1;3HABCD\rX")
    assert rows_of(term) == ["  XBCD"]
    # Right of the right margin, text goes on to the screen's edge.
    term = feed(LRMM + "\x1b[3;6s\x1b[1;8HABCD")
    assert rows_of(term) == ["       ABC", "  D"]


def test_cr_goes_to_the_left_margin_or_column_0_from_left_of_it() -> None:
    assert cursor(feed(LRMM + "\x1b[3;6s\x1b[2;5H\r")) == (1, 2)
    assert cursor(feed(LRMM + "\x1b[3;6s\x1b[2;9H\r")) == (1, 2)
    assert cursor(feed(LRMM + "\x1b[3;6s\x1b[2;2H\r")) == (1, 0)


def test_origin_mode_addresses_the_rectangle() -> None:
    term = feed(LRMM + "\x1b[2;4r\x1b[3;6s\x1b[?6h\x1b[2;2HX\x1b[9;9HY\x1b[6n")
    assert rows_of(term)[2] == "   X"
    assert rows_of(term)[3] == "     Y"
    assert term.feed(b"\x1b[6n") == b"\x1b[3;4R"


def test_csi_s_is_scosc_without_declrmm_and_decslrm_with_it() -> None:
    term = feed("\x1b[2;3H\x1b[s\x1b[5;5H\x1b[u")
    assert cursor(term) == (1, 2)
    term = feed(LRMM + "\x1b[2;3H\x1b[s\x1b[5;5H\x1b[u")  # margins reset: no save
    assert cursor(term) == (0, 0)
    # The same bytes met before mean the other thing once the mode changes.
    term = feed(LRMM + "\x1b[s\x1b[?69l\x1b[3;3H\x1b[s\x1b[1;1H\x1b[u")
    assert cursor(term) == (2, 2)
    # With parameters and without DECLRMM, nothing (xterm's only_default()).
    term = feed("\x1b[3;3H\x1b[2;5s\x1b[1;1H\x1b[u")
    assert cursor(term) == (0, 0)


def test_mode_and_margin_reports_and_resets() -> None:
    term = Terminal(10, 5)
    assert term.feed(b"\x1b[?69$p") == b"\x1b[?69;2$y"
    assert term.feed(LRMM.encode() + b"\x1b[?69$p") == b"\x1b[?69;1$y"
    assert term.feed(b"\x1b[3;6s\x1bP$qs\x1b\\") == b"\x1bP1$r3;6s\x1b\\"
    term.feed(b"\x1b[?69l" + LRMM.encode())  # resetting the mode forgets them
    assert term.feed(b"\x1bP$qs\x1b\\") == b"\x1bP1$r1;10s\x1b\\"
    term.feed(b"\x1b[3;6s\x1b[!p")  # DECSTR resets both (xterm's ReallyReset)
    assert term.feed(b"\x1b[?69$p\x1bP$qs\x1b\\") == b"\x1b[?69;2$y\x1bP1$r1;10s\x1b\\"
    term.feed(LRMM.encode() + b"\x1b[3;6s\x1bc")
    assert term.feed(b"\x1b[?69$p") == b"\x1b[?69;2$y"


# Streams with margins: fed whole with every fast path on, and a byte at a
# time with every one off, the two terminals must agree.
_PIECES = st.sampled_from([
    LRMM, "\x1b[?69l", "\x1b[3;7s", "\x1b[2;5s", "\x1b[s", "\x1b[u", "\x1b[2;4r", "\x1b[r",
    "\r\n", "\n", "\r", "\x1bM", "\x1bE", "\x1b[S", "\x1b[2T", "\x1b[L", "\x1b[M", "\x1b[2@",
    "\x1b[P", "\x1b[3X", "\x1b[3;4H", "\x1b[9;1H", "\x1b[?6h", "\x1b[?6l", "\x1b[?7l",
    "\x1b[?7h", "\x08", "\t", "\x1b[41m", "\x1b[m", "é", "世", "e\u0301", "\x1b[3b",
    "abcdefghij" * 3, "xyz", "line of text\r\n" * 3, "\x1b[6n",
])


def _run(data: bytes, chunked: bool) -> tuple[object, ...]:
    term = Terminal(12, 6)
    if chunked:
        term.fast_lines = False
        term._screen._segments.enabled = False
        term._dispatch.fuse_runs = False
        term._dispatch.keep_queries = False
        replies = b"".join(term.feed(data[i:i + 1]) for i in range(len(data)))
    else:
        replies = term.feed(data)
    snap = term.screen
    assert not [k for k in term.unknown if k.startswith("error")], term.unknown
    return (snap.lines, [snap.row_cells(y) for y in range(term.rows)], snap.cursor, replies,
            term._screen.lr_margins)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=40))
def test_margins_whole_and_byte_at_a_time_agree(pieces: list[str]) -> None:
    data = "".join(pieces).encode()
    assert _run(data, chunked=False) == _run(data, chunked=True)


def test_margin_streams_reach_the_margin_paths() -> None:
    """The property above is about margins: a stream of its pieces does
    scroll between them (else the comparison would be vacuous)."""
    term = feed(FILL + LRMM + "\x1b[3;7s\x1b[5;4H" + "line of text\r\n" * 3, cols=12, rows=5)
    assert term._screen.lr_margins == (2, 6)
    assert rows_of(term)[0].startswith("aa") and rows_of(term)[0] != "a" * 10


# Real tmux, run by termsim: panes of a vertical and a horizontal split
# scroll between margins, and each must look as tmux itself says.
_TMUX = shutil.which("tmux")
#: Each pane's program: prints the lines it is asked for, echo off, so
#: each step is a few lines that tmux scrolls (a burst taller than the pane
#: is redrawn instead).
_PANE = "stty -echo; while read a b; do seq $a $b; echo done $b; done"


@pytest.mark.skipif(_TMUX is None, reason="tmux is not installed")
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_tmux_split_panes_match_capture_pane(tmp_path: Path, anyio_backend: str) -> None:
    assert _TMUX is not None
    sock = str(tmp_path / "sock")

    def tmux(*args: str) -> str:
        return subprocess.run([_TMUX, "-S", sock, *args], capture_output=True, text=True,
                              check=True, timeout=20).stdout

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    argv = [_TMUX, "-u", "-S", sock, "-f", "/dev/null", "new-session", "-x", "80", "-y", "24",
            _PANE, ";", "set", "-g", "status", "off",
            ";", "split-window", "-h", _PANE, ";", "split-window", "-v", _PANE]
    try:
        async with termsim.spawn(argv, cols=80, rows=24, env=env) as term:
            # The third pane exists once its border is drawn.
            await term.wait_for(Text("├"), timeout=20)
            panes = []
            for line in tmux("list-panes", "-F",
                             "#{pane_id} #{pane_left} #{pane_top} #{pane_width} "
                             "#{pane_height}").split("\n"):
                if line:
                    pane, *box = line.split()
                    left, top, width, height = map(int, box)
                    panes.append((pane, Region.rect(top, left, top + height, left + width)))
            assert len(panes) == 3
            assert {r.left for _, r in panes} == {0, 41}  # a vertical split
            assert {r.top for _, r in panes} == {0, 13}  # and a horizontal one
            for step in range(12):
                for n, (pane, region) in enumerate(panes):
                    start = 1000 * n + 5 * step
                    tmux("send-keys", "-t", pane, f"{start} {start + 3}", "Enter")
                    await term.wait_for(Text(f"done {start + 3}", region=region), timeout=20)
            snap = term.screen
            for pane, region in panes:
                top, bottom, _, _ = region.bounds(snap)
                captured = [row.rstrip() for row in
                            tmux("capture-pane", "-p", "-t", pane).split("\n")[:bottom - top]]
                assert region.lines(snap) == captured, pane
            # What the panes scrolled past is below each other's border.
            assert "─" * 39 in snap.lines[12]
            assert all(line[40] in "│├" for line in snap.lines)
    finally:
        _kill_server(_TMUX, sock)


def _kill_server(tmux: str, sock: str) -> None:
    subprocess.run([tmux, "-S", sock, "kill-server"], capture_output=True, timeout=20)
