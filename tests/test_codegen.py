"""``termsim codegen``: a recorded session becomes the test a person would
have written, and that test passes live (three times), on replay of its own
recording and under shake, and fails when the program changes.

Sessions are recorded here by scripts (the same calls a person's keys make),
on real programs: the example REPL, IPython, bash, sqlite3, less and vim
where installed, and a small program with a clock in its status line.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from conftest import EXAMPLE, examples, inherited_env, program
from helpers import recorded

import termsim
from termsim import CursorAfter, InputReady, Text
from termsim.cli import main
from termsim.codegen import generate
from termsim.codegen.keys import Key, decode
from termsim.codegen.masks import pattern_of, variable_spans

Script = Callable[[termsim.Driver], Awaitable[None]]


# -- reading keys back from bytes ----------------------------------------------------


@pytest.mark.parametrize(("data", "keys"), [
    (b"select 1;\r", [("text", "select 1;"), ("key", "enter")]),
    (b"\x1b[A\x1bOB\t\x1b[Z", [("key", "up"), ("key", "down"), ("key", "tab"),
                               ("key", "shift+tab")]),
    (b"\x03\x04\x7f", [("key", "ctrl+c"), ("key", "ctrl+d"), ("key", "backspace")]),
    (b"\x1bx\x1b[1;5C\x1b[15~", [("key", "alt+x"), ("key", "ctrl+right"), ("key", "f5")]),
    (b"\x1b[<0;5;3M\x1b[<0;5;3m", [("click", (2, 4, "left"))]),
    (b"\x1b[M !#", [("click", (2, 0, "left"))]),
    (b"\x1b[200~a\nb\x1b[201~", [("paste", "a\nb")]),
    ("❯ é".encode(), [("text", "❯ é")]),
    # A real terminal's answers to the program's queries are no keys.
    (b"\x1b[12;1Rx\x1b[?62;22c\x1b]11;rgb:0000/0000/0000\x1b\\", [("text", "x")]),
])
def test_input_bytes_read_back_as_keys(data: bytes, keys: list[tuple[str, object]]) -> None:
    assert decode(data) == [Key(kind, value) for kind, value in keys]


def test_every_key_termsim_sends_reads_back_as_itself() -> None:
    for name in ("enter", "tab", "escape", "up", "end", "f1", "f12", "pageup", "ctrl+a",
                 "ctrl+left", "alt+shift+up", "delete"):
        for application in (False, True):
            data = termsim.emulator.key_bytes(name, application_cursor=application)
            assert decode(data, application_cursor=application) == [Key("key", name)], name


# -- what varies from run to run ----------------------------------------------------------


@pytest.mark.parametrize(("line", "varies"), [
    ("now 10:41:07, all good", ["10:41:07"]),
    ("took 0.52 s to build", ["0.52 s"]),
    ("wrote /tmp/pytest-7/out.txt", ["/tmp/pytest-7/out.txt"]),
    ("started pid 4242", ["pid 4242"]),
    ("commit 3f2a9c1d8e", ["3f2a9c1d8e"]),
    ("Out[1]: 45", []),
])
def test_clocks_durations_paths_pids_and_ids_vary(line: str, varies: list[str]) -> None:
    spans = variable_spans(line)
    assert [line[a:b] for a, b, _ in spans] == varies
    import re
    assert re.fullmatch(pattern_of(line, spans), line)


def test_a_second_run_says_what_else_varies() -> None:
    spans = variable_spans("job 17 finished", "job 23 finished")
    assert [(a, b) for a, b, _ in spans] == [(4, 6)]
    import re
    assert re.fullmatch(pattern_of("job 17 finished", spans), "job 5 finished")


# -- real programs: recorded, generated, run ------------------------------------------


def _check_generated(pytester: pytest.Pytester, recording: Path, *, runs: int = 3) -> str:
    """Generate the test, run it live ``runs`` times, then under shake; the
    generated ``drive`` also replays its own recording (``test_replay``)."""
    source = _generated_passes(pytester, recording)
    _generated_passes_again_and_shaken(pytester, source, runs=runs)
    return source


def _generated_passes(pytester: pytest.Pytester, recording: Path) -> str:
    """The generated test, live and replaying its recording, on both backends."""
    source = generate(str(recording))
    assert "sleep(" not in source and source == generate(str(recording))
    compile(source, "generated", "exec")
    replay = f'''

async def test_replay() -> None:
    async with termsim.replay({str(recording)!r}) as term:
        await drive(term)
'''
    pytester.makepyfile(test_generated=source + replay)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    # A replay that fails shows the recorded events, in order (which input
    # the program was seen to read where): the recording itself is gone
    # with the test's directory.
    assert result.ret == 0, source + result.stdout.str()[-3000:] + "\nthe recording:\n" + "\n".join(
        repr(event) for event in termsim.files.Recording.open(recording).events)
    result.assert_outcomes(passed=4)  # live and replay, asyncio and trio
    return source


def _generated_passes_again_and_shaken(pytester: pytest.Pytester, source: str, *,
                                       runs: int) -> None:
    """``runs - 1`` more live runs of it, on one backend, then one under shake."""
    if not (pytester.path / "test_generated.py").exists():
        pytester.makepyfile(test_generated=source)
    for _ in range(runs - 1):  # again, live, on one backend
        result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "-k",
                                    "asyncio and not replay")
        assert result.ret == 0, source + result.stdout.str()[-3000:]
    variants = examples(50)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider",
                                f"--termsim-shake={variants}", "-k", "asyncio and not replay")
    assert result.ret == 0, source + result.stdout.str()[-3000:]
    assert f"1 passing tests ran {variants} variants" in result.stdout.str()


@pytest.fixture
def repl_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A HOME where the example REPL's theme is chosen, in this process's
    environment too: the generated test inherits it, and may run again."""
    home = tmp_path / "home"
    config = home / ".config" / "agent-repl"
    config.mkdir(parents=True)
    (config / "config.json").write_text('{"theme": "dark"}')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENT_REPL_BOOT_SECONDS", "0.1")
    for name in list(os.environ):
        if name.startswith(("XDG_", "PROMPT_TOOLKIT_")) or name == "AGENT_REPL_BOOT_HANG":
            monkeypatch.delenv(name)
    return dict(os.environ)


async def _repl_turns(term: termsim.Driver) -> None:
    prompt = CursorAfter("❯ ") & InputReady()
    await term.wait_for(prompt & Text("state: sleeping"), timeout=30)
    for question in ("and again",):  # one turn: each streams its reply for a second
        await term.type(question)
        mark = await term.press("enter")
        await term.wait_for(prompt & Text("state: sleeping", region=termsim.Region.row(-1))
                            & Text(f"thinking about '{question}'"), since=mark)
    await term.press("ctrl+d")
    await term.wait_exit()


@pytest.fixture(scope="module")
def repl_recording(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One recording of the example REPL's turns, in a HOME as ``repl_home``
    makes, and the test made from it: shared by the tests that run that
    test (as one test, all of it took 11 s; xdist spreads these)."""
    import anyio

    folder = tmp_path_factory.mktemp("repl")
    with pytest.MonkeyPatch.context() as env:
        config = folder / "home" / ".config" / "agent-repl"
        config.mkdir(parents=True)
        (config / "config.json").write_text('{"theme": "dark"}')
        env.setenv("HOME", str(folder / "home"))
        env.setenv("AGENT_REPL_BOOT_SECONDS", "0.1")
        for name in list(os.environ):
            if name.startswith(("XDG_", "PROMPT_TOOLKIT_")) or name == "AGENT_REPL_BOOT_HANG":
                env.delenv(name)
        recording = folder / "repl.tsr"
        anyio.run(recorded, EXAMPLE, recording, _repl_turns)
    return recording, generate(str(recording))


def test_the_example_repl_s_generated_test_passes(
    pytester: pytest.Pytester, repl_home: dict[str, str],
    repl_recording: tuple[Path, str],
) -> None:
    recording, made = repl_recording
    source = _generated_passes(pytester, recording)
    assert source == made
    assert 'Text("state: working", region=Region.row(-1))' in source  # shown on the way
    assert "assistant: done (9 chars)" in source


def test_the_example_repl_s_generated_test_passes_again_and_shaken(
    pytester: pytest.Pytester, repl_home: dict[str, str],
    repl_recording: tuple[Path, str],
) -> None:
    # (Apart from the test above: each waits on the REPL, so they run side by side.)
    _, made = repl_recording
    _generated_passes_again_and_shaken(pytester, made, runs=3)


def test_the_example_repl_s_generated_test_fails_when_the_boot_hangs(
    pytester: pytest.Pytester, repl_home: dict[str, str], monkeypatch: pytest.MonkeyPatch,
    repl_recording: tuple[Path, str],
) -> None:
    # A boot that hangs: the live test fails with termsim's message.
    _, source = repl_recording
    monkeypatch.setenv("AGENT_REPL_BOOT_HANG", "1")
    assert "timeout=30" in source  # the program's start may be slow
    pytester.makepyfile(test_generated=source.replace("timeout=30", "timeout=2", 1))
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "-k",
                                "asyncio")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*WaitTimeout: timed out after 2 s waiting for*"])


def test_what_varies_is_left_free_and_the_test_passes_a_minute_later(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import anyio

    async def turns(term: termsim.Driver) -> None:
        await term.wait_for(Text("> ") & InputReady())
        for command in ("build", "test"):
            await term.type(command)
            mark = await term.press("enter")
            await term.wait_for(Text(f"ran '{command}'") & Text("ready at"), since=mark)
        await term.press("ctrl+d")
        await term.wait_exit()

    recording = tmp_path / "clock.tsr"
    anyio.run(recorded, program("clock.py"), recording, turns)
    source = generate(str(recording))
    assert "Regex(" in source and "took" in source
    monkeypatch.setenv("CLOCK_OFFSET", "61")  # a minute later, another pid
    _check_generated(pytester, recording, runs=1)


async def _bash(term: termsim.Driver) -> None:
    await term.wait_for(Text("$ ") & InputReady())
    await term.type("ech")
    await term.press("tab")  # completed to "echo "
    await term.wait_for(CursorAfter("$ echo "))
    await term.type("hello codegen")
    mark = await term.press("enter")
    await term.wait_for(Text("hello codegen\n$"), since=mark)
    # A reply longer than the screen: its start is awaited in the transcript.
    await term.type("seq -f 'line %g' 1 60")
    mark = await term.press("enter")
    await term.wait_for(Text("line 60\n$"), since=mark)
    await term.type("exit")
    await term.press("enter")
    await term.wait_exit()


async def _sqlite(term: termsim.Driver) -> None:
    await term.wait_for(Text("sqlite> ") & InputReady())
    await term.type("select 6 * 7 as answer;")
    mark = await term.press("enter")
    await term.wait_for(Text("42\nsqlite>"), since=mark)
    await term.type(".quit")
    await term.press("enter")
    await term.wait_exit()


async def _ipython(term: termsim.Driver) -> None:
    await term.wait_for(CursorAfter("In [1]: ") & InputReady(), timeout=60)
    await term.type("sum(range(10))")
    mark = await term.press("enter")
    await term.wait_for(Text("Out[1]: 45") & CursorAfter("In [2]: "), since=mark, timeout=30)
    await term.type("exit")
    await term.press("enter")
    await term.wait_exit(timeout=30)


async def _less(term: termsim.Driver) -> None:
    await term.wait_for(Text("line 01") & InputReady())
    mark = await term.press("space")
    await term.wait_for(Text("line 40"), since=mark)
    await term.press("q")
    await term.wait_exit()


async def _vim(term: termsim.Driver) -> None:
    await term.wait_for(Text("line 01") & InputReady())
    await term.press("i")
    await term.wait_for(Text("-- INSERT --"))
    await term.type("hello ")
    mark = await term.press("escape")
    await term.wait_for(~Text("-- INSERT --"), since=mark)
    await term.type(":q!")
    await term.press("enter")
    await term.wait_exit()


async def _textual(term: termsim.Driver) -> None:
    await term.wait_for(Text("Press me") & InputReady(), timeout=30)
    screen = term.screen
    row = next(r for r, line in enumerate(screen.lines) if "Press me" in line)
    mark = await term.click(row, screen.lines[row].index("Press me") + 2)
    await term.wait_for(Text("pressed 1 times"), since=mark)
    await term.press("ctrl+q")
    await term.wait_exit(timeout=30)


def _lines(tmp_path: Path) -> str:
    path = tmp_path / "lines.txt"
    path.write_text("".join(f"line {n:02}\n" for n in range(1, 61)))
    return str(path)


PROGRAMS: dict[str, tuple[Callable[[Path], list[str] | None], Script, dict[str, str]]] = {
    "bash": (lambda tmp: [shutil.which("bash"), "--norc", "--noprofile", "-i"]  # type: ignore[list-item]
             if shutil.which("bash") else None, _bash, {"PS1": "$ "}),
    "sqlite3": (lambda tmp: [shutil.which("sqlite3")]  # type: ignore[list-item]
                if shutil.which("sqlite3") else None, _sqlite, {}),
    "ipython": (lambda tmp: [sys.executable, "-m", "IPython", "--no-banner", "--colors=NoColor"],
                _ipython, {"PYTHONSTARTUP": ""}),
    "less": (lambda tmp: [shutil.which("less"), _lines(tmp)]  # type: ignore[list-item]
             if shutil.which("less") else None, _less, {"LESS": "", "LESSHISTFILE": "-"}),
    # noesckeys: vim takes Escape in insert mode at once, rather than when it
    # knows it began no key code (a second later, or at the next key; till
    # then it clears its mode line and draws it again, and a wait for the
    # mode's end can match in between).
    "vim": (lambda tmp: [shutil.which("vim"), "-u", "NONE", "-N", "-n",  # type: ignore[list-item]
                         "-c", "set noesckeys", _lines(tmp)]
            if shutil.which("vim") else None, _vim, {}),
    "textual": (lambda tmp: program("textual_button.py"), _textual, {}),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_real_program_s_generated_test_passes_live_on_replay_and_shaken(
    name: str, pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import anyio

    make_argv, script, env = PROGRAMS[name]
    if name == "ipython":
        pytest.importorskip("IPython")
    if name == "textual":
        pytest.importorskip("textual")
    argv = make_argv(tmp_path)
    if argv is None:
        pytest.skip(f"{name} is not installed")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    recording = tmp_path / f"{name}.tsr"
    anyio.run(recorded, argv, recording, script)
    source = _check_generated(pytester, recording)
    if name == "bash":  # the three lines above the final screen's top row
        assert 'Text("line 35\\nline 36\\nline 37", region=Region.transcript())' in source
    if name == "vim":  # "i" changed the mode before "hello " was typed: two calls
        assert 'await term.press("i")\n' in source and 'await term.type("hello ")' in source
        assert 'Text("-- INSERT --", region=Region.row(-1))' in source


def test_record_test_writes_a_test_that_passes_and_codegen_takes_two_runs(
    tmp_path: Path, pytester: pytest.Pytester,
) -> None:
    import anyio

    # As a person runs it, in a terminal (termsim's own), typing at it.
    env = {**inherited_env(), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    test_file = tmp_path / "test_clock.py"
    command = ["termsim", "record", "--test", str(test_file), "--cols", "80", "--rows", "24",
               "--", *program("clock.py")]

    async def person() -> str:
        async with termsim.spawn(command, env=env, cols=80, rows=24, record=False) as term:
            await term.wait_for(Text("> ") & Text("ready at") & InputReady())
            for key in "build":
                await term.press(key)
            mark = await term.press("enter")
            await term.wait_for(Text("ran 'build'") & CursorAfter("> "), since=mark)
            await term.press("ctrl+d")
            assert await term.wait_exit() == 0
            return term.screen.text

    assert "wrote" in anyio.run(person)
    source = test_file.read_text()
    assert 'await term.type("build")' in source and "since=mark" in source
    recording = tmp_path / "test_clock.tsr"
    # The person typed key by key; the test types the word in one write, and
    # still replays against the recording (its reads counted by its keys).
    _check_generated(pytester, recording, runs=1)
    # Two runs: what differs between them (the pid, the time) is left free.
    assert main(["codegen", str(recording), str(recording), "-o", str(tmp_path / "t.py")]) == 0
    assert (tmp_path / "t.py").read_text() == source


@pytest.mark.parametrize(("row", "said"), [
    ("│ [x] answer CPR          │", "[x] answer CPR"),
    ("│", ""),
    (" [F4] Emacs mode                            [F2] Menu - CPython 3.11.7    "
     + " " * 30 + "[F3] History", "[F3] History"),
])
def test_a_row_is_awaited_by_what_it_says_not_its_frame(row: str, said: str) -> None:
    from termsim.codegen.waits import _said

    assert _said(row) == said


def test_a_version_varies_between_machines() -> None:
    line = "Menu - CPython 3.11.7"
    spans = variable_spans(line)
    assert [line[a:b] for a, b, _ in spans] == ["3.11.7"]


def test_marks_made_while_recording_become_asserts_and_golden_files(
    tmp_path: Path, pytester: pytest.Pytester,
) -> None:
    import anyio

    env = {**inherited_env(), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    test_file = tmp_path / "test_marked.py"
    command = ["termsim", "record", "--test", str(test_file), "--golden", "--cols", "80",
               "--rows", "24", "--", *program("clock.py")]

    async def person() -> None:
        async with termsim.spawn(command, env=env, cols=80, rows=24, record=False) as term:
            await term.wait_for(Text("> ") & Text("ready at") & InputReady())
            await term.type("build")
            mark = await term.press("enter")
            await term.wait_for(Text("ran 'build'") & CursorAfter("> "), since=mark)
            # The mark key never reaches the program: a menu on the bottom row.
            await term.press("ctrl+]")
            await term.wait_for(Text("termsim mark: s screen"))
            await term.press("s")
            await term.wait_for(~Text("termsim mark") & Text("ready at"))
            await term.press("ctrl+]")
            await term.press("r")
            await term.press("ctrl+]")
            await term.press("c")
            await term.wait_for(Text("termsim comment (Enter ends):"))
            await term.type("the build ran")
            await term.press("enter")
            await term.wait_for(~Text("termsim comment"))
            await term.press("ctrl+d")
            assert await term.wait_exit() == 0

    anyio.run(person)
    source = test_file.read_text()
    assert 'golden=SCREENS / "screen-1.screen"' in source
    assert "mask=[Region.row(1), Region.row(-1)]" in source  # a duration, a clock and pid
    # The row marked is the prompt's, "> ": it says no words, so it is not awaited.
    assert source.count("await term.wait_for(") == 2
    assert "# the build ran" in source
    golden = (tmp_path / "test_marked.screens" / "screen-1.screen").read_text()
    assert golden.startswith("screen 80x24\n|> build") and "|░░░░" in golden
    recording = tmp_path / "test_marked.tsr"
    assert b"\x1d" not in b"".join(e.data for e in termsim.files.Recording.open(recording).events
                                   if isinstance(e, termsim.events.Input))
    _check_generated(pytester, recording, runs=1)


def test_a_screen_marked_without_golden_is_asserted_inline(
    tmp_path: Path, pytester: pytest.Pytester,
) -> None:
    import anyio

    async def turns(term: termsim.Driver) -> None:
        await term.wait_for(Text("> ") & InputReady())
        await term.type("build")
        mark = await term.press("enter")
        await term.wait_for(Text("ran 'build'") & CursorAfter("> "), since=mark)
        term.note("termsim: assert the screen")  # as the marks menu leaves them
        term.note("termsim: comment the build ran")
        await term.press("ctrl+d")
        await term.wait_exit()

    recording = tmp_path / "inline.tsr"
    anyio.run(recorded, program("clock.py"), recording, turns)
    source = _check_generated(pytester, recording, runs=1)
    assert 'await term.expect_screen(\n        """\n> build\n░░░░' in source
    assert "# the build ran" in source


@pytest.mark.parametrize("name", ["ctrl+i", "tab", "shift+enter", "ctrl+shift+a", "alt+x",
                                  "escape", "f13"])
@pytest.mark.parametrize("flags", [1, 8, 9])
def test_keys_in_the_kitty_protocol_read_back_as_themselves(name: str, flags: int) -> None:
    data = termsim.emulator.key_bytes(name, kitty_flags=flags)
    assert decode(data) == [Key("key", name)], data
    # With event types reported, the release press() adds reads as nothing.
    release = termsim.emulator.key_bytes(name, kitty_flags=flags | 2, event="release")
    assert decode(release) == []


def test_keys_in_modify_other_keys_read_back_as_themselves() -> None:
    for name in ("ctrl+i", "shift+enter", "ctrl+m"):
        data = termsim.emulator.key_bytes(name, modify_other_keys=2)
        assert data.startswith(b"\x1b[27;") and decode(data) == [Key("key", name)]
