"""When did the program read its input? Bookkeeping from the kernel's answers.

Theory of operation
-------------------

``since=mark`` must count only screens drawn from output the program wrote
*after it read* that input: output written before the read (the echo of a
paste, a toolbar redraw in flight) may reach termsim after the write and
must not count. The kernel knows what the program has read; this module
turns what it says into decisions, and does no I/O itself (``_readprobe``
asks the kernel), so every interleaving can be tested with plain numbers.

Everything termsim writes to the PTY (inputs, and the terminal's query
replies) goes into one queue, which the program reads in order. So the
program has read input *k* once it has consumed every byte up to the end of
*k*. The kernel tells, on the program's side of the PTY:

* ``queued``: bytes in the input queue not read yet (``FIONREAD`` on the
  slave). Bytes termsim wrote may still be in flight to that queue (the
  kernel moves them in a worker, typically within a millisecond), so
  ``consumed >= arrived - queued`` is only a lower bound, and ``arrived`` is
  only known for sure when ``poll()`` on the slave found nothing to read: it
  first flushes the bytes in flight, then everything written has arrived and
  been read (``flushed_empty``). The tracker keeps lower bounds only, so it
  may decide late, never early.
* In canonical (cooked) mode ``queued`` counts complete lines only; a line
  being typed is invisible. Then only the bytes up to the last line
  terminator written are known to be read when nothing is queued.
* inotify on the slave reports, in order, each read (``ACCESS``) and each
  write (``MODIFY``) the program made. A write after the read that consumed
  an input is an *answer* to it. Which read consumed it is not known, so
  only a write after the *last* read seen by the time the consumption was
  noticed counts: late, never early. The events of a probe that could not
  yet tell the input was consumed stay for the next (from their last read
  on): the program may have read it and answered between the moment
  ``queued`` was asked and the moment the events were read, and the next
  probe, which sees the consumption, must still see that answer. Such a
  probe asks for another at once (``recheck``): the program may have
  nothing more to say, and no event would come to ask.
* A reply to a query is one thing the program reads that the test did not
  send, and it reads it after answering: an answer that ends in a query
  (vim's redraw after escape ends in ``CSI ? 4 m``) is read and fed, the
  reply goes out, the program reads it and is silent. Should the input's
  consumption be seen only after that, the last read is the reply's, with
  no write after it, and the input stays unanswered for good. So the PTY
  looks before it writes a reply while a tracked input is not known read
  (``input_unread``): the answer holding the query was written, so the
  input read, before that look, which therefore sees the consumption
  before the reply can be read. (A look between the probe's events and its
  drain did not do: the program can read and answer after any look and
  before the drain, which takes the answer and its query.)

A probe happens in this order: ``queued`` is asked first, then the inotify
events are read, then the PTY's output is drained. Everything the program
wrote before the read was therefore written before the probe, and the drain
(which flushes output in flight) puts it before the :class:`InputRead`
event in the stream; output after the event was written after the read.
One case is told apart (``early``): when the probe's own events show no
write before their last read, everything the drain finds was written after
the read (a program that reads a key and draws three frames in one write),
and the read goes *before* it, so each of those frames counts. An earlier
drain may have taken some of that answer already: it read its events
before the program's read, then drained after the program had written
(bash's visible bell: ``queued`` asked, bash reads the key and echoes it,
the drain takes the echo, and only the next probe sees the read and the
write). Nothing is left to drain then, and the screen already holds the
answer; so when the events show a write after the read, the read is also
placed *answered* after the drain (:meth:`ReadTracker.around_drain`),
which counts the screen as it stands. So that the read watch never comes
second, the PTY reader probes first whenever an input is unread and output
comes.

Input typed too early
---------------------

Input typed while the tty is cooked is not tracked: the line discipline
keeps it, and a program that reads lines (``input()``, ``read``, a y/n
confirm) reads it whenever it gets there, which is correct typing ahead.
It is lost only when the program discards its unread input first: a
full-screen program starting up switches to raw mode with ``TCSAFLUSH``
(``tty.setraw``), getpass flushes before it turns echo off, a program may
``tcflush`` typeahead away. The kernel tells each such flush (packet mode
on the master: ``TIOCPKT_FLUSHREAD``, read before the output after it), and
:class:`TypedAhead` decides from two more answers whether what the test
typed went with it:

* whether the program read anything since (the count of inotify read
  events): any read may have taken the input, so only inputs typed since
  the program's last read can be lost (``reads`` is counted before the
  write, so a read racing the write counts against the loss: late, never
  wrong);
* what the queue holds now, after the flush (``FIONREAD`` once ``poll()``
  flushed the bytes in flight): input written just after the flush, or
  still in flight to the line discipline when it was flushed, is still
  there. Only an empty queue proves the loss; in canonical mode, where a
  line being typed is invisible, only for input that ends a line.

So a warning is not given for input that the program reads (short of one
window: a read that has taken the bytes but not yet returned when termsim
asks, its event coming at the read's end; it is open only for input typed
just as the program flushed, still in flight, and so kept, then read); it
may be missed when the program read something else meanwhile, or when the
test typed more after the flush. Without inotify nothing is told.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: What the program reads as the end of a line in canonical mode (with ICRNL,
#: the usual setting, CR becomes NL): CR, NL, and EOF (Ctrl-D).
_LINE_ENDS = frozenset(b"\r\n\x04")

ACCESS = "read"
MODIFY = "write"


@dataclass
class _Written:
    index: int | None  # the mark's index for a tracked input, None otherwise
    end: int  # cumulative bytes written up to the end of this write


class ReadTracker:
    """Which tracked inputs the program has read, and answered, so far."""

    def __init__(self) -> None:
        self.written = 0
        self._arrived = 0  # lower bound of bytes that reached the input queue
        self._consumed = 0  # lower bound of bytes the program has read
        self._line_end = 0  # end of the last line terminator written
        self._writes: list[_Written] = []  # tracked writes not yet known to be read
        self._unanswered: int | None = None  # highest index read but not yet answered
        #: Events from the last read of a probe that left a tracked input
        #: unread: the read may be that input's, and what follows its answer.
        self._carried: list[str] = []
        #: The last probe saw a read it could not yet place: probe again now.
        self.recheck = False
        #: The input the last probe found read whose :class:`InputRead` goes
        #: *before* the output that probe drains (None: after it, as usual):
        #: see :meth:`observe`.
        self.early: int | None = None

    def around_drain(
        self, decisions: list[tuple[int, bool]],
    ) -> tuple[list[tuple[int, bool]], list[tuple[int, bool]]]:
        """The :class:`InputRead` decisions of the last :meth:`observe`, split
        into those to put in the stream before the probe's drain and those
        after it: the ``early`` read goes before, unanswered, and again after
        if it was answered (an earlier drain may hold the answer: see the
        theory of operation above); every other decision goes after."""
        early = self.early
        before = [(early, False)] if early is not None else []
        after = [(index, answered) for index, answered in decisions
                 if index != early or answered]
        return before, after

    @property
    def input_unread(self) -> bool:
        """Whether a tracked input is not known to be read yet."""
        return any(w.index is not None for w in self._writes)

    @property
    def pending(self) -> bool:
        """Whether a tracked input is unread, or read and not answered yet."""
        return self.input_unread or self._unanswered is not None

    def unread(self) -> int:
        """Bytes written that the program is not known to have read."""
        return self.written - self._consumed

    def wrote(self, data: bytes, index: int | None, *, raw: bool = False) -> None:
        """``data`` was written to the PTY; ``index``: the mark of a tracked
        input; ``raw``: it was written while the tty was raw.

        Bytes written while the tty is raw can never hide in a line being
        typed: if the program goes back to line mode before it reads them,
        the kernel hands them over as a line of their own (``n_tty_set_termios``
        sets ``canon_head`` to ``read_head`` and ``push``), which ``FIONREAD``
        counts. So they end a line here, and an empty queue after a switch
        to line mode proves them read (a program that reads a key raw, goes
        back to line mode and then answers was once never seen to read it)."""
        self.written += len(data)
        last = max(data.rfind(c) for c in _LINE_ENDS)
        if raw:
            self._line_end = self.written
        elif last >= 0:
            self._line_end = self.written - len(data) + last + 1
        self._writes.append(_Written(index, self.written))

    def observe(
        self, *, queued: int | None, flushed_empty: bool, canonical: bool,
        events: Sequence[str] | None,
    ) -> list[tuple[int, bool]]:
        """One probe: what the kernel said. Returns the :class:`InputRead`
        decisions, ``(index, answered)``, to put in the stream now.

        ``queued``: ``FIONREAD`` on the slave (None: unknown). ``flushed_empty``:
        ``poll()`` found nothing to read, after flushing. ``events``: the
        inotify events read after ``queued`` was asked, in order (None: no
        inotify; then a read is never known to be answered, and only output
        that arrives after it counts).
        """
        out: list[tuple[int, bool]] = []
        self.early = None
        fresh = list(events or ())
        if queued is not None:
            if flushed_empty and not canonical:
                self._arrived = self._consumed = self.written
            elif flushed_empty:  # a line being typed may still be held back
                self._consumed = max(self._consumed, self._line_end)
                self._arrived = max(self._arrived, self._consumed)
            else:
                self._consumed = max(self._consumed, self._arrived - queued)
                self._arrived = max(self._arrived, self._consumed + queued)
        self.recheck = False
        new_read = events is not None and ACCESS in events
        if events is not None:
            events = [*self._carried, *events]
        # (Events lost, an inotify overflow: what was carried may come from
        # before a read nobody saw, and must not answer it.)
        self._carried = []
        # Inputs read before this probe were answered by a write that came
        # after the last read seen so far (the reads of this batch included).
        wrote_after_read = False
        if events is not None:
            last_read = max((i for i, e in enumerate(events) if e == ACCESS), default=-1)
            wrote_after_read = MODIFY in events[last_read + 1:]
            if self._unanswered is not None and MODIFY in events:
                out.append((self._unanswered, True))
                self._unanswered = None
        read_index = None
        while self._writes and self._writes[0].end <= self._consumed:
            done = self._writes.pop(0)
            if done.index is not None:
                read_index = done.index
        if read_index is not None and ACCESS in fresh and \
                MODIFY not in fresh[:len(fresh) - fresh[::-1].index(ACCESS)]:
            # Every write this probe's events tell of came after its last
            # read, which is the input's or later: the output drained next
            # (written since the last drain, which flushed what came before)
            # is all the answer. Its screens count, each of them.
            self.early = read_index
        if read_index is not None:
            out.append((read_index, wrote_after_read))
            if not wrote_after_read and events is not None:
                self._unanswered = read_index
        if events is not None and self.input_unread:
            last_read = max((i for i, e in enumerate(events) if e == ACCESS), default=-1)
            if last_read >= 0:
                # All that matters of them: a read, and whether a write followed.
                self._carried = [ACCESS, MODIFY] if MODIFY in events[last_read:] else [ACCESS]
                self.recheck = new_read
        return out


@dataclass(frozen=True, slots=True)
class Typed:
    """An input written while the tty was cooked: what to tell if it is lost."""

    label: str
    at: float  # the session clock when it was sent
    #: Where a warning about it goes (the session's, so it reaches
    #: ``term.warnings`` and the recording).
    warn: Callable[[str], None]
    line_end: bool = True  # it ends a line (a cooked queue would show it)


class TypedAhead:
    """Inputs typed in line mode since the program last read: those a flush
    of its input would lose (see "Input typed too early" above)."""

    def __init__(self) -> None:
        self._held: list[Typed] = []
        self._reads: int | None = None  # the program's reads seen when they were typed

    @property
    def held(self) -> bool:
        return bool(self._held)

    def typed(self, typed: Typed, reads: int | None) -> None:
        """``typed`` was written; ``reads``: the program's reads seen just
        before (None: its reads are not seen, and nothing can be told)."""
        if reads is None:
            self._held = []
            return
        if reads != self._reads:
            self._held = []  # the program read since: those before may be read
            self._reads = reads
        self._held.append(typed)

    def signal_key(self) -> None:
        """A key that discards the queue went out (Ctrl-C with ISIG): what
        was typed before it is lost by the test's own key, not the program."""
        self._held = []

    def flushed(self, *, reads: int | None, queued: int | None, empty: bool,
                canonical: bool) -> list[Typed]:
        """The program flushed its input: which held inputs it lost.

        ``reads``: the program's reads seen now; ``queued``/``empty``: the
        queue after the flush (``ReadProbe.queued``; None: the tty is hung
        up, gone); ``canonical``: the tty's mode now. Inputs that may have
        survived stay held (still unread, a later flush may lose them)."""
        held = self._held
        if reads is None or reads != self._reads or queued is None:
            self._held = []  # read, perhaps, or the tty is gone: nothing to tell
            return []
        if not empty:
            return []  # something is queued: perhaps these, written after the flush
        # A cooked queue shows whole lines only: the inputs up to the last
        # line end are gone; a line being typed after it may be there unseen.
        last = len(held) - 1 if not canonical else \
            max((i for i, t in enumerate(held) if t.line_end), default=-1)
        lost, self._held = held[:last + 1], held[last + 1:]
        return lost
