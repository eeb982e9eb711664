"""The shared test helpers (``tests/helpers.py``): each check of ``feed_split``
catches a terminal that depends on where its reads end."""

from __future__ import annotations

import pytest
from helpers import feed_chunks, feed_split, query_log

from termsim.emulator import Terminal


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
