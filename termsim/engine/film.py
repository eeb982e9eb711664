"""The film strip: the last screens before a failed wait, with the inputs between them.

A failed wait's error shows the screen at the end; the film strip shows how
it got there (a toolbar that said ``working`` for 9 ms, the key sent just
before), as changed rows only, with times relative to the wait's start. The
engine remembers the recent distinct screens and inputs; this module turns
them into text.

What the program said outside the cells (a bell, a title, a notification:
``termsim.emulator.signals``) is in the strip too, in words at its own
time, because a screen that only rang the bell looks like the one before
and would otherwise say nothing. Each screen brings the signals sent since
the screen before it in the strip (its ``signals`` hold them all, each
with the generation that first held it), so none is lost with the
screens the strip leaves out.
"""

from __future__ import annotations

from collections import deque
from itertools import groupby

from ..emulator.signals import Signal
from ..emulator.snapshot import Snapshot

#: How many screens before a failure its error message shows (besides the
#: first screen after each input, always shown).
FILM_FRAMES = 4
#: Rows shown per screen of the film strip.
FILM_ROWS = 6
#: Inputs (and the first screen after each) remembered.
FILM_INPUTS = 20
#: Lines of signals shown per screen (alike ones in a row are one line).
FILM_SIGNALS = 6


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

    def screen(self, t: float, snap: Snapshot) -> None:
        """A screen the engine evaluated (kept once per generation)."""
        if self._screens and self._screens[-1][2].generation == snap.generation:
            return
        self._count += 1
        shot = (t, self._count, snap)
        self._screens.append(shot)
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
        that the wait is about), and shows the first screen after each input
        and the last ``FILM_FRAMES`` screens, saying how many it leaves out.
        """
        begin, first_number, input_generation = started, None, None
        before = [(t, n, g) for t, _, n, g in self._inputs if t < started]
        if before:
            begin, first_number, input_generation = before[-1][0], before[-1][1] + 1, \
                before[-1][2]
        recent = [s for s in self._screens if s[0] >= begin][-FILM_FRAMES:]
        shown = {n: (t, n, snap) for t, n, snap in [*self._firsts, *recent] if t >= begin}
        screens = [shown[n] for n in sorted(shown)]
        if first_number is None:
            first_number = screens[0][1] if screens else self._count + 1
        previous = next((snap for _, n, snap in reversed(self._screens)
                         if n < first_number), None)
        items: list[tuple[float, int, Snapshot | str | int | list[Signal]]] = [
            (t, 1, snap) for t, _, snap in screens]
        # What each screen said outside the cells since the screen before it.
        since = previous.generation if previous is not None else input_generation
        for t, _, snap in screens:
            said = [s for s in snap.signals.all() if s.generation <= snap.generation and (
                s.generation > since if since is not None else
                s.t is not None and s.t >= begin)]
            if said:
                items.append((t, 2, said))
            since = snap.generation
        # Where screens are left out, a line says how many.
        expected = first_number
        for t, n, _ in screens:
            if n > expected:
                items.append((t, 0, n - expected))
            expected = n + 1
        items += [(t, 0, label) for t, label, _, _ in self._inputs if t >= begin]
        if not items:
            return ""
        out = ["  what happened during the wait (seconds from its start):"]
        for t, _, what in sorted(items, key=lambda x: (x[0], x[1], isinstance(x[2], str))):
            when = f"    {t - started:+8.3f} s  "
            if isinstance(what, int):
                out.append(f"{' ' * 16}… {what} earlier screen{'s' * (what > 1)} not shown")
                continue
            if isinstance(what, str):
                out.append(f"{when}sent {what}")
                continue
            if isinstance(what, list):
                out += _signal_lines(what, t, started)
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


def _signal_lines(said: list[Signal], seen: float, started: float) -> list[str]:
    """The signals a screen came with, one line each at its own time (the
    screen's, ``seen``, for one fed without a clock); alike ones in a row
    (a bell rung ten times) are one line with a count."""
    out = []
    runs = [(text, list(alike)) for text, alike in groupby(said, key=lambda s: s.describe())]
    for text, alike in runs[:FILM_SIGNALS]:
        first, count = alike[0], len(alike)
        t = first.t if first.t is not None else seen
        if len(text) > 100:
            text = text[:99] + "…"
        out.append(f"    {t - started:+8.3f} s  {text}" + (f" (x{count})" if count > 1 else ""))
    if len(runs) > FILM_SIGNALS:
        out.append(f"{' ' * 16}… {len(runs) - FILM_SIGNALS} more signals")
    return out
