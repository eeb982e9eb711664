"""Fidelity: where termsim was wrong and xterm (and mostly tmux) agree.

Each case was found by another project's test suite or a real program; the
expectation is xterm's (its ``charproc.c``, ``cursor.c``, ``util.c``), and
tmux's where it agrees (``tests/test_differential.py`` runs both). Where the
two differ, the choice and its reason are in ``docs/differences.md``. Every
byte stream goes through ``helpers.feed_split``, so no result depends on
how the output was cut into reads.
"""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import pytest
from conftest import inherited_env
from helpers import feed_split, query_log

import termsim
from termsim import CursorAfter, InputReady
from termsim.emulator import Emulation, Terminal
from termsim.events import Event, Output
from termsim.files import Recording

pytestmark = pytest.mark.anyio


def screen(data: bytes, cols: int = 10, rows: int = 4, **kw: object) -> list[str]:
    term, _ = feed_split(data, cols, rows, **kw)  # type: ignore[arg-type]
    return [line.rstrip() for line in term.screen.lines]


def cells(term: Terminal, row: int) -> list[tuple[str, bool]]:
    snap = term.screen
    return [(snap.cell(row, col).char, snap.cell(row, col).style.reverse)
            for col in range(snap.cols) if snap.cell(row, col).char.strip()]


# -- CAN and SUB ------------------------------------------------------------------


@pytest.mark.parametrize("abort", [b"\x18", b"\x1a"])
def test_CAN_and_SUB_abort_a_CSI_with_an_intermediate_before_its_parameters(
    abort: bytes,
) -> None:
    # An intermediate then a parameter puts the parser in "CSI ignore":
    # nothing of the sequence is printed, whatever ends it.
    assert screen(b"ab\x1b[*2;" + abort + b"cd")[0] == "abcd"


def test_a_CSI_in_the_ignore_state_ends_at_its_final_byte_unprinted() -> None:
    assert screen(b"ab\x1b[*2;cd")[0] == "abd"  # "c" is the final byte
    assert screen(b"ab\x1b[ 1;2\nmx")[:2] == ["ab", "  x"]  # LF still runs inside


# -- DECCOLM ----------------------------------------------------------------------


CLEARS = Emulation(column_mode="clear")


@pytest.mark.parametrize("mode", [b"h", b"l"])
def test_DECCOLM_does_nothing_as_in_a_default_xterm(mode: bytes) -> None:
    """xterm's ``srm_DECCOLM`` acts only with ``allowC132``, off by default
    (real xterm agrees: ``test_xterm_oracle.py``)."""
    term, _ = feed_split(b"abc\r\ndef\x1b[?3" + mode + b"X", 10, 4)
    assert [line.rstrip() for line in term.screen.lines] == ["abc", "defX", "", ""]


@pytest.mark.parametrize("mode", [b"h", b"l"])
def test_DECCOLM_clears_the_screen_and_homes_the_cursor_where_it_is_allowed(mode: bytes) -> None:
    term, _ = feed_split(b"abc\r\ndef\x1b[?3" + mode + b"X", 10, 4, emulation=CLEARS)
    assert [line.rstrip() for line in term.screen.lines] == ["X", "", "", ""]
    assert term.cols == 10  # the size stays: the PTY says what it is


def test_DECCOLM_homes_to_the_top_margin_under_origin_mode_and_keeps_the_margins() -> None:
    assert screen(b"\x1b[2;3r\x1b[?6h\x1b[?3lX", emulation=CLEARS)[:2] == ["", "X"]
    # The region still scrolls alone: LF at its bottom leaves row 4 alone.
    assert screen(b"\x1b[2;3r\x1b[?3l\x1b[4;1Hz\x1b[3;1Hy\n",
                  emulation=CLEARS) == ["", "y", "", "z"]


# -- the visual bell ------------------------------------------------------------------


def test_a_visual_bell_keeps_the_reverse_video_the_program_drew() -> None:
    term, _ = feed_split(b"a\x1b[7mb\x1b[27mc\x1b[?5h\x1b[?5ld", 10, 2)
    assert cells(term, 0) == [("a", False), ("b", True), ("c", False), ("d", False)]


def test_under_DECSCNM_the_screen_shows_inverted_and_comes_back_whole() -> None:
    term, _ = feed_split(b"a\x1b[7mb\x1b[?5hc\x1b[7md\x1b[0me", 10, 2)
    # While the mode is on, every cell shows inverted; SGR 7 then shows normal.
    assert cells(term, 0) == [("a", True), ("b", False), ("c", False), ("d", False),
                              ("e", True)]
    term.feed(b"\x1b[?5lf")
    assert cells(term, 0) == [("a", False), ("b", True), ("c", True), ("d", True),
                              ("e", False), ("f", False)]


async def test_readline_visible_bell_leaves_a_reverse_video_prompt(tmp_path: Path) -> None:
    """bash with ``bell-style visible`` flashes (terminfo ``flash``:
    ``ESC[?5h``, then ``ESC[?5l``) on a backspace at an empty line; the
    flash used to wipe the prompt's reverse video."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    (tmp_path / "inputrc").write_text("set bell-style visible\n")
    env = inherited_env()
    env.update(HOME=str(tmp_path), INPUTRC=str(tmp_path / "inputrc"),
               PS1="\\[\\e[7m\\]>\\[\\e[0m\\] ", TERM="xterm-256color")
    output: list[bytes] = []

    def keep(event: Event) -> None:
        if isinstance(event, Output):
            output.append(event.data)

    async with termsim.spawn([bash, "--norc", "--noprofile", "-i"], env=env,
                             cwd=tmp_path) as term:
        term.listeners.append(keep)
        await term.wait_for(CursorAfter("> ") & InputReady())
        await term.press("backspace")  # nothing to erase: the bell
        mark = await term.type("x")
        snap = await term.wait_for(CursorAfter("> x"), since=mark)
        assert b"\x1b[?5l" in b"".join(output), "readline did not flash"
        assert snap.cell(snap.cursor.row, 0).char == ">"
        assert snap.cell(snap.cursor.row, 0).style.reverse


# -- tab stops -------------------------------------------------------------------------


def test_tab_stops_set_by_the_program_survive_a_resize() -> None:
    term, _ = feed_split(b"\x1b[3g\x1b[5G\x1bH\r", 20, 2)  # `tabs 5`: one stop
    term.resize(30, 2)
    term.feed(b"\tA\tB")
    # The stop at 4 stays, 8 and 16 stay cleared; the new columns get 24.
    assert term.screen.lines[0].rstrip() == "    A" + " " * 19 + "B"


def test_DECST8C_puts_a_stop_every_eight_columns_back() -> None:
    assert screen(b"\x1b[3g\x1b[?5W\tA", 20, 2)[0] == "        A"


# -- text ---------------------------------------------------------------------------


def test_REP_after_a_marked_character_and_another_repeats_the_other_in_any_read() -> None:
    # The mark joined the character before; the last one drawn is the b.
    term, _ = feed_split("e\u0301b\x1b[b|".encode())
    assert term.screen.lines[0].rstrip() == "\u00e9bb|"


def test_the_UK_set_has_a_pound_sign_for_the_hash() -> None:
    assert screen(b"\x1b(Aa#\x1b(B#")[0] == "a\u00a3#"


def test_HPB_and_VPB_move_back_and_up() -> None:
    assert screen(b"\r\n12345\x1b[2jX\x1b[1kY")[:2] == ["    Y", "123X5"]



@pytest.mark.parametrize(("size", "data", "cursor"), [
    # Past the bottom margin, and the right one (DECSLRM), as VPA and HPA go.
    ((2, 3), b"\x1b[;2r\x1b[B\x1b[e", (2, 0)),
    ((6, 2), b"\x1b[?69h\x1b[2;4sab\x1b[5a", (0, 5)),
    # Under origin mode, counted from the margins and stopped by them.
    ((4, 5), b"\x1b[2;3r\x1b[?6h\x1b[3e", (2, 0)),
    ((6, 2), b"\x1b[?69h\x1b[2;4s\x1b[?6h\x1b[a", (0, 2)),
    # From a pending wrap: from the last column, and the wrap ends.
    ((3, 2), b"abc\x1b[ax", (0, 2)),
], ids=["vpr-past-margin", "hpr-past-margin", "vpr-origin", "hpr-origin", "hpr-at-wrap"])
def test_VPR_and_HPR_move_as_VPA_and_HPA_do_not_as_CUD_and_CUF(
    size: tuple[int, int], data: bytes, cursor: tuple[int, int],
) -> None:
    """xterm's CASE_VPR and CASE_HPR call CursorSet, as VPA and HPA do: the
    screen's edge stops them, not the margins CUD and CUF stop at (the
    xterm oracle found it; Ghostty agrees)."""
    term, _ = feed_split(data, *size)
    snap = term.screen
    assert (snap.cursor.row, snap.cursor.col) == cursor


@pytest.mark.parametrize(("data", "shown"), [
    ("e\u0301\x1b[b", ["\u00e9e"]),
    ("e\u0301\u0302\x1b[2b", ["e\u0301\u0302ee"]),
])
def test_REP_repeats_the_base_character_without_its_marks(data: str, shown: list[str]) -> None:
    """xterm's ``lastchar`` is the last base character ``dotext`` wrote
    (marks go to ``addXtermCombining``); real xterm draws these so. Ghostty
    too, and with clusters on it repeats a cluster's first code point."""
    got = screen(data.encode(), cols=6, rows=1)
    assert [unicodedata.normalize("NFC", line) for line in got] == [
        unicodedata.normalize("NFC", line) for line in shown]


def test_REP_after_a_cluster_repeats_its_first_code_point_as_ghostty_does() -> None:
    family = "\U0001f468\u200d\U0001f469"
    term, _ = feed_split(f"{family}\x1b[b".encode(), 8, 1,
                         emulation=Emulation(graphemes=True))
    assert term.screen.lines[0].rstrip() == family + "\U0001f468"


def test_DECALN_turns_the_rendition_off_and_keeps_the_colours() -> None:
    """xterm's CASE_DECALN calls ``resetRendition``: the next character is
    drawn red, not bold nor underlined (real xterm: SGR 31 alone)."""
    term, _ = feed_split(b"\x1b[1;4;31m\x1b#8a", 3, 1)
    style = term.screen.cell(0, 0).style
    assert (style.fg, style.bold, style.underline) == ("red", False, False)
    # Under the reverse screen (DECSCNM), reverse is off too once it ends.
    term, _ = feed_split(b"\x1b[?5h\x1b[7m\x1b#8\x1b[?5la", 3, 1)
    assert term.screen.cell(0, 0).style.reverse is False


def test_SD_0_is_mouse_tracking_and_scrolls_nothing() -> None:
    """xterm's CASE_TRACK_MOUSE: ``CSI 0 T`` (or more than one parameter)
    is mouse highlight tracking, not a scroll; Ghostty agrees. ``CSI T``
    scrolls one row."""
    term, _ = feed_split(b"a\x1b[0T", 2, 2)
    assert term.screen.lines == ("a ", "  ") and term.unknown["CSI T"] == 1
    assert screen(b"a\x1b[T", 2, 2) == ["", "a"]

# -- selective erase (DECSCA, DECSED, DECSEL) --------------------------------------------


def test_selective_erase_leaves_protected_cells() -> None:
    # "cd" and "gh" drawn under DECSCA 1 (SGR changes keep it); DECSED 2 erases the rest.
    data = b'ab\x1b[1"qc\x1b[1md\x1b[0"q\x1b[mef\r\n\x1b[1"qgh\x1b[2"qij\x1b[?2J'
    assert screen(data)[:2] == ["  cd", "gh"]
    assert screen(b'ab\x1b[1"qcd\x1b[0"qef\x1b[1;4H\x1b[?1K')[0] == "  cdef"
    assert screen(b'ab\x1b[1"qcd\x1b[0"qef\x1b[?K')[0] == "abcdef"  # from the cursor


def test_selective_erase_blanks_a_wide_character_it_cuts_whole() -> None:
    """As EL does (xterm's ClearInLine2 goes through ClearCells' checks;
    Ghostty's eraseLine too): one half of a two-column character erased
    blanks both, and no half is left behind. A protected one stays whole."""
    wide = "\u4e2d".encode()
    for data, left in [
        (wide + b"a\r\x1b[?1K", "  a "),  # the left half erased: both go
        (wide + b"a\x1b[1;2H\x1b[?K", "    "),  # from the right half on
        (b"x" + wide + b"\x1b[1;2H\x1b[?1K", "    "),  # up to the left half
        (wide + b"a\r\x1b[?1J", "  a "),  # DECSED as DECSEL
    ]:
        term, _ = feed_split(data, 4, 1)
        assert "".join(term.screen.cell(0, c).char for c in range(4)) == left, data
    kept = b'\x1b[1"q' + wide + b'\x1b[0"qa\r\x1b[?1K'
    assert screen(kept, 4, 1) == ["\u4e2da"]


def test_ED_and_EL_erase_protected_cells_too() -> None:
    assert screen(b'ab\x1b[1"qcd\x1b[0"qef\x1b[2K')[0] == ""
    assert screen(b'ab\x1b[1"qcd\x1b[2J')[0] == ""


def test_DECRQSS_reports_the_protection_and_DECSTR_ends_it() -> None:
    term, replies = feed_split(b'\x1b[1"q\x1bP$q"q\x1b\\\x1b[!p\x1bP$q"q\x1b\\')
    assert replies == b'\x1bP1$r1"q\x1b\\\x1bP1$r0"q\x1b\\'
    assert [q.kind for q in term.queries] == ["decrqss", "decrqss"]
    assert query_log(term)[0][2] == 5


def test_a_protected_cell_is_not_equal_to_the_same_unprotected_one() -> None:
    # Caches keyed by attributes must keep the two apart: the second "x"
    # is drawn from the glyph table of the unprotected pen.
    assert screen(b'\x1b[1"qx\x1b[0"qx\x1b[?2K')[0] == "x"


# -- where terminals disagree: Emulation ----------------------------------------------------


def test_emulation_options_are_checked() -> None:
    with pytest.raises(ValueError, match="backspace_at_wrap"):
        Emulation(backspace_at_wrap="kitty")  # type: ignore[arg-type]


def test_emulation_from_a_header_keeps_what_it_knows() -> None:
    assert Emulation.from_header({"backspace_at_wrap": "tmux", "future": 1}) == \
        Emulation(backspace_at_wrap="tmux")
    assert Emulation.from_header({"backspace_at_wrap": 3}) == Emulation()
    assert Emulation.from_header("garbage") == Emulation()
    assert Emulation().to_header() == {}


async def test_the_emulation_is_recorded_and_replayed(tmp_path: Path) -> None:
    path = tmp_path / "s.tsr"
    printf = ["printf", r"0123456789\bX\n"]
    async with termsim.spawn(printf, cols=10, rows=3, record=path,
                             emulation=Emulation(backspace_at_wrap="tmux")) as term:
        assert await term.wait_exit() == 0
        live = term.screen.lines
    assert live[0] == "012345678X"  # tmux's choice, not xterm's "01234567X9"
    recording = Recording.open(path)
    assert recording.header["emulation"] == {"backspace_at_wrap": "tmux"}
    async with termsim.replay(path) as replayed:
        await replayed.wait_exit()
        assert replayed.screen.lines == live


# -- grapheme clusters (mode 2027), an option ------------------------------------------

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl


@pytest.mark.parametrize(
    ("text", "clustered", "per_code_point"),
    [
        (FAMILY, 2, 6),
        # A flag: two regional indicators, each one column alone (xterm).
        ("\U0001f1eb\U0001f1f7", 2, 2),
        ("\U0001f44d\U0001f3fd", 2, 4),  # thumbs up, a skin tone
        ("\u2764\ufe0f", 2, 1),  # VS16: emoji presentation, two columns
        ("e\u0301", 1, 1),  # a combining mark: one cell either way
    ],
)
def test_graphemes_draws_a_cluster_in_one_cell(
    text: str, clustered: int, per_code_point: int,
) -> None:
    for emulation, width in [(Emulation(graphemes=True), clustered), (None, per_code_point)]:
        term = Terminal(20, 1, emulation=emulation)
        term.feed((text + "|").encode())
        assert term.screen.cursor.col == width + 1, (emulation, text)
        assert term.screen.lines[0].rstrip().endswith("|")
    clustered_term = Terminal(20, 1, emulation=Emulation(graphemes=True))
    clustered_term.feed(text.encode())
    assert clustered_term.screen.cell(0, 0).char == unicodedata.normalize("NFC", text)


@pytest.mark.parametrize(("text", "cursor", "cells"), [
    # A ZWJ joins only a pictograph to a pictograph (UAX #29 GB11).
    ("a\u200d\U0001f600x", 4, ["a\u200d", "\U0001f600", "", "x"]),
    ("\U0001f600\u200da", 3, ["\U0001f600\u200d", "", "a"]),
    ("\u2764\ufe0f\u200d\U0001f525x", 3, ["\u2764\ufe0f\u200d\U0001f525", "", "x"]),
    # VS16 widens only a character with an emoji variation sequence.
    ("a\ufe0fx", 2, ["a\ufe0f", "x"]),
    ("\u2603\ufe0fx", 3, ["\u2603\ufe0f", "", "x"]),  # a snowman: Emoji=Yes
    ("1\ufe0fx", 3, ["1\ufe0f", "", "x"]),  # a keycap base
])
def test_graphemes_join_and_widen_only_what_unicode_says(
    text: str, cursor: int, cells: list[str],
) -> None:
    """Found by libghostty (``tests/ghostty_oracle.py``): with clusters on,
    a ZWJ joined any next character into the cell, and VS16 widened any
    narrow character. xterm draws no clusters; Ghostty and kitty follow
    Unicode's rules, which these are."""
    term = Terminal(10, 1, emulation=Emulation(graphemes=True))
    term.feed(text.encode())
    assert term.screen.cursor.col == cursor
    assert [term.screen.cell(0, x).char for x in range(len(cells))] == cells


@pytest.mark.parametrize(("graphemes", "answer"), [(True, b"3"), (False, b"4")])
def test_DECRQM_2027_says_whether_clusters_are_drawn(graphemes: bool, answer: bytes) -> None:
    term = Terminal(20, 1, emulation=Emulation(graphemes=graphemes))
    assert term.feed(b"\x1b[?2027$p") == b"\x1b[?2027;" + answer + b"$y"


# -- reflow on a width change, an option -------------------------------------------------
# Expected screens as a tmux pane showed them after the same bytes and resize.

PROMPT_AND_REPLY = b"$ echo abcdefghijklmno\r\nabcdefghijklmno\r\n$ "


@pytest.mark.parametrize(
    ("data", "size", "new_size", "expected"),
    [
        (PROMPT_AND_REPLY, (10, 4), (20, 4),
         ["$ echo abcdefghijklm", "no", "abcdefghijklmno", "$ X"]),
        (PROMPT_AND_REPLY, (10, 4), (6, 4), ["abcdef", "ghijkl", "mno", "$ X"]),
        (b"0123456789", (10, 4), (5, 4), ["56789", "X", "", ""]),  # a pending wrap stays
        ("ab中文字符xyz".encode(), (10, 4), (5, 4), ["文字", "符xyz", "X", ""]),
        (b"".join(b"%02d-abcdefghijklmn\r\n" % i for i in range(6)) + b"$ ", (10, 4), (20, 4),
         ["03-abcdefghijklmn", "04-abcdefghijklmn", "05-abcdefghijklmn", "$ X"]),
        (b"abcdefghijklmno\x1b[?1049hfull\x1b[?1049l", (10, 4), (20, 4),
         ["abcdefghijklmnoX", "", "", ""]),
    ],
)
def test_reflow_rewraps_soft_wrapped_lines_as_tmux_does(
    data: bytes, size: tuple[int, int], new_size: tuple[int, int], expected: list[str],
) -> None:
    term = Terminal(*size, emulation=Emulation(reflow=True))
    term.feed(data)
    term.resize(*new_size)
    term.feed(b"X")
    assert [line.rstrip() for line in term.screen.lines] == expected


def test_without_reflow_a_resize_cuts_and_pads() -> None:
    term = Terminal(10, 4)
    term.feed(PROMPT_AND_REPLY)
    term.resize(20, 4)
    assert term.screen.lines[0].rstrip() == "no"


def test_reflow_keeps_the_transcript_whole() -> None:
    term = Terminal(10, 3, emulation=Emulation(reflow=True))
    term.feed(b"".join(b"%d-abcdefghijkl\r\n" % i for i in range(4)) + b"$ ")
    term.resize(5, 3)
    term.resize(30, 3)
    assert term.transcript().split() == [f"{i}-abcdefghijkl" for i in range(4)] + ["$"]


def test_G2_and_G3_are_designated_and_invoked_locking_or_for_one_character() -> None:
    # G2 = DEC special graphics, G3 = UK; SS2/SS3 shift one character, LS2/LS3
    # lock, SI brings G0 back; DECSC/DECRC keep all four sets.
    data = b"\x1b*0\x1b+Aa\x1bNqb\x1bOc#\x1bnqx\x1bo#\x0fq\x1b7\x1b*B\x1b8\x1bNq"
    assert screen(data, 20, 1)[0] == "a\u2500bc#\u2500\u2502\u00a3q\u2500"


# -- mouse modes --------------------------------------------------------------------------


@pytest.mark.parametrize("batch", [b"", b"\x1b[?1049h"])
def test_one_mouse_mode_and_one_encoding_at_a_time_as_in_xterm(batch: bytes) -> None:
    # The last one set wins (libvterm and xterm agree); DECRQM says so.
    term = Terminal(10, 2)
    term.feed(batch + b"\x1b[?1003h\x1b[?1000;1006h\x1b[?1005h")
    assert (term.modes.mouse, term.modes.mouse_encoding) == ("normal", "utf8")
    assert term.feed(b"\x1b[?1003$p\x1b[?1000$p\x1b[?1006$p") == \
        b"\x1b[?1003;2$y\x1b[?1000;1$y\x1b[?1006;2$y"
    term.feed(b"\x1b[?1006l")  # resetting another encoding changes nothing
    assert term.modes.mouse_encoding == "utf8"
    term.feed(b"\x1b[?1003l")  # resetting any tracking mode turns tracking off
    assert term.modes.mouse is None


# -- found by the generative differential test against tmux ---------------------------------


def test_SU_scrolls_by_its_first_parameter_whatever_follows() -> None:
    assert screen(b"a\x1b[;S", 3, 2) == ["", ""]
    assert screen(b"a\r\nb\x1b[1;2S", 3, 2) == ["b", ""]


def test_SO_without_a_designation_draws_ASCII() -> None:
    assert screen(b"\x0eq\x1b)0q\x0fq")[0] == "q\u2500q"


def test_DECALN_fills_with_E_homes_the_cursor_and_resets_the_margins() -> None:
    term, _ = feed_split(b"\x1b[31mab\x1b[2;3r\x1b[?6h\x1b[2;3H\x1b#8X\n\nY", 5, 3)
    assert list(term.screen.lines) == ["XEEEE", "EEEEE", "EYEEE"]  # X at home
    assert term.screen.cell(1, 0).style.fg == "default"  # E in the default style
    assert term.screen.cell(0, 0).style.fg == "red"  # the pen stays
    # No margins any more: three LFs from the top scroll the whole screen.
    assert screen(b"\x1b[2;3r\x1b#8X\n\n\nY", 5, 3) == ["EEEEE", "EEEEE", " Y"]


def test_REP_repeats_only_right_after_a_printed_character() -> None:
    assert screen(b"a\n\x1b[b", 5, 2) == ["a", ""]  # after LF: nothing
    assert screen(b"a\x1b[b\x1b[b", 5, 2)[0] == "aa"  # after REP: nothing
    assert screen(b"a\x1b[m\x1b[2b", 5, 2)[0] == "a"  # after another sequence
    assert screen(b"ab\x1b[2b", 5, 2)[0] == "abbb"


def test_tmux_backspace_without_autowrap_steps_left_of_the_last_column() -> None:
    term = Terminal(2, 1, emulation=Emulation(backspace_at_wrap="tmux"))
    term.feed(b"\x1b[?7laa\x08b")
    assert term.screen.lines[0] == "ba"


def test_CBT_from_a_pending_wrap_counts_from_the_last_column() -> None:
    # 17 columns, stops at 8 and 16: the cursor is on 16, so CBT goes to 8.
    assert screen(b"a" * 17 + b"\x1b[ZX", 17, 1)[0] == "a" * 8 + "X" + "a" * 8


def test_1049_clears_the_alternate_screen_in_the_current_background() -> None:
    """xterm's ClearScreen erases with the current background (BCE), as ED 2
    does: a background set before ``?1049h`` fills the new screen (real
    xterm: ``test_xterm_oracle.py``). Once, termsim's blank cells kept the
    default background there."""
    term, _ = feed_split(b"a\x1b[44m\x1b[?1049h", 4, 2)
    assert term.screen.alternate
    assert {term.screen.cell(r, c).style.bg for r in range(2) for c in range(4)} == {"blue"}


def test_DECSTR_keeps_strikethrough_faint_and_double_underline_as_xterm_does() -> None:
    """xterm's soft reset (charproc.c ``ReallyReset``, its DECSTR branch)
    clears bold, blink, underline, inverse, invisible, italics and the
    colours, and leaves ATR_STRIKEOUT, ATR_FAINT and ATR_DBL_UNDER: real
    xterm draws the ``a`` after it struck through, faint and doubly
    underlined (``test_xterm_oracle.py`` holds the case). termsim once
    reset the pen as SGR 0 does."""
    term, _ = feed_split(b"\x1b[1;2;3;5;7;8;9;21;31;42mX\x1b[!pa", 4, 1)
    style = term.screen.cell(0, 1).style
    kept = {"strikethrough": True, "dim": True, "underline": True, "underline_style": "double"}
    cleared = {"bold": False, "italic": False, "blink": False, "reverse": False,
               "invisible": False, "fg": "default", "bg": "default"}
    assert {name: getattr(style, name) for name in {**kept, **cleared}} == {**kept, **cleared}
    # A single underline is one of those cleared, as in xterm.
    term, _ = feed_split(b"\x1b[4ma\x1b[!pa", 4, 1)
    assert not term.screen.cell(0, 1).style.underline


def test_DECSTR_saves_the_cursor_home_with_the_pen_it_leaves() -> None:
    """xterm's DECSTR ends with CursorSave and the saved position set to
    home (charproc.c ``ReallyReset``): DECRC after it goes home and draws
    with the pen DECSTR left, strikethrough kept. termsim once forgot the
    saved cursor instead, so DECRC drew with a default pen."""
    term, _ = feed_split(b"\x1b[9m\x1b[2;3H\x1b[!p\x1b8a", 4, 2)
    assert (term.screen.cursor.row, term.screen.cursor.col) == (0, 1)
    assert term.screen.cell(0, 0).char == "a"
    assert term.screen.cell(0, 0).style.strikethrough


@pytest.mark.parametrize(("data", "orphan"), [
    ("\u26a1\b\x1b[105m\u26a1".encode(), 0),  # the slow way: wide over a right half
    ("\u6587\x1b[D\x1b[105m\ud55c".encode(), 0),
    (b"\xe6\x97\xa5\x1b[2G\x1b[105mx", 0),  # the fast way: ASCII over a right half
    (b"\xe6\x97\xa5\x1b[1G\x1b[105mx", 1),  # and over a left half
])
def test_the_orphaned_half_of_a_wide_character_is_blanked_in_the_current_colours(
    data: bytes, orphan: int,
) -> None:
    """Writing over one half of a two-column character blanks the other
    half as an erase would, in the current colours: xterm's ``WriteText``
    clears it with ``ClearInLine`` (util.c ``ClearCells``: the colour pair
    in force). Found by the xterm oracle; termsim once kept the old cell's
    colours there."""
    term, _ = feed_split(data, 3, 1)
    cell = term.screen.cell(0, orphan)
    assert cell.char == " "
    assert cell.style.bg == "bfightmagenta"  # (pyte's spelling of bright magenta)


def test_1049_ends_a_pending_wrap_as_xterms_clear_does() -> None:
    """xterm's ``ClearScreen`` (which ``?1049h`` calls) ends a pending wrap
    (``ResetWrap``): the next character overwrites the last column instead
    of wrapping (real xterm: `` c`` on two columns, one row). ``?1047h``
    clears nothing on the way in and keeps the wrap pending; ``?1049l``
    restores the one DECSC saved. termsim once kept the wrap pending."""
    assert screen(b"ab\x1b[?1049hc", 2, 1) == [" c"]
    assert screen(b"ab\x1b[?1047hc", 2, 1) == ["c"]
    assert screen(b"ab\x1b[?1049hc\x1b[?1049ld", 2, 2) == ["ab", "d"]


# -- found by libghostty (issue 37) ----------------------------------------------------------


@pytest.mark.parametrize("switch", [b"\x1b[?6;1048h", b"\x1b[?6;1049h"])
def test_private_modes_in_one_sequence_take_effect_in_their_order(switch: bytes) -> None:
    """``?6`` first homes the cursor, then 1048/1049 saves it there with
    origin mode on (xterm's dpmodes walks its parameters in order): the
    restore brings both back. termsim saved first, then set origin mode."""
    restore = switch.replace(b"6;", b"").replace(b"h", b"l")
    term, _ = feed_split(b"\x1b[2;3H" + switch + b"\x1b[?6l\x1b[3;4H" + restore, 5, 3)
    assert (term.screen.cursor.row, term.screen.cursor.col) == (0, 0)
    assert term.feed(b"\x1b[?6$p") == b"\x1b[?6;1$y"  # origin mode, restored
