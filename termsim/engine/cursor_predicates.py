"""Waiting for the program to take keys: where its cursor is, and its tty mode.

A prompt is ready when the cursor sits after it and the program reads its
terminal in raw mode; a prompt left from the previous turn is still on the
screen, but neither of those holds for it. These predicates look at the
cursor and the mode rather than at text, so they sit together here, apart
from the predicate protocol (:mod:`termsim.engine.predicates`).
"""

from __future__ import annotations

from ..emulator.snapshot.region import resolve
from ..emulator.snapshot.snapshot import Snapshot
from .predicates import Predicate
from .text_predicates import NBSP, as_spaces


def _visible_ok(visible: bool | None, snap: Snapshot) -> bool:
    return visible is None or snap.cursor.visible == visible


def _visibility(visible: bool | None) -> str:
    return {True: "", False: " (hidden)", None: " (visible or not)"}[visible]


class CursorAt(Predicate):
    """The cursor is at (row, col); ``None`` for either means any.

    ``visible``: True (the default) matches a visible cursor only, since a
    program hides it while it draws; False a hidden one; None either.
    """

    def __init__(self, row: int | None, col: int | None = None, *,
                 visible: bool | None = True) -> None:
        self.row = row
        self.col = col
        self.visible = visible

    def __call__(self, snap: Snapshot) -> bool:
        # Only negative indexes wrap: CursorAt(30) must not match row 6 of 24.
        cur = snap.cursor
        if not _visible_ok(self.visible, snap):
            return False
        if self.row is not None and cur.row != resolve(self.row, snap.rows):
            return False
        return self.col is None or cur.col == resolve(self.col, snap.cols)

    def misfit(self, cols: int, rows: int) -> str | None:
        for name, index, size in (("row", self.row, rows), ("column", self.col, cols)):
            if index is not None and not 0 <= resolve(index, size) < size:
                return f"the cursor's {name} {index}"
        return None

    def describe(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.col is not None:
            where.append(f"column {self.col}")
        place = f"at {', '.join(where)}" if where else "anywhere"
        return f"the cursor {place}{_visibility(self.visible)}"

    def explain(self, snap: Snapshot) -> str:
        cur = snap.cursor
        shown = "" if cur.visible else " (hidden)"
        return f"the cursor is at row {cur.row}, column {cur.col}{shown}"


class CursorAfter(Predicate):
    """The text immediately left of the cursor, on its row, ends with ``text``.

    The sharpest way to wait for a prompt: a prompt left over from the
    previous turn is still on the screen, but the cursor is not after it.
    ``visible`` as in :class:`CursorAt` (a visible cursor, by default).

    A no-break space (U+00A0) reads as a space, on the screen and in
    ``text``: ink apps (Claude Code, Gemini CLI) draw ``❯`` and a no-break
    space, and ``CursorAfter("❯ ")`` is what their prompt looks like. A
    failed wait's error shows the screen's own characters (``'❯\\xa0'``).
    """

    def __init__(self, text: str, *, visible: bool | None = True) -> None:
        if not text:
            raise ValueError("CursorAfter() needs a non-empty string")
        self.text = text
        self.visible = visible
        self._spaced = as_spaces(text)
        self._nbsp = NBSP in text

    def __call__(self, snap: Snapshot) -> bool:
        cur = snap.cursor
        if not _visible_ok(self.visible, snap):
            return False
        before = snap.span(cur.row, 0, cur.col)
        return before.endswith(self.text) or (
            (self._nbsp or NBSP in before)
            and as_spaces(before).endswith(self._spaced))

    def describe(self) -> str:
        return f"the cursor right after {self.text!r}{_visibility(self.visible)}"

    def explain(self, snap: Snapshot) -> str:
        cur = snap.cursor
        before = snap.span(cur.row, 0, cur.col)
        shown = "" if cur.visible else ", hidden"
        nbsp = "; its U+00A0 (no-break space) reads as a space" if NBSP in before[-40:] else ""
        return (f"left of the cursor (row {cur.row}, column {cur.col}{shown}): "
                f"{before[-40:]!r}{nbsp}")


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
