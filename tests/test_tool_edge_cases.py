"""Tools that failed their users: each test is one report.

The reports: a pattern ending in a blank that never
matched and a failure that did not say why; ``termsim record`` with stdin
not a terminal; shaking from another directory; ``termsim diff``'s screens;
noise in what the plugin and the CLI print.
"""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from pathlib import Path

import helpers
import pytest

import termsim
from termsim import Regex, Text, WaitTimeout
from termsim.cli import main
from termsim.engine.predicates import as_predicate
from termsim.files import Playback, Recording

PYTHON_REPL = [sys.executable, "-q", "-i"]


screen_of = partial(helpers.screen, cols=20, rows=4)


# -- 9: a pattern ending in a blank ------------------------------------------------------------


def test_a_pattern_ending_in_a_blank_matches_the_blanks_up_to_the_cursor() -> None:
    prompt = screen_of(b"Python\r\n>>> ")
    assert Regex(r"^>>> $")(prompt)
    assert Regex(r"^>>>$")(prompt)  # what matched before still matches
    assert not Regex(r"^>>>  $")(prompt)  # only the blanks before the cursor
    # Blanks after the cursor, or on a row without the cursor, are not read.
    assert not Regex(r"^Python $")(prompt)
    assert not Regex(r"^>>> $")(screen_of(b">>> \r\n"))


def test_a_pattern_that_wants_trailing_blanks_says_why_it_does_not_match() -> None:
    prompt = screen_of(b"Python\r\n>>> ")
    why = Regex(r"^Python $").explain(prompt)
    assert "blanks at the ends of rows" in why and "up to the cursor" in why


def test_explain_always_explains() -> None:
    prompt = screen_of(b"Python\r\n>>> ")
    assert Text("awake").explain(prompt) == "it is nowhere on the screen"
    assert Regex("awake").explain(prompt) == "it is nowhere on the screen"

    def never(snap: termsim.Snapshot) -> bool:
        return False

    assert "false on this screen" in as_predicate(never).explain(prompt)
    assert (~Text("Python")).explain(prompt)
    assert (Text("awake") | as_predicate(never)).explain(prompt)


@pytest.mark.anyio
async def test_the_python_prompt_is_found_by_a_pattern_ending_in_its_blank() -> None:
    async with termsim.spawn(PYTHON_REPL) as repl:
        screen = await repl.wait_for(Regex(r"^>>> $"), timeout=30)
        assert screen.lines[screen.cursor.row].startswith(">>> ")
        with pytest.raises(WaitTimeout) as failed:
            await repl.wait_for(Regex(r"^>>>  $") | Regex("ready $"), timeout=0.2)
        assert "instead: " in str(failed.value)
        await repl.send(b"\x04")
        assert await repl.wait_exit(timeout=30) == 0


# -- 8: termsim record with stdin not a terminal -------------------------------------------------


def record(tmp_path: Path, *cmd: str, stdin: object = subprocess.DEVNULL,
           ) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    path = tmp_path / "rec.tsr"
    result = subprocess.run(
        [sys.executable, "-m", "termsim", "record", "-o", str(path), "--cols", "40",
         "--rows", "8", "--", *cmd],
        stdin=stdin, capture_output=True, timeout=120,
    )
    return result, path


def test_record_with_stdin_from_dev_null_ends_the_programs_input(tmp_path: Path) -> None:
    # A REPL that reads its terminal: with nobody to type, it is told the end of input.
    result, path = record(tmp_path, *PYTHON_REPL)
    assert result.returncode == 0, result.stderr
    assert b"internal error" not in result.stderr
    recording = Recording.open(path)
    assert recording.complete and recording.exit_status == 0
    assert ">>>" in Playback(recording).screen_at().text


def test_record_with_stdin_from_a_file_types_it(tmp_path: Path) -> None:
    script = tmp_path / "input.txt"
    script.write_text("print(6 * 7)\n")
    with script.open("rb") as stdin:
        result, path = record(tmp_path, *PYTHON_REPL, stdin=stdin)
    assert result.returncode == 0, result.stderr
    assert "42" in Playback(Recording.open(path)).screen_at().text


# -- 6: shaking from another directory -------------------------------------------------------

ECHO = '''
import pytest, termsim
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_sees_it():
    async with termsim.spawn(["sh", "-c", "echo hello"]) as term:
        await term.wait_for(Text("hello"), timeout=10)
'''


def test_shake_from_another_directory_finds_its_recordings(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    test_file = pytester.makepyfile(test_echo=ECHO)
    pytester.makeini("[pytest]\n")
    keep = pytester.path / "keep"
    elsewhere = pytester.mkdir("elsewhere")
    monkeypatch.chdir(elsewhere)
    result = pytester.runpytest("-p", "no:cacheprovider", f"--rootdir={pytester.path}",
                                str(test_file), f"--termsim-dir={keep}",
                                "--termsim-shake=5")
    text = result.stdout.str()
    assert result.ret == 0, text
    assert "1 passing tests ran 5 variants" in text
    assert "not shaken" not in text and "No such file" not in text


def test_a_test_whose_recording_is_lost_is_not_shaken_and_fails(
    pytester: pytest.Pytester,
) -> None:
    # The test deletes its own recording: termsim cannot shake it, which is
    # an error, not a pass.
    pytester.makepyfile(test_lost=ECHO.replace(
        "async def test_sees_it():", "async def test_sees_it(termsim_recordings):").replace(
        'timeout=10)', 'timeout=10)\n    for path in termsim_recordings:\n'
        '        path.unlink()'))
    result = pytester.runpytest("-p", "no:cacheprovider", "--termsim-shake=5")
    text = result.stdout.str()
    assert result.ret == 1, text
    assert "could not shake" in text and "cannot be read" in text


# -- 7: termsim diff's screens ---------------------------------------------------------------


async def _record_turn(path: Path, *, press_ctrl_d: bool) -> None:
    async with termsim.spawn(["sh", "-c", "echo ready; read x"], record=path,
                             cols=30, rows=5) as term:
        await term.wait_for(Text("ready"), timeout=30)
        if press_ctrl_d:
            await term.press("ctrl+d")
            await term.wait_exit(timeout=30)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_diff_shows_both_screens_at_an_input_only_one_run_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    a, b = tmp_path / "a.tsr", tmp_path / "b.tsr"
    await _record_turn(a, press_ctrl_d=True)
    await _record_turn(b, press_ctrl_d=False)
    page = tmp_path / "diff.html"
    assert main(["diff", str(a), str(b), "--html", str(page)]) == 0
    text = capsys.readouterr().out
    assert "only A has input key ctrl+d" in text, text
    # B's screen then was "ready", as A's was: not a blank screen.
    assert "no row differs" in text and "row   0" not in text, text
    html = page.read_text()
    assert "\ufffd" not in html
    pre = html.split("<pre>")[1].split("</pre>")[0]
    assert "\n" in pre and "ready" in pre


# -- 11: noise -------------------------------------------------------------------------------

COUNTED = '''
import pytest, termsim
from pathlib import Path
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_fails_from_its_third_run():
    # Run 1 is live, run 2 replays the recording unchanged (it passes, so the
    # test can be shaken), run 3 plays the variant: a failure, deterministically.
    runs = Path(__file__).with_name("runs")
    runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
    async with termsim.spawn(["sh", "-c", "echo hello"]) as term:
        await term.wait_for(Text("hello"), timeout=30)
    assert len(runs.read_text()) <= 2, "the third run fails"
'''


def test_a_shake_failure_shows_the_tests_lines_not_the_plugins(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_counted=COUNTED)
    result = pytester.runpytest("-p", "no:cacheprovider", "--termsim-shake-variant=split 2")
    text = result.stdout.str()
    assert result.ret == 1, text
    assert "ShakeFailure" in text and "the third run fails" in text
    failure = text.split("= FAILURES =")[1].split("termsim recordings")[0]
    # The test's own lines, with the failing assertion marked; none of the plugin's.
    assert ">       assert len(runs.read_text()) <= 2" in failure, failure
    assert "pytest_plugin.py" not in failure and "def _shake" not in failure, failure


def test_info_on_a_termsim_record_file_shows_the_policy_in_one_phrase(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    result, path = record(tmp_path, "sh", "-c", "echo hi")
    assert result.returncode == 0, result.stderr
    assert main(["info", str(path)]) == 0
    policy = [line for line in capsys.readouterr().out.splitlines()
              if line.startswith("policy:")]
    assert policy == ["policy:    ignore for every query kind"]


FLAKY = '''
import pytest, termsim
from pathlib import Path
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_passes_the_second_time():
    flag = Path(__file__).with_name("attempted")
    word = "second" if flag.exists() else "first"
    flag.touch()
    async with termsim.spawn(["sh", "-c", f"echo {word}"]) as term:
        await term.wait_for(Text("second"))  # the first attempt ends on the exit
'''


def test_flaky_fail_says_why_the_run_failed(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_rerunfailures")
    pytester.makepyfile(test_flaky=FLAKY)
    result = pytester.runpytest("-p", "no:cacheprovider", "--reruns", "1",
                                "--termsim-flaky=fail")
    assert result.ret == 1
    lines = result.stdout.lines
    last = max(i for i, line in enumerate(lines) if "1 passed" in line)
    assert "the run fails (--termsim-flaky=fail)" in lines[last - 1], lines[-5:]
    assert "test_passes_the_second_time" in lines[last - 1]


GOLDENS = '''
def test_fails_first():
    assert False, "it fails before its golden"

def test_passes():
    pass
'''


def test_a_golden_its_failed_test_never_reached_is_not_called_unused(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_late=GOLDENS)
    screens = pytester.mkdir("test_late.screens")
    (screens / "test_fails_first__end.screen").write_text("screen 1x1\n| |\n")
    (screens / "test_gone__old.screen").write_text("screen 1x1\n| |\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "not used by any test: test_late.screens/test_gone__old.screen" in text
    assert "test_fails_first__end" not in text
