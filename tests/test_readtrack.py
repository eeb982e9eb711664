"""Deciding when the program read an input, from what the kernel says (no PTY).

Each test states what termsim wrote and what the kernel reported at each
probe, in order, and checks that a read is never decided early: an input is
read only once every byte up to its end has provably been consumed, and
answered only by a write the program made after that read.
"""

from __future__ import annotations

from termsim.live.readtrack import ACCESS, MODIFY, ReadTracker

R, W = ACCESS, MODIFY


def probe(t: ReadTracker, queued: int | None, empty: bool = False, *events: str,
          canonical: bool = False, inotify: bool = True) -> list[tuple[int, bool]]:
    return t.observe(queued=queued, flushed_empty=empty, canonical=canonical,
                     events=list(events) if inotify else None)


def test_an_input_read_and_answered() -> None:
    t = ReadTracker()
    t.wrote(b"\r", 1)
    assert t.pending
    assert probe(t, 1, False) == []  # still queued: not read
    # The program read it, then drew: nothing queued after the flush.
    assert probe(t, 0, True, R, W) == [(1, True)]
    assert not t.pending and t.unread() == 0


def test_a_read_without_a_write_after_it_is_not_an_answer_yet() -> None:
    t = ReadTracker()
    t.wrote(b"x", 1)
    # The program wrote (its echo of the previous key), then read this one.
    assert probe(t, 0, True, W, R) == [(1, False)]
    assert t.pending  # waiting for the answer
    assert probe(t, 0, True) == []
    assert probe(t, 0, True, W) == [(1, True)]
    assert not t.pending


def test_a_read_seen_in_an_earlier_batch_makes_any_later_write_an_answer() -> None:
    t = ReadTracker()
    t.wrote(b"a", 1)
    t.wrote(b"b", 2)
    # Input 1 was read; input 2 is queued or in flight: poll did not flush.
    assert probe(t, 1, False, R) == []  # arrival unknown: undecided, not early
    # Everything read now; the read that took input 2 came in the last batch.
    assert probe(t, 0, True, W) == [(2, True)]


def test_bytes_in_flight_never_make_a_read_early() -> None:
    t = ReadTracker()
    t.wrote(b"x", 1)
    t.wrote(b"\r", 2)
    # One byte queued: 'x' unread with '\r' in flight (poll does not flush
    # when something is readable), or 'x' read and '\r' queued. Undecided.
    assert probe(t, 1, False) == []
    # Two queued: both have arrived, neither is read.
    assert probe(t, 2, False) == []
    # One queued after a read: it can only be the '\r'.
    assert probe(t, 1, False, R) == [(1, False)]
    assert probe(t, 0, True, R) == [(2, False)]


def test_query_replies_take_their_place_in_the_queue() -> None:
    t = ReadTracker()
    t.wrote(b"\r", 1)
    t.wrote(b"\x1b[5;1R", None)  # a CPR answer, written after the Enter
    assert probe(t, 6, False, R) == []  # 6 queued: the reply; Enter read? arrival unknown
    assert probe(t, 0, True, R, W) == [(1, True)]


def test_untracked_inputs_count_bytes_but_are_never_reported() -> None:
    t = ReadTracker()
    t.wrote(b"typed in cooked mode\r", None)
    assert not t.pending
    assert probe(t, 0, True, R) == []
    t.wrote(b"y", 2)
    assert probe(t, 0, True, R, W) == [(2, True)]


def test_canonical_mode_counts_only_up_to_the_last_line_end() -> None:
    t = ReadTracker()
    t.wrote(b"\r", 1)  # Enter, read in raw mode
    t.wrote(b"abc", 2)  # typed ahead while the program ran in cooked mode
    # Cooked: "abc" is a line being typed, invisible to FIONREAD and poll.
    assert probe(t, 0, True, R, W, canonical=True) == [(1, True)]
    assert t.pending and t.unread() == 3
    assert probe(t, 0, True, R, W) == [(2, True)]  # raw again, and read


def test_without_inotify_a_read_is_never_known_to_be_answered() -> None:
    # Only output that arrives after the read was seen can count then.
    t = ReadTracker()
    t.wrote(b"\r", 1)
    assert probe(t, 1, False, inotify=False) == []
    assert probe(t, 0, True, inotify=False) == [(1, False)]
    assert not t.pending


def test_a_gone_slave_decides_nothing() -> None:
    t = ReadTracker()
    t.wrote(b"\r", 1)
    assert probe(t, None, False, R, W) == []
    assert t.pending


def test_a_read_and_its_answer_seen_before_the_consumption_still_answer() -> None:
    # Asked first, the queue still held the input; then, before the events
    # were read, the program read it and drew its answer. The next probe
    # sees the consumption, and no new event: the answer was the one seen.
    t = ReadTracker()
    t.wrote(b"\x1b", 1)
    assert probe(t, 1, False, R, W) == []
    # The program may say nothing more: the tracker asks to be asked again.
    assert t.recheck
    assert probe(t, 0, True) == [(1, True)]
    assert not t.pending and not t.recheck


def test_carried_events_never_make_an_answer_early() -> None:
    t = ReadTracker()
    t.wrote(b"a", 1)
    t.wrote(b"b", 2)
    # A read and a write, the inputs' arrival unknown: undecided.
    assert probe(t, 1, False, R, W) == []
    assert t.recheck
    # Asked again at once, with nothing new: still undecided, and no new
    # read to place, so no asking again (no busy loop).
    assert probe(t, 1, False) == []
    assert not t.recheck
    # Both read now; the last read came after that write: not answered yet.
    assert probe(t, 0, True, R) == [(2, False)]
    assert probe(t, 0, True, W) == [(2, True)]


def test_what_is_carried_stays_two_events_however_long_the_program_writes() -> None:
    t = ReadTracker()
    t.wrote(b"q", 1)
    assert probe(t, 1, False, R, W) == []
    for _ in range(1000):  # it draws and draws; the input is still queued
        assert probe(t, 1, False, W) == []
    assert len(t._carried) <= 2
    assert probe(t, 0, True) == [(1, True)]


def test_lost_events_drop_what_was_carried() -> None:
    t = ReadTracker()
    t.wrote(b"x", 1)
    assert probe(t, 1, False, R, W) == []
    # The queue overflowed: the read that took the input may be among the
    # events lost, after that write. The write must not answer it.
    assert probe(t, 1, False, inotify=False) == []
    assert probe(t, 0, True) == [(1, False)]


def test_a_read_before_every_write_of_its_probe_goes_before_that_output() -> None:
    # Read, then writes: the output the probe drains next is all the answer.
    t = ReadTracker()
    t.wrote(b"x", 1)
    assert probe(t, 0, True, ACCESS, MODIFY, MODIFY) == [(1, True)]
    assert t.early == 1
    # A write before the last read: some of that output may come before it.
    t.wrote(b"y", 2)
    assert probe(t, 0, True, MODIFY, ACCESS, MODIFY) == [(2, True)]
    assert t.early is None
    # No read in this probe's own events (it was carried from an earlier
    # one): nothing says when the drained output was written.
    t.wrote(b"z", 3)
    assert probe(t, 1, False, ACCESS) == []
    assert probe(t, 0, True, MODIFY) == [(3, True)]
    assert t.early is None


def test_an_early_read_whose_answer_an_earlier_drain_took_is_answered_after_the_drain() -> None:
    """bash with a visible bell, under load (a CI failure): the backspace and
    'x' are written; one probe asks the queue (both bytes in it), bash reads
    the backspace and flashes, then that probe reads the events, bash reads
    'x' and echoes it, and the probe's drain takes the flash and the echo.
    The next probe sees the read of 'x' and the echo's write: placed before
    its (empty) drain unanswered, the read made the screen showing 'x' never
    count, and no write was left to answer it; the wait timed out."""
    t = ReadTracker()
    t.wrote(b"\x7f", 1, raw=True)
    t.wrote(b"x", 2, raw=True)
    first = probe(t, 2, False, R, W)  # the queue was asked before bash read
    assert first == [] and t.recheck
    assert t.around_drain(first) == ([], [])
    second = probe(t, 0, True, R, W)
    assert second == [(2, True)] and t.early == 2
    # Before the drain: unanswered (what it finds is the answer); after it:
    # answered (what the screen shows already is).
    assert t.around_drain(second) == ([(2, False)], [(2, True)])
    # Not answered yet: the read alone goes before, and a later write answers.
    t = ReadTracker()
    t.wrote(b"x", 1)
    third = probe(t, 0, True, R)
    assert t.around_drain(third) == ([(1, False)], [])
    assert probe(t, 0, True, W) == [(1, True)] and t.around_drain([(1, True)]) == ([], [(1, True)])


def test_a_look_before_the_reply_answers_before_the_reply_is_read() -> None:
    """vim under load (a codegen test's third live run): 'hello ' and escape
    written; the probe asked the queue (escape in it), vim read escape and
    redrew, asking ``CSI ? 4 m``, then the probe read those events. Looked
    at again only after that redraw was fed, the reply was written and vim
    read it: the last read, with no write after it, left escape unanswered,
    and vim said nothing more. The PTY looks before it writes the reply
    (while an input is unread): that look sees the consumption and no new
    read, and the redraw answers it."""
    t = ReadTracker()
    t.wrote(b"hello ", 2, raw=True)
    t.wrote(b"\x1b", 3, raw=True)
    assert probe(t, 1, False, R, W) == [] and t.recheck and t.input_unread
    # The redraw was drained and fed; before its reply goes out:
    assert probe(t, 0, True) == [(3, True)] and not t.recheck and not t.input_unread
    t.wrote(b"\x1b[>4;0m", None, raw=True)  # the reply, read in silence
    assert probe(t, 0, True, R) == [] and not t.pending
    # Looked at again only after the reply was read: unanswered, and nothing will answer.
    late = ReadTracker()
    late.wrote(b"hello ", 2, raw=True)
    late.wrote(b"\x1b", 3, raw=True)
    assert probe(late, 1, False, R, W) == []
    late.wrote(b"\x1b[>4;0m", None, raw=True)
    assert probe(late, 0, True, R) == [(3, False)] and late.pending


def test_the_look_before_a_reply_after_an_unplaced_read_and_answer() -> None:
    """The case a second look within the probe missed (the suite under load,
    ``query_answer.py``): 'a' and 'b' sent; the probe saw 'a' read and
    answered, 'b' still queued, and nothing new on a second look; then the
    program read 'b' and answered with a query, and the probe's drain took
    that answer. The look before the reply sees both read, the events
    carried from the first look and the write that followed the last read."""
    t = ReadTracker()
    t.wrote(b"a", 7, raw=True)
    t.wrote(b"b", 8, raw=True)
    assert probe(t, 1, False, R, W) == [] and t.recheck  # the queue: unknown bytes in flight
    assert probe(t, 1, False) == [] and t.input_unread and not t.recheck
    assert probe(t, 0, True, R, W) == [(8, True)] and not t.pending
    # Without it, the first look after the reply was read:
    late = ReadTracker()
    late.wrote(b"a", 7, raw=True)
    late.wrote(b"b", 8, raw=True)
    assert probe(late, 1, False, R, W) == []
    assert probe(late, 1, False) == []
    late.wrote(b"\x1b[1;1R", None, raw=True)
    assert probe(late, 0, True, R, W, R) == [(8, False)] and late.pending
