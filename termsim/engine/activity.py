"""What counts as the program doing something, when parts of its screen
never stop moving.

An idle agent keeps drawing: a clock in its toolbar, a spinner, a token
counter. ``stall=`` and :class:`~termsim.Quiet` judge activity by output,
so such a program never looks idle, and a wait on a reply that will never
come runs to its timeout. ``ignore=`` names the regions whose changes are
not activity: :class:`Activity` watches the text of every other cell,
screen after screen, and remembers when it last changed. The stall timer
and ``Quiet(ignore=...)`` count from then instead of from the last output.

Only text counts (a spinner's colour cycling outside the regions does not),
and only the screen: rows that scrolled off are not looked at, which is
what an idle program leaves alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..emulator.snapshot.region import Region
from ..emulator.snapshot.snapshot import Snapshot
from ..errors import ArgumentError

__all__ = ["Activity", "Ignore", "ignored_regions"]

#: What ``ignore=`` takes: one region or several.
Ignore = Region | Iterable[Region]


def ignored_regions(ignore: Ignore | None) -> tuple[Region, ...]:
    """``ignore=`` as a tuple of screen regions (empty for None), or an
    :class:`~termsim.ArgumentError` that says what it takes."""
    if ignore is None:
        return ()
    regions = (ignore,) if isinstance(ignore, Region) else ignore
    try:
        found = tuple(regions)
    except TypeError:
        raise ArgumentError(
            f"ignore= takes a Region or several (Region.row(-1), Region.rect(...)), "
            f"not {type(ignore).__name__}") from None
    for region in found:
        if not isinstance(region, Region):
            raise ArgumentError(
                f"ignore= takes Regions (Region.row(-1), Region.rect(...)), "
                f"not {type(region).__name__}: {region!r}")
        if region.history or region.command is not None:
            raise ArgumentError(
                f"ignore= takes regions of the screen, not {region.label}: what is "
                "ignored is where the program keeps drawing (a clock, a spinner)")
    return found


def describe(regions: tuple[Region, ...]) -> str:
    """``"the bottom row and rows 0:2"``, for messages."""
    labels = [r.label for r in regions]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


class Activity:
    """When the screen last changed outside ``regions``."""

    def __init__(self, regions: tuple[Region, ...], since: float) -> None:
        self.regions = regions
        #: The session time of the last change outside the regions (before
        #: the first screen: ``since``, when the watch began).
        self.changed_at = since
        #: Screens seen that changed only inside the regions.
        self.ignored_changes = 0
        self._outside: list[str] | None = None
        self._inside: list[str] | None = None

    def see(self, snap: Snapshot, now: float) -> None:
        """A new settled screen, drawn at ``now``."""
        outside = list(snap.lines)
        inside = []
        for region in self.regions:
            top, bottom, left, right = region.bounds(snap)
            for y in range(top, bottom):
                row = outside[y]
                inside.append(row[left:right])
                outside[y] = row[:left] + " " * (right - left) + row[right:]
        if self._outside is not None and outside != self._outside:
            self.changed_at = now
        elif self._inside is not None and inside != self._inside:
            self.ignored_changes += 1
        self._outside, self._inside = outside, inside

    def describe(self) -> str:
        return describe(self.regions)
