"""Screen-region predicates: what a test waits for, in words.

A predicate is a plain synchronous function of a :class:`~termsim.Snapshot`
that says yes or no, plus a description for error messages and recordings.
They compose with ``&``, ``|`` and ``~``; any callable taking a snapshot and
returning a bool works too (:func:`as_predicate` wraps it).

Why regions: prompt_toolkit's renderer rewrites only the cells that changed,
so ``sleeping`` may never cross the PTY as one word, and a prompt from the
previous turn stays on the screen. Asking "does the *bottom row* say
``state: sleeping``" or "is the *cursor* right after ``❯ ``" is what makes a
wait mean what the test author meant.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ._snapshot import Snapshot


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

    @classmethod
    def screen(cls) -> Region:
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

    def bounds(self, snap: Snapshot) -> tuple[int, int, int, int]:
        """``(top, bottom, left, right)`` on this snapshot, clamped, exclusive ends."""
        top, bottom, _ = slice(self.top, self.bottom).indices(snap.rows)
        left, right, _ = slice(self.left, self.right).indices(snap.cols)
        return top, max(top, bottom), left, max(left, right)

    def text(self, snap: Snapshot) -> str:
        """The region's text: its rows joined with newlines."""
        top, bottom, left, right = self.bounds(snap)
        if left == 0 and right == snap.cols:
            return "\n".join(snap.lines[top:bottom])
        return "\n".join(snap.span(r, left, right) for r in range(top, bottom))

    def __str__(self) -> str:
        return self.label


def _resolve(index: int, size: int) -> int:
    """A row or column index on a screen of ``size``; negative counts from the end."""
    return index + size if index < 0 else index


def _shows(region: Region, snap: Snapshot) -> str:
    """``"the bottom row shows 'text'"``, each row without its trailing blanks."""
    text = "\n".join(row.rstrip() for row in region.text(snap).split("\n")).rstrip()
    return f"{region} shows {text!r}"


def _slice(start: int | None, stop: int | None) -> str:
    return f"{'' if start is None else start}:{'' if stop is None else stop}"


class Predicate:
    """Base class: a yes/no question about a snapshot, with a description."""

    #: True when the answer can change without the screen changing (it reads
    #: the tty's mode), so a pending wait must re-check it on a short timer.
    polls: bool = False

    def __call__(self, snap: Snapshot) -> bool:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def explain(self, snap: Snapshot) -> str:
        """What the screen showed instead, for an error message ("" if nothing useful)."""
        return ""

    def __and__(self, other: PredicateLike) -> Predicate:
        return All(self, as_predicate(other))

    def __rand__(self, other: PredicateLike) -> Predicate:
        return All(as_predicate(other), self)

    def __or__(self, other: PredicateLike) -> Predicate:
        return Any(self, as_predicate(other))

    def __ror__(self, other: PredicateLike) -> Predicate:
        return Any(as_predicate(other), self)

    def __invert__(self) -> Predicate:
        return Not(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"


PredicateLike = Predicate | Callable[[Snapshot], bool]


def as_predicate(obj: PredicateLike) -> Predicate:
    """Accept a predicate or any callable taking a snapshot."""
    if isinstance(obj, Predicate):
        return obj
    if callable(obj):
        return Function(obj)
    raise TypeError(
        f"expected a predicate (Text, Regex, CursorAt, ...) or a callable "
        f"taking a Snapshot, not {type(obj).__name__}"
    )


class Text(Predicate):
    """The region contains ``text`` (on one row; rows are not joined)."""

    def __init__(self, text: str, region: Region | None = None) -> None:
        if not text:
            raise ValueError("Text() needs a non-empty string")
        self.text = text
        self.region = region or Region.screen()

    def __call__(self, snap: Snapshot) -> bool:
        return self.text in self.region.text(snap)

    def describe(self) -> str:
        return f"text {self.text!r} in {self.region}"

    def explain(self, snap: Snapshot) -> str:
        if self.region == Region.screen():
            return ""
        return _shows(self.region, snap)


class Regex(Predicate):
    """The region's text matches ``pattern`` (``re.search``, MULTILINE)."""

    def __init__(self, pattern: str | re.Pattern[str], region: Region | None = None) -> None:
        self.pattern = (
            pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, re.MULTILINE)
        )
        self.region = region or Region.screen()

    def __call__(self, snap: Snapshot) -> bool:
        return self.pattern.search(self.region.text(snap)) is not None

    def describe(self) -> str:
        return f"regex /{self.pattern.pattern}/ in {self.region}"

    def explain(self, snap: Snapshot) -> str:
        if self.region == Region.screen():
            return ""
        return _shows(self.region, snap)


class CursorAt(Predicate):
    """The cursor is at (row, col); ``None`` for either means any."""

    def __init__(self, row: int | None, col: int | None = None) -> None:
        self.row = row
        self.col = col

    def __call__(self, snap: Snapshot) -> bool:
        # Only negative indexes wrap: CursorAt(30) must not match row 6 of 24.
        cur = snap.cursor
        if self.row is not None and cur.row != _resolve(self.row, snap.rows):
            return False
        return self.col is None or cur.col == _resolve(self.col, snap.cols)

    def describe(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.col is not None:
            where.append(f"column {self.col}")
        return f"the cursor at {', '.join(where)}" if where else "the cursor anywhere"

    def explain(self, snap: Snapshot) -> str:
        return f"the cursor is at row {snap.cursor.row}, column {snap.cursor.col}"


class CursorAfter(Predicate):
    """The text immediately left of the cursor, on its row, ends with ``text``.

    The sharpest way to wait for a prompt: a prompt left over from the
    previous turn is still on the screen, but the cursor is not after it.
    """

    def __init__(self, text: str) -> None:
        if not text:
            raise ValueError("CursorAfter() needs a non-empty string")
        self.text = text

    def __call__(self, snap: Snapshot) -> bool:
        cur = snap.cursor
        return snap.span(cur.row, 0, cur.col).endswith(self.text)

    def describe(self) -> str:
        return f"the cursor right after {self.text!r}"

    def explain(self, snap: Snapshot) -> str:
        cur = snap.cursor
        before = snap.span(cur.row, 0, cur.col)
        return f"left of the cursor (row {cur.row}, column {cur.col}): {before[-40:]!r}"


class InputReady(Predicate):
    """The program reads its terminal in raw mode (ICANON and ECHO off) now.

    That is when prompt_toolkit takes keys; keys sent while the line
    discipline is cooked are echoed, turned into signals or lost. termios
    changes print nothing, so a wait on this re-checks on a short timer.
    """

    polls = True

    def __call__(self, snap: Snapshot) -> bool:
        return snap.input_ready is True

    def describe(self) -> str:
        return "the program reading keys in raw mode"

    def explain(self, snap: Snapshot) -> str:
        if snap.input_ready is None:
            return "the tty mode is unknown here"
        return "the tty is in raw mode" if snap.input_ready else "the tty is cooked"


class All(Predicate):
    parts: tuple[Predicate, ...]

    def __init__(self, *parts: Predicate) -> None:
        flat: list[Predicate] = []
        for p in parts:
            flat.extend(p.parts if isinstance(p, All) else [p])
        self.parts = tuple(flat)
        self.polls = any(p.polls for p in self.parts)

    def __call__(self, snap: Snapshot) -> bool:
        return all(p(snap) for p in self.parts)

    def describe(self) -> str:
        return " and ".join(_group(p) for p in self.parts)

    def explain(self, snap: Snapshot) -> str:
        return "; ".join(
            f"not {p.describe()}" + (f" ({e})" if (e := p.explain(snap)) else "")
            for p in self.parts if not p(snap)
        )


class Any(Predicate):
    parts: tuple[Predicate, ...]

    def __init__(self, *parts: Predicate) -> None:
        flat: list[Predicate] = []
        for p in parts:
            flat.extend(p.parts if isinstance(p, Any) else [p])
        self.parts = tuple(flat)
        self.polls = any(p.polls for p in self.parts)

    def __call__(self, snap: Snapshot) -> bool:
        return any(p(snap) for p in self.parts)

    def describe(self) -> str:
        return " or ".join(_group(p) for p in self.parts)

    def explain(self, snap: Snapshot) -> str:
        return "; ".join(e for p in self.parts if (e := p.explain(snap)))


class Not(Predicate):
    def __init__(self, inner: Predicate) -> None:
        self.inner = inner
        self.polls = inner.polls

    def __call__(self, snap: Snapshot) -> bool:
        return not self.inner(snap)

    def describe(self) -> str:
        return f"not {_group(self.inner)}"

    def __invert__(self) -> Predicate:
        return self.inner


class Function(Predicate):
    """A plain callable, described by its docstring's first line or its name."""

    def __init__(self, fn: Callable[[Snapshot], bool]) -> None:
        self.fn = fn

    def __call__(self, snap: Snapshot) -> bool:
        return bool(self.fn(snap))

    def describe(self) -> str:
        doc = (getattr(self.fn, "__doc__", None) or "").strip().splitlines()
        if doc and not isinstance(self.fn, type) and type(self.fn).__doc__ != self.fn.__doc__:
            return doc[0]
        name = getattr(self.fn, "__qualname__", None) or repr(self.fn)
        return f"{name}(screen) is true"


def _group(p: Predicate) -> str:
    text = p.describe()
    return f"({text})" if isinstance(p, (All, Any)) else text
