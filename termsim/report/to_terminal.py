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
is, from the ECMA-48 syntax), the title is pushed and popped, what the
recording changed is undone at the end, and a smaller terminal is reported
before playing.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..emulator.terminal import Terminal
from ..events import Output, Resize
from ..recording.format import Recording

ESC = 0x1B


def sequence_end(data: bytes, start: int) -> int:
    """Where the escape sequence starting at ``data[start]`` ends (exclusive);
    the end of ``data`` for one cut short."""
    n = len(data)
    first = data[start]
    if first == ESC:
        if start + 1 >= n:
            return n
        kind, i = data[start + 1], start + 2
    else:  # an 8-bit introducer (C1): CSI 0x9b, DCS 0x90, OSC 0x9d...
        kind, i = first - 0x40, start + 1
    if kind == ord("["):  # CSI: parameters and intermediates, then a final byte
        while i < n and not 0x40 <= data[i] <= 0x7E:
            i += 1
        return min(i + 1, n)
    if kind in b"]P_^X":  # OSC, DCS, APC, PM, SOS: up to BEL or ST
        while i < n:
            if (data[i] == 0x07 and kind == ord("]")) or data[i] == 0x9C:
                return i + 1
            if data[i] == ESC and i + 1 < n and data[i + 1] == ord("\\"):
                return i + 2
            i += 1
        return n
    # ESC, intermediates (0x20-0x2f), a final byte.
    i -= 1
    while i < n and 0x20 <= data[i] <= 0x2F:
        i += 1
    return min(i + 1, n)


def query_spans(recording: Recording) -> list[tuple[int, int]]:
    """Byte spans, in the whole output stream, of the queries the program sent."""
    terminal = Terminal(recording.cols, recording.rows)
    stream = bytearray()
    spans: list[tuple[int, int]] = []
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
                    spans.append((query.offset, query.offset))
    data = bytes(stream)
    return [(start, sequence_end(data, start)) for start, _ in spans if start < len(data)]


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
