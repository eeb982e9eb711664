"""The README's snippets run as printed, and its samples are what termsim
prints, so none of them can go stale.

Each test takes a block out of README.md as it stands (``readme.block``)
and runs it or produces it. A sample made from a recording (a replay, a
diff, ``termsim info``) is deterministic and compared line for line; one made
by a live run is compared by shape (``readme.shape``: its numbers may differ
from run to run, its words may not).
"""

from __future__ import annotations

import ast
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import inherited_env
from readme import ROOT, block, shape

import termsim
from termsim import InputReady, Quiet, Region, Text
from termsim.cli import main

RECORDINGS = ROOT / "recordings"
sys.path.insert(0, str(RECORDINGS))

from scenarios import scenario_env  # noqa: E402

APP = str(ROOT / "examples" / "agent_repl.py")


def lines_of(text: str) -> list[str]:
    """A sample's lines as the README keeps them (an editor may drop the
    blanks at the end of a line)."""
    return [line.rstrip() for line in text.rstrip("\n").split("\n")]


def shapes(sample: str, prefix: str = "") -> list[str]:
    """The sample's non-blank lines as patterns for ``re_match_lines``; a rule
    of dashes (pytest's section headers) may have the width of any terminal."""
    patterns = []
    for line in sample.splitlines():
        if line.strip():
            pattern = shape(line.removeprefix(prefix))
            patterns.append(".*" + re.sub(r"(?:\\-)+", "-+", pattern))
    return patterns


# -- Try it ----------------------------------------------------------------------------


def test_the_demo_command_installs_what_the_example_imports_and_runs_it() -> None:
    install, run = block("try-demo").strip().split(" && ")
    assert install == "python -m pip install -e . prompt_toolkit"
    # What the example imports beyond the standard library: termsim, its
    # dependencies, and prompt_toolkit, which the install line adds.
    imported = set()
    for name in ("demo.py", "agent_repl.py"):
        tree = ast.parse((ROOT / "examples" / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    assert imported - set(sys.stdlib_module_names) == {"termsim", "anyio", "prompt_toolkit"}
    argv = shlex.split(run)
    assert argv[0] == "python"
    done = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, capture_output=True,
                          text=True, timeout=90, env=inherited_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "state: sleeping" in done.stdout and "assistant: done" in done.stdout


def test_the_test_command_is_the_one_ci_runs() -> None:
    command = block("try-tests").strip()
    ci = (ROOT / ".ci" / "run").read_text()
    assert f'test_command="{command}"' in ci


# -- A failed wait, and a failed test ---------------------------------------------------


@pytest.mark.anyio
async def test_the_wait_timeout_sample_is_what_a_replay_raises() -> None:
    async with termsim.replay("recordings/cpr-starvation.tsr") as term:
        await term.wait_for(Text("Starting the local server"))
        with pytest.raises(termsim.WaitTimeout) as failure:
            await term.wait_for(Text("state:", region=Region.row(-1)), timeout=3)
    raised = f"{type(failure.value).__module__}.{type(failure.value).__name__}: {failure.value}"
    assert lines_of(raised) == lines_of(block("wait-timeout"))


@pytest.fixture
def run_from_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """The samples name files as a reader who runs them from the checkout sees them."""
    monkeypatch.chdir(ROOT)


BOOT_TEST = '''
import pytest

import termsim
from termsim import CursorAfter, InputReady

APP = {app!r}
ENV = {env!r}


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_prompt_appears():
    async with termsim.spawn(["python", APP], cols=60, rows=8, env=ENV) as term:
        await term.wait_for(CursorAfter("❯ ") & InputReady(), timeout=3)
'''


def test_the_failed_test_sample_is_what_pytest_prints(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    env = scenario_env(tmp_path, {"AGENT_REPL_BOOT_HANG": "1"}, configured=True)
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
    pytester.makepyfile(test_boot=BOOT_TEST.format(app=APP, env=env))
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    sample = block("pytest-failure")
    # Which screens the film strip lists depends on how the output was read
    # (two reads or one): its header must be there, its entries may differ.
    strip = re.compile(r"E\s+what happened during the wait.*?(?=E\s+the screen at the end)", re.S)
    header = "E             what happened during the wait (seconds from its start):\n"
    result.stdout.re_match_lines(shapes(strip.sub(header, sample)))


def test_the_ci_commands_read_a_downloaded_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    commands = [shlex.split(line, comments=True) for line in block("ci-replay").splitlines()]
    name = commands[0][2]
    shutil.copy(RECORDINGS / "boot-hang.tsr", tmp_path / name)
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        assert argv[0] == "termsim"
        assert main(argv[1:]) in (0, None), argv
    out = capsys.readouterr().out
    assert "timed out" in out and "state: booting" in out
    assert "<html" in (tmp_path / "report.html").read_text()


# -- Whole screens and golden files ------------------------------------------------------


TURN_TEST = '''
import os
import re

import pytest

import termsim
from termsim import CursorAfter, InputReady, Region

APP = {app!r}
ENV = {env!r}


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_a_turn():
    async with termsim.spawn(["python", APP], cols=50, rows=9, env=ENV, stall=2) as term:
        await term.wait_for(CursorAfter("❯ ") & InputReady(), timeout=30)
        await term.type(os.environ.get("WORD", "hello"))
{body}
'''


def _turn_test(pytester: pytest.Pytester, tmp_path: Path, snippet: str) -> None:
    env = scenario_env(tmp_path, {}, configured=True)
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
    body = "\n".join("        " + line if line else "" for line in snippet.splitlines())
    pytester.makepyfile(test_turn=TURN_TEST.format(app=APP, env=env, body=body))


def test_the_golden_snippet_passes_writes_the_sample_and_fails_as_shown(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    snippet = block("expect-screen")
    _turn_test(pytester, tmp_path, snippet)
    result = pytester.runpytest("-p", "no:randomly", "--termsim-update")
    result.assert_outcomes(passed=1)
    golden = pytester.path / "test_turn.screens" / "test_a_turn__reply.screen"
    assert lines_of(golden.read_text()) == lines_of(block("golden-file"))
    assert (golden.parent / "test_a_turn__status.screen").exists()
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)

    # Another word typed: the golden line of the snippet fails with the
    # sample's diff (the hand-written expectation above it is left out, as
    # it would fail first, on the same word).
    golden_only = re.sub(r'await term\.expect_screen\(""".*?"""[^\n]*\n', "", snippet,
                         count=1, flags=re.S)
    assert golden_only.count("expect_screen(golden=") == 2
    _turn_test(pytester, tmp_path, golden_only)
    monkeypatch.setenv("WORD", "howdy")
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    result.stdout.re_match_lines(shapes(block("screen-mismatch")))


# -- Outside the cells -----------------------------------------------------------------


def test_the_signals_example_passes_and_fails_when_the_program_changes(
    pytester: pytest.Pytester,
) -> None:
    code = block("signals")
    pytester.makepyfile(test_build=code)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2)  # asyncio and trio
    # Without its notification, the wait fails (the program exits first);
    # left in the alternate screen, the session does.
    pytester.makepyfile(test_build=code.replace("777;notify;build;finished", "777;x"))
    pytester.runpytest("-p", "no:randomly").stdout.fnmatch_lines(
        ["*ProcessExited: the program exited (exit status 0) while waiting for a "
         "notification holding 'finished'*"])
    pytester.makepyfile(test_build=code.replace('ready> "', 'ready> \\x1b[?1049h"'))
    pytester.runpytest("-p", "no:randomly").stdout.fnmatch_lines(
        ["*TerminalLeftDirty: the program exited (exit status 0) and left the terminal "
         "with 1 mode on:"])


# -- Hunting flakes offline -------------------------------------------------------------


def test_the_shake_example_runs_as_printed_and_fails_as_shown(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_steps=block("shake-example"))
    live = pytester.runpytest("-p", "no:randomly")
    assert live.ret == 0, live.stdout.str()
    shaken = pytester.runpytest("-p", "no:randomly", "--termsim-shake=50")
    assert shaken.ret == 1
    shaken.stdout.re_match_lines(shapes(block("shake-failure"), prefix="E"))


def test_the_diff_sample_is_what_termsim_diff_prints(
    run_from_root: None, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["diff", "recordings/boot-ok.tsr", "recordings/boot-hang.tsr"]) in (0, None)
    assert lines_of(capsys.readouterr().out) == lines_of(block("diff"))


# -- The API, recordings, and the command ----------------------------------------------


@pytest.mark.anyio
async def test_the_recordings_snippet_runs_after_the_api_imports(
    run_from_root: None, capsys: pytest.CaptureFixture[str],
) -> None:
    body = block("api-imports") + block("recordings-api")
    source = "async def snippet():\n" + "\n".join("    " + line for line in body.splitlines())
    scope: dict[str, object] = {"pytest": pytest}
    exec(compile(source, "README.md", "exec"), scope)
    await scope["snippet"]()  # type: ignore[operator]  # its 120 s are virtual
    out = capsys.readouterr().out
    assert "s  key enter" in out and "assistant: thinking about 'hello'" in out


def test_the_codegen_sample_is_what_codegen_writes(run_from_root: None) -> None:
    from termsim.codegen import generate

    if shutil.which("ruff") is None:
        pytest.skip("the sample is formatted by ruff's formatter, which is not installed")
    assert generate("recordings/passing.tsr") == block("codegen")


def test_the_info_sample_is_what_termsim_info_prints(
    run_from_root: None, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["info", "recordings/boot-hang.tsr"]) in (0, None)
    assert lines_of(capsys.readouterr().out) == lines_of(block("info"))


APP_PY = """\
import sys, termios, tty
print("press a key")
tty.setcbreak(0)
key = sys.stdin.read(1)
print(f"got {key}, bye")
"""


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_every_command_of_the_command_sample_runs_as_printed(tmp_path: Path) -> None:
    # The files the sample reads and does not make: a program, two runs to
    # compare, a cast from elsewhere.
    (tmp_path / "app.py").write_text(APP_PY)
    shutil.copy(RECORDINGS / "boot-ok.tsr", tmp_path / "pass.tsr")
    shutil.copy(RECORDINGS / "boot-hang.tsr", tmp_path / "fail.tsr")
    shutil.copy(ROOT / "tests" / "data" / "casts" / "asciinema-server_v2_full.cast",
                tmp_path / "demo.cast")
    env = {**inherited_env(), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    for line in block("cli").splitlines():
        command = line.split("#")[0].strip()
        async with termsim.spawn(["sh", "-c", command], cwd=tmp_path, env=env,
                                 record=False) as term:
            if " record " in f" {command} ":
                await term.wait_for(Text("press a key") & InputReady())
                # The recording must reach past the time `show --at` asks for.
                await term.wait_for(Quiet(_latest_at(block("cli"))))
                await term.press("x")
            assert await term.wait_exit(timeout=30) == 0, f"{command}:\n{term.screen.text}"
    for made in ("session.tsr", "diff.html", "session.cast", "report.html", "s.svg", "s.png",
                 "s.gif", "demo.tsr"):
        assert (tmp_path / made).stat().st_size > 0, made


def _latest_at(commands: str) -> float:
    """The latest moment the sample's ``--at`` options ask for."""
    return max(float(at) for at in re.findall(r"--at ([\d.]+)", commands))
