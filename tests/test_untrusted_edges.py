"""The edges of "a recording is data" that no single reader owns (issue 33):
a wait's pattern read back from a file, an asciicast a recording cannot
hold, a resize a reader would refuse, and the failed test's report.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import cli_under_a_memory_limit

import termsim
from termsim import ArgumentError, RecordingError, Text
from termsim.cli import main
from termsim.emulator.terminal.terminal import Terminal
from termsim.events import End, Output, WaitEnded, WaitStarted
from termsim.files import Recording
from termsim.offline.evidence import describe_recordings
from termsim.recording.format import RecordingWriter, make_header
from termsim.report import predicate_text
from termsim.report.asciicast import import_asciicast

#: A pattern that backtracks for hours in ``re`` on a row of x's without a y
#: (24 x's took 6 s here; this file draws 60).
CATASTROPHIC = "(x+x+)+y"


def _failed_wait(path: Path, pattern: str, drawn: bytes) -> None:
    """A recording of a wait for ``pattern`` that timed out on ``drawn``."""
    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=80, rows=5,
                                               env={}))
    writer.write(WaitStarted(0.0, 1, f"regex /{pattern}/ in the screen", None, 1.0))
    writer.write(Output(0.1, drawn))
    writer.write(WaitEnded(1.0, 1, "timed out"))
    writer.write(End(1.0, "closed"))


@pytest.mark.timeout(60)
def test_a_pattern_from_a_recording_runs_within_its_budget(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           ) -> None:
    """``show --steps`` and the trace page run a failed wait's pattern on
    its screens again; read from a file, it runs under ``regex`` with a
    budget, and whatever it costs, the command ends."""
    path = tmp_path / "evil.tsr"
    _failed_wait(path, CATASTROPHIC, b"x" * 60)
    assert main(["show", "--steps", str(path)]) == 0
    assert CATASTROPHIC in capsys.readouterr().out
    assert main(["export", str(path), "-o", str(tmp_path / "page.html")]) == 0
    parsed = predicate_text.parse(f"regex /{CATASTROPHIC}/ in the screen")
    assert parsed is not None
    terminal = Terminal(80, 5)
    terminal.feed(b"x" * 60)
    assert not parsed(terminal.screen)
    assert predicate_text.PATTERN_BUDGET == 1.0


BOMB = "(?:(?:(?:a{1000}){1000}){1000})"


def test_a_pattern_that_would_expand_past_its_size_is_not_built(tmp_path: Path) -> None:
    """``regex`` builds counted repeats in memory when it compiles, before
    any budget of time applies: ``(?:(?:(?:a{1000}){1000}){1000})`` took
    24 GB. Read from a file, a pattern is sized by ``re``'s parser first.
    Run under a 1 GiB address-space limit, so a regression fails, not the
    machine."""
    path = tmp_path / "bomb.tsr"
    _failed_wait(path, BOMB, b"a" * 60)
    commands = (["show", "--steps", str(path)],
                ["export", str(path), "-o", str(tmp_path / "page.html")])
    for status, err in cli_under_a_memory_limit(commands, limit=1 << 30, timeout=60):
        assert status == 0, err
    assert predicate_text.parse(f"regex /{BOMB}/ in the screen") is None
    size = predicate_text.PATTERN_SIZE
    assert predicate_text.parse(f"regex /a{{{size - 10}}}/ in the screen") is not None
    assert predicate_text.parse(f"regex /a{{{size + 10}}}/ in the screen") is None


def test_descriptions_too_long_or_too_deep_are_not_read() -> None:
    assert predicate_text.parse("(" * 5000 + "text 'a' in the screen" + ")" * 5000) is None
    long = "text '" + "a" * predicate_text.LONGEST + "' in the screen"
    assert predicate_text.parse(long) is None
    assert predicate_text.parse("text 'a' in the screen") is not None


@pytest.mark.parametrize(("cast", "why"), [
    ('{"version": 2, "width": 5000, "height": 10}\n[0.1, "o", "hi"]\n', "5000x10"),
    ('{"version": 2, "width": 50, "height": 10}\n[0.1, "r", "50x2000"]\n', "50x2000"),
    ('{"version": 2, "width": 50, "height": 10}\n[1e12, "o", "hi"]\n', "2^53"),
])
def test_an_asciicast_a_recording_cannot_hold_is_refused(tmp_path: Path, cast: str,
                                                         why: str) -> None:
    source = tmp_path / "in.cast"
    source.write_text(cast)
    with pytest.raises(RecordingError, match=re.escape(why)):
        import_asciicast(source, tmp_path / "out.tsr")
    assert main(["import", str(source), "-o", str(tmp_path / "out.tsr")]) == 1


def test_an_exit_status_no_program_has_is_left_out_of_an_import(tmp_path: Path) -> None:
    source = tmp_path / "in.cast"
    source.write_text('{"version": 2, "width": 50, "height": 10}\n[0.1, "o", "hi"]\n'
                      '[0.2, "x", "99999999999999999999"]\n')
    recording = import_asciicast(source, tmp_path / "out.tsr")
    assert recording.exit_status is None
    assert Recording.open(tmp_path / "out.tsr").complete


@pytest.mark.anyio
async def test_a_recorded_session_refuses_a_resize_no_reader_opens(tmp_path: Path) -> None:
    async with termsim.spawn(["sh", "-c", "echo READY; read x"], record=tmp_path / "s.tsr",
                             cols=80, rows=24) as term:
        await term.wait_for(Text("READY"), timeout=10)
        with pytest.raises(ArgumentError, match="at most 1000x1000"):
            await term.resize(1001, 24)
        await term.resize(1000, 24)
    assert Recording.open(tmp_path / "s.tsr").complete


def test_the_failed_tests_report_shows_a_recordings_text_visibly(tmp_path: Path) -> None:
    """What pytest prints under a failed test: its recordings' final
    screens, with what a program drew made visible, one row to a line."""
    path = tmp_path / "s.tsr"
    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=40, rows=3,
                                               env={}))
    writer.write(Output(0.1, "left\u202eright\u2028more".encode()))
    writer.write(End(0.2, "closed"))
    report = describe_recordings([path], lambda p: p)
    assert "\u202e" not in report and "\u2028" not in report
    assert "left\\u202eright\\u2028more" in report


def _screen_bomb(path: Path) -> Path:
    """A 1000x1000 screen filled (DECALN) after each of five resizes: 410
    bytes that made codegen and ``show --steps`` keep 75 MB a step.

    Six screens of a million cells are half as many again as the budget
    (four would not pass it: codegen stops only past it), and each more
    screen costs ``diff``, which replays the recording four times, a quarter
    of a second."""
    from termsim.engine.playback import MAX_HELD_CELLS
    from termsim.events import Resize

    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=1000, rows=1000,
                                               env={}))
    writer.write(Output(0.0, b"\x1b#8"))
    for k in range(5):
        writer.write(Resize(0.01 * (k + 1), 1000 - k % 2, 1000))
        writer.write(Output(0.01 * (k + 1) + 0.001, b"\x1b#8"))
    writer.write(End(1.0, "closed"))
    assert path.stat().st_size < 500 and MAX_HELD_CELLS < 6 * 1000 * 1000
    return path


def test_a_reader_that_keeps_every_steps_screen_stops_at_its_budget(tmp_path: Path) -> None:
    """Codegen and ``show --steps`` stop at MAX_HELD_CELLS with one line,
    under a 1.5 GiB limit. The commands run one after the other in one
    process, under the one limit, each with its own status and stderr (file
    descriptor 2, Python's or a C library's): an interpreter and termsim's
    modules, started for each, cost a third of a second every time."""
    path = _screen_bomb(tmp_path / "bomb.tsr")
    commands = [["show", "--steps", str(path)], ["codegen", str(path)]]
    for args, (status, err) in zip(commands, cli_under_a_memory_limit(commands, limit=3 << 29),
                                   strict=True):
        assert status == 1, (args, err)
        assert "keeps a screen for every step" in err
        assert len(err.strip().splitlines()) == 1, (args, err)


def test_the_readers_that_look_at_each_screen_once_read_the_same_bomb(tmp_path: Path) -> None:
    """``diff`` (which looks at each screen once) and ``show`` (one screen)
    work on it, under the same limit."""
    path = _screen_bomb(tmp_path / "bomb.tsr")
    commands = [["diff", str(path), str(path)], ["show", str(path)]]
    for args, (status, err) in zip(commands, cli_under_a_memory_limit(commands, limit=3 << 29),
                                   strict=True):
        assert status == 0, (args, err)
