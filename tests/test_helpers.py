"""The shared test helpers (``tests/helpers.py``): each check of ``feed_split``
catches a terminal that depends on where its reads end, and each of the
small helpers does what the tests that use it count on."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import msgpack
import pytest
from helpers import (
    COLS,
    ROWS,
    cli_under_a_memory_limit,
    cursor_of,
    fed,
    feed_chunks,
    feed_split,
    file_record,
    is_wide,
    nfc,
    output_in_pieces,
    query_log,
    recorded,
    rows_of,
    screen,
    xfail_param,
)

from termsim import Driver, Snapshot, Text
from termsim.emulator import Emulation, Terminal
from termsim.events import End, Input, Output
from termsim.files import Playback, Recording
from termsim.recording.format import MAGIC, RecordingWriter, make_header


def test_feed_split_returns_the_terminal_fed_whole_and_its_replies() -> None:
    term, replies = feed_split(b"ab\x1b[6n", cols=10, rows=3)
    assert replies == b"\x1b[1;3R"
    assert (term.cols, term.rows, term.bytes_fed) == (10, 3, 6)
    assert term.screen.lines[0].rstrip() == "ab"
    assert query_log(term) == [("cpr", "ESC[6n", 2, b"\x1b[1;3R", "answered")]


def test_feed_split_passes_the_policy_on() -> None:
    term, replies = feed_split(b"\x1b[6n", policy={"cpr": "ignore"})
    assert replies == b""
    assert query_log(term) == [("cpr", "ESC[6n", 0, b"\x1b[1;1R", "ignored")]


def test_feed_chunks_feeds_in_order() -> None:
    term, replies = feed_chunks([b"a", b"\x1b[6", b"n"])
    assert replies == b"\x1b[1;2R"
    assert term.bytes_fed == 5


def test_feed_split_fails_for_a_terminal_that_depends_on_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_feed = Terminal.feed

    def lossy_feed(self: Terminal, data: bytes) -> bytes:
        return real_feed(self, b"" if data == b"b" else data)  # loses a lone "b"

    monkeypatch.setattr(Terminal, "feed", lossy_feed)
    with pytest.raises(AssertionError, match="one byte at a time: screen"):
        feed_split(b"abc")


def test_feed_split_fails_when_replies_depend_on_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    real_feed = Terminal.feed

    def mute_feed(self: Terminal, data: bytes) -> bytes:
        replies = real_feed(self, data)
        return b"" if len(data) == 1 else replies  # no reply from a one-byte read

    monkeypatch.setattr(Terminal, "feed", mute_feed)
    with pytest.raises(AssertionError, match="one byte at a time: replies"):
        feed_split(b"\x1b[5n")


def test_feed_split_fails_when_a_query_offset_depends_on_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The character index in the text being parsed, not the byte offset in
    # the whole stream: right when fed whole, wrong after a split.
    monkeypatch.setattr(Terminal, "_offset_of", lambda self, index: index)
    with pytest.raises(AssertionError, match="query log"):
        feed_split(b"ab\x1b[5n")


def test_feed_split_fails_when_unknown_counts_depend_on_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_feed = Terminal.feed

    def counting_feed(self: Terminal, data: bytes) -> bytes:
        if len(data) == 1:
            self.unknown["one-byte read"] += 1
        return real_feed(self, data)

    monkeypatch.setattr(Terminal, "feed", counting_feed)
    with pytest.raises(AssertionError, match="one byte at a time: unknown"):
        feed_split(b"ab")


# -- a fresh terminal, fed ---------------------------------------------------------------


def test_fed_feeds_bytes_or_text_as_utf8_to_a_terminal_of_the_size_asked() -> None:
    term = fed(b"ab")
    assert (term.cols, term.rows, term.bytes_fed) == (COLS, ROWS, 2)
    text = fed("中x", cols=4, rows=2)
    assert (text.cols, text.rows, text.bytes_fed) == (4, 2, 4)  # 中 is three bytes
    assert text.screen.lines[0] == "中x " and cursor_of(text) == (0, 3)


def test_fed_passes_the_emulation_on() -> None:
    family = "\U0001f468\u200d\U0001f469"
    assert cursor_of(fed(family, emulation=Emulation(graphemes=True))) == (0, 2)
    assert cursor_of(fed(family)) == (0, 4)  # two wide characters, the joiner on the first


def test_screen_is_the_snapshot_of_the_terminal_fed() -> None:
    snap = screen(b"hi\r\n\x1b[1mthere", cols=8, rows=3)
    assert isinstance(snap, Snapshot)
    assert snap == fed(b"hi\r\n\x1b[1mthere", 8, 3).screen
    assert snap.cell(1, 0).style.bold and not snap.cell(0, 0).style.bold


def test_rows_of_strips_each_row_and_on_request_the_blank_rows_at_the_bottom() -> None:
    term = fed(b"a  \r\n\r\n c \r\n", cols=5, rows=5)
    assert rows_of(term) == ["a", "", " c", "", ""]
    assert rows_of(term, blank_bottom=False) == ["a", "", " c"]
    assert rows_of(fed(b""), blank_bottom=False) == []


def test_cursor_of_is_row_then_column() -> None:
    assert cursor_of(fed(b"abc\r\nd")) == (1, 1)
    assert cursor_of(fed(b"\x1b[3;7H")) == (2, 6)


# -- text -------------------------------------------------------------------------------


def test_nfc_composes() -> None:
    assert nfc("e\u0301") == "\u00e9"
    assert nfc("\u00e9") == "\u00e9" and nfc("") == ""


@pytest.mark.parametrize(("text", "wide"), [
    ("中", True), ("中a", True), ("Ａ", True), ("a中", False), ("a", False), ("", False),
    ("\u0301", False), ("é", False),
])
def test_is_wide_looks_at_the_first_character(text: str, wide: bool) -> None:
    assert is_wide(text) is wide


# -- parametrize cases -----------------------------------------------------------------


def test_xfail_param_is_a_strict_expected_failure_only_with_a_reason() -> None:
    failing = xfail_param("a", 1, id="a-1", reason="a known deviation")
    assert (failing.values, failing.id) == (("a", 1), "a-1")
    (mark,) = failing.marks
    assert mark.name == "xfail"
    assert mark.kwargs == {"reason": "a known deviation", "strict": True}
    for none in (None, ""):
        passing = xfail_param("b", id="b", reason=none)
        assert (passing.values, passing.id, list(passing.marks)) == (("b",), "b", [])


# -- recordings made by hand -------------------------------------------------------------


def test_file_record_is_a_record_as_the_writer_writes_it(tmp_path: Path) -> None:
    header = make_header(argv=["x"], cwd="/", cols=10, rows=2, env={})
    writer = RecordingWriter(tmp_path / "w.tsr", header)
    writer.write(Output(10e-6, b"hi"))
    writer.close(20e-6, "closed")
    assert (tmp_path / "w.tsr").read_bytes() == (
        MAGIC + file_record(header) + file_record(["o", 10, b"hi"])
        + file_record(["e", 20, "closed"]))
    unpacker = msgpack.Unpacker()
    unpacker.feed(file_record(["o", 10, b"hi"]))
    packed = msgpack.packb(["o", 10, b"hi"])
    assert list(unpacker) == [["o", 10, b"hi"], zlib.crc32(packed)]


def test_records_made_by_hand_read_back_and_a_flipped_bit_is_caught() -> None:
    header = make_header(argv=["x"], cwd="/", cols=10, rows=2, env={})
    data = MAGIC + file_record(header) + file_record(["o", 10, b"hi"]) \
        + file_record(["e", 20, "closed"])
    recording = Recording.from_bytes(data)
    assert recording.complete and recording.events == [Output(10e-6, b"hi"), End(20e-6, "closed")]
    damaged = bytearray(data)
    damaged[-3] ^= 0x01
    with pytest.raises(Exception, match="CRC-32"):
        Recording.from_bytes(bytes(damaged))


def test_output_in_pieces_cuts_where_asked_and_draws_what_the_whole_draws() -> None:
    header = make_header(argv=["x"], cwd="/", cols=10, rows=3, env={})
    data = b"hello\r\n\x1b[1mworld"
    split = output_in_pieces(data, [3, 3, 0, 8, len(data) + 1 + 5], header)
    # 0 and len(data) cut nothing; a cut past the end counts modulo len + 1.
    assert [e.data for e in split.events] == [b"hel", b"lo", b"\r\n\x1b", b"[1mworld"]
    assert [e.t for e in split.events] == [0.0, 1.0, 2.0, 3.0]
    assert split.header == header and split.complete
    assert Playback(split).screen_at() == screen(data, 10, 3)
    whole = output_in_pieces(data, [], header)
    assert [e.data for e in whole.events] == [data]
    assert output_in_pieces(b"", [0, 1], header).events == []


@pytest.mark.anyio
async def test_recorded_records_the_session_the_script_drives(tmp_path: Path) -> None:
    async def script(term: Driver) -> None:
        await term.wait_for(Text("ready"), timeout=10)
        await term.type("typed\r")
        await term.wait_for(Text("got typed"), timeout=10)

    path = tmp_path / "rec.tsr"
    argv = [sys.executable, "-c", "print('ready'); print('got', input())"]
    await recorded(argv, path, script, cols=30, rows=4)
    recording = Recording.open(path)
    assert (recording.cols, recording.rows) == (30, 4)
    assert any(isinstance(e, Input) and e.data == b"typed\r" for e in recording.events)
    assert "got typed" in Playback(recording).screen_at().text


def test_cli_under_a_memory_limit_runs_each_command_with_its_own_status_and_stderr(
        tmp_path: Path) -> None:
    recording = Path(__file__).resolve().parent.parent / "recordings" / "passing.tsr"
    missing = tmp_path / "missing.tsr"
    results = cli_under_a_memory_limit([["show", str(recording)], ["show", str(missing)],
                                        ["show", str(recording)]], limit=1 << 30)
    assert [status for status, _ in results] == [0, 1, 0]
    assert results[0][1] == results[2][1] == ""
    assert str(missing) in results[1][1] and len(results[1][1].splitlines()) == 1


def test_cli_under_a_memory_limit_fails_when_the_child_cannot_live_within_it() -> None:
    """16 MiB of address space is less than the interpreter maps to start."""
    with pytest.raises(AssertionError):
        cli_under_a_memory_limit([["show", "any.tsr"]], limit=1 << 24)
