"""Playing a recording into the user's own terminal, safely.

``termsim play`` writes what the program printed to a real terminal, which is
not a passive screen: it answers queries, keeps modes and a window title.
Writing the recorded bytes as they are would

* send the program's queries (``ESC[6n``, DA, ``OSC 11;?``...) to the user's
  terminal, which answers them into the shell's input (``1R;1R;1R`` at the
  prompt);
* leave the recording's title, a hidden cursor, mouse reporting, bracketed
  paste or the alternate screen behind when it ends or is interrupted;
* garble every screen when the terminal is smaller than the recording.

So the queries are cut out (where they are comes from the same
:class:`~termsim.Terminal` that answers them in a session; how long each
is, from the tokenizer that reads them, ``termsim.emulator.grammar``),
the title is pushed and popped, what the recording changed is undone at
the end, and a smaller terminal is reported before playing.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..emulator.grammar import sequence_at
from ..emulator.terminal import Terminal
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


#: Push the title (and icon name) on the terminal's stack, to pop it after.
SAVE_TITLE = b"\x1b[22;0t"


def restore(terminal: Terminal) -> bytes:
    """What to write after playing so the terminal is as it was: undo each
    mode the recording left on, without moving the cursor on the user's
    screen (leaving the alternate screen restores it)."""
    modes = terminal.modes
    out = [b"\x1b[0m"]
    if modes.mouse is not None:
        out.append(b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?9l\x1b[?1006l\x1b[?1005l"
                   b"\x1b[?1015l")
    if modes.focus_events:
        out.append(b"\x1b[?1004l")
    if modes.bracketed_paste:
        out.append(b"\x1b[?2004l")
    if modes.application_cursor:
        out.append(b"\x1b[?1l")
    if modes.application_keypad:
        out.append(b"\x1b>")
    if terminal.synchronized:
        out.append(b"\x1b[?2026l")
    if terminal.screen.alternate:
        out.append(b"\x1b[?1049l")
    if modes.cursor_shape:
        out.append(b"\x1b[0 q")
    out.append(b"\x1b[?25h")  # show the cursor
    out.append(b"\x1b[23;0t")  # the title pushed before playing
    return b"".join(out)


def size_warning(recording: Recording, cols: int, rows: int) -> str | None:
    """A sentence for a terminal smaller than the recording, else None."""
    need_cols = max([recording.cols, *(e.cols for e in recording.of_type(Resize))])
    need_rows = max([recording.rows, *(e.rows for e in recording.of_type(Resize))])
    if cols >= need_cols and rows >= need_rows:
        return None
    return (f"this terminal is {cols}x{rows}, smaller than the recording's {need_cols}x"
            f"{need_rows}: lines will wrap and screens overlap. Make the window larger, "
            "or read the screens with `termsim show`.")
