"""DECSET, DECRST, SM and RM: which modes the screen keeps, and the rest counted.

Why a module of its own: a mode number comes from the program's bytes, and
the screen's ``mode`` is read whole at every feed (``Terminal._signature``),
so only modes that mean something are kept in it (those termsim understands,
and those the profile's terminal can set); every other is counted in
``Terminal.unknown`` and dropped. The dispatcher (``dispatch.py``) mixes
these rules in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

from ..answers.queries import KNOWN_ANSI_MODES, KNOWN_PRIVATE_MODES
from ..screen.screen import TermScreen

#: Private modes that change nothing termsim shows or tracks (input-side
#: options, smooth scrolling, autorepeat, bell handling): set or reset
#: without a count in ``Terminal.unknown``. Any other mode is counted.
_INERT_PRIVATE_MODES = frozenset({8, 1007, 1034, 1035, 1036, 1037, 1039, 1042, 1043})

_UNDERSTOOD_PRIVATE_MODES = KNOWN_PRIVATE_MODES | _INERT_PRIVATE_MODES

#: Private modes that are only a flag in the screen's ``mode`` (DECTCEM also
#: shows or hides the cursor): no buffer switch, no homing, no resize.
FLAG_PRIVATE_MODES = _UNDERSTOOD_PRIVATE_MODES - {3, 5, 6, 47, 69, 1047, 1048, 1049}


#: DEC private modes whose switching opens (``l`` of 25, ``h`` of 2026) or
#: closes (``h`` of 25, ``l`` of 2026) a frame: hiding the cursor and
#: beginning a synchronized update open one.
FRAME_MODES = {"25": "l", "2026": "h"}


def frame_switch(private: str, params: str, final: str) -> tuple[bool, bool]:
    """Whether a CSI sequence opens a frame (hides the cursor or begins a
    synchronized update) and whether it closes one (shows the cursor or
    ends the update); a combined one (``?25;2026l``) may do both."""
    if private != "?" or final not in "hl" or len(final) != 1:
        return False, False
    opens = closes = False
    for mode in params.split(";"):
        switch = FRAME_MODES.get(mode)
        if switch is not None:
            if switch == final:
                opens = True
            else:
                closes = True
    return opens, closes


class _EdgeOwner(Protocol):
    on_frame_edge: Callable[[bool], None] | None

    def _frame_edge(self, opens: bool) -> None: ...


class FrameEdge:
    """A mode switch that opens or closes a frame (``frame_switch``), as a
    ready action: the terminal is told just before it opens one and just
    after it closes one, while someone listens (the engine, with a wait
    pending), so that the screen there is seen. A run's other switches are
    never fused across it (``RunMemo.fuse``); an SGR may be, for it never
    reads the pen. Hot path: prompt_toolkit hides and shows the cursor
    around every frame."""

    __slots__ = ("_term", "closes", "opens", "switch")

    def __init__(self, term: _EdgeOwner, switch: Callable[[], None],
                 opens: bool, closes: bool) -> None:
        self._term = term
        #: What it does to the modes (with the switches fused into it).
        self.switch = switch
        self.opens = opens
        self.closes = closes

    def __call__(self) -> None:
        term = self._term
        if term.on_frame_edge is None:
            self.switch()
            return
        if self.opens:
            term._frame_edge(True)
        self.switch()
        if self.closes:
            term._frame_edge(False)

    def with_switch(self, switch: Callable[[], None]) -> FrameEdge:
        """The same edge doing ``switch`` (its own and others fused)."""
        return FrameEdge(self._term, switch, self.opens, self.closes)


class _Counts(Protocol):
    unknown: Counter[str]


class ModeRules:
    """Mixed into ``dispatch._Dispatch``."""

    term: _Counts
    s: TermScreen

    def _set_ansi_modes(self, a: list[int]) -> None:
        self.s.set_mode(*self._count_modes(a, "", "h"))

    def _reset_ansi_modes(self, a: list[int]) -> None:
        self._count_modes(a, "", "l")
        self.s.reset_mode(*a)

    def _count_modes(self, modes: list[int], private: str, final: str) -> Sequence[int]:
        """Count the modes of ``modes`` the screen does not keep; return
        those it keeps (``_kept_modes``)."""
        kept = self._kept_modes(modes, private)
        if len(kept) < len(modes):
            keeps = set(kept)
            for mode in modes:
                if mode not in keeps:
                    self.term.unknown[f"CSI {private}{mode}{final}"] += 1
        return kept

    def _kept_modes(self, modes: Sequence[int], private: str) -> Sequence[int]:
        """The modes of ``modes`` the screen keeps when set or saved: those
        termsim understands, and those the profile's terminal can set
        (DECRQM reports them). Any other is counted and dropped, so that the
        modes kept (read whole with every feed) are a known few, not the
        65,536 numbers a program may set."""
        known = _UNDERSTOOD_PRIVATE_MODES if private else KNOWN_ANSI_MODES
        if known.issuperset(modes):
            return modes
        profile = self.s.profile
        return [mode for mode in modes
                if mode in known or (private and profile.mode_state(mode) in (1, 2))]

    def _private_modes(self, modes: list[int], on: bool) -> None:
        """DECSET/DECRST (``CSI ? Pm h``/``l``)."""
        if on:
            kept = self._count_modes(modes, "?", "h")
            if kept:  # (none: setting nothing does nothing)
                self.s.set_mode(*kept, private=True)
        else:
            self._count_modes(modes, "?", "l")
            self.s.reset_mode(*modes, private=True)
