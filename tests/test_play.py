"""``termsim play``'s filter: the queries are cut out wherever reads split them.

The end-to-end proofs (a real terminal receives no query, modes and title
are restored, a smaller terminal is reported) are in ``test_cli.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import examples
from helpers import output_in_pieces
from hypothesis import given, settings
from hypothesis import strategies as st

from termsim.emulator import Terminal
from termsim.events import Output
from termsim.files import Recording
from termsim.report.to_terminal import query_spans, sequence_end, without_queries

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"


@pytest.mark.parametrize(("data", "end"), [
    (b"\x1b[6n tail", 4), (b"\x1b[?2004$p", 9), (b"\x1b[>c", 4), (b"\x1bZ", 2),
    (b"\x1b]11;?\x07x", 7), (b"\x1b]11;?\x1b\\x", 8), (b"\x1bP$qm\x1b\\", 7),
    (b"\xc2\x9b6n", 4), (b"\x1b[6", 3),
    # A lone byte 0x9b is not C1 CSI (the terminal reads UTF-8: C2 9B is).
    (b"\x9b6n", 0),
])
def test_sequence_end(data: bytes, end: int) -> None:
    assert sequence_end(data, 0) == end


def _stream(recording: Recording) -> bytes:
    return b"".join(e.data for e in recording.of_type(Output))


def _resplit(recording: Recording, cuts: list[int]) -> Recording:
    return output_in_pieces(_stream(recording), cuts, recording.header)


IPYTHON = Recording.open(RECORDINGS / "ipython.tsr")


def test_the_queries_of_a_real_session_are_all_cut_out() -> None:
    spans = query_spans(IPYTHON)
    assert spans
    played = b"".join(data for _, data in without_queries(IPYTHON))
    terminal = Terminal(IPYTHON.cols, IPYTHON.rows)
    terminal.feed(played)
    assert terminal.query_count == 0
    assert len(played) == len(_stream(IPYTHON)) - sum(b - a for a, b in spans)


@settings(max_examples=examples(60), deadline=None, database=None)
@given(st.lists(st.integers(min_value=0), max_size=40))
def test_a_query_split_between_reads_is_cut_out_too(cuts: list[int]) -> None:
    # Cut right inside the queries as well as anywhere.
    cuts += [a + 1 for a, _ in query_spans(IPYTHON)]
    split = _resplit(IPYTHON, cuts)
    played = b"".join(data for _, data in without_queries(split))
    assert played == b"".join(data for _, data in without_queries(IPYTHON))
