"""What the dispatcher keeps: fused runs, kept CSI queries, bounded caches.

Why a module of its own: these are the dispatcher's fast paths, and each
sits behind one primitive with a switch that only tests turn off, so that
``tests/test_fast_paths.py`` can hold the screen, the replies and their
offsets equal to the plain path:

* fused runs: the tokenizer learns a run of CSI sequences, CR and LF once
  and asks ``fuse`` for fewer calls doing the same (off:
  ``fuse_runs = False``: the run's parts are run one by one, as found);
* kept CSI queries: a query met before is a ready call in ``queries``,
  which the tokenizer calls at the query's own index without splitting it
  into fields again (``keep_query``; off: ``keep_queries = False``: every
  query goes through ``csi()`` each time).

What is kept is bounded (``keep``), whatever a program prints.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TypeVar, cast

from ..parsing.handlers import Part
from ..screen.screen import FlagSwitch, TermScreen
from ..screen.sgr import SgrAction
from .dispatch_modes import FrameEdge

#: How many CSI sequences keep a ready action (``_Dispatch.sequences``).
_MAX_SEQUENCES = 4096
#: What ``fuse`` knows of a kept action: a flag switch, a CR, an action
#: that neither reads nor changes the pen, any other; or an SGR, with two
#: flags: it begins with SGR 0, it holds codes counted as not understood.
_SWITCH, _CR, _PEN_FREE, _OTHER, _EDGE = 1, 2, 3, 4, 5
_SGR, _WIPES, _COUNTED = 8, 16, 32


_K = TypeVar("_K")
_V = TypeVar("_V")


#: The longest sequence (as text) kept with its action: a CSI sequence has
#: no length limit of its own (``CSI 1;1;1;...m``), and a cache of 4,096 of
#: them, each as long as a read, would hold what the reads held.
MAX_KEPT_KEY = 256


def keep(cache: dict[_K, _V], key: _K, value: _V, limit: int = _MAX_SEQUENCES) -> _V:
    """Store ``value`` in a cache of things met before, emptied when full
    (what is met again is soon kept again), unless its key is a text longer
    than ``MAX_KEPT_KEY``: memory stays bounded whatever a program prints."""
    if isinstance(key, str) and len(key) > MAX_KEPT_KEY:
        return value
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


#: Screen operations that neither read nor change the pen (LF does: it fills
#: a new row with the pen's background; so do erasures).
_PEN_FREE_OPS = frozenset({
    TermScreen.carriage_return, TermScreen.cursor_up, TermScreen.cursor_down,
    TermScreen.cursor_forward, TermScreen.cursor_back, TermScreen.cursor_to_column,
    TermScreen.cursor_to_line, TermScreen.cursor_position, TermScreen.cursor_down1,
    TermScreen.cursor_up1,
})


class RunMemo:
    """The dispatcher's kept actions, queries and fused runs (a mixin of
    ``dispatch._Dispatch``, which fills the tables)."""

    #: Switches for tests: off, the plain path (see the module's docstring).
    fuse_runs: bool = True
    keep_queries: bool = True
    #: ``fuse`` only saves calls, never changes what a run does (what
    #: ``tests/test_fast_paths.py`` holds): the parser may run a long run met
    #: for the first time unfused, as found (``tokenizer.LEARN_LATER``).
    fusing_optional = True

    controls: dict[str, Callable[[], None]]
    queries: dict[str, Callable[[int], None]]
    _switches: dict[tuple[object, object], FlagSwitch | FrameEdge]
    _kinds: dict[Callable[[], None] | None, int]

    def keep_query(self, text: str, ask: Callable[[int], None]) -> None:
        """Keep the call that logs and answers the CSI query ``text`` (as
        7-bit) at an index: the tokenizer calls it the next times the same
        bytes come (``Handler.queries``), at the query's own index, so the
        reply and its offset are those ``csi()`` would give."""
        if self.keep_queries:
            keep(self.queries, text, ask)

    def fuse(self, parts: list[Part]) -> list[Part]:
        """A run's parts (see ``Parser``), with fewer calls doing the same:

        * flag switches commute with SGR, so those of a run up to its first
          other part (a cursor move, a query) become one switch, at the
          first one's place;
        * an SGR that a later one beginning with SGR 0 overrides, with only
          parts that never read the pen in between (flag switches, cursor
          moves, CR), is left out, unless it holds codes counted in
          ``Terminal.unknown``;
        * CR right after CR is left out.

        A failure in a fused part would skip to the end of the last one it
        holds; none of these can fail. Hot path: prompt_toolkit ends every
        frame with ``ESC[?7h ESC[0m ESC[?12l ESC[?25h`` and begins the next
        with ``ESC[?25l ESC[?7l ESC[0m``, then often ``CR CR LF``. Held
        equal to the parts run one by one (``fuse_runs`` off) by
        ``tests/test_fast_paths.py`` and ``tests/test_sequence_runs.py``.
        """
        if not self.fuse_runs:
            return parts
        out: list[Part | None] = []
        group = -1  # where in ``out`` the switch being fused stands
        sgr = -1  # where the last SGR stands, while nothing has read the pen since
        dropped = False
        kinds = self._kinds
        for part in parts:
            action = part[0]
            kind = kinds.get(action)
            if kind is None:
                kind = self._kind(action)
            if kind == _SWITCH:
                if group < 0:
                    group = len(out)
                    out.append(part)
                else:
                    first, at, _ = out[group]  # type: ignore[misc]
                    fused = self._then(cast(FlagSwitch | FrameEdge, first),
                                       cast(FlagSwitch, action))
                    out[group] = (fused, at, part[2])
                continue
            if kind == _EDGE:
                edge: FrameEdge = action  # type: ignore[assignment]
                if edge.closes and not edge.opens and group >= 0 \
                        and type(out[group][0]) is FlagSwitch:  # type: ignore[index]
                    # The switches before it, then it, then the news.
                    first, at, _ = out[group]  # type: ignore[misc]
                    out[group] = (self._edge_after(cast(FlagSwitch, first), edge), at, part[2])
                    group = -1
                    continue
                group = -1
                if edge.opens and not edge.closes:
                    group = len(out)  # the news, then it and the switches after it
                out.append(part)
                continue
            if kind & _SGR:
                if sgr >= 0 and kind & _WIPES:
                    out[sgr] = None
                    dropped = True
                sgr = -1 if kind & _COUNTED else len(out)
            else:
                group = -1
                if kind == _CR:
                    last = out[-1] if out else None
                    if last is not None and last[0] is action:
                        continue
                elif kind != _PEN_FREE:
                    sgr = -1
            out.append(part)
        return [part for part in out if part is not None] if dropped else out  # type: ignore[return-value]

    def _then(self, first: FlagSwitch | FrameEdge, then: FlagSwitch) -> FlagSwitch | FrameEdge:
        """``first.then(then)``, memoised: runs share their switches
        (``ESC[?7h`` then ``ESC[?12l``...), so a new run's fused switches
        are mostly made already. Bounded as a whole: switches fused from
        fused ones would otherwise pile up with every new order. ``first``
        may be a frame edge that opens a frame: the terminal is told before
        it, so the switches after it may join it (prompt_toolkit begins each
        frame with ``ESC[?25l ESC[?7l``)."""
        fused = self._switches.get((first, then))
        if fused is None:
            made: FlagSwitch | FrameEdge
            if type(first) is FrameEdge:
                inner = self._then(cast(FlagSwitch, first.switch), then)
                made = first.with_switch(inner)
            else:
                made = cast(FlagSwitch, first).then(then)
            fused = keep(self._switches, (first, then), made)
        return fused

    def _edge_after(self, switches: FlagSwitch, edge: FrameEdge) -> FrameEdge:
        """``switches``, then the frame edge ``edge`` that closes a frame, as
        one edge: the terminal is told after both (prompt_toolkit ends each
        frame with ``ESC[?7h ESC[0m ESC[?12l ESC[?25h``). Memoised as ``_then``."""
        fused = self._switches.get((switches, edge))
        if fused is None:
            inner = self._then(switches, cast(FlagSwitch, edge.switch))
            fused = keep(self._switches, (switches, edge), edge.with_switch(inner))
        return cast(FrameEdge, fused)

    def _kind(self, action: Callable[[], None] | None) -> int:
        """What ``fuse`` needs to know of a kept action, memoised: the
        actions are those of ``sequences`` and ``controls``, met again and
        again."""
        if type(action) is FlagSwitch:
            kind = _SWITCH
        elif type(action) is FrameEdge:
            # Its own kind: switches join it only on the side where the
            # terminal is not told of it (``fuse``); an SGR may pass it.
            kind = _EDGE if type(action.switch) is FlagSwitch else _PEN_FREE
        elif isinstance(action, SgrAction):
            try:
                kind = (_SGR | (_WIPES if action.wipes() else 0)
                        | (_COUNTED if action.counted() else 0))
            except ValueError:
                # A parameter too long to read (over 4,300 digits): running
                # it fails too, and the parser skips it alone; not fused.
                kind = _OTHER
        elif action is self.controls["\r"]:
            kind = _CR
        else:
            func = action.func if type(action) is partial else action
            kind = _PEN_FREE if getattr(func, "__func__", None) in _PEN_FREE_OPS else _OTHER
        return keep(self._kinds, action, kind)
