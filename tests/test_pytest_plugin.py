"""The pytest plugin, from the outside: pytest running pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from termsim.files import Playback

FAILING = '''
import pytest, termsim
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_waits_for_ever():
    async with termsim.spawn(["sh", "-c", "echo booting; read x"]) as term:
        await term.wait_for(Text("booting"), timeout=10)
        await term.wait_for(Text("ready"), timeout=0.3)
'''

PASSING = '''
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

FLAKY = '''
import pytest, termsim
from pathlib import Path
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_passes_the_second_time(tmp_path_factory):
    flag = Path(__file__).with_name("attempted")
    word = "second" if flag.exists() else "first"
    flag.touch()
    async with termsim.spawn(["sh", "-c", f"echo {word}"]) as term:
        await term.wait_for(Text("second"))  # the first attempt ends on the exit
'''


def recordings(where: Path) -> list[Path]:
    return sorted(where.glob("*.tsr"))


def test_failed_test_keeps_its_recording_and_reports_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=FAILING)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    kept = recordings(pytester.path / ".termsim")
    assert [p.name for p in kept] == ["test_app.py__test_waits_for_ever.tsr"]
    text = result.stdout.str()
    assert "termsim recordings" in text
    assert "recording: .termsim/test_app.py__test_waits_for_ever.tsr" in text
    assert "failed wait: text 'ready' in the screen (timed out after 0.3" in text
    assert "termsim play .termsim/test_app.py__test_waits_for_ever.tsr" in text
    assert "0 │booting" in text  # the final screen
    # The test's line and the message; none of termsim's insides, public names.
    assert "termsim.WaitTimeout: timed out after 0.3 s" in text
    assert "termsim/_" not in text and "_errors" not in text


def test_passing_test_leaves_nothing_unless_asked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_ok=PASSING)
    pytester.runpytest().assert_outcomes(passed=1)
    assert not (pytester.path / ".termsim").exists()  # not even an empty directory
    pytester.runpytest("--termsim-keep=all", "--termsim-dir", "kept").assert_outcomes(passed=1)
    assert len(recordings(pytester.path / "kept")) == 1


def test_a_new_run_replaces_a_tests_old_recordings(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=FAILING)
    where = pytester.path / ".termsim"
    pytester.runpytest().assert_outcomes(failed=1)
    first = recordings(where)
    pytester.runpytest().assert_outcomes(failed=1)
    assert recordings(where) == first  # test.tsr again, no stale test-2.tsr beside it
    other = where / "test_app.py__test_waits_for_ever_too.tsr"  # another test's
    other.write_bytes(b"")
    pytester.makepyfile(test_app=FAILING.replace("ready", "sleeping"))
    pytester.runpytest().assert_outcomes(failed=1)
    assert other.exists()
    pytester.makepyfile(test_app=PASSING.replace("test_sees_it", "test_waits_for_ever"))
    pytester.runpytest().assert_outcomes(passed=1)
    assert recordings(where) == [other]  # it passes now: its old failure is gone


NOT_STARTED = '''
import pytest, termsim

@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param

@pytest.mark.anyio
async def test_typo():
    async with termsim.spawn(["termsim-no-such-program"]):
        pass

@pytest.mark.anyio
async def test_bad_key():
    async with termsim.spawn(["sh", "-c", "read x"]) as term:
        await term.press("no-such-key")
'''


def test_errors_are_raised_at_the_tests_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=NOT_STARTED)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=4)
    text = result.stdout.str()
    assert "termsim/_" not in text and "anyio/" not in text and "trio/" not in text
    assert text.count("E       termsim.TermsimError: cannot start 'termsim-no-such-program'") == 2
    assert text.count("the program did not start: cannot start") == 2
    assert text.count("E           termsim.UnknownKey: unknown key 'no-such-key'") == 2


def test_keep_none_records_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=FAILING)
    result = pytester.runpytest("--termsim-keep=none")
    result.assert_outcomes(failed=1)
    assert not (pytester.path / ".termsim").exists()
    assert "termsim recordings" not in result.stdout.str()


def test_a_rerun_that_passes_keeps_both_attempts_and_reports_them(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("pytest_rerunfailures")
    pytester.makepyfile(test_flaky=FLAKY)
    result = pytester.runpytest("--reruns", "1")
    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("rerun")) == (1, 1)
    assert result.ret == 1  # a rerun that passes fails the run by default
    kept = recordings(pytester.path / ".termsim")
    assert [p.name for p in kept] == ["test_flaky.py__test_passes_the_second_time-2.tsr",
                                      "test_flaky.py__test_passes_the_second_time.tsr"]
    failed, passed = kept[1], kept[0]
    assert "first" in Playback(failed).screen_at().text
    assert "second" in Playback(passed).screen_at().text
    summary = result.stdout.str().split("termsim flaky")[1]
    assert "test_passes_the_second_time: failed, then passed on a rerun" in summary
    assert "failed attempt: .termsim/test_flaky.py__test_passes_the_second_time.tsr" in summary
    assert "passing attempt: .termsim/test_flaky.py__test_passes_the_second_time-2.tsr" in summary
    # The diff names the wait that differed between the two attempts.
    assert "diff (A: passing, B: failed): first divergence: wait for text 'second' in the " \
        "screen: matched in A, program exited in B; only B printed 'first'" in summary


@pytest.mark.parametrize(("marker", "status"), [
    ("", 1),
    ("@pytest.mark.termsim_flaky(reason='slow CI', until='2999-01-01')", 0),
    ("@pytest.mark.termsim_flaky(reason='slow CI', until='2000-01-01')", 1),
])
def test_termsim_flaky_fail_fails_the_run_unless_a_marker_allows_it(
    pytester: pytest.Pytester, marker: str, status: int,
) -> None:
    pytest.importorskip("pytest_rerunfailures")
    marked = FLAKY.replace("@pytest.mark.anyio", f"{marker}\n@pytest.mark.anyio")
    pytester.makepyfile(test_flaky=marked)
    result = pytester.runpytest("--reruns", "1", "--termsim-flaky=fail")
    assert result.parseoutcomes().get("passed") == 1
    assert result.ret == status
    text = result.stdout.str()
    if status and marker:
        assert "termsim_flaky expired on 2000-01-01" in text
    elif marker:
        assert "allowed: slow CI" in text


def test_xdist_workers_do_not_collide_and_report_flaky_tests(
    pytester: pytest.Pytester,
) -> None:
    """One run on two workers (a run of pytest-xdist costs three processes):
    the failures' recordings do not collide, and a test that passed on a
    rerun, on whichever worker, is reported by the controller."""
    pytest.importorskip("pytest_rerunfailures")
    pytest.importorskip("xdist")
    pytester.makepyfile(test_a=FAILING, test_b=FAILING.replace("test_waits", "test_b_waits"),
                        test_flaky=FLAKY)
    # (Hypothesis' plugin, which these tests do not use, is a sixth of each
    # process's start-up.)
    result = pytester.runpytest_subprocess("-n", "2", "--reruns", "1", "--termsim-flaky=fail",
                                           "-p", "no:hypothesispytest")
    outcomes = result.parseoutcomes()
    assert (outcomes.get("failed"), outcomes.get("passed"), outcomes.get("rerun")) == (2, 1, 3)
    assert result.ret == 1
    assert "test_passes_the_second_time: failed, then passed on a rerun" in result.stdout.str()
    kept = [p.name for p in recordings(pytester.path / ".termsim")]
    # Every attempt of every test that failed once, each under its own name.
    assert sorted(kept) == [f"{test}{attempt}.tsr" for test in (
        "test_a.py__test_waits_for_ever", "test_b.py__test_b_waits_for_ever",
        "test_flaky.py__test_passes_the_second_time") for attempt in ("-2", "")]


FIXTURES = '''
import pytest, termsim
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.fixture
async def shell():
    async with termsim.spawn(["sh", "-c", "echo booting; read x; echo $x"]) as term:
        await term.wait_for(Text("booting"), timeout=10)
        yield term

@pytest.fixture
async def never_ready():
    async with termsim.spawn(["sh", "-c", "echo booting; read x"]) as term:
        await term.wait_for(Text("ready"), timeout=0.3)
        yield term

@pytest.fixture
async def started():
    # A plain coroutine fixture: the session is the test's to close.
    return await termsim.spawn(["sh", "-c", "echo hi; read x"]).__aenter__()

@pytest.mark.anyio
async def test_answer_passes(shell):
    await shell.type("yes\\r")
    await shell.wait_for(Text("yes"), timeout=10)

@pytest.mark.anyio
async def test_answer_fails(shell):
    await shell.type("no\\r")
    await shell.wait_for(Text("maybe"), timeout=0.3)

@pytest.mark.anyio
async def test_setup_fails(never_ready):
    pass

@pytest.mark.anyio
async def test_coroutine_fixture(started):
    await started.wait_for(Text("hi"), timeout=10)
    await started.__aexit__(None, None, None)
'''


def test_sessions_a_fixture_starts_are_recorded_and_reported(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fx=FIXTURES)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=1, errors=1)
    kept = [p.name for p in recordings(pytester.path / ".termsim")]
    # The passing tests' files are gone once their fixtures closed them.
    assert kept == ["test_fx.py__test_answer_fails.tsr", "test_fx.py__test_setup_fails.tsr"]
    text = result.stdout.str()
    # A failed test reports its fixture's session, with the input it typed.
    assert "recording: .termsim/test_fx.py__test_answer_fails.tsr" in text
    assert "failed wait: text 'maybe'" in text
    # A fixture that failed in its setup reports the wait that failed there.
    assert "recording: .termsim/test_fx.py__test_setup_fails.tsr" in text
    assert "failed wait: text 'ready'" in text
    # The file holds the whole session, the test's input and the exit.
    final = Playback(pytester.path / ".termsim/test_fx.py__test_answer_fails.tsr").screen_at()
    assert final.text.splitlines()[:3] == ["booting", "no", "no"]


def test_a_fixture_session_takes_the_tests_profile(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_matrix='''
import pytest, termsim

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.fixture
async def term():
    async with termsim.spawn(["sh", "-c", "echo $TERM; read x"]) as term:
        yield term

@pytest.mark.anyio
@pytest.mark.termsim(profiles=["xterm", "kitty"])
async def test_term(term):
    await term.wait_for(lambda s: "xterm" in s.text, timeout=10)
    assert term.profile.name in ("xterm", "kitty")
    expected = {"xterm": "xterm-256color", "kitty": "xterm-kitty"}[term.profile.name]
    assert expected in term.screen.text
    assert term.profile.name in __import__("os").environ.get("PYTEST_CURRENT_TEST", "")
''')
    result = pytester.runpytest("-p", "no:randomly", "-v")
    result.assert_outcomes(passed=2)


def test_shake_replays_a_fixtures_sessions(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fx=FIXTURES)
    result = pytester.runpytest("-p", "no:randomly", "-k", "answer_passes",
                                "--termsim-shake=3")
    result.assert_outcomes(passed=1)
    text = result.stdout.str()
    assert "termsim shake: 1 passing tests ran 3 variants of their recordings" in text
    assert "not shaken" not in text


FLAKY_FIXTURES = '''
import pytest, termsim
from pathlib import Path
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

def _word(name):
    flag = Path(__file__).with_name(name)
    word = "second" if flag.exists() else "first"
    flag.touch()
    return word

@pytest.fixture
async def in_setup():
    word = _word("setup-attempted")
    async with termsim.spawn(["sh", "-c", f"echo {word}; read x"]) as term:
        await term.wait_for(Text("second"), timeout=0.5)  # the first attempt fails here
        yield term

@pytest.fixture
async def in_call():
    word = _word("call-attempted")
    async with termsim.spawn(["sh", "-c", f"echo {word}; read x"]) as term:
        yield term

@pytest.mark.anyio
async def test_flaky_setup(in_setup):
    pass

@pytest.mark.anyio
async def test_flaky_call(in_call):
    await in_call.wait_for(Text("second"), timeout=0.5)
'''


def test_a_fixture_that_fails_then_passes_on_a_rerun_is_flaky_with_its_recordings(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("pytest_rerunfailures")
    pytester.makepyfile(test_ff=FLAKY_FIXTURES)
    result = pytester.runpytest("-p", "no:randomly", "--reruns", "1", "--termsim-flaky=fail")
    assert result.ret == 1  # two tests needed a rerun, and nothing allows them
    summary = result.stdout.str().split("termsim flaky")[1]
    for name in ("test_flaky_setup", "test_flaky_call"):
        assert f"{name}: failed, then passed on a rerun" in summary
        assert f"failed attempt: .termsim/test_ff.py__{name}.tsr" in summary
        assert f"passing attempt: .termsim/test_ff.py__{name}-2.tsr" in summary
    # Both attempts' files stay, the passing one's too.
    assert [p.name for p in recordings(pytester.path / ".termsim")] == [
        "test_ff.py__test_flaky_call-2.tsr", "test_ff.py__test_flaky_call.tsr",
        "test_ff.py__test_flaky_setup-2.tsr", "test_ff.py__test_flaky_setup.tsr"]
