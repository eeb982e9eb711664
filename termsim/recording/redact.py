"""Redaction: secrets never reach a recording file, however they are drawn or typed.

``spawn(..., redact=["hunter2", re.compile(r"sk-[A-Za-z0-9]{20,}")])`` masks
every match in what is written to the file (output, input, wait
descriptions, notes, replies). The live screen is untouched: waits still see
what the program printed, only the evidence written to disk is scrubbed.

A secret is looked for where a person would read it, not in the raw bytes
(``redact_stream.py`` has the rules): in the characters a program draws,
whatever escape sequences sit between them and however the reads split
them, on a screen of the recorder's own, in the strings of escape sequences
(a title, a link), and in the input as one stream (typed key by key). This
module holds what those rules share: the patterns, the masks, the edits a
stream decides, and the scrubbing of whole strings.

Each masked character of a stream becomes one character of the mask, so a
replayed screen keeps its layout: a renderer moves the cursor by counting
cells (``ESC[17D``), and a shorter mask would leave every later cell in the
wrong column. The mask reads ``[REDACTED]`` where the secret is ten cells or
longer, ``*`` in every other cell. A whole string (a label, a note) has its
match replaced by ``[REDACTED]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple, Protocol

import regex

REDACTED = "[REDACTED]"
#: Most characters a stream holds back for a pattern that keeps matching.
DEFAULT_WINDOW = 4096
#: The end of the label of an input that holds the rest of a secret whose
#: beginning an earlier input held (a secret typed in pieces).
CONTINUED = " (continued)"

Pattern = str | re.Pattern[str]

#: ``re``'s flags and ``regex``'s, by name (their values differ: ASCII).
_FLAGS = ("IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE")


def mask(width: int) -> str:
    """The mask of a secret ``width`` cells wide."""
    return (REDACTED + "*" * width)[:width] if width >= len(REDACTED) else "*" * width


class Span(Protocol):
    """A token of the terminal's grammar (``termsim.emulator.parsing.grammar.Span``)."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def private(self) -> str: ...
    @property
    def params(self) -> str: ...
    @property
    def final(self) -> str: ...


class Scanning(Protocol):
    """What reads a stream into tokens, chunk by chunk (offsets from its
    start, afresh after ``close``), and says where an unfinished string
    (an OSC, a DCS...) began, if the stream is inside one."""

    def feed(self, data: bytes) -> Sequence[Span]: ...
    def close(self) -> Sequence[Span]: ...
    @property
    def open_string(self) -> int | None: ...


class Edit(NamedTuple):
    """Bytes ``start:end`` of a stream (offsets from its start) become
    ``replacement``; ``first``: they hold the first character of a match."""

    start: int
    end: int
    replacement: bytes
    first: bool = True


class Masking(Protocol):
    """A stream of a session (its output, or its input) being scrubbed:
    every byte before ``settled`` is final, with ``edits`` applied."""

    fed: int
    settled: int
    edits: list[Edit]

    def feed(self, data: bytes) -> object: ...
    def close(self) -> object: ...
    def forget(self, offset: int) -> None: ...
    def resize(self, cols: int, rows: int) -> None: ...


def _compile(pattern: Pattern) -> regex.Pattern[str]:
    if isinstance(pattern, re.Pattern) and isinstance(pattern.pattern, str) and pattern.pattern:
        flags = 0
        for name in _FLAGS:
            if pattern.flags & getattr(re, name):
                flags |= getattr(regex, name)
        try:
            return regex.compile(pattern.pattern, flags)
        except regex.error as exc:
            raise ValueError(f"redact: cannot use the pattern {pattern.pattern!r} ({exc}); "
                             "give the secret as a string instead") from None
    if isinstance(pattern, str) and pattern:
        return regex.compile(regex.escape(pattern))
    raise ValueError(f"redact takes non-empty strings and compiled regexes, not {pattern!r}")


class Redactor:
    """A session's secrets: scrubs whole strings, and makes the streams that
    scrub its output and its input as they come.

    ``tokens``: how a stream tells the characters that draw from escape
    sequences (a session passes the terminal's grammar,
    :class:`termsim.emulator.parsing.grammar.Scanner`: this package imports nothing of
    the emulator); without it every character draws.
    """

    def __init__(
        self, patterns: Sequence[Pattern], *, window: int = DEFAULT_WINDOW,
        tokens: Callable[[], Scanning] | None = None,
    ) -> None:
        self.patterns = [_compile(p) for p in patterns]
        #: Which patterns are literal strings (a whole match of one cannot
        #: grow with the next write; a regex's may).
        self.literal = [isinstance(p, str) for p in patterns]
        self.window = window
        self.tokens = tokens
        #: How many matches were replaced, in every string and stream.
        self.count = 0

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return merged(m.span() for p in self.patterns for m in p.finditer(text)
                      if m.end() > m.start())

    def text(self, text: str) -> str:
        """A whole string (a label, a description, a screen as text): every
        match replaced. A match across a line break (a secret a screen
        wrapped) is masked character by character, the breaks kept."""
        if not self.patterns:
            return text
        out, last = [], 0
        for start, end in self._spans(text):
            out += [text[last:start], REDACTED]
            last = end
            self.count += 1
        out.append(text[last:])
        text = "".join(out)
        if "\n" not in text:
            return text
        return self._across_lines(text)

    def _across_lines(self, text: str) -> str:
        joined = text.replace("\n", "")
        spans = self._spans(joined)
        if not spans:
            return text
        # Where each character of the joined text stands in ``text``.
        places = [i for i, ch in enumerate(text) if ch != "\n"]
        chars = list(text)
        for start, end in spans:
            shown = mask(end - start)
            for k in range(start, end):
                chars[places[k]] = shown[k - start]
            self.count += 1
        return "".join(chars)

    def data(self, data: bytes) -> bytes:
        """One whole write: every match replaced (``surrogateescape``: no byte is lost)."""
        if not self.patterns:
            return data
        text = data.decode("utf-8", "surrogateescape")
        return self.text(text).encode("utf-8", "surrogateescape")


def apply_edits(data: bytes, at: int, edits: Iterable[Edit]) -> bytes:
    """``data``, which stands at offset ``at`` of its stream, with the edits
    that touch it applied (in order of their starts; a replacement goes
    where its edit starts, so an edit across two writes replaces in the
    first and cuts in the second)."""
    end = at + len(data)
    out: list[bytes] = []
    done = at
    for edit in edits:
        if edit.end <= at or edit.start >= end or edit.end <= done:
            continue
        lo, hi = max(edit.start, done), min(edit.end, end)
        out.append(data[done - at:lo - at])
        if edit.start >= at:
            out.append(edit.replacement)
        done = hi
    if not out:
        return data
    out.append(data[done - at:])
    return b"".join(out)


def touching(edits: Iterable[Edit], start: int, end: int) -> list[Edit]:
    """The edits that change bytes ``start:end`` of the stream."""
    return [e for e in edits if e.start < end and e.end > start]


def merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans, sorted, overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out
