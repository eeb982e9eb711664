"""Redaction: secrets never reach a recording file.

``spawn(..., redact=["hunter2", re.compile(r"sk-[A-Za-z0-9]{20,}")])`` replaces
every match with ``[REDACTED]`` in what is written to the file (output, input,
wait descriptions, notes). The live screen is untouched: waits still see
what the program printed, only the evidence written to disk is scrubbed.

Output arrives in arbitrary chunks, so a secret can be split between two
reads. The redactor keeps the last ``window`` characters back until the next
chunk (or the end) and never cuts through a match; a secret up to ``window``
characters long is caught wherever the chunk boundaries fall. Text is
matched after UTF-8 decoding (``surrogateescape``, so no byte is lost).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Sequence

REDACTED = "[REDACTED]"
#: Longest secret, in characters, guaranteed to be caught across chunk boundaries.
DEFAULT_WINDOW = 256

Pattern = str | re.Pattern[str]


class Redactor:
    """Scrubs a stream of output chunks, and single inputs and strings."""

    def __init__(self, patterns: Sequence[Pattern], *, window: int = DEFAULT_WINDOW) -> None:
        compiled: list[re.Pattern[str]] = []
        for p in patterns:
            if isinstance(p, re.Pattern):
                compiled.append(p)
            elif isinstance(p, str) and p:
                compiled.append(re.compile(re.escape(p)))
            else:
                raise ValueError(f"redact takes non-empty strings and compiled regexes, not {p!r}")
        self.patterns = compiled
        self.window = window
        self.count = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._held = ""

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans = sorted(
            m.span() for p in self.patterns for m in p.finditer(text) if m.end() > m.start()
        )
        merged: list[tuple[int, int]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged

    def _replace(self, text: str, spans: Iterable[tuple[int, int]]) -> str:
        out, last = [], 0
        for start, end in spans:
            out += [text[last:start], REDACTED]
            last = end
            self.count += 1
        out.append(text[last:])
        return "".join(out)

    def text(self, text: str) -> str:
        """A whole string (a label, a description): every match replaced."""
        return self._replace(text, self._spans(text)) if self.patterns else text

    def data(self, data: bytes) -> bytes:
        """One whole input write: every match replaced."""
        if not self.patterns:
            return data
        text = data.decode("utf-8", "surrogateescape")
        return self.text(text).encode("utf-8", "surrogateescape")

    def feed(self, chunk: bytes) -> bytes:
        """The next output chunk; returns what may be written now."""
        if not self.patterns:
            return chunk
        return self._emit(self._held + self._decoder.decode(chunk), final=False)

    def flush(self) -> bytes:
        """Everything still held back (at the end of the session)."""
        if not self.patterns:
            return b""
        return self._emit(self._held + self._decoder.decode(b"", final=True), final=True)

    def _emit(self, text: str, *, final: bool) -> bytes:
        spans = self._spans(text)
        cut = len(text) if final else max(0, len(text) - self.window)
        for start, end in spans:
            # Never cut through a match, nor write one that ends at the cut
            # (the next chunk might extend it): hold it back whole.
            if start < cut < end or (not final and start < cut == end):
                cut = start
                break
        self._held = text[cut:]
        kept = [(s, e) for s, e in spans if e <= cut]
        return self._replace(text[:cut], kept).encode("utf-8", "surrogateescape")
