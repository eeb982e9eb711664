"""``ignore=``: an idle program that keeps drawing (a ticking clock, a
spinner) still fails a wait promptly as ``Stalled``, live and on replay.

The program is a real prompt_toolkit REPL (``tests/programs/ptk_ticking.py``)
whose toolbar redraws ten times a second; told to go silent, it reads the
line and answers nothing, as an agent whose model never replies. Without
``ignore=`` the toolbar's output counts as activity, so the same wait runs
to its timeout: the control below shows it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import inherited_env, program
from readme import block

import termsim
from termsim import Quiet, RecordingEnded, Region, Stalled, Text, WaitTimeout
from termsim.errors import ArgumentError

pytestmark = pytest.mark.anyio

TOOLBAR = Region.row(-1)
PROMPT = Text("❯", region=Region.rows(0, -1))


def _env(silent: bool) -> dict[str, str]:
    return {**inherited_env(), "TICKING_SILENT": "1" if silent else "0"}


async def _silent_turn(path: Path) -> None:
    """Live: the agent reads ``hello`` and goes idle; the wait on its reply
    fails as Stalled within stall + 1 s of session time, though the toolbar
    never stops drawing."""
    async with termsim.spawn(program("ptk_ticking.py"), env=_env(True), record=path,
                             stall=1.0, ignore=TOOLBAR, rows=12) as term:
        await term.wait_for(PROMPT & Text("idle", region=TOOLBAR), timeout=20)
        mark = await term.type("hello\r")
        started = term.now()
        with pytest.raises(Stalled) as caught:
            await term.wait_for(Text("assistant:"), since=mark, timeout=30)
        assert term.now() - started < 30
        message = str(caught.value)
        assert "nothing changed outside the bottom row for" in message
        assert "ignored (ignore=): the bottom row, which changed on" in message
        # The recording goes on, the clock ticking, past the control's 2 s
        # timeout: 2.5 s with nothing changed but the clock.
        await term.wait_for(Quiet(2.5, ignore=TOOLBAR), since=mark, timeout=30, stall=5)


async def test_an_idle_agent_whose_clock_ticks_fails_as_stalled(tmp_path: Path) -> None:
    path = tmp_path / "silent.tsr"
    await _silent_turn(path)
    # On replay the clock is virtual: the failure comes at the same point,
    # within stall + 1 s of the input, whatever the machine's load was.
    async with termsim.replay(path, stall=1.0, ignore=TOOLBAR) as term:
        await term.wait_for(PROMPT, timeout=20)
        mark = await term.type("hello\r")
        with pytest.raises(Stalled) as caught:
            await term.wait_for(Text("assistant:"), since=mark, timeout=30)
        # Virtual time: the stall fires exactly ``stall`` after the last change.
        assert caught.value.stalled_for == pytest.approx(1.0)
        assert term.now() - mark.at <= 1.0 + 1.0


async def test_without_ignore_the_ticking_clock_hides_the_stall(tmp_path: Path) -> None:
    # The control: the same recording, the same wait, no ignore=: the
    # toolbar's redraws are activity, so only the timeout ends the wait.
    path = tmp_path / "silent.tsr"
    await _silent_turn(path)
    async with termsim.replay(path, stall=1.0) as term:
        await term.wait_for(PROMPT, timeout=20)
        mark = await term.type("hello\r")
        with pytest.raises(WaitTimeout) as caught:
            await term.wait_for(Text("assistant:"), since=mark, timeout=2)
        assert type(caught.value) is WaitTimeout


async def test_an_agent_that_answers_is_not_stalled_and_quiet_ignores_the_clock(
    tmp_path: Path,
) -> None:
    path = tmp_path / "answers.tsr"
    async with termsim.spawn(program("ptk_ticking.py"), env=_env(False), record=path,
                             stall=1.0, ignore=TOOLBAR, rows=12) as term:
        await term.wait_for(PROMPT & Text("idle", region=TOOLBAR), timeout=20)
        mark = await term.type("hello\r")
        await term.wait_for(Text("assistant: hello"), since=mark, timeout=30)
        # Quiet with ignore=: the rest of the screen has settled, though the
        # clock has not.
        await term.wait_for(Text("assistant: hello") & Quiet(0.5, ignore=TOOLBAR),
                            since=mark, timeout=30, stall=5)
        # The screen as expected, the clock's row masked by ignore=.
        await term.expect_screen("❯ hello\nassistant: hello\n❯", region=Region.rows(0, 3),
                                 since=mark, timeout=30)
    async with termsim.replay(path) as term:
        await term.wait_for(PROMPT, timeout=20)
        mark = await term.type("hello\r")
        await term.wait_for(Text("assistant: hello"), since=mark, timeout=30)
        # Without ignore= the clock keeps Quiet from ever holding, up to the
        # end of the recording, where the replay says so.
        with pytest.raises(RecordingEnded, match="the recording ends at"):
            await term.wait_for(Quiet(0.5), since=mark, timeout=30)


async def test_expect_screen_masks_the_ignored_rows(tmp_path: Path) -> None:
    async with termsim.spawn(program("ptk_ticking.py"), env=_env(False), rows=4,
                             ignore=TOOLBAR) as term:
        await term.wait_for(PROMPT & Text("idle", region=TOOLBAR), timeout=20)
        # The bottom row holds a clock no expectation can name; ignore= masks it.
        await term.expect_screen("❯\n\n\n" + "░" * 80, timeout=20)


@pytest.mark.parametrize("bad", [Region.transcript(), "row -1", [Region.row(0), 3]])
def test_ignore_takes_screen_regions_and_says_so(bad: object) -> None:
    with pytest.raises(ArgumentError, match="ignore= takes"):
        Quiet(1, ignore=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("silent", [False, True], ids=["answers", "goes-idle"])
def test_the_readme_pattern_passes_on_an_answer_and_stalls_on_an_idle_agent(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, silent: bool,
) -> None:
    # The README's block, run as a reader would, with agent.py the ticking
    # REPL: it passes when the agent answers; when it goes idle the test
    # fails as Stalled (not at its 300 s timeout), with the ignored row named.
    source = block("idle-agent").replace('"agent.py"', repr(program("ptk_ticking.py")[1]))
    path = pytester.makepyfile(test_idle_agent=source)
    monkeypatch.setenv("TICKING_SILENT", "1" if silent else "0")
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider",
                                          f"--rootdir={pytester.path}", str(path))
    if not silent:
        assert result.ret == 0, result.stdout.str()[-3000:]
        result.assert_outcomes(passed=2)  # asyncio and trio
        return
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert out.count("termsim.Stalled: stalled waiting for text 'assistant: hello'") == 2, out
    assert "nothing changed outside the bottom row for 3.0 s" in out
