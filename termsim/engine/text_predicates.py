"""Waiting for text: whether a region shows a string or matches a pattern.

Text is what most waits are for, and what most failures need explained:
the closest string on the screen, the same text outside the region looked
in. That explaining is most of this module and shared by :class:`Text` and
:class:`Regex`; it lives apart from the predicate protocol
(:mod:`termsim.engine.predicates`) so each can be read without the other.
"""

from __future__ import annotations

import re
from weakref import ref

from ..emulator.region import Region
from ..emulator.snapshot import Snapshot
from .nearmiss import closest, worth_showing
from .predicates import Context, Predicate


def to_cursor(region: Region, snap: Snapshot) -> str | None:
    """The region's text with the cursor's row read up to the cursor, the
    blanks before it kept (``">>> "`` with the cursor after the blank), or
    None when that is the same text (the cursor is not past its row's end).

    Rows are read without their trailing blanks, which are invisible; the
    blanks a program printed before the cursor are not, as the cursor shows
    them, and a pattern such as ``^>>> $`` means them.
    """
    if region.command is not None:
        return None  # a command's output is no place on the screen
    top, bottom, left, right = region.bounds(snap)
    row, col = snap.cursor.row, min(snap.cursor.col, right)
    if not top <= row < bottom or col <= left:
        return None
    upto = snap.span(row, left, col)
    if not upto.endswith(" ") or snap.span(row, col, right).strip():
        return None  # no blank before the cursor, or text after it: the same
    lines = region.lines(snap)
    if upto.rstrip() != lines[row - top]:
        return None
    lines[row - top] = upto
    return "\n".join(lines)


def _padded(region: Region, snap: Snapshot) -> str:
    """The region's text with every row's trailing blanks kept."""
    if region.command is not None:
        return region.text(snap)
    top, bottom, left, right = region.bounds(snap)
    return "\n".join(snap.span(r, left, right) for r in range(top, bottom))


#: A pattern that wants a blank at the end of a row (or of the pattern).
_BLANK_AT_END = re.compile(r"(?: |\\s|\\ |\[ \])[*+?]?(?:\$|\\Z|\\n|$)")


def _shows(region: Region, snap: Snapshot) -> str:
    """``"the bottom row shows 'text'"``."""
    return f"{region} shows {region.text(snap).rstrip()!r}"


#: The whole screen: a predicate given it (or an equal region) looks at
#: ``Snapshot.text``, made once per screen, not at a join of its own.
_SCREEN = Region.screen()


class _InRegion(Predicate):
    """Text or a pattern searched for in a region: shared near-miss reports.

    The answer on one screen is kept (``_seen``): the engine asks on each
    new screen both what a wait's parts show (for its near misses) and
    whether it holds, the same question of the same snapshot."""

    region: Region
    _seen: tuple[ref[Snapshot], bool] | None = None

    def _text_of(self, snap: Snapshot) -> str:
        region = self.region
        return snap.text if region is _SCREEN else region.text(snap)

    def __call__(self, snap: Snapshot) -> bool:
        seen = self._seen
        if seen is not None and seen[0]() is snap:
            return seen[1]
        found = self._holds(snap)
        self._seen = (ref(snap), found)
        return found

    def _holds(self, snap: Snapshot) -> bool:
        raise NotImplementedError

    def explain(self, snap: Snapshot) -> str:
        if self.region.history:
            # The transcript is the wait's, not the snapshot's.
            return "it is not in the text drawn since the wait's mark"
        parts = []
        whole = self.region == Region.screen()
        if not whole:
            parts.append(_shows(self.region, snap))
        miss = self._near_miss(snap)
        if miss:
            parts.append(miss)
        if not whole:
            elsewhere = self._count(Region.screen().text(snap)) - self._count(
                self.region.text(snap))
            if elsewhere > 0:
                parts.append(f"it is on the screen {elsewhere} time{'s' * (elsewhere > 1)} "
                             f"outside {self.region}")
        return "; ".join(parts) or "it is nowhere on the screen"

    def _near_miss(self, snap: Snapshot) -> str:
        return ""

    def _count(self, text: str) -> int:
        raise NotImplementedError

    def misfit(self, cols: int, rows: int) -> str | None:
        return self.region.misfit(cols, rows)


class Text(_InRegion):
    """The region contains ``text``. The region's rows are joined with
    newlines (trailing blanks removed), so text with ``\\n`` spans rows.
    Blanks at the end of a line of ``text`` match blanks on the screen or
    the end of its row, as they look the same: ``Text("$ ")`` finds a
    prompt at the end of a row."""

    def __init__(self, text: str, region: Region | None = None) -> None:
        if not text:
            raise ValueError("Text() needs a non-empty string")
        self.text = text
        self.region = _region(region)
        lines = text.split("\n")
        self._pattern: re.Pattern[str] | None = None
        if any(line != line.rstrip(" ") for line in lines):
            self._pattern = re.compile("\n".join(
                re.escape(line.rstrip(" ")) + (
                    f"(?: {{{len(line) - len(line.rstrip(' '))}}}|$)"
                    if line != line.rstrip(" ") else "")
                for line in lines), re.MULTILINE)

    def _holds(self, snap: Snapshot) -> bool:
        return self._find(self._text_of(snap))

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if self.region.history:
            return self._find(ctx.transcript())
        return self(snap)

    def _find(self, text: str) -> bool:
        if self._pattern is None:
            return self.text in text
        return self._pattern.search(text) is not None

    def describe(self) -> str:
        return f"text {self.text!r} in {self.region}"

    def _count(self, text: str) -> int:
        if self._pattern is None:
            return text.count(self.text)
        return sum(1 for _ in self._pattern.finditer(text))

    def _near_miss(self, snap: Snapshot) -> str:
        if "\n" in self.text:
            return ""
        top = self.region.bounds(snap)[0] if self.region.command is None else 0
        found = closest(self.text, self.region.lines(snap))
        if found is None or not worth_showing(found[0], self.text):
            return ""
        distance, row, text = found
        return (f"closest: {text!r} on row {top + row} "
                f"({distance} edit{'s' * (distance > 1)} away)")


class Regex(_InRegion):
    """The region's text matches ``pattern`` (``re.search``). Rows are joined
    with newlines, trailing blanks removed; ``^`` and ``$`` match at each row
    (``re.MULTILINE``, unless a compiled pattern says otherwise). The
    cursor's row may also be read up to the cursor, blanks included, so
    ``^>>> $`` matches a ``>>> `` prompt with the cursor after its blank (and
    ``^>>>$`` still does)."""

    def __init__(self, pattern: str | re.Pattern[str], region: Region | None = None) -> None:
        self.pattern = (
            pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, re.MULTILINE)
        )
        self.region = _region(region)

    def _holds(self, snap: Snapshot) -> bool:
        if self.pattern.search(self._text_of(snap)) is not None:
            return True
        extended = to_cursor(self.region, snap)
        return extended is not None and self.pattern.search(extended) is not None

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if self.region.history:
            return self.pattern.search(ctx.transcript()) is not None
        return self(snap)

    def describe(self) -> str:
        return f"regex /{self.pattern.pattern}/ in {self.region}"

    def _near_miss(self, snap: Snapshot) -> str:
        if self.pattern.search(_padded(self.region, snap)) is None \
                and _BLANK_AT_END.search(self.pattern.pattern) is None:
            return ""
        cur = snap.cursor
        return ("it may match only if blanks at the ends of rows count: rows are "
                "read without them, but for the cursor's row, read up to the cursor "
                f"(row {cur.row}, column {cur.col})")

    def _count(self, text: str) -> int:
        return sum(1 for _ in self.pattern.finditer(text))


def _region(region: Region | None) -> Region:
    """The region a predicate looks at: the shared whole screen for none (or
    one equal to it), so that it reads the snapshot's own text."""
    return _SCREEN if region is None or region == _SCREEN else region
