"""The sans-IO Terminal: bytes in, replies and screens out.

Almost every case goes through ``feed_split`` (``tests/helpers.py``), which
feeds the bytes whole, one byte at a time and split at every single offset,
and checks that all of them give the same screen, the same replies, the same
query log and the same counts of sequences not understood.
"""

from __future__ import annotations

import pyte
import pytest
from conftest import examples
from helpers import COLS, ROWS, fed, feed_chunks, feed_split, query_log
from hypothesis import given, settings
from hypothesis import strategies as st

from termsim import Modes, Query, Snapshot
from termsim.emulator import QUERY_KINDS, Terminal
from termsim.emulator.answers import queries as _queries
from termsim.emulator.screen.sgr import StyledChar
from termsim.emulator.terminal.terminal import printable

ESC = b"\x1b"


# -- helpers ----------------------------------------------------------------------


def internal_errors(term: Terminal) -> list[str]:
    """Unknown-sequence entries that are really termsim (or pyte) failures."""
    return [k for k in term.unknown if k.startswith(("error in", "internal error"))]


def row(term: Terminal, index: int) -> str:
    return term.screen.lines[index].rstrip()


# -- query answers ----------------------------------------------------------------


def test_CPR_answers_from_the_cursor_at_each_query() -> None:
    term, replies = feed_split(b"ab\x1b[6ncd\x1b[6n")
    assert replies == b"\x1b[1;3R\x1b[1;5R"
    assert row(term, 0) == "abcd"


def test_CPR_is_one_based_row_and_column() -> None:
    _, replies = feed_split(b"\r\n\r\n   \x1b[6n")
    assert replies == b"\x1b[3;4R"


def test_CPR_clamps_the_column_while_a_wrap_is_pending() -> None:
    term, replies = feed_split(b"0123456789\x1b[6n", cols=10)
    assert replies == b"\x1b[1;10R"  # not 11: the wrap has not happened yet
    assert term.screen.cursor.col == 9


def test_CPR_after_the_pending_wrap_happens() -> None:
    _, replies = feed_split(b"0123456789x\x1b[6n", cols=10)
    assert replies == b"\x1b[2;2R"


def test_DECXCPR_reports_row_column_and_page() -> None:
    _, replies = feed_split(b"\r\nabc\x1b[?6n")
    assert replies == b"\x1b[?2;4;1R"


def test_DECXCPR_clamps_the_column_while_a_wrap_is_pending() -> None:
    _, replies = feed_split(b"0123456789\x1b[?6n", cols=10)
    assert replies == b"\x1b[?1;10;1R"


def test_DSR_reports_ready() -> None:
    _, replies = feed_split(b"\x1b[5n")
    assert replies == b"\x1b[0n"


@pytest.mark.parametrize("query", [b"\x1b[c", b"\x1b[0c", b"\x1bZ"])
def test_DA1_answers_vt220_with_colour(query: bytes) -> None:
    _, replies = feed_split(query)
    assert replies == b"\x1b[?62;22c"


def test_DA2_is_not_the_primary_answer() -> None:
    term, replies = feed_split(b"\x1b[>c")
    assert replies == b"\x1b[>41;398;0c"
    assert [q.kind for q in term.queries] == ["da2"]


def test_DA2_with_zero_parameter() -> None:
    _, replies = feed_split(b"\x1b[>0c")
    assert replies == b"\x1b[>41;398;0c"


def test_window_size_report_is_rows_then_columns() -> None:
    _, replies = feed_split(b"\x1b[18t", cols=33, rows=7)
    assert replies == b"\x1b[8;7;33t"


@pytest.mark.parametrize(
    ("query", "reply"),
    [
        (b"\x1b]10;?\x07", b"\x1b]10;rgb:ffff/ffff/ffff\x07"),
        (b"\x1b]10;?\x1b\\", b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\"),
        (b"\x1b]11;?\x07", b"\x1b]11;rgb:0000/0000/0000\x07"),
        (b"\x1b]11;?\x1b\\", b"\x1b]11;rgb:0000/0000/0000\x1b\\"),
        (b"\x1b]12;?\x07", b"\x1b]12;rgb:ffff/ffff/ffff\x07"),
    ],
)
def test_OSC_colour_query_reply_uses_the_query_terminator(query: bytes, reply: bytes) -> None:
    _, replies = feed_split(query)
    assert replies == reply


def test_OSC_colour_set_is_not_a_query() -> None:
    term, replies = feed_split(b"\x1b]10;#ffffff\x07x")
    assert replies == b""
    assert not term.queries
    assert row(term, 0) == "x"


def test_DECRQM_reports_bracketed_paste_before_and_after_enabling() -> None:
    _, replies = feed_split(b"\x1b[?2004$p\x1b[?2004h\x1b[?2004$p\x1b[?2004l\x1b[?2004$p")
    assert replies == b"\x1b[?2004;2$y\x1b[?2004;1$y\x1b[?2004;2$y"


def test_DECRQM_reports_unknown_private_mode_as_not_recognised() -> None:
    _, replies = feed_split(b"\x1b[?31337$p")
    assert replies == b"\x1b[?31337;0$y"


def test_DECRQM_reports_ansi_insert_mode() -> None:
    _, replies = feed_split(b"\x1b[4$p\x1b[4h\x1b[4$p")
    assert replies == b"\x1b[4;2$y\x1b[4;1$y"


def test_DECRQM_keeps_ansi_and_private_modes_apart() -> None:
    # pyte keys private mode 1 as 32: ANSI mode 32 is still not recognised.
    _, replies = feed_split(b"\x1b[?1h\x1b[32$p\x1b[?1$p\x1b[?4$p")
    assert replies == b"\x1b[32;0$y\x1b[?1;1$y\x1b[?4;2$y"


def test_DECRQM_reports_default_on_modes() -> None:
    _, replies = feed_split(b"\x1b[?25$p\x1b[?7$p\x1b[?25l\x1b[?25$p")
    assert replies == b"\x1b[?25;1$y\x1b[?7;1$y\x1b[?25;2$y"


def test_DA1_with_other_parameters_is_not_answered() -> None:
    term, replies = feed_split(b"\x1b[3;4cX")
    assert replies == b""
    assert row(term, 0) == "X"


# -- the query log -------------------------------------------------------------------


def test_Query_log_records_kind_request_offset_and_status() -> None:
    term, _ = feed_split(b"ab\x1b[6n\x1b[5n\x1b]11;?\x07\x1b[>c")
    assert query_log(term) == [
        ("cpr", "ESC[6n", 2, b"\x1b[1;3R", "answered"),
        ("dsr", "ESC[5n", 6, b"\x1b[0n", "answered"),
        ("osc-bg", "ESC]11;?BEL", 10, b"\x1b]11;rgb:0000/0000/0000\x07", "answered"),
        ("da2", "ESC[>c", 17, b"\x1b[>41;398;0c", "answered"),
    ]
    assert term.unanswered() == []


def test_Query_offset_counts_bytes_of_multibyte_text() -> None:
    # "é" is 2 bytes, "你" 3 and "❯" 3: the offset is in bytes, not characters.
    term, replies = feed_split("é你❯\x1b[6n".encode())
    assert [q.offset for q in term.queries] == [8]
    assert replies == b"\x1b[1;5R"  # é, 你 (2 columns), ❯


def test_Query_offset_counts_an_invalid_byte_as_one() -> None:
    term, _ = feed_split(b"a\xff\x1b[6n")
    assert [q.offset for q in term.queries] == [2]


def test_Query_offset_of_a_string_query_after_multibyte_text() -> None:
    term, _ = feed_split("你\x1b]10;?\x07".encode())
    assert [q.offset for q in term.queries] == [3]


def test_Query_offset_counts_earlier_feeds() -> None:
    term = Terminal(COLS, ROWS)
    term.feed(b"hello")
    assert term.feed(b" \x1b[6n") == b"\x1b[1;7R"
    assert term.queries[-1].offset == 6


def test_Query_split_across_feeds_is_answered_when_complete() -> None:
    term = Terminal(COLS, ROWS)
    assert term.feed(b"ab\x1b[") == b""
    assert term.feed(b"6") == b""
    assert term.feed(b"n") == b"\x1b[1;3R"
    assert [(q.kind, q.offset) for q in term.queries] == [("cpr", 2)]


def test_Query_offset_of_a_string_split_across_feeds() -> None:
    term = Terminal(COLS, ROWS)
    assert term.feed("你\x1b]1".encode()) == b""
    assert term.feed(b"1;") == b""
    assert term.feed(b"?\x1b") == b""
    assert term.feed(b"\\") == b"\x1b]11;rgb:0000/0000/0000\x1b\\"
    assert [(q.kind, q.request, q.offset) for q in term.queries] == [
        ("osc-bg", "ESC]11;?ESC\\", 3),
    ]


def test_Query_offset_with_utf8_split_before_the_query() -> None:
    term = Terminal(COLS, ROWS)
    data = "你".encode()
    term.feed(data[:2])
    assert term.feed(data[2:] + b"\x1b[6n") == b"\x1b[1;3R"
    assert term.queries[-1].offset == 3


def test_Query_describe_names_the_request_and_its_fate() -> None:
    term, _ = feed_split(b"ab\x1b[6n")
    assert term.queries[0].describe() == (
        "ESC[6n (cursor position report) at output byte 2: answered"
    )


def test_Query_unsupported_kind_is_logged_without_reply() -> None:
    term, replies = feed_split(b"\x1b[=cX")  # DA3: termsim has no answer
    assert replies == b""
    assert query_log(term) == [("da3", "ESC[=c", 0, None, "unsupported")]
    assert term.unanswered() == list(term.queries)
    assert row(term, 0) == "X"


# -- the query table (termsim/emulator/answers/queries.py) --------------------------

#: One request of every kind termsim recognises.
SAMPLE_REQUESTS: dict[str, bytes] = {
    "cpr": b"\x1b[6n",
    "decxcpr": b"\x1b[?6n",
    "dsr": b"\x1b[5n",
    "da1": b"\x1b[c",
    "da2": b"\x1b[>c",
    "window-size": b"\x1b[18t",
    "osc-fg": b"\x1b]10;?\x07",
    "osc-bg": b"\x1b]11;?\x1b\\",
    "osc-cursor": b"\x1b]12;?\x07",
    "decrqm": b"\x1b[?2004$p",
    "da3": b"\x1b[=c",
    "xtversion": b"\x1b[>0q",
    "decrqss": b"\x1bP$qm\x1b\\",
    "xtgettcap": b"\x1bP+q544e\x1b\\",
    "kitty-keyboard": b"\x1b[?u",
    "xtqmodkeys": b"\x1b[?4m",
    "osc-palette": b"\x1b]4;1;?\x07",
    "dsr-other": b"\x1b[1n",
    "decdsr-other": b"\x1b[?26n",
    **{f"xtwinops {op}": f"\x1b[{op}t".encode() for op in (11, 13, 14, 15, 16, 19, 20, 21)},
}
#: The kinds termsim has no answer for yet: logged as "unsupported".
UNSUPPORTED = {
    "da3", "kitty-keyboard", "dsr-other", "decdsr-other",
    *(f"xtwinops {op}" for op in (11, 13, 20, 21)),
}
#: The kinds QUERY_KINDS listed before the table existed.
ORIGINAL_KINDS = {
    "cpr", "decxcpr", "dsr", "da1", "da2", "window-size", "osc-fg", "osc-bg", "osc-cursor",
    "decrqm",
}


def test_QUERY_KINDS_is_the_table_and_describes_every_kind() -> None:
    assert {kind: k.description for kind, k in _queries.KINDS.items()} == QUERY_KINDS
    assert set(QUERY_KINDS) >= ORIGINAL_KINDS
    assert set(SAMPLE_REQUESTS) == set(QUERY_KINDS), "add a sample request for each new kind"
    for kind, description in QUERY_KINDS.items():
        name = description.split(",")[0]
        assert name.strip() and name != description, (kind, description)


@pytest.mark.parametrize("kind", sorted(SAMPLE_REQUESTS))
def test_every_kind_is_recognised_and_answered_from_the_table(
    kind: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    entry = _queries.KINDS[kind]
    seen: list[_queries.Request] = []

    def answer(screen: object, request: _queries.Request) -> str:
        seen.append(request)
        return f"<{request.kind}>"

    monkeypatch.setitem(_queries.KINDS, kind, _queries.Kind(entry.description, answer))  # type: ignore[arg-type]
    term, replies = feed_split(b"x" + SAMPLE_REQUESTS[kind] + b"y")
    assert replies == f"<{kind}>".encode()
    request = seen[-1]
    # The request as sent (a DCS request is logged without its terminator).
    assert SAMPLE_REQUESTS[kind].startswith(request.text.encode())
    assert query_log(term) == [
        (kind, printable(request.text), 1, f"<{kind}>".encode(), "answered"),
    ]
    assert row(term, 0) == "xy"
    assert not term.unknown


@pytest.mark.parametrize("kind", sorted(SAMPLE_REQUESTS))
def test_each_kind_is_answered_or_logged_unsupported(kind: str) -> None:
    # Under every policy: a kind termsim cannot answer is "unsupported".
    for policy in ("answer", "ignore", 0.5):
        term, replies = feed_split(SAMPLE_REQUESTS[kind], policy={kind: policy})
        [query] = term.queries
        assert query.kind == kind
        if kind in UNSUPPORTED:
            assert (query.status, query.reply, replies) == ("unsupported", None, b"")
            assert term.take_deferred() == []
        elif policy == "answer":
            assert query.status == "answered"
            assert query.reply and replies == query.reply
        else:
            assert query.status == ("ignored" if policy == "ignore" else "deferred")
            assert query.reply and replies == b""


def test_Policy_ignore_gives_no_reply_and_lists_the_query_unanswered() -> None:
    term, replies = feed_split(b"ab\x1b[6n\x1b[5n", policy={"cpr": "ignore"})
    assert replies == b"\x1b[0n"  # only the other kind is answered
    cpr = term.queries[0]
    assert (cpr.kind, cpr.status, cpr.offset) == ("cpr", "ignored", 2)
    assert cpr.unanswered
    assert term.unanswered() == [cpr]
    assert term.take_deferred() == []


def test_Policy_delay_computes_the_reply_at_the_query_offset() -> None:
    term, replies = feed_split(b"ab\x1b[6ncdef", policy={"cpr": 0.25})
    assert replies == b""
    assert row(term, 0) == "abcdef"
    deferred = term.take_deferred()
    assert [(q.kind, q.offset, q.reply, q.status, q.delay) for q in deferred] == [
        ("cpr", 2, b"\x1b[1;3R", "deferred", 0.25),
    ]
    assert term.take_deferred() == []  # handed out once
    assert term.unanswered() == deferred
    assert term.deferred_answered() is deferred[0]  # the caller sent it
    assert deferred[0].status == "answered"
    assert term.unanswered() == []
    assert term.deferred_answered() is None


def test_Policy_delay_zero_still_defers() -> None:
    term, replies = feed_split(b"\x1b[5n", policy={"dsr": 0})
    assert replies == b""
    [query] = term.take_deferred()
    assert (query.status, query.delay, query.reply) == ("deferred", 0.0, b"\x1b[0n")
    assert isinstance(query.delay, float)


def test_Policy_delay_is_per_kind() -> None:
    term, replies = feed_split(b"\x1b[6n\x1b[5n\x1b[c", policy={"cpr": 1.5, "dsr": 0.5})
    assert replies == b"\x1b[?62;22c"
    assert [(q.kind, q.delay) for q in term.take_deferred()] == [("cpr", 1.5), ("dsr", 0.5)]
    assert [(q.kind, q.delay) for q in term.queries] == [
        ("cpr", 1.5), ("dsr", 0.5), ("da1", None),
    ]


def test_deferred_answered_marks_the_oldest_deferred_query() -> None:
    term = Terminal(COLS, ROWS, policy={"cpr": 2.0})
    assert term.feed(b"a\x1b[6n\x1b[5nb\x1b[6n") == b"\x1b[0n"
    first, _dsr, second = term.queries
    assert [q.status for q in term.queries] == ["deferred", "answered", "deferred"]
    assert term.deferred_answered() is first
    assert [q.status for q in term.queries] == ["answered", "answered", "deferred"]
    assert term.unanswered() == [second]
    # The answered one is no longer handed out; the other still is.
    assert term.take_deferred() == [second]
    assert term.deferred_answered() is second
    assert term.deferred_answered() is None
    assert term.unanswered() == []
    assert (first.reply, second.reply) == (b"\x1b[1;2R", b"\x1b[1;3R")


def test_deferred_answered_leaves_ignored_and_unsupported_queries_alone() -> None:
    term = Terminal(COLS, ROWS, policy={"cpr": "ignore", "da3": 1.0})
    term.feed(b"\x1b[6n\x1b[=c")
    assert term.deferred_answered() is None
    assert [q.status for q in term.queries] == ["ignored", "unsupported"]


@pytest.mark.parametrize(
    "value",
    ["defer", "later", "ANSWER", "", -1, -0.001, float("nan"), float("inf"), True, None, "1.0"],
)
def test_Policy_invalid_value_is_rejected_naming_kind_and_value(value: object) -> None:
    with pytest.raises(ValueError, match="policy for query kind 'cpr' must be") as info:
        Terminal(COLS, ROWS, policy={"dsr": "ignore", "cpr": value})  # type: ignore[dict-item]
    assert str(info.value).endswith(f"not {value!r}")


def test_Policy_accepts_every_kind_and_every_value() -> None:
    for value in ("answer", "ignore", 0, 0.0, 3, 2.5):
        term = Terminal(COLS, ROWS, policy=dict.fromkeys(QUERY_KINDS, value))
        assert term.policy == dict.fromkeys(QUERY_KINDS, value)


def test_Query_is_a_plain_value() -> None:
    q = Query("cpr", "ESC[6n", 0, b"\x1b[1;1R")
    assert q.status == "answered"
    assert not q.unanswered


# -- sequences stock pyte 0.8.2 raises on or loses the chunk after ------------------


@pytest.mark.parametrize(
    ("data", "expected_row", "expected_replies"),
    [
        (b"\x1b[?6nX", "X", b"\x1b[?1;1;1R"),
        (b"ab\x1b[1;2CX", "ab X", b""),
        (b"ab\x1b[1;1AX", "abX", b""),
        (b"\x1b[3;4cX", "X", b""),
        (b"abcdef\x1b[1;1H\x1b[12;3XX", "X", b""),
        (b"\x1b[?2;7fX", "X", b""),
        (b"\x1b[38:2::255:0:0mX", "X", b""),
        (b"\x1bP+q544e\x1b\\X", "X", b"\x1bP1+r544e=787465726D2D323536636F6C6F72\x1b\\"),
        (b"\x1b_Gabc\x1b\\X", "X", b""),
        (b"\x1b[>4;1mX", "X", b""),
        (b"\x1b[4JX", "X", b""),
        (b"\x1b[3KX", "X", b""),
    ],
)
def test_Terminal_survives_sequences_that_break_stock_pyte(
    data: bytes, expected_row: str, expected_replies: bytes,
) -> None:
    term, replies = feed_split(data)
    assert row(term, 0) == expected_row
    assert replies == expected_replies
    assert internal_errors(term) == []


def test_DECOM_without_margins_uses_the_whole_screen() -> None:
    term, replies = feed_split(b"\x1b[?6h\x1b[6n\x1b[3dX\x1b[6n")
    assert replies == b"\x1b[1;1R\x1b[3;2R"
    assert row(term, 2) == "X"
    assert term.screen.modes.origin


def test_DECOM_with_margins_reports_rows_relative_to_the_top_margin() -> None:
    term, replies = feed_split(b"\x1b[2;4r\x1b[?6h\x1b[2;3HX\x1b[6n")
    assert row(term, 2) == "  X"
    assert replies == b"\x1b[2;4R"


def test_SGR_colon_truecolour_colours_the_text() -> None:
    term, _ = feed_split(b"\x1b[38:2::255:0:0mX\x1b[mY")
    assert term.screen.cell(0, 0).style.fg == "ff0000"
    assert term.screen.cell(0, 1).style.fg == "default"


@pytest.mark.parametrize(
    ("sgr", "fg", "bg"),
    [
        (b"38:5:196", "ff0000", "default"),
        (b"48:2:1:2:3", "default", "010203"),
        (b"38:2::58:1:2", "3a0102", "default"),  # 58 as a colour component
        (b"38;5;196", "ff0000", "default"),
        (b"38;2;1;2;3;48;5;21", "010203", "0000ff"),
        (b"31;42", "red", "green"),
    ],
)
def test_SGR_colours(sgr: bytes, fg: str, bg: str) -> None:
    term, _ = feed_split(b"\x1b[" + sgr + b"mX")
    style = term.screen.cell(0, 0).style
    assert (style.fg, style.bg) == (fg, bg)


@pytest.mark.parametrize(("sgr", "colour"), [
    (b"58:2::1:2:3", "010203"), (b"58:5:3", "cdcd00"), (b"58:2:4:5:7", "040507"),
    (b"58;2;1;2;3", "010203"), (b"58;5;3", "cdcd00"),  # xterm's form, as for 38
])
def test_SGR_underline_colour_changes_no_other_attribute(sgr: bytes, colour: str) -> None:
    # The numbers inside 58:... are colour values, not SGR codes (3 is italic).
    term, _ = feed_split(b"\x1b[4;" + sgr + b"mX")
    style = term.screen.cell(0, 0).style
    assert style.underline
    assert not (style.italic or style.bold or style.blink or style.reverse or style.dim)
    assert (style.underline_colour, style.fg, style.bg) == (colour, "default", "default")


def test_SGR_colon_underline_styles() -> None:
    term, _ = feed_split(b"\x1b[4:3mA\x1b[4:0mB")
    assert term.screen.cell(0, 0).style.underline  # curly is still underlined
    assert term.screen.cell(0, 0).style.underline_style == "curly"
    assert not term.screen.cell(0, 1).style.underline


def test_SGR_colon_parameter_without_values_is_not_a_reset() -> None:
    term, _ = feed_split(b"\x1b[1m\x1b[38:mX")
    assert term.screen.cell(0, 0).style.bold


def test_SGR_modify_other_keys_is_not_underline_or_bold() -> None:
    term, _ = feed_split(b"\x1b[>4;1mX\x1b[>4m")
    style = term.screen.cell(0, 0).style
    assert not style.underline
    assert not style.bold


#: SGR codes pyte keeps, drops, and reads as colour parameters.
_SGR_CODES = st.sampled_from(
    [0, 1, 2, 3, 4, 5, 7, 8, 9, 21, 22, 23, 24, 25, 27, 28, 29, 30, 31, 37, 38, 39, 40, 47,
     48, 49, 53, 90, 97, 100, 105, 107, 2, 5, 16, 196, 255, 256, 1000],
)


@given(
    st.lists(st.lists(_SGR_CODES, max_size=8), min_size=1, max_size=6),
    st.booleans(),
)
@settings(max_examples=examples(300), deadline=None, database=None)
def test_SGR_sets_what_pyte_sets(sequences: list[list[int]], reverse_video: bool) -> None:
    # termsim's SGR (termsim/emulator/screen/sgr.py) is a memoised port of pyte's
    # select_graphic_rendition: each sequence, applied twice (the memos and
    # the per-sequence shortcut), must leave the pen as pyte leaves it, and
    # the attributes pyte drops as xterm sets them (_beyond_pyte).
    # Under DECSCNM the pen holds what is shown: pyte's reverse, inverted.
    term = Terminal(COLS, ROWS)
    screen = pyte.Screen(COLS, ROWS)
    if reverse_video:
        term.feed(b"\x1b[?5h")
    extra: dict[str, bool | str | None] = {"dim": False, "invisible": False, "underline": None}
    for values in sequences + sequences:
        term.feed(b"\x1b[" + ";".join(map(str, values)).encode() + b"m")
        screen.select_graphic_rendition(*_as_xterm_reads(values))
        _beyond_pyte(values or [0], extra)
        pen = screen.cursor.attrs
        shown = pen._replace(reverse=pen.reverse != reverse_video,
                             underscore=extra["underline"] is not None)
        if extra["dim"] or extra["invisible"] or extra["underline"]:
            shown = StyledChar(*shown, extra["dim"], extra["invisible"], extra["underline"] or "")
        got = term._screen.cursor.attrs
        assert (type(got), got) == (type(shown), shown), values


def _as_xterm_reads(values: list[int]) -> list[int]:
    """The values with those xterm reads as 0 added: an extended colour
    (38/48 with 5 or 2) short of values at the end, which pyte drops."""
    i, n = 0, len(values)
    while i < n:
        code = values[i]
        i += 1
        if code in (38, 48) and i < n:
            need = {5: 1, 2: 3}.get(values[i], 0)
            i += 1
            if i + need > n:
                return [*values, *[0] * (i + need - n)]
            i += need
    return values


def _beyond_pyte(values: list[int], extra: dict[str, bool | str | None]) -> None:
    """What xterm's SGR sets that pyte does not keep: dim, invisible, and the
    underline (None, "" for single, "double"), the parameters read as pyte
    reads them (a colour's numbers are no codes)."""
    i = 0
    while i < len(values):
        code = values[i]
        i += 1
        if code in (38, 48):
            mode = values[i] if i < len(values) else -1
            i += {5: 2, 2: 4}.get(mode, 1)  # the mode, and the colour's numbers
        elif code == 0:
            extra.update(dim=False, invisible=False, underline=None)
        elif code in _XTERM_ONLY:
            extra.update(_XTERM_ONLY[code])


_XTERM_ONLY: dict[int, dict[str, bool | str | None]] = {
    2: {"dim": True}, 22: {"dim": False}, 8: {"invisible": True}, 28: {"invisible": False},
    4: {"underline": ""}, 21: {"underline": "double"}, 24: {"underline": None},
}


@pytest.mark.parametrize("params", [
    "38;2;1;2;3", "48;2;255;0;10", "38;2;300;2;3", "38;2;0010;2;3", "48;2;9999;0;0",
    "38;2;1;2;3;1", "1;38;2;1;2;3", "48;2;1;2;3;38;2;4;5;6", "38;2;;2;3",
])
def test_SGR_24_bit_colours_set_what_pyte_sets(params: str) -> None:
    # A 24-bit colour alone takes a shortcut (Sgr.apply_true_colour); other
    # forms the general parse. Both must leave the pen as pyte does, also
    # after a bold red pen.
    for before in ("", "1;31"):
        term = Terminal(COLS, ROWS)
        screen = pyte.Screen(COLS, ROWS)
        stream = pyte.Stream(screen)
        term.feed(f"\x1b[{before}m\x1b[{params}m".encode())
        stream.feed(f"\x1b[{before}m\x1b[{params}m")
        assert term._screen.cursor.attrs == screen.cursor.attrs, (before, params)


def test_SGR_extended_colours_short_of_values_read_them_as_0_as_xterm_does() -> None:
    """Where pyte drops the colour (and the codes after it): xterm's
    parse_extended_colors reads the values missing at the end as 0."""
    for params, fg, bg in [("38;2;1;2", "010200", "default"), ("48;5", "default", "000000"),
                           ("1;38;5;9;48;5", "ff0000", "000000"), ("38;2", "000000", "default")]:
        style = fed(f"\x1b[{params}mx").screen.cell(0, 0).style
        assert (style.fg, style.bg) == (fg, bg), params
    style = fed(b"\x1b[58;5;1;4mx").screen.cell(0, 0).style  # (58: kitty's, as before)
    assert style.underline_colour == "cd0000" and style.underline
    assert fed(b"\x1b[1;58;5mx").screen.cell(0, 0).style.underline_colour == "default"


def test_DCS_body_is_swallowed_and_logged() -> None:
    term, replies = feed_split(b"a\x1bP+q7a7a\x1b\\b")  # "zz": no such capability
    assert row(term, 0) == "ab"
    assert replies == b"\x1bP0+r7a7a\x1b\\"
    assert query_log(term) == [("xtgettcap", "ESCP+q7a7a", 1, replies, "answered")]


@pytest.mark.parametrize(
    "string",
    [b"\x1b_Gabc\x1b\\", b"\x1b_Gf=100;AAAA\x07more\x1b\\", b"\x1b^pm\x1b\\", b"\x1bXsos\x1b\\"],
)
def test_APC_PM_SOS_bodies_are_swallowed(string: bytes) -> None:
    term, _ = feed_split(b"a" + string + b"b")
    assert row(term, 0) == "ab"


def test_CAN_aborts_a_string() -> None:
    term, _ = feed_split(b"\x1b]2;title\x18ok")
    assert row(term, 0) == "ok"
    assert term.screen.title == ""


def test_unknown_CSI_is_counted() -> None:
    term, _ = feed_split(b"\x1b[1;1yX\x1b[yY")
    assert term.unknown["CSI y"] == 2
    assert row(term, 0) == "XY"


def test_unknown_private_CSI_is_counted() -> None:
    term, _ = feed_split(b"\x1b[?2;7fX")
    assert term.unknown["CSI ?f"] == 1


def test_unknown_OSC_is_counted() -> None:
    term, _ = feed_split(b"\x1b]999;x\x07X")
    assert term.unknown["OSC 999"] == 1
    assert row(term, 0) == "X"


# -- the alternate screen ------------------------------------------------------------


def test_alternate_1049_round_trip_restores_text_and_cursor() -> None:
    term, _ = feed_split(b"hello\r\nwor\x1b[?1049h")
    assert term.screen.alternate
    assert term.screen.text.strip() == ""
    assert (term.screen.cursor.row, term.screen.cursor.col) == (1, 3)

    term.feed(b"ALT\x1b[4;5H\x1b[?1049l")
    snap = term.screen
    assert not snap.alternate
    assert snap.lines[0].rstrip() == "hello"
    assert snap.lines[1].rstrip() == "wor"
    assert "ALT" not in snap.text
    assert (snap.cursor.row, snap.cursor.col) == (1, 3)


def test_alternate_1049_content_is_gone_after_leaving() -> None:
    term, _ = feed_split(b"main\x1b[?1049hALT\x1b[?1049l\x1b[?1049h")
    assert term.screen.alternate
    assert "ALT" not in term.screen.text
    assert "main" not in term.screen.text


def test_alternate_1049_split_everywhere() -> None:
    term, _ = feed_split(b"one\r\ntwo\x1b[?1049hALT\r\nSCREEN\x1b[?1049lX")
    assert term.screen.text.splitlines()[:2] == ["one", "twoX"]


def test_alternate_1047_clears_on_leaving_and_keeps_the_cursor() -> None:
    term, _ = feed_split(b"main\x1b[?1047hALT\x1b[?1047l")
    assert not term.screen.alternate
    assert row(term, 0) == "main"
    assert term.screen.cursor.col == 7  # 1047 does not save the cursor
    term.feed(b"\x1b[?1047h")
    assert term.screen.alternate
    assert "ALT" not in term.screen.text


def test_alternate_47_does_not_clear() -> None:
    term, _ = feed_split(b"main\x1b[?47hALT\x1b[?47l")
    assert row(term, 0) == "main"
    term.feed(b"\x1b[?47h")
    assert term.screen.alternate
    assert row(term, 0) == "    ALT"


def test_alternate_leaving_when_not_in_it_changes_nothing() -> None:
    term, _ = feed_split(b"main\x1b[?1049l")
    assert row(term, 0) == "main"
    assert not term.screen.alternate


# -- modes ----------------------------------------------------------------------------


def test_modes_bracketed_paste() -> None:
    term, _ = feed_split(b"\x1b[?2004h")
    assert term.screen.modes.bracketed_paste
    term.feed(b"\x1b[?2004l")
    assert not term.screen.modes.bracketed_paste


def test_modes_application_cursor() -> None:
    term, _ = feed_split(b"\x1b[?1h")
    assert term.screen.modes.application_cursor
    term.feed(b"\x1b[?1l")
    assert not term.screen.modes.application_cursor


def test_modes_cursor_visibility() -> None:
    term, _ = feed_split(b"\x1b[?25l")
    assert term.screen.cursor.visible is False
    term.feed(b"\x1b[?25h")
    assert term.screen.cursor.visible is True


@pytest.mark.parametrize(
    ("mode", "name"), [(9, "x10"), (1000, "normal"), (1002, "button"), (1003, "any")],
)
def test_modes_mouse_tracking(mode: int, name: str) -> None:
    term, _ = feed_split(b"\x1b[?%dh" % mode)
    assert term.screen.modes.mouse == name
    term.feed(b"\x1b[?%dl" % mode)
    assert term.screen.modes.mouse is None


def test_modes_mouse_tracking_reports_the_widest_mode() -> None:
    term, _ = feed_split(b"\x1b[?1000h\x1b[?1003h")
    assert term.screen.modes.mouse == "any"


@pytest.mark.parametrize(("mode", "name"), [(1005, "utf8"), (1006, "sgr"), (1015, "urxvt")])
def test_modes_mouse_encoding(mode: int, name: str) -> None:
    term, _ = feed_split(b"\x1b[?1000;%dh" % mode)
    assert term.screen.modes.mouse_encoding == name
    term.feed(b"\x1b[?%dl" % mode)
    assert term.screen.modes.mouse_encoding is None


def test_modes_focus_events() -> None:
    term, _ = feed_split(b"\x1b[?1004h")
    assert term.screen.modes.focus_events


def test_modes_application_keypad() -> None:
    term, _ = feed_split(b"\x1b=")
    assert term.screen.modes.application_keypad
    term.feed(b"\x1b>")
    assert not term.screen.modes.application_keypad


@pytest.mark.parametrize(
    ("sequence", "shape"), [(b"\x1b[5 q", 5), (b"\x1b[2 q", 2), (b"\x1b[ q", 0)],
)
def test_modes_cursor_shape(sequence: bytes, shape: int) -> None:
    term, _ = feed_split(b"\x1b[3 q" + sequence)
    assert term.screen.modes.cursor_shape == shape


def test_modes_autowrap_off_overwrites_the_last_column() -> None:
    term, _ = feed_split(b"\x1b[?7l0123456789AB", cols=10)
    assert not term.screen.modes.autowrap
    assert term.screen.lines[:2] == ("012345678B", " " * 10)


def test_modes_insert() -> None:
    term, _ = feed_split(b"abc\x1b[1;1H\x1b[4hXY")
    assert term.screen.modes.insert
    assert row(term, 0) == "XYabc"


def test_modes_are_default_on_a_new_terminal() -> None:
    snap = Terminal(COLS, ROWS).screen
    assert snap.modes == Modes()
    assert snap.cursor.visible


@pytest.mark.parametrize(
    "sequence", [b"\x1b]0;my title\x07", b"\x1b]2;my title\x07", b"\x1b]2;my title\x1b\\"],
)
def test_title_from_OSC_0_and_2(sequence: bytes) -> None:
    term, _ = feed_split(sequence + b"X")
    assert term.screen.title == "my title"
    assert row(term, 0) == "X"


def test_title_utf8() -> None:
    term, _ = feed_split("\x1b]2;❯ 你好\x07".encode())
    assert term.screen.title == "❯ 你好"


def test_title_stack_push_and_pop() -> None:
    term, _ = feed_split(b"\x1b]2;first\x07\x1b[22;0t\x1b]2;second\x07")
    assert term.screen.title == "second"
    term.feed(b"\x1b[23;0t")
    assert term.screen.title == "first"
    term.feed(b"\x1b[23;0t")  # an empty stack changes nothing
    assert term.screen.title == "first"


# -- UTF-8 ------------------------------------------------------------------------------


def test_utf8_prompt_fed_byte_by_byte() -> None:
    term = Terminal(COLS, ROWS)
    for byte in "❯ ready".encode():
        term.feed(bytes([byte]))
    assert row(term, 0) == "❯ ready"
    assert term.screen.cursor.col == 7


def test_utf8_split_inside_a_wide_character() -> None:
    data = "你好".encode()
    term = Terminal(COLS, ROWS)
    term.feed(data[:4])
    assert row(term, 0) == "你"
    term.feed(data[4:])
    assert row(term, 0) == "你好"


def test_utf8_every_split() -> None:
    term, _ = feed_split("❯ 你好 é\r\n✓".encode())
    assert term.screen.text.splitlines()[:2] == ["❯ 你好 é", "✓"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"a\xffb", "a\ufffdb"),
        (b"\xc3(x", "\ufffd(x"),
        # One U+FFFD a sequence as xterm reads it (a lead byte and the
        # continuation bytes it announces), not per byte, so the rest of the
        # line does not shift (tests/test_invalid_utf8.py has the rest, and
        # the Unicode way, one per maximal subpart).
        (b"\xe4\xbdX", "\ufffdX"),
        (b"\xf0\x9f\x98!", "\ufffd!"),
        (b"\xed\xa0\x80.", "\ufffd."),  # a surrogate
        (b"\xe0\x80\x80.", "\ufffd."),  # overlong
        (b"\xf4\x90\x80\x80.", "\ufffd."),  # past U+10FFFF
        (b"\xe2\x82\xe2\x82\xac", "\ufffd€"),
        (b"\x80\x80ok", "\ufffd\ufffdok"),
    ],
)
def test_utf8_invalid_bytes_are_replacement_characters(data: bytes, expected: str) -> None:
    term, _ = feed_split(data)
    assert row(term, 0) == expected


def test_utf8_truncated_sequence_then_a_query() -> None:
    term, replies = feed_split(b"\xe4\xbd\x1b[6n")
    assert replies == b"\x1b[1;2R"  # one U+FFFD for the two bytes
    assert [q.offset for q in term.queries] == [2]


# -- wide and zero-width characters ----------------------------------------------------


def test_wide_characters_take_two_columns() -> None:
    term, _ = feed_split("你好x".encode())
    snap = term.screen
    assert [snap.cell(0, c).char for c in range(5)] == ["你", "", "好", "", "x"]
    assert snap.cursor.col == 5
    assert row(term, 0) == "你好x"


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        (b"\x1b[1;1H", ["X", " ", "好", ""]),  # over the left half
        (b"\x1b[1;2H", [" ", "X", "好", ""]),  # over the right half
        (b"\x1b[1;4H", ["你", "", " ", "X"]),
    ],
)
def test_wide_character_half_overwritten_leaves_no_orphan(
    move: bytes, expected: list[str],
) -> None:
    term, _ = feed_split("你好".encode() + move + b"X")
    snap = term.screen
    assert [snap.cell(0, c).char for c in range(4)] == expected


def test_wide_character_over_two_wide_halves_leaves_no_orphans() -> None:
    term, _ = feed_split("你好\x1b[1;2H中".encode())
    snap = term.screen
    assert [snap.cell(0, c).char for c in range(4)] == [" ", "中", "", " "]


def test_wide_character_wraps_instead_of_straddling_the_margin() -> None:
    term, _ = feed_split("abcd你".encode(), cols=5)
    assert term.screen.lines[:2] == ("abcd ", "你   ")


@pytest.mark.parametrize(
    ("data", "col1", "col2"),
    [("a\u200bbc", "b", "c"), ("a\u200dbc", "b", "c"), ("\u2764\ufe0fbc", "b", "c")],
)
def test_zero_width_characters_do_not_drop_the_rest_of_the_run(
    data: str, col1: str, col2: str,
) -> None:
    term, _ = feed_split(data.encode() + b"!")
    snap = term.screen
    assert snap.cell(0, 0).char.startswith(data[0])  # the zero-width char joins it
    assert (snap.cell(0, 1).char, snap.cell(0, 2).char, snap.cell(0, 3).char) == (
        col1, col2, "!",
    )
    assert snap.cursor.col == 4


def test_combining_mark_joins_the_previous_cell() -> None:
    term, _ = feed_split("e\u0301x".encode())
    assert term.screen.cell(0, 0).char == "é"
    assert term.screen.cell(0, 1).char == "x"


def test_DEC_graphics_maps_only_the_graphics_range() -> None:
    term, _ = feed_split(b"\x1b(0lqk-+.0x\x1b(BEND-MARKER")
    assert row(term, 0) == "┌─┐-+.0│END-MARKER"


def test_DEC_graphics_in_G1_with_shift_out_and_in() -> None:
    term, _ = feed_split(b"\x1b)0\x0eqq\x0fqq")
    assert row(term, 0) == "──qq"


# -- line and scroll operations ----------------------------------------------------------


def test_NEL_returns_to_column_zero() -> None:
    term, _ = feed_split(b"abc\x1bEd")
    assert term.screen.lines[:2] == ("abc".ljust(COLS), "d".ljust(COLS))
    assert (term.screen.cursor.row, term.screen.cursor.col) == (1, 1)


def test_LF_keeps_the_column() -> None:
    term, _ = feed_split(b"abc\nd")
    assert row(term, 1) == "   d"


def test_SU_scrolls_up_and_keeps_the_cursor() -> None:
    term, _ = feed_split(b"1\r\n2\r\n3\r\n4\x1b[S", rows=4)
    assert term.screen.text == "2\n3\n4\n"
    assert (term.screen.cursor.row, term.screen.cursor.col) == (3, 1)


def test_SD_scrolls_down_and_keeps_the_cursor() -> None:
    term, _ = feed_split(b"1\r\n2\r\n3\r\n4\x1b[2T", rows=4)
    assert term.screen.text == "\n\n1\n2"
    assert (term.screen.cursor.row, term.screen.cursor.col) == (3, 1)


def test_SU_inside_margins_leaves_other_rows() -> None:
    term, _ = feed_split(b"1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[S", rows=4)
    assert term.screen.text == "1\n3\n\n4"


def test_REP_repeats_the_last_character() -> None:
    term, _ = feed_split(b"ab\x1b[3b")
    assert row(term, 0) == "abbbb"


def test_REP_without_a_previous_character_draws_nothing() -> None:
    term, _ = feed_split(b"\x1b[3bX")
    assert row(term, 0) == "X"


def test_delete_lines_does_not_depend_on_an_earlier_read() -> None:
    setup, delete = b"A\r\nB\r\n\r\nD", b"\x1b[1;1H\x1b[2M"
    read_before = Terminal(COLS, ROWS)
    read_before.feed(setup)
    assert read_before.screen.text.startswith("A\nB\n\nD")  # reads every row
    read_before.feed(delete)

    never_read = Terminal(COLS, ROWS)
    never_read.feed(setup)
    never_read.feed(delete)

    assert [line.rstrip() for line in never_read.screen.lines] == ["", "D", "", "", ""]
    assert read_before.screen == never_read.screen


def test_delete_lines_split_everywhere() -> None:
    term, _ = feed_split(b"A\r\nB\r\n\r\nD\x1b[1;1H\x1b[2M")
    assert term.screen.text == "\nD\n\n\n"


def test_insert_lines_does_not_depend_on_an_earlier_read() -> None:
    setup, insert = b"A\r\n\r\nC\r\nD", b"\x1b[1;1H\x1b[L"
    read_before = Terminal(10, 4)
    read_before.feed(setup)
    _ = read_before.screen
    read_before.feed(insert)
    never_read = Terminal(10, 4)
    never_read.feed(setup + insert)
    assert never_read.screen.text == "\nA\n\nC"
    assert read_before.screen == never_read.screen


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"abcdef\x1b[1;3H\x1b[K", "ab"),
        (b"abcdef\x1b[1;3H\x1b[1K", "   def"),
        (b"abcdef\x1b[1;3H\x1b[2K", ""),
        (b"abcdef\x1b[1;3H\x1b[2P", "abef"),
        (b"abcdef\x1b[1;3H\x1b[2@", "ab  cdef"),
        (b"abcdef\x1b[1;3H\x1b[2X", "ab  ef"),
    ],
)
def test_Terminal_line_editing(data: bytes, expected: str) -> None:
    term, _ = feed_split(data)
    assert row(term, 0) == expected


def test_ED_erases_below_the_cursor() -> None:
    term, _ = feed_split(b"one\r\ntwo\r\nthree\x1b[2;2H\x1b[J")
    assert term.screen.text == "one\nt\n\n\n"


# -- generation ---------------------------------------------------------------------------


def test_generation_increases_when_the_screen_changes() -> None:
    term = Terminal(COLS, ROWS)
    seen = [term.generation]
    for data in [b"x", b"\x1b[C", b"\x1b[?2004h", b"\x1b]2;t\x07", b"\x1b[?25l", b"\x1b[5 q"]:
        term.feed(data)
        assert term.generation > seen[-1], data
        seen.append(term.generation)


@pytest.mark.parametrize(
    "noop", [b"", b"\x1b[?25h", b"\x1b[m", b"\x1b[H", b"\x1b[6n", b"\x1b[>4;1m", b"\x1b[1;1y"],
)
def test_generation_stays_on_a_feed_that_changes_nothing(noop: bytes) -> None:
    term = Terminal(COLS, ROWS)
    term.feed(b"\x1b[?25h")
    before = term.generation
    snap = term.screen
    term.feed(noop)
    assert term.generation == before
    assert term.screen is snap  # cached per generation


def test_generation_is_in_the_snapshot() -> None:
    term = Terminal(COLS, ROWS)
    first = term.screen
    term.feed(b"x")
    second = term.screen
    assert second.generation > first.generation
    assert first.lines[0].strip() == ""  # an older snapshot does not change


def test_Terminal_rejects_an_empty_size() -> None:
    with pytest.raises(ValueError, match="at least 1x1"):
        Terminal(0, 5)


def test_Terminal_resize_changes_the_size_and_the_window_report() -> None:
    term = Terminal(COLS, ROWS)
    term.feed(b"hello")
    before = term.generation
    term.resize(30, 8)
    assert (term.cols, term.rows) == (30, 8)
    assert term.generation > before
    assert term.feed(b"\x1b[18t") == b"\x1b[8;8;30t"
    assert row(term, 0) == "hello"


# -- fuzzing --------------------------------------------------------------------------------

FRAGMENTS = [
    b"\x1b[", b"\x1b]", b"\x1bP", b"\x1b_", b"\x1b^", b"\x1bX", b"\x1b(", b"\x1b)", b"\x1b#",
    b"\x1b", b"?", b">", b"=", b"?6n", b"6n", b"5n", b"$p", b"18t", b"10;?", b"11;?",
    b";", b":", b"1", b"2", b"0", b"47", b"1049", b"2004", b"h", b"l", b"m", b"H", b"J", b"K",
    b"M", b"L", b"b", b"c", b"q", b" q", b"r", b"S", b"T", b"B", b"\x07", b"\x1b\\",
    b"\x18", b"\x1a", b"\x0e", b"\x0f", b"\r\n", b"\x08", b"\t", b"\x9b", b"\x9c", b"\x9d",
    b"\x90", b"\xc2\x9b", b"\xc2\x9d", b"\xe4", b"\xbd", "你".encode(), "❯".encode(),
    "\u200b".encode(), "e\u0301".encode(), b"x",
]
_param = st.one_of(
    st.integers(min_value=0, max_value=70000).map(str),
    st.sampled_from(["", "38:2::1:2:3", "38:5:9", "58:2::1:2:3", "4:3", ":"]),
)
#: Whole CSI sequences with any parameters: finds handlers that fail on a value.
_csi = st.builds(
    lambda private, params, inter, final: f"\x1b[{private}{params}{inter}{final}".encode(),
    st.sampled_from(["", "?", ">", "=", "<"]),
    st.lists(_param, max_size=4).map(";".join),
    st.sampled_from(["", " ", "$", "!", '"', "'"]),
    st.characters(min_codepoint=0x40, max_codepoint=0x7E),
)
_esc = st.builds(
    lambda inter, final: b"\x1b" + inter + bytes([final]),
    st.sampled_from([b"", b"(", b")", b"#", b" ", b"%"]),
    st.integers(min_value=0x30, max_value=0x7E),
)
_string = st.builds(
    lambda intro, body, end: intro + body.encode() + end,
    st.sampled_from([b"\x1b]", b"\x1bP", b"\x1b_", b"\xc2\x9d"]),
    st.sampled_from(["0;t", "2;\u276f", "10;?", "11;?", "12;?", "4;1;?", "999;x", "$qm", "+q544e"]),
    st.sampled_from([b"\x07", b"\x1b\\", b"\xc2\x9c", b""]),
)
spliced = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.binary(max_size=3), _csi, _esc, _string),
    max_size=30,
).map(b"".join)
RECOVER = b"\x18\x1b\\\x0f\r\nEND-MARKER"


@given(st.one_of(st.binary(max_size=300), spliced))
@settings(max_examples=examples(300), deadline=None, database=None)
def test_Terminal_fuzz_never_raises_and_recovers(data: bytes) -> None:
    term = Terminal(80, 24)
    term.feed(data)
    assert isinstance(term.screen, Snapshot)
    term.feed(RECOVER)
    assert "END-MARKER" in term.screen.text
    assert internal_errors(term) == []


@given(spliced, st.lists(st.integers(min_value=0, max_value=200), max_size=6))
@settings(max_examples=examples(300), deadline=None, database=None)
def test_Terminal_fuzz_chunking_changes_nothing(data: bytes, cuts: list[int]) -> None:
    points = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    whole, replies = feed_chunks([data], 80, 24)
    split, split_replies = feed_chunks(chunks, 80, 24)
    assert split.screen == whole.screen
    assert split_replies == replies
    assert query_log(split) == query_log(whole)


# -- transcripts ----------------------------------------------------------------------------


def test_transcript_keeps_the_rows_that_scrolled_off() -> None:
    term = Terminal(10, 3)
    term.feed(b"\r\n".join(f"line {i}".encode() for i in range(8)))
    assert term.screen.text == "line 5\nline 6\nline 7"
    assert term.transcript() == "\n".join(f"line {i}" for i in range(8))


def test_transcript_since_a_mark_leaves_out_what_was_drawn_before() -> None:
    term = Terminal(12, 4)
    term.feed(b"old 1\r\nold 2\r\n> ")
    since = term.history_mark()
    # The reply scrolls the old rows off; they are still not part of it.
    term.feed(b"hi\r\n" + b"\r\n".join(f"reply {i}".encode() for i in range(6)) + b"\r\n> ")
    assert term.transcript(since) == "> hi\n" + "\n".join(f"reply {i}" for i in range(6)) + "\n>"
    assert "old" not in term.transcript(since)
    assert term.transcript().startswith("old 1\nold 2\n> hi")


def test_transcript_has_no_escape_sequences_and_skips_the_alternate_screen() -> None:
    term = Terminal(10, 2)
    term.feed(b"\x1b[1;31mred\x1b[0m\r\nx\r\ny")
    term.feed(b"\x1b[?1049h" + b"\r\n".join(b"full %d" % i for i in range(5)) + b"\x1b[?1049l")
    assert term.transcript() == "red\nx\ny"


def test_transcript_memory_is_bounded_and_says_what_it_dropped() -> None:
    from termsim.emulator.screen.screen import HISTORY_ROWS

    term = Terminal(10, 2)
    term.feed(b"\r\n".join(b"%d" % i for i in range(HISTORY_ROWS + 50)))
    lines = term.transcript().split("\n")
    assert lines[0] == "[… 48 earlier rows not kept]"  # 2 rows are on the screen
    assert lines[1] == "48" and lines[-1] == str(HISTORY_ROWS + 49)
