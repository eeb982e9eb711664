"""The pytest plugin's promises, from the outside (pytest running pytest
against test files that drive tests/programs/rawecho.py in a PTY):

* a rerun that passes fails the run unless a termsim_flaky marker allows it,
  and the summary shows the failed attempt's error and recording;
* --termsim-update counts each parametrization of a test;
* shake replays goldens used by name and sessions started in fixtures, and
  names each test it could not shake, with why, without counting it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import program

from termsim.files import Playback

RAWECHO = program("rawecho.py")

# Fails on its first attempt (the marker file is not there yet, so it types
# "first" and waits for the echo of "second"), passes on its rerun.
FLAKY = f'''
import pytest, termsim
from pathlib import Path
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

def first_time(name):
    flag = Path(__file__).with_name(name)
    first = not flag.exists()
    flag.touch()
    return first

@pytest.fixture
def flaky_setup():
    if first_time("setup-attempted"):
        raise RuntimeError("the first setup fails")

@pytest.fixture
def flaky_teardown():
    yield
    if first_time("teardown-attempted"):
        raise RuntimeError("the first teardown fails")

MARKER
@pytest.mark.anyio
async def test_call_flakes():
    word = "first" if first_time("call-attempted") else "second"
    async with termsim.spawn({RAWECHO!r}, cols=40, rows=4) as term:
        await term.wait_for(Text("READY"), timeout=10)
        await term.type(word)
        await term.wait_for(Text("READ b'second'"), timeout=0.5)

@pytest.mark.anyio
async def test_setup_flakes(flaky_setup):
    async with termsim.spawn({RAWECHO!r}, cols=40, rows=4) as term:
        await term.wait_for(Text("READY"), timeout=10)

@pytest.mark.anyio
async def test_teardown_flakes(flaky_teardown):
    async with termsim.spawn({RAWECHO!r}, cols=40, rows=4) as term:
        await term.wait_for(Text("READY"), timeout=10)
'''


def flaky_file(pytester: pytest.Pytester, marker: str = "") -> Path:
    return pytester.makepyfile(test_flaky=FLAKY.replace("MARKER", marker))


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_rerun_that_passes_fails_the_run_by_default_and_shows_the_first_failure(
    pytester: pytest.Pytester,
) -> None:
    source = flaky_file(pytester)
    result = pytester.runpytest("-p", "no:randomly", "--reruns", "1")
    assert result.parseoutcomes().get("rerun") == 3
    assert result.ret == 1, result.stdout.str()
    summary = result.stdout.str().split("termsim flaky")[1]
    # The failed attempt's error, where the test raised it, without -rR...
    where = line_of(source, "READ b'second'")
    assert ("test_flaky.py::test_call_flakes: failed, then passed on a rerun (not marked "
            "termsim_flaky)") in summary
    assert (f"the failed attempt's error: test_flaky.py:{where}: termsim.WaitTimeout: timed "
            "out after 0.5 s waiting for text \"READ b'second'\"") in summary
    # ... and the recording it kept, which holds that attempt.
    failed = ".termsim/test_flaky.py__test_call_flakes.tsr"
    assert f"failed attempt: {failed}" in summary
    assert "READ b'first'" in Playback(pytester.path / failed).screen_at().text
    # A failure in the setup, of a fixture that starts no session, counts too.
    assert "test_flaky.py::test_setup_flakes: failed, then passed on a rerun" in summary
    assert re.search(r"the failed attempt's error: test_flaky\.py:\d+ \(in its setup\): "
                     r"RuntimeError: the first setup fails", summary), summary
    # So does one in its teardown.
    assert "test_flaky.py::test_teardown_flakes: failed, then passed on a rerun" in summary
    assert re.search(r"the failed attempt's error: test_flaky\.py:\d+ \(in its teardown\): "
                     r"RuntimeError: the first teardown fails", summary), summary
    last = [line for line in result.outlines if line.startswith("termsim flaky: the run fails")]
    assert last and "3 tests passed only on a rerun" in last[0]
    assert all(f"test_{phase}_flakes" in last[0] for phase in ("call", "setup", "teardown"))
    assert "--termsim-flaky=report" in last[0] and "termsim_flaky(reason=" in last[0]


@pytest.mark.parametrize(("marker", "option", "status", "says"), [
    ("@pytest.mark.termsim_flaky(reason='a known race', until='2999-01-01')", None, 0,
     "(allowed: a known race (until 2999-01-01))"),
    ("", "--termsim-flaky=report", 0, "failed, then passed on a rerun (not marked"),
    ("@pytest.mark.termsim_flaky(reason='a known race', until='2000-01-01')", None, 1,
     "termsim_flaky expired on 2000-01-01: a rerun is no longer allowed"),
    ("@pytest.mark.termsim_flaky(until='2999-01-01')", None, 1,
     "termsim_flaky needs a reason"),
    ("@pytest.mark.termsim_flaky(reason='a known race', until='next tuesday')", None, 1,
     "termsim_flaky until='next tuesday' is not a date"),
], ids=["allowed", "report", "expired", "no-reason", "not-a-date"])
def test_a_marker_that_allows_it_lets_the_run_pass_and_a_bad_one_says_why(
    pytester: pytest.Pytester, marker: str, option: str | None, status: int, says: str,
) -> None:
    flaky_file(pytester, marker)
    args = ["-p", "no:randomly", "--reruns", "1", "-k", "call_flakes", "-rE"]
    result = pytester.runpytest(*args, *([option] if option else []))
    text = result.stdout.str()
    assert result.ret == status, text
    assert says in text
    if "needs a reason" in says or "not a date" in says:
        # Told the day the marker is written: the test errors in its setup.
        assert result.parseoutcomes().get("errors") == 1
        assert "@pytest.mark.termsim_flaky(reason='why it may need a rerun', " \
            "until='YYYY-MM-DD')" in text
    else:
        assert "the failed attempt's error: test_flaky.py:" in text


GOLDEN = f'''
import os
import pytest, termsim
from termsim import Text

@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param

@pytest.mark.anyio
async def test_ready():
    cols = int(os.environ.get("TEST_COLS", "30"))
    async with termsim.spawn({RAWECHO!r}, cols=cols, rows=3) as term:
        await term.wait_for(Text("READY"), timeout=10)
        await term.expect_screen(golden="ready", timeout=10)
'''


def test_update_counts_each_parametrization_of_a_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytester.makepyfile(test_gold=GOLDEN)
    golden = "test_gold.screens/test_ready__ready.screen"
    result = pytester.runpytest("-p", "no:randomly", "--termsim-update")
    result.assert_outcomes(passed=2)
    # asyncio writes the golden, trio finds it unchanged: both are counted.
    result.stdout.fnmatch_lines([
        "termsim goldens: 1 written, 1 unchanged (--termsim-update)",
        f"  written: {golden} (test_gold.py::test_ready[[]asyncio])",
    ])
    assert "screen 30x3" in (pytester.path / golden).read_text()
    monkeypatch.setenv("TEST_COLS", "32")
    result = pytester.runpytest("-p", "no:randomly", "--termsim-update")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([
        "termsim goldens: 1 updated, 1 unchanged (--termsim-update)",
        f"  updated: {golden} (test_gold.py::test_ready[[]asyncio])",
    ])


# The golden holds the whole echo; the wait before it ends as soon as its
# first part is drawn, and the golden is checked at once (timeout=0). Live,
# the echo is one write read at once; a variant that cuts it fails the golden.
RACY_GOLDEN = f'''
import pytest, termsim
from termsim import Text

@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param

@pytest.mark.anyio
async def test_echo():
    async with termsim.spawn({RAWECHO!r}, cols=30, rows=3) as term:
        await term.wait_for(Text("READY"), timeout=10)
        await term.type("hello")
        await term.wait_for(Text("READ b"), timeout=10)
        await term.expect_screen(golden="echo", timeout=0)
'''

ECHO_SCREEN = """screen 30x3, cursor at row 2, col 0
|READY                         |
|READ b'hello'                 |
|                              |
"""

# The split that cuts rawecho's echo after "READ b'h": ESC[?2004h READY CR LF
# is 15 bytes, "READ b'h" 8 more.
CUT_ECHO = "split 23"


def test_goldens_used_by_name_are_shaken_and_checked(pytester: pytest.Pytester) -> None:
    # Shaken at random, the body waits for the whole echo (the racy one
    # would fail on any variant that cuts it, and which variants a seed
    # draws depends on how the live output happened to be read).
    pytester.makepyfile(test_gold=RACY_GOLDEN.replace('Text("READ b")', 'Text("READ b\'hello\'")'))
    golden = pytester.path / "test_gold.screens" / "test_echo__echo.screen"
    golden.parent.mkdir()
    golden.write_text(ECHO_SCREEN)
    result = pytester.runpytest("-p", "no:randomly", "--termsim-shake=5")
    text = result.stdout.str()
    assert result.ret == 0, text
    assert "termsim shake: 2 passing tests ran 10 variants of their recordings" in text
    assert "not shaken" not in text
    # The variant that cuts the echo: the golden is compared, and fails.
    pytester.makepyfile(test_gold=RACY_GOLDEN)
    result = pytester.runpytest("-p", "no:randomly", f"--termsim-shake-variant={CUT_ECHO}")
    text = result.stdout.str()
    result.assert_outcomes(failed=2)
    assert text.count("the screen never matched the screen in "
                      "test_gold.screens/test_echo__echo.screen") == 2
    assert golden.read_text() == ECHO_SCREEN


def test_a_shaken_body_checks_goldens_and_never_writes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from termsim.engine.settings import golden_screens, goldens_checked_only, updating_goldens

    monkeypatch.setenv("TERMSIM_UPDATE", "1")
    with golden_screens(lambda name: f"{name}.screen", update=True):
        assert updating_goldens()
        with goldens_checked_only():
            assert not updating_goldens()
        assert updating_goldens()


# A fixture starts the session (and quits the program after the test: input
# the fixture's recording does not have yet when shake runs); a plain
# fixture wraps it; the test's check races the echo, as above.
FIXTURES = f'''
import pytest, termsim
from termsim import Text

@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param

@pytest.fixture
async def echo():
    async with termsim.spawn({RAWECHO!r}, cols=30, rows=3) as term:
        await term.wait_for(Text("READY"), timeout=10)
        yield term
        await term.press("ctrl+d")
        assert await term.wait_exit(timeout=10) == 0

@pytest.fixture
def typing(echo):
    return {{"term": echo, "word": "hello"}}

@pytest.mark.anyio
async def test_echo(typing):
    term = typing["term"]
    await term.type(typing["word"])
    screen = await term.wait_for(WAIT, timeout=10)
    assert "READ b'hello'" in screen.text
'''


def test_sessions_started_in_fixtures_are_shaken(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fx=FIXTURES.replace("WAIT", 'Text("READ b\'hello\'")'))
    result = pytester.runpytest("-p", "no:randomly", "--termsim-shake=20")
    text = result.stdout.str()
    assert result.ret == 0, text
    assert "termsim shake: 2 passing tests ran 40 variants of their recordings" in text
    assert "not shaken" not in text
    # The racy check: the fixture's session replayed as a variant that cuts
    # the echo fails the body, on both backends.
    pytester.makepyfile(test_fx=FIXTURES.replace("WAIT", 'Text("READ b")'))
    result = pytester.runpytest("-p", "no:randomly", f"--termsim-shake-variant={CUT_ECHO}")
    text = result.stdout.str()
    result.assert_outcomes(failed=2)
    assert text.count("AssertionError: assert \"READ b'hello'\" in \"READY\\nREAD b'h\\n\"") \
        == 2, text
    assert text.count(".termsim/test_fx.py__test_echo[asyncio].tsr: split 23") == 1


UNSHAKEN = f'''
import pytest, termsim
from termsim import Text

RUNS = []

@pytest.fixture(scope="module")
def anyio_backend():
    return "asyncio"

@pytest.fixture(scope="module")
async def shared():
    async with termsim.spawn({RAWECHO!r}) as term:
        await term.wait_for(Text("READY"), timeout=10)
        yield term

@pytest.mark.anyio
async def test_shared(shared):
    await shared.type("x")
    await shared.wait_for(Text("READ b'x'"), timeout=10)

@pytest.mark.anyio
async def test_counts_its_runs():
    RUNS.append(1)
    async with termsim.spawn({RAWECHO!r}) as term:
        await term.wait_for(Text("READY"), timeout=10)
        assert len(RUNS) == 1, "this body ran before"

@pytest.mark.anyio
async def test_shakeable():
    async with termsim.spawn({RAWECHO!r}) as term:
        await term.wait_for(Text("READY"), timeout=10)
'''


def test_tests_shake_cannot_shake_are_named_with_why_and_not_counted(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_un=UNSHAKEN)
    result = pytester.runpytest("-p", "no:randomly", "--termsim-shake=5")
    text = result.stdout.str()
    assert result.ret == 0, text
    assert "termsim shake: 1 passing tests ran 5 variants of their recordings" in text
    assert "termsim shake: 2 tests were not shaken:" in text
    assert ("test_un.py::test_shared: its fixture 'shared' gives a session no recording of "
            "this test stands for (a fixture of a wider scope than the function") in text
    assert ("test_un.py::test_counts_its_runs: it fails against its own unchanged recording "
            "(it checks something a replay does not have): AssertionError: this body ran "
            "before") in text
    result = pytester.runpytest("-p", "no:randomly", "--termsim-shake=5", "--termsim-keep=none")
    text = result.stdout.str()
    assert result.ret == 0, text
    assert "termsim shake: no test was shaken: this run records no sessions" in text
    assert "passing tests ran" not in text
