"""The escape grammar, asked of the tokenizer (``termsim.emulator.parsing.grammar``).

Hand-written cases first (combined modes, strings, 8-bit CSI, sequences cut
across chunks, CAN and SUB, ESC and controls inside a CSI), then properties
on generated streams: the spans are the tokens the ``Parser`` hands a plain
recording handler, whatever the chunks; the terminal, fed in chunks,
reports its frame edges where the spans of the whole stream say, with the
screen as it stands there; the terminal logs its queries where a span
begins.
"""

from __future__ import annotations

import itertools
import re
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termsim.emulator import Terminal
from termsim.emulator.parsing import escapes
from termsim.emulator.parsing.grammar import PLAIN, Scanner, Span, sequence_at, sequences
from termsim.emulator.parsing.handlers import NoFastPaths
from termsim.emulator.parsing.tokenizer import Parser
from termsim.emulator.screen import styled
from termsim.emulator.snapshot.snapshot import Snapshot
from termsim.emulator.terminal import lines as terminal_lines
from termsim.emulator.terminal import terminal
from termsim.emulator.terminal.dispatch_modes import frame_switch

# -- hand-written cases -------------------------------------------------------------


def _kinds(data: bytes | str) -> list[tuple[str, int, int]]:
    return [(s.kind, s.start, s.end) for s in sequences(data)]


def terminal_edges(chunks: list[bytes]) -> list[tuple[bool, Snapshot]]:
    """The frame edges a terminal fed ``chunks`` reports, each with the
    screen as it stood there (what the engine evaluates)."""
    term = Terminal(20, 5)
    seen: list[tuple[bool, Snapshot]] = []
    term.on_frame_edge = lambda opens: seen.append((opens, term.screen))
    for chunk in chunks:
        term.feed(chunk)
    return seen


def frame_edges(data: bytes) -> list[bool]:
    """Whether each frame edge a terminal fed ``data`` reports opens a
    frame, after checking that each edge's screen is the one the stream's
    spans say (``expected_edges``), and that feeding it one byte at a time
    and split at every offset (``helpers.feed_split``'s ways) reports the
    same edges with the same screens."""
    whole = terminal_edges([data])
    assert whole == expected_edges(data)
    ways = [[data[i:i + 1] for i in range(len(data))]]
    ways += [[data[:k], data[k:]] for k in range(len(data) + 1)]
    for chunks in ways:
        assert terminal_edges(chunks) == whole, chunks
    return [opens for opens, _ in whole]


@pytest.mark.parametrize(("chunk", "edges"), [
    (b"a\x1b[?25l", [True]),
    (b"ab\x1b[?25h", [False]),
    (b"a\x1b[?2026h..\x1b[?2026l", [True, False]),
    # Combined modes: alternate screen and cursor shown closes a frame...
    (b"x\x1b[?1049;25h", [False]),
    (b"x\x1b[?7;25l", [True]),
    # ...and one that hides the cursor and ends an update does both.
    (b"a\x1b[?25;2026l", [True, False]),
    (b"\x1b[?1049h\x1b[?12l", []),
    (b"\x1b[25l\x1b[?250l\x1b[?2025h\x1b[>25l", []),  # no "?", or not those modes
    # 8-bit CSI is C2 9B in UTF-8, as the terminal reads it; a lone 0x9b is not.
    (b"x\xc2\x9b?25l", [True]),
    (b"x\x9b?25l", []),
])
def test_frame_edges(chunk: bytes, edges: list[bool]) -> None:
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
    assert frame_edges(data) == [True]
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
    # The terminal holds a sequence cut across reads, and reports its edge
    # once the read that ends it comes: an opening edge where the screen
    # stood before it, a closing one after it.
    chunks = [b"ab\x1b[?2", b"5lxy\x1b[?2", b"5h!", "é\x1b[?25".encode()[:1],
              "é\x1b[?25h".encode()[1:]]
    assert [opens for opens, _ in terminal_edges(chunks)] == [True, False, False]
    assert terminal_edges(chunks) == expected_edges(b"".join(chunks))


@pytest.mark.parametrize("abort", [b"\x18", b"\x1a"])
def test_can_and_sub_abort_a_sequence_or_string(abort: bytes) -> None:
    assert frame_edges(b"\x1b[?25" + abort + b"l") == []
    assert [s.kind for s in sequences(b"\x1b[?25" + abort + b"l")] == ["control", "text"]
    assert [s.kind for s in sequences(b"\x1b]0;ti" + abort + b"tle")] == ["text"]


def test_esc_inside_a_csi_starts_another() -> None:
    assert _kinds(b"\x1b[?2\x1b[?25l") == [("csi", 4, 10)]
    assert frame_edges(b"\x1b[?2\x1b[?25h") == [False]


def test_a_control_inside_a_csi_comes_first() -> None:
    data = b"\x1b[?2\n5l"
    assert sequences(data) == [Span(4, 5, "control"), Span(0, 7, "csi", "?", "25", "", "l")]
    assert frame_edges(data) == [True]  # its screen: after the line feed, run as met
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


class _Plain(NoFastPaths):
    """A plain recording handler: the tokens only (``NoFastPaths``), so the
    parser hands every control, CSI and ESC to it whole, with where it
    stands, runs included."""

    def __init__(self) -> None:
        self.parser = Parser(self)
        self.got: list[tuple[object, ...]] = []
        self.text: list[str] = []
        self.base = 0
        self.string_start = 0

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
    # (NUL and DEL are dropped.)
    want = [g for g in plain.got if not (g[0] == "control" and g[1] in "\x00\x7f")]
    got = [_as_plain(s, data) for s in done if s.kind != "text"
           and not (s.kind == "control" and data[s.start] in "\x00\x7f")]
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


def expected_edges(data: bytes) -> list[tuple[bool, Snapshot]]:
    """The frame edges the whole stream's CSI spans say, each with the
    screen it must show: before an opening sequence (after the controls
    inside it, which the terminal runs as it meets them), after a closing one."""
    out: list[tuple[bool, Snapshot]] = []
    for span in sequences(data):
        if span.kind != "csi" or not span.complete or span.inter:
            continue
        opens, closes = frame_switch(span.private, span.params, span.final)
        if opens:
            inside = bytes(b for b in data[span.start:span.end]
                           if b < 0x20 and b not in (0x18, 0x1a, 0x1b))
            fresh = Terminal(20, 5)
            # (An SGR in its place ends a string it ended, and shows nothing.)
            fresh.feed(data[:span.start] + inside + b"\x1b[m")
            out.append((True, fresh.screen))
        if closes:
            fresh = Terminal(20, 5)
            fresh.feed(data[:span.end])
            out.append((False, fresh.screen))
    return out


@settings(max_examples=200, deadline=None, database=None)
@given(byte_streams, cuts)
def test_frame_edges_chunk_by_chunk(data: bytes, points: list[int]) -> None:
    # However the stream is cut into reads, the terminal reports the edges
    # the whole stream's spans say, each with the screen as it stands there.
    chunks = [bytes(c) for c in _chunks(data, points)]
    assert terminal_edges(chunks) == expected_edges(data)


def test_frame_edges_in_a_long_chunk_with_few() -> None:
    text = "x" * 1000
    data = (f"\x1b[?25l{text}\x1b]0;\u009b?25h\x07{text}\x1b[1m{text}\x1b[?2026;25h"
            f"{text}\x1b[?2\n5l{text}\x1b[?25").encode()
    got = terminal_edges([data, b"h"])
    assert [opens for opens, _ in got] == [True, True, False, True, False]
    assert got == expected_edges(data + b"h")


def test_each_byte_of_output_is_tokenized_once_with_a_wait_pending() -> None:
    """The terminal is the only parser of program output: with a wait
    pending on a stream of frames, the tokenizer reads each read once (there
    was a second parser, finding frame edges, in step with the terminal's)."""
    import anyio

    from termsim import Text
    from termsim.engine.engine import Engine
    from termsim.events import Output

    class Clock:
        t = 0.0

        def now(self) -> float:
            return self.t

        async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
            for read in reads:
                self.t = read.t
                engine.apply(read)
            await event.wait()

        def catch_up(self) -> None:
            pass

    frame = b"\x1b[?2026h\x1b[?25l\x1b[1;1Hframe %d\x1b[?25h\x1b[?2026l"
    reads = [Output(0.01 * (i + 1), frame % i) for i in range(30)]
    fed: list[str] = []
    real_feed = Parser.feed

    def counting(self: Parser, data: str) -> int:
        fed.append(data)
        return real_feed(self, data)

    terminal = Terminal(20, 5)
    engine = Engine(terminal, Clock())
    with mock.patch.object(Parser, "feed", counting):
        snap = anyio.run(lambda: engine.wait_for(Text("frame 29"), timeout=5))
    assert "frame 29" in snap.text
    assert "".join(fed) == b"".join(r.data for r in reads).decode()
    assert len(fed) == len(reads)


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


@pytest.mark.parametrize("chunks", [
    [b"a\xc2\x9b?25", b"l b"],
    [b"\xc2\x9b?", b"25l"],
    [b"a\xc2\x9b?2", b"5", b"l b"],
])
def test_an_8_bit_csi_cut_across_reads_is_still_an_edge(chunks: list[bytes]) -> None:
    # The read that ends it has no C1 byte of its own: the terminal's parser
    # holds its start.
    data = b"".join(chunks)
    assert [opens for opens, _ in terminal_edges(chunks)] == [True]
    assert terminal_edges(chunks) == expected_edges(data)
