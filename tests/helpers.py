"""Helpers shared by the tests; ``tests/test_helpers.py`` tests them.

Each is written once here, not again in every module that needs it: a
fresh terminal fed some bytes (``fed``, ``screen``) and its rows and cursor
as plain values, a recording's records and output pieces made by hand, a
session recorded while a script drives it, and a parametrize case that is
an expected failure with its reason.

A program's output reaches the terminal in reads of any size, so nothing the
terminal does may depend on where a read ends. ``feed_split`` is that check,
and almost every Terminal test goes through it: the bytes are fed whole, one
byte at a time and split in two at every offset, and every way must give the
same screen, the same replies, the same query log (each query at the same
byte offset, with the same reply and fate) and the same counts of sequences
not understood.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import unicodedata
import zlib
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgpack
import pytest
from _pytest.mark import ParameterSet
from pyte.graphics import FG_BG_256
from wcwidth import wcwidth

import termsim
from termsim import Snapshot
from termsim.emulator import Emulation, Terminal
from termsim.emulator.terminal.terminal import Policy
from termsim.events import Output
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


def fed(data: bytes | str, cols: int = COLS, rows: int = ROWS, *,
        emulation: Emulation | None = None) -> Terminal:
    """A fresh terminal fed ``data`` in one read (a ``str`` as UTF-8)."""
    term = Terminal(cols, rows, emulation=emulation)
    term.feed(data.encode() if isinstance(data, str) else data)
    return term


def screen(data: bytes | str, cols: int = COLS, rows: int = ROWS, *,
           emulation: Emulation | None = None) -> Snapshot:
    """The screen of a fresh terminal fed ``data`` in one read."""
    return fed(data, cols, rows, emulation=emulation).screen


def rows_of(term: Terminal, *, blank_bottom: bool = True) -> list[str]:
    """Each row's text without its trailing blanks; with ``blank_bottom``
    false, without the blank rows at the bottom either."""
    rows = [line.rstrip() for line in term.screen.lines]
    while not blank_bottom and rows and not rows[-1]:
        rows.pop()
    return rows


def cursor_of(term: Terminal) -> tuple[int, int]:
    """The cursor's (row, col)."""
    cursor = term.screen.cursor
    return cursor.row, cursor.col


def nfc(text: str) -> str:
    """``text`` composed (NFC): how rows are compared with other terminals'."""
    return unicodedata.normalize("NFC", text)


def is_wide(text: str) -> bool:
    """Whether ``text`` starts with a character two columns wide."""
    return bool(text) and wcwidth(text[0]) == 2


def xfail_param(*values: object, id: str, reason: str | None) -> ParameterSet:
    """A parametrize case, a strict expected failure when there is a
    ``reason`` (it must fail, so a fix shows)."""
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(*values, id=id, marks=marks)


def file_record(obj: object) -> bytes:
    """One record as a recording file has it: msgpack, then its CRC-32."""
    packed = msgpack.packb(obj)
    return packed + msgpack.packb(zlib.crc32(packed))


def output_in_pieces(data: bytes, cuts: Sequence[int], header: Mapping[str, Any]) -> Recording:
    """A recording whose output is ``data`` cut at ``cuts`` (each taken
    modulo ``len(data) + 1``; empty pieces left out), one second apart."""
    points = sorted({0, *(c % (len(data) + 1) for c in cuts), len(data)})
    events = [Output(float(i), data[a:b])
              for i, (a, b) in enumerate(itertools.pairwise(points)) if b > a]
    return Recording("split", dict(header), list(events), [0] * len(events), True, None, 0)


async def recorded(argv: list[str], path: Path,
                   script: Callable[[termsim.Driver], Awaitable[object]], *, cols: int = 80,
                   rows: int = 24, env: dict[str, str] | None = None) -> None:
    """Record a real session of ``argv`` at ``path`` while ``script`` drives it."""
    async with termsim.spawn(argv, cols=cols, rows=rows, env=env, record=path) as term:
        await script(term)


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


#: The child of :func:`cli_under_a_memory_limit`: the limit first, then each
#: command, with file descriptors 1 and 2 sent to files of its own (a C
#: library's writes too, not only Python's), then the results as JSON.
_LIMITED_CLI = """
import json, os, resource, sys, tempfile
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
from termsim.cli import main
results = []
for argv in json.loads(sys.argv[2]):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush(); sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1); os.dup2(err.fileno(), 2)
        try:
            status = main(argv)
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1); os.dup2(saved[1], 2)
            os.close(saved[0]); os.close(saved[1])
        err.seek(0)
        results.append([status, err.read().decode("utf-8", "replace")])
with open(sys.argv[3], "w", encoding="utf-8") as f:
    json.dump(results, f)
"""


def cli_under_a_memory_limit(commands: Sequence[Sequence[str]], limit: int,
                             timeout: float = 100) -> list[tuple[int, str]]:
    """Each of ``commands`` (``termsim`` arguments) run one after the other in
    one child process whose address space is limited to ``limit`` bytes: each
    one's exit status and what it wrote to stderr. The limit makes a command
    that would take the machine's memory fail instead; one interpreter for
    all of them, because starting one and importing termsim costs more CPU
    than a refused command does. The commands share the limit, so each must
    also leave memory for the next."""
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results.json"
        done = subprocess.run([sys.executable, "-c", _LIMITED_CLI, str(limit),
                               json.dumps([list(c) for c in commands]), str(results)],
                              capture_output=True, timeout=timeout, check=False)
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        return [(status, err) for status, err in json.loads(results.read_text("utf-8"))]


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
