"""The plain-lines fast path draws what the usual path draws.

``Terminal.feed`` takes a read of printable ASCII lines ended by CR LF
(logs, ``seq``) the fast way: rows that scroll off within the read go to the
history as text, never drawn cell by cell. Everything a test can see must be
the same as when the same bytes arrive in reads too small for the fast path:
every cell, the cursor, the history and transcript, the count of rows that
scrolled off, and the rows that a wrap continued (reflow reads them).
"""

from __future__ import annotations

from itertools import pairwise

from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from termsim import Style
from termsim.emulator import Emulation, Terminal
from termsim.emulator.screen.screen import history_cells
from termsim.emulator.snapshot.snapshot import row_text

_LINE = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=70)


def state(term: Terminal, pen: bool = False) -> tuple[object, ...]:
    # What a test sees first: the fast path may have left rows without cells,
    # which the snapshot makes when asked.
    seen = [term.screen.row_cells(y) for y in range(term.rows)]
    s = term._screen
    s.settle()  # then the rows themselves
    rows = [dict(s.buffer.get(y) or {}) for y in range(s.lines)]
    wrapped = [getattr(s.buffer.get(y), "wrapped", False) for y in range(s.lines)]
    history = [(dict(r or {}), getattr(r, "wrapped", False))
               for r in map(history_cells, s.history)]
    return (seen, rows, wrapped, history, s.scrolled, s.cursor.x, s.cursor.y, s.last_char,
            term.screen.lines, term.transcript(), dict(term.unknown),
            s.cursor.attrs if pen else None)


def fed(chunks: list[bytes], cols: int, rows: int, before: bytes) -> Terminal:
    term = Terminal(cols, rows, emulation=Emulation(reflow=True))
    term.feed(before)
    for chunk in chunks:
        term.feed(chunk)
    return term


@given(
    lines=st.lists(_LINE, min_size=40, max_size=200),
    tail=_LINE,
    size=st.tuples(st.integers(1, 30), st.integers(1, 12)),
    before=st.sampled_from([b"", b"prompt$ ", b"abc\r\ndef", b"\x1b[5;3Hxy", b"\x1b[?1049h",
                            b"\x1b[31mred\x1b[m\r\n", b"x" * 45]),
    cut=st.floats(0, 1),
)
@settings(max_examples=examples(200), deadline=None, database=None)
def test_a_read_of_plain_lines_draws_what_small_reads_draw(
    lines: list[str], tail: str, size: tuple[int, int], before: bytes, cut: float,
) -> None:
    data = ("\r\n".join(lines) + "\r\n" + tail).encode()
    cols, rows = size
    # Two big reads, cut anywhere (between a CR and its LF too): each may
    # take the fast path.
    at = round(cut * len(data))
    whole = fed([data[:at], data[at:]], cols, rows, before)
    small = fed([data[i:i + 20] for i in range(0, len(data), 20)], cols, rows, before)
    assert state(whole) == state(small)


# -- coloured lines (rows kept as StyledText) -------------------------------------------

_SGR = st.sampled_from([
    "", "0", "1", "31", "1;33", "0;32", "90", "38;5;208", "38;5;7", "38;2;10;200;30",
    "48;2;1;2;3", "41", "7", "27", "22", "39", "49", "2", "5;31", "38;2;300;1;1", "38;5",
    "1;38;2;9;9;9", "4", "24",
])
_PIECE = st.tuples(st.one_of(st.none(), _SGR), _LINE.map(lambda s: s[:6]))
#: Most coloured lines end with a reset (ls, test runners); some carry
#: attributes to the next line, some a colour, whose LF fills the next row
#: with it (the fast path stops there); some reset between CR and LF.
_LINE_END = st.sampled_from(["\x1b[0m\r\n", "\x1b[0m\r\n", "\r\n", "\x1b[0;1m\r\n",
                             "\x1b[m\x1b[4;7m\r\n", "\x1b[0m\x1b[38;5;3m\r\n",
                             "\r\x1b[m\n"])
_COLOUR_LINE = st.lists(_PIECE, max_size=12).map(
    lambda pieces: "".join((f"\x1b[{p}m" if p is not None else "") + t for p, t in pieces))


@given(
    lines=st.lists(st.tuples(_COLOUR_LINE, _LINE_END), min_size=20, max_size=120),
    tail=_COLOUR_LINE,
    size=st.tuples(st.integers(1, 30), st.integers(1, 12)),
    before=st.sampled_from([b"", b"prompt$ ", b"\x1b[31m", b"\x1b[1m\x1b[38;5;9m", b"\x1b[?5h",
                            b'\x1b[1"q', b"\x1b[2;4r", b"\x1b[4h", b"\x1b[?1049h", b"\x1b[2m",
                            b"\x1b[41mred\r\n", b"x" * 45]),
    cuts=st.lists(st.floats(0, 1), max_size=3),
)
@settings(max_examples=examples(300), deadline=None, database=None)
def test_a_read_of_coloured_lines_draws_what_small_reads_draw(
    lines: list[tuple[str, str]], tail: str, size: tuple[int, int], before: bytes,
    cuts: list[float],
) -> None:
    data = ("".join(line + end for line, end in lines) + tail).encode()
    cols, rows = size
    # Big reads, cut anywhere (inside an SGR sequence, between CR and LF):
    # each may take the fast path; reads of 15 bytes never do.
    at = sorted({0, len(data), *(round(c * len(data)) for c in cuts)})
    whole = fed([data[a:b] for a, b in pairwise(at)], cols, rows, before)
    small = fed([data[i:i + 15] for i in range(0, len(data), 15)], cols, rows, before)
    assert state(whole, pen=True) == state(small, pen=True)
    for term in (whole, small):  # reflow rewraps the history's coloured rows
        term.resize(cols + 7, rows)
    assert state(whole, pen=True) == state(small, pen=True)


def test_the_transcript_keeps_history_rows_whole_after_the_screen_narrows() -> None:
    # Rows kept as text and rows of cells read the same in the transcript,
    # as wide as they were drawn (found by fuzzing the two paths).
    data = b"".join(b"line %d abcdefgh\r\n" % i for i in range(20))
    whole = fed([data], 20, 3, b"")
    small = fed([data[i:i + 15] for i in range(0, len(data), 15)], 20, 3, b"")
    for term in (whole, small):
        term.feed(b"\x1b[?1049h")  # no reflow on the alternate screen
        term.resize(4, 3)
    assert whole.transcript().splitlines()[0] == "line 0 abcdefgh"
    assert whole.transcript() == small.transcript()


def test_an_sgr_sequence_between_a_cut_cr_and_its_lf_is_no_line() -> None:
    # The last read ended with CR on an empty bottom row; this one begins
    # with ESC[0m, then the LF: that LF belongs to no line of this read.
    before, data = b"x\r\n" * 5 + b"\r", b"\x1b[0m\nabc\x1b[0m\r\nmore\x1b[31m!\x1b[0m\r\nend\r\n"
    whole = fed([before, data], 20, 4, b"")
    small = fed([before] + [data[i:i + 15] for i in range(0, len(data), 15)], 20, 4, b"")
    assert whole.screen.lines[0].rstrip() == "abc"
    assert state(whole, pen=True) == state(small, pen=True)


def test_coloured_lines_keep_their_colours_as_text_until_asked() -> None:
    term = Terminal(12, 3)
    term.feed(b"".join(b"\x1b[1;31mE\x1b[0m row \x1b[38;2;1;2;3m%d\x1b[0m\r\n" % i
                       for i in range(50)))
    screen = term._screen
    kept = screen.buffer[0].raw
    assert screen.unbuilt and kept == "E row 48" and type(kept).__name__ == "StyledText"
    assert type(screen.history[-1]).__name__ == "StyledText"  # scrolled off as text
    assert term.transcript().splitlines()[:2] == ["E row 0", "E row 1"]
    snap = term.screen
    assert snap.cell(0, 0).style == Style(fg="red", bold=True)
    assert snap.cell(0, 6).style == Style(fg="010203")
    assert snap.cell(0, 2).style == Style()
    assert screen.unbuilt  # the snapshot made its own cells
    term.feed(b"\x1b[1;3H\x1b[K")  # anything else: the cells first, then the erase
    assert not screen.unbuilt
    assert term.screen.cell(0, 0).style == Style(fg="red", bold=True)
    assert term.screen.lines[0].rstrip() == "E"


def test_an_sgr_code_termsim_does_not_understand_is_counted_every_time() -> None:
    term = Terminal(20, 4)
    term.feed(b"".join(b"\x1b[73msup\x1b[0m %d\x1b[73;53m\x1b[0m\r\n" % i for i in range(30)))
    assert term._screen.unbuilt  # the fast path: counted as the usual path counts
    assert term.unknown == {"SGR 73": 60, "SGR 53": 30}
    term.screen.runs(0)  # making the cells counts nothing more
    term.feed(b"\x1b[H")
    assert term.unknown == {"SGR 73": 60, "SGR 53": 30}


def test_the_fast_path_is_taken_and_keeps_only_text_for_rows_that_scrolled_off() -> None:
    term = Terminal(10, 3)
    term.feed(b"".join(b"line %d\r\n" % i for i in range(100)))
    assert term.screen.lines[0].rstrip() == "line 98"
    assert any(isinstance(row, str) for row in term._screen.history)
    assert term.transcript().splitlines()[:2] == ["line 0", "line 1"]
    assert term._screen.scrolled == 98


def test_rows_a_flood_leaves_get_their_cells_only_when_asked() -> None:
    term = Terminal(12, 3)
    term.feed(b"".join(b"row %d\r\n" % i for i in range(50)))
    screen = term._screen
    assert screen.unbuilt and screen.buffer[0].raw == "row 48"  # text, no cells yet
    snap = term.screen
    assert snap.cell(0, 4).char == "4" and snap.cell(0, 4).style == Style()
    assert [run.text for run in snap.runs(1)] == ["row 49"]
    term.feed(b"more\r\n")  # plain lines: the rows scroll on without cells
    assert screen.unbuilt and screen.buffer[0].raw == "row 49"
    assert term.transcript().splitlines()[-3:] == ["row 48", "row 49", "more"]
    term.feed(b"\x1b[1;3H\x1b[K")  # anything else: the cells first, then the erase
    assert not screen.unbuilt and screen.buffer[0].raw is None
    assert term.screen.lines[0].rstrip() == "ro"
    assert term.screen.lines[1].rstrip() == "more"


def test_a_reflow_after_the_fast_path_rejoins_wrapped_rows() -> None:
    term = Terminal(10, 3, emulation=Emulation(reflow=True))
    term.feed(b"".join(b"%02d-abcdefghijkl\r\n" % i for i in range(60)))
    term.resize(30, 3)
    assert term.transcript().splitlines()[-1] == "59-abcdefghijkl"
    assert "57-abcdefghijkl" in term.transcript().splitlines()


# -- the text a row keeps beside its cells (TextRow) ------------------------------------

_TOKENS = st.sampled_from([
    b"abc", b"x", b"0123456789abcdefghij", "\u4e2d\u6587".encode(), "e\u0301".encode(),
    b"\r", b"\n", b"\x08", b"\t", b"\x1b[H", b"\x1b[3;5H", b"\x1b[2;70H", b"\x1b[K",
    b"\x1b[1K", b"\x1b[2K", b"\x1b[J", b"\x1b[1J", b"\x1b[2J", b"\x1b[3X", b"\x1b[2@",
    b"\x1b[2P", b"\x1b[L", b"\x1b[M", b"\x1b[S", b"\x1b[T", b"\x1b[5b", b"\x1b[?5h",
    b"\x1b[?5l", b"\x1b[?1049h", b"\x1b[?1049l", b"\x1b[41m", b"\x1b[m", b"\x1b[7m",
    b'\x1b[1"q', b'\x1b[0"q', b"\x1b[?2J", b"\x1b[?2K", b"\x1b[2;4r", b"\x1b[r",
    b"\x1b[?7l", b"\x1b[?7h", b"\x1b[4h", b"\x1b[4l", b"\x1b#8",
    b"".join(b"line %d of the log\r\n" % i for i in range(12)),
    # Edits in the middle of a row that holds a long run (its text is kept).
    b"\x1b[3;5H\x1b[K", b"\x1b[2;3H\x1b[4X", b"\x1b[1;6H\x1b[1K", b"\x1b[4;2H\x1b[3P",
    b"\x1b[5;9H\x1b[2@", b"\x1b[3;5Hwritten over", b"\x1b[41m\x1b[2;4H\x1b[K\x1b[m",
    # Marks, clusters and wide characters over a row whose text is kept.
    b"\x1b[2;3H\xcc\x81", "\u200d\U0001f469".encode(), "\u2764\ufe0f".encode(),
    b"\x1b[1;1H\xe4\xb8\xad", b"\x1b[3;4H\xe6\x96\x87x",
])


@given(
    steps=st.lists(st.one_of(_TOKENS, st.tuples(st.integers(1, 90), st.integers(1, 12))),
                   min_size=1, max_size=40),
    reflow=st.booleans(),
    graphemes=st.booleans(),
)
@settings(max_examples=examples(500), deadline=None, database=None)
def test_a_rows_kept_text_is_always_the_text_of_its_cells(
    steps: list[bytes | tuple[int, int]], reflow: bool, graphemes: bool,
) -> None:
    term = Terminal(20, 6, emulation=Emulation(reflow=reflow, graphemes=graphemes))
    for step in steps:
        if isinstance(step, tuple):
            term.resize(*step)
        else:
            term.feed(step)
        snap = term.screen
        cells = [row_text(snap._row(y), snap.cols) for y in range(snap.rows)]
        assert list(snap.lines) == cells, step
        term._screen.settle()
        rows = [row_text(term._screen.buffer.get(y) or {}, snap.cols) for y in range(snap.rows)]
        assert rows == cells, step


#: Besides the tokens above: scrolls of the whole screen and of a region,
#: the alternate screen, and the sequences that move rows otherwise.
_MOVES = st.sampled_from([
    b"\n", b"\r\n", b"\n\n\n", b"\x1b[99;1H", b"\x1b[99;1Hbottom\r\n", b"\x1bD", b"\x1bE",
    b"".join(b"row %d\r\n" % i for i in range(3)),
    b"".join(b"a somewhat longer line number %d\r\n" % i for i in range(30)),
    b"\x1b[1;1Htop", b"\x1b[32mgreen\x1b[m\r\n", b"\x1b[1;3r", b"\x1b[2;99r", b"\x1b[r",
    b"\x1b[?1049h", b"\x1b[?1049l", b"\x1bM", b"\x1b[2L", b"\x1b[3M", b"\x1b[S", b"\x1b[2T",
    b"\x1b[2J", b"\x1bc",
])


@given(
    steps=st.lists(st.tuples(st.one_of(_TOKENS, _MOVES, st.tuples(st.integers(1, 90),
                                                                   st.integers(1, 12))),
                             st.booleans()), min_size=1, max_size=60),
    reflow=st.booleans(), size=st.tuples(st.integers(1, 40), st.integers(1, 12)),
)
@settings(max_examples=examples(300), deadline=None, database=None)
def test_snapshots_taken_now_and_then_equal_the_screen(
    steps: list[tuple[bytes | tuple[int, int], bool]], reflow: bool, size: tuple[int, int],
) -> None:
    # The terminal keeps its copies of the rows a scroll only moved, moved
    # (``Terminal._shift``); a snapshot taken after any mix of feeds and
    # resizes must still show every row as the screen holds it.
    term = Terminal(*size, emulation=Emulation(reflow=reflow))
    for step, look in steps:
        if isinstance(step, tuple):
            term.resize(*step)
        else:
            term.feed(step)
        if not look:
            continue
        snap = term.screen
        screen = term._screen
        screen.settle()
        rows = [dict(screen.buffer.get(y) or {}) for y in range(snap.rows)]
        assert [snap._row(y) for y in range(snap.rows)] == rows, step
        assert list(snap.lines) == [row_text(r, snap.cols) for r in rows], step
        assert snap.text == "\n".join(row_text(r, snap.cols).rstrip() for r in rows), step
