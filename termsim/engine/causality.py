"""Which screens count for a wait since an input: the books behind causality.

The engine's theory of operation (:mod:`termsim.engine.engine`) promises
that ``since=mark`` counts only screens drawn from output the program wrote
after it read that input. Keeping that promise takes books of its own: per
input, the screen generation after which screens count, moved when the
source reports a read (and moved back one screen once the program has
provably answered). They live here, apart from the waking and settling
they feed, so that the rule can be read and checked in one short place;
the engine asks :meth:`Inputs.after` and does nothing else with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..emulator.terminal.terminal import HistoryMark
from ..errors import ArgumentError
from .source import Mark


@dataclass
class _MarkState:
    mark: Mark
    tracked: bool
    #: Screens with a generation above this count (None: not read yet).
    after: int | None
    #: Bytes of output fed when the input was written (for stall checks).
    fed_at_write: int = 0
    #: Where its transcript starts (the screen when it was written).
    history: HistoryMark | None = None
    #: Signals (a bell, a notification) of a later generation count (None:
    #: not read yet): see :meth:`Inputs.signals_after`.
    signals_after: int | None = None


class Inputs:
    """The inputs written to one session, and how far the program has read them."""

    def __init__(self) -> None:
        self._marks: dict[int, _MarkState] = {}
        #: Tracked inputs not read yet, and read but not answered yet (so an
        #: InputRead event costs what is pending, not the session's length).
        self._unread: list[_MarkState] = []
        self._unanswered: list[_MarkState] = []
        #: When the last input was written, and the bytes of output fed then.
        self.last_at = 0.0
        self.fed_at_last = 0

    def sent(self, mark: Mark, *, tracked: bool, fed: int, history: HistoryMark) -> None:
        """An input was written (or the screen resized); ``fed``: bytes of
        output fed so far, ``history``: where its transcript starts.
        ``tracked``: screens count from when the program reads it, else from now."""
        after = None if tracked else mark.generation
        state = _MarkState(mark, tracked, after, fed, history, after)
        self._marks[mark.index] = state
        if tracked:
            self._unread.append(state)
        self.last_at = mark.at
        self.fed_at_last = state.fed_at_write

    def read(self, index: int, answered: bool, generation: int) -> None:
        """The program read every input up to ``index`` while the screen was
        at ``generation``; ``answered``: it has written something since."""
        read = [s for s in self._unread if s.mark.index <= index]
        self._unread = [s for s in self._unread if s.mark.index > index]
        for state in read:
            state.after = generation
            # Read and answered before the source could say so: the output
            # fed since the input was written may all be the answer.
            state.signals_after = state.mark.generation if answered else generation
        self._unanswered += read
        if answered:
            for state in self._unanswered:
                if state.mark.index <= index and state.after is not None:
                    # The screen right here holds output written after the read.
                    state.after = min(state.after, generation - 1)
            self._unanswered = [s for s in self._unanswered if s.mark.index > index]

    def after(self, mark: Mark | None) -> int | None:
        """Screens above this generation count for a wait since ``mark``
        (None: none counts yet, the program has not read it)."""
        if mark is None:
            return -1
        state = self._marks.get(mark.index)
        if state is None or state.mark != mark:
            return mark.generation  # a mark of another session, or made by hand
        return state.after

    def signals_after(self, mark: Mark | None) -> int | None:
        """Signals of a later screen generation than this count for a wait
        since ``mark`` (None: none yet, the input is not read).

        As :meth:`after` for screens, with one difference. When the source
        learns of the read only after the program has also written (its
        read and its answer came in one batch of the kernel's reports), the
        screens rule counts the screen at that moment, which holds the whole
        answer; but a bell or a notification in an earlier read of that
        answer is an event, not a state a later screen still shows, and
        would be lost. Then every signal sent after the input was written
        counts: only output the program had in flight when the test wrote
        (a test that did not wait for the previous answer) could be early.
        """
        if mark is None:
            return -1
        state = self._marks.get(mark.index)
        if state is None or state.mark != mark:
            return mark.generation
        return state.signals_after

    def history(self, since: Mark | None) -> HistoryMark | None:
        """Where the transcript since ``since`` starts (None: at the start)."""
        state = self._marks.get(since.index) if since is not None else None
        if since is not None and (state is None or state.mark != since):
            raise ArgumentError(f"{since} is not an input of this session")
        return state.history if state is not None else None

    def unread(self) -> list[Mark]:
        """Inputs written in raw mode that the program has not read yet."""
        return [s.mark for s in self._unread]
