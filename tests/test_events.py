"""The event vocabulary: every kind round-trips through a file as the same value."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from helpers import file_record
from hypothesis import given
from hypothesis import strategies as st

import termsim
from termsim import RecordingError, events
from termsim.files import Recording
from termsim.recording.codec import KIND, decode, encode
from termsim.recording.format import MAGIC, RecordingWriter, make_header

ROOT = Path(__file__).resolve().parent.parent

ONE_OF_EACH: list[events.Event] = [
    events.Output(0.1, b"\x1b[1mhi\xff"),
    events.Input(0.2, b"abc\r", "typed 'abc\\n'"),
    events.Input(0.25, b"[REDACTED]", "input [REDACTED] (echo was off)", secret=True),
    events.Input(0.26, b"\r", "key enter", tracked=True),
    events.Reply(0.3, b"\x1b[1;1R"),
    events.Resize(0.4, 100, 30),
    events.TtyMode(0.5, True),
    events.TtyMode(0.51, None),
    events.InputRead(0.6, 3),
    events.InputRead(0.61, 3, answered=True),
    events.WaitStarted(0.7, 1, "text 'x' in the screen", None, 5.0),
    events.WaitStarted(0.71, 2, "text 'y' in the screen", "input #3 (key enter) at 0.260 s",
                       0.5),
    events.WaitEnded(0.8, 1, "matched"),
    events.ScreenCompared(0.81, 2, "screen 4x1\n|abcd|\n", "screen 4x1\n|abce|\n"),
    events.ScreenCompared(0.82, 2, "|x|\n", "|y|\n", golden="t.screens/a__b.screen"),
    events.Note(0.9, "checkpoint"),
    events.Warned(1.0, "keys sent while cooked"),
    events.Exit(1.1, -9),
    events.Exit(1.11, None),
    events.Hangup(1.15),
    events.UnknownSequences(1.2, {"CSI i": 2}),
    events.Unrecognized(1.25, "zz", (1, "two")),
    events.End(1.3, "closed"),
]


def test_every_event_type_is_in_the_vocabulary_and_the_codec() -> None:
    kinds = {t for t in events.Event.__args__}  # type: ignore[attr-defined]
    assert {type(e) for e in ONE_OF_EACH} == kinds
    assert set(KIND) == kinds - {events.Unrecognized}
    assert len(set(KIND.values())) == len(KIND)  # one tag each
    for kind in kinds:
        assert kind.__doc__, kind
        assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_a_file_reads_back_the_same_values(tmp_path: Path) -> None:
    path = tmp_path / "all.tsr"
    writer = RecordingWriter(path, make_header(argv=["x"], cwd="/", cols=10, rows=2, env={}))
    for event in ONE_OF_EACH[:-1]:
        writer.write(event)
    writer.close(1.3, "closed")
    recording = Recording.open(path)
    assert recording.events == ONE_OF_EACH
    assert recording.complete and recording.version == (1, 1)
    assert list(recording.of_type(events.Exit)) == [events.Exit(1.1, -9), events.Exit(1.11, None)]
    assert recording.exit_status is None and recording.end == events.End(1.3, "closed")


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False), st.binary())
def test_times_are_kept_to_the_microsecond(t: float, data: bytes) -> None:
    event = events.Output(events.stamp(t), data)
    assert decode(encode(event)) == event


def test_defaults_are_left_out_so_older_readers_read_newer_files() -> None:
    assert encode(events.Input(0.5, b"a", "key a")) == ["i", 500000, b"a", "key a"]
    assert len(encode(events.Input(0.5, b"a", "key a", tracked=True))) == 6


def test_version_1_0_files_read_back_with_the_new_fields_defaulted() -> None:
    header = {"format": "termsim-recording", "version": [1, 0], "cols": 80, "rows": 24,
              "policy": {"cpr": "defer"}}
    data = MAGIC + file_record(header) + file_record(["i", 10, b"x", "key x"]) \
        + file_record(["w", 20, {"id": 1, "predicate": "p", "timeout": 1}]) \
        + file_record(["e", 30, "closed"])
    recording = Recording.from_bytes(data)
    assert recording.version == (1, 0)
    assert recording.events[:2] == [events.Input(10e-6, b"x", "key x"),
                                    events.WaitStarted(20e-6, 1, "p", None, 1.0)]
    # The committed recordings were written by 1.0 and still replay (tests/test_replay.py).
    for path in sorted((ROOT / "recordings").glob("*.tsr")):
        assert Recording.open(path).complete, path


@pytest.mark.parametrize(("fields", "why"), [
    (["o", 1, "text, not bytes"], "data is str, not bytes"),
    (["r", 1, 80], "no rows"),
    (["r", 1, 80, True], "rows is bool, not int"),
    (["w", 1, {"id": 1, "predicate": "p"}], "timeout is NoneType"),
    (["x", 1, "0"], "status is str"),
])
def test_a_well_formed_record_with_bad_fields_is_damage_named_by_offset(
        fields: list[object], why: str) -> None:
    header = {"format": "termsim-recording", "version": [1, 1], "cols": 80, "rows": 24}
    good = MAGIC + file_record(header)
    with pytest.raises(RecordingError, match=rf"byte {len(good)}: damaged '.' event: {why}"):
        Recording.from_bytes(good + file_record(fields))


def test_events_are_public_and_typed() -> None:
    assert termsim.events is events
    assert termsim.files.Event == events.Event
