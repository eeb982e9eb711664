"""The terminal's side of answering: each query logged where it was asked,
answered at once, later or never as the policy says, and the reports a
terminal sends unasked (the in-band size, mode 2048).

Why apart from ``terminal.py``: what each query's answer *is* lives in one
table (``queries.py``); this module is the bookkeeping around it that a
live session and a replay both rely on, exactly: the byte offset of each
query in the output stream, the reply queued in order with the others of
the same read, the deferred answers handed out and matched back to the
recorded replies.
"""

from __future__ import annotations

import codecs

from ..answers.queries import KINDS, Policy, Query, Request, printable
from ..screen.modes import INBAND_RESIZE
from ..screen.screen import TermScreen

#: How many of the most recent queries ``Terminal.queries`` keeps.
QUERY_LOG = 1000


class TerminalAnswers:
    """Mixed into :class:`~termsim.emulator.terminal.terminal.Terminal`."""

    _screen: TermScreen
    _replies: list[bytes]
    _deferred: list[Query]
    _buffer: str
    _string_offset: int
    _offset_known: tuple[str, int, int, int]
    _decoder: codecs.IncrementalDecoder
    bytes_fed: int
    policy: dict[str, Policy]
    queries: list[Query]
    query_count: int

    def _inband_resize(self) -> None:
        """The program set mode 2048: the size goes out at once, among the
        replies of this read, in order."""
        report = inband_resize_report(self._screen)
        if report is not None:
            self._replies.append(report)

    def _offset_of(self, index: int) -> int:
        """Byte offset in the output stream of character ``index`` of the text
        being parsed (exact, thanks to ``surrogateescape``); -1 is a string
        that began in an earlier chunk."""
        if index < 0:
            return self._string_offset
        buffer = self._buffer
        known, fed, at, offset = self._offset_known
        if known is buffer and fed == self.bytes_fed:
            if buffer.isascii():
                # A byte a character (a flag of the string, not a scan): a
                # flood of queries or marks costs an addition each.
                return offset + index - at
            if at <= index:
                # A later query of the same read (prompt_toolkit asks for
                # the cursor's position every frame): count from the one
                # before.
                offset += len(buffer[at:index].encode("utf-8", "surrogateescape"))
                self._offset_known = (buffer, fed, index, offset)
                return offset
        undecoded = len(self._decoder.getstate()[0])
        tail = buffer[index:].encode("utf-8", "surrogateescape")
        offset = self.bytes_fed - undecoded - len(tail)
        self._offset_known = (buffer, self.bytes_fed, index, offset)
        return offset

    def _ask(self, request: Request, index: int) -> None:
        """Log the query the dispatcher recognised at character ``index``,
        answered from the table (``queries.py``) as the policy says."""
        self._answer(request, printable(request.text), index)

    def _answer(self, request: Request, text: str, index: int) -> None:
        """``_ask``, with the request's printable ``text`` made already: the
        dispatcher keeps this call for a CSI query met before."""
        kind = request.kind
        reply = KINDS[kind].answer(self._screen, request)
        offset = self._offset_of(index)
        if reply is None:
            query = Query(kind, text, offset, None, "unsupported")
        else:
            policy = self.policy.get(kind, "answer")
            data = reply.encode()
            if policy == "answer":  # the default, first
                query = Query(kind, text, offset, data)
                self._replies.append(data)
            elif policy == "ignore":
                query = Query(kind, text, offset, data, "ignored")
            elif isinstance(policy, str):
                query = Query(kind, text, offset, data)
                self._replies.append(data)
            else:
                query = Query(kind, text, offset, data, "deferred", delay=float(policy))
                self._deferred.append(query)
        queries = self.queries
        queries.append(query)
        self.query_count += 1
        if len(queries) > QUERY_LOG:
            # One out for one in: a Query freed as one is made leaves the
            # garbage collector nothing to do (trimming in batches woke it
            # every few hundred queries).
            del queries[0]

    def take_deferred(self) -> list[Query]:
        """Deferred queries not yet handed out, oldest first: send each one's
        ``reply`` ``delay`` seconds after it was read, then call
        :meth:`deferred_answered`."""
        deferred, self._deferred = self._deferred, []
        return deferred

    def deferred_answered(self, reply: bytes | None = None) -> Query | None:
        """Mark the oldest query still ``"deferred"`` (with this ``reply``, if
        given) as ``"answered"``, and return it (``None`` if there is none).

        A live session calls this when it sends a deferred reply, a replay
        when it meets a recorded reply; either way it is no longer handed
        out by :meth:`take_deferred`. A recorded reply that answered a query
        at once matches no deferred one, and changes nothing.
        """
        query = next((q for q in self.queries if q.status == "deferred"
                      and (reply is None or q.reply == reply)), None)
        if query is not None:
            query.status = "answered"
            self._deferred = [q for q in self._deferred if q is not query]
        return query

    def unanswered(self) -> list[Query]:
        """Queries the program is still waiting for, oldest first."""
        return [q for q in self.queries if q.unanswered]


def inband_resize_report(screen: TermScreen) -> bytes | None:
    """``CSI 48 ; rows ; cols ; height_px ; width_px t`` where the program
    asked for in-band resize reports and the profile's terminal sends them,
    else None. kitty sends one when the mode is set and after each resize
    (kitty/screen.c ``set_mode_from_const``, INBAND_RESIZE_NOTIFICATION;
    kitty/window.py ``notify_child_of_resize``); the pixel sizes are the
    screen's cells times ``cell_size``, as ``CSI 14 t`` says."""
    if INBAND_RESIZE << 5 not in screen.mode or not screen.offers(INBAND_RESIZE):
        return None
    width, height = screen.cell_size
    rows, cols = screen.lines, screen.columns
    return f"\x1b[48;{rows};{cols};{rows * height};{cols * width}t".encode()
