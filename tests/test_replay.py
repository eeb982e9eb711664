"""Replays: the recordings in recordings/ reproduce their outcomes offline."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

import termsim
from termsim import ProcessExited, ReplayDivergence, Text, WaitTimeout
from termsim.files import Playback

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
#: The same sessions recorded by termsim 0.1.0 in format 1.0, kept as they were.
RECORDINGS_1_0 = Path(__file__).resolve().parent / "data" / "recordings-1.0"
sys.path.insert(0, str(RECORDINGS))

from scenarios import HANG_TIMEOUT, boot_hang, cpr_starvation, passing  # noqa: E402

pytestmark = pytest.mark.anyio


async def test_passing_session_replays_to_exit_status_0() -> None:
    async with termsim.replay(RECORDINGS / "passing.tsr") as term:
        assert await passing(term) == 0
        assert "assistant: done (5 chars)" in term.screen.text
        assert not term.divergences


async def test_boot_hang_replays_to_the_same_timeout_in_milliseconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recording = termsim.files.Recording.open(RECORDINGS / "boot-hang.tsr")
    assert recording.duration >= HANG_TIMEOUT
    # In milliseconds because on the replay's virtual clock: it reaches the
    # timeout without ever sleeping (the one way a replay waits real time).
    slept: list[float] = []

    async def no_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(anyio, "sleep", no_sleep)
    async with termsim.replay(RECORDINGS / "boot-hang.tsr") as term:
        with pytest.raises(WaitTimeout) as info:
            await boot_hang(term)
        assert term.now() >= HANG_TIMEOUT
    assert slept == []
    assert info.value.timeout == HANG_TIMEOUT
    assert "Starting the local server..." in info.value.snapshot.text
    assert "state: booting" in info.value.snapshot.lines[-1]
    assert info.value.silent_for is not None and info.value.silent_for > HANG_TIMEOUT - 1
    # The same screen the live run failed with, from the recording's end.
    assert info.value.snapshot.lines == Playback(recording).screen_at().lines


async def test_cpr_starvation_replays_to_a_toolbar_timeout() -> None:
    async with termsim.replay(RECORDINGS / "cpr-starvation.tsr") as term:
        with pytest.raises(WaitTimeout) as info:
            await cpr_starvation(term)
    # Recomputed by the replay's terminal, unanswered by the recorded policy.
    assert "ESC[6n (cursor position report) at output byte" in str(info.value)
    assert "ignored" in str(info.value)
    assert info.value.snapshot.lines[-1].strip() == ""


async def test_replay_of_a_live_session_fails_at_the_same_point(tmp_path: Path) -> None:
    path = tmp_path / "s.tsr"
    script = "echo one; read x; echo two $x; exit 2"
    async with termsim.spawn(["sh", "-c", script], record=path) as term:
        await term.wait_for(Text("one"), timeout=10)
        mark = await term.type("go\n")
        live = await term.wait_for(Text("two go"), since=mark, timeout=10)
        with pytest.raises(ProcessExited) as live_exit:
            await term.wait_for(Text("three"), timeout=10)
    async with termsim.replay(path) as replayed:
        await replayed.wait_for(Text("one"), timeout=10)
        mark = await replayed.type("go\n")
        again = await replayed.wait_for(Text("two go"), since=mark, timeout=10)
        with pytest.raises(ProcessExited) as replay_exit:
            await replayed.wait_for(Text("three"), timeout=10)
    assert again.lines == live.lines
    assert replay_exit.value.status == live_exit.value.status == 2
    assert replay_exit.value.snapshot.lines == live_exit.value.snapshot.lines


async def test_input_that_differs_from_the_recording_is_a_divergence() -> None:
    async with termsim.replay(RECORDINGS / "passing.tsr") as term:
        await term.wait_for(Text("Pick a theme"), timeout=30)
        with pytest.raises(ReplayDivergence, match=r"sends b'\\x1b\[A'.*recording has b'\\x1b\[B'"):
            await term.press("up")
    async with termsim.replay(RECORDINGS / "passing.tsr", strict=False) as term:
        await term.wait_for(Text("Pick a theme"), timeout=30)
        await term.press("up")
        assert term.divergences and "key up" in term.divergences[0]


@pytest.mark.parametrize("name", ["ipython", "ptpython", "fullscreen"])
async def test_real_program_sessions_replay_unchanged(name: str) -> None:
    from scenarios import SCENARIOS

    async with termsim.replay(RECORDINGS / f"{name}.tsr") as term:
        assert await SCENARIOS[name].scenario(term) == 0
        assert not term.divergences


async def outcome(path: Path) -> tuple[object, str]:
    """What a scenario's replay ends with (its value, or its error's type), and
    the last screen the engine saw."""
    from scenarios import SCENARIOS

    async with termsim.replay(path) as term:
        try:
            result: object = await SCENARIOS[path.stem].scenario(term)
        except termsim.TermsimError as exc:
            result = type(exc).__name__
        assert not term.divergences
        return result, term.screen.text


@pytest.mark.parametrize("name", sorted(p.stem for p in RECORDINGS_1_0.glob("*.tsr")))
async def test_recordings_made_before_and_after_replay_to_the_same_end(name: str) -> None:
    # A 1.0 file has no input-read events: its marks count from the write, as
    # they did. The regenerated file has them. Both end the same way.
    assert termsim.files.Recording.open(RECORDINGS_1_0 / f"{name}.tsr").version == (1, 0)
    before = await outcome(RECORDINGS_1_0 / f"{name}.tsr")
    after = await outcome(RECORDINGS / f"{name}.tsr")
    assert before == after
