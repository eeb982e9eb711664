"""The escape grammar, asked of the tokenizer (``termsim.emulator.parsing.grammar``).

Hand-written cases first (combined modes, strings, 8-bit CSI, sequences cut
across chunks, CAN and SUB, ESC and controls inside a CSI), then properties
on generated streams: the spans are the tokens the ``Parser`` hands a plain
recording handler, whatever the chunks; ``FrameEdges`` fed in chunks cuts
where the spans of the whole stream say; the terminal logs its queries
where a span begins.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Callable
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termsim.emulator import Terminal
from termsim.emulator.parsing import escapes
from termsim.emulator.parsing import frame_edges as frame_edges_module
from termsim.emulator.parsing.frame_edges import FrameEdges, frame_edges, frame_switch
from termsim.emulator.parsing.grammar import PLAIN, Scanner, Span, sequence_at, sequences
from termsim.emulator.parsing.tokenizer import Parser, Part
from termsim.emulator.screen import styled
from termsim.emulator.terminal import lines as terminal_lines
from termsim.emulator.terminal import terminal

# -- hand-written cases -------------------------------------------------------------


def _kinds(data: bytes | str) -> list[tuple[str, int, int]]:
    return [(s.kind, s.start, s.end) for s in sequences(data)]


def test_tokens_of_a_plain_stream() -> None:
    data = b"ab\x1b[?25l\x1b[1mX\r\n\x1b(B\x1b]0;title\x07"
    assert _kinds(data) == [
        ("text", 0, 2), ("csi", 2, 8), ("csi", 8, 12), ("text", 12, 13),
        ("control", 13, 14), ("control", 14, 15), ("esc", 15, 18), ("osc", 18, 28),
    ]
    csi = sequences(data)[1]
    assert (csi.private, csi.params, csi.inter, csi.final) == ("?", "25", "", "l")
    assert csi.modes == ["25"]
    esc = sequences(data)[6]
    assert (esc.inter, esc.final) == ("(", "B")
    assert sequences(data)[-1].final == "\x07"


@pytest.mark.parametrize(("chunk", "edges"), [
    (b"\x1b[?25l", [(0, True)]),
    (b"ab\x1b[?25h", [(8, False)]),
    (b"\x1b[?2026h..\x1b[?2026l", [(0, True), (18, False)]),
    # Combined modes: alternate screen and cursor shown closes a frame...
    (b"x\x1b[?1049;25h", [(12, False)]),
    (b"x\x1b[?7;25l", [(1, True)]),
    # ...and one that hides the cursor and ends an update does both.
    (b"a\x1b[?25;2026l", [(1, True), (12, False)]),
    (b"\x1b[?1049h\x1b[?12l", []),
    (b"\x1b[25l\x1b[?250l\x1b[?2025h\x1b[>25l", []),  # no "?", or not those modes
    # 8-bit CSI is C2 9B in UTF-8, as the terminal reads it; a lone 0x9b is not.
    (b"x\xc2\x9b?25l", [(1, True)]),
    (b"x\x9b?25l", []),
])
def test_frame_edges(chunk: bytes, edges: list[tuple[int, bool]]) -> None:
    assert frame_edges(chunk) == edges


def test_a_sequence_inside_a_string_body_is_none() -> None:
    # A C1 CSI in a title or a DCS body is part of the body.
    assert frame_edges("\x1b]0;\u009b?25l\x07\x1bP\u009b?25h\x1b\\".encode()) == []
    assert [s.kind for s in sequences("\u009d0;\u009b?25l\u009c")] == ["osc"]
    # The text of a title is not a sequence either.
    assert frame_edges(b"\x1b]2;[?25l \x1b[?25l\x07") != []  # (ESC ends the title)
    assert frame_edges(b"\x1b]2;[?25l ?25l\x07") == []


def test_an_esc_ends_a_string_as_in_the_terminal() -> None:
    # xterm's parser: ESC + anything but backslash ends the string and starts
    # a sequence, so ESC[?25l can never hide in a title.
    data = b"\x1b]0;t\x1b[?25l\x07"
    assert _kinds(data) == [("osc", 0, 5), ("csi", 5, 11), ("control", 11, 12)]
    assert frame_edges(data) == [(5, True)]
    term = Terminal(20, 3)
    term.feed(data)
    assert term.cursor_hidden


def test_8_bit_csi_in_str_and_bytes() -> None:
    assert _kinds("a\x9b?25l") == [("text", 0, 1), ("csi", 1, 6)]
    assert _kinds(b"a\xc2\x9b?25l") == [("text", 0, 1), ("csi", 1, 7)]
    assert _kinds(b"a\x9b?25l") == [("text", 0, 6)]  # an undecodable byte, drawn


def test_cut_sequences_are_incomplete() -> None:
    assert sequences(b"ab\x1b[?2")[-1] == Span(2, 6, "csi", complete=False)
    assert sequences(b"ab\x1b")[-1] == Span(2, 3, "esc", complete=False)
    assert sequences(b"\x1b]0;tit")[-1] == Span(0, 7, "osc", complete=False)
    assert sequences(b"\x1bPq\x1b")[-1] == Span(0, 4, "dcs", complete=False)
    assert sequences(b"a\xe2\x94")[-1] == Span(1, 3, "text", complete=False)
    assert all(s.complete for s in sequences(b"ab\x1b[?25l"))


def test_a_sequence_cut_across_chunks_is_reported_once_whole() -> None:
    scanner = Scanner()
    assert [s.kind for s in scanner.feed(b"ab\x1b[?2")] == ["text"]
    assert scanner.feed(b"5lc") == [Span(2, 8, "csi", "?", "25", "", "l"), Span(8, 9, "text")]
    assert scanner.feed(b"\x1b]0;a") == []
    assert scanner.feed(b"b\x07") == [Span(9, 16, "osc", final="\x07")]
    assert scanner.close() == []
    edges = FrameEdges()
    assert edges.feed(b"ab\x1b[?2") == []
    assert edges.feed(b"5lxy\x1b[?2") == [(0, True)]  # began before: nothing to cut
    assert edges.feed(b"5h!") == [(2, False)]
    assert edges.feed("é\x1b[?25".encode()[:1]) == []  # a cut UTF-8 character
    assert edges.feed("é\x1b[?25h".encode()[1:]) == [(7, False)]


@pytest.mark.parametrize("abort", [b"\x18", b"\x1a"])
def test_can_and_sub_abort_a_sequence_or_string(abort: bytes) -> None:
    assert frame_edges(b"\x1b[?25" + abort + b"l") == []
    assert [s.kind for s in sequences(b"\x1b[?25" + abort + b"l")] == ["control", "text"]
    assert [s.kind for s in sequences(b"\x1b]0;ti" + abort + b"tle")] == ["text"]


def test_esc_inside_a_csi_starts_another() -> None:
    assert _kinds(b"\x1b[?2\x1b[?25l") == [("csi", 4, 10)]
    assert frame_edges(b"\x1b[?2\x1b[?25h") == [(10, False)]


def test_a_control_inside_a_csi_comes_first() -> None:
    data = b"\x1b[?2\n5l"
    assert sequences(data) == [Span(4, 5, "control"), Span(0, 7, "csi", "?", "25", "", "l")]
    assert frame_edges(data) == [(0, True)]
    term = Terminal(20, 3)
    term.feed(data)
    assert term.cursor_hidden and term.screen.cursor.row == 1


def test_sequence_at() -> None:
    assert sequence_at(b"ab\x1b[6nz", 2) == Span(2, 6, "csi", "", "6", "", "n")
    assert sequence_at(b"ab\x1b[6nz", 0) is None
    assert sequence_at(b"\x1b]11;?\x1b\\x", 0) == Span(0, 8, "osc", final="\x1b\\")
    long = b"\x1bP" + b"x" * 5000 + b"\x1b\\"
    assert sequence_at(long, 0) == Span(0, len(long), "dcs", final="\x1b\\")
    assert sequence_at(b"\x1b[6", 0) == Span(0, 3, "csi", complete=False)


def test_the_lines_fast_path_reads_with_the_grammar_s_patterns() -> None:
    # Not copies that could drift apart: the very objects of escapes.py.
    assert styled.SGR is escapes.SGR
    for name in ("COLOUR_LINES", "COLOUR_TEXT", "CUT_SGR", "SGR"):
        assert getattr(terminal_lines, name) is getattr(escapes, name)
    assert not [name for name in vars(terminal) if name.lstrip("_") in
                {"COLOUR_LINES", "COLOUR_TEXT", "CUT_SGR"}]


# -- properties against the Parser --------------------------------------------------

FRAGMENTS = [
    "a", "xyz", "é", "─", " ", "\x1b", "[", "?", "25", "2026", "1049", ";", "1", "h", "l",
    "m", "H", "(", "$", "\x07", "\x18", "\x1a", "\n", "\r", "\t", "\x00", "\x7f", "]", "P",
    "_", "\\", "0;", "\u009b", "\u009d", "\u009c", "\u0090", "\u0085",
    "\x1b[?25l", "\x1b[?2026h", "\x1b[?25h", "\x1b[?2026l", "\x1b[?1049;25h", "\x1b[?25;2026l",
    "\x1b[1;31m", "\x1b[6n", "\x1b]0;t", "\x1b]11;?\x07", "\x1b\\", "\x1bP$qm\x1b\\", "\x1b7",
]
streams = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
BYTE_EXTRAS = [b"\x9b", b"\xc3", b"\xe2\x94"]
byte_streams = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS).map(lambda f: f.encode()), st.sampled_from(BYTE_EXTRAS)),
    max_size=40,
).map(b"".join)
cuts = st.lists(st.integers(min_value=0, max_value=400), max_size=6)


def _chunks(data: bytes | str, points: list[int]) -> list[bytes | str]:
    marks = sorted({0, len(data), *(p % (len(data) + 1) for p in points)})
    return [data[a:b] for a, b in itertools.pairwise(marks)]


class _Plain:
    """A plain recording handler: no sequence has a ready action, so the
    parser hands every CSI to ``csi()`` with where it stands."""

    def __init__(self) -> None:
        self.parser = Parser(self)
        self.sequences: dict[str, Callable[[], None]] = {}
        self.queries: dict[str, Callable[[int], None]] = {}
        self.controls = {"\r": lambda: self.got.append(("control", "\r")),
                         "\n": lambda: self.got.append(("control", "\n"))}
        self.repeated: dict[str, Callable[[int], None]] = {}
        self.got: list[tuple[object, ...]] = []
        self.text: list[str] = []
        self.base = 0
        self.string_start = 0

    def fuse(self, parts: list[Part]) -> list[Part]:
        return parts

    def newlines(self, count: int) -> Callable[[], None]:
        # CR LF (or CR CR LF) ``count`` times: the LFs are what it tells.
        return lambda: self.got.extend([("control", "\n")] * count)

    def prepare(self, private: str, params: str, inter: str, final: str) -> None:
        return None

    def prepare_esc(self, final: str) -> None:
        return None

    def draw(self, text: str) -> None:
        self.text.append(text)

    def control(self, char: str) -> None:
        self.got.append(("control", char))

    def csi(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        self.got.append(("csi", self.base + index, private, params, inter, final))

    def esc(self, inter: str, final: str, index: int) -> None:
        self.got.append(("esc", self.base + index, inter, final))

    def string(self, kind: str, body: str, terminator: str, index: int) -> None:
        start = self.base + index if index >= 0 else self.string_start
        self.got.append((kind.lower(), start, terminator))

    def garbage(self, kind: str) -> None:
        pass

    def failed(self, exc: Exception) -> None:
        raise exc

    def feed_all(self, chunks: list[str]) -> None:
        fed = 0
        for chunk in chunks:
            self.base = fed - len(self.parser.pending)
            fed += len(chunk)
            self.parser.feed(chunk)
            if self.parser.open_string is not None and self.parser.open_string >= 0:
                self.string_start = self.base + self.parser.open_string


def _as_plain(span: Span, data: str) -> tuple[object, ...]:
    if span.kind == "control":
        return ("control", data[span.start])
    if span.kind == "csi":
        return ("csi", span.start, span.private, span.params, span.inter, span.final)
    if span.kind == "esc":
        return ("esc", span.start, span.inter, span.final)
    return (span.kind, span.start, span.final)


def _scan(chunks: list[bytes | str]) -> list[Span]:
    scanner = Scanner()
    return [span for chunk in chunks for span in scanner.feed(chunk)] + scanner.close()


_CONTROLS = re.compile("[\x00-\x17\x19\x1c-\x1f\x7f]")


@settings(max_examples=150, deadline=None, database=None)
@given(streams, cuts)
def test_spans_are_the_tokens_the_parser_dispatches(data: str, points: list[int]) -> None:
    chunks = _chunks(data, points)
    plain = _Plain()
    plain.feed_all([str(c) for c in chunks])
    spans = _scan(chunks)
    done = [s for s in spans if s.complete]
    # (NUL and DEL are dropped, and CR too: a run's CR LF comes as LFs.)
    want = [g for g in plain.got if not (g[0] == "control" and g[1] in "\x00\x7f\r")]
    got = [_as_plain(s, data) for s in done if s.kind != "text"
           and not (s.kind == "control" and data[s.start] in "\x00\x7f\r")]
    assert got == want
    assert "".join(data[s.start:s.end] for s in done if s.kind == "text") == "".join(plain.text)
    for s in done:  # each sequence's bytes are its fields (and the controls run in it)
        body = _CONTROLS.sub("", data[s.start:s.end])
        if s.kind == "csi":
            assert body in ("\x1b[" + s.private + s.params + s.inter + s.final,
                            "\x9b" + s.private + s.params + s.inter + s.final)
        elif s.kind == "esc" and data[s.start] == "\x1b":
            assert body == "\x1b" + s.inter + s.final
    for s in spans:
        if not s.complete:
            assert s.end == len(data)


@settings(max_examples=150, deadline=None, database=None)
@given(byte_streams, cuts)
def test_any_chunks_give_the_same_tokens(data: bytes, points: list[int]) -> None:
    whole = sequences(data)
    split = _scan(_chunks(data, points))
    assert [s for s in split if s.kind != "text"] == [s for s in whole if s.kind != "text"]
    text = [s for s in whole if s.kind == "text" and s.complete]
    assert b"".join(data[s.start:s.end] for s in split if s.kind == "text" and s.complete) \
        == b"".join(data[s.start:s.end] for s in text)


def _expected_edges(data: bytes, chunks: list[bytes]) -> list[int | tuple[int, bool]]:
    """The cuts of the whole stream's CSI spans, an opening cut moved to the
    start of the chunk that completes its sequence, if it began before."""
    starts, at = [], 0
    for chunk in chunks:
        starts.append(at)
        at += len(chunk)
    out: list[int | tuple[int, bool]] = []
    for span in sequences(data):
        if span.kind != "csi" or not span.complete or span.inter:
            continue
        opens, closes = frame_switch(span.private, span.params, span.final)
        home = max(s for s in starts if s < span.end)
        if opens:
            out.append((max(span.start, home), True))
        if closes:
            out.append((span.end, False))
    return out


@settings(max_examples=200, deadline=None, database=None)
@given(byte_streams, cuts, st.sampled_from([1, 16, frame_edges_module._NEAR]), st.booleans())
def test_frame_edges_chunk_by_chunk(
    data: bytes, points: list[int], near: int, plain: bool,
) -> None:
    # ``near`` small: sparse edges, parsed region by region (as in a long
    # chunk); large: dense, the whole chunk at once. ``plain`` False: the
    # shortcut for plain reads (the tokenizer's CSI pattern) is turned off,
    # so the parser finds every edge.
    chunks = [bytes(c) for c in _chunks(data, points)]
    no_shortcut = mock.patch.object(
        frame_edges_module.FrameEdges, "_plain", lambda self, chunk, pending: None)
    with mock.patch.object(frame_edges_module, "_NEAR", near), \
            (contextlib.nullcontext() if plain else no_shortcut):
        edges = FrameEdges()
        got: list[int | tuple[int, bool]] = []
        at = 0
        for chunk in chunks:
            cuts_here = edges.feed(chunk)
            assert all(0 <= cut <= len(chunk) for cut, _ in cuts_here)
            assert [cut for cut, _ in cuts_here] == sorted(cut for cut, _ in cuts_here)
            got += [(at + cut, opens) for cut, opens in cuts_here]
            at += len(chunk)
    assert got == _expected_edges(data, chunks)


def test_frame_edges_in_a_long_chunk_with_few() -> None:
    text = "x" * 1000
    data = (f"\x1b[?25l{text}\x1b]0;\u009b?25h\x07{text}\x1b[1m{text}\x1b[?2026;25h"
            f"{text}\x1b[?2\n5l{text}\x1b[?25").encode()
    edges = FrameEdges()
    got = edges.feed(data)
    assert got == _expected_edges(data, [data])
    assert got == [(0, True), (3021, True), (3032, False), (4032, True)]
    assert edges.feed(b"h") == [(1, False)]


@settings(max_examples=60, deadline=None, database=None)
@given(byte_streams)
def test_the_terminal_logs_its_queries_where_a_sequence_begins(data: bytes) -> None:
    term = Terminal(20, 5)
    term.feed(data)
    starts = {s.start for s in sequences(data) if s.kind not in PLAIN}
    for query in term.queries:
        assert query.offset in starts
        span = sequence_at(data, query.offset)
        assert span is not None and span.start == query.offset


@pytest.mark.parametrize("follow_first", [False, True])
@pytest.mark.parametrize("chunks", [
    [b"a\xc2\x9b?25", b"l b"],
    [b"\xc2\x9b?", b"25l"],
    [b"a\xc2\x9b?2", b"5", b"l b"],
])
def test_an_8_bit_csi_cut_across_reads_is_still_an_edge(
    chunks: list[bytes], follow_first: bool,
) -> None:
    # The read that ends it has no C1 byte of its own: the shortcut for
    # plain reads must leave it to the parser, which holds its start.
    edges = FrameEdges()
    for chunk in chunks[:-1]:
        if follow_first:
            edges.follow(chunk)
        else:
            assert edges.feed(chunk) == []
    assert edges.feed(chunks[-1]) == [(0, True)]
    data = b"".join(chunks)
    assert _expected_edges(data, [data]) == [(data.index(b"\xc2\x9b"), True)]
