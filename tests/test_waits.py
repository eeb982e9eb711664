"""The waiting guarantees on real programs in real PTYs, on asyncio and trio.

``tests/test_engine.py`` pins each guarantee with exact interleavings on a
scripted source; these check that a live session delivers them: the kernel
really tells when the program read a key, and real programs (the example
REPL, bash's readline, a raw-mode program that redraws before reading) are
waited for correctly.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import anyio
import pytest
from conftest import EXAMPLE, inherited_env, program

import termsim
from termsim import (
    CursorAfter,
    CursorAt,
    InputReady,
    Predicate,
    Quiet,
    Regex,
    Region,
    Sequence,
    Stalled,
    Text,
    WaitTimeout,
)
from termsim.events import InputRead

pytestmark = pytest.mark.anyio

TOOLBAR = Region.row(-1)
PROMPT = CursorAfter("❯ ") & InputReady()


@pytest.mark.parametrize("inotify", [True, False], ids=["inotify", "polled"])
async def test_a_toolbar_drawn_before_the_key_was_read_is_not_the_answer(
    inotify: bool,
) -> None:
    # The program redraws "state: sleeping" 0.2 s after the key was sent, and
    # reads the key 0.1 s later; that redraw reaches termsim after the write.
    argv = program("staleecho.py", "0.2", "0.1", "0.1")
    async with termsim.Session(argv, inotify=inotify) as term:
        await term.wait_for(Text("READY") & InputReady(), timeout=10)
        mark = await term.press("x")
        snap = await term.wait_for(Text("state: sleeping"), since=mark, timeout=10)
        assert "answered 1: x" in snap.text, snap.render()
        mark = await term.press("y")
        if inotify:
            snap = await term.wait_for(
                Sequence(Text("state: working"), Text("state: sleeping")), since=mark,
                timeout=10)
        else:
            # Polled, termsim learns of the read on a timer, after the program
            # may have drawn "working" already: that screen does not count
            # (README: only output after the read was seen does), so only the
            # end can be awaited. (It once passed here because a near-miss
            # report moved the Sequence on with that screen.)
            snap = await term.wait_for(Text("state: sleeping (answered 2"), since=mark,
                                       timeout=10)
        assert "answered 2: y" in snap.text
        await term.press("ctrl+d")
        assert await term.wait_exit(timeout=10) == 0


async def test_the_example_turn_as_a_sequence(repl_env: dict[str, str]) -> None:
    events: list[termsim.files.Event] = []
    async with termsim.spawn(EXAMPLE, cols=100, rows=30, env=repl_env) as term:
        term.listeners.append(events.append)
        await term.wait_for(Text("Pick a theme"), timeout=30)
        await term.press("down", "enter")
        await term.wait_for(PROMPT & Text("state: sleeping", region=TOOLBAR), timeout=30)
        await term.type("hello")
        mark = await term.press("enter")
        screen = await term.wait_for(
            Sequence(Text("state: working", region=TOOLBAR),
                     PROMPT & Text("state: sleeping", region=TOOLBAR)),
            since=mark, timeout=30)
        assert "assistant: done (5 chars)" in screen.text
        assert "assistant: thinking about 'hello'" in term.transcript(mark)
        await term.press("ctrl+d")
        assert await term.wait_exit(timeout=10) == 0
    # The moment the program read the Enter is in the stream, after the write.
    reads = [e for e in events if isinstance(e, InputRead) and e.index == mark.index]
    assert reads and reads[0].t >= mark.at


async def test_type_with_a_trailing_newline_submits_in_bash(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    env = inherited_env()
    env.update(HOME=str(tmp_path), PS1="$ ", INPUTRC=str(tmp_path / "inputrc"))
    (tmp_path / "inputrc").write_text("set enable-bracketed-paste on\n")
    async with termsim.spawn([bash, "--norc", "--noprofile", "-i"], env=env) as term:
        await term.wait_for(CursorAfter("$ ") & InputReady(), timeout=10)
        assert term.screen.modes.bracketed_paste  # readline pastes; "\n" in a paste is text
        mark = await term.type("echo hi there\n")
        snap = await term.wait_for(Regex(r"^hi there$") & CursorAfter("$ "), since=mark,
                                   timeout=10)
        assert "$ echo hi there" in snap.text
        # A multi-line paste stays a paste until Enter.
        await term.type("echo one\necho two")
        quiet = await term.wait_for(Quiet(0.3), timeout=10)
        assert not Regex("^one$")(quiet)
        mark = await term.press("enter")
        await term.wait_for(Regex("^one$") & Regex("^two$"), since=mark, timeout=10)
        await term.type("exit\n")
        assert await term.wait_exit(timeout=10) == 0


async def test_a_reply_longer_than_the_screen_is_in_the_transcript() -> None:
    async with termsim.spawn(program("longreply.py"), rows=10) as term:
        await term.wait_for(CursorAfter("> "), timeout=10)
        mark = await term.type("q\n")
        await term.wait_for(Text("end of reply") & CursorAfter("> "), since=mark, timeout=10)
        transcript = term.transcript(mark)
        lines = [line for line in transcript.split("\n") if line.startswith("reply line")]
        assert lines == [f"reply line {n} to q" for n in range(1, 61)]
        assert "reply line 1 to q" not in term.screen.text  # scrolled off long ago
        # The same text, from a wait.
        mark = await term.type("r\n")
        await term.wait_for(Text("reply line 1 to r\nreply line 2 to r", Region.transcript()),
                            since=mark, timeout=10)
        with pytest.raises(WaitTimeout):
            await term.wait_for(Text("reply line 1 to q", Region.transcript()), since=mark,
                                timeout=0.5)


async def test_an_idle_program_stalls_a_wait_at_once(configured_env: dict[str, str]) -> None:
    # The session's default stall is longer than the boot's silence (0.3 s,
    # which may take twice as long on a slow machine: shake finds that).
    async with termsim.spawn(EXAMPLE, env=configured_env, stall=1.0) as term:
        await term.wait_for(PROMPT & Text("state: sleeping", region=TOOLBAR), timeout=30)
        with pytest.raises(Stalled) as info:
            await term.wait_for(Text("an answer nobody asked for"), timeout=300)
        # Stalled, not a plain WaitTimeout: the stall ended it, not the 300 s timeout.
        assert info.value.stalled_for is not None and info.value.stalled_for >= 1.0
        assert "the program is waiting for input" in str(info.value)
        # A wait that is answered is not stalled, and an explicit stall= wins.
        mark = await term.type("hi\n")
        await term.wait_for(Text("assistant: done"), since=mark, timeout=30, stall=5)


async def test_the_session_default_timeout_applies_and_an_explicit_one_wins() -> None:
    async with termsim.spawn(["sh", "-c", "echo up; read x"], timeout=0.3) as term:
        await term.wait_for(Text("up"), timeout=30)  # to wait for what comes, not a timeout
        with pytest.raises(WaitTimeout, match=r"timed out after 0\.3 s"):
            await term.wait_for(Text("never"))
        with pytest.raises(WaitTimeout, match=r"timed out after 0\.1 s"):
            await term.wait_for(Text("never"), timeout=0.1)


@pytest.mark.parametrize("repl", ["IPython", "ptpython"])
async def test_typing_a_line_submits_it_in_prompt_toolkit_repls(
    repl: str, tmp_path: Path,
) -> None:
    pytest.importorskip(repl)
    from test_real_repls import fresh_env

    prompt = CursorAfter("In [1]: ") if repl == "IPython" else CursorAfter(">>> ")
    argv = [sys.executable, "-m", repl] + (["--no-banner"] if repl == "IPython" else [])
    async with termsim.spawn(argv, env=fresh_env(tmp_path), cols=100, rows=30) as term:
        await term.wait_for(prompt & InputReady(), timeout=60)
        assert term.screen.modes.bracketed_paste
        mark = await term.type("6 * 7\n")
        await term.wait_for(Text("42") & InputReady(), since=mark, timeout=30)


@pytest.mark.parametrize(("predicate", "named"), [
    (Text("x", Region.row(50)), "row 50"),
    (Text("x", Region.rows(-30, None)), "rows -30: (its row -30)"),
    (Text("x", Region.rect(0, 90, 2, None)), "(its column 90)"),
    (CursorAt(99, 99), "the cursor's row 99"),
    (Text("prompt") & ~Text("x", Region.row(24)), "row 24"),
])
async def test_a_wait_outside_the_screen_fails_at_once(predicate: Predicate, named: str) -> None:
    async with termsim.spawn(["sh", "-c", "echo prompt; read x"]) as term:
        await term.wait_for(Text("prompt"))
        with anyio.fail_after(10), pytest.raises(ValueError) as info:
            await term.wait_for(predicate, timeout=600)
        assert named in str(info.value)
        assert "80 columns x 24 rows" in str(info.value)
        # The bottom row, a region that ends past the edge, and an inner
        # row all fit: they wait as usual.
        for fits in (Text("x", Region.row(-1)), Text("x", Region.rows(20, 99)),
                     CursorAt(23, 79)):
            with pytest.raises(termsim.WaitTimeout):
                await term.wait_for(fits, timeout=0.05)


async def test_a_pending_wait_fails_when_a_resize_leaves_its_region_outside() -> None:
    async with termsim.spawn(["sh", "-c", "echo prompt; read x"]) as term:
        await term.wait_for(Text("prompt"))
        failed = anyio.Event()

        async def waiter() -> None:
            with pytest.raises(ValueError, match="row 20 is outside the screen, which is 80 "
                               "columns x 10 rows"):
                await term.wait_for(Text("never", Region.row(20)), timeout=600)
            failed.set()

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(waiter)
                await anyio.wait_all_tasks_blocked()
                await term.resize(80, 10)
                await failed.wait()
