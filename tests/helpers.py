"""Helpers shared by the Terminal tests; ``tests/test_helpers.py`` tests them.

A program's output reaches the terminal in reads of any size, so nothing the
terminal does may depend on where a read ends. ``feed_split`` is that check,
and almost every Terminal test goes through it: the bytes are fed whole, one
byte at a time and split in two at every offset, and every way must give the
same screen, the same replies, the same query log (each query at the same
byte offset, with the same reply and fate) and the same counts of sequences
not understood.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping

from pyte.graphics import FG_BG_256

from termsim import Snapshot
from termsim.emulator import Emulation, Terminal
from termsim.emulator.terminal.terminal import Policy
from termsim.files import Playback, Recording

#: The small screen most Terminal tests use.
COLS, ROWS = 20, 5


def feed_chunks(
    chunks: list[bytes], cols: int = COLS, rows: int = ROWS,
    policy: Mapping[str, Policy] | None = None, emulation: Emulation | None = None,
) -> tuple[Terminal, bytes]:
    """A fresh terminal fed ``chunks`` one after the other, and all its replies."""
    term = Terminal(cols, rows, policy=policy, emulation=emulation)
    replies = b"".join(term.feed(chunk) for chunk in chunks)
    return term, replies


def query_log(term: Terminal) -> list[tuple[str, str, int, bytes | None, str]]:
    """Each query's kind, request, offset, reply and status, oldest first."""
    return [(q.kind, q.request, q.offset, q.reply, q.status) for q in term.queries]


def feed_split(
    data: bytes, cols: int = COLS, rows: int = ROWS, policy: Mapping[str, Policy] | None = None,
    emulation: Emulation | None = None,
) -> tuple[Terminal, bytes]:
    """Feed ``data`` whole, byte by byte, and split at every offset.

    Every way must give the same screen, replies, query log (offsets,
    replies, statuses and delays included) and unknown-sequence counts.
    Returns the terminal fed whole and its replies.
    """
    whole, replies = feed_chunks([data], cols, rows, policy, emulation)
    ways = {"one byte at a time": [data[i:i + 1] for i in range(len(data))]}
    for k in range(len(data) + 1):
        ways[f"split at {k}"] = [data[:k], data[k:]]
    for how, chunks in ways.items():
        term, got = feed_chunks(chunks, cols, rows, policy, emulation)
        assert term.screen == whole.screen, f"{how}: screen\n{term.screen.render()}"
        assert got == replies, f"{how}: replies {got!r}, fed whole {replies!r}"
        assert list(term.queries) == list(whole.queries), (
            f"{how}: query log {query_log(term)}, fed whole {query_log(whole)}"
        )
        assert term.unknown == whole.unknown, (
            f"{how}: unknown {dict(term.unknown)}, fed whole {dict(whole.unknown)}"
        )
        assert term.bytes_fed == len(data), how
    return whole, replies


def sampled_screens(path: str | os.PathLike[str], samples: int = 25) -> Iterator[Snapshot]:
    """About ``samples`` screens of a recording, evenly spread, and its last one."""
    recording = Recording.open(path)
    playback = Playback(recording)
    times = sorted({e.t for e in recording.events})
    for t in [*times[:: max(1, len(times) // samples)], None]:
        yield playback.screen_at(t)


#: pyte's colour names (SGR 30-37/40-47 and 90-97/100-107) as palette
#: indexes; pyte 0.8.2 misspells SGR 95/105 "bfightmagenta".
PYTE_COLOUR_INDEX: dict[str, int] = {
    name: i for i, name in enumerate(
        ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white",
         "brightblack", "brightred", "brightgreen", "brightbrown", "brightblue",
         "brightmagenta", "brightcyan", "brightwhite"])
}
PYTE_COLOUR_INDEX["bfightmagenta"] = 13
#: pyte keeps ``38;5;n`` as the palette entry's hex value: the index back. A
#: few values are in the palette twice (000000 is 0 and 16, ffffff is 15 and
#: 231, ff0000 is 9 and 196...): the lower index wins, as it does for a
#: 24-bit colour that happens to equal a palette entry.
PYTE_HEX_INDEX: dict[str, int] = {}
for _index, _hex in enumerate(FG_BG_256):
    PYTE_HEX_INDEX.setdefault(_hex, _index)
