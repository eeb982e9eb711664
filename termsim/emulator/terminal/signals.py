"""The terminal's side of the signals outside the cells (``signals.py``):
where a shell-integration mark sits, and the text a command printed.

Why apart from ``terminal.py``: a mark is a place in the whole session (rows
that scrolled off count), and a command's output is read back from two such
places across the kept history and the screen. That reading is this
module's one concern; the log itself (what was said, in which order) is
``signals.SignalLog``'s.
"""

from __future__ import annotations

from ..screen.screen import TermScreen
from ..signals.log import SignalLog
from ..snapshot.snapshot import row_text


class TerminalSignals:
    """Mixed into :class:`~termsim.emulator.terminal.terminal.Terminal`."""

    _screen: TermScreen
    _signals: SignalLog

    def _place(self) -> tuple[int, int]:
        """The cursor as a place in the session: its line counted from the
        session's first row (rows that scrolled off included), its column."""
        s = self._screen
        return s.scrolled + s.cursor.y, min(s.cursor.x, s.columns)

    def _line(self, line: int) -> str | None:
        """The text of a session line, if it is still kept (None: it went
        past the kept history, or is below the screen)."""
        s = self._screen
        if line >= s.scrolled:
            y = line - s.scrolled
            if y >= s.lines:
                return None
            row = s.buffer.get(y)
            text: str | None = getattr(row, "text", None)
            if text is not None:
                return text
            return row_text(row, s.columns) if row else ""
        index = len(s.history) - (s.scrolled - line)
        if index < 0:
            return None
        kept = s.history[index]
        if isinstance(kept, str):
            return kept
        return row_text(kept, max(kept) + 1) if kept else ""

    def _output_between(self, start: tuple[int, int], end: tuple[int, int] | None) -> str:
        """The text from ``start`` up to ``end`` (the cursor for None): rows
        joined with newlines, each without its trailing blanks, lines no
        longer kept left out."""
        end = self._place() if end is None else end
        (first, col), (last, stop) = start, end
        # At column 0, nothing of the last line is in (a command's output
        # ends where its mark's line starts): that line is not read. (Read,
        # it would be "" or not kept, left out at the end either way.)
        upto = last if stop else last - 1
        out: list[str] = []
        for line in range(first, upto + 1):
            text = self._line(line)
            if text is None:
                continue
            if line == last:
                text = text[:stop]
            if line == first:
                text = text[col:]
            out.append(text.rstrip())
        while out and not out[-1]:
            out.pop()
        return "\n".join(out)
