"""Modes a profile's terminal offers beyond termsim's xterm: SGR-pixel mouse
reports (1016), colour-scheme reports (2031) and in-band resize reports
(2048).

kitty, Ghostty, WezTerm and xterm.js report some of them as settable
(DECRQM 2, ``profiles.py``). A program believes that answer: it sets the
mode and then reads pixel coordinates from a click, or waits for a size
report after a resize. So under such a profile termsim keeps the mode,
reports it as the program left it, and behaves as the terminal does;
under a profile without it the mode is ignored, as that terminal ignores
it. The real program is ``tests/programs/mouse_echo.py``, which sets the
modes it is given and prints each read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import program

import termsim
from termsim import Regex, Text
from termsim.emulator import Terminal

pytestmark = pytest.mark.anyio


def _decrqm(term: Terminal, mode: int) -> bytes:
    return term.feed(f"\x1b[?{mode}$p".encode())


@pytest.mark.parametrize("mode", [1016, 2031, 2048])
def test_decrqm_reports_a_settable_mode_as_the_program_left_it(mode: int) -> None:
    term = Terminal(20, 5, profile="kitty")
    assert _decrqm(term, mode) == f"\x1b[?{mode};2$y".encode()
    term.feed(f"\x1b[?{mode}h".encode())
    assert _decrqm(term, mode) == f"\x1b[?{mode};1$y".encode()
    term.feed(f"\x1b[?{mode}l".encode())
    assert _decrqm(term, mode) == f"\x1b[?{mode};2$y".encode()
    assert not term.unknown  # kept, not an unknown sequence


@pytest.mark.parametrize(("profile", "mode", "state"), [
    ("xterm", 1016, 0), ("xterm", 2031, 0), ("xterm", 2048, 4),
    ("wezterm", 2031, 0), ("tmux", 2048, 0),
])
def test_a_profile_without_the_mode_ignores_it(profile: str, mode: int, state: int) -> None:
    term = Terminal(20, 5, profile=profile)
    set_reply = term.feed(f"\x1b[?{mode}h".encode())
    assert set_reply == b""  # no size report either
    assert _decrqm(term, mode) == f"\x1b[?{mode};{state}$y".encode()
    assert term.resize(30, 6) == b""


def test_the_size_report_goes_out_at_the_byte_that_asked_for_it() -> None:
    term = Terminal(20, 5, profile="ghostty")
    # Before the CPR that follows it, as the terminal reads them in order.
    assert term.feed(b"\x1b[?2048h\x1b[6n") == b"\x1b[48;5;20;100;200t\x1b[1;1R"
    assert term.resize(30, 6) == b"\x1b[48;6;30;120;300t"
    term.feed(b"\x1b[?2048l")
    assert term.resize(20, 5) == b""


def test_sgr_pixels_replaces_sgr_and_sgr_replaces_it_back() -> None:
    term = Terminal(20, 5, profile="kitty")
    term.feed(b"\x1b[?1000h\x1b[?1006h\x1b[?1016h")
    assert term.modes.mouse_encoding == "sgr-pixels"
    term.feed(b"\x1b[?1006h")
    assert term.modes.mouse_encoding == "sgr"
    term.feed(b"\x1b[?1016h\x1b[?1016l")
    assert term.modes.mouse_encoding is None


async def _resize_story(term: termsim.Driver) -> str:
    await term.wait_for(Text(r"READ b'\x1b[48;24;80;480;800t'"), timeout=10)
    resized = await term.resize(100, 30)
    await term.wait_for(Text(r"READ b'\x1b[48;30;100;600;1000t'"), since=resized, timeout=10)
    await term.press("q")
    assert await term.wait_exit(timeout=10) == 0
    return term.screen.text


async def test_a_program_that_sets_2048_gets_the_size_then_each_resize(tmp_path: Path) -> None:
    path = tmp_path / "inband.tsr"
    async with termsim.spawn(program("mouse_echo.py", "2048"), profile="kitty",
                             record=path) as term:
        live = await _resize_story(term)
    # Replayed, the same test passes on the recorded reports.
    async with termsim.replay(path) as replayed:
        assert await _resize_story(replayed) == live


async def test_under_xterm_2048_brings_no_report() -> None:
    async with termsim.spawn(program("mouse_echo.py", "2048")) as term:
        await term.wait_for(Text("READY"), timeout=10)
        await term.resize(100, 30)
        await term.press("x")
        # The key's read is the first: nothing came before it.
        snap = await term.wait_for(Regex(r"READ b'x'"), timeout=10)
        assert "48;" not in snap.text
        await term.press("q")
        assert await term.wait_exit(timeout=10) == 0


@pytest.mark.parametrize(("profile", "expected"), [
    # Column 3, row 2 of 10x20-pixel cells: the centre is (35, 50), 0-based.
    ("kitty", r"READ b'\x1b[<0;35;50M\x1b[<0;35;50m'"),
    # xterm's profile has no 1016: the program gets SGR cells, 1-based.
    ("xterm", r"READ b'\x1b[<0;4;3M\x1b[<0;4;3m'"),
])
async def test_a_click_under_sgr_pixels_is_in_pixels(profile: str, expected: str) -> None:
    async with termsim.spawn(program("mouse_echo.py", "1000", "1006", "1016"),
                             profile=profile) as term:
        await term.wait_for(Text("READY"), timeout=10)
        mark = await term.click(2, 3)
        await term.wait_for(Text(expected), since=mark, timeout=10)
        await term.press("q")
        assert await term.wait_exit(timeout=10) == 0


@pytest.mark.parametrize(("profile", "left"), [
    ("kitty", ["colour-scheme-reports", "inband-resize-reports", "mouse-normal",
               "mouse-sgr-pixels"]),
    # xterm ignores the three: only tracking is left on.
    ("xterm", ["mouse-normal"]),
])
def test_hygiene_names_the_offered_modes_left_on(profile: str, left: list[str]) -> None:
    term = Terminal(20, 5, profile=profile)
    term.feed(b"\x1b[?1000h\x1b[?1016h\x1b[?2031h\x1b[?2048h")
    assert sorted(leftover.key for leftover in term.leftovers()) == left
