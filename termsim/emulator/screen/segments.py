"""Kept segments: a long segment drawn again in place costs one lookup.

Why a module of its own: it is a fast path of ``draw`` (a status bar or a
prompt line redrawn at the same column in the same pen), and every fast path
sits behind one primitive that a test can switch off: here
``KeptSegments.cells``. With ``enabled`` false it makes the cells afresh
each time, as ``draw`` does for shorter segments;
``tests/test_fast_paths.py`` holds the screen equal either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pyte.screens import Char

#: Segments this long or longer have their cells kept once drawn twice: a
#: status bar or prompt line redrawn in place is most of a row; a
#: full-screen program's shorter segments are seldom drawn again.
KEPT_SEGMENT = 24
#: How many segments are remembered (emptied when full).
_MAX_SEGMENTS = 256


class KeptSegments:
    """Long segments drawn before, by (column, text): the glyph table they
    were drawn with, and their cells once drawn twice."""

    __slots__ = ("_kept", "enabled")

    def __init__(self) -> None:
        self._kept: dict[tuple[int, str],
                         tuple[Mapping[str, Char], dict[int, Char] | None]] = {}
        #: False: nothing is kept (tests compare the screen both ways).
        self.enabled = True

    def cells(self, x: int, segment: str,
              glyphs: Mapping[str, Char]) -> dict[int, Char] | Iterable[tuple[int, Char]]:
        """The cells ``segment`` makes from column ``x`` with ``glyphs`` (the
        glyph table of the pen), for ``dict.update``: kept ones if the same
        text was drawn at the same column with the same table before (kept
        once drawn twice, so that text never repeated costs a lookup, not a
        copy), made now otherwise. Held equal to cells made afresh
        (``enabled`` off) by ``tests/test_fast_paths.py``."""
        key = (x, segment)
        kept = self._kept.get(key)
        if kept is not None and kept[0] is glyphs:
            cells = kept[1]
            if cells is None:
                cells = dict(zip(range(x, x + len(segment)),
                                 map(glyphs.__getitem__, segment), strict=False))
                self._kept[key] = (glyphs, cells)
            return cells
        if self.enabled:
            if len(self._kept) >= _MAX_SEGMENTS:
                self._kept.clear()
            self._kept[key] = (glyphs, None)
        return zip(range(x, x + len(segment)), map(glyphs.__getitem__, segment), strict=False)
