"""Near misses: what a failed wait almost saw.

A wait for ``state: sleping`` that times out should say that the bottom row
shows ``state: sleeping`` (one letter off), that the text it wanted is on
the screen but outside the region it looked in, or that it *was* there for
20 ms while the wait was pending and vanished. These functions compute that
for error messages; they never decide whether a wait matches.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def closest(needle: str, lines: list[str]) -> tuple[int, int, str] | None:
    """``(distance, row, text)``: the substring of one of ``lines`` nearest to
    ``needle`` in edit distance (Sellers' approximate matching), or None.

    Ties go to the earliest row. Only worth showing when the distance is
    small against the needle's length; the caller decides.
    """
    best: tuple[int, int, str] | None = None
    n = len(needle)
    if not n:
        return None
    for row, line in enumerate(lines):
        if not line.strip():
            continue
        found = _best_in(needle, line)
        if found is not None and (best is None or found[0] < best[0]):
            best = (found[0], row, found[1])
    return best


def _best_in(needle: str, text: str) -> tuple[int, str] | None:
    n = len(needle)
    # prev[j]: distance of needle[:i] to the best substring of text ending at j;
    # start[j]: where that substring begins.
    prev = [0] * (len(text) + 1)
    start = list(range(len(text) + 1))
    for i in range(1, n + 1):
        cur = [i] + [0] * len(text)
        cur_start = [0] * (len(text) + 1)
        for j in range(1, len(text) + 1):
            sub = prev[j - 1] + (needle[i - 1] != text[j - 1])
            dele = prev[j] + 1
            ins = cur[j - 1] + 1
            if sub <= dele and sub <= ins:
                cur[j], cur_start[j] = sub, start[j - 1]
            elif dele <= ins:
                cur[j], cur_start[j] = dele, start[j]
            else:
                cur[j], cur_start[j] = ins, cur_start[j - 1]
        prev, start = cur, cur_start
    if not text:
        return None
    j = min(range(1, len(text) + 1), key=lambda k: (prev[k], -k))
    return prev[j], text[start[j]:j]


def worth_showing(distance: int, needle: str) -> bool:
    """A near miss worth a line: at most a third of the needle differs."""
    return 0 < distance <= max(1, len(needle) // 3)


@dataclass
class Sighting:
    """When something held during a wait: intervals in seconds from its start."""

    spans: list[tuple[float, float | None]] = field(default_factory=list)

    def saw(self, t: float, held: bool) -> None:
        open_ = bool(self.spans) and self.spans[-1][1] is None
        if held and not open_:
            self.spans.append((t, None))
        elif not held and open_:
            self.spans[-1] = (self.spans[-1][0], t)

    def describe(self) -> str:
        """``"shown at +0.410 s for 0.020 s"`` (the last sighting), or ``""``."""
        if not self.spans:
            return ""
        begin, end = self.spans[-1]
        when = f"shown at {begin:+.3f} s " + (
            "and still there" if end is None else f"for {end - begin:.3f} s")
        more = len(self.spans) - 1
        return when + (f" ({more} earlier time{'s' if more > 1 else ''})" if more else "")
