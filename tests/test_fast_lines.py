"""The plain-lines fast path draws what the usual path draws.

``Terminal.feed`` takes a read of printable ASCII lines ended by CR LF
(logs, ``seq``) the fast way: rows that scroll off within the read go to the
history as text, never drawn cell by cell. Everything a test can see must be
the same as when the same bytes arrive in reads too small for the fast path:
every cell, the cursor, the history and transcript, the count of rows that
scrolled off, and the rows that a wrap continued (reflow reads them).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from termsim import Emulation, Style, Terminal
from termsim._screen import history_cells
from termsim._snapshot import row_text

_LINE = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=70)


def state(term: Terminal) -> tuple[object, ...]:
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
            term.screen.lines, term.transcript())


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
@settings(max_examples=200, deadline=None, database=None)
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
@settings(max_examples=500, deadline=None, database=None)
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
