"""Where the queries of a recording stand in its output stream.

A program's queries (``ESC[6n``, DA, ``OSC 11;?``...) are what a terminal
answers into its input: found here the way the session found them, by the
same :class:`~termsim.emulator.Terminal` that answers them (where each begins), and
the tokenizer's grammar, ``termsim.emulator.parsing.grammar`` (where each ends).

``termsim play`` no longer cuts only these: what it writes to a terminal is
an allowlist of what draws cells (:mod:`termsim.report.play_allowlist`),
and its restoring and pacing are :mod:`termsim.report.play`'s. This module
stays for the query spans themselves (``tests/test_play.py`` checks that
they are found wherever reads split them).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..emulator.parsing.grammar import sequence_at
from ..emulator.terminal.terminal import Terminal
from ..events import Output, Resize
from ..recording.format import Recording


def sequence_end(data: bytes, start: int) -> int:
    """Where the escape sequence or string the terminal reads at
    ``data[start]`` ends (exclusive); the end of ``data`` for one cut short;
    ``start`` if none begins there (a lone byte 0x9b is not a CSI: the
    terminal reads UTF-8, where C1 CSI is ``C2 9B``)."""
    span = sequence_at(data, start)
    return start if span is None else span.end


def query_spans(recording: Recording) -> list[tuple[int, int]]:
    """Byte spans, in the whole output stream, of the queries the program
    sent: which sequences are queries, and where each begins, the terminal
    says as it is fed the recording; where each ends, the tokenizer's
    grammar (``sequence_at``)."""
    terminal = Terminal(recording.cols, recording.rows)
    stream = bytearray()
    starts: list[int] = []
    seen = 0
    for event in recording.events:
        if isinstance(event, Resize):
            terminal.resize(event.cols, event.rows)
        elif isinstance(event, Output):
            stream += event.data
            terminal.feed(event.data)
            new = terminal.query_count - seen
            seen = terminal.query_count
            for query in terminal.queries[len(terminal.queries) - new:] if new else ():
                if query.offset >= 0:
                    starts.append(query.offset)
    data = bytes(stream)
    return [(start, sequence_end(data, start)) for start in starts if start < len(data)]


def without_queries(
    recording: Recording,
) -> Iterator[tuple[float, bytes]]:
    """Each output's time and bytes, with the queries cut out."""
    spans = query_spans(recording)
    k = 0
    offset = 0
    for event in recording.of_type(Output):
        data, end = event.data, offset + len(event.data)
        kept = []
        at = offset
        while k < len(spans) and spans[k][0] < end:
            start, stop = spans[k]
            if start > at:
                kept.append(data[at - offset:start - offset])
            at = max(at, stop)
            if stop > end:
                break  # the query goes on in the next output
            k += 1
        if at < end:
            kept.append(data[at - offset:])
        offset = end
        yield event.t, b"".join(kept)
