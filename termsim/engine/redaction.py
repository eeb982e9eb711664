"""Secrets in what a program draws: found on the screen, masked in the bytes.

A program rarely prints a secret as one string. A syntax-highlighting
prompt puts an SGR between any two characters; prompt_toolkit draws each
key as it is typed, one write per key, and between two of them writes a
blank on the bottom row and moves back; a TUI draws a row in pieces, out of
order. So the recorder's output is masked by two rules, and a byte is
written only once neither can still use it:

* **the stream**: the characters that draw, in the order they come,
  escape sequences and controls passed over (``recording.redact.Stream``'s
  rule): this catches a secret drawn and erased, or scrolled away, within
  one read;
* **the screen**: the characters as a person reads them, row by row. A
  second terminal (the *shadow*: termsim's own, so it draws exactly as the
  session's does) is fed the same bytes, except that each character the
  stream has not settled is drawn as a private-use code point of its own
  (one column wide, like the character): whatever cell it lands in, and
  wherever a scroll, an insert or a wrap moves it, the cell says which
  bytes drew it. A match in a row masks those bytes; a secret's beginning
  just before the cursor (being typed) holds them back until it is
  complete or broken.

Each character of a match is replaced by one of the same width, so the
replayed screen keeps its layout: a renderer moves the cursor by counting
cells (``ESC[17D``), and a shorter mask would leave every later cell in the
wrong column. The mask reads ``[REDACTED]`` where the secret is ten cells
or longer, ``*`` in every other cell.

A character drawn where no rule can see it coming (a secret drawn right to
left, or a character at a time at places the cursor jumps to) is not
caught: that would mean holding every byte.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from wcwidth import wcwidth

from ..emulator.grammar import Scanner
from ..emulator.terminal import Terminal
from ..recording.redact import REDACTED, Edit, Redactor

#: Private-use code points that tag a character on the shadow screen:
#: planes 15 and 16, which no program's text uses in practice.
_CODES = (*range(0xF0000, 0xFFFFE), *range(0x100000, 0x10FFFE))


def mask(width: int) -> str:
    """The mask of a secret ``width`` cells wide."""
    return (REDACTED + "*" * width)[:width] if width >= len(REDACTED) else "*" * width


@dataclass(slots=True)
class _Char:
    """A character that draws: its bytes in the stream, and its tag."""

    start: int
    end: int
    char: str
    code: str | None
    masked: bool = False


class DrawnSecrets:
    """The output stream of a recorded session, with its secrets masked
    (the recorder's ``output``: see ``recording.redact.Masking``).
    ``shadow``: a terminal like the session's (its size, profile and
    emulation), which this draws into."""

    def __init__(self, redactor: Redactor, shadow: Terminal) -> None:
        self._patterns = list(zip(redactor.patterns, redactor.literal, strict=True))
        self._redactor = redactor
        self._scanner = Scanner()
        self._shadow = shadow
        #: Bytes fed, and up to where they are final (see ``Masking``).
        self.fed = 0
        self.settled = 0
        self.edits: list[Edit] = []
        self._pending: list[_Char] = []
        self._tags: dict[str, _Char] = {}
        self._next_code = 0
        self._freed: list[str] = []
        self._unfed = b""  # bytes from ``_shadow_at`` on, not yet given to the shadow
        self._shadow_at = 0

    def resize(self, cols: int, rows: int) -> None:
        self._shadow.resize(cols, rows)

    def forget(self, offset: int) -> None:
        self.edits = [e for e in self.edits if e.end > offset]

    def feed(self, data: bytes) -> None:
        self._read(data, final=False)

    def close(self) -> None:
        self._read(b"", final=True)

    # -- reading -------------------------------------------------------------------

    def _read(self, data: bytes, *, final: bool) -> None:
        self.fed += len(data)
        if not self._patterns:
            self.settled = self.fed
            return
        self._unfed += data
        spans = list(self._scanner.feed(data))
        if final:
            spans += self._scanner.close()
        placed = self.fed if final else max((s.end for s in spans), default=self._shadow_at)
        self._draw([(s.start, s.end) for s in spans if s.kind == "text"], placed)
        hold = min(self._stream_hold(final), self._screen_hold(final))
        if not final and len(self._pending) - hold > self._redactor.window:
            hold = len(self._pending) - self._redactor.window
        settled = self._pending[hold].start if hold < len(self._pending) else self._shadow_at
        self.settled = max(self.settled, settled)
        del self._pending[:hold]
        if len(self._tags) > 4 * self._shadow.cols * self._shadow.rows + 4096:
            self._collect()

    def _draw(self, texts: list[tuple[int, int]], upto: int) -> None:
        """Give the shadow the bytes up to ``upto`` (all the scanner has
        placed), each character that draws tagged."""
        upto = max(upto, self._shadow_at)
        base, unfed = self._shadow_at, self._unfed
        out: list[bytes] = []
        at = base
        for start, end in texts:
            out.append(unfed[at - base:start - base])
            out.append(self._tagged(unfed[start - base:end - base], start))
            at = end
        out.append(unfed[at - base:upto - base])
        self._unfed, self._shadow_at = unfed[upto - base:], upto
        self._shadow.feed(b"".join(out))

    def _tag(self) -> str | None:
        if self._freed:
            return self._freed.pop()
        if self._next_code < len(_CODES):
            self._next_code += 1
            return chr(_CODES[self._next_code - 1])
        return None  # every tag is on the screen: this character goes untagged

    def _tagged(self, raw: bytes, start: int) -> bytes:
        """A run of text as the shadow draws it: each one-column character
        as its tag, the others as they are (a wide character's tag would be
        narrower; a mark joins the tag before it)."""
        out = []
        at = start
        for char in raw.decode("utf-8", "surrogateescape"):
            size = len(char.encode("utf-8", "surrogateescape"))
            code = self._tag() if wcwidth(char) == 1 else None
            tracked = _Char(at, at + size, char, code)
            self._pending.append(tracked)
            if code is not None:
                self._tags[code] = tracked
            out.append(code or char)
            at += size
        return "".join(out).encode("utf-8", "surrogateescape")

    def _real(self, text: str) -> list[tuple[_Char | None, str]]:
        """Each character of a row of the shadow: what drew it (None: not
        known), and the character itself."""
        tags = self._tags
        return [(tags[c], tags[c].char) if c in tags else (None, c) for c in text]

    # -- the two rules ---------------------------------------------------------------

    def _stream_hold(self, final: bool) -> int:
        """Mask the matches in the pending characters, in the order they
        came; return the index of the first one still held."""
        pending = self._pending
        text = "".join(c.char for c in pending)
        hold = len(text)
        for pattern, literal in self._patterns:
            for match in pattern.finditer(text, partial=not final):
                start, end = match.span()
                if end == start:
                    continue
                if not final and (match.partial or (end == len(text) and not literal)):
                    hold = min(hold, start)
                    continue
                self._mask([(c, c.char) for c in pending[start:end]])
        return hold

    def _screen_hold(self, final: bool) -> int:
        """Mask the matches on the shadow's screen; return the index of the
        first pending character that begins a secret being typed at the
        cursor."""
        pending = self._pending
        index = {id(c): i for i, c in enumerate(pending) if c.code is not None}
        if not index:
            return len(pending)
        codes = {c.code for c in pending if c.code is not None}
        screen = self._shadow.screen
        for line in screen.lines:
            if codes.isdisjoint(line):
                continue
            cells = self._real(line)
            text = "".join(char for _, char in cells)
            for pattern, _ in self._patterns:
                for match in pattern.finditer(text):
                    if match.end() > match.start():
                        self._mask(cells[match.start():match.end()])
        hold = len(pending)
        if final:
            return hold
        before = screen.span(screen.cursor.row, 0, min(screen.cursor.col, screen.cols))
        if codes.isdisjoint(before):
            return hold
        cells = self._real(before)
        text = "".join(char for _, char in cells)
        for pattern, _ in self._patterns:
            for match in pattern.finditer(text, partial=True):
                if match.partial and match.end() > match.start():
                    for drawn, _ in cells[match.start():]:
                        if drawn is not None and id(drawn) in index:
                            hold = min(hold, index[id(drawn)])
        return hold

    def _mask(self, cells: list[tuple[_Char | None, str]]) -> None:
        """Mask the characters of one match, each with the mask's cells at
        its place (a character already written, or not known, keeps its
        place in the mask)."""
        widths = [max(wcwidth(char), 0) for _, char in cells]
        shown = mask(sum(widths))
        at = 0
        masked = False
        for (drawn, _), width in zip(cells, widths, strict=True):
            if drawn is not None and not drawn.masked and drawn.end > self.settled:
                drawn.masked = masked = True
                bisect.insort(self.edits, Edit(drawn.start, drawn.end,
                                               shown[at:at + width].encode()))
            at += width
        if masked:
            self._redactor.count += 1

    def _collect(self) -> None:
        """Give back the tags no longer on the shadow's screen."""
        shown = set("".join(self._shadow.screen.lines))
        keep = {c.code for c in self._pending if c.code is not None} | shown
        for code in [c for c in self._tags if c not in keep]:
            del self._tags[code]
            self._freed.append(code)
