"""The waiting engine on a scripted source: exact interleavings, virtual time.

No PTY and no sleeps: a :class:`Script` is a list of events at given times
that the engine's source applies, in order, on a virtual clock, exactly as a
replay does. So each test states precisely what the program printed when,
relative to the test's inputs and waits.
"""

from __future__ import annotations

import anyio
import pytest

from termsim import (
    Bell,
    CursorAfter,
    ProcessExited,
    Quiet,
    Region,
    Sequence,
    SessionClosed,
    Stalled,
    Text,
    WaitTimeout,
)
from termsim.emulator import Terminal
from termsim.engine.engine import SETTLE, Engine
from termsim.engine.source import Mark
from termsim.events import (
    Event,
    Exit,
    InputRead,
    Output,
    Resize,
    TtyMode,
    WaitEnded,
    WaitStarted,
)

pytestmark = pytest.mark.anyio


class Script:
    """A source whose program is a list of events, applied on a virtual clock."""

    def __init__(self, events: list[Event], cols: int = 20, rows: int = 4) -> None:
        self.events = list(events)
        self.clock = 0.0
        self.emitted: list[Event] = []
        self.terminal = Terminal(cols, rows)
        self.engine = Engine(self.terminal, self, self.emitted.append)

    def now(self) -> float:
        return self.clock

    def input_ready(self) -> bool | None:
        return self.engine.tty_raw

    def catch_up(self) -> None:
        pass

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        await anyio.lowlevel.checkpoint()
        while not event.is_set():
            if not self.events or self.events[0].t > deadline:
                self.clock = max(self.clock, deadline)
                return
            self.step()

    def step(self) -> None:
        event = self.events.pop(0)
        self.clock = max(self.clock, event.t)
        self.engine.apply(event)

    def until(self, t: float) -> None:
        """Apply every event up to ``t`` (the program ran while the test did not wait)."""
        while self.events and self.events[0].t <= t:
            self.step()
        self.clock = max(self.clock, t)

    def mark(self, label: str = "key enter") -> Mark:
        """An input written now, read at once (counts from now)."""
        mark = Mark(1, self.terminal.generation, self.clock, label)
        self.engine.input_sent(mark)
        return mark


async def test_a_wait_resolves_on_the_event_that_made_it_true() -> None:
    script = Script([Output(0.1, b"one "), Output(0.2, b"two "), Output(0.3, b"three")])
    snap = await script.engine.wait_for(Text("two"), timeout=5)
    assert snap.lines[0].rstrip() == "one two"
    assert script.clock == 0.2  # not a moment later: "three" is still to come
    assert script.events == [Output(0.3, b"three")]


async def test_a_screen_already_matching_returns_at_once() -> None:
    script = Script([Output(0.1, b"ready"), Output(5.0, b"later")])
    script.until(0.1)
    snap = await script.engine.wait_for(Text("ready"), timeout=1)
    assert "ready" in snap.text and script.clock == 0.1


async def test_since_counts_only_screens_after_the_mark() -> None:
    script = Script([Output(0.1, b"prompt> "), Output(0.5, b"\r\nreply\r\nprompt> ")])
    script.until(0.2)
    mark = script.mark()
    # "prompt> " is on the screen already, but was drawn before the input.
    snap = await script.engine.wait_for(Text("prompt> "), since=mark, timeout=5)
    assert script.clock == 0.5 and "reply" in snap.text


async def test_a_state_drawn_and_erased_within_one_read_is_seen() -> None:
    frames = b"\x1b[?25lWORKING\x1b[?25h\x1b[?25l\r\x1b[K\x1b[?25hDONE"
    script = Script([Output(0.1, frames)])
    snap = await script.engine.wait_for(Text("WORKING"), timeout=5)
    assert "WORKING" in snap.text and "DONE" not in snap.text
    assert "DONE" in script.terminal.screen.text  # the rest of the read was applied


async def test_timeout_shows_the_screen_silence_and_film_on_virtual_time() -> None:
    script = Script([Output(0.1, b"booting"), Output(100.0, b" never seen")])
    with pytest.raises(WaitTimeout) as info:
        await script.engine.wait_for(Text("ready"), timeout=2)
    error = info.value
    assert script.clock == 2.0 and error.timeout == 2
    assert error.silent_for == pytest.approx(1.9)
    assert "booting" in error.snapshot.text
    assert "timed out after 2 s waiting for text 'ready'" in str(error)
    assert "booting" in error.film


async def test_the_film_keeps_the_first_screen_after_the_input_and_counts_the_rest() -> None:
    # After Enter the toolbar says "working" for 9 ms, then twenty screens
    # of output follow: the wait that fails later still shows the flash.
    steps = [Output(0.5 + 0.1 * i, f"\r\x1b[Kstep {i:02}".encode()) for i in range(20)]
    script = Script([Output(0.009, b"working"), Output(0.018, b"\r\x1b[K"), *steps])
    mark = script.mark()
    with pytest.raises(WaitTimeout) as info:
        await script.engine.wait_for(Text("never"), since=mark, timeout=5)
    film = info.value.film
    lines = film.splitlines()
    assert "sent key enter" in lines[1]
    assert "working" in lines[3]  # the first screen after the input
    assert any("… 17 earlier screens not shown" in line for line in lines)
    assert "step 19" in lines[-1] and "step 15" not in film
    assert film.count("screen (") == 1 + 4


async def test_the_exit_fails_a_pending_wait_at_once() -> None:
    script = Script([Output(0.1, b"bye"), Exit(0.2, 3), Output(50.0, b"x")])
    with pytest.raises(ProcessExited) as info:
        await script.engine.wait_for(Text("never"), timeout=60)
    assert script.clock == 0.2 and info.value.status == 3
    assert "exit status 3" in str(info.value)
    # The last output may still satisfy a later wait; the exit is known.
    assert "bye" in (await script.engine.wait_for(Text("bye"), timeout=1)).text
    assert await script.engine.wait_exit(timeout=1) == 3


async def test_the_last_output_before_the_exit_still_matches() -> None:
    script = Script([Output(0.1, b"done"), Exit(0.1, 0)])
    snap = await script.engine.wait_for(Text("done"), timeout=5)
    assert "done" in snap.text


async def test_waits_are_events_with_their_outcomes() -> None:
    script = Script([Output(0.1, b"a"), Exit(0.3, 0)])
    await script.engine.wait_for(Text("a"), timeout=5)
    with pytest.raises(WaitTimeout):
        await script.engine.wait_for(Text("b"), timeout=0.1)
    with pytest.raises(ProcessExited):
        await script.engine.wait_for(Text("b"), timeout=5)
    starts = [e for e in script.emitted if isinstance(e, WaitStarted)]
    ends = [e for e in script.emitted if isinstance(e, WaitEnded)]
    assert [(s.id, s.predicate, s.timeout) for s in starts] == [
        (1, "text 'a' in the screen", 5.0), (2, "text 'b' in the screen", 0.1),
        (3, "text 'b' in the screen", 5.0)]
    assert [(e.id, e.outcome) for e in ends] == [
        (1, "matched"), (2, "timed out"), (3, "program exited")]
    assert [e.t for e in ends] == [0.1, pytest.approx(0.2), 0.3]


async def test_a_predicate_that_raises_fails_its_wait_only() -> None:
    def broken(snap: object) -> bool:
        raise RuntimeError("bug in the test's predicate")

    script = Script([Output(0.1, b"x"), Output(0.2, b"y")])
    with pytest.raises(RuntimeError, match="bug in the test"):
        await script.engine.wait_for(broken, timeout=5)
    assert (await script.engine.wait_for(Text("y"), timeout=5)).lines[0].startswith("xy")
    ends = [e.outcome for e in script.emitted if isinstance(e, WaitEnded)]
    assert ends == ["error: RuntimeError", "matched"]


async def test_several_waits_are_served_by_one_stream() -> None:
    script = Script([Output(0.1, b"first "), Output(0.2, b"second")])
    seen: dict[str, str] = {}

    async def waiter(word: str) -> None:
        seen[word] = (await script.engine.wait_for(Text(word), timeout=5)).lines[0].rstrip()

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter, "second")
        tg.start_soon(waiter, "first")
    # Each got the screen that first matched it, whoever moved the clock.
    assert seen == {"first": "first", "second": "first second"}


async def test_input_ready_follows_tty_mode_events() -> None:
    from termsim import InputReady

    script = Script([Output(0.1, b"> "), TtyMode(0.4, True)])
    snap = await script.engine.wait_for(InputReady(), timeout=5)
    assert script.clock == 0.4 and snap.input_ready is True


async def test_a_resize_is_a_new_screen_of_the_new_size() -> None:
    script = Script([Output(0.1, b"abc"), Resize(0.2, 30, 6)])
    snap = await script.engine.wait_for(lambda s: s.cols == 30, timeout=5)
    assert (snap.cols, snap.rows) == (30, 6) and script.clock == 0.2


async def test_closing_fails_pending_waits_and_refuses_new_ones() -> None:
    script = Script([])
    script.engine.close()
    with pytest.raises(SessionClosed):
        await script.engine.wait_for(Text("x"), timeout=5)
    with pytest.raises(SessionClosed):
        await script.engine.wait_exit(timeout=5)


async def test_timeouts_must_be_numbers() -> None:
    script = Script([])
    for bad in (-1, float("nan")):
        with pytest.raises(ValueError, match="timeout must be"):
            await script.engine.wait_for(Text("x"), timeout=bad)


# -- waits that cannot be fooled ----------------------------------------------------------
#
# Each case is an exact interleaving that today's live sessions meet under
# load: the output a program wrote before it read the key arriving after the
# key was sent, a frame cut in the middle by a read, a state shown for one
# frame. Each test failed on the engine before these guarantees.

TOOLBAR = Region.row(-1)


def frame(body: bytes) -> bytes:
    """A prompt_toolkit-style frame: hide the cursor, draw, show it again."""
    return b"\x1b[?25l" + body + b"\x1b[?25h"


ECHO = frame(b"\x1b[1;1H\x1b[K> hello\x1b[4;1H\x1b[Ksleeping\x1b[1;8H")
DONE = frame(b"\x1b[4;1H\x1b[K\x1b[2;1H")
WORKING = frame(b"\x1b[4;1Hworking\x1b[3;1H> ")
SLEEPING = frame(b"\x1b[4;1H\x1b[Ksleeping\x1b[3;3H")


def sent(script: Script, index: int = 1, *, tracked: bool = True, label: str = "key enter",
         ) -> Mark:
    """The driver wrote input ``index`` now."""
    mark = Mark(index, script.terminal.generation, script.clock, label)
    script.engine.input_sent(mark, tracked=tracked)
    return mark


async def test_output_written_before_the_program_read_the_key_never_counts() -> None:
    # The README race: the echo of the typed text (toolbar still "sleeping")
    # was written before the program read Enter, and reached termsim after
    # Enter was sent. Only output after the read may answer the wait.
    script = Script([
        Output(0.10, ECHO),  # written before the read, read after the write
        InputRead(0.11, 1),  # the program read Enter here
        Output(0.12, DONE), Output(0.13, WORKING), Output(0.50, SLEEPING),
    ])
    mark = sent(script)
    snap = await script.engine.wait_for(Text("sleeping", region=TOOLBAR), since=mark,
                                        timeout=5)
    assert script.clock == 0.50
    assert snap.lines[2].startswith("> ")


async def test_before_the_read_nothing_counts_and_the_error_says_so() -> None:
    script = Script([Output(0.10, ECHO)])
    mark = sent(script)
    with pytest.raises(WaitTimeout) as info:
        await script.engine.wait_for(Text("sleeping", region=TOOLBAR), since=mark, timeout=1)
    message = str(info.value)
    assert "the program has not read input #1 (key enter) yet" in message
    assert "the screen matched, but before the program answered input #1" in message


async def test_the_screen_at_the_read_counts_once_answered() -> None:
    # The program read the key, wrote its answer in the same instant (before
    # termsim looked), and went quiet: the answer is in the screen at the read.
    script = Script([Output(0.1, b"> x"), InputRead(0.2, 1), InputRead(0.3, 1, answered=True)])
    script.until(0.1)
    mark = sent(script)
    snap = await script.engine.wait_for(Text("> x"), since=mark, timeout=5)
    assert script.clock == 0.3 and "> x" in snap.text


async def test_input_typed_while_cooked_counts_from_the_write() -> None:
    script = Script([Output(0.1, b"got it")])
    mark = sent(script, tracked=False, label="typed 'x'")
    snap = await script.engine.wait_for(Text("got it"), since=mark, timeout=5)
    assert script.clock == 0.1 and "got it" in snap.text


async def test_a_lone_hidden_cursor_read_is_not_a_prompt() -> None:
    # bpython: a read that holds only ESC[?25l, the rest of the frame 0.3 s later.
    script = Script([
        Output(0.0, b"> 1+1\x1b[?25h"),
        Output(0.1, b"\x1b[?25l"),
        Output(0.4, b"\r\n2\r\n> \x1b[?25h"),
    ])
    script.until(0.0)
    snap = await script.engine.wait_for(CursorAfter("> ") & Text("2"), timeout=5)
    assert script.clock == 0.4 and snap.cursor.visible


async def test_a_synchronized_update_is_seen_whole() -> None:
    # A frame in a synchronized update, cut by the read after "working":
    # the half-drawn screen must not satisfy the wait.
    script = Script([
        Output(0.1, b"\x1b[?2026h\x1b[1;1Hworking"),
        Output(0.15, b"\x1b[1;1Hdone   \x1b[?2026l"),
    ])
    seen = await script.engine.wait_for(Text("working") | Text("done"), timeout=5)
    assert "done" in seen.text and script.clock == 0.15


async def test_a_program_that_keeps_its_cursor_hidden_is_still_waitable() -> None:
    # top, full-screen apps: the cursor is hidden for good, no frame closes.
    script = Script([Output(0.0, b"\x1b[?25l"), Output(0.5, b"load 1.0"),
                     Output(0.6, b"\r\nload 2.0"), Output(9.0, b"x")])
    snap = await script.engine.wait_for(Text("load 2.0"), timeout=5)
    assert "load 2.0" in snap.text and script.clock == 0.6


async def test_an_open_frame_counts_once_output_pauses() -> None:
    script = Script([Output(0.0, b"\x1b[?25lready")])
    snap = await script.engine.wait_for(Text("ready"), timeout=5)
    assert script.clock == pytest.approx(0.0 + SETTLE)
    assert "ready" in snap.text


async def test_cursor_predicates_want_a_visible_cursor_unless_told() -> None:
    script = Script([Output(0.0, b"> \x1b[?25l"), Output(1.0, b"\x1b[?25h")])
    script.until(0.0)
    snap = await script.engine.wait_for(CursorAfter("> "), timeout=5)
    assert script.clock == 1.0 and snap.cursor.visible
    script = Script([Output(0.0, b"> \x1b[?25l"), Output(1.0, b"\x1b[?25h")])
    script.until(0.0)
    await script.engine.wait_for(CursorAfter("> ", visible=False), timeout=5)
    assert script.clock < 1.0


async def test_a_sequence_sees_a_state_shown_for_one_frame() -> None:
    # "working" is drawn and erased within one read; the sequence still sees it.
    script = Script([Output(0.1, WORKING + SLEEPING)])
    mark = sent(script, tracked=False)
    snap = await script.engine.wait_for(
        Sequence(Text("working", region=TOOLBAR), Text("sleeping", region=TOOLBAR)),
        since=mark, timeout=5)
    assert "sleeping" in snap.lines[-1]


async def test_a_sequence_needs_its_parts_in_order_on_later_screens() -> None:
    script = Script([Output(0.1, b"b"), Output(0.2, b"a"), Output(0.3, b"b")])
    pred = Sequence(Text("a"), Text("b", region=Region.rect(0, 2, 1, 3)))
    await script.engine.wait_for(pred, timeout=5)
    assert script.clock == 0.3
    # Each wait starts the sequence afresh.
    script = Script([Output(0.1, b"a"), Output(0.2, b"xb")])
    await script.engine.wait_for(pred, timeout=5)
    assert script.clock == 0.2


async def test_quiet_holds_once_output_pauses_on_the_session_clock() -> None:
    script = Script([Output(0.1, b"saving"), Output(0.15, b"."), Output(0.2, b" saved"),
                     Output(3.0, b"later")])
    snap = await script.engine.wait_for(Text("saved") & Quiet(0.5), timeout=5)
    assert script.clock == pytest.approx(0.7)
    assert "later" not in snap.text


async def test_a_stall_fails_as_soon_as_the_program_waits_for_keys() -> None:
    script = Script([Output(0.1, b"> "), TtyMode(0.2, True), Output(60.0, b"late")])
    with pytest.raises(Stalled) as info:
        await script.engine.wait_for(Text("ready"), timeout=300, stall=5)
    assert script.clock == pytest.approx(5.1)
    assert isinstance(info.value, WaitTimeout)
    assert "the program is waiting for input; nothing changed for 5.0 s" in str(info.value)
    ends = [e.outcome for e in script.emitted if isinstance(e, WaitEnded)]
    assert ends == ["stalled"]


async def test_no_stall_while_input_is_unread_or_the_program_is_cooked() -> None:
    script = Script([Output(0.1, b"> "), Output(20.0, b"ready")])
    script.until(0.1)
    await script.engine.wait_for(Text("ready"), timeout=300, stall=5)  # cooked: not a stall
    script = Script([Output(0.1, b"> "), TtyMode(0.1, True), Output(20.0, b"ready")])
    script.until(0.1)
    sent(script)  # an input the program has not read: it is busy, not stalled
    await script.engine.wait_for(Text("ready"), timeout=300, stall=5)
    assert script.clock == 20.0


async def test_a_failed_wait_names_its_near_misses() -> None:
    script = Script([
        Output(0.1, b"\x1b[2;1Hstate: sleeping"),  # the toolbar is row 3, not row 1
        Output(0.2, b"\x1b[4;1Hstate: sleeping"),
        Output(0.3, b"\x1b[1;1Hflash"), Output(0.32, b"\x1b[1;1H\x1b[K"),
    ], rows=4)
    with pytest.raises(WaitTimeout) as info:
        await script.engine.wait_for(
            Text("state: sleping", region=TOOLBAR) | Text("flash", region=TOOLBAR), timeout=1)
    message = str(info.value)
    assert "closest: 'state: sleeping' on row 3 (1 edit away)" in message
    assert "it is on the screen 1 time outside the bottom row" not in message
    with pytest.raises(WaitTimeout) as again:
        await Script([Output(0.1, b"\x1b[2;1Hstate: sleeping"),
                      Output(0.3, b"\x1b[1;1Hflash"), Output(0.32, b"\x1b[1;1H\x1b[K")],
                     rows=4).engine.wait_for(
            Text("state: sleeping", region=TOOLBAR) & Text("flash"), timeout=1)
    message = str(again.value)
    assert "it is on the screen 1 time outside the bottom row" in message
    assert "text 'flash' in the screen: shown at +0.300 s for 0.020 s" in message


async def test_frame_edges_come_from_the_terminal_combined_modes_included() -> None:
    # A full-screen program ends its synchronized update and hides the
    # cursor in one sequence (ESC[?2026;25l): the update "working" ends there,
    # so it is a settled screen the wait sees, though the next update
    # replaces it in the same read. The regex the engine once had knew only
    # ESC[?2026l alone.
    frames = (b"\x1b[?2026h\x1b[1;1Hworking\x1b[?2026;25l"
              b"\x1b[?2026h\x1b[1;1Hdone   \x1b[?2026l")
    script = Script([Output(0.1, frames)])
    seen = await script.engine.wait_for(Text("working"), timeout=5)
    assert "working" in seen.text and "done" in script.terminal.screen.text


async def test_a_frame_edge_cut_across_two_reads_still_closes_the_frame() -> None:
    # The second read ends inside ESC[?2026l and the third finishes it, then
    # draws the next frame at once: the update "working" ended in between
    # (the cursor stays hidden, so only that edge says the screen settled).
    script = Script([
        Output(0.1, b"\x1b[?25l\x1b[?2026h\x1b[1;1Hwork"),
        Output(0.15, b"ing\x1b[?20"),
        Output(0.18, b"26l\x1b[?2026h\x1b[1;1Hdone   "),
    ])
    seen = await script.engine.wait_for(Text("working"), timeout=5)
    assert "working" in seen.text and script.clock == 0.18


# -- signals (a bell, a notification) and the causal rule ---------------------------


async def test_a_bell_rung_before_the_read_never_counts() -> None:
    # A bell in flight when the key was written (rung for an earlier key)
    # and a bell rung in answer: only the second satisfies the wait.
    script = Script([Output(0.10, b"\x07"), InputRead(0.11, 1), Output(0.12, b"\x07ok")])
    mark = sent(script)
    snap = await script.engine.wait_for(Bell(), since=mark, timeout=5)
    assert script.clock == 0.12 and snap.signals.bell_count == 2


async def test_a_bell_in_an_earlier_read_of_an_answer_noticed_late_counts() -> None:
    # The program read the key and answered with a bell, then text, in two
    # reads, all before the source noticed the read: the bell is the answer
    # although the screens rule counts only the screen at the notice.
    script = Script([Output(0.10, b"\x07"), Output(0.11, b"done"),
                     InputRead(0.12, 1, answered=True)])
    mark = sent(script)
    await script.engine.wait_for(Bell() & Text("done"), since=mark, timeout=5)
    assert script.clock == 0.12


async def test_a_bell_before_the_input_was_written_never_counts() -> None:
    script = Script([Output(0.10, b"\x07"), InputRead(0.3, 1, answered=True)])
    script.until(0.2)
    mark = sent(script)
    with pytest.raises(WaitTimeout) as info:
        await script.engine.wait_for(Bell(), since=mark, timeout=1)
    assert "bells since the mark: none; before it: 1, the last at 0.100 s" in str(info.value)


async def test_a_sequence_is_not_moved_on_by_screens_that_do_not_count() -> None:
    # "working" drawn before the program read Enter (a stale toolbar), then
    # after the read only "sleeping": the first part never held on a screen
    # that counts, so the sequence must not be satisfied.
    script = Script([
        Output(0.10, frame(b"\x1b[4;1H\x1b[Kworking")),
        Output(0.12, frame(b"\x1b[4;1H\x1b[Ksleeping")),
        InputRead(0.13, 1),
        Output(0.20, frame(b"\x1b[1;1Hdone")),
    ])
    mark = sent(script)
    with pytest.raises(WaitTimeout):
        await script.engine.wait_for(
            Sequence(Text("working", region=TOOLBAR), Text("sleeping", region=TOOLBAR)),
            since=mark, timeout=1)
