"""Bytes that are not UTF-8, drawn as xterm draws them (``Emulation.invalid_utf8``).

xterm reads a lead byte and the continuation bytes it announces as one
sequence, and draws one U+FFFD for it when it is no character (real xterm
shows it: ``tests/test_xterm_oracle.py``); the Unicode Standard's way, one
per maximal subpart, is the other choice (the ghostty profile's). A
program can tell them apart: the cursor moves one column per U+FFFD. Every
case is fed whole, byte by byte and split at every offset
(``helpers.feed_split``): a sequence cut across reads is still one.
"""

from __future__ import annotations

import pytest
from helpers import feed_split

from termsim.emulator import Emulation, Terminal
from termsim.emulator.terminals.profiles import PROFILES

UNICODE = Emulation(invalid_utf8="unicode")

#: bytes -> (what xterm draws, what one U+FFFD per maximal subpart draws)
CASES = {
    b"\xe0\x80\xafx": ("\ufffdx", "\ufffd\ufffd\ufffdx"),  # an overlong form
    b"\xc0\xafx": ("\ufffdx", "\ufffd\ufffdx"),  # an overlong two-byte form
    b"\xed\xa0\x80x": ("\ufffdx", "\ufffd\ufffd\ufffdx"),  # a surrogate
    b"\xf4\x90\x80\x80x": ("\ufffdx", "\ufffd" * 4 + "x"),  # past U+10FFFF
    b"\xf8\x88\x80\x80\x80x": ("\ufffdx", "\ufffd" * 5 + "x"),  # a five-byte form
    b"\xfc\x84\x80\x80\x80\x80x": ("\ufffdx", "\ufffd" * 6 + "x"),  # a six-byte form
    b"\xe2\x82x": ("\ufffdx", "\ufffdx"),  # cut short by a character: the same
    b"\xe2\x82\xe2\x82\xacx": ("\ufffd\u20acx", "\ufffd\u20acx"),  # cut short by a lead
    b"\x80\xbfx": ("\ufffd\ufffdx", "\ufffd\ufffdx"),  # stray continuation bytes
    b"\xfe\xffx": ("\ufffd\ufffdx", "\ufffd\ufffdx"),
    b"\xf8\x88\x80\xc3\xa9": ("\ufffd\u00e9", "\ufffd\ufffd\ufffd\u00e9"),
}


@pytest.mark.parametrize("data", CASES, ids=[d.hex() for d in CASES])
def test_one_replacement_a_sequence_as_xterm_reads_it(data: bytes) -> None:
    term, _ = feed_split(data, 10, 1)
    assert term.screen.lines[0].rstrip() == CASES[data][0]
    assert term.screen.cursor.col == len(CASES[data][0])


@pytest.mark.parametrize("data", CASES, ids=[d.hex() for d in CASES])
def test_one_per_maximal_subpart_the_unicode_way(data: bytes) -> None:
    term, _ = feed_split(data, 10, 1, emulation=UNICODE)
    assert term.screen.lines[0].rstrip() == CASES[data][1]


def test_the_ghostty_profile_goes_the_unicode_way_and_xterm_s_the_xterm_way() -> None:
    assert PROFILES["ghostty"].emulation.invalid_utf8 == "unicode"
    assert PROFILES["xterm"].emulation.invalid_utf8 == "xterm"


def test_a_query_after_a_sequence_held_across_reads_has_its_byte_offset() -> None:
    """The bytes of a sequence still open at the end of a read wait for the
    next one, counted as not decoded yet: a query after them is logged at
    its own byte, and answered with the cursor after the one U+FFFD."""
    term = Terminal(10, 1)
    assert term.feed(b"ab\xe0\x80") == b""
    assert term.feed(b"\xaf\x1b[6n") == b"\x1b[1;4R"
    (query,) = term.queries
    assert query.offset == 5
    assert term.screen.lines[0].rstrip() == "ab\ufffd"


def test_a_sequence_left_open_is_drawn_once_another_byte_ends_it() -> None:
    term = Terminal(10, 1)
    term.feed(b"\xf8\x88")
    assert term.screen.lines[0].rstrip() == ""  # xterm too waits for the rest
    term.feed(b"x")
    assert term.screen.lines[0].rstrip() == "\ufffdx"
