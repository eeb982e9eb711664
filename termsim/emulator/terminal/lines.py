"""The kept text rows fast path: a read made only of lines.

Why a module of its own: logs, ``seq`` floods and coloured test runners are
reads of printable lines (with SGR sequences at most), and drawing them cell
by cell only to scroll most of them off is the slowest way. ``_lines``
decides whether a read may take the fast path (the text, the parser's and
the screen's state), and hands it to the one primitive that writes such
rows, ``TermScreen.feed_lines`` (``screen/lines.py``); any other read first
makes the cells of the rows left as text (``settle``). ``fast_lines`` off,
every read goes through the parser: ``tests/test_fast_paths.py`` and
``tests/test_fast_lines.py`` hold the two equal.
"""

from __future__ import annotations

import re
from collections import Counter

from pyte.screens import Char

from ..parsing.escapes import COLOUR_LINES, COLOUR_TEXT, CUT_SGR, SGR
from ..parsing.tokenizer import Parser
from ..screen.screen import BLANK, TermScreen
from ..screen.styled import line_end_pen
from .dispatch import Dispatch
from .dispatch_memo import keep

#: Output that is only printable ASCII lines ended by CR LF (logs, ``seq``,
#: test runners without colour), and how many lines make the fast path
#: worth its checks.
_PLAIN_LINES = re.compile(r"\n?[ -~]*(?:\r\n[ -~]*)*\r?")  # a read may cut a CR LF
FAST_LINES = 2

#: SGR parameters whose dropped codes ``_colour_lines`` remembers.
_MAX_SGR_IGNORED = 4096


class LinesFastPath:
    """The kept text rows fast path, on the terminal's side (a mixin of
    ``Terminal``, which owns the attributes below)."""

    #: Off (tests only): every read goes through the parser, cell by cell.
    fast_lines: bool = True

    _parser: Parser
    _screen: TermScreen
    _dispatch: Dispatch
    unknown: Counter[str]
    _buffer: str
    _sgr_ignored: dict[str, tuple[int, ...]]

    def _lines(self, text: str) -> str:
        """A read of lines (printable ASCII, CR LF, and SGR sequences) the
        fast way (``_feed_lines``); return what is left for the parser. Any
        other read first makes the cells of the rows an earlier one left
        as text (``TermScreen.settle``): it may read or change any row.

        The one place a read goes to the screen other than through the
        tokenizer (``TermScreen.feed_lines``), because drawing rows cell by
        cell only to scroll them off is most of the cost of a log; held
        equal to the plain path (``fast_lines`` off) by
        ``tests/test_fast_paths.py`` and ``tests/test_fast_lines.py``.
        """
        parser, screen = self._parser, self._screen
        if parser.open_string is None:
            if not parser.pending and _PLAIN_LINES.fullmatch(text) is not None:
                if (len(text) >= FAST_LINES * 8 and text.count("\n") >= FAST_LINES
                        and screen.plain_lines_ok()):
                    return self._feed_lines(text)
                return text
            rest = self._colour_lines(text)
            if rest is not None:
                return rest
        screen.settle()
        return text

    def _colour_lines(self, text: str) -> str | None:
        """``_lines`` for a read with SGR sequences; ``None`` if it holds
        anything else. SGR codes pyte drops are counted in ``unknown`` at
        each use, as the parser counts them (``_feed_lines``)."""
        parser, screen = self._parser, self._screen
        end = COLOUR_TEXT.match(text).end()  # type: ignore[union-attr]
        if end != len(text) and CUT_SGR.fullmatch(text, end) is None:
            return None  # (stops at the first other sequence: cheap for the rest)
        pending = parser.pending
        params = SGR.findall(text)
        if pending:  # the last read cut an SGR sequence: complete it first
            whole = SGR.match(pending + text)
            if whole is None or whole.end() <= len(pending):
                return None
            cut = whole.end() - len(pending)
            head, text = text[:cut], text[cut:]
            params.append(whole.group(1))
        elif not params:
            return None
        visible = SGR.sub("", text)
        if (COLOUR_LINES.fullmatch(visible) is None
                # An SGR sequence between CR and LF (the LF would end up in a line):
                or visible.count("\r\n") != text.count("\r\n")
                or (visible[:1] == "\n" and text[:1] != "\n")):
            return None
        known = self._sgr_ignored
        unknown = False  # some hold codes counted in ``unknown`` each time
        for p in set(params):
            ignored = known.get(p)
            if ignored is None:
                ignored = keep(known, p, self._dispatch.sgr.ignored(p), _MAX_SGR_IGNORED)
            if ignored:
                unknown = True
        if pending:
            self._buffer = pending + head + text  # (no query: nothing asks the offsets)
            parser.feed(head)  # the plain path: the tokenizer, for the cut sequence
        if (len(text) >= FAST_LINES * 8 and text.count("\n") >= FAST_LINES
                and screen.colour_lines_ok()):
            return self._feed_lines(text, visible, unknown)
        return text

    def _feed_lines(self, text: str, visible: str | None = None, unknown: bool = False) -> str:
        """Lines the fast way: lines go through the parser until the cursor
        stands at the start of an empty bottom row, then the rest at once
        (``TermScreen.feed_lines``: rows that scroll off within this read
        are never drawn cell by cell). ``visible``: ``text`` without its SGR
        sequences, if it has any; then the rows are kept as coloured text
        (``styled.py``) up to a line whose end leaves a coloured pen (its
        LF would fill the new row with that background). ``unknown``: some
        of them hold codes counted in ``unknown`` at each use, here (the
        parser counts those it sees). Returns the rest,
        from the last, unfinished line, for the usual path."""
        screen, feed = self._screen, self._parser.feed
        if text[0] == "\n":  # the LF of a CR LF the last read cut
            feed("\n")
            text = text[1:]
            visible = visible and visible[1:]
        *lines, tail = text.split("\r\n")
        bottom = screen.lines - 1
        i = 0
        while i < len(lines) and (screen.cursor.x or screen.cursor.y != bottom
                                  or screen.buffer.get(bottom)):
            feed(lines[i] + "\r\n")
            i += 1
        if i == len(lines):
            return tail
        if visible is None:
            screen.feed_lines(lines[i:] if i else lines)
            return tail
        shown = visible.split("\r\n")[i:len(lines)]
        sources = lines[i:]
        step = self._dispatch.sgr.after
        pen = screen.cursor.attrs
        pens: list[Char] = []
        for source in sources:
            end = line_end_pen(source, pen, BLANK, step) if "\x1b" in source else pen
            if end.fg != "default" or end.bg != "default":
                break
            pens.append(pen)
            pen = end
        n = len(pens)
        if n:
            screen.feed_lines(shown[:n], (sources[:n], pens, pen, step))
            if unknown:
                count, ignored = self.unknown, self._sgr_ignored
                for params in SGR.findall("".join(sources[:n])):
                    for code in ignored.get(params) or self._dispatch.sgr.ignored(params):
                        count[f"SGR {code}"] += 1
        if n < len(sources):
            return "\r\n".join([*sources[n:], tail])
        return tail
