"""Bytes that are not UTF-8, read as xterm reads them.

termsim decodes program output with ``surrogateescape``: each byte that is
not part of valid UTF-8 stays one character (a lone surrogate), so every
character keeps its byte offset, and the screen draws such bytes as U+FFFD
where they land. How many U+FFFD a run of them makes is where terminals
differ, and a program can tell (the cursor moves one column per U+FFFD):

* xterm (``decodeUtf8`` in ``ptydata.c``, ``utf8Weblike`` off, the default)
  reads a lead byte and as many continuation bytes as it announces, and
  draws one U+FFFD for the whole sequence when it is not a character (an
  overlong form, a surrogate, past U+10FFFF, a five- or six-byte form); a
  sequence cut short by another byte is one U+FFFD, and that byte is read
  anew; a stray continuation byte, 0xFE and 0xFF are one each;
* the Unicode Standard's recommended practice, which WHATWG and Ghostty
  follow, draws one per *maximal subpart* (``E0 80 AF`` is three: ``E0``
  cannot be followed by ``80``): :func:`termsim.emulator.screen.cells._replaced`.

``Emulation(invalid_utf8=...)`` chooses; xterm's is the default. xterm's
way needs one more thing of the decoder: a sequence still open at the end
of a read must wait for the next (``E0 80`` then ``AF`` is one U+FFFD,
read whole or in pieces), which :class:`XtermUtf8Decoder` does, holding the
bytes where ``Terminal`` counts them as not yet decoded.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["XtermUtf8Decoder", "replaced_xterm", "xterm_open", "xterm_sequences"]

#: Undecodable bytes, as ``surrogateescape`` hands them over (one per byte).
_UNDECODED = re.compile("[\udc80-\udcff]+")


def _announced(lead: int) -> int:
    """How many continuation bytes a lead byte announces (0: it is none)."""
    if not 0xC0 <= lead <= 0xFD:
        return 0
    return 1 if lead < 0xE0 else 2 if lead < 0xF0 else 3 if lead < 0xF8 else 4 if lead < 0xFC else 5


def xterm_sequences(raw: bytes) -> list[tuple[int, int]]:
    """The (start, end) of each sequence xterm reads in ``raw``, bytes that
    are not UTF-8; the last may still be open (:func:`xterm_open`)."""
    found = []
    i, end = 0, len(raw)
    while i < end:
        start = i
        need = _announced(raw[i])
        i += 1
        while need and i < end and 0x80 <= raw[i] <= 0xBF:
            i += 1
            need -= 1
        found.append((start, i))
    return found


def xterm_open(raw: bytes) -> int:
    """How many bytes at the end of ``raw`` (bytes that are not UTF-8) are a
    sequence xterm has not finished: its lead byte announced more
    continuation bytes than have come (0: none is open)."""
    if not raw:
        return 0
    start, end = xterm_sequences(raw)[-1]
    return end - start if end - start - 1 < _announced(raw[start]) else 0


#: One sequence as xterm reads it, among undecodable bytes (surrogates
#: U+DC80..U+DCFF stand for bytes 0x80..0xFF): a lead byte and up to as many
#: continuation bytes as it announces, or any other byte alone. The same
#: rule as :func:`xterm_sequences`, as one pattern, so that replacing costs
#: one pass in C (random bytes hold a run every few characters).
_SEQUENCE = re.compile(
    "[\udcc0-\udcdf][\udc80-\udcbf]?|[\udce0-\udcef][\udc80-\udcbf]{0,2}"
    "|[\udcf0-\udcf7][\udc80-\udcbf]{0,3}|[\udcf8-\udcfb][\udc80-\udcbf]{0,4}"
    "|[\udcfc-\udcfd][\udc80-\udcbf]{0,5}|[\udc80-\udcff]")


def replaced_xterm(data: str) -> str:
    """``data`` with its undecodable bytes as U+FFFD, one a sequence as
    xterm reads them (the module says how)."""
    return _SEQUENCE.sub("\ufffd", data)


class XtermUtf8Decoder(codecs.IncrementalDecoder):
    """UTF-8 with ``surrogateescape``, incremental, which holds back the
    undecodable bytes at the end of a read that xterm would still be
    reading (a lead byte whose continuation bytes have not all come): the
    next read's first byte decides whether they are one sequence. Held
    bytes are reported by :meth:`getstate` as not decoded yet, as the
    plain decoder reports a valid sequence cut short."""

    def __init__(self, errors: str = "surrogateescape") -> None:
        super().__init__(errors)
        self._inner = codecs.getincrementaldecoder("utf-8")(errors)
        self._held = b""

    def decode(self, data: bytes, final: bool = False) -> str:  # type: ignore[override]
        if self._held:
            data, self._held = self._held + data, b""
        text = self._inner.decode(data, final)
        # Hot: most reads end in plain text, and this is one comparison.
        if text and "\udc80" <= text[-1] <= "\udcff" and not final \
                and not self._inner.getstate()[0]:
            # The run of such bytes that ends the read, from its start (a
            # sequence boundary: a character, or what the last read left).
            start = len(text) - 1
            while start and "\udc80" <= text[start - 1] <= "\udcff":
                start -= 1
            raw = text[start:].encode("utf-8", "surrogateescape")
            held = xterm_open(raw)
            if held:
                self._held = raw[-held:]
                text = text[:len(text) - held]
        return text

    def getstate(self) -> tuple[bytes, int]:
        buffered, flag = self._inner.getstate()
        return self._held + buffered, flag

    def setstate(self, state: tuple[bytes, int]) -> None:
        self._held = b""
        self._inner.setstate(state)

    def reset(self) -> None:
        self._held = b""
        self._inner.reset()
