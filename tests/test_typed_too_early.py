"""Input typed while the tty is cooked, before the program reads: lost, and
warned about, only when the program discards it unread (a full-screen program
going raw with TCSAFLUSH); typing ahead to a program that reads lines is fine.

Each program here stays cooked, reading nothing, until the test sends it
SIGUSR1 (``tests/programs/typed_early.py``), so the input is typed early
for certain, not by luck of timing.
"""

from __future__ import annotations

import os
import signal
import sys
import tty
from pathlib import Path

import pytest
from conftest import EXAMPLE, program

import termsim
from termsim import CursorAfter, InputReady, Text
from termsim.cli import main
from termsim.events import Warned
from termsim.files import Recording
from termsim.live.readprobe import ReadProbe
from termsim.live.readtrack import Typed, TypedAhead
from termsim.live.session import Session
from termsim.live.tty import LineInput, line_input, typed_too_early

pytestmark = pytest.mark.anyio

LOST = "discarded unread"
FIX = ("wait for InputReady() (the program reads keys raw) before typing to a "
       "full-screen program")


async def echoed(term: Session, text: str) -> None:
    """Wait until the line discipline has taken ``text`` in (its echo): the
    kernel hands written bytes to it a little later, and a program that goes
    raw before then gets them raw, unechoed and unflushed."""
    await term.wait_for(Text(text))


async def test_a_line_a_raw_program_flushes_unread_is_warned_about(tmp_path: Path) -> None:
    path = tmp_path / "early.tsr"
    async with termsim.spawn(program("typed_early.py", "setraw"), record=path) as term:
        await term.wait_for(Text("STARTED"))
        mark = await term.type("hello\n")  # cooked: echoed, queued, not read
        await echoed(term, "hello")
        os.kill(term.pid, signal.SIGUSR1)
        with pytest.warns(termsim.TermsimWarning, match=LOST) as caught:
            await term.wait_for(Text("RAW"))  # the flush is told before what follows it
        [message] = term.warnings
        assert message == str(caught[0].message)
        assert message.startswith(f"typed 'hello' + enter (sent at {mark.at:.3f} s), sent "
                                  "while the terminal was in line mode (cooked), was "
                                  "discarded unread at ")
        assert "switched the terminal to raw mode" in message and message.endswith(FIX)
        # It was lost indeed: the first read is the next key alone.
        await term.press("x")
        await term.wait_for(Text("READ b'x'"))
        assert "hello" not in term.screen.text.split("RAW", 1)[1]
    recorded = [e.message for e in Recording.open(path).of_type(Warned)]
    assert recorded == [message]


async def test_termsim_info_lists_the_warning(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "early.tsr"
    async with termsim.spawn(program("typed_early.py", "setraw"), record=path) as term:
        await term.wait_for(Text("STARTED"))
        await term.type("hello\n")
        await echoed(term, "hello")
        os.kill(term.pid, signal.SIGUSR1)
        with pytest.warns(termsim.TermsimWarning, match=LOST):
            await term.wait_for(Text("RAW"))
    capsys.readouterr()
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "notes and warnings:" in out
    assert "typed 'hello' + enter (sent at" in out and LOST in out


async def test_under_w_error_the_wait_fails_at_once_with_the_warning() -> None:
    """This suite turns warnings into errors, as many do: the warning found
    by the PTY reader is raised in the test's task, by the wait that would
    otherwise time out with no hint."""
    async with termsim.spawn(program("typed_early.py", "setraw")) as term:
        await term.wait_for(Text("STARTED"))
        await term.type("hello\n")
        await echoed(term, "hello")
        os.kill(term.pid, signal.SIGUSR1)
        with pytest.raises(termsim.TermsimWarning, match=LOST):
            await term.wait_for(Text("READ b'hello"), timeout=60)
        assert len(term.warnings) == 1 and LOST in term.warnings[0]
        await term.press("x")  # nothing left over: the session goes on
        await term.wait_for(Text("READ b'x'"))


async def test_lines_typed_ahead_and_read_cooked_are_not_warned_about() -> None:
    """input() reads each line when it gets there; its later flush (going
    raw) finds nothing unread. Under this suite's -W error a warning fails."""
    async with termsim.spawn(program("typed_early.py", "lines", "2")) as term:
        await term.wait_for(Text("STARTED"))
        await term.type("first\n")
        await term.type("second\n")  # typed before the program reads either
        await echoed(term, "second")
        os.kill(term.pid, signal.SIGUSR1)
        await term.wait_for(Text("GOT first") & Text("GOT second") & Text("RAW"))
        await term.wait_for(InputReady())
        await term.press("x")
        await term.wait_for(Text("READ b'x'"))
        assert term.warnings == []


async def test_a_line_typed_before_input_reaches_it_is_read() -> None:
    async with termsim.spawn(program("typed_early.py", "lines", "1")) as term:
        await term.wait_for(Text("STARTED"))
        await term.type("ahead\n")
        await echoed(term, "ahead")
        os.kill(term.pid, signal.SIGUSR1)
        await term.wait_for(Text("GOT ahead") & Text("RAW"))
        assert term.warnings == []


async def test_what_ctrl_c_discards_is_the_tests_own_doing() -> None:
    """Ctrl-C in line mode discards the queue too: not warned about. What is
    typed after it, and then flushed by the program, is."""
    async with termsim.spawn(program("typed_early.py", "setraw")) as term:
        await term.wait_for(Text("STARTED"))
        await term.type("abc")
        await term.press("ctrl+c")
        await term.type("def\n")  # maybe before the kernel acted on Ctrl-C: still kept
        await term.wait_for(Text("INT"))
        await echoed(term, "def")
        os.kill(term.pid, signal.SIGUSR1)
        with pytest.warns(termsim.TermsimWarning, match=LOST):
            await term.wait_for(Text("RAW"))
        [message] = term.warnings
        assert message.startswith("typed 'def' + enter (sent at") and "abc" not in message


async def test_a_flush_in_line_mode_says_to_wait_for_the_prompt() -> None:
    async with termsim.spawn(program("typed_early.py", "flush")) as term:
        await term.wait_for(Text("STARTED"))
        await term.type("too soon\n")
        await echoed(term, "too soon")
        os.kill(term.pid, signal.SIGUSR1)
        with pytest.warns(termsim.TermsimWarning, match=LOST):
            await term.wait_for(Text("FLUSHED"))
        [message] = term.warnings
        assert "flushed its input (tcflush" in message
        assert message.endswith("wait for its prompt (`await term.wait_for(...)`) before typing")
        await term.type("in time\n")
        await term.wait_for(Text("GOT in time"))
        assert len(term.warnings) == 1


async def test_prompt_toolkit_reads_what_was_typed_early(configured_env: dict[str, str]) -> None:
    """prompt_toolkit goes raw with TCSANOW: the queued input is not flushed
    but read, raw, once the app starts, so nothing is lost and nothing is
    warned about (the example REPL then ignores the Enter while it boots)."""
    argv = program("typed_early.py", "exec", *EXAMPLE)
    env = {**configured_env, "AGENT_REPL_BOOT_SECONDS": "0.5"}
    async with termsim.spawn(argv, env=env) as term:
        await term.wait_for(Text("STARTED"))
        await term.type("hello\n")
        await echoed(term, "hello")
        os.kill(term.pid, signal.SIGUSR1)
        await term.wait_for(CursorAfter("❯ hello") & Text("state: sleeping"), timeout=30)
        assert term.warnings == []


@pytest.mark.skipif(sys.platform != "linux", reason="packet mode and inotify: Linux")
async def test_without_inotify_nothing_is_claimed() -> None:
    """Without the program's reads seen, a flush cannot tell read from lost:
    no warning rather than a false one."""
    async with termsim.spawn(program("typed_early.py", "setraw"), inotify=False) as term:
        await term.wait_for(Text("STARTED"))
        await term.type("hello\n")
        await echoed(term, "hello")
        os.kill(term.pid, signal.SIGUSR1)
        await term.wait_for(Text("RAW"))
        await term.press("x")
        await term.wait_for(Text("READ b'x'"))
        assert term.warnings == []


# -- the decision, from the kernel's answers as plain values (no PTY) ----------------------


def held(*lines: tuple[str, bool], reads: int = 0) -> TypedAhead:
    ahead = TypedAhead()
    for label, line_end in lines:
        ahead.typed(Typed(label, 0.0, lambda _: None, line_end), reads)
    return ahead


def labels(typed: list[Typed]) -> list[str]:
    return [t.label for t in typed]


def test_an_empty_queue_after_the_flush_and_no_read_since_is_a_loss() -> None:
    ahead = held(("a", False), ("b", True))
    assert labels(ahead.flushed(reads=0, queued=0, empty=True, canonical=False)) == ["a", "b"]
    assert not ahead.held


def test_a_read_since_may_have_taken_it() -> None:
    ahead = held(("a", True))
    assert ahead.flushed(reads=1, queued=0, empty=True, canonical=False) == []
    assert not ahead.held


def test_what_the_queue_still_holds_survived_and_stays_held() -> None:
    # Written after the flush, or in flight to the line discipline during it.
    ahead = held(("a", True))
    assert ahead.flushed(reads=0, queued=2, empty=False, canonical=False) == []
    assert ahead.held  # a later flush may still lose it
    assert labels(ahead.flushed(reads=0, queued=0, empty=True, canonical=False)) == ["a"]


def test_cooked_only_a_line_end_proves_the_loss() -> None:
    """FIONREAD counts whole lines in canonical mode: a line being typed is
    invisible, so only inputs up to the last line end are known lost."""
    ahead = held(("a", False), ("b", True), ("c", False))
    assert labels(ahead.flushed(reads=0, queued=0, empty=True, canonical=True)) == ["a", "b"]
    assert ahead.held  # "c" may be queued, unseen
    assert held(("c", False)).flushed(reads=0, queued=0, empty=True, canonical=True) == []


def test_a_hung_up_tty_or_unseen_reads_tell_nothing() -> None:
    assert held(("a", True)).flushed(reads=0, queued=None, empty=False, canonical=False) == []
    ahead = TypedAhead()
    ahead.typed(Typed("a", 0.0, lambda _: None), None)
    assert not ahead.held


def test_inputs_typed_after_a_read_start_a_new_group() -> None:
    ahead = held(("a", True), reads=0)
    ahead.typed(Typed("b", 0.0, lambda _: None), 1)  # the program read in between
    assert labels(ahead.flushed(reads=1, queued=0, empty=True, canonical=False)) == ["b"]


def test_a_signal_key_forgets_what_it_discards() -> None:
    ahead = held(("a", True))
    ahead.signal_key()
    assert not ahead.held


def test_the_probe_counts_reads_and_keeps_peeked_events_for_the_tracker() -> None:
    master, slave = os.openpty()
    try:
        probe = ReadProbe(master, holds_tty=lambda: False)
        if probe.events_fd is None:
            pytest.skip("no inotify here")
        reader = os.open(probe.path or "", os.O_RDWR | os.O_NOCTTY)
        try:
            os.write(master, b"x\n")
            assert os.read(reader, 10) == b"x\n"
            assert probe.peek() == 1
            os.write(reader, b"out")
            assert probe.events() == ["read", "write"]  # the peeked read, then the write
            assert probe.reads_seen == 1 and probe.events() == []
            os.write(master, b"y\n")
            os.read(reader, 10)
            probe.discard()
            assert probe.reads_seen == 2 and probe.events() == []
        finally:
            os.close(reader)
            probe.close()
    finally:
        os.close(master)
        os.close(slave)


def test_line_input_says_what_a_cooked_tty_keeps_ends_and_flushes() -> None:
    master, slave = os.openpty()
    try:
        assert line_input(slave, b"hello\r") == LineInput(kept=True, line_end=True,
                                                           flushes=False)
        assert line_input(slave, b"hel") == LineInput(kept=True, line_end=False, flushes=False)
        assert line_input(slave, b"\x7f") == LineInput(kept=False, line_end=False,
                                                       flushes=False)
        assert line_input(slave, b"\x03") == LineInput(kept=False, line_end=False, flushes=True)
        tty.setraw(slave)
        raw = line_input(slave, b"\x03")
        assert raw is not None and raw.flushes is False  # ISIG off: a byte like any
    finally:
        os.close(master)
        os.close(slave)


def test_the_message_names_a_few_inputs_and_counts_the_rest() -> None:
    typed = [(f"key {c}", i / 10) for i, c in enumerate("abcdef")]
    message = typed_too_early(typed, 1.0, None)
    assert message.startswith("key a (sent at 0.000 s) and key b (sent at 0.100 s) and key c "
                              "(sent at 0.200 s) and 3 more inputs (the last sent at 0.500 s), "
                              "sent while the terminal was in line mode (cooked), were "
                              "discarded unread at 1.000 s")
    assert "key d" not in message
