"""Live sessions against real programs in real PTYs, on asyncio and trio."""

from __future__ import annotations

import re
import sys

import anyio
import pytest
from conftest import EXAMPLE, program, stubborn_pids

import termsim
from termsim import (
    CursorAfter,
    InputReady,
    ProcessExited,
    Regex,
    Region,
    SessionClosed,
    Text,
    WaitTimeout,
)
from termsim.live.process import is_running

pytestmark = pytest.mark.anyio

TOOLBAR = Region.row(-1)
PROMPT = CursorAfter("❯ ")


async def test_example_repl_picker_boot_two_turns_exit(repl_env: dict[str, str]) -> None:
    async with termsim.spawn(EXAMPLE, cols=80, rows=24, env=repl_env) as term:
        await term.wait_for(Text("Pick a theme"), timeout=30)
        await term.press("down", "enter")
        await term.wait_for(Text("Theme: light"), timeout=10)
        await term.wait_for(PROMPT & Text("state: sleeping", region=TOOLBAR), timeout=30)

        for word in ("hello", "again"):
            await term.type(word)
            mark = await term.press("enter")
            # The toolbar said "sleeping" before Enter too: only since= makes
            # this wait mean "sleeping again after the reply".
            await term.wait_for(Text("state: working", region=TOOLBAR), since=mark, timeout=10)
            snap = await term.wait_for(
                Text("state: sleeping", region=TOOLBAR), since=mark, timeout=10,
            )
            assert f"assistant: thinking about '{word}'" in snap.text
            assert f"assistant: done ({len(word)} chars)" in snap.text

        await term.press("ctrl+d")
        assert await term.wait_exit(timeout=10) == 0
        assert "bye" in term.screen.text


async def test_since_rejects_the_screen_from_before_the_input(
    configured_env: dict[str, str],
) -> None:
    async with termsim.spawn(EXAMPLE, env=configured_env) as term:
        await term.wait_for(PROMPT & Text("state: sleeping", region=TOOLBAR), timeout=30)
        mark = await term.type("x")
        # Already true before the input, but no screen has been drawn since:
        with pytest.raises(WaitTimeout) as info:
            await term.wait_for(Text("sleeping"), since=term_mark_after_now(mark), timeout=0.3)
        assert "counting only screens drawn after" in str(info.value)
        snap = await term.wait_for(Text("❯ x"), since=mark, timeout=10)
        assert snap.generation > mark.generation


def term_mark_after_now(mark: termsim.Mark) -> termsim.Mark:
    """A mark later than every screen so far: nothing drawn yet can match it."""
    return termsim.Mark(mark.index, 10**9, mark.at, mark.label)


async def test_toolbar_text_is_never_contiguous_in_the_raw_bytes(
    configured_env: dict[str, str],
) -> None:
    raw = bytearray()

    def keep_output(event: termsim.files.Event) -> None:
        if isinstance(event, termsim.events.Output):
            raw.extend(event.data)

    async with termsim.spawn(EXAMPLE, env=configured_env) as term:
        term.listeners.append(keep_output)
        await term.wait_for(Text("state: booting", region=TOOLBAR), timeout=30)
        snap = await term.wait_for(Text("state: sleeping", region=TOOLBAR), timeout=30)
        assert snap.lines[-1].strip() == "state: sleeping"
        assert snap.cell(-1, 1).style.reverse
        # The diff renderer rewrote only the cells that changed: the screen
        # says "state: sleeping", the bytes never did, so a byte-stream
        # expect() for it would wait for ever.
        assert b"state: sleeping" not in raw
        assert b"state: booting" in raw


async def test_cpr_ignored_toolbar_never_appears_and_the_error_shows_the_screen(
    configured_env: dict[str, str],
) -> None:
    async with termsim.spawn(EXAMPLE, env=configured_env, cpr="ignore") as term:
        await term.wait_for(Text("Starting the local server"), timeout=30)
        # A wait that must time out: short, so that it ends well before
        # prompt_toolkit gives up on the CPR (2 s after asking) and draws the
        # toolbar anyway, however late this test saw the program's first line.
        with pytest.raises(WaitTimeout) as info:
            await term.wait_for(Text("state:", region=TOOLBAR), timeout=0.5)
        message = str(info.value)
        assert "timed out after 0.5 s waiting for text 'state:' in the bottom row" in message
        assert "Starting the local server..." in message  # the screen is shown
        assert re.search(r"^\s+23 │", message, re.MULTILINE) is None  # blank rows folded
        assert "ESC[6n (cursor position report) at output byte" in message
        assert "silent for" in message
        assert isinstance(info.value, TimeoutError)
        assert info.value.snapshot.lines[-1].strip() == ""
        # prompt_toolkit gives up on CPR after 2 s and says so on the screen.
        await term.wait_for(Text("doesn't support cursor position requests"), timeout=10)


async def test_cpr_answered_late_draws_the_toolbar_late(configured_env: dict[str, str]) -> None:
    async with termsim.spawn(EXAMPLE, env=configured_env, cpr=0.2) as term:
        snap = await term.wait_for(Text("state:", region=TOOLBAR), timeout=30)
        answered = [q for q in term.queries if q.kind == "cpr"]
        assert answered and answered[0].status == "answered"
        assert "state:" in snap.lines[-1]


async def test_process_exit_fails_a_pending_wait_at_once() -> None:
    async with termsim.spawn(["sh", "-c", "echo going; read x; exit 3"]) as term:
        await term.wait_for(Text("going"), timeout=10)

        async def stop_soon() -> None:
            await term.wait_for(InputReady() | Text("going"), timeout=10)
            await term.send(b"\n")

        async with anyio.create_task_group() as tg:
            tg.start_soon(stop_soon)
            # ProcessExited, not WaitTimeout: the exit ended the wait, not its timeout.
            with pytest.raises(ProcessExited) as info:
                await term.wait_for(Text("never printed"), timeout=60)
        assert info.value.status == 3
        assert "going" in info.value.snapshot.text
        assert "exit status 3" in str(info.value)
        # Later waits fail at once too, unless the final screen matches.
        with pytest.raises(ProcessExited):
            await term.wait_for(Text("never printed"), timeout=60)
        assert (await term.wait_for(Text("going"), timeout=1)).generation > 0
        assert await term.wait_exit(timeout=5) == 3


async def test_wait_exit_reports_signals_as_negative_status() -> None:
    async with termsim.spawn(["sh", "-c", "kill -TERM $$"]) as term:
        assert await term.wait_exit(timeout=10) == -15


async def test_leaving_the_block_ends_a_stubborn_process_tree() -> None:
    async with termsim.spawn(program("stubborn.py", "--setsid")) as term:
        pids = await stubborn_pids(term)
        assert len(pids) == 3
        assert all(is_running(pid) for pid in pids)
    assert not any(is_running(pid) for pid in pids), pids


async def test_cancellation_ends_the_process_tree() -> None:
    pids: list[int] = []
    with anyio.CancelScope() as scope:
        async with termsim.spawn(program("stubborn.py")) as term:
            pids = await stubborn_pids(term)
            scope.cancel()
            await term.wait_for(Text("never"), timeout=60)
    assert scope.cancelled_caught
    assert pids and not any(is_running(pid) for pid in pids)


async def test_resize_changes_screen_and_sends_sigwinch() -> None:
    async with termsim.spawn(program("winch.py"), cols=80, rows=24) as term:
        await term.wait_for(Text("SIZE 80x24"), timeout=10)
        mark = await term.resize(cols=100, rows=30)
        snap = await term.wait_for(Text("SIZE 100x30"), since=mark, timeout=10)
        assert (snap.cols, snap.rows) == (100, 30)


async def test_type_uses_bracketed_paste_for_lines_and_keys_go_in_one_write() -> None:
    async with termsim.spawn(program("rawecho.py")) as term:
        await term.wait_for(Text("READY") & InputReady(), timeout=10)
        assert term.screen.modes.bracketed_paste
        mark = await term.type("a\nb")
        await term.wait_for(Text(r"READ b'\x1b[200~a\nb\x1b[201~'"), since=mark, timeout=10)
        mark = await term.press("up")
        await term.wait_for(Text(r"READ b'\x1b[A'"), since=mark, timeout=10)
        # Escape then a key: two reads, not Alt+key.
        mark = await term.press("escape", "x")
        snap = await term.wait_for(Text("READ b'x'"), since=mark, timeout=10)
        assert "READ b'\\x1b'" in snap.text
        assert "READ b'\\x1bx'" not in snap.text
        await term.press("ctrl+d")
        assert await term.wait_exit(timeout=10) == 0


async def test_line_mode_input_is_not_warned_about() -> None:
    """input(), read, a y/n confirm and Ctrl-C meant as SIGINT are correct in
    line mode: no warning."""
    script = "trap 'echo INT' INT; echo ready; read line; echo got $line; read x; read y"
    async with termsim.spawn(["sh", "-c", script]) as term:
        await term.wait_for(Text("ready"))
        assert term.screen.input_ready is False
        await term.type("abc")
        await term.press("backspace", "enter")
        await term.wait_for(Text("got ab"))
        await term.press("ctrl+c")
        # Typed before INT shows: a SIGINT that reaches sh just before its
        # next ``read`` begins runs the trap only when that read returns.
        await term.type("y\n")
        await term.wait_for(Text("INT"))
        assert term.warnings == []


async def test_keys_only_a_raw_program_reads_are_warned_about_at_the_callers_line() -> None:
    async with termsim.spawn(["sh", "-c", "echo ready; read line; echo got"]) as term:
        await term.wait_for(Text("ready"))
        with pytest.warns(termsim.TermsimWarning, match="key up .* Escape sequence") as info:
            await term.press("up")
        assert info[0].filename == __file__  # the test's own line, not termsim's
        with pytest.warns(termsim.TermsimWarning, match=r"\^A"):
            await term.press("ctrl+a")
        await term.press("enter")
        await term.wait_for(Text("got"))
        assert len(term.warnings) == 2


async def test_input_ready_follows_the_tty_mode(configured_env: dict[str, str]) -> None:
    async with termsim.spawn(EXAMPLE, env=configured_env) as term:
        snap = await term.wait_for(InputReady() & PROMPT, timeout=30)
        assert snap.input_ready is True
        assert not term.warnings


async def test_several_tasks_wait_on_one_session() -> None:
    script = "read a; echo first; read b; echo second; read c"
    async with termsim.spawn(["sh", "-c", script]) as term:
        seen: list[str] = []

        async def waiter(word: str) -> None:
            await term.wait_for(Text(word), timeout=10)
            seen.append(word)

        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter, "second")
            tg.start_soon(waiter, "first")
            await term.send(b"1\n")
            await term.wait_for(Text("first"), timeout=10)
            await term.send(b"2\n")
        assert seen == ["first", "second"]
        await term.send(b"3\n")
        assert await term.wait_exit(timeout=10) == 0


async def test_twenty_sessions_run_concurrently() -> None:
    results: dict[int, str] = {}

    async def one(n: int) -> None:
        async with termsim.spawn(["cat"], cols=40, rows=5) as term:
            mark = await term.type(f"hello-{n}\n")
            snap = await term.wait_for(Regex(rf"^hello-{n}\s*$"), since=mark, timeout=30)
            results[n] = snap.lines[0].strip()
            await term.press("ctrl+d")
            assert await term.wait_exit(timeout=10) == 0

    async with anyio.create_task_group() as tg:
        for n in range(20):
            tg.start_soon(one, n)
    assert results == {n: f"hello-{n}" for n in range(20)}


async def test_closed_session_refuses_input_and_waits() -> None:
    async with termsim.spawn(["cat"]) as term:
        pass
    with pytest.raises(SessionClosed):
        await term.type("x")
    with pytest.raises(SessionClosed):
        await term.wait_for(Text("x"), timeout=1)


async def test_missing_program_is_a_clear_error() -> None:
    with pytest.raises(termsim.TermsimError, match="no-such-program-xyz"):
        async with termsim.spawn(["no-such-program-xyz"]):
            pass


async def test_env_replaces_the_environment_and_term_defaults() -> None:
    env = {"PATH": "/usr/bin:/bin", "ONLY_THIS": "yes"}
    script = "echo T=$TERM O=$ONLY_THIS H=${HOME:-none}"
    async with termsim.spawn(["sh", "-c", script], env=env) as term:
        await term.wait_for(Text("T=xterm-256color O=yes H=none"), timeout=10)
        assert await term.wait_exit(timeout=10) == 0


@pytest.mark.skipif(sys.platform != "linux", reason="pidfd and /proc are Linux")
async def test_exit_detected_while_a_grandchild_keeps_the_pty_open() -> None:
    script = "(sleep 30 &) ; echo started; exit 5"
    async with termsim.spawn(["sh", "-c", script]) as term:
        assert await term.wait_exit(timeout=10) == 5
        assert "started" in term.screen.text


async def test_wait_errors_show_a_film_strip_of_screens_and_inputs(
    configured_env: dict[str, str],
) -> None:
    async with termsim.spawn(EXAMPLE, env=configured_env) as term:
        await term.wait_for(PROMPT & Text("state: sleeping", region=TOOLBAR), timeout=30)
        await term.type("hi")
        mark = await term.press("enter")
        with pytest.raises(WaitTimeout) as info:
            await term.wait_for(Text("never said"), since=mark, timeout=2)
    message = str(info.value)
    strip = message.split("what happened during the wait")[1].split("the screen at the end")[0]
    assert "sent key enter" in strip
    # The last screens before the failure: the reply ends, the toolbar settles.
    assert "23 │ state: sleeping" in strip
    # Times are relative to the wait's start; the Enter came just before it.
    stamped = [line for line in strip.splitlines()[1:] if line.strip()[:1] in ("+", "-")]
    times = [float(line.split()[0]) for line in stamped]
    assert times == sorted(times) and times[0] <= 0 < times[-1] <= 2.5
    # The first screen after the input, and the last four.
    assert info.value.film and strip.count("screen (") <= 5


async def test_a_state_drawn_and_erased_within_one_read_is_still_seen() -> None:
    # Two prompt_toolkit-style frames in one write: the first shows WORKING,
    # the second erases it. A harness that reads late gets both in one read.
    frames = r"\033[?25lWORKING\033[?25h\033[?25l\r\033[K\033[?25hDONE"
    async with termsim.spawn(["sh", "-c", f"read x; printf '{frames}'; read y"]) as term:
        async with anyio.create_task_group() as tg:
            seen: list[termsim.Snapshot] = []

            async def wait_working() -> None:
                seen.append(await term.wait_for(Text("WORKING"), timeout=10))

            tg.start_soon(wait_working)
            await anyio.wait_all_tasks_blocked()
            await term.send(b"\n")
        assert seen and "WORKING" in seen[0].text
        final = await term.wait_for(Text("DONE"), timeout=10)
        assert "WORKING" not in final.text
        await term.send(b"\n")
        assert await term.wait_exit(timeout=10) == 0
