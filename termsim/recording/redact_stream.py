"""The rules that find a secret in a stream, as a person would read it.

A program rarely prints a secret as one string. A syntax-highlighting
prompt puts an SGR between any two characters; prompt_toolkit draws each
key as it is typed, one write per key, and between two of them writes a
blank on the bottom row and moves back; a title or a link carries one in
an escape sequence's string; a test types one key by key. So a
:class:`Stream` reads its bytes with the terminal's grammar and applies
three rules, and a byte is *settled* (final, written) only once no rule can
still use it:

* **the stream**: the characters that draw, in the order they come, escape
  sequences and controls passed over (for input, the characters keys type,
  ``typed=``: a kitty-protocol key ``ESC[106u`` types ``j``; Backspace
  takes back the character before it, and a secret's beginning is held for
  ``TYPOS`` keys more, which may be taken back). This catches
  a secret split by reads or styled character by character, and one drawn
  and erased, or scrolled away, within one read;
* **strings**: the text of each OSC, DCS, APC, PM or SOS (a title, a link,
  a passthrough), matched whole, its match replaced by ``[REDACTED]``;
* **the screen** (output only, ``shadow=``): a terminal of the recorder's
  own, drawn like the session's, is fed the same bytes except that each
  character of a read that draws a few of them (an echo, a redraw of what
  changed) is a private-use code point of its own, as wide as the
  character: whatever cell it lands in, and wherever a scroll, an insert or
  a wrap moves it, the cell says which bytes drew it. A match in a row (or
  in rows a wrap joins) masks those bytes, and a secret's beginning just
  before the cursor (being typed) holds them back until it is complete or
  broken. A read that draws many characters is drawn as it is: a secret in
  bulk output comes whole, and the stream rule sees it.

Nothing is held back longer than it must be: a stream is settled up to the
first character that may still begin a match (a partial match, which the
``regex`` module can report: stdlib ``re`` cannot tell "no match" from "not
yet"), and a match that reaches the end of what has come is held too if a
regex's (the next read might extend it). For a literal secret that is at
most its own length less one; honest output is settled at once, and so are
the bytes of a string still open (they draw nothing) once no match can
begin in them. ``window`` bounds what is held for a pattern that keeps
matching (``\\w+``): past it, the oldest characters are settled.

What no rule sees: a secret drawn right to left, or a character at a time
at places the cursor jumps to within reads that draw many characters, or
on a screen whose private-use tags have run out (131,068 cells at once).

Why this module is long: the three rules share one settling point (a byte
is written once no rule can still use it), so they are one class.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Protocol

from .redact import REDACTED, Edit, Redactor, Span, apply_edits, mask

#: Private-use code points that tag a character on the shadow screen:
#: planes 15 and 16, which no program's text uses in practice.
_CODES = (*range(0xF0000, 0xFFFFE), *range(0x100000, 0x10FFFE))
#: Keys typed after a secret's beginning that may yet be taken back: the
#: input is held that long (a typo put right still reads as the secret).
TYPOS = 2
#: A read that draws more characters than this is drawn untagged.
TAGGED_READ = 256
#: The kinds of token whose string is matched whole.
_STRINGS = frozenset({"osc", "dcs", "sos", "pm", "apc"})

#: The character a non-text token types (input: a key in the kitty protocol
#: or modifyOtherKeys), or None.
Typed = Callable[[Span], str | None]


class Shadow(Protocol):
    """The screen a stream draws its output on (``engine/redaction.py``)."""

    def feed(self, data: bytes) -> None: ...
    def resize(self, cols: int, rows: int) -> None: ...
    @property
    def cols(self) -> int: ...
    def width(self, char: str) -> int: ...
    def rows_with(self, codes: set[str], reach: int) -> list[list[str]]:
        """The cells (each one's text) of each row that shows one of
        ``codes``, with the rows a wrap may join to it, ``reach`` at most
        each way."""
        ...
    def before_cursor(self, reach: int) -> list[str]:
        """The cells before the cursor, on its row and the rows (``reach``
        at most) that a wrap joins to it."""
        ...
    def cells(self) -> int: ...
    def shown(self) -> set[str]:
        """Every code point on the screen."""
        ...


class _Char:
    """A character that draws, not yet settled: its bytes, and its tag(s)."""

    __slots__ = ("char", "codes", "end", "masked", "start", "width")

    def __init__(self, start: int, end: int, char: str, width: int) -> None:
        self.start, self.end, self.char, self.width = start, end, char, width
        self.codes: tuple[str, ...] = ()
        self.masked = False


class _Run:
    """Characters that draw, not yet settled, from contiguous bytes
    starting at ``start`` (or one character a key sequence types, which
    ends at ``key_end``): kept as text, made into :class:`_Char` only when
    one of them is tagged or masked (most output is settled as it comes)."""

    __slots__ = ("_chars", "key_end", "start", "text")

    def __init__(self, start: int, text: str, key_end: int | None = None) -> None:
        self.start, self.text, self.key_end = start, text, key_end
        self._chars: list[_Char] | None = None

    def offset(self, index: int) -> int:
        """Where character ``index`` begins."""
        if index == 0:
            return self.start
        if self._chars is not None:
            return self._chars[index].start
        if self.text.isascii():
            return self.start + index
        return self.start + len(self.text[:index].encode("utf-8", "surrogateescape"))

    def chars(self, width: Callable[[str], int]) -> list[_Char]:
        if self._chars is None:
            if self.key_end is not None:
                self._chars = [_Char(self.start, self.key_end, self.text, 1)]
            else:
                chars, at = [], self.start
                ascii_ = self.text.isascii()
                for char in self.text:
                    size = 1 if ascii_ else len(char.encode("utf-8", "surrogateescape"))
                    chars.append(_Char(at, at + size, char, width(char)))
                    at += size
                self._chars = chars
        return self._chars

    def rest(self, index: int) -> _Run:
        """The run of the characters from ``index`` on."""
        rest = _Run(self.offset(index), self.text[index:], self.key_end)
        if self._chars is not None:
            rest._chars = self._chars[index:]
        return rest


class Stream:
    """One direction of a session read as a person reads it: every byte
    before ``settled`` is final, with ``edits`` applied.

    ``whole_writes``: each write ends every escape sequence it holds, as a
    key does (input); output's may run on across reads.
    """

    def __init__(self, redactor: Redactor, *, whole_writes: bool = False,
                 shadow: Shadow | None = None, typed: Typed | None = None) -> None:
        self._redactor = redactor
        self._patterns = list(zip(redactor.patterns, redactor.literal, strict=True))
        self._whole = whole_writes
        self._shadow = shadow
        self._typed = typed
        self._width: Callable[[str], int] = shadow.width if shadow is not None else _one
        self._scanner = redactor.tokens() if redactor.tokens is not None else None
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.fed = 0
        self.settled = 0
        #: The replacements decided, in order of their starts, not yet forgotten.
        self.edits: list[Edit] = []
        self._runs: list[_Run] = []
        # The stream offset the scanner's offsets count from (it starts
        # afresh when closed), and up to where it has placed every byte.
        self._scanned_from = 0
        self._placed = 0
        # Bytes from ``_kept_at`` to ``fed``: what spans are decoded from.
        self._kept = bytearray()
        self._kept_at = 0
        # The shadow: bytes up to ``_drawn`` are drawn; the text spans of
        # the bytes not yet drawn, each with what it is drawn as (b"": itself).
        self._drawn = 0
        self._draw_as: list[tuple[int, int, bytes]] = []
        self._tags: dict[str, _Char] = {}
        #: ``str.translate``'s table from the tags to the characters they stand for.
        self._real_of: dict[int, str] = {}
        self._next_code = 0
        self._freed: list[str] = []
        # Where the open string's text was last matched up to.
        self._string_checked = -1
        # How many rows a secret may run over on the shadow (a literal's
        # length; a regex's may be any: a thousand characters).
        longest = max([len(p.pattern) if lit else 1000 for p, lit in self._patterns] or [0])
        self._longest = longest
        self._reach = 1 if shadow is None else -(-longest // shadow.cols)

    def resize(self, cols: int, rows: int) -> None:
        if self._shadow is not None:
            self._shadow.resize(cols, rows)
            self._reach = -(-self._longest // cols)

    def forget(self, offset: int) -> None:
        """Drop the edits wholly before ``offset`` (already written)."""
        if self.edits and self.edits[0].end <= offset:
            self.edits = [e for e in self.edits if e.end > offset]

    def feed(self, data: bytes) -> None:
        self._read(data, final=False)

    def close(self) -> None:
        """The end of the stream: nothing more can complete a match."""
        self._read(b"", final=True)

    # -- reading ------------------------------------------------------------------------

    def _read(self, data: bytes, *, final: bool) -> None:
        base = self.fed
        self.fed += len(data)
        if not self._patterns:
            self.settled = self._placed = self._drawn = self.fed
            return
        self._kept += data
        if self._scanner is None:
            self._plain(data, base, final)
            hold_at = self.fed
        else:
            hold_at = self._scan(data, final)
        if self._shadow is not None:
            self._draw()
        text = "".join(run.text for run in self._runs)
        hold = self._stream_rule(text, final)
        if self._shadow is not None and self._runs:
            hold = min(hold, self._screen_rule(final))
        if not final and len(text) - hold > self._redactor.window:
            hold = len(text) - self._redactor.window
        settled = self._drop(hold)
        self.settled = max(self.settled, min(settled, hold_at))
        cut = min(self.settled, self._drawn, self._placed) - self._kept_at
        if cut > 0:
            del self._kept[:cut]
            self._kept_at += cut

    def _drop(self, hold: int) -> int:
        """Settle the pending characters before ``hold``; return the offset
        of the first one still pending (all placed bytes if none)."""
        runs = self._runs
        while runs and hold >= len(runs[0].text):
            hold -= len(runs[0].text)
            runs.pop(0)
        if not runs:
            return self._placed
        if hold:
            runs[0] = runs[0].rest(hold)
        return runs[0].start

    def _plain(self, data: bytes, base: int, final: bool) -> None:
        """Without a grammar every character draws."""
        held = len(self._decoder.getstate()[0])
        text = self._decoder.decode(data, final)
        if text:
            self._runs.append(_Run(base - held, text))
        self._placed = self._drawn = self.fed - len(self._decoder.getstate()[0])

    def _scan(self, data: bytes, final: bool) -> int:
        """Read the tokens the write completes; return the offset before
        which no held string rule holds the stream."""
        scanner = self._scanner
        assert scanner is not None
        spans = list(scanner.feed(data))
        closed = final or self._whole
        if closed:
            spans += scanner.close()
        base = self._scanned_from
        first = len(self._runs)
        drawn = 0
        for span in spans:
            start, end = span.start + base, span.end + base
            if span.kind == "text":
                text = self._bytes(start, end).decode("utf-8", "surrogateescape")
                self._runs.append(_Run(start, text))
                drawn += len(text)
                if self._shadow is not None:
                    self._draw_as.append((start, end, b""))
            elif span.kind in _STRINGS:
                self._string(start, end)
            elif self._typed is not None and (char := self._typed(span)) is not None:
                self._runs.append(_Run(start, char, key_end=end))
            elif self._typed is not None and span.kind == "control" \
                    and self._bytes(start, end) in (b"\x7f", b"\x08"):
                self._rub_out()
            self._placed = max(self._placed, end)
        hold_at = self.fed
        if closed:
            self._placed = self._scanned_from = self.fed
            self._string_checked = -1
        elif (open_at := scanner.open_string) is not None:
            # Inside a string nothing draws: its bytes settle as they come,
            # but for a match that may begin in them.
            hold_at = self._open_string(open_at + base)
            self._placed = self.fed
        if self._shadow is not None and drawn <= TAGGED_READ:
            self._tag_runs(self._runs[first:])
        return hold_at

    def _rub_out(self) -> None:
        """A key that erases the character typed before it (Backspace): a
        secret typed with a typo put right reads as the secret. The erased
        character's bytes stay as they are; it only leaves the text read."""
        runs = self._runs
        if not runs:
            return
        last = runs[-1]
        if len(last.text) == 1:
            runs.pop()
        else:
            kept = _Run(last.start, last.text[:-1], last.key_end)
            if last._chars is not None:
                kept._chars = last._chars[:-1]
            runs[-1] = kept

    def _bytes(self, start: int, end: int) -> bytes:
        return bytes(self._kept[start - self._kept_at:end - self._kept_at])

    def _tag_runs(self, runs: list[_Run]) -> None:
        """Draw these runs on the shadow with each character as its tag(s)."""
        tagged: dict[int, bytes] = {}
        for run in runs:
            if run.key_end is not None:
                continue
            out = []
            for char in run.chars(self._width):
                codes = [code for code in (self._tag() for _ in range(char.width)) if code]
                if len(codes) < char.width:
                    self._freed += codes
                    out.append(char.char)  # no tags left: drawn as it is
                    continue
                char.codes = tuple(codes)
                for k, code in enumerate(codes):
                    self._tags[code] = char
                    self._real_of[ord(code)] = char.char if k == 0 else ""
                out.append("".join(codes) if codes else char.char)
            tagged[run.start] = "".join(out).encode("utf-8", "surrogateescape")
        self._draw_as = [(s, e, tagged.get(s, d)) for s, e, d in self._draw_as]

    def _tag(self) -> str | None:
        if not self._freed and self._next_code >= len(_CODES):
            self._collect()
        if self._freed:
            return self._freed.pop()
        if self._next_code < len(_CODES):
            self._next_code += 1
            return chr(_CODES[self._next_code - 1])
        return None

    def _collect(self) -> None:
        """Give back the tags no longer on the shadow's screen (nor pending)."""
        assert self._shadow is not None
        keep = self._shadow.shown()
        keep.update(code for char in self._tagged_chars() for code in char.codes)
        for code in [c for c in self._tags if c not in keep]:
            del self._tags[code]
            del self._real_of[ord(code)]
            self._freed.append(code)

    def _tagged_chars(self) -> list[_Char]:
        return [char for run in self._runs if run._chars is not None
                for char in run._chars if char.codes]

    def _draw(self) -> None:
        """Give the shadow every byte the scanner has placed, text tagged
        where a span was tagged."""
        assert self._shadow is not None
        upto = self._placed
        if upto <= self._drawn:
            return
        out: list[bytes] = []
        at = self._drawn
        rest = []
        for start, end, tagged in self._draw_as:
            if start >= upto:
                rest.append((start, end, tagged))
                continue
            out.append(self._bytes(at, start))
            out.append(tagged or self._bytes(start, end))
            at = end
        out.append(self._bytes(at, upto))
        self._draw_as = rest
        self._drawn = upto
        self._shadow.feed(b"".join(out))
        limit = 4 * self._shadow.cells() + 4096
        if len(self._tags) > min(limit, len(_CODES) // 2):
            self._collect()

    # -- the rules ----------------------------------------------------------------------------

    def _string(self, start: int, end: int) -> None:
        """A string, whole: each match in its text becomes ``[REDACTED]``
        (of one that was open, what is kept: the rest was settled while no
        match could begin in it)."""
        start = max(start, self._kept_at)
        text = self._bytes(start, end).decode("utf-8", "surrogateescape")
        spans = [m.span() for p, _ in self._patterns for m in p.finditer(text)
                 if m.end() > m.start()]
        self._replace_in(start, text, spans)

    def _open_string(self, open_at: int) -> int:
        """The string still open since ``open_at``: mask the matches in
        what came (looked at once, with a window back for one cut by a
        read); return where a match that may go on begins (else ``fed``)."""
        window = 4 * self._redactor.window
        begin = max(open_at, self._string_checked - window, self._kept_at)
        text = self._bytes(begin, self.fed).decode("utf-8", "surrogateescape")
        hold = self.fed
        spans = []
        for pattern, _ in self._patterns:
            for match in pattern.finditer(text, partial=True):
                if match.end() == match.start():
                    continue
                if match.partial or match.end() == len(text):
                    hold = min(hold, begin + len(text[:match.start()].encode(
                        "utf-8", "surrogateescape")))
                else:
                    spans.append(match.span())
        self._replace_in(begin, text, spans)
        self._string_checked = self.fed
        return hold

    def _replace_in(self, start: int, text: str, spans: list[tuple[int, int]]) -> None:
        for lo, hi in spans:
            first = start + len(text[:lo].encode("utf-8", "surrogateescape"))
            last = start + len(text[:hi].encode("utf-8", "surrogateescape"))
            if any(e.start < last and e.end > first for e in self.edits):
                continue  # (the open string's part of it, already masked)
            self._edit(Edit(first, last, REDACTED.encode()))

    def _edit(self, edit: Edit) -> None:
        edits = self.edits
        if not edits or edits[-1].start <= edit.start:
            edits.append(edit)
        else:
            index = len(edits)
            while index and edits[index - 1].start > edit.start:
                index -= 1
            edits.insert(index, edit)
        self._redactor.count += edit.first

    def _chars(self, start: int, end: int) -> list[_Char]:
        """Pending characters ``start:end`` (indices in the pending text)."""
        out: list[_Char] = []
        at = 0
        for run in self._runs:
            size = len(run.text)
            if at + size > start and at < end:
                chars = run.chars(self._width)
                out += chars[max(start - at, 0):end - at]
            at += size
            if at >= end:
                break
        return out

    def _stream_rule(self, text: str, final: bool) -> int:
        """Mask the matches in the pending characters, in the order they
        came; return the index of the first one still held."""
        hold = len(text)
        for pattern, literal in self._patterns:
            for match in pattern.finditer(text, partial=not final):
                start, end = match.span()
                if end == start:
                    continue
                if not final and (match.partial or (end == len(text) and not literal)):
                    hold = min(hold, start)
                    continue
                self._mask([(c, c.char) for c in self._chars(start, end)])
        if self._typed is not None and not final:
            hold = min(hold, self._typo_hold(text))
        return hold

    def _typo_hold(self, text: str) -> int:
        """Where a secret typed with up to :data:`TYPOS` keys too many may
        begin: those keys may yet be taken back (Backspace)."""
        hold = len(text)
        for cut in range(1, min(TYPOS, len(text)) + 1):
            for pattern, _ in self._patterns:
                for match in pattern.finditer(text[:-cut], partial=True):
                    if match.partial and match.end() > match.start():
                        hold = min(hold, match.start())
        return hold

    def _screen_rule(self, final: bool) -> int:
        """Mask the matches on the shadow's screen; return the index of the
        first pending character that begins a secret typed at the cursor."""
        assert self._shadow is not None
        tagged: dict[int, int] = {}
        at = 0
        for run in self._runs:
            if run._chars is not None:
                for k, char in enumerate(run._chars):
                    if char.codes:
                        tagged[id(char)] = at + k
            at += len(run.text)
        pending = at
        if not tagged:
            return pending
        codes = {code for char in self._tagged_chars() for code in char.codes}
        for group in self._shadow.rows_with(codes, self._reach):
            text = "".join(group).translate(self._real_of)
            if not any(p.search(text) for p, _ in self._patterns):
                continue
            cells = self._real(group)
            text = "".join(char for _, char in cells)
            for pattern, _ in self._patterns:
                for match in pattern.finditer(text):
                    if match.end() > match.start():
                        self._mask(_cells_of(cells, match.start(), match.end()))
        hold = pending
        if final:
            return hold
        before = self._shadow.before_cursor(self._reach)
        joined = "".join(before)
        if codes.isdisjoint(joined):
            return hold
        text = joined.translate(self._real_of)
        if not any(m.partial and m.end() > m.start() for p, _ in self._patterns
                   for m in p.finditer(text, partial=True)):
            return hold
        cells = self._real(before)
        text = "".join(char for _, char in cells)
        for pattern, _ in self._patterns:
            for match in pattern.finditer(text, partial=True):
                if match.partial and match.end() > match.start():
                    for drawn, _ in _cells_of(cells, match.start(), match.end()):
                        if drawn is not None and id(drawn) in tagged:
                            hold = min(hold, tagged[id(drawn)])
        return hold

    def _real(self, cells: list[str]) -> list[tuple[_Char | None, str]]:
        """Each cell of rows of the shadow: what drew it (None: not known),
        and its text (a wide character once, in its first cell)."""
        tags = self._tags
        out: list[tuple[_Char | None, str]] = []
        for cell in cells:
            drawn = tags.get(cell[:1])
            if drawn is None:
                out.append((None, cell))
            elif cell[:1] == drawn.codes[0]:
                out.append((drawn, drawn.char + cell[1:]))
        return out

    def _mask(self, cells: list[tuple[_Char | None, str]]) -> None:
        """Mask the characters of one match, each with the mask's cells at
        its place (a character already written, or not known, keeps its
        place in the mask)."""
        widths = [c.width if c is not None else 1 for c, _ in cells]
        shown = mask(sum(widths))
        at = 0
        first = True
        for (drawn, _), width in zip(cells, widths, strict=True):
            if drawn is not None and not drawn.masked and drawn.end > self.settled:
                drawn.masked = True
                self._edit(Edit(drawn.start, drawn.end, shown[at:at + width].encode(),
                                first=first))
                first = False
            at += width


def _one(char: str) -> int:
    return 1


def _cells_of(cells: list[tuple[_Char | None, str]], start: int,
              end: int) -> list[tuple[_Char | None, str]]:
    """The cells that hold characters ``start:end`` of their joined text (a
    cell may hold several: a character and its marks)."""
    out = []
    at = 0
    for cell in cells:
        size = len(cell[1])
        if at < end and at + size > start:
            out.append(cell)
        at += size
    return out


class BytesRedaction:
    """One output stream as bytes in and bytes out, for a caller that
    keeps no events (the recorder keeps events instead, and cuts them)."""

    def __init__(self, redactor: Redactor) -> None:
        self._stream = Stream(redactor)
        self._held = b""
        self._held_at = 0

    def feed(self, chunk: bytes) -> bytes:
        """The next chunk; what may be written now."""
        self._stream.feed(chunk)
        return self._settle(chunk)

    def flush(self) -> bytes:
        """Everything still held back (at the end)."""
        self._stream.close()
        return self._settle(b"")

    def _settle(self, chunk: bytes) -> bytes:
        stream = self._stream
        self._held += chunk
        cut = stream.settled - self._held_at
        out = apply_edits(self._held[:cut], self._held_at, stream.edits)
        self._held, self._held_at = self._held[cut:], stream.settled
        stream.forget(stream.settled)
        return out
