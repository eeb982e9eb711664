"""Recording files: what they hold, crash safety, and clear errors on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import file_record

import termsim
from termsim import RecordingError, Text
from termsim.events import (
    End,
    Input,
    Note,
    Output,
    UnknownSequences,
    Unrecognized,
    WaitEnded,
    WaitStarted,
)
from termsim.files import Playback, Recording
from termsim.recording.format import MAGIC

pytestmark = pytest.mark.anyio


async def test_recording_holds_output_input_waits_notes_and_exit(tmp_path: Path) -> None:
    path = tmp_path / "s.tsr"
    script = "echo hello; read x; echo got $x; exit 4"
    async with termsim.spawn(["sh", "-c", script], record=path, cols=40, rows=5) as term:
        await term.wait_for(Text("hello"), timeout=10)
        term.note("about to type")
        await term.type("abc\n")
        assert await term.wait_exit(timeout=10) == 4
    recording = Recording.open(path)
    assert recording.complete and recording.stopped_at is None
    assert recording.header["argv"] == ["sh", "-c", script]
    assert (recording.cols, recording.rows) == (40, 5)
    assert recording.header["term"] == "xterm-256color"
    assert recording.events[-1] == End(recording.events[-1].t, "closed")
    assert b"".join(e.data for e in recording.of_type(Output)).startswith(b"hello\r\n")
    inputs = list(recording.of_type(Input))
    assert [(e.data, e.label) for e in inputs] == [(b"abc\r", "typed 'abc' + enter")]
    assert [e.label for e in recording.of_type(Note)] == ["about to type"]
    waits = list(recording.of_type(WaitEnded))
    starts = list(recording.of_type(WaitStarted))
    assert "hello" in starts[0].predicate and starts[0].timeout == 10
    assert waits[0].outcome == "matched" and waits[0].id == starts[0].id
    assert recording.exit_status == 4
    times = [e.t for e in recording.events]
    assert times == sorted(times)
    assert "got abc" in Playback(recording).screen_at().text
    assert "got abc" not in Playback(recording).screen_at(inputs[0].t).text


async def test_failed_wait_is_recorded_with_its_outcome(tmp_path: Path) -> None:
    path = tmp_path / "s.tsr"
    async with termsim.spawn(["sh", "-c", "echo up; read x"], record=path) as term:
        with pytest.raises(termsim.WaitTimeout) as info:
            await term.wait_for(Text("never"), timeout=0.2)
        assert str(path) in str(info.value)
    ends = list(Recording.open(path).of_type(WaitEnded))
    assert ends[-1].outcome == "timed out"


async def test_unwritable_recording_is_a_clear_error_at_spawn(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="cannot write the recording"):
        async with termsim.spawn(["true"], record=tmp_path / "missing-dir" / "x.tsr"):
            pass


def test_bad_files_say_where_and_why(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match=r"byte 0: not a termsim recording"):
        Recording.from_bytes(b"hello world")
    with pytest.raises(RecordingError, match="empty or cut inside its signature"):
        Recording.from_bytes(MAGIC[:5])
    with pytest.raises(RecordingError, match="header is missing or cut short"):
        Recording.from_bytes(MAGIC + b"\x85")
    with pytest.raises(RecordingError, match="cannot read"):
        Recording.open(tmp_path / "nope.tsr")

    header = {"format": "termsim-recording", "version": [2, 0], "cols": 80, "rows": 24}
    unreadable = rf"byte {len(MAGIC)}: format version 2.x is not readable"
    with pytest.raises(RecordingError, match=unreadable):
        Recording.from_bytes(MAGIC + file_record(header))
    header["version"] = [1, 7]
    header["from-the-future"] = True
    good = MAGIC + file_record(header) + file_record(["o", 10, b"hi"])
    end = file_record(["e", 30, "closed"])
    future = Recording.from_bytes(good + file_record(["zz", 20, 1]) + end)
    assert future.complete and [type(e) for e in future.events] == [Output, Unrecognized, End]
    assert future.events[1] == Unrecognized(20e-6, "zz", (1,))
    assert future.header["from-the-future"] is True

    damaged_at = len(good)
    with pytest.raises(RecordingError, match=rf"byte {damaged_at}: damaged event"):
        Recording.from_bytes(good + file_record({"not": "an event"}))
    with pytest.raises(RecordingError, match=rf"byte {damaged_at}: damaged data"):
        Recording.from_bytes(good + b"\xc1" + end)
    with pytest.raises(RecordingError, match=rf"byte {len(good + end)}: data after the end"):
        Recording.from_bytes(good + end + end)
    # A flipped byte inside a payload is still valid msgpack: the CRC catches it.
    flipped = bytearray(good + end)
    flipped[len(good) - 3] ^= 0x20
    offset = len(MAGIC) + len(file_record(header))
    with pytest.raises(RecordingError, match=rf"byte {offset}: damaged record \(its CRC-32"):
        Recording.from_bytes(bytes(flipped))


def test_every_truncation_reads_back_or_says_why() -> None:
    data = (Path(__file__).resolve().parent.parent / "recordings" / "passing.tsr").read_bytes()
    full = Recording.from_bytes(data)
    previous = 0
    for cut in range(len(MAGIC) + 1, len(data), 7):
        try:
            recording = Recording.from_bytes(data[:cut])
        except RecordingError as exc:
            assert "header" in str(exc)  # only a cut inside the header is an error
            continue
        assert not recording.complete and recording.stopped_at is not None
        assert recording.stopped_at <= cut
        assert len(recording.events) >= previous
        previous = len(recording.events)
        assert recording.events == full.events[: len(recording.events)]


async def test_sequences_not_understood_are_counted_in_the_recording(tmp_path: Path) -> None:
    path = tmp_path / "s.tsr"
    async with termsim.spawn(["printf", "\\033[5ihi\\033[5i"], record=path) as term:
        await term.wait_exit(timeout=10)
        assert term.unknown["CSI i"] == 2
    counts = [e.counts for e in Recording.open(path).of_type(UnknownSequences)]
    assert counts == [{"CSI i": 2}]


def test_waits_pair_each_start_with_its_end() -> None:
    hang = Recording.open(Path(__file__).resolve().parent.parent / "recordings" / "boot-hang.tsr")
    waits = hang.waits()
    assert [w.outcome for w in waits] == ["matched", "timed out"]
    assert waits[1].timeout == 120.0 and "❯" in waits[1].predicate
    assert waits[1].end is not None and waits[1].end - waits[1].start >= 120.0
