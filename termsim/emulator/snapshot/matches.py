"""What a wait found: the text a ``Text`` or ``Regex`` matched, and where.

pexpect gives a test its match (``child.match.group(1)``), and a test that
waits for ``total: (\\d+)`` wants the number, not a second search of the
screen. A :class:`Match` is that answer: :class:`re.Match`'s reading of
groups (``group``, ``groups``, ``groupdict``, ``start``, ``end``,
``span``, on the text that was searched) and, which pexpect cannot give,
where each group is on the screen (:meth:`Match.where`), to click it or
read its cells' style.

It is a value, like the :class:`~termsim.Snapshot` that carries it: frozen,
compared and hashed by what it holds, and sharing nothing with the search
that made it. The predicates build it (``termsim.engine.text_predicates``);
this module, below them, only holds it, so it names the predicate by what
every predicate has (:class:`Awaited`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, overload


class Awaited(Protocol):
    """What a :class:`Match` and ``Snapshot.matched`` name: a predicate of
    ``termsim.engine`` (which this layer does not import)."""

    def describe(self) -> str: ...


class Place(NamedTuple):
    """Where a match (or one of its groups) is on the screen: it starts at
    ``(row, col)`` and ends just before ``(end_row, end_col)``, so a match on
    one row covers columns ``col:end_col`` of ``row``. Columns are the
    screen's: a wide character takes two."""

    row: int
    col: int
    end_row: int
    end_col: int


@dataclass(frozen=True, slots=True)
class Match:
    """The text a ``Text`` or ``Regex`` found on the screen a wait returned.

    Groups read as :class:`re.Match`'s do, on :attr:`string`, the text that
    was searched: the region's rows joined with newlines (the cursor's row
    read up to the cursor where the pattern needed it), or the transcript for
    ``Region.transcript()``. Group values are the screen's own characters:
    when the match needed U+00A0 (a no-break space) read as a space,
    :attr:`nbsp` is True and ``group()`` still shows ``'\\xa0'``.

    :meth:`where` (and :attr:`row`, :attr:`col`) say where a group is on the
    screen; None where the text has no place on it (the transcript, a
    command's output).
    """

    #: The predicate that matched (a ``Text`` or a ``Regex``): in a wait for
    #: ``a | b``, ``screen.match.predicate is a`` says which side it was.
    predicate: Awaited
    #: The text that was searched.
    string: str
    #: Whether it matched only with U+00A0 read as a space.
    nbsp: bool = False
    _spans: tuple[tuple[int, int], ...] = field(default=((0, 0),), repr=False)
    _names: tuple[tuple[str, int], ...] = field(default=(), repr=False)
    _places: tuple[Place | None, ...] = field(default=(None,), repr=False)

    @classmethod
    def of(cls, found: re.Match[str], predicate: Awaited, places: tuple[Place | None, ...],
           *, nbsp: bool = False, string: str | None = None) -> Match:
        """The value of ``found``, a search by ``predicate``; ``places``: each
        group's :class:`Place`; ``string``: the text to read the groups from
        (default: the one searched; the screen's own when the search read
        U+00A0 as a space, character for character)."""
        spans = tuple(found.span(g) for g in range(found.re.groups + 1))
        return cls(predicate, found.string if string is None else string, nbsp, spans,
                   tuple(found.re.groupindex.items()), places)

    # -- as re.Match reads it ---------------------------------------------------

    def _index(self, group: int | str) -> int:
        if isinstance(group, str):
            for name, index in self._names:
                if name == group:
                    return index
            raise IndexError(f"no group named {group!r} in this match (its groups: "
                             f"{', '.join(repr(n) for n, _ in self._names) or 'none named'})")
        if not 0 <= group < len(self._spans):
            raise IndexError(f"no group {group}: the pattern has {len(self._spans) - 1}")
        return group

    def _text(self, index: int, default: str | None = None) -> str | None:
        start, end = self._spans[index]
        return default if start < 0 else self.string[start:end]

    @overload
    def group(self, group: int | str = 0, /) -> str | None: ...
    @overload
    def group(self, group: int | str, other: int | str, /,
              *groups: int | str) -> tuple[str | None, ...]: ...

    def group(self, *groups: int | str) -> str | tuple[str | None, ...] | None:
        """A group's text, by number or name (None if it took no part), as
        :meth:`re.Match.group`: no argument is the whole match, several give
        a tuple."""
        if len(groups) > 1:
            return tuple(self._text(self._index(g)) for g in groups)
        return self._text(self._index(groups[0] if groups else 0))

    def __getitem__(self, group: int | str) -> str | None:
        return self._text(self._index(group))

    def groups(self, default: str | None = None) -> tuple[str | None, ...]:
        """Every group's text, as :meth:`re.Match.groups`."""
        return tuple(self._text(i, default) for i in range(1, len(self._spans)))

    def groupdict(self, default: str | None = None) -> dict[str, str | None]:
        """The named groups' text, as :meth:`re.Match.groupdict`."""
        return {name: self._text(index, default) for name, index in self._names}

    def start(self, group: int | str = 0) -> int:
        """Where a group starts in :attr:`string` (-1 if it took no part)."""
        return self._spans[self._index(group)][0]

    def end(self, group: int | str = 0) -> int:
        """Where a group ends in :attr:`string` (-1 if it took no part)."""
        return self._spans[self._index(group)][1]

    def span(self, group: int | str = 0) -> tuple[int, int]:
        """``(start, end)`` in :attr:`string`, as :meth:`re.Match.span`; the
        place on the screen is :meth:`where`'s."""
        return self._spans[self._index(group)]

    # -- on the screen ------------------------------------------------------------

    def where(self, group: int | str = 0) -> Place | None:
        """Where a group is on the screen (None: it took no part, or the
        text searched is not the screen's, as the transcript is not)."""
        return self._places[self._index(group)]

    @property
    def row(self) -> int | None:
        """The row the match starts on (None off the screen)."""
        place = self._places[0]
        return None if place is None else place.row

    @property
    def col(self) -> int | None:
        """The column the match starts at (None off the screen)."""
        place = self._places[0]
        return None if place is None else place.col

    def __repr__(self) -> str:
        place = self._places[0]
        at = "" if place is None else f" at row {place.row}, column {place.col}"
        nbsp = ", U+00A0 read as a space" if self.nbsp else ""
        return f"<Match {self.group()!r}{at}{nbsp}, for {self.predicate.describe()}>"
