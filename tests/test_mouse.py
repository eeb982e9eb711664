"""Mouse gestures, encoded as the program asked: checked byte by byte
against xterm's encodings, delivered to a raw-mode program that prints what
it read, and used on a real textual app (its button is pressed, its list
scrolls)."""

from __future__ import annotations

import ast
import re
import sys

import pytest
from conftest import program

import termsim
from termsim import MouseOff, Regex, Text
from termsim.emulator import Terminal
from termsim.emulator.input.mouse import Mouse

pytestmark = pytest.mark.anyio


def mouse(*modes: int, cols: int = 80, rows: int = 24) -> Mouse:
    term = Terminal(cols, rows)
    term.feed(b"".join(b"\x1b[?%dh" % m for m in modes))
    return Mouse(term.modes, term.cols, term.rows)


@pytest.mark.parametrize(("modes", "expected"), [
    ((1000,), b"\x1b[M\x20\x2b\x26" b"\x1b[M\x23\x2b\x26"),  # X10 bytes: 32 + value
    ((1000, 1006), b"\x1b[<0;11;6M\x1b[<0;11;6m"),  # SGR: the release names its button
    ((1000, 1015), b"\x1b[32;11;6M\x1b[35;11;6M"),  # urxvt: decimal, value + 32
    ((1000, 1005), b"\x1b[M\x20\x2b\x26\x1b[M\x23\x2b\x26"),
    ((9,), b"\x1b[M\x20\x2b\x26"),  # X10 mode: the press alone
])
def test_a_left_click_at_row_5_col_10(modes: tuple[int, ...], expected: bytes) -> None:
    assert mouse(*modes).click(5, 10, "left", ()) == expected


def test_buttons_modifiers_and_double_clicks() -> None:
    sgr = mouse(1000, 1006)
    assert sgr.click(0, 0, "right", ()) == b"\x1b[<2;1;1M\x1b[<2;1;1m"
    assert sgr.click(0, 0, "middle", ("shift", "ctrl")) == b"\x1b[<21;1;1M\x1b[<21;1;1m"
    assert sgr.click(1, 2, "left", (), count=2) == b"\x1b[<0;3;2M\x1b[<0;3;2m" * 2
    assert mouse(1000).click(0, 0, "left", ("alt",)) == b"\x1b[M\x28\x21\x21\x1b[M\x2b\x21\x21"


def test_the_wheel_sends_one_report_per_line() -> None:
    assert mouse(1000, 1006).scroll(3, 4, 2, ()) == b"\x1b[<65;5;4M" * 2
    assert mouse(1000, 1006).scroll(3, 4, -1, ()) == b"\x1b[<64;5;4M"
    assert mouse(1000).scroll(0, 0, 1, ()) == b"\x1b[M\x61\x21\x21"


def test_a_drag_reports_motion_only_when_the_program_asked() -> None:
    assert mouse(1002, 1006).drag((0, 0), (0, 2), "left", ()) == (
        b"\x1b[<0;1;1M\x1b[<32;2;1M\x1b[<32;3;1M\x1b[<0;3;1m")
    assert mouse(1000, 1006).drag((0, 0), (0, 2), "left", ()) == b"\x1b[<0;1;1M\x1b[<0;3;1m"


def test_large_screens_need_an_encoding_that_can_carry_them() -> None:
    assert mouse(1000, 1006, cols=400).click(0, 300, "left", ()).startswith(b"\x1b[<0;301;1M")
    assert mouse(1000, 1005, cols=400).click(0, 300, "left", ()) == (
        b"\x1b[M " + chr(32 + 301).encode() + b"!" + b"\x1b[M#" + chr(32 + 301).encode() + b"!")
    with pytest.raises(termsim.ArgumentError, match=r"SGR \(\?1006h\)"):
        mouse(1000, cols=400).click(0, 300, "left", ())


def test_clear_errors() -> None:
    with pytest.raises(MouseOff, match="not enabled mouse reporting"):
        mouse()
    with pytest.raises(termsim.ArgumentError, match="outside the screen"):
        mouse(1000).click(24, 0, "left", ())
    with pytest.raises(termsim.ArgumentError, match="unknown mouse button"):
        mouse(1000).click(0, 0, "thumb", ())
    with pytest.raises(termsim.ArgumentError, match="no wheel"):
        mouse(9).scroll(0, 0, 1, ())


@pytest.mark.parametrize("modes", [("1000",), ("1002", "1006"), ("1003", "1015"),
                                   ("1000", "1005")])
async def test_a_program_reads_exactly_the_report(modes: tuple[str, ...]) -> None:
    async with termsim.spawn(program("mouse_echo.py", *modes), cols=100, rows=30) as term:
        await term.wait_for(Text("READY") & termsim.InputReady())
        expected = Mouse(term.screen.modes, 100, 30).click(7, 42, "left", ())
        mark = await term.click(7, 42)
        snap = await term.wait_for(Regex(r"READ b'.*'"), since=mark)
        shown = re.search(r"READ (b'.*')", snap.text)
        assert shown is not None and ast.literal_eval(shown.group(1)) == expected
        await term.send(b"q")
        assert await term.wait_exit() == 0


async def test_a_click_before_the_program_asks_for_the_mouse_says_so() -> None:
    async with termsim.spawn(["sh", "-c", "echo hi; read x"]) as term:
        await term.wait_for(Text("hi"))
        with pytest.raises(MouseOff):
            await term.click(0, 0)


async def test_a_textual_button_is_pressed_and_its_list_scrolls() -> None:
    pytest.importorskip("textual")
    async with termsim.spawn([sys.executable, str(program("textual_button.py")[1])],
                             cols=60, rows=20, timeout=30) as term:
        # Everything the test clicks on is drawn (textual may draw in steps).
        snap = await term.wait_for(Text("Press me") & Text("pressed 0 times")
                                   & Text("clicks 0, chain 0") & Text("item 00"))
        row = next(i for i, line in enumerate(snap.lines) if "Press me" in line)
        col = snap.lines[row].index("Press me") + 3
        mark = await term.click(row, col)
        await term.wait_for(Text("pressed 1 times"), since=mark)
        row = next(i for i, line in enumerate(snap.lines) if "clicks 0, chain 0" in line)
        mark = await term.click(row, 3, count=2)
        snap = await term.wait_for(Text("clicks 2, chain 2"), since=mark)
        top = next((i for i, line in enumerate(snap.lines) if "item 00" in line), None)
        assert top is not None, snap.render()
        mark = await term.scroll(top, 5, 3)
        await term.wait_for(~Text("item 00") & Regex(r"item [0-9]{2}"), since=mark)
