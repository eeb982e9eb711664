"""``termsim drive``: the example REPL driven through the command alone, a
process a step, and the test its recording gives.

Every step runs the real command in a child process, against a real daemon
holding the REPL in a real PTY (``drive_steps.py``). The transcript of the
main run is the one docs/drive.md and the README show (compared by shape:
its numbers, a pid, a time, may differ, not its words).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from drive_steps import Driver, Ran, drive_in, wait_gone
from readme import shape
from test_docs import docs_fence

from termsim.codegen.driven import driven_steps
from termsim.files import Recording

PROMPT = ["--cursor-after", "❯ ", "--input-ready"]

#: The steps of the issue, as a person types them (``python`` is this
#: interpreter when they run).
STEPS: list[list[str]] = [
    ["start", "repl", "--cols", "60", "--rows", "16", "--", "python", "examples/agent_repl.py"],
    ["wait", "repl", "--text", "Pick a theme", "--timeout", "30"],
    ["press", "repl", "down", "enter"],
    ["wait", "repl", *PROMPT, "--timeout", "30"],
    ["type", "repl", "hello"],
    ["press", "repl", "enter"],
    ["wait", "repl", "--text", "assistant: done", *PROMPT],
    ["screen", "repl"],
    ["stop", "repl"],
]


@pytest.fixture
def drive(tmp_path: Path) -> Iterator[Driver]:
    yield from drive_in(tmp_path)


def _run(drive: Driver, args: list[str]) -> Ran:
    return drive(*[sys.executable if a == "python" else a for a in args])


def _transcript(steps: list[list[str]], runs: list[Ran]) -> str:
    lines = []
    for args, ran in zip(steps, runs, strict=True):
        lines.append(f"$ termsim drive {shlex.join(args)}")
        lines += ran.out.rstrip("\n").split("\n")
    return "\n".join(lines) + "\n"


def _same_shape(made: str, shown: str) -> None:
    made_lines, shown_lines = made.rstrip("\n").split("\n"), shown.rstrip("\n").split("\n")
    assert len(made_lines) == len(shown_lines), made
    for line, sample in zip(made_lines, shown_lines, strict=True):
        assert re.fullmatch(shape(sample), line.rstrip()), (line, sample, made)


def test_the_example_repl_driven_through_the_cli_alone_gives_a_test_that_passes_live_and_on_replay(
    drive: Driver, pytester: pytest.Pytester,
) -> None:
    runs = [_run(drive, args) for args in STEPS]
    start, first, _, prompt, typed, enter, reply, screen, stop = runs
    assert start.out.startswith("started repl: pid ")
    assert "recording to .termsim/drive/repl.tsr" in start.out
    assert first.out == "matched: text 'Pick a theme' in the screen\n"
    assert "counting from input #2 (key enter)" in prompt.out  # the last key of two
    assert typed.out == "input #3: typed 'hello'\n" and enter.out == "input #4: key enter\n"
    assert "counting from input #4 (key enter)" in reply.out
    assert "assistant: done (5 chars)" in screen.out and "state: sleeping" in screen.out
    assert stop.out.splitlines() == [
        "stopped repl (the program was hung up)", "recording: .termsim/drive/repl.tsr",
        "a test from it: termsim codegen .termsim/drive/repl.tsr -o test_repl.py"]
    # The daemon ends with its last session (grace 0 here): no process is left.
    pid = drive.daemon_pid()
    assert pid is not None
    assert wait_gone(pid), drive.log()
    assert not (drive.directory / "drive.sock").exists()

    transcript = _transcript(STEPS, runs)
    _same_shape(transcript, docs_fence("drive-transcript"))

    recording = drive.cwd / ".termsim" / "drive" / "repl.tsr"
    rec = Recording.open(recording)
    assert rec.complete
    assert [s.verb for s in driven_steps(rec)] == [
        "start", "wait", "press", "wait", "type", "press", "wait"]

    # The test the recording gives: the waits that were run, each since the
    # input it counted from.
    gone = drive("stop", "repl", check=1)  # the daemon is gone with its last session
    assert gone.err.startswith("termsim drive stop: no termsim drive daemon is running "
                               "(nothing listens at ")
    source = _generated(drive, recording)
    body = source[source.index("async def drive"):source.index("async def test_")]
    assert body.rstrip("\n").split("\n")[1:] == docs_fence("drive-test").rstrip("\n").split("\n")
    assert "since=mark" in body and 'mark = await term.press("down", "enter")' in body
    _passes_live_and_on_replay(pytester, source, recording)


def _generated(drive: Driver, recording: Path) -> str:
    """The test ``stop --test`` would have written, made from the recording
    by the same function (``termsim codegen`` once it dispatches to it)."""
    from termsim.codegen.driven import generate

    return generate(str(recording))


#: A HOME of its own for each generated test: the example REPL shows its
#: first-run picker only where no theme was chosen yet.
FRESH_HOME = '''
import pytest

@pytest.fixture(autouse=True)
def fresh_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AGENT_REPL_BOOT_SECONDS", "0.3")
'''


def _passes_live_and_on_replay(pytester: pytest.Pytester, source: str, recording: Path) -> None:
    (pytester.path / "examples").mkdir()
    (pytester.path / "examples" / "agent_repl.py").symlink_to(
        Path(__file__).resolve().parent.parent / "examples" / "agent_repl.py")
    replay = f'''

async def test_replay() -> None:
    async with termsim.replay({str(recording)!r}) as term:
        await drive(term)
'''
    pytester.makeconftest(FRESH_HOME)
    pytester.makepyfile(test_generated=source + replay)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    assert result.ret == 0, source + result.stdout.str()[-3000:]
    result.assert_outcomes(passed=4)  # live and replay, asyncio and trio


def test_stop_test_writes_the_test_and_json_answers_every_step(drive: Driver) -> None:
    started = drive("start", "repl", "--json", "--", sys.executable, "examples/agent_repl.py")
    answer = started.json()
    assert answer["ok"] and answer["verb"] == "start" and answer["cols"] == 80
    assert answer["recording"].endswith("/.termsim/drive/repl.tsr")
    waited = drive("wait", "repl", "--text", "Pick a theme", "--timeout", "30", "--json").json()
    assert waited["ok"] and waited["since"] is None
    assert waited["match"]["text"] == "Pick a theme" and waited["match"]["row"] == 0
    lines = waited["screen"]["lines"]
    assert len(lines) == 24 and "Pick a theme" in lines[0]
    assert waited["screen"]["cursor"]["visible"] in (True, False)
    assert isinstance(waited["screen"]["unanswered"], list)
    pressed = drive("press", "repl", "enter", "--json").json()
    assert pressed == {"ok": True, "verb": "press", "session": "repl", "input": 1,
                       "label": "key enter", "at": pressed["at"]}
    shown = json.loads(docs_fence("drive-json-press"))  # docs/drive.md's example
    assert shown.keys() == pressed.keys() and shown["label"] == pressed["label"]
    drive("wait", "repl", *PROMPT, "--timeout", "30", "--json")
    screen = drive("screen", "repl", "--json").json()
    assert screen["screen"]["input_ready"] is True and screen["screen"]["title"] == "agent-repl"
    assert screen["text"].startswith(" Pick a theme:")
    framed = drive("screen", "repl", "--frame").out
    assert "^ cursor" in framed and "screen 80x24" in framed
    status = drive("status", "--json").json()
    (one,) = status["sessions"]
    assert one["name"] == "repl" and one["state"] == "running" and one["inputs"] == 1
    assert one["input_ready"] is True
    assert status["holder"]["pid"] == drive.daemon_pid()
    assert drive("status").out.startswith("repl: running, pid ")
    stopped = drive("stop", "repl", "--test", "test_repl.py", "--json").json()
    assert stopped["ok"] and stopped["hung_up"] and stopped["test"] == "test_repl.py"
    test = (drive.cwd / "test_repl.py").read_text()
    assert 'mark = await term.press("enter")' in test
    assert "since=mark" in test and "async def test_repl() -> None:" in test


def test_a_failed_wait_says_what_a_test_would_and_exits_non_zero(drive: Driver) -> None:
    drive("start", "repl", "--", sys.executable, "examples/agent_repl.py")
    drive("wait", "repl", "--text", "Pick a theme", "--timeout", "30")
    failed = drive("wait", "repl", "--text", "no such text", "--region", "row:-1",
                   "--timeout", "1", check=1)
    assert failed.out == ""
    lines = failed.err.splitlines()
    assert lines[0] == ("termsim.WaitTimeout: timed out after 1 s waiting for text "
                        "'no such text' in the bottom row")
    assert any(line.startswith("  screen 80x24, cursor at row ") for line in lines)
    assert any("Pick a theme" in line for line in lines)
    as_json = drive("wait", "repl", "--text", "no such text", "--timeout", "1", "--json",
                    check=1).json()
    assert as_json["ok"] is False and as_json["status"] == 1
    assert as_json["error"]["type"] == "termsim.WaitTimeout"
    assert as_json["error"]["message"].startswith(
        "timed out after 1 s waiting for text 'no such text' in the screen")
    assert "Pick a theme" in as_json["screen"]["lines"][0]
    # Asked wrongly: exit status 2, the fix named.
    bad = drive("wait", "repl", "--text", "x", "--region", "row:one", check=2)
    assert "cannot read the region 'row:one': use row:N" in bad.err
    unknown = drive("press", "repl", "hyperspace", check=2)
    assert unknown.err.startswith("termsim.UnknownKey: ")
    nothing = drive("wait", "repl", check=2)
    assert "say what to wait for" in nothing.err
    assert drive("press", "ghost", "enter", check=1).err.startswith(
        "termsim drive press: no session named 'ghost' (sessions: repl)")
    twice = drive("start", "repl", "--", sys.executable, "-c", "pass", check=1)
    assert "a session named 'repl' is already running" in twice.err
    missing = drive("start", "other", "--", "no-such-program-here", check=1)
    assert "termsim.TermsimError: cannot start 'no-such-program-here'" in missing.err
    # The timed-out waits are in the recording, and left out of the test.
    stop = drive("stop", "repl", "--test", "test_repl.py")
    assert "test: test_repl.py" in stop.out
    test = (drive.cwd / "test_repl.py").read_text()
    assert "# while driving, this wait timed out: Text('no such text'" in test
    assert 'await term.wait_for(Text("Pick a theme"), timeout=30)' in test


def test_a_wait_on_a_session_whose_program_exited_fails_at_once(drive: Driver) -> None:
    config = drive.cwd / "home" / ".config" / "agent-repl"
    config.mkdir(parents=True)
    (config / "config.json").write_text('{"theme": "dark"}\n')  # no picker
    drive("start", "repl", "--", sys.executable, "examples/agent_repl.py")
    drive("wait", "repl", *PROMPT, "--timeout", "30")
    drive("press", "repl", "ctrl+d")
    exited = drive("wait", "repl", "--exit", "--timeout", "30")
    assert exited.out == "the program exited: exit status 0\n"
    failed = drive("wait", "repl", "--text", "anything", check=1)
    assert failed.err.startswith("termsim.ProcessExited: ")
    assert "exit status 0" in failed.err.splitlines()[0] or "exited" in failed.err
    status = drive("status", "repl", "--json").json()
    assert status["state"] == "exited" and status["exit_status"] == 0
    stop = drive("stop", "repl", "--test", "test_repl.py")
    assert stop.out.startswith("stopped repl (the program had exited: exit status 0)")
    test = (drive.cwd / "test_repl.py").read_text()
    assert 'await term.press("ctrl+d")' in test
    assert "assert await term.wait_exit(timeout=30) == 0" in test


def test_resize_and_paste_are_steps_of_the_test_too(drive: Driver,
                                                   pytester: pytest.Pytester) -> None:
    config = drive.cwd / "home" / ".config" / "agent-repl"
    config.mkdir(parents=True)
    (config / "config.json").write_text('{"theme": "dark"}\n')
    drive("start", "repl", "--", sys.executable, "examples/agent_repl.py")
    drive("wait", "repl", *PROMPT, "--timeout", "30")
    resized = drive("resize", "repl", "60", "20")
    assert resized.out == "input #1: resize 60x20\n"
    after = drive("wait", "repl", *PROMPT, "--json").json()
    assert after["since"]["input"] == 1
    assert (after["screen"]["cols"], after["screen"]["rows"]) == (60, 20)
    pasted = drive("paste", "repl", "hello")
    assert pasted.out.startswith("input #2: bytes ")  # bracketed: prompt_toolkit asked
    drive("wait", "repl", "--cursor-after", "❯ hello")
    drive("press", "repl", "enter")
    drive("wait", "repl", "--text", "assistant: done (5 chars)", *PROMPT)
    since = drive("wait", "repl", "--text", "thinking about", "--since", "2")
    assert "counting from input #2" in since.out
    stop = drive("stop", "repl", "--json").json()
    source = _generated(drive, Path(stop["recording"]))
    assert "mark = await term.resize(cols=60, rows=20)" in source
    assert "mark_2 = await term.send(b\"\\x1b[200~hello\\x1b[201~\")" in source
    assert "since=mark_2" in source
    replay = f'''

async def test_replay() -> None:
    async with termsim.replay({stop["recording"]!r}) as term:
        await drive(term)
'''
    pytester.makepyfile(test_generated=source + replay)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "-k", "replay")
    assert result.ret == 0, source + result.stdout.str()[-3000:]
    result.assert_outcomes(passed=2, deselected=2)


def test_termsim_codegen_writes_the_driven_test(drive: Driver, tmp_path: Path) -> None:
    """Once ``termsim codegen`` dispatches a driven recording to the driven
    generator (the proposal), it writes the same test as ``stop --test``."""
    import subprocess

    drive("start", "repl", "--", sys.executable, "examples/agent_repl.py")
    drive("wait", "repl", "--text", "Pick a theme", "--timeout", "30")
    stop = drive("stop", "repl", "--test", "test_repl.py", "--json").json()
    done = subprocess.run([sys.executable, "-m", "termsim", "codegen", stop["recording"]],
                          capture_output=True, text=True, check=False, cwd=drive.cwd)
    assert done.returncode == 0, done.stderr
    if "driven with termsim drive" not in done.stdout:
        pytest.skip("termsim codegen does not read driven steps yet (the proposal's hook)")
    assert done.stdout == (drive.cwd / "test_repl.py").read_text()


def test_the_json_answers_are_ascii_and_a_screen_s_controls_stay_text(drive: Driver) -> None:
    # A program that puts an escape sequence in its title and on its screen.
    program = ("import sys, os, tty; tty.setraw(0); "
               "sys.stdout.write('\\x1b]2;evil\\x1b]52;c;aGk=\\x07\\x07\\u009b31m ok'); "
               "sys.stdout.flush(); os.read(0, 1)")
    drive("start", "evil", "--", sys.executable, "-c", program)
    drive("wait", "evil", "--text", "ok", "--input-ready")
    raw = drive("status", "evil", "--json").out
    assert raw.isascii()
    assert json.loads(raw)["title"].startswith("evil")
    shown = drive("screen", "evil")
    assert "\x1b" not in shown.out and "\x9b" not in shown.out
    drive("stop", "evil")


def test_the_readme_shows_the_transcript_this_page_shows() -> None:
    """The README's section on driving shows the run docs/drive.md shows,
    which the first test above makes."""
    from readme import block

    try:
        shown = block("drive-transcript")
    except KeyError:
        pytest.skip("README.md has no section on termsim drive yet (the proposal)")
    assert shown == docs_fence("drive-transcript")
