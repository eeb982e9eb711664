"""The pytest plugin, from the outside: pytest running pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from termsim import Playback

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
        await term.wait_for(Text("second"), timeout=0.5)
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
    assert "WaitTimeout" in text


def test_passing_test_leaves_nothing_unless_asked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_ok=PASSING)
    pytester.runpytest().assert_outcomes(passed=1)
    assert recordings(pytester.path / ".termsim") == []
    pytester.runpytest("--termsim-keep=all", "--termsim-dir", "kept").assert_outcomes(passed=1)
    assert len(recordings(pytester.path / "kept")) == 1


def test_keep_none_records_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=FAILING)
    result = pytester.runpytest("--termsim-keep=none")
    result.assert_outcomes(failed=1)
    assert not (pytester.path / ".termsim").exists()
    assert "termsim recordings" not in result.stdout.str()


def test_a_rerun_that_passes_keeps_the_failed_attempt(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_rerunfailures")
    pytester.makepyfile(test_flaky=FLAKY)
    result = pytester.runpytest("--reruns", "1")
    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("rerun")) == (1, 1)
    kept = recordings(pytester.path / ".termsim")
    assert [p.name for p in kept] == ["test_flaky.py__test_passes_the_second_time.tsr"]

    assert "first" in Playback(kept[0]).screen_at().text


def test_xdist_workers_do_not_collide(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(test_a=FAILING, test_b=FAILING.replace("test_waits", "test_b_waits"))
    result = pytester.runpytest_subprocess("-n", "2")
    result.assert_outcomes(failed=2)
    assert len(recordings(pytester.path / ".termsim")) == 2
