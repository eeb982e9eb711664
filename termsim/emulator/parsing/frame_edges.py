"""Where the engine cuts program output into frames, found by the tokenizer.

A wait is evaluated on settled screens: the engine feeds a read in pieces
that end where a frame closes (the cursor shown again, a synchronized update
ended) and stops before one opens, so a screen half drawn between a
program's "hide cursor" and its "show cursor" never satisfies a wait. Where
those sequences stand is the grammar's business, not a pattern's: combined
modes (``ESC[?2026;25l``), a sequence cut across two reads, a C1 CSI inside
a string body (not a sequence) all read as the terminal reads them, because
:class:`FrameEdges` runs the tokenizer's own :class:`Parser` (or, on a plain
read, its own CSI pattern) and records only these switches. It is apart from
``grammar.py`` because the engine calls it on every read: it is a hot path
with its own shortcuts, where ``grammar``'s spans are for tools.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterator, Mapping

from .escapes import CSI_BYTES, CSI_PREFIX_BYTES, CSI_PRIVATE_BYTES, csi_fields
from .grammar import _C1, _CONTROL_CHARS, _noop, _Offsets
from .tokenizer import Parser, Part

#: DEC private modes whose switching opens (``l`` of 25, ``h`` of 2026) or
#: closes (``h`` of 25, ``l`` of 2026) a frame: hiding the cursor and
#: beginning a synchronized update open one.
FRAME_MODES = {"25": "l", "2026": "h"}



def frame_switch(private: str, params: str, final: str) -> tuple[bool, bool]:
    """Whether a CSI sequence opens a frame (hides the cursor or begins a
    synchronized update) and whether it closes one (shows the cursor or
    ends the update); a combined one (``?25;2026l``) may do both."""
    if private != "?" or final not in "hl" or len(final) != 1:
        return False, False
    opens = closes = False
    for mode in params.split(";"):
        switch = FRAME_MODES.get(mode)
        if switch is not None:
            if switch == final:
                opens = True
            else:
                closes = True
    return opens, closes


class _EdgeFinder:
    """A parser's handler that records frame edges only (see
    :class:`FrameEdges`): every other token is a no-op, and runs of
    sequences are kept by the parser as usual, so a frame costs a few calls."""

    def __init__(self) -> None:
        self.parser = Parser(self)
        #: (index in the parser's data, whether it opens) of the edges found.
        self.edges: list[tuple[int, bool]] = []
        self.sequences: dict[str, Callable[[], None]] = {}
        self.queries = _EdgeQueries(self)
        self.controls = {ch: _noop for ch in _CONTROL_CHARS}
        self.repeated: dict[str, Callable[[int], None]] = {}

    def edge(self, start: int, end: int, opens: bool, closes: bool) -> None:
        if opens:
            self.edges.append((start, True))
        if closes:
            self.edges.append((end, False))

    def fuse(self, parts: list[Part]) -> list[Part]:
        return parts

    def newlines(self, count: int) -> Callable[[], None]:
        return _noop

    def prepare(
        self, private: str, params: str, inter: str, final: str,
    ) -> Callable[[], None] | None:
        # An edge has no ready action: the parser then asks ``queries``,
        # with where it stands.
        return None if inter == "" and any(frame_switch(private, params, final)) else _noop

    def prepare_esc(self, final: str) -> Callable[[], None]:
        return _noop

    def draw(self, text: str) -> None:
        pass

    def control(self, char: str) -> None:
        pass

    def csi(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        if not inter:
            self.edge(index, self.parser.next, *frame_switch(private, params, final))

    def esc(self, inter: str, final: str, index: int) -> None:
        pass

    def string(self, kind: str, body: str, terminator: str, index: int) -> None:
        pass

    def garbage(self, kind: str) -> None:
        pass

    def failed(self, exc: Exception) -> None:  # pragma: no cover - no-ops never fail
        pass


#: Regions with an edge closer than this are parsed in one go, with the
#: regions between them (``FrameEdges.feed``).
_NEAR = 256
#: How many sequences ``_EdgeQueries`` keeps as no-ops.
_MAX_KEPT = 4096


class _EdgeQueries(Mapping[str, Callable[[int], None]]):
    """``_EdgeFinder``'s ``queries``: a run of one sequence, or a part of a
    run without a ready action, comes here with its text; an edge gets the
    call that records it where it stands, any other sequence becomes a no-op
    in ``sequences`` (the parser finds it there next time)."""

    def __init__(self, finder: _EdgeFinder) -> None:
        self._finder = finder
        #: Edges met before -> the call that records one where it stands.
        self._edges: dict[str, Callable[[int], None]] = {}

    def get(self, key: str, default: object = None) -> Callable[[int], None] | None:  # type: ignore[override]
        record = self._edges.get(key)
        if record is not None:
            return record
        private, params, inter, final = csi_fields(key)
        opens, closes = frame_switch(private, params, final) if not inter else (False, False)
        finder = self._finder
        if opens or closes:
            size = len(key)
            edge = finder.edge

            def record(index: int) -> None:
                edge(index, index + size, opens, closes)

            if len(self._edges) >= _MAX_KEPT:
                self._edges.clear()
            self._edges[key] = record
            return record
        kept = finder.sequences
        if len(kept) >= _MAX_KEPT:
            kept.clear()
        kept[key] = _noop
        return None

    def __getitem__(self, key: str) -> Callable[[int], None]:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


class FrameEdges:
    """Where the engine cuts a stream of output into frame pieces, chunk by
    chunk: ``feed(chunk)`` returns ``(offset in the chunk, opens)`` in
    order. A sequence that opens a frame (``ESC[?25l``, ``ESC[?2026h``) is
    cut before (``opens`` True: the piece up to it ends outside a frame); one
    that closes it (``ESC[?25h``, ``ESC[?2026l``) after (``opens`` False: the
    piece up to it ends a frame); a combined one that does both
    (``ESC[?25;2026l``), before and after. Combined modes, 8-bit CSI and
    controls inside the sequence are understood; the same bytes inside a
    string (a title, a DCS body) are not a sequence.

    A sequence cut across chunks is held back, as the terminal holds it:
    the chunk that ends it reports it (an opening edge that began in an
    earlier chunk is at offset 0: there is nothing left to cut). Feed every
    chunk of the stream in order; after output it did not see, ``reset()``
    (a string or sequence open across that gap is then not known).
    """

    def __init__(self) -> None:
        self._finder = _EdgeFinder()
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        #: Sequences met by the plain path -> (opens, closes).
        self._known: dict[bytes, tuple[bool, bool]] = {}

    def reset(self) -> None:
        self._finder.parser.reset()
        self._decoder.reset()

    def feed(self, chunk: bytes) -> list[tuple[int, bool]]:
        """The cuts in ``chunk``: offsets from 0 to ``len(chunk)``, in order.

        Only the parts of the chunk that can hold an edge are parsed. An
        ESC ends whatever sequence or string came before it and starts
        afresh (see the tokenizer's rules), so the chunk is a row of
        regions, each from an ESC to the next (the first one from the
        chunk's start, with what the last chunk left open), that parse
        alike on their own; an edge is a CSI with ``?`` in it, so a region
        without one holds none. The regions with one are parsed (close
        ones in one go, with the regions between), and the last region, for
        the state it leaves. Where edges are dense (prompt_toolkit echoing
        keys: a frame every few dozen bytes), that is the whole chunk.
        """
        finder = self._finder
        parser = finder.parser
        if b"\x1b" not in chunk and b"\xc2" not in chunk and not parser.pending \
                and parser.open_string is None and not self._decoder.getstate()[0]:
            # No sequence in it, and none cut short before it (lines of
            # text: the usual read): no cut, and nothing held for the next
            # chunk but what the decoder holds of a character cut short.
            parser.reset()
            if chunk and chunk[-1] >= 0x80:
                self._decoder.decode(chunk[-3:])
            return []
        if self._plain_state(parser) and b"\xc2" not in chunk:
            plain = self._plain(chunk, parser.pending)
            if plain is not None:
                return plain
        held = len(self._decoder.getstate()[0])
        text = self._decoder.decode(chunk)
        pending = parser.pending
        # Regions to parse, [start, end) in ``text``; start -1: the first
        # region, parsed after what the last chunk left (``pending``).
        groups: list[list[int]] = []
        if text.count("?") * _NEAR >= len(text):  # dense: the whole chunk
            groups.append([-1, len(text)])
        elif "?" in pending:
            esc = text.find("\x1b")
            groups.append([-1, len(text) if esc < 0 else esc])
        q = text.find("?")
        while q >= 0:
            if groups and q < groups[-1][1]:
                q = text.find("?", groups[-1][1])
                continue
            start = text.rfind("\x1b", 0, q + 1)
            end = text.find("\x1b", q + 1)
            if end < 0:
                end = len(text)
            if groups and start - groups[-1][1] <= _NEAR:
                groups[-1][1] = end  # (the regions between parse alike)
            else:
                groups.append([start, end])
            q = text.find("?", end)
        cuts: list[tuple[int, bool]] = []
        offset = _Offsets(text, -held, True)
        for start, end in groups:
            found: list[tuple[int, bool]] = []
            finder.edges = found
            if start < 0:
                parser.feed(text[:end])
                shift = -len(pending)
            else:
                parser.reset()
                parser.feed(text[start:end])
                shift = start
            for at, opens in found:
                cuts.append((max(0, offset(at + shift)) if at + shift > 0 else 0, opens))
        if not groups or groups[-1][1] < len(text):
            # The state the last region leaves.
            last = text.rfind("\x1b")
            if last >= 0:
                parser.reset()
                parser.feed(text[last:])
            elif pending or parser.open_string is not None or _C1.search(text) is not None:
                parser.feed(text)
        return cuts


    def _plain(self, chunk: bytes, pending: str) -> list[tuple[int, bool]] | None:
        """The cuts of a chunk read with no string left open and nothing held
        by the decoder, with no C1 control or Latin-1 character in it (no
        ``\\xc2`` byte), or None when it needs the whole parser: one of its
        ``ESC [ ?`` is not a whole CSI sequence (a control inside it).

        Then an edge can only be a 7-bit ``ESC [ ?`` sequence, and each one
        is a sequence wherever it stands (an ESC ends any string and starts
        afresh), so the parser's own CSI pattern, matched at each, finds
        the edges; what the last chunk left unfinished (``pending``) is read
        again in front of this one. prompt_toolkit hides and shows the
        cursor around every frame, a few dozen bytes apart: this keeps that
        path a few ``find`` calls long. The parser is left in the state the
        chunk leaves, as the full path leaves it."""
        if self._decoder.getstate()[0]:
            return None
        shift = 0
        if pending:
            head = pending.encode("utf-8", "surrogateescape")
            chunk, shift = head + chunk, len(head)
        cuts: list[tuple[int, bool]] = []
        known = self._known
        found = 0
        for m in CSI_PRIVATE_BYTES.finditer(chunk):
            found += 1
            key = m.group()
            switch = known.get(key)
            if switch is None:
                private, params, inter, final = csi_fields(key.decode("ascii"))
                switch = frame_switch(private, params, final) if not inter else (False, False)
                if len(known) >= _MAX_KEPT:
                    known.clear()
                known[key] = switch
            if switch[0]:
                cuts.append((max(0, m.start() - shift), True))
            if switch[1]:
                cuts.append((m.end() - shift, False))
        if found != chunk.count(b"\x1b[?"):
            # One ``ESC [ ?`` is no whole sequence: fine if it is the last
            # one, cut short by the end of the read (the next read reports
            # it), else (a control inside) the parser decides.
            at = chunk.rfind(b"\x1b[?")
            if (found + 1 != chunk.count(b"\x1b[?") or chunk.find(b"\x1b", at + 1) >= 0
                    or CSI_PREFIX_BYTES.fullmatch(chunk, at) is None):
                return None
        self._leave(chunk)
        return cuts

    def follow(self, chunk: bytes) -> None:
        """Take in a chunk whose cuts nobody needs (the engine, with no wait
        pending), so that a sequence it leaves cut short is still known when
        the next chunk ends it."""
        parser = self._finder.parser
        if self._plain_state(parser) and b"\xc2" not in chunk \
                and not self._decoder.getstate()[0]:
            if parser.pending:
                chunk = parser.pending.encode("utf-8", "surrogateescape") + chunk
            self._leave(chunk)
        else:
            self.feed(chunk)

    @staticmethod
    def _plain_state(parser: Parser) -> bool:
        """Whether the last chunk left nothing the plain path cannot read
        again in front of the next: no string open, and nothing pending but
        a 7-bit sequence (an 8-bit CSI cut short is the parser's to finish)."""
        return parser.open_string is None and parser.pending[:1] in ("", "\x1b")

    def _leave(self, chunk: bytes) -> None:
        """Leave the parser and the decoder as the full path would after
        ``chunk``. That state comes from the chunk's last ESC on: nothing
        when that is a whole CSI sequence (the common case), else the
        parser reads it."""
        parser = self._finder.parser
        parser.reset()
        last = chunk.rfind(b"\x1b")
        if last >= 0 and CSI_BYTES.match(chunk, last) is None:
            self._finder.edges = []
            parser.feed(chunk[last:].decode("utf-8", "surrogateescape"))
        if chunk and chunk[-1] >= 0x80:
            self._decoder.decode(chunk[-3:])  # (only the state after matters)


def frame_edges(chunk: bytes) -> list[tuple[int, bool]]:
    """:meth:`FrameEdges.feed` for a chunk on its own (nothing cut before it)."""
    return FrameEdges().feed(chunk)
