"""The film strip: the last screens before a failed wait, with the inputs between them.

A failed wait's error shows the screen at the end; the film strip shows how
it got there (a toolbar that said ``working`` for 9 ms, the key sent just
before), as changed rows only, with times relative to the wait's start. The
engine remembers the recent distinct screens and inputs; this module turns
them into text.
"""

from __future__ import annotations

from collections import deque

from ._snapshot import Snapshot

#: How many screens before a failure its error message shows.
FILM_FRAMES = 4
#: Rows shown per screen of the film strip.
FILM_ROWS = 6


class Film:
    """Recent distinct screens and inputs, for error messages."""

    def __init__(self) -> None:
        self._screens: deque[tuple[float, Snapshot]] = deque(maxlen=FILM_FRAMES + 1)
        self._inputs: deque[tuple[float, str]] = deque(maxlen=20)

    def screen(self, t: float, snap: Snapshot) -> None:
        """A screen the engine evaluated (kept once per generation)."""
        if not self._screens or self._screens[-1][1].generation != snap.generation:
            self._screens.append((t, snap))

    def input(self, t: float, label: str) -> None:
        self._inputs.append((t, label))

    def strip(self, started: float) -> str:
        """The last screens and the inputs between them, as text, for an error.

        It starts at the last input sent before the wait (what the test did
        that the wait is about) and keeps the last ``FILM_FRAMES`` screens.
        """
        begin = started
        before = [t for t, _ in self._inputs if t < started]
        if before:
            begin = before[-1]
        all_screens = list(self._screens)
        recent = [i for i, (t, _) in enumerate(all_screens) if t >= begin][-FILM_FRAMES:]
        first = recent[0] if recent else len(all_screens)
        previous = all_screens[first - 1][1] if first > 0 else None
        items: list[tuple[float, int, Snapshot | str]] = [
            (all_screens[i][0], 1, all_screens[i][1]) for i in recent]
        since = all_screens[first][0] if recent else begin
        items += [(t, 0, label) for t, label in self._inputs if t >= min(begin, since)]
        if not items:
            return ""
        out = ["  what happened during the wait (seconds from its start):"]
        for t, _, what in sorted(items, key=lambda x: (x[0], x[1])):
            when = f"    {t - started:+8.3f} s  "
            if isinstance(what, str):
                out.append(f"{when}sent {what}")
                continue
            if previous is not None and previous.lines == what.lines \
                    and previous.cursor == what.cursor:
                continue  # only modes or the title changed: nothing to see
            out += _screen_change(when, previous, what)
            previous = what
        return "\n".join(out)


def _screen_change(when: str, before: Snapshot | None, after: Snapshot) -> list[str]:
    """One film-strip frame: the rows that changed since the previous screen."""
    if before is None or (before.cols, before.rows) != (after.cols, after.rows):
        changed = [r for r, line in enumerate(after.lines) if line.strip()]
        what = f"screen ({len(changed)} rows with text)"
    else:
        changed = [r for r in range(after.rows) if before.lines[r] != after.lines[r]]
        what = f"screen ({len(changed)} row{'s' if len(changed) != 1 else ''} changed"
        if before.cursor != after.cursor:
            what += f", cursor to row {after.cursor.row}, col {after.cursor.col}"
        what += ")"
    width = len(str(after.rows - 1))
    out = [f"{when}{what}"]
    for r in changed[:FILM_ROWS]:
        out.append(f"{' ' * 16}{str(r).rjust(width)} │{after.lines[r].rstrip()}")
    if len(changed) > FILM_ROWS:
        out.append(f"{' ' * 16}… {len(changed) - FILM_ROWS} more rows")
    return out
