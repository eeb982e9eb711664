"""Snapshots: immutable screen values, their cells, runs, regions and rendering."""

from __future__ import annotations

import dataclasses
from functools import partial
from pathlib import Path

import helpers
import pytest
from helpers import sampled_screens
from pyte.screens import Char

from termsim import Cell, Cursor, Modes, Region, Snapshot, Style
from termsim.emulator import Terminal
from termsim.emulator.snapshot.snapshot import Run, build_lines

RECORDINGS = sorted((Path(__file__).resolve().parent.parent / "recordings").glob("*.tsr"))


screen = partial(helpers.screen, cols=12, rows=4)


# -- immutability ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [("cols", 5), ("lines", ()), ("cursor", Cursor(0, 0, True)), ("title", "x"),
     ("generation", 99), ("new_attribute", 1)],
)
def test_Snapshot_attributes_cannot_be_set(name: str, value: object) -> None:
    snap = screen(b"hello")
    with pytest.raises(AttributeError, match="immutable"):
        setattr(snap, name, value)


def test_Snapshot_attributes_cannot_be_deleted() -> None:
    snap = screen(b"hello")
    with pytest.raises(AttributeError, match="immutable"):
        del snap.title


@pytest.mark.parametrize(
    ("value", "field"),
    [(Cell("x", Style()), "char"), (Style(), "bold"), (Cursor(0, 0, True), "row"),
     (Modes(), "bracketed_paste")],
)
def test_Snapshot_parts_are_frozen(value: object, field: str) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, 1)


def test_Snapshot_does_not_change_when_the_terminal_does() -> None:
    term = Terminal(12, 4)
    term.feed(b"\x1b[1mhello")
    before = term.screen
    term.feed(b"\x1b[m\rJ\x1b[2;1Hmore\x1b[?2004h\x1b]2;t\x07")
    assert before.lines[0].rstrip() == "hello"
    assert before.cell(0, 0) == Cell("h", Style(bold=True))
    assert before.lines[1].strip() == ""
    assert before.cursor == Cursor(0, 5, True)
    assert not before.modes.bracketed_paste
    assert before.title == ""
    assert term.screen.lines[0].rstrip() == "Jello"


def test_Snapshot_equality_is_by_value() -> None:
    a, b = screen(b"same\r\nscreen"), screen(b"same\r\nscreen")
    assert a == b
    assert hash(a) == hash(b)
    assert a != screen(b"same\r\nscreeN")


@pytest.mark.parametrize(
    "different",
    [
        b"\x1b[1msame",  # style only
        b"same\x1b[D",  # cursor only
        b"same\x1b[?25l",  # cursor visibility only
        b"same\x1b]2;t\x07",  # title only
        b"same\x1b[?2004h",  # a mode only
    ],
)
def test_Snapshot_equality_sees_more_than_text(different: bytes) -> None:
    assert screen(b"same") != screen(different)
    assert screen(different).text == screen(b"same").text


def test_Snapshot_is_not_equal_to_other_types() -> None:
    assert screen(b"x") != "x"


def test_Snapshot_with_input_ready_is_a_new_value() -> None:
    snap = screen(b"x")
    ready = snap.with_input_ready(True)
    assert snap.input_ready is None
    assert ready.input_ready is True
    assert ready.text == snap.text
    assert snap.with_input_ready(None) is snap


# -- cells ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sgr", "style"),
    [
        (b"1", Style(bold=True)),
        (b"3", Style(italic=True)),
        (b"4", Style(underline=True)),
        (b"5", Style(blink=True)),
        (b"7", Style(reverse=True)),
        (b"9", Style(strikethrough=True)),
        (b"31", Style(fg="red")),
        (b"42", Style(bg="green")),
        (b"94", Style(fg="brightblue")),
        (b"38;5;196", Style(fg="ff0000")),
        (b"48;2;1;2;3", Style(bg="010203")),
        (b"1;7;31;44", Style(fg="red", bg="blue", bold=True, reverse=True)),
    ],
)
def test_Snapshot_cell_style(sgr: bytes, style: Style) -> None:
    snap = screen(b"\x1b[" + sgr + b"mX\x1b[mY")
    assert snap.cell(0, 0) == Cell("X", style)
    assert snap.cell(0, 1) == Cell("Y", Style())


def test_Snapshot_cell_attributes_switch_off() -> None:
    snap = screen(b"\x1b[1;3;4;7mA\x1b[22;23;24;27mB")
    assert snap.cell(0, 0).style == Style(bold=True, italic=True, underline=True, reverse=True)
    assert snap.cell(0, 1).style == Style()


def test_Snapshot_cell_never_written_is_a_blank() -> None:
    snap = screen(b"")
    assert snap.cell(3, 11) == Cell(" ", Style())


def test_Snapshot_cell_of_a_wide_character() -> None:
    snap = screen("你x".encode())
    assert snap.cell(0, 0).char == "你"
    assert snap.cell(0, 1).char == ""  # the right half
    assert snap.cell(0, 2).char == "x"


@pytest.mark.parametrize(
    ("row", "col", "char"), [(-1, -1, "Z"), (-4, 0, "A"), (0, -12, "A"), (-1, 0, " ")],
)
def test_Snapshot_cell_negative_indexes(row: int, col: int, char: str) -> None:
    snap = screen(b"A\x1b[4;12HZ")
    assert snap.cell(row, col).char == char


@pytest.mark.parametrize(("row", "col"), [(4, 0), (0, 12), (-5, 0), (0, -13), (100, 100)])
def test_Snapshot_cell_outside_raises_IndexError(row: int, col: int) -> None:
    snap = screen(b"")
    with pytest.raises(IndexError, match="outside a screen of"):
        snap.cell(row, col)


def test_Snapshot_row_cells() -> None:
    snap = screen(b"ab\x1b[1mc", cols=4)
    assert snap.row_cells(0) == (
        Cell("a", Style()), Cell("b", Style()), Cell("c", Style(bold=True)), Cell(" ", Style()),
    )
    assert snap.row_cells(-4) == snap.row_cells(0)
    with pytest.raises(IndexError):
        snap.row_cells(4)


def test_Snapshot_span_counts_columns() -> None:
    snap = screen("a你b".encode())
    assert snap.span(0, 0, 4) == "a你b"
    assert snap.span(0, 2, 4) == "b"  # starting on the right half of 你


# -- runs ------------------------------------------------------------------------------


def test_Snapshot_runs_group_cells_of_one_style() -> None:
    snap = screen(b"ab\x1b[31mred\x1b[m \x1b[1;44mX", cols=12)
    assert snap.runs(0) == (
        Run(0, "ab", Style(), 2),
        Run(2, "red", Style(fg="red"), 3),
        Run(5, " ", Style(), 1),
        Run(6, "X", Style(fg="default", bg="blue", bold=True), 1),
    )


def test_Snapshot_runs_leave_out_trailing_default_blanks_only() -> None:
    snap = screen(b"  a  \r\n\r\n\x1b[41mb \x1b[K\x1b[m", cols=8)
    assert snap.runs(0) == (Run(0, "  a", Style(), 3),)  # leading and inner blanks stay
    assert snap.runs(1) == ()  # a blank row
    # Blanks in another style are part of the row, up to the last column.
    assert snap.runs(2) == (Run(0, "b" + " " * 7, Style(bg="red"), 8),)
    assert snap.runs(3) == ()
    # Under DECSCNM a blank is reverse video: nothing is left out.
    reverse = screen(b"\x1b[?5hhi", cols=4, rows=1)
    assert reverse.runs(0) == (Run(0, "hi  ", Style(reverse=True), 4),)


def test_Snapshot_runs_of_wide_characters_and_combining_marks() -> None:
    snap = screen("a中b\x1b[7m文\x1b[mx\u0301y 👨\u200d👩".encode(), cols=16)
    assert snap.cell(0, 2).char == ""
    reverse = Style(reverse=True)
    assert snap.runs(0) == (
        Run(0, "a", Style(), 1),
        Run(1, "中", Style(), 2, wide=True),  # its right half is covered
        Run(3, "b", Style(), 1),
        Run(4, "文", reverse, 2, wide=True),
        Run(6, "x\u0301", Style(), 1),  # one cell, two code points: a run of its own
        Run(7, "y ", Style(), 2),
        Run(9, "👨\u200d", Style(), 2, wide=True),
        Run(11, "👩", Style(), 2, wide=True),
    )


def test_Snapshot_runs_do_not_depend_on_the_cursor() -> None:
    term = Terminal(10, 2)
    term.feed(b"\x1b[32mhello\x1b[m")
    before = term.screen
    term.feed(b"\x1b[2;5H\x1b[?25l")
    after = term.screen
    assert before.cursor != after.cursor
    assert after.runs(0) == before.runs(0) == (Run(0, "hello", Style(fg="green"), 5),)


def test_Snapshot_runs_negative_and_outside_indexes() -> None:
    snap = screen(b"top\x1b[4;1Hbottom")
    assert snap.runs(-1) == snap.runs(3) == (Run(0, "bottom", Style(), 6),)
    assert snap.runs(-4) == snap.runs(0)
    for row in (4, -5, 100):
        with pytest.raises(IndexError, match="outside a screen of"):
            snap.runs(row)


def test_Snapshot_runs_are_cached_per_row_and_never_leak_between_rows() -> None:
    term = Terminal(10, 4)
    term.feed(b"same\r\n\x1b[31msame\x1b[m\r\nsame\r\nother")
    first = term.screen
    assert first.runs(0) is first.runs(0)
    # Rows of equal text but other styles have their own runs; equal rows
    # may share theirs.
    assert first.runs(0) == first.runs(2) == (Run(0, "same", Style(), 4),)
    assert first.runs(1) == (Run(0, "same", Style(fg="red"), 4),)
    # A later screen: the unchanged rows keep the very same runs, the changed
    # one (same text, another style) gets new ones.
    term.feed(b"\x1b[1;1H\x1b[1msame\x1b[m")
    second = term.screen
    assert second.runs(1) is first.runs(1) and second.runs(3) is first.runs(3)
    assert second.runs(0) == (Run(0, "same", Style(bold=True), 4),)
    assert first.runs(0) == (Run(0, "same", Style(), 4),)
    # After a scroll, each row's runs follow its content.
    term.feed(b"\x1b[4;1H\r\nnew")
    third = term.screen
    assert [third.runs(r) for r in range(3)] == [second.runs(r) for r in range(1, 4)]
    assert third.runs(3) == (Run(0, "new", Style(), 3),)
    # The same text at another width, or with another blank, is another row.
    narrow = Terminal(4, 1)
    narrow.feed(b"same")
    assert narrow.screen.runs(0) == (Run(0, "same", Style(), 4),)
    decscnm = Terminal(10, 1)
    decscnm.feed(b"\x1b[?5hsame")
    assert decscnm.screen.runs(0) == (Run(0, "same      ", Style(reverse=True), 10),)
    assert second.with_input_ready(True).runs(0) is second.runs(0)


def hand_built(*cells: dict[int, Char], cols: int = 6) -> Snapshot:
    """A snapshot no terminal would build: rows of cells as given."""
    return Snapshot(
        cols=cols, rows=len(cells), cells=cells, lines=build_lines(cells, cols),
        cursor=Cursor(0, 0, False), title="", alternate=False, modes=Modes(), generation=0,
    )


def test_Snapshot_runs_read_a_lone_right_half_as_a_blank() -> None:
    red = Char(" ", fg="red")
    snap = hand_built(
        {0: Char(""), 1: Char("a"), 2: Char(""), 3: Char(""), 4: red._replace(data="")},
        {2: Char("b"), 3: Char("")._replace(fg="red"), 4: Char("")},
    )
    assert snap.runs(0) == (
        Run(0, " ", Style(), 1),
        Run(1, "a", Style(), 2, wide=True),
        Run(3, " ", Style(), 1),
        Run(4, " ", Style(fg="red"), 1),
    )
    # A right half takes the style of its wide character; trailing lone
    # halves in the default style are trailing blanks.
    assert snap.runs(1) == (Run(0, "  ", Style(), 2), Run(2, "b", Style(), 2, wide=True))


def check_runs_against_cells(snap: Snapshot) -> None:
    """Runs say what ``Snapshot.cell`` says, column by column."""
    for r in range(snap.rows):
        col = 0
        for run in snap.runs(r):
            assert run.col == col and run.width >= 1
            if run.wide:
                assert run.width == 2 and snap.cell(r, col + 1).char == ""
                assert snap.cell(r, col) == Cell(run.text, run.style)
            elif run.width > 1:
                assert len(run.text) == run.width
            chars = [snap.cell(r, c).char for c in range(col, col + run.width)]
            assert "".join(chars) == run.text
            assert all(snap.cell(r, c).style == run.style for c in range(col, col + run.width))
            col += run.width
        assert all(snap.cell(r, c) == Cell(" ", Style()) for c in range(col, snap.cols))
        runs = snap.runs(r)
        if runs and runs[-1].style == Style():
            assert not runs[-1].text.endswith(" ")  # trailing default blanks are left out


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_Snapshot_runs_agree_with_cells_in_the_recordings(path: Path) -> None:
    for snap in sampled_screens(path):
        check_runs_against_cells(snap)


def test_Snapshot_runs_agree_with_cells_on_edited_wide_characters() -> None:
    term = Terminal(12, 3)
    term.feed("中文字\x1b[1;2Hx\x1b[2;1H\x1b[7m表\x1b[m  𝔘\x1b[2;3H\x1b[2@\x1b[3;1H😀\x1b[D\x1b[P"
              .encode())
    check_runs_against_cells(term.screen)
    term.feed(b"\x1b[?5h")
    check_runs_against_cells(term.screen)


# -- text and regions ------------------------------------------------------------------


def test_Snapshot_text_strips_trailing_blanks_of_each_row() -> None:
    snap = screen(b"  ab   \r\ncd\r\n\r\n   ")
    assert snap.text == "  ab\ncd\n\n"
    assert snap.lines[0] == "  ab        "  # lines keep every column
    assert all(len(line) == 12 for line in snap.lines)


def test_Snapshot_text_keeps_inner_blanks() -> None:
    assert screen(b"a\x1b[5Cb").text.split("\n")[0] == "a     b"


def test_Snapshot_region() -> None:
    snap = screen(b"one\r\ntwo\r\nthree\r\nfour")
    assert snap.region(Region.row(-1)).rstrip() == "four"
    assert snap.region(Region.rect(1, 1, 3, 3)) == "wo\nhr"
    assert snap.region(Region.rows(2)).split("\n")[0].rstrip() == "three"


# -- render ------------------------------------------------------------------------------


def test_Snapshot_render_numbers_rows_and_marks_the_cursor() -> None:
    snap = screen(b"\x1b]2;T\x07hello\r\nwor", rows=12)
    assert snap.render() == "\n".join([
        "screen 12x12, cursor at row 1, col 3 (visible), title 'T'",
        "   ┌────────────",
        " 0 │hello",
        " 1 │wor",
        "       ^ cursor",
        "   │… 10 blank rows (to row 11)",
        "   └────────────",
    ])


def test_Snapshot_render_cursor_marker_is_under_the_cursor_column() -> None:
    snap = screen(b"abcdefgh\x1b[1;6H")
    lines = snap.render().split("\n")
    row = next(line for line in lines if line.startswith("0 │"))
    marker = lines[lines.index(row) + 1]
    assert marker.endswith("^ cursor")
    assert marker.index("^") == row.index("│") + 1 + snap.cursor.col
    assert row[marker.index("^")] == "f"


def test_Snapshot_render_without_numbers() -> None:
    rendered = screen(b"hello").render(numbers=False)
    assert " │hello" in rendered
    assert "0 │" not in rendered


def test_Snapshot_render_mentions_alternate_buffer_and_hidden_cursor() -> None:
    header = screen(b"\x1b[?1049h\x1b[?25l").render().split("\n")[0]
    assert header == "screen 12x4, alternate buffer, cursor at row 0, col 0 (hidden)"


def test_Snapshot_render_full_screen_has_no_blank_row_note() -> None:
    rendered = screen(b"1\r\n2\r\n3\r\n4").render()
    assert "blank row" not in rendered
    assert "3 │4" in rendered


def test_Snapshot_render_one_blank_row_is_singular() -> None:
    assert "│… 1 blank row (to row 3)" in screen(b"1\r\n2\r\n3").render()


def test_Snapshot_repr() -> None:
    snap = screen(b"ab")
    assert repr(snap) == f"<Snapshot 12x4 generation={snap.generation} cursor=(0, 2)>"
