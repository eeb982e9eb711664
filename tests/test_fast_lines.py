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

from termsim import Emulation, Terminal
from termsim._screen import history_cells

_LINE = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=70)


def state(term: Terminal) -> tuple[object, ...]:
    s = term._screen
    rows = [dict(s.buffer.get(y) or {}) for y in range(s.lines)]
    wrapped = [getattr(s.buffer.get(y), "wrapped", False) for y in range(s.lines)]
    history = [(dict(r or {}), getattr(r, "wrapped", False))
               for r in map(history_cells, s.history)]
    return (rows, wrapped, history, s.scrolled, s.cursor.x, s.cursor.y, s.last_char,
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


def test_a_reflow_after_the_fast_path_rejoins_wrapped_rows() -> None:
    term = Terminal(10, 3, emulation=Emulation(reflow=True))
    term.feed(b"".join(b"%02d-abcdefghijkl\r\n" % i for i in range(60)))
    term.resize(30, 3)
    assert term.transcript().splitlines()[-1] == "59-abcdefghijkl"
    assert "57-abcdefghijkl" in term.transcript().splitlines()
