"""Waiting for text: whether a region shows a string or matches a pattern.

Text is what most waits are for, and what most failures need explained:
the closest string on the screen, the same text outside the region looked
in. That explaining is most of this module and shared by :class:`Text` and
:class:`Regex`; it lives apart from the predicate protocol
(:mod:`termsim.engine.predicates`) so each can be read without the other.

Both give back what they found: the screen ``wait_for`` returns carries a
:class:`~termsim.emulator.snapshot.matches.Match` (``screen.match``), the groups as
``re`` reads them and where they are on the screen, so a test never
searches the screen a second time for the number it waited for.

Both read U+00A0, the no-break space, as a space (:func:`as_spaces`): ink
apps (Claude Code, Gemini CLI) draw ``❯`` and a no-break space as their
prompt, which looks like ``❯ `` and should match it. The error of a failed
wait still shows the screen's own characters, ``'❯\xa0'``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from weakref import ref

from ..emulator.snapshot.matches import Match, Place
from ..emulator.snapshot.region import Region
from ..emulator.snapshot.snapshot import Snapshot
from .nearmiss import closest, worth_showing
from .predicates import Context, Predicate

#: U+00A0, the no-break space, which the text predicates and ``CursorAfter``
#: read as a space.
NBSP = "\xa0"


def as_spaces(text: str) -> str:
    """``text`` with each U+00A0 (no-break space) read as a space: as long
    as ``text``, so an offset in one is the same character in the other."""
    return text.replace(NBSP, " ") if NBSP in text else text


def to_cursor(region: Region, snap: Snapshot) -> str | None:
    """The region's text with the cursor's row read up to the cursor, the
    blanks before it kept (``">>> "`` with the cursor after the blank), or
    None when that is the same text (the cursor is not past its row's end).

    Rows are read without their trailing blanks, which are invisible; the
    blanks a program printed before the cursor are not, as the cursor shows
    them, and a pattern such as ``^>>> $`` means them. A no-break space
    (U+00A0) before the cursor is such a blank: ink's ``❯\xa0`` prompt.
    """
    if region.command is not None:
        return None  # a command's output is no place on the screen
    top, bottom, left, right = region.bounds(snap)
    row, col = snap.cursor.row, min(snap.cursor.col, right)
    if not top <= row < bottom or col <= left:
        return None
    upto = snap.span(row, left, col)
    if not as_spaces(upto).endswith(" ") or snap.span(row, col, right).strip():
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

    def _search(self, text: str) -> tuple[re.Match[str], bool] | None:
        """The first match in ``text``, and whether it needed U+00A0 read as
        a space (the search is of ``as_spaces(text)`` then; same offsets)."""
        raise NotImplementedError

    def _searched(self, snap: Snapshot, ctx: Context) -> Iterator[str]:
        """The texts :meth:`check` looks in, in its order."""
        yield ctx.transcript() if self.region.history else self._text_of(snap)

    def found(self, snap: Snapshot, ctx: Context) -> Match | None:
        for text in self._searched(snap, ctx):
            hit = self._search(text)
            if hit is not None:
                found, nbsp = hit
                return Match.of(found, self._origin or self, _places(found, text, snap,
                                                                     self.region),
                                nbsp=nbsp, string=text)
        return None

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
        why = "; ".join(parts) or "it is nowhere on the screen"
        if " " in as_spaces(self._sought()) and NBSP in self._text_of(snap):
            why += " (each U+00A0, a no-break space, read as a space)"
        return why

    def _near_miss(self, snap: Snapshot) -> str:
        return ""

    def _sought(self) -> str:
        """The text or pattern looked for, as given (whether it has a space:
        only then is it worth saying how a no-break space was read)."""
        raise NotImplementedError

    def _count(self, text: str) -> int:
        raise NotImplementedError

    def misfit(self, cols: int, rows: int) -> str | None:
        return self.region.misfit(cols, rows)


class Text(_InRegion):
    """The region contains ``text``. The region's rows are joined with
    newlines (trailing blanks removed), so text with ``\\n`` spans rows.
    Blanks at the end of a line of ``text`` match blanks on the screen or
    the end of its row, as they look the same: ``Text("$ ")`` finds a
    prompt at the end of a row. A no-break space (U+00A0), on the screen or
    in ``text``, reads as a space: ``Text("❯ hi")`` finds ink's ``❯\\xa0hi``.

    The screen a wait returns has the text's place: ``screen.match.row``,
    ``screen.match.col`` (a :class:`~termsim.emulator.snapshot.matches.Match`)."""

    def __init__(self, text: str, region: Region | None = None) -> None:
        if not text:
            raise ValueError("Text() needs a non-empty string")
        self.text = text
        self.region = _region(region)
        self._pattern = _text_pattern(text)
        #: The text to look for with ``in`` (None: a pattern is needed).
        self._plain = None if any(line != line.rstrip(" ") for line in text.split("\n")) \
            else text
        #: The text with U+00A0 read as a space, searched for when the text
        #: itself is not there and either has one.
        self._spaced = _text_pattern(as_spaces(text))
        self._nbsp = NBSP in text

    def _holds(self, snap: Snapshot) -> bool:
        return self._find(self._text_of(snap))

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if self.region.history:
            return self._find(ctx.transcript())
        return self(snap)

    def _find(self, text: str) -> bool:
        plain = self._plain
        if (plain in text) if plain is not None else self._pattern.search(text) is not None:
            return True
        return (self._nbsp or NBSP in text) and \
            self._spaced.search(as_spaces(text)) is not None

    def _search(self, text: str) -> tuple[re.Match[str], bool] | None:
        found = self._pattern.search(text)
        if found is not None:
            return found, False
        if self._nbsp or NBSP in text:
            found = self._spaced.search(as_spaces(text))
            if found is not None:
                return found, True
        return None

    def describe(self) -> str:
        return f"text {self.text!r} in {self.region}"

    def _sought(self) -> str:
        return self.text

    def _count(self, text: str) -> int:
        return sum(1 for _ in self._spaced.finditer(as_spaces(text)))

    def _near_miss(self, snap: Snapshot) -> str:
        if "\n" in self.text:
            return ""
        top = self.region.bounds(snap)[0] if self.region.command is None else 0
        lines = self.region.lines(snap)
        needle = as_spaces(self.text)
        found = closest(needle, [as_spaces(line) for line in lines])
        if found is None or not worth_showing(found[0], needle):
            return ""
        distance, row, text = found
        # Shown as the screen has it: a U+00A0 shows as '\\xa0'.
        at = as_spaces(lines[row]).find(text)
        shown = lines[row][at:at + len(text)] if at >= 0 else text
        return (f"closest: {shown!r} on row {top + row} "
                f"({distance} edit{'s' * (distance > 1)} away)")


class Regex(_InRegion):
    """The region's text matches ``pattern`` (``re.search``). Rows are joined
    with newlines, trailing blanks removed; ``^`` and ``$`` match at each row
    (``re.MULTILINE``, unless a compiled pattern says otherwise). The
    cursor's row may also be read up to the cursor, blanks included, so
    ``^>>> $`` matches a ``>>> `` prompt with the cursor after its blank (and
    ``^>>>$`` still does). Where the text as it is does not match, it is
    searched again with each U+00A0 (no-break space) read as a space, so
    ``❯ `` in a pattern matches ink's ``❯\\xa0``.

    The screen a wait returns carries the match, as pexpect's ``match``::

        screen = await term.wait_for(Regex(r"total: (?P<n>\\d+)"))
        screen.match.group("n")          # '42', as re.Match reads it
        screen.match.row, screen.match.col  # where it starts on the screen

    (a :class:`~termsim.emulator.snapshot.matches.Match`: its ``string`` is the text
    searched, the cursor's row read up to the cursor where that is what
    matched; in ``Region.transcript()`` it is the transcript, and ``row``
    and ``col`` are None, as the text may have scrolled off)."""

    def __init__(self, pattern: str | re.Pattern[str], region: Region | None = None) -> None:
        self.pattern = (
            pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, re.MULTILINE)
        )
        self.region = _region(region)

    def _holds(self, snap: Snapshot) -> bool:
        if self._search(self._text_of(snap)) is not None:
            return True
        extended = to_cursor(self.region, snap)
        return extended is not None and self._search(extended) is not None

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if self.region.history:
            return self._search(ctx.transcript()) is not None
        return self(snap)

    def _search(self, text: str) -> tuple[re.Match[str], bool] | None:
        found = self.pattern.search(text)
        if found is not None:
            return found, False
        if NBSP in text:
            found = self.pattern.search(as_spaces(text))
            if found is not None:
                return found, True
        return None

    def _searched(self, snap: Snapshot, ctx: Context) -> Iterator[str]:
        yield from super()._searched(snap, ctx)
        if not self.region.history:
            extended = to_cursor(self.region, snap)
            if extended is not None:
                yield extended

    def describe(self) -> str:
        return f"regex /{self.pattern.pattern}/ in {self.region}"

    def _sought(self) -> str:
        return self.pattern.pattern

    def _near_miss(self, snap: Snapshot) -> str:
        if self._search(_padded(self.region, snap)) is None \
                and _BLANK_AT_END.search(self.pattern.pattern) is None:
            return ""
        cur = snap.cursor
        return ("it may match only if blanks at the ends of rows count: rows are "
                "read without them, but for the cursor's row, read up to the cursor "
                f"(row {cur.row}, column {cur.col})")

    def _count(self, text: str) -> int:
        as_is = sum(1 for _ in self.pattern.finditer(text))
        return as_is if as_is or NBSP not in text else \
            sum(1 for _ in self.pattern.finditer(as_spaces(text)))


def _region(region: Region | None) -> Region:
    """The region a predicate looks at: the shared whole screen for none (or
    one equal to it), so that it reads the snapshot's own text."""
    return _SCREEN if region is None or region == _SCREEN else region


def _text_pattern(text: str) -> re.Pattern[str]:
    """The pattern that finds ``text`` as :class:`Text` does: blanks at the
    end of a line match blanks or the end of a row."""
    return re.compile("\n".join(
        re.escape(line.rstrip(" ")) + (
            f"(?: {{{len(line) - len(line.rstrip(' '))}}}|$)"
            if line != line.rstrip(" ") else "")
        for line in text.split("\n")), re.MULTILINE)


def _places(found: re.Match[str], text: str, snap: Snapshot,
            region: Region) -> tuple[Place | None, ...]:
    """Where each group of ``found``, a search of ``text`` (the region's rows
    joined with newlines, as read from ``snap``), is on the screen: None for
    a group that took no part, and for all in a text that is not the
    screen's (the transcript, a command's output)."""
    count = found.re.groups + 1
    if region.history or region.command is not None:
        return (None,) * count
    top, _, left, right = region.bounds(snap)
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    columns: dict[int, tuple[list[int], list[int]] | None] = {}

    def row_columns(k: int) -> tuple[list[int], list[int]] | None:
        """Row ``k`` of the region: the column each character of its text
        starts at and ends before (a wide character takes two columns,
        a character combined with the one before shares its cell)."""
        if k not in columns:
            firsts: list[int] = []
            ends: list[int] = []
            for col in range(left, right):
                data = snap.span(top + k, col, col + 1)
                if not data and ends:
                    ends[-1] = col + 1  # the right half of a wide character
                firsts.extend([col] * len(data))
                ends.extend([col + 1] * len(data))
            own = snap.span(top + k, left, right)
            # The text searched is the row's own, its trailing blanks removed.
            columns[k] = (firsts, ends) if own.startswith(lines[k]) else None
        return columns[k]

    def start_of(offset: int) -> tuple[int, int] | None:
        k = bisect_right(starts, offset) - 1
        cols = row_columns(k)
        if cols is None:
            return None
        local = offset - starts[k]
        return top + k, cols[0][local] if local < len(cols[0]) else right

    def end_of(offset: int) -> tuple[int, int] | None:
        k = bisect_right(starts, offset - 1) - 1
        local = offset - 1 - starts[k]
        if local == len(lines[k]):  # the newline: the match ends a row
            return top + k + 1, left
        cols = row_columns(k)
        return None if cols is None else (top + k, cols[1][local])

    places: list[Place | None] = []
    for group in range(count):
        begin, end = found.span(group)
        first = start_of(begin) if begin >= 0 else None
        last = first if end == begin else end_of(end) if first is not None else None
        places.append(None if first is None or last is None else Place(*first, *last))
    return tuple(places)
