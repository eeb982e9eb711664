"""A combining mark after BS, and DEC line drawing, as xterm draws them.

* A combining mark right after BS or CUB joins the cell the cursor is on, as
  in xterm (a cursor move clears its ``char_was_written``, and ``doparsing``
  then puts the mark on ``cur_col``): on three columns, ``abc`` BS U+0301 is
  ``ab́c``, as in xterm and tmux (tmux's BS from the pending wrap lands on
  the last column and it joins the cell before its cursor: the same cell).
* DEC Special Graphics (``ESC ( 0``) as xterm's ``map_DEC_Spec_Graphic``
  and the VT100 draw it: ``h`` is the symbol for newline (U+2424), ``_`` a
  blank (0x5F is left undefined: an empty cell); pyte's table is the Linux
  console's (a shade, a no-break space).
"""

from __future__ import annotations

import unicodedata

import pytest

from termsim.emulator import Emulation, Terminal


def line(data: bytes, cols: int, emulation: Emulation | None = None) -> str:
    """The row, decomposed (termsim keeps a mark composed where Unicode can)."""
    term = Terminal(cols, 1, emulation=emulation)
    term.feed(data)
    return unicodedata.normalize("NFD", term.screen.lines[0].rstrip())


@pytest.mark.parametrize("backspace", ["xterm", "tmux"])
def test_mark_after_bs_from_a_pending_wrap_joins_the_middle_cell(backspace: str) -> None:
    emulation = Emulation(backspace_at_wrap=backspace)  # type: ignore[arg-type]
    assert line("abc\b\u0301".encode(), 3, emulation) == "ab\u0301c"
    # Byte at a time: the same.
    term = Terminal(3, 1, emulation=emulation)
    for byte in "abc\b\u0301".encode():
        term.feed(bytes([byte]))
    assert unicodedata.normalize("NFD", term.screen.lines[0]) == "ab\u0301c"


def test_mark_after_bs_joins_the_cursor_cell_as_in_xterm() -> None:
    assert line("abc\b\b\u0301".encode(), 5) == "ab\u0301c"
    assert line("abc\x1b[2D\u0301".encode(), 5) == "ab\u0301c"
    # tmux joins the cell before its cursor.
    assert line("abc\b\b\u0301".encode(), 5, Emulation(backspace_at_wrap="tmux")) == "a\u0301bc"


def test_mark_after_text_still_joins_the_character_before() -> None:
    assert line("ab\bx\u0301".encode(), 5) == "ax\u0301"
    assert line("abc\x1b[1m\u0301".encode(), 5) == "abc\u0301"
    assert line("abc\u0301".encode(), 3) == "abc\u0301"  # from a pending wrap


def test_mark_after_text_that_came_back_to_where_bs_left_the_cursor() -> None:
    """Text written after BS ends what BS did to the next mark, even when the
    cursor comes back to the very cell BS left it on (xterm's dotext sets
    ``char_was_written`` again): the mark joins the character written
    before it. Found by the xterm oracle: termsim once joined the mark to
    the cursor's cell whenever the cursor stood where a BS had left it, on
    one row wrapped and scrolled (the 8 comes back to column 0), after a
    move to the BS's row (CNL), and the slow and fast ways of drawing alike."""
    assert line(b"[a\b;a-a8\xcc\xa3", 5) == "8\u0323"
    assert line("aa\b\x1b[E\u00e9\u0301".encode(), 3) == unicodedata.normalize(
        "NFD", "\u00e9\u0301a")
    assert line("aa\b\x1b[Ex\u0301".encode(), 3) == "x\u0301a"


def test_dec_line_drawing_h_and_underscore_as_xterm() -> None:
    assert line(b"\x1b(0h_q\x1b(B", 5) == "\u2424 \u2500"
    term = Terminal(5, 1)
    term.feed(b"\x1b(0_")
    assert term.screen.row_cells(0)[0].char == " "
    assert term.screen.lines[0] == " " * 5


# XTSAVE/XTRESTORE (CSI ? Pm s / CSI ? Pm r): mc saves the mouse modes so.


def test_xtsave_and_xtrestore_private_modes() -> None:
    term = Terminal(10, 3)
    term.feed(b"\x1b[?1000h\x1b[?25l\x1b[?1000;25;1049;7s")
    term.feed(b"\x1b[?1000l\x1b[?25h\x1b[?1049h\x1b[?7l")
    assert term._screen.alternate
    term.feed(b"\x1b[?1000;25;1049;7r")
    modes = {m >> 5 for m in term._screen.mode}
    assert {1000, 7} <= modes and not {25, 1049} & modes
    assert not term._screen.alternate and not term.screen.cursor.visible
    assert not term.unknown
    # A mode never saved stays as it is; CSI s without "?" is still SCOSC.
    term.feed(b"\x1b[?2004h\x1b[?2004r\x1b[2;3H\x1b[s\x1b[H\x1b[u")
    assert 2004 << 5 in term._screen.mode
    assert (term.screen.cursor.row, term.screen.cursor.col) == (1, 2)


# The palette: OSC 4 queried and set, OSC 104 reset, answered at the byte.


def test_palette_query_is_xterms_default_palette() -> None:
    term = Terminal(10, 3)
    assert term.feed(b"\x1b]4;1;?\x07") == b"\x1b]4;1;rgb:cdcd/0000/0000\x07"
    assert term.feed(b"\x1b]4;12;?;196;?;244;?\x1b\\") == (
        b"\x1b]4;12;rgb:5c5c/5c5c/ffff\x1b\\\x1b]4;196;rgb:ffff/0000/0000\x1b\\"
        b"\x1b]4;244;rgb:8080/8080/8080\x1b\\")
    assert [q.kind for q in term.queries] == ["osc-palette", "osc-palette"]


def test_palette_set_reset_and_answered_where_asked() -> None:
    term = Terminal(10, 3)
    replies = term.feed(b"\x1b]4;1;?\x07\x1b]4;1;rgb:12/34/56\x07\x1b]4;1;?\x07"
                        b"\x1b]4;2;#abc;2;?\x07\x1b]104;1\x07\x1b]4;1;?;2;?\x07"
                        b"\x1b]104\x07\x1b]4;2;?\x07")
    assert replies == (
        b"\x1b]4;1;rgb:cdcd/0000/0000\x07\x1b]4;1;rgb:1212/3434/5656\x07"
        b"\x1b]4;2;rgb:a000/b000/c000\x07"
        b"\x1b]4;1;rgb:cdcd/0000/0000\x07\x1b]4;2;rgb:a000/b000/c000\x07"
        b"\x1b]4;2;rgb:0000/cdcd/0000\x07")
    assert not term.unknown
