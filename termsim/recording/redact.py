"""Redaction: secrets never reach a recording file, however they are drawn or typed.

``spawn(..., redact=["hunter2", re.compile(r"sk-[A-Za-z0-9]{20,}")])`` replaces
every match with ``[REDACTED]`` in what is written to the file (output, input,
wait descriptions, notes). The live screen is untouched: waits still see
what the program printed, only the evidence written to disk is scrubbed.

A secret is looked for where a person would read it, not in the raw bytes:

* **Output** is read as the terminal reads it. The characters that draw are
  one text and everything else (escape sequences, controls) is passed over,
  so ``h ESC[1m u ESC[0m nter2`` is ``hunter2``, wherever the reads split it
  and whatever sits between its characters. Which bytes draw, the
  terminal's own grammar says (``tokens=``: the session passes
  :class:`termsim.emulator.grammar.Scanner`; this package imports nothing of
  the emulator). The first character of a match becomes ``[REDACTED]``, the
  others go; the sequences between them stay, so the screen keeps its
  colours and its cursor.
* **Input** is read the same way, as one stream across writes: a secret
  typed key by key, one ``press()`` per character, is caught like one typed
  at once. An input that held part of a secret is marked ``secret`` (a
  replay then compares nothing, codegen asks for the secret) and its label
  no longer tells the key.

Nothing is held back longer than it must be. A stream is *settled* up to
the first character that may still begin a match (a partial match, which
the ``regex`` module can report: stdlib ``re`` cannot tell "no match" from
"not yet"), and a match that reaches the end of what has come is held too,
as the next read might extend it. For a literal secret that is at most its
own length less one; honest output is settled at once. ``window`` bounds
what is held for a pattern that keeps matching (``\\w+``): past it, the
oldest characters are settled, so a secret longer than ``window``
characters is only caught when it comes whole.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple, Protocol

import regex

REDACTED = "[REDACTED]"
#: Most characters a stream holds back for a pattern that keeps matching.
DEFAULT_WINDOW = 4096

Pattern = str | re.Pattern[str]

#: ``re``'s flags and ``regex``'s, by name (their values differ: ASCII).
_FLAGS = ("IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE")


class Span(Protocol):
    """A token of the terminal's grammar (``termsim.emulator.grammar.Span``)."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def kind(self) -> str: ...


class Scanning(Protocol):
    """What reads a stream into tokens, chunk by chunk (offsets from its start)."""

    def feed(self, data: bytes) -> Sequence[Span]: ...
    def close(self) -> Sequence[Span]: ...


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


class Edit(NamedTuple):
    """Bytes ``start:end`` of a stream (offsets from its start) become ``replacement``."""

    start: int
    end: int
    replacement: bytes


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
    scrub its output and its input as they come."""

    def __init__(
        self, patterns: Sequence[Pattern], *, window: int = DEFAULT_WINDOW,
        tokens: Callable[[], Scanning] | None = None,
    ) -> None:
        self.patterns = [_compile(p) for p in patterns]
        #: Which patterns are literal strings (a whole match of one cannot
        #: grow with the next write; a regex's may).
        self.literal = [isinstance(p, str) for p in patterns]
        self.window = window
        #: How the streams tell the characters that draw (None: every
        #: character does; a session passes the terminal's grammar).
        self.tokens = tokens
        #: How many matches were replaced, in every string and stream.
        self.count = 0
        self._output: Stream | None = None
        self._held = b""
        self._held_at = 0

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return _merged(m.span() for p in self.patterns for m in p.finditer(text)
                       if m.end() > m.start())

    def text(self, text: str) -> str:
        """A whole string (a label, a description): every match replaced."""
        if not self.patterns:
            return text
        out, last = [], 0
        for start, end in self._spans(text):
            out += [text[last:start], REDACTED]
            last = end
            self.count += 1
        out.append(text[last:])
        return "".join(out)

    def data(self, data: bytes) -> bytes:
        """One whole write: every match replaced (``surrogateescape``: no byte is lost)."""
        if not self.patterns:
            return data
        text = data.decode("utf-8", "surrogateescape")
        return self.text(text).encode("utf-8", "surrogateescape")

    def stream(self, *, whole_writes: bool = False) -> Stream:
        """A new stream to scrub (``whole_writes``: each write ends every
        escape sequence it holds, as a key does; output's may run on)."""
        return Stream(self, whole_writes=whole_writes)

    # -- one output stream, as bytes in and bytes out ----------------------------------------

    def feed(self, chunk: bytes) -> bytes:
        """The next output chunk; returns what may be written now (the
        recorder keeps events instead, see :class:`Stream`)."""
        if not self.patterns:
            return chunk
        if self._output is None:
            self._output = self.stream()
        return self._settle(chunk, self._output.feed(chunk))

    def flush(self) -> bytes:
        """Everything still held back (at the end of the session)."""
        if not self.patterns or self._output is None:
            return b""
        return self._settle(b"", self._output.close())

    def _settle(self, chunk: bytes, edits: list[Edit]) -> bytes:
        stream = self._output
        assert stream is not None
        self._held += chunk
        cut = stream.settled - self._held_at
        out = apply_edits(self._held[:cut], self._held_at, stream.edits)
        self._held, self._held_at = self._held[cut:], stream.settled
        stream.forget(stream.settled)
        return out


class Stream:
    """One direction of a session (its output, or its input) read as a
    person reads it, and how far it is settled: every byte before
    ``settled`` is final, with ``edits`` applied; what follows may still
    turn out to be part of a secret."""

    def __init__(self, redactor: Redactor, *, whole_writes: bool) -> None:
        self._redactor = redactor
        self._patterns = list(zip(redactor.patterns, redactor.literal, strict=True))
        self._whole = whole_writes
        self._scanner = redactor.tokens() if redactor.tokens is not None else None
        #: The stream offset the scanner's offsets count from.
        self._scanned_from = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        #: Bytes fed so far, and up to where they are final.
        self.fed = 0
        self.settled = 0
        #: The replacements decided, in order, not yet forgotten.
        self.edits: list[Edit] = []
        # The characters that draw, not yet settled: runs of them, each
        # with the offset of its first byte (a run's bytes are contiguous).
        self._runs: list[tuple[int, str]] = []
        # What the scanner has not yet placed starts here (a sequence or a
        # character cut short): bytes from here on are not final.
        self._placed = 0
        # The bytes a run is decoded from (from ``_kept_at`` to ``fed``).
        self._kept = b""
        self._kept_at = 0

    def feed(self, data: bytes) -> list[Edit]:
        """Read the next write; return the edits it decided (also kept in
        ``edits`` until :meth:`forget`)."""
        return self._read(data, final=False)

    def close(self) -> list[Edit]:
        """The end of the stream: nothing more can complete a match."""
        return self._read(b"", final=True)

    def forget(self, offset: int) -> None:
        """Drop the edits wholly before ``offset`` (already written)."""
        self.edits = [e for e in self.edits if e.end > offset]

    def resize(self, cols: int, rows: int) -> None:
        """Nothing: this stream reads no screen."""

    def _read(self, data: bytes, *, final: bool) -> list[Edit]:
        base = self.fed
        self.fed += len(data)
        if not self._patterns:
            self.settled = self._placed = self.fed
            return []
        if self._scanner is None:
            self._plain(data, base, final)
        else:
            self._kept += data
            spans = list(self._scanner.feed(data))
            if final or self._whole:
                spans += self._scanner.close()
            for span in spans:
                start, end = span.start + self._scanned_from, span.end + self._scanned_from
                if span.kind == "text":
                    self._add(start, end)
                self._placed = max(self._placed, end)
            if final or self._whole:
                # Closed, a scanner starts afresh: its offsets count from here.
                self._placed = self._scanned_from = self.fed
        edits = self._decide(final)
        self.edits += edits
        return edits

    def _plain(self, data: bytes, base: int, final: bool) -> None:
        """Without a grammar every character draws."""
        held = len(self._decoder.getstate()[0])
        text = self._decoder.decode(data, final)
        if text:
            self._runs.append((base - held, text))
        self._placed = self.fed - len(self._decoder.getstate()[0])

    def _add(self, start: int, end: int) -> None:
        raw = self._kept[start - self._kept_at:end - self._kept_at]
        text = raw.decode("utf-8", "surrogateescape")
        if text:
            self._runs.append((start, text))

    def _decide(self, final: bool) -> list[Edit]:
        text = "".join(run for _, run in self._runs)
        hold = len(text)
        spans = []
        for pattern, literal in self._patterns:
            for match in pattern.finditer(text, partial=not final):
                start, end = match.span()
                if end == start:
                    continue
                if not final and (match.partial or (end == len(text) and not literal)):
                    # May go on in the next write: hold it back whole.
                    hold = min(hold, start)
                else:
                    spans.append((start, end))
        if not final and len(text) - hold > self._redactor.window:
            hold = len(text) - self._redactor.window
        spans = _merged(spans)
        for start, end in reversed(spans):
            if end > hold:
                hold = min(hold, start)
        edits: list[Edit] = []
        for start, end in spans:
            if end <= hold:
                edits += self._edits(start, end)
                self._redactor.count += 1
        # Settle up to the first character held, and no further than the
        # scanner has placed.
        held_at = self._offset(hold) if hold < len(text) else self._placed
        self.settled = max(self.settled, min(held_at, self._placed))
        self._drop(hold)
        cut = self.settled - self._kept_at
        if self._runs:
            cut = min(cut, self._runs[0][0] - self._kept_at)
        self._kept, self._kept_at = self._kept[cut:], self._kept_at + cut
        return edits

    def _locate(self, index: int) -> tuple[int, int]:
        """The run holding character ``index`` of the held text, and the
        character's index in it."""
        for k, (_, run) in enumerate(self._runs):
            if index < len(run):
                return k, index
            index -= len(run)
        raise IndexError(index)

    def _offset(self, index: int) -> int:
        """The byte offset of character ``index`` of the held text."""
        k, i = self._locate(index)
        start, run = self._runs[k]
        return start + len(run[:i].encode("utf-8", "surrogateescape"))

    def _edits(self, start: int, end: int) -> list[Edit]:
        """Characters ``start:end`` of the held text: the first becomes the
        mask, the others go (the bytes between them stay)."""
        edits: list[Edit] = []
        for index in range(start, end):
            k, i = self._locate(index)
            at, run = self._runs[k]
            first = at + len(run[:i].encode("utf-8", "surrogateescape"))
            size = len(run[i].encode("utf-8", "surrogateescape"))
            mask = REDACTED.encode() if index == start else b""
            if edits and not mask and edits[-1].end == first:
                edits[-1] = edits[-1]._replace(end=first + size)
            else:
                edits.append(Edit(first, first + size, mask))
        return edits

    def _drop(self, index: int) -> None:
        """Forget the held characters before ``index`` (settled)."""
        runs = self._runs
        while runs and index >= len(runs[0][1]):
            index -= len(runs[0][1])
            runs.pop(0)
        if runs and index:
            at, run = runs[0]
            runs[0] = (at + len(run[:index].encode("utf-8", "surrogateescape")), run[index:])


def apply_edits(data: bytes, at: int, edits: Iterable[Edit]) -> bytes:
    """``data``, which stands at offset ``at`` of its stream, with the edits
    that touch it applied (a replacement goes where its edit starts, so an
    edit across two writes replaces in the first and cuts in the second)."""
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


def touches(edits: Iterable[Edit], start: int, end: int) -> bool:
    """Whether any edit changes bytes ``start:end`` of the stream."""
    return any(e.start < end and e.end > start for e in edits)


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
