"""Did the program leave the terminal as it found it?

On the sans-IO terminal: each mode a program must turn off again is listed
while it is on, with the sequence that undoes it and when it was turned on.
On real programs: vim, less, htop, nano and the example REPL leave nothing
on when they quit; a program killed by Ctrl-C with the mouse and the
alternate screen on fails ``--termsim-hygiene``, naming them.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLE, inherited_env, program

import termsim
from termsim import CursorAfter, InputReady, TerminalLeftDirty, Text
from termsim.emulator import Terminal


def keys_of(term: Terminal) -> list[str]:
    return [left.key for left in term.leftovers()]


def test_a_fresh_terminal_has_nothing_left_on() -> None:
    assert Terminal(20, 5).leftovers() == []


@pytest.mark.parametrize(("on", "off", "key"), [
    (b"\x1b[?1049h", b"\x1b[?1049l", "alternate-screen"),
    (b"\x1b[?25l", b"\x1b[?25h", "cursor-hidden"),
    (b"\x1b[?1002h", b"\x1b[?1002l", "mouse-button"),
    (b"\x1b[?2004h", b"\x1b[?2004l", "bracketed-paste"),
    (b"\x1b[?1004h", b"\x1b[?1004l", "focus-events"),
    (b"\x1b[?1h", b"\x1b[?1l", "application-cursor"),
    (b"\x1b=", b"\x1b>", "application-keypad"),
    (b"\x1b[?2026h", b"\x1b[?2026l", "synchronized-output"),
    (b"\x1b[>1u", b"\x1b[<u", "kitty-keyboard"),
    (b"\x1b[>4;2m", b"\x1b[>4m", "modify-other-keys"),
    (b"\x1b[2;4r", b"\x1b[r", "scrolling-region"),
    (b"\x1b[?69h", b"\x1b[?69l", "left-right-margins"),
    (b"\x1b[4h", b"\x1b[4l", "insert"),
    (b"\x1b[?7l", b"\x1b[?7h", "autowrap-off"),
    (b"\x1b[?5h", b"\x1b[?5l", "reverse-video"),
    (b"\x1b[1;32m", b"\x1b[0m", "attributes"),
    (b"\x1b]8;;https://x\x1b\\", b"\x1b]8;;\x1b\\", "link-open"),
])
def test_each_mode_is_listed_while_on_and_gone_once_undone(on: bytes, off: bytes,
                                                         key: str) -> None:
    term = Terminal(20, 5)
    term.feed(b"text" + on, t=1.5)
    assert keys_of(term) == [key]
    left = term.leftovers()[0]
    assert left.undo and left.what in left.describe()
    term.feed(off)
    assert term.leftovers() == []


def test_the_mouse_encoding_counts_only_with_tracking_and_modes_say_since_when() -> None:
    term = Terminal(20, 5)
    term.feed(b"\x1b[?1006h", t=0.5)
    assert term.leftovers() == []
    term.feed(b"ab", t=1.0)
    term.feed(b"\x1b[?1000h", t=2.0)
    left = {x.key: x for x in term.leftovers()}
    assert set(left) == {"mouse-normal", "mouse-sgr"}
    assert (left["mouse-normal"].t, left["mouse-normal"].at) == (2.0, 18)
    assert left["mouse-normal"].describe() == (
        "mouse tracking (clicks, mode 1000) (undone by ESC[?1000l, on since 2.000 s)")


def test_a_reset_leaves_nothing_on() -> None:
    term = Terminal(20, 5)
    term.feed(b"\x1b[?1049h\x1b[?1000h\x1b[>1u\x1b[1m\x1bc")
    assert term.leftovers() == []


# -- real programs ---------------------------------------------------------------------


async def _quits_clean(argv: list[str], ready: termsim.Predicate, quit_keys: list[str],
                       tmp_path: Path, **env: str) -> None:
    environ = {**inherited_env(), "HOME": str(tmp_path), **env}
    async with termsim.spawn(argv, env=environ, cwd=tmp_path, hygiene=True,
                             cols=80, rows=24) as term:
        await term.wait_for(ready, timeout=30)
        for key in quit_keys:
            await term.press(key)
        await term.wait_exit(timeout=30)
        assert term.hygiene() == []


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["vim", "less", "htop", "nano"])
async def test_a_full_screen_program_that_quits_leaves_nothing_on(
    name: str, tmp_path: Path,
) -> None:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    argv, ready, keys = {
        "vim": ([path, "-u", "NONE", "-N", "notes.txt"], Text("two") & InputReady(),
                ["escape", ":", "q", "!", "enter"]),
        "less": ([path, "notes.txt"], Text("two") & InputReady(), ["q"]),
        "htop": ([path], Text("F10") & InputReady(), ["q"]),
        "nano": ([path, "--ignorercfiles", "notes.txt"], Text("two") & InputReady(),
                 ["ctrl+x"]),
    }[name]
    await _quits_clean(argv, ready, keys, tmp_path, LESS="", LESSHISTFILE="-")


@pytest.mark.anyio
async def test_the_example_repl_leaves_nothing_on(tmp_path: Path) -> None:
    config = tmp_path / ".config" / "agent-repl"
    config.mkdir(parents=True)
    (config / "config.json").write_text('{"theme": "dark"}')
    await _quits_clean(EXAMPLE, CursorAfter("❯ ") & InputReady(), ["ctrl+d"], tmp_path,
                       AGENT_REPL_BOOT_SECONDS="0.1")


@pytest.mark.anyio
async def test_a_program_that_exits_dirty_fails_its_session_naming_the_modes() -> None:
    with pytest.raises(TerminalLeftDirty) as failure:
        async with termsim.spawn(program("signals.py"), hygiene=True) as term:
            await term.wait_for(Text("ready> ") & InputReady())
            await term.press("x")
            assert await term.wait_exit() == 0
    text = str(failure.value)
    assert "left the terminal with 3 modes on" in text
    assert "the alternate screen (undone by ESC[?1049l, on since" in text
    assert "mouse tracking (clicks, mode 1000)" in text and "SGR mouse encoding" in text
    # Not judged: a program the session ends had no chance to clean up.
    waiting = [sys.executable, "-c",
               "import sys; sys.stdout.write('\\x1b[?1049hready'); sys.stdout.flush(); input()"]
    async with termsim.spawn(waiting, hygiene=True) as term:
        await term.wait_for(Text("ready"))
        assert [x.key for x in term.hygiene()] == ["alternate-screen"]


INTERRUPTED = '''
import sys, pytest, termsim
from termsim import Text

# SIGINT as a C program has it: the kernel kills the program, whenever it
# comes. (Python's own handler loses a Ctrl-C that lands between printing
# ``ready`` and the blocking read in ``input()``: the read never returns.)
PROGRAM = ("import signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
           "sys.stdout.write('\\\\x1b[?1049h\\\\x1b[?1002h\\\\x1b[?1006hready'); "
           "sys.stdout.flush(); input()")

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_interrupted():
    async with termsim.spawn([sys.executable, "-c", PROGRAM]) as term:
        await term.wait_for(Text("ready"))
        await term.press("ctrl+c")
        await term.wait_exit()
'''


def test_a_program_killed_by_ctrl_c_fails_termsim_hygiene(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_interrupted=INTERRUPTED)
    assert pytester.runpytest("-p", "no:randomly").ret == 0  # not asked: passes
    result = pytester.runpytest("-p", "no:randomly", "--termsim-hygiene")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*TerminalLeftDirty: the program exited (killed by SIGINT) and left the terminal "
        "with 3 modes on:",
        "*- the alternate screen (undone by ESC[?1049l, on since *",
        "*- mouse tracking (drags, mode 1002) (undone by ESC[?1002l, on since *",
        "*- SGR mouse encoding (mode 1006) (undone by ESC[?1006l, on since *",
    ])


@pytest.mark.anyio
async def test_a_replay_of_a_dirty_exit_fails_the_same(tmp_path: Path) -> None:
    path = tmp_path / "dirty.tsr"
    async with termsim.spawn(program("signals.py"), record=path) as term:
        await term.wait_for(Text("ready> ") & InputReady())
        await term.press("x")
        await term.wait_exit()
        live = term.hygiene()
    with pytest.raises(TerminalLeftDirty) as failure:
        async with termsim.replay(path, hygiene=True) as term:
            await term.wait_for(Text("ready> ") & InputReady())
            await term.press("x")
            await term.wait_exit()
    assert [x.key for x in failure.value.leftovers] == [x.key for x in live]
    assert [x.t for x in failure.value.leftovers] == [x.t for x in live]
