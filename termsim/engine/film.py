"""The film strip: the last screens before a failed wait, with the inputs between them.

A failed wait's error shows the screen at the end; the film strip shows how
it got there (a toolbar that said ``working`` for 9 ms, the key sent just
before), as changed rows only, with times relative to the wait's start. The
engine remembers the recent distinct screens and inputs; this module turns
them into text.

What the program said outside the cells (a bell, a title, a notification:
``termsim.emulator.signals.signals``) is in the strip too, in words at its own
time, because a screen that only rang the bell looks like the one before
and would otherwise say nothing. The last screen's ``signals`` hold every
signal so far, each with the generation that first held it, so none is
lost with the screens the strip leaves out: each comes at its own time,
among the screens and inputs, never after a later screen.

The strip is in time order and counts what it leaves out: the screens
between two it shows ("… 75 earlier screens not shown", just before the
next one shown), and the signals past a few lines ("… 4 more signals").
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass
from itertools import groupby

from ..emulator.signals.signals import Signal
from ..emulator.snapshot.snapshot import Snapshot

#: How many screens before a failure its error message shows (besides the
#: first screen after each input, always shown).
FILM_FRAMES = 4
#: Rows shown per screen of the film strip.
FILM_ROWS = 6
#: Inputs (and the first screen after each) remembered.
FILM_INPUTS = 20
#: Lines of signals shown before each screen (alike ones in a row are one line).
FILM_SIGNALS = 6
#: The times of this many screens at least are remembered (a float each),
#: so that a wait with no input before it can count the screens since it
#: began; past twice as many the older half is let go.
FILM_TIMES = 16_384


@dataclass(frozen=True, slots=True)
class _Line:
    """A line of the strip that is neither a screen nor an input."""

    text: str
    #: Printed with the time in front (a signal), or as it is (a count).
    timed: bool


#: One film item: its time, its order among items of the same time (counts
#: first, then inputs, screens, signals), and what it is.
_Item = tuple[float, int, Snapshot | str | _Line]


class Film:
    """Recent distinct screens and inputs, for error messages.

    The first screen after each input is kept apart from the last few: it is
    the program's first answer (a toolbar that flashed ``working`` for 9 ms
    right after Enter), and a wait that fails later would otherwise have
    rolled it out. Screens are numbered, so the strip can say how many it
    leaves out.
    """

    def __init__(self) -> None:
        self._screens: deque[tuple[float, int, Snapshot]] = deque(maxlen=FILM_FRAMES + 1)
        self._firsts: deque[tuple[float, int, Snapshot]] = deque(maxlen=FILM_INPUTS)
        #: (time, label, number of the last screen before it, generation then)
        self._inputs: deque[tuple[float, str, int, int]] = deque(maxlen=FILM_INPUTS)
        self._count = 0
        #: The generation the last input was sent at, until a newer screen comes.
        self._input_generation: int | None = None
        #: When each remembered screen came (numbers ``_first_timed`` on).
        self._times = array("d")
        self._first_timed = 1

    def screen(self, t: float, snap: Snapshot) -> None:
        """A screen the engine evaluated (kept once per generation)."""
        if self._screens and self._screens[-1][2].generation == snap.generation:
            return
        self._count += 1
        shot = (t, self._count, snap)
        self._screens.append(shot)
        times = self._times
        times.append(t)
        if len(times) > 2 * FILM_TIMES:
            del times[:FILM_TIMES]
            self._first_timed += FILM_TIMES
        if self._input_generation is not None and snap.generation > self._input_generation:
            self._input_generation = None
            self._firsts.append(shot)

    def input(self, t: float, label: str, generation: int) -> None:
        """An input sent when the terminal was at ``generation``."""
        self._inputs.append((t, label, self._count, generation))
        self._input_generation = generation

    def strip(self, started: float) -> str:
        """The screens and inputs of a failed wait, as text for its error.

        It starts at the last input sent before the wait (what the test did
        that the wait is about), else at the wait's start, and shows the
        first screen after each input and the last ``FILM_FRAMES`` screens,
        saying how many it leaves out.
        """
        begin, since = started, None
        before = [(t, n, g) for t, _, n, g in self._inputs if t < started]
        if before:
            begin, last_number, since = before[-1]
            first_number, forgotten = last_number + 1, False
        else:
            first_number, forgotten = self._first_at(begin)
        recent = [s for s in self._screens if s[0] >= begin][-FILM_FRAMES:]
        shown = {n: (t, n, snap) for t, n, snap in [*self._firsts, *recent] if t >= begin}
        screens = [shown[n] for n in sorted(shown)]
        # The screens are told as changes: the first from the screen before
        # the strip starts, or, if that one is forgotten, from the last one
        # left out before it.
        previous = next((snap for _, n, snap in reversed(self._screens)
                         if n < first_number), None)
        items: list[_Item] = [(t, 2, snap) for t, _, snap in screens]
        items += _said(screens, begin, since, previous)
        if previous is None and screens:
            previous = next((snap for _, n, snap in reversed(self._screens)
                             if n < screens[0][1]), None)
        # Where screens are left out, a line just before the next one shown
        # says how many (after the signals they came with, at their times).
        expected = first_number
        for t, n, _ in screens:
            if n > expected:
                left = n - expected
                count = f"at least {left}" if forgotten else str(left)
                items.append((t, 0, _Line(
                    f"… {count} earlier screen{'s' * (left > 1)} not shown", timed=False)))
            expected, forgotten = n + 1, False
        items += [(t, 1, label) for t, label, _, _ in self._inputs if t >= begin]
        if not items:
            return ""
        out = ["  what happened during the wait (seconds from its start):"]
        for t, _, what in sorted(items, key=lambda item: item[:2]):
            when = f"    {t - started:+8.3f} s  "
            if isinstance(what, _Line):
                out.append(f"{when}{what.text}" if what.timed else f"{' ' * 16}{what.text}")
            elif isinstance(what, str):
                out.append(f"{when}sent {what}")
            elif previous is not None and previous.lines == what.lines \
                    and previous.cursor == what.cursor:
                continue  # only modes or the title changed: nothing to see
            else:
                out += _screen_change(when, previous, what)
                previous = what
        return "\n".join(out)

    def _first_at(self, t: float) -> tuple[int, bool]:
        """The number of the first screen drawn after ``t`` (one at ``t`` is
        the screen the wait began on), and whether screens that old are
        forgotten (then it is the first one remembered, and more may have
        come since ``t``)."""
        times, first = self._times, self._first_timed
        if first > 1 and (not times or t < times[0]):
            return first, True
        return first + bisect_right(times, t), False


def _said(screens: list[tuple[float, int, Snapshot]], begin: float, since: int | None,
          previous: Snapshot | None) -> list[_Item]:
    """What the program said outside the cells up to the last of the shown
    ``screens``, as film items at their own times (a signal fed without a
    clock at the screen that first held it). ``since``: the generation the
    last input was sent at; None (no input before the wait): the signals
    after ``begin`` and after ``previous`` (the screen before the first
    counted, which held what was said before the wait). Alike signals in
    a row (a bell rung ten times) are one line with a count; at most
    ``FILM_SIGNALS`` lines come before each shown screen, and a line counts
    the rest."""
    if not screens:
        return []
    last = screens[-1][2]

    def counts(signal: Signal) -> bool:
        if since is not None:
            return signal.generation > since
        # After the screen the wait began on, as the screens counted are.
        return (previous is None or signal.generation > previous.generation) and (
            signal.t is None or signal.t > begin)

    said = [s for s in last.signals.all() if s.generation <= last.generation and counts(s)]
    items: list[_Item] = []
    done = 0
    for seen, _, snap in screens:
        mine = [s for s in said[done:] if s.generation <= snap.generation]
        done += len(mine)
        runs = [(text, list(alike)) for text, alike in groupby(mine, key=lambda s: s.describe())]
        at = seen
        for text, alike in runs[:FILM_SIGNALS]:
            first, count = alike[0], len(alike)
            at = first.t if first.t is not None else seen
            if len(text) > 100:
                text = text[:99] + "…"
            items.append((at, 3, _Line(text + (f" (x{count})" if count > 1 else ""),
                                       timed=True)))
        if len(runs) > FILM_SIGNALS:
            items.append((at, 3, _Line(f"… {len(runs) - FILM_SIGNALS} more signals",
                                       timed=False)))
    return items


def _screen_change(when: str, before: Snapshot | None, after: Snapshot) -> list[str]:
    """One film-strip frame: the rows that changed since the previous screen."""
    if before is None or (before.cols, before.rows) != (after.cols, after.rows):
        changed = [r for r, line in enumerate(after.lines) if line.strip()]
        what = f"screen ({len(changed)} row{'s' if len(changed) != 1 else ''} with text)"
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
