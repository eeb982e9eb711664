"""Regions: the part of the screen a predicate looks at.

A region is a value resolved against each snapshot's size (``Region.row(-1)``
is the bottom row of whatever screen it meets), so one predicate serves a
session that resizes. Its text is its rows joined by newlines, each without
its trailing blanks, which is what lets text span rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from .snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class Region:
    """A rectangle of the screen, resolved against each snapshot's size.

    Build one with :meth:`row`, :meth:`rows`, :meth:`rect` or :meth:`screen`.
    Indexes are 0-based; negative ones count from the bottom/right. ``stop``,
    ``bottom`` and ``right`` are exclusive, as in Python slices; ``None``
    means the edge of the screen.
    """

    top: int | None = None
    bottom: int | None = None
    left: int | None = None
    right: int | None = None
    label: str = "the screen"
    #: The transcript, not the screen: see :meth:`transcript`.
    history: bool = False
    #: A command's output (its index), by shell marks, not the screen: see
    #: :meth:`output`.
    command: int | None = None

    @classmethod
    def screen(cls) -> Region:
        """The whole screen."""
        return cls()

    @classmethod
    def row(cls, index: int) -> Region:
        """One row; ``Region.row(-1)`` is the bottom row."""
        label = "the bottom row" if index == -1 else (
            "the top row" if index == 0 else f"row {index}")
        return cls(index, index + 1 if index != -1 else None, label=label)

    @classmethod
    def rows(cls, start: int | None, stop: int | None = None) -> Region:
        """Rows ``start:stop``, like a slice."""
        return cls(start, stop, label=f"rows {_slice(start, stop)}")

    @classmethod
    def rect(
        cls, top: int | None, left: int | None, bottom: int | None, right: int | None,
    ) -> Region:
        """Rows ``top:bottom`` and columns ``left:right``, like slices."""
        return cls(
            top, bottom, left, right,
            label=f"rows {_slice(top, bottom)}, columns {_slice(left, right)}",
        )

    @classmethod
    def transcript(cls) -> Region:
        """The text drawn since the wait's ``since=`` mark (since the session
        started without one), rows that scrolled off the top included: a
        long reply can be checked whole. Outside a wait, the screen's text."""
        return cls(label="the transcript", history=True)

    @classmethod
    def output(cls, index: int = -1) -> Region:
        """The output of a command, from the shell's integration marks (OSC
        133 or 633: where its output starts, where it finished): ``-1`` the
        last command (the one running, if one is), ``0`` the first. Rows
        that scrolled off count, as far as they are kept. Empty when the
        shell sent no marks: its prompt must print them."""
        label = "the output of the last command" if index == -1 else (
            f"the output of command {index}")
        return cls(label=label, command=index)

    def bounds(self, snap: Snapshot) -> tuple[int, int, int, int]:
        """``(top, bottom, left, right)`` on this snapshot, clamped, exclusive ends."""
        top, bottom, _ = slice(self.top, self.bottom).indices(snap.rows)
        left, right, _ = slice(self.left, self.right).indices(snap.cols)
        return top, max(top, bottom), left, max(left, right)

    def lines(self, snap: Snapshot) -> list[str]:
        """The region's rows, each without its trailing blanks."""
        if self.command is not None:
            return self.text(snap).split("\n")
        top, bottom, left, right = self.bounds(snap)
        if left == 0 and right == snap.cols:
            return [line.rstrip() for line in snap.lines[top:bottom]]
        return [snap.span(r, left, right).rstrip() for r in range(top, bottom)]

    def text(self, snap: Snapshot) -> str:
        """The region's text: its rows joined with newlines, each without its
        trailing blanks, so ``Text("100\\n30")`` matches ``100`` above ``30``."""
        if self.command is not None:
            commands = snap.commands
            if not -len(commands) <= self.command < len(commands):
                return ""
            return commands[self.command].output
        return "\n".join(self.lines(snap))

    def misfit(self, cols: int, rows: int) -> str | None:
        """Why this region lies outside a ``cols`` x ``rows`` screen (None: it
        does not). A wait on it could never match, so it is an error, not
        something to wait the whole timeout for."""
        if self.history or self.command is not None:
            return None
        # Where it starts; its (exclusive) ends are clamped like a slice's.
        for name, index, size in (("row", self.top, rows), ("column", self.left, cols)):
            if index is not None and not 0 <= resolve(index, size) < size:
                own = f"{name} {index}"
                return self.label if self.label == own else f"{self.label} (its {own})"
        return None

    def __str__(self) -> str:
        return self.label


def resolve(index: int, size: int) -> int:
    """A row or column index on a screen of ``size``; negative counts from the end."""
    return index + size if index < 0 else index


def _slice(start: int | None, stop: int | None) -> str:
    return f"{'' if start is None else start}:{'' if stop is None else stop}"
