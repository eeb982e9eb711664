"""Where escape sequences begin and end, as the tokenizer reads them.

Theory of operation
-------------------

The tokenizer (``tokenizer.py``, :class:`~termsim.emulator.parsing.tokenizer.Parser`)
is the only code that knows the escape grammar: ECMA-48 and xterm's
parser, controls executed inside sequences, CAN and SUB aborting them,
strings (OSC, DCS, SOS, PM, APC) whose bodies are not sequences, 8-bit C1
introducers, sequences cut across reads. Whatever else needs to know where
a sequence stands in bytes it does not draw (the queries ``termsim play``
cuts out, "inside an escape sequence" in shake's words) asks it here, and
gets what the terminal itself would see: this module runs the
same ``Parser`` with a handler that records the tokens it is handed,
instead of drawing them. It holds no pattern of a sequence.

* :func:`sequences` is every token of some data as a :class:`Span`
  (start, end, kind, the fields of a CSI or ESC sequence), in the order the
  parser dispatches them; a sequence or string the data ends inside is
  reported last, ``complete=False``.
* :class:`Scanner` does the same for a stream fed chunk by chunk, offsets
  counted from the stream's start, a token cut across chunks reported
  once, whole, when it ends.
The engine's frame edges are not found here: the terminal that draws the
output reports them as it meets them (``Terminal.on_frame_edge``), so each
byte a program prints is parsed once.

Bytes are decoded as :meth:`Terminal.feed` decodes them, UTF-8 with
``surrogateescape``, and offsets are byte offsets: so an 8-bit C1 control is
its UTF-8 form (``b"\\xc2\\x9b"`` is CSI), and a lone byte ``0x9b`` is an
undecodable byte, drawn as U+FFFD, not a CSI, as in the terminal. Given a
``str``, offsets are indices in it and ``"\\x9b"`` is CSI.

Like the rest of the emulator, this module does no I/O.
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

from .handlers import NoFastPaths
from .tokenizer import Parser

__all__ = ["KINDS", "PLAIN", "Scanner", "Span", "sequence_at", "sequences"]

#: The kinds of :class:`Span`: printed text, a C0 control (or DEL, NUL), a
#: CSI sequence, any other escape sequence (and C1 IND, NEL, HTS, RI), and
#: the strings.
KINDS = ("text", "control", "csi", "esc", "osc", "dcs", "sos", "pm", "apc")



class Span(NamedTuple):
    """One token, as the parser hands it to the terminal.

    ``start``, ``end``: where it stands (``end`` exclusive), in bytes for
    bytes, in characters for a ``str``. ``kind``: one of :data:`KINDS`.
    For ``"csi"``: ``private`` (``"?"``, ``">"``... or ``""``), ``params``,
    ``inter`` and ``final`` as the parser splits them; for ``"esc"``:
    ``inter`` and ``final``; for a string: ``final`` is its terminator (BEL,
    ``ESC \\``, ST, or ``""`` when an ESC starting another sequence ended
    it). ``complete`` is False only for what the data ends inside (then
    ``end`` is the data's end and only ``kind`` is known).

    A C0 control inside an ESC or CSI sequence is executed where it stands
    (``ESC [ LF C`` is LF, then CUF): it is reported on its own, before the
    sequence, whose span contains it. Text may come in several spans.
    What the terminal drops is in no span: a sequence aborted by CAN, SUB
    or a byte that cannot continue it (and that CAN or SUB), a string over
    ``MAX_STRING``, NUL and DEL inside a sequence, a C1 control termsim
    does not implement, a stray ST.
    """

    start: int
    end: int
    kind: str
    private: str = ""
    params: str = ""
    inter: str = ""
    final: str = ""
    complete: bool = True

    @property
    def modes(self) -> list[str]:
        """The modes a CSI ``h`` or ``l`` sets or resets (``["1049", "25"]``)."""
        return self.params.split(";") if self.kind == "csi" else []


#: A C1 control, as the terminal decodes one (U+0080..U+009F).
_C1 = re.compile("[\x80-\x9f]")


class _Recorder(NoFastPaths):
    """A parser's handler that records every token it is handed as a
    :class:`Span` (indices in the parser's data; ``Scanner`` makes them
    offsets). ``parser.next`` is where the token being handed ends (the
    parser sets it before each call). It keeps no fast path: every control,
    sequence and part of a run comes to it whole (NUL and DEL through
    ``controls``: see there)."""

    def __init__(self) -> None:
        self.parser = Parser(self)
        self.spans: list[Span] = []
        #: NUL and DEL, which the parser hands only as ready actions (a
        #: terminal ignores both): the spans keep them, as the stream has them.
        self.controls = {"\x00": self._control_at_next, "\x7f": self._control_at_next}
        #: The stream offset of an open string that began in an earlier feed.
        self.string_start = 0
        #: Spans of strings that began in an earlier feed (their start is an
        #: offset already).
        self.carried: set[int] = set()

    def draw(self, text: str) -> None:
        n = self.parser.next
        self.spans.append(Span(n - len(text), n, "text"))

    def control(self, char: str) -> None:
        self._control_at_next()

    def _control_at_next(self) -> None:
        n = self.parser.next
        self.spans.append(Span(n - 1, n, "control"))

    def csi(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        self.spans.append(Span(index, self.parser.next, "csi", private, params, inter, final))

    def esc(self, inter: str, final: str, index: int) -> None:
        self.spans.append(Span(index, self.parser.next, "esc", inter=inter, final=final))

    def string(self, kind: str, body: str, terminator: str, index: int) -> None:
        if index < 0:
            self.carried.add(len(self.spans))
            index = self.string_start
        self.spans.append(Span(index, self.parser.next, kind.lower(), final=terminator))

    def garbage(self, kind: str) -> None:
        pass

    def failed(self, exc: Exception) -> None:  # pragma: no cover - records never fail
        pass


class _Offsets:
    """Character indices of a parser's data to offsets in the stream: the
    data's first character stands at ``base``; for bytes, characters are
    UTF-8 (undecodable bytes are one character each: ``surrogateescape``)."""

    def __init__(self, data: str, base: int, as_bytes: bool) -> None:
        self.data, self.base = data, base
        self.identity = not as_bytes or data.isascii()
        self._at = (0, base)  # the last index converted, and its offset

    def __call__(self, index: int) -> int:
        if self.identity:
            return self.base + index
        at, offset = self._at
        if index < at:
            # Back a little (a control inside a sequence is handed out
            # before the sequence): count back, not again from the start.
            offset -= len(self.data[index:at].encode("utf-8", "surrogateescape"))
        else:
            offset += len(self.data[at:index].encode("utf-8", "surrogateescape"))
        self._at = (index, offset)
        return offset


def _encoded_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))


class Scanner:
    """The tokens of a stream fed chunk by chunk (see :class:`Span`).

    ``feed()`` returns the tokens the parser dispatched on that chunk,
    offsets counted from the stream's start; a sequence cut at the chunk's
    end is held back and reported, whole, by the feed that ends it; a
    string is reported when it ends. ``close()`` reports what the stream
    ends inside. Feed it bytes (offsets are bytes, decoded as the terminal
    decodes them) or ``str`` (offsets are characters), not both.
    """

    def __init__(self) -> None:
        self._start()

    def _start(self) -> None:
        self._recorder = _Recorder()
        self._parser = self._recorder.parser
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._bytes: bool | None = None
        #: What has been fed so far: bytes (or characters).
        self.fed = 0

    def feed(self, data: bytes | str) -> list[Span]:
        """The tokens ``data`` completes, in the order the parser hands them
        to the terminal (a control inside a sequence comes before it)."""
        as_bytes = isinstance(data, bytes)
        if self._bytes is None:
            self._bytes = as_bytes
        elif self._bytes != as_bytes:
            raise TypeError("a Scanner is fed bytes or str, not both")
        if isinstance(data, bytes):
            held = len(self._decoder.getstate()[0])
            text = self._decoder.decode(data)
        else:
            held, text = 0, data
        parser, recorder = self._parser, self._recorder
        pending = parser.pending
        size = _encoded_len(pending) if as_bytes else len(pending)
        base = self.fed - held - size
        self.fed += len(data)
        spans: list[Span] = []
        carried: set[int] = set()
        recorder.spans, recorder.carried = spans, carried
        parser.feed(text)
        offset = _Offsets(pending + text, base, as_bytes)
        if parser.open_string is not None and parser.open_string >= 0:
            recorder.string_start = offset(parser.open_string)
        if offset.identity and not base and not carried:
            return spans
        return [span._replace(start=span.start if k in carried else offset(span.start),
                              end=offset(span.end))
                for k, span in enumerate(spans)]

    @property
    def open_string(self) -> int | None:
        """Where the string (an OSC, a DCS...) the stream is inside began,
        offsets from the stream's start; None outside one. Its bytes draw
        nothing, so a reader may pass over them before the string ends."""
        if self._parser.open_string is None:
            return None
        return self._recorder.string_start

    def close(self) -> list[Span]:
        """What the stream ends inside, as spans with ``complete=False``: an
        open string, or a sequence held back; then a UTF-8 character cut
        short (``"text"``). The scanner starts afresh."""
        parser = self._parser
        held = len(self._decoder.getstate()[0]) if self._bytes else 0
        end = self.fed - held
        out = []
        if parser.open_string is not None:
            start = self._recorder.string_start
            kind = (self._recorder.parser._string_kind or "").lower()
            out.append(Span(start, end, kind, complete=False))
        elif parser.pending:
            pending = parser.pending
            size = _encoded_len(pending) if self._bytes else len(pending)
            out.append(Span(end - size, end, _pending_kind(pending), complete=False))
        if held:
            out.append(Span(end, self.fed, "text", complete=False))
        self._start()
        return out


def _pending_kind(pending: str) -> str:
    """The kind of the sequence ``pending`` (held back by the parser) begins."""
    if pending[0] == "\x9b" or pending[1:2] == "[":
        return "csi"
    return "esc"


def sequences(data: bytes | str) -> list[Span]:
    """Every token of ``data`` as the terminal's parser reads it, in the
    order it is dispatched, then what ``data`` ends inside
    (``complete=False``). See :class:`Span` and the module's notes."""
    scanner = Scanner()
    return scanner.feed(data) + scanner.close()


#: Kinds of :class:`Span` that are not an escape sequence or string.
PLAIN = frozenset({"text", "control"})


def sequence_at(data: bytes | str, start: int) -> Span | None:
    """The escape sequence or string the terminal reads at ``data[start]``,
    offsets in ``data`` (``complete=False``, ending at the end of ``data``,
    for one cut short); ``None`` if none begins there. An ESC, or a C1
    introducer read outside a string, starts afresh whatever came before,
    so ``data`` is read from ``start`` only, as far as the sequence goes."""
    scanner = Scanner()
    size = 256
    at = start
    while at < len(data):
        chunk = data[at:at + size]
        at += len(chunk)
        size *= 4
        for span in scanner.feed(chunk):
            if span.start == 0 and span.kind not in PLAIN:
                return span._replace(start=start, end=start + span.end)
        parser = scanner._parser
        if not parser.pending and parser.open_string is None:
            return None
    for span in scanner.close():
        if span.start == 0 and span.kind not in PLAIN:
            return span._replace(start=start, end=start + span.end)
    return None
