"""Predicates and regions: the questions a test asks of a snapshot."""

from __future__ import annotations

import re

import pytest
from helpers import screen

from termsim import (
    CursorAfter,
    CursorAt,
    InputReady,
    Predicate,
    Regex,
    Region,
    Snapshot,
    Text,
    as_predicate,
)

#: Rows: "top line", "middle: ok", "", "", "state: sleeping", cursor after "❯ ".
PROMPT = screen(
    "top line\r\nmiddle: ok\r\n\x1b[5;1Hstate: sleeping\x1b[4;1H❯ ".encode(),
)


# -- Region ---------------------------------------------------------------------------


def test_Region_screen_is_all_rows_without_trailing_blanks() -> None:
    assert Region.screen().text(PROMPT) == "\n".join(line.rstrip() for line in PROMPT.lines)
    assert Region.screen().text(PROMPT).split("\n") == [
        "top line", "middle: ok", "", "❯", "state: sleeping"]
    assert Region.screen().bounds(PROMPT) == (0, 5, 0, 20)


def test_Region_row_minus_one_is_the_bottom_row() -> None:
    region = Region.row(-1)
    assert region.text(PROMPT).rstrip() == "state: sleeping"
    assert region.bounds(PROMPT) == (4, 5, 0, 20)
    assert str(region) == "the bottom row"


@pytest.mark.parametrize(
    ("index", "text", "label"),
    [(0, "top line", "the top row"), (1, "middle: ok", "row 1"), (-2, "❯", "row -2")],
)
def test_Region_row(index: int, text: str, label: str) -> None:
    region = Region.row(index)
    assert region.text(PROMPT).rstrip() == text
    assert str(region) == label


def test_Region_row_outside_the_screen_is_empty() -> None:
    assert Region.row(7).text(PROMPT) == ""
    assert Region.row(-9).text(PROMPT) == ""


def test_Region_rows_is_a_slice_with_exclusive_stop() -> None:
    region = Region.rows(0, 2)
    assert [line.rstrip() for line in region.text(PROMPT).split("\n")] == [
        "top line", "middle: ok",
    ]
    assert str(region) == "rows 0:2"


def test_Region_rows_negative_and_open_ended() -> None:
    assert Region.rows(-2).text(PROMPT).split("\n")[1].rstrip() == "state: sleeping"
    assert Region.rows(-2).bounds(PROMPT) == (3, 5, 0, 20)
    assert str(Region.rows(-2)) == "rows -2:"
    assert Region.rows(None, 1).text(PROMPT).rstrip() == "top line"
    assert str(Region.rows(None, 1)) == "rows :1"


def test_Region_rect_has_exclusive_ends() -> None:
    region = Region.rect(0, 4, 2, 8)
    assert region.text(PROMPT) == "line\nle:"
    assert region.bounds(PROMPT) == (0, 2, 4, 8)
    assert str(region) == "rows 0:2, columns 4:8"


def test_Region_rect_negative_indexes_count_from_the_bottom_right() -> None:
    region = Region.rect(-1, -13, None, -5)
    assert region.bounds(PROMPT) == (4, 5, 7, 15)
    assert region.text(PROMPT) == "sleeping"
    assert str(region) == "rows -1:, columns -13:-5"


def test_Region_rect_counts_columns_not_characters() -> None:
    snap = screen("你好ab".encode())
    assert Region.rect(0, 2, 1, 5).text(snap) == "好a"  # the wide char's stub is ""
    assert Region.rect(0, 4, 1, 6).text(snap) == "ab"


def test_Region_empty_when_the_ends_cross() -> None:
    assert Region.rect(3, 5, 1, 2).text(PROMPT) == ""
    assert Region.rect(3, 5, 1, 2).bounds(PROMPT) == (3, 3, 5, 5)


def test_Region_resolves_against_each_snapshot_size() -> None:
    small, large = screen(b"a\r\nb", rows=2), screen(b"a\r\nb\r\nc", rows=3)
    assert Region.row(-1).text(small).rstrip() == "b"
    assert Region.row(-1).text(large).rstrip() == "c"


def test_Snapshot_region_is_the_region_text() -> None:
    assert PROMPT.region(Region.row(-1)) == Region.row(-1).text(PROMPT)


# -- Text and Regex -------------------------------------------------------------------


def test_Text_anywhere_on_the_screen() -> None:
    assert Text("sleeping")(PROMPT)
    assert not Text("awake")(PROMPT)


def test_Text_in_a_region() -> None:
    assert Text("sleeping", Region.row(-1))(PROMPT)
    assert not Text("sleeping", Region.row(0))(PROMPT)
    assert not Text("top", Region.rect(0, 1, 1, None))(PROMPT)  # "op line" only


def test_Text_spans_rows_joined_by_newlines() -> None:
    # 100 above 30: the rows' trailing blanks are gone, so the text spans them.
    snap = screen(b"100\r\n30", cols=10)
    assert Text("100\n30")(snap)
    assert Text("line\nmiddle")(PROMPT)
    assert not Text("line middle")(PROMPT)  # a row end is a newline, not a space
    assert not Text("100\n3 ")(snap)


def test_Text_blanks_at_a_line_end_match_the_end_of_a_row() -> None:
    snap = screen(b"$ \r\nfoo bar", cols=10)
    assert Text("$ ")(snap)  # the prompt's space is the row's invisible tail
    assert Text("foo ")(snap) and not Text("bar ")(screen(b"barx", cols=10))
    assert Text("$ \nfoo")(snap)


def test_Text_rejects_empty_text() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        Text("")


def test_Regex_searches_with_multiline() -> None:
    assert Regex(r"^state: \w+")(PROMPT)
    assert Regex(r"ok$")(PROMPT)  # $ matches at each row's end, blanks removed
    assert not Regex(r"^sleeping")(PROMPT)
    snap = screen(b"100\r\n30", cols=10)
    assert Regex("^100$")(snap) and Regex("100\n30")(snap)


def test_Regex_in_a_region() -> None:
    assert Regex(r"s\w+ing", Region.row(-1))(PROMPT)
    assert not Regex(r"s\w+ing", Region.rows(0, -1))(PROMPT)


def test_Regex_accepts_a_compiled_pattern() -> None:
    pattern = re.compile(r"STATE", re.IGNORECASE)
    assert Regex(pattern)(PROMPT)
    assert Regex(pattern).pattern is pattern


# -- the cursor -----------------------------------------------------------------------


def test_CursorAt_row_and_column() -> None:
    assert (PROMPT.cursor.row, PROMPT.cursor.col) == (3, 2)
    assert CursorAt(3, 2)(PROMPT)
    assert not CursorAt(3, 3)(PROMPT)
    assert not CursorAt(2, 2)(PROMPT)


def test_CursorAt_either_may_be_any() -> None:
    assert CursorAt(3)(PROMPT)
    assert CursorAt(None, 2)(PROMPT)
    assert CursorAt(None, None)(PROMPT)
    assert not CursorAt(None, 5)(PROMPT)


def test_CursorAt_negative_indexes_count_from_the_bottom_right() -> None:
    snap = screen(b"\x1b[5;20H")
    assert CursorAt(-1, -1)(snap)
    assert CursorAt(4, 19)(snap)
    assert not CursorAt(-2, -1)(snap)


def test_CursorAt_outside_the_screen_never_matches() -> None:
    # Not wrapped around: row 8 of a 5-row screen is not row 3.
    assert not CursorAt(8, 2)(PROMPT)
    assert not CursorAt(3, 22)(PROMPT)
    assert not CursorAt(-7, 2)(PROMPT)


def test_CursorAfter_the_prompt() -> None:
    assert CursorAfter("❯ ")(PROMPT)
    assert CursorAfter(" ")(PROMPT)
    assert not CursorAfter("ok")(PROMPT)  # on the screen, but not left of the cursor


def test_CursorAfter_a_stale_prompt_does_not_count() -> None:
    stale = screen("❯ ls\r\nfile\r\n".encode())
    assert Text("❯ ")(stale)
    assert not CursorAfter("❯ ")(stale)


def test_CursorAfter_wide_characters() -> None:
    assert CursorAfter("你好")(screen("你好".encode()))


def test_CursorAfter_rejects_empty_text() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        CursorAfter("")


def test_InputReady_reads_the_snapshot() -> None:
    assert not InputReady()(PROMPT)  # a bare Terminal does not know
    assert InputReady()(PROMPT.with_input_ready(True))
    assert not InputReady()(PROMPT.with_input_ready(False))
    assert InputReady().polls


# -- combinators and plain callables ----------------------------------------------------


def test_Predicate_and_or_not() -> None:
    yes, no = Text("sleeping"), Text("awake")
    assert (yes & yes)(PROMPT)
    assert not (yes & no)(PROMPT)
    assert (yes | no)(PROMPT)
    assert (no | yes)(PROMPT)
    assert not (no | no)(PROMPT)
    assert (~no)(PROMPT)
    assert not (~yes)(PROMPT)


def test_Predicate_combinators_flatten() -> None:
    a, b, c = Text("a"), Text("b"), Text("c")
    assert (a & b & c).parts == (a, b, c)  # type: ignore[attr-defined]
    assert (a | b | c).parts == (a, b, c)  # type: ignore[attr-defined]


def test_Not_twice_is_the_predicate() -> None:
    text = Text("sleeping")
    assert ~~text is text


def test_Predicate_plain_callables_compose_on_either_side() -> None:
    def many_rows(snap: Snapshot) -> bool:
        return snap.rows > 3

    def few_rows(snap: Snapshot) -> bool:
        return snap.rows < 3

    assert (Text("sleeping") & many_rows)(PROMPT)
    assert (many_rows & Text("sleeping"))(PROMPT)
    assert (few_rows | Text("sleeping"))(PROMPT)
    assert not (Text("sleeping") & few_rows)(PROMPT)


def test_as_predicate_wraps_callables_and_keeps_predicates() -> None:
    text = Text("x")
    assert as_predicate(text) is text
    wrapped = as_predicate(lambda snap: snap.cursor.row == 3)
    assert isinstance(wrapped, Predicate)
    assert wrapped(PROMPT)


def test_as_predicate_result_is_a_bool() -> None:
    assert as_predicate(lambda snap: snap.text)(PROMPT) is True


def test_as_predicate_rejects_other_values() -> None:
    with pytest.raises(TypeError, match="not int"):
        as_predicate(42)  # type: ignore[arg-type]


# -- describe and explain ------------------------------------------------------------


@pytest.mark.parametrize(
    ("predicate", "description"),
    [
        (Text("sleeping"), "text 'sleeping' in the screen"),
        (Text("sleeping", Region.row(-1)), "text 'sleeping' in the bottom row"),
        (Text("x", Region.rect(0, 2, 3, -1)), "text 'x' in rows 0:3, columns 2:-1"),
        (Regex(r"\d+ items", Region.rows(0, 2)), r"regex /\d+ items/ in rows 0:2"),
        (CursorAt(3, 2), "the cursor at row 3, column 2"),
        (CursorAt(3), "the cursor at row 3"),
        (CursorAt(None, 2), "the cursor at column 2"),
        (CursorAt(None), "the cursor anywhere"),
        (CursorAfter("❯ "), "the cursor right after '❯ '"),
        (InputReady(), "the program reading keys in raw mode"),
        (Text("a") & CursorAt(0, 0), "text 'a' in the screen and the cursor at row 0, column 0"),
        (Text("a") | Text("b"), "text 'a' in the screen or text 'b' in the screen"),
        (~Text("a"), "not text 'a' in the screen"),
        (
            (Text("a") | Text("b")) & ~CursorAt(0),
            "(text 'a' in the screen or text 'b' in the screen) and not the cursor at row 0",
        ),
        (~(Text("a") & Text("b")), "not (text 'a' in the screen and text 'b' in the screen)"),
    ],
)
def test_Predicate_describe_reads_well(predicate: Predicate, description: str) -> None:
    assert predicate.describe() == description
    assert repr(predicate) == f"<{type(predicate).__name__}: {description}>"


def test_as_predicate_describe_uses_the_docstring() -> None:
    def spinner_gone(snap: Snapshot) -> bool:
        """no spinner on the screen

        More detail that is not part of the description.
        """
        return "⠋" not in snap.text

    assert as_predicate(spinner_gone).describe() == "no spinner on the screen"
    assert (Text("a") & spinner_gone).describe() == (
        "text 'a' in the screen and no spinner on the screen"
    )


def test_as_predicate_describe_without_docstring_uses_the_name() -> None:
    def spinner_gone(snap: Snapshot) -> bool:
        return True

    assert as_predicate(spinner_gone).describe() == (
        "test_as_predicate_describe_without_docstring_uses_the_name.<locals>"
        ".spinner_gone(screen) is true"
    )


def test_Text_explain_shows_the_region_text() -> None:
    predicate = Text("awake", Region.row(-1))
    assert predicate.explain(PROMPT) == "the bottom row shows 'state: sleeping'"
    assert Regex("awake", Region.rows(0, 2)).explain(PROMPT) == (
        "rows 0:2 shows 'top line\\nmiddle: ok'"
    )


def test_Text_explain_on_the_whole_screen_says_it_is_absent() -> None:
    assert Text("awake").explain(PROMPT) == "it is nowhere on the screen"


def test_CursorAt_and_CursorAfter_explain_the_cursor() -> None:
    assert CursorAt(0, 0).explain(PROMPT) == "the cursor is at row 3, column 2"
    assert CursorAfter("$ ").explain(PROMPT) == "left of the cursor (row 3, column 2): '❯ '"


def test_Predicate_and_explains_only_the_failing_parts() -> None:
    predicate = Text("sleeping") & Text("awake", Region.row(-1)) & CursorAt(0, 0)
    assert predicate.explain(PROMPT) == (
        "not text 'awake' in the bottom row (the bottom row shows 'state: sleeping'); "
        "not the cursor at row 0, column 0 (the cursor is at row 3, column 2)"
    )


def test_Predicate_or_explains_what_each_part_saw() -> None:
    predicate = Text("awake", Region.row(0)) | CursorAt(0, 0)
    assert predicate.explain(PROMPT) == (
        "the top row shows 'top line'; the cursor is at row 3, column 2"
    )
