"""The termsim command, driven in-process (and `record` as a real process)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import program
from helpers import recorded

import termsim
from termsim import Text
from termsim.cli import main
from termsim.events import Input, Output, Resize
from termsim.files import Playback, Recording

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
PASSING = str(RECORDINGS / "passing.tsr")
HANG = str(RECORDINGS / "boot-hang.tsr")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_show_prints_the_final_screen_or_the_screen_at_a_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "show", PASSING)
    assert status == 0
    assert "assistant: done (5 chars)" in out and "bye" in out
    status, out, _ = run(capsys, "show", PASSING, "--at", "0.3")
    assert status == 0 and "Pick a theme" in out and "assistant" not in out
    status, out, _ = run(capsys, "show", HANG, "--end", "--frame")
    assert status == 0 and "23 │ state: booting" in out and "cursor at row" in out


def test_info_lists_waits_queries_silences_and_exit(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "info", HANG)
    assert status == 0
    # The program never exited by itself: the session's teardown hung it up.
    assert "complete" in out and "killed by SIGHUP; session closed" in out
    assert "timed out" in out and "after 120.0" in out
    assert "longest silences:" in out
    first_silence = out.split("longest silences:\n")[1].splitlines()[0]
    assert float(first_silence.split()[0]) > 119
    status, out, _ = run(capsys, "info", str(RECORDINGS / "cpr-starvation.tsr"))
    assert "unanswered" in out and "ESC[6n" in out and "cpr=ignore" in out
    status, out, _ = run(capsys, "info", PASSING)
    assert "exit status 0" in out and "queries:   7 answered, 0 unanswered" in out


@pytest.mark.parametrize("command", ["show", "info", "export", "play"])
def test_bad_files_give_one_line_and_status_1(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    garbage = tmp_path / "garbage.tsr"
    garbage.write_bytes(b"this is not a recording at all")
    extra = ["-o", str(tmp_path / "out.cast")] if command == "export" else []
    for path, expected in (
        (tmp_path / "missing.tsr", "No such file"),
        (garbage, "byte 0: not a termsim recording"),
    ):
        status, _, err = run(capsys, command, str(path), *extra)
        assert status == 1, (command, path)
        assert expected in err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_truncated_file_is_read_up_to_where_it_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cut = tmp_path / "cut.tsr"
    data = Path(PASSING).read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    status, out, err = run(capsys, "info", str(cut))
    assert status == 0
    assert "INCOMPLETE" in out and "is incomplete" in err
    damaged = tmp_path / "damaged.tsr"
    damaged.write_bytes(data[:2000] + b"\xc1" * 10 + data[2010:])
    status, out, err = run(capsys, "show", str(damaged))
    assert status == 1 and "damaged" in err and "byte" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "show", PASSING, "--at", "-1")
    assert status == 2 and "--at" in err
    # (.png and .gif are pictures now: .bmp is a format termsim does not write)
    status, _, err = run(capsys, "export", PASSING, "-o", "x.bmp")
    assert status == 2 and ".cast or .txt" in err and ".png" in err


@pytest.mark.parametrize("command", ["show", "export"])
def test_a_moment_past_the_end_says_so(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    extra = ["-o", str(tmp_path / "s.svg")] if command == "export" else []
    status, out, err = run(capsys, command, PASSING, "--at", "999", *extra)
    assert status == 2 and "past the end of the recording" in err and out == ""
    assert not (tmp_path / "s.svg").exists()
    status, _, _ = run(capsys, command, PASSING, "--at", "0.5", *extra)
    assert status == 0
    assert main([]) == 2


def test_play_writes_the_output_at_speed(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["play", PASSING, "--speed", "1000"])
    out = capsys.readouterr().out
    assert status == 0 and "assistant: done (5 chars)" in out


def test_record_runs_a_command_and_writes_a_recording(tmp_path: Path) -> None:
    path = tmp_path / "rec.tsr"
    result = subprocess.run(
        [sys.executable, "-m", "termsim", "record", "-o", str(path), "--cols", "50",
         "--rows", "10", "--", "sh", "-c", "echo recorded-output; exit 3"],
        stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
    )
    assert result.returncode == 3, result.stderr
    assert b"recorded-output" in result.stdout
    recording = Recording.open(path)
    assert recording.complete and recording.exit_status == 3
    assert (recording.cols, recording.rows) == (50, 10)
    assert "recorded-output" in Playback(recording).screen_at().text


def test_record_without_a_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "record", "-o", "x.tsr", "--")
    assert status == 2 and "give the command" in err


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_record_is_interactive_in_a_real_terminal(tmp_path: Path) -> None:
    """termsim record, driven through termsim: keys pass through in raw mode,
    resizes follow, and the user's terminal modes come back at the end."""
    import termsim
    from termsim import Text

    path = tmp_path / "interactive.tsr"
    # The inner program says its size at start and on every SIGWINCH, and
    # echoes the line it reads: every step is waited for, none is timed.
    argv = [sys.executable, "-m", "termsim", "record", "-o", str(path), "--",
            *program("winch.py"), "--echo"]
    async with termsim.spawn(argv, cols=70, rows=20) as outer:
        await outer.wait_for(Text("SIZE 70x20"), timeout=30)  # the inner PTY took our size
        assert outer.screen.input_ready is True  # the recorder put our tty in raw mode
        mark = await outer.resize(cols=60, rows=15)
        snap = await outer.wait_for(Text("SIZE 60x15"), since=mark, timeout=30)  # SIGWINCH
        await outer.type("hello\n")
        await outer.wait_for(Text("got:hello"), timeout=30)
        assert await outer.wait_exit(timeout=30) == 0
        assert "recorded to" in outer.screen.text
        assert snap.input_ready is True
        assert outer.input_ready() is False  # the user's cooked mode is back
    recording = Recording.open(path)
    assert recording.complete and recording.exit_status == 0
    assert any((e.cols, e.rows) == (60, 15) for e in recording.of_type(Resize))
    assert b"hello" in b"".join(e.data for e in recording.of_type(Input))
    assert "got:hello" in Playback(recording).screen_at().text


# -- play into a real terminal (termsim's own, so what it receives is known) ----------------

LEAVES_EVERYTHING_ON = (
    "printf '\\033]2;recorded title\\007\\033[?1049h\\033[?1000h\\033[?1006h\\033[?2004h"
    "\\033[?1h\\033=\\033[?25l\\033[5 q\\033[6n\\033[c\\033[>c\\033]11;?\\007\\033P$qm\\033\\\\"
    "\\033[31mhello from the recording'; read x"
)


async def _record(path: Path, script: str, cols: int = 80, rows: int = 24) -> None:
    await recorded(["sh", "-c", script], path,
                   lambda term: term.wait_for(Text("hello from the recording")),
                   cols=cols, rows=rows)


def _play_argv(path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "termsim", "play", str(path), *extra]


@pytest.mark.anyio
async def test_play_sends_no_query_and_undoes_what_the_recording_changed(tmp_path: Path) -> None:
    path = tmp_path / "modes.tsr"
    await _record(path, LEAVES_EVERYTHING_ON)
    assert Playback(Recording.open(path)).terminal_at().query_count >= 5
    seen = bytearray()
    script = f"printf '\\033]2;my shell\\007'; exec {shlex.join(_play_argv(path))}"
    async with termsim.spawn(["sh", "-c", script]) as term:
        term.listeners.append(lambda e: seen.extend(e.data) if isinstance(e, Output) else None)
        assert await term.wait_exit() == 0
        snap = term.screen
    assert b"hello from the recording" in seen
    assert term.query_count == 0  # not one query reached the terminal
    assert snap.title == "my shell"
    assert not snap.alternate and snap.cursor.visible
    assert snap.modes.mouse is None and not snap.modes.bracketed_paste
    assert not snap.modes.application_cursor and not snap.modes.application_keypad
    assert snap.modes.cursor_shape == 0


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["passing.tsr", "ipython.tsr", "ptpython.tsr", "fullscreen.tsr"])
async def test_play_of_real_recordings_sends_no_query(name: str) -> None:
    recorded = Playback(Recording.open(RECORDINGS / name)).terminal_at()
    async with termsim.spawn(_play_argv(RECORDINGS / name, "--speed", "1000"),
                             cols=100, rows=40) as term:
        assert await term.wait_exit(timeout=60) == 0
    assert recorded.query_count > 0 or name == "fullscreen.tsr"
    assert term.query_count == 0


@pytest.mark.anyio
async def test_play_interrupted_still_restores_the_terminal() -> None:
    # boot-hang.tsr sits two minutes on its boot screen, cursor hidden.
    async with termsim.spawn(_play_argv(RECORDINGS / "boot-hang.tsr")) as term:
        await term.wait_for(Text("state: booting"))
        await term.press("ctrl+c")
        assert await term.wait_exit() == 130
        snap = term.screen
    assert snap.cursor.visible and term.query_count == 0


@pytest.mark.anyio
async def test_play_says_when_the_terminal_is_smaller(tmp_path: Path) -> None:
    path = tmp_path / "wide.tsr"
    await _record(path, "printf 'hello from the recording'; read x", cols=120, rows=30)
    async with termsim.spawn(_play_argv(path), cols=80, rows=24) as term:
        await term.wait_exit()
        assert "this terminal is 80x24, smaller than the recording's 120x30" in (
            " ".join(term.transcript().split()))
    async with termsim.spawn(_play_argv(path), cols=120, rows=30) as term:
        await term.wait_exit()
        assert "smaller" not in term.transcript()
