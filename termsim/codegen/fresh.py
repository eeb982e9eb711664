"""What a row says, and whether a step drew it: the text a generated wait
may await after an input.

A wait after an input must be one the screen before the input does not
already satisfy, or it proves nothing: ink and textual apps redraw their
whole frame on every change (and every tick of a clock), so a status line
that was on the screen before the key is drawn again after the program read
it, and a wait on it passes whether or not the program answered. So every
text a step left on the screen is one of:

* **stale**: the screen before the input shows it in that region already
  (the row a selection *left* still shows the item's name; a status line
  whose clock, left free, ticked): never awaited;
* **ticked**: the screen before showed it in this row with only its digits
  or a spinner changed (a count, a token counter, an elapsed time): an
  answer where nothing else is (a key that counts), but the poorer one
  beside anything new;
* **moved**: the screen before showed it in another row (a footer pushed
  down by the reply): the program redrew it, but it is no answer; awaited
  only where the step drew nothing new and took nothing away;
* **new**: the text the program drew in answer (the reply, the new row of a
  selection, a message that appeared): what the wait is on.

What a row says is found on the whole row, and what varies in it
(``masks.py``) is found before the row is cut to the part awaited: a cut
never leaves the tail of a temporary path or of a clock literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..emulator.snapshot.region import Region
from ..emulator.snapshot.snapshot import Snapshot
from .masks import fixed_text, pattern_of, variable_spans

#: Characters of a row, at most, awaited as its text (the end of a long row).
ROW_TEXT = 60
#: What frames a row rather than says something: box drawing, rules, blanks.
FRAME = "│┃║|─━═┌┐└┘├┤┬┴┼╭╮╯╰ \t"
#: Blanks that separate the fields of a status line.
_FIELDS = re.compile(r" {3,}")
#: Characters a spinner turns through (Braille dots, stars, quarter
#: circles), dropped when two texts are compared for their shape.
_SPINNER = re.compile(r"[\u2800-\u28ff·✢✳✶✻✽*◐◓◑◒◴◷◶◵|/\\-]")

Novelty = Literal["stale", "moved", "ticked", "new"]


def words(text: str) -> int:
    return sum(c.isalnum() for c in text)


def _strip(line: str, start: int, end: int) -> tuple[int, int]:
    """``start:end`` of ``line`` without the frame at either end."""
    while start < end and line[start] in FRAME:
        start += 1
    while end > start and line[end - 1] in FRAME:
        end -= 1
    return start, end


def said_at(line: str) -> tuple[int, int]:
    """Where in ``line`` what it says is (``start:end``): the row without
    its frame, or, for a row longer than :data:`ROW_TEXT`, its last field
    that says something (a status line's fields are far apart), or its end
    cut at a word."""
    start, end = _strip(line, 0, len(line))
    if end - start <= ROW_TEXT:
        return start, end
    pieces, at = [], start
    for m in _FIELDS.finditer(line, start, end):
        pieces.append((at, m.start()))
        at = m.end()
    pieces.append((at, end))
    fields = [(a, b) for a, b in pieces if words(line[a:b]) >= 3 and b - a <= ROW_TEXT]
    if fields:
        return _strip(line, *fields[-1])
    cut = end - ROW_TEXT
    blank = line.find(" ", cut, end)
    return (blank + 1 if blank >= 0 else cut), end


def said(line: str) -> str:
    """What a row says (:func:`said_at`)."""
    start, end = said_at(line)
    return line[start:end]


@dataclass(frozen=True)
class Awaited:
    """A text to wait for: ``Text`` (``value`` the text) or ``Regex``
    (``value`` a pattern with what varies left free)."""

    kind: Literal["Text", "Regex"]
    value: str

    def says(self, text: str) -> bool:
        """Whether ``text`` (what a row says) is this text, whole."""
        if self.kind == "Text":
            return text == self.value
        return re.fullmatch(self.value, text) is not None

    def shown(self, region: Region, snap: Snapshot) -> bool:
        """Whether ``snap`` shows it in ``region``."""
        text = region.text(snap)
        if self.kind == "Text":
            return self.value in text
        return re.search(self.value, text, re.M) is not None


def awaited(line: str, other: str | None) -> Awaited | None:
    """What a row says, to wait for, with what varies in it (found on the
    whole row, and in ``other``, the same row in another recording) left
    free; None when it says too little (a border, a lone character)."""
    spans = variable_spans(line, other)
    start, end = said_at(line)
    moved = True
    while moved:  # a cut inside a varying part goes past it
        moved = False
        for a, b, _ in spans:
            if a < start < b:
                start, moved = b, True
            if a < end < b:
                end, moved = a, True
        start, end = _strip(line, start, end)
    text = line[start:end] if start < end else ""
    if words(text) < 2:
        return None
    inside = [(a - start, b - start, r) for a, b, r in spans if start <= a and b <= end]
    if not inside:
        return Awaited("Text", text)
    if len(fixed_text(text, inside)) < 3:
        return None  # nothing fixed enough to wait for
    return Awaited("Regex", pattern_of(text, inside))


def shape(text: str) -> str:
    """``text`` with its digits all ``0`` and its spinner characters gone:
    two texts of one shape differ only in a counter, a clock or a spinner."""
    return _SPINNER.sub("", re.sub(r"\d", "0", text)).strip()


def novelty(text: Awaited, region: Region, place: tuple[int, int, int], before: Snapshot,
            final: Snapshot) -> Novelty:
    """Whether the step drew ``text``, shown at ``place`` (row, columns
    ``left:right``) in ``region`` of ``final``: see the module's docstring."""
    if (before.rows, before.cols) != (final.rows, final.cols):
        return "new"  # resized: nothing stands where it stood
    if text.shown(region, before):
        return "stale"
    row, left, right = place
    whole = left == 0 and right == final.cols
    for r in range(before.rows):
        if text.says(said(before.lines[r])) or (
                not whole and text.says(said(before.span(r, left, right)))):
            return "moved"
    now = said(final.span(row, left, right))
    was = said(before.span(row, left, right))
    if was and shape(now) == shape(was):
        return "ticked"
    return "new"
