"""A recording from a stranger (issue 33): its sizes are capped, and every bad
field is a RecordingError that names the field and the byte offset of its record.

Each file here is a real recording (``recordings/passing.tsr``, or a small
one written the same way) with one field changed, written by the real
writer, so every CRC checks out. Every command of the real CLI
(``termsim.cli.main``, in-process) and ``termsim.replay()`` then either work
or say what is wrong in one line and exit 1: never the "internal error"
of exit 3, never a traceback, never a ``TypeError`` from inside termsim.

Sizes a reader would allocate for (a million by a million cells from a
250-byte header) are opened in a child process under ``RLIMIT_AS`` and
``RLIMIT_CPU``, and every other command runs under a lowered ``RLIMIT_AS``
(:func:`memory_cap`): a termsim that trusts a size fails these tests with a
``MemoryError``, not by taking the machine down.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import termsim
from termsim import ArgumentError, RecordingError, TermsimError
from termsim.cli import main
from termsim.events import (
    End,
    Event,
    Exit,
    Hangup,
    Input,
    InputRead,
    Note,
    Output,
    Reply,
    Resize,
    ScreenCompared,
    TtyMode,
    UnknownSequences,
    Unrecognized,
    WaitEnded,
    WaitStarted,
    Warned,
)
from termsim.files import Playback, Recording
from termsim.recording.codec import encode
from termsim.recording.format import MAGIC, RecordingWriter, make_header

ROOT = Path(__file__).resolve().parent.parent
PASSING = ROOT / "recordings" / "passing.tsr"
HEADER_AT = len(MAGIC)
#: Leave a header key out (``rewrite(header={"cols": MISSING})``).
MISSING = object()


# -- building files -------------------------------------------------------------------


def write(path: Path, header: dict[str, Any], events: list[Event],
          bad: Event | None = None, at: int = 0) -> int:
    """Write ``events`` (``bad`` inserted before ``events[at]``) with the real
    writer; return the byte offset of ``bad``'s record (or of the header)."""
    writer = RecordingWriter(path, header)
    offset = HEADER_AT
    for i, event in enumerate(events):
        if bad is not None and i == at:
            offset = path.stat().st_size
            writer.write(bad)
        if not isinstance(event, End):
            writer.write(event)
    last = events[-1] if events else None
    writer.close(last.t if last is not None else 0.0,
                 last.how if isinstance(last, End) else "closed")
    assert not writer.failed
    return offset


def rewrite(path: Path, *, header: dict[str, Any] | None = None, bad: Event | None = None,
            at: int = 10) -> int:
    """``recordings/passing.tsr`` with header keys changed (or left out:
    :data:`MISSING`) or one event inserted; return the changed record's offset."""
    real = Recording.open(PASSING)
    changed = dict(real.header)
    for key, value in (header or {}).items():
        if value is MISSING:
            changed.pop(key, None)
        else:
            changed[key] = value
    return write(path, changed, real.events, bad, at)


def raw(t_us: int, kind: str, *fields: Any) -> Unrecognized:
    """A record of any shape, as the writer writes it: ``[kind, t_us, *fields]``
    (an :class:`Unrecognized` is written as its kind and fields, whatever they are)."""
    return Unrecognized(t_us / 1_000_000, kind, fields)


# -- every command --------------------------------------------------------------------


def commands(path: Path, out: Path, base: Path = PASSING) -> list[list[str]]:
    """Every command that reads a recording, on ``path`` (outputs in ``out``;
    ``base``: the other recording of ``diff`` and ``codegen``)."""
    p, base_ = str(path), str(base)
    return [
        ["show", p], ["show", "--frame", p], ["show", "--at", "0", p],
        ["show", "--steps", p], ["show", "--steps", "--format", "md", p],
        ["show", "--steps", "--format", "json", p],
        ["info", p],
        ["export", p, "-o", str(out / "o.txt")], ["export", p, "-o", str(out / "o.html")],
        ["export", p, "-o", str(out / "o.svg")], ["export", p, "-o", str(out / "o.cast")],
        ["export", "--v3", p, "-o", str(out / "o3.cast")],
        ["codegen", p], ["codegen", p, base_],
        ["diff", base_, p], ["diff", p, base_, "--html", str(out / "d.html")],
        # stdout is not a tty here; no pause is played (--idle-limit 0).
        ["play", "--idle-limit", "0", p],
    ]


@contextlib.contextmanager
def memory_cap(extra: int = 1 << 30) -> Iterator[None]:
    """At most ``extra`` more bytes of address space while the block runs
    (a reader that trusted a size then fails with a MemoryError)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        with open("/proc/self/statm") as statm:
            used = int(statm.read().split()[0]) * resource.getpagesize()
    except OSError:  # not Linux: no cap, the sizes are refused all the same
        yield
        return
    cap = used + extra if hard == resource.RLIM_INFINITY else min(used + extra, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def run_cli(argv: list[str]) -> tuple[int, str]:
    """``termsim ARGV`` in-process; its status and what it wrote to stderr."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, err.getvalue()


def check_cli(argv: list[str], status: int, err: str) -> None:
    """Worked, or one line saying what is wrong and exit 1."""
    assert status in (0, 1), (argv, status, err)
    assert "internal error" not in err and "Traceback" not in err, (argv, err)
    if status == 1:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"termsim {argv[0]}: "), (argv, err)


def replayed(path: Path) -> RecordingError | None:
    """Open ``path`` with ``termsim.replay()`` and play it to its end; the
    RecordingError it raised, or None. A wait that fails on the replay is
    the replay working; anything but a termsim error is a bug."""

    async def play() -> None:
        async with session as term:
            with contextlib.suppress(TermsimError):
                await term.wait_exit(timeout=1000.0)

    with memory_cap():
        try:
            session = termsim.replay(path, strict=False)
        except RecordingError as exc:
            return exc
        anyio.run(play)
    return None


def every_command(path: Path, out: Path, base: Path = PASSING,
                  ) -> list[tuple[list[str], int, str]]:
    """Run every command and the replay on ``path``; each works or fails cleanly."""
    results = []
    with memory_cap():
        for argv in commands(path, out, base):
            status, err = run_cli(argv)
            check_cli(argv, status, err)
            results.append((argv, status, err))
    replayed(path)
    return results


def rejected(path: Path, out: Path, field: str, offset: int) -> None:
    """Every command and the replay refuse ``path``, naming ``field`` and ``offset``."""
    error = replayed(path)
    assert error is not None, f"replay() accepted a bad {field}"
    assert error.offset == offset and error.path == str(path)
    assert field in str(error) and f"byte {offset}:" in str(error), str(error)
    for argv, status, err in every_command(path, out):
        if field in ("emulation", "profile") and (argv[0] == "play"
                                                   or argv[-1].endswith(".cast")):
            # Checked where a screen is drawn: a command that only passes
            # the bytes on (play, asciicast) may work.
            continue
        assert status == 1 and field in err and f"byte {offset}:" in err, (argv, err)


# -- each bad header field ------------------------------------------------------------------

nan, inf = math.nan, math.inf

BAD_HEADERS: list[tuple[str, object]] = [
    ("cols", None), ("cols", 0), ("cols", -5), ("cols", True), ("cols", "80"), ("cols", 1.5),
    ("rows", 1001), ("rows", 2**63),
    ("argv", 123), ("argv", ["python", 5]), ("argv", "python"),
    ("cwd", 5), ("term", ["xterm"]), ("platform", None), ("started", 1234),
    ("env", ["TERM"]), ("env", {"TERM": 5}),
    ("versions", ["python"]), ("versions", {"python": 3.11}),
    ("policy", ["cpr"]), ("policy", {"cpr": inf}), ("policy", {"cpr": nan}),
    ("policy", {"cpr": -1}), ("policy", {"cpr": "later"}), ("policy", {"cpr": True}),
    ("cell_size", ["a", "b"]), ("cell_size", [0, 20]), ("cell_size", [10]),
    ("cell_size", [10**9, 20]), ("cell_size", "10x20"),
    ("emulation", "tmux"), ("emulation", {"backspace_at_wrap": "kitty"}),
    ("emulation", {"graphemes": "yes"}),
    ("profile", "no-such-terminal"), ("profile", 5),
    ("version", [1]), ("version", ["1", "1"]), ("version", "1.1"), ("version", [1, -1]),
]


@pytest.mark.parametrize(("key", "value"), BAD_HEADERS,
                         ids=[f"{k}={v!r}" for k, v in BAD_HEADERS])
def test_a_bad_header_field_is_a_recording_error_naming_it(
        key: str, value: object, tmp_path: Path) -> None:
    path = tmp_path / "bad.tsr"
    rewrite(path, header={key: value})
    rejected(path, tmp_path, key, HEADER_AT)


def test_the_message_says_what_the_field_holds_and_what_it_should(tmp_path: Path) -> None:
    path = tmp_path / "bad.tsr"
    rewrite(path, header={"cols": -5})
    with pytest.raises(RecordingError) as info:
        Recording.open(path)
    assert str(info.value) == (
        f"{path}: byte 13: the header's cols is -5, not a whole number from 1 to 1000 "
        "(termsim's largest screen is 1000x1000)")
    offset = rewrite(path, bad=Resize(0.3, 0, 0))
    with pytest.raises(RecordingError) as info:
        Recording.open(path)
    assert str(info.value) == (
        f"{path}: byte {offset}: damaged 'r' event: cols is 0, not a whole number from 1 "
        "to 1000")


def test_missing_optional_header_fields_take_their_defaults(tmp_path: Path) -> None:
    path = tmp_path / "sparse.tsr"
    rewrite(path, header={key: MISSING for key in (
        "argv", "cwd", "cols", "rows", "term", "env", "policy", "versions", "platform",
        "started")})
    for argv, status, err in every_command(path, tmp_path):
        assert status == 0, (argv, err)
    assert Playback(path).screen_at().cols == 80


def test_unknown_header_keys_and_options_are_allowed(tmp_path: Path) -> None:
    # A minor version may add them: a newer termsim's header opens.
    path = tmp_path / "newer.tsr"
    rewrite(path, header={"version": [1, 9], "from-the-future": [1, {"x": None}],
                          "emulation": {"a-new-option": [1, 2]},
                          "policy": {"a-new-query": 0.5, "cpr": "defer"}})
    for argv, status, err in every_command(path, tmp_path):
        assert status == 0, (argv, err)
    assert replayed(path) is None


# -- each bad event field -------------------------------------------------------------------

BAD_EVENTS: list[tuple[Event, str]] = [
    (Resize(0.3, 0, 0), "cols"), (Resize(0.3, -1, 24), "cols"), (Resize(0.3, 80, 0), "rows"),
    (Resize(0.3, 1001, 24), "cols"), (Resize(0.3, 80, 2**40), "rows"),
    (Resize(0.3, 80, None), "rows"),  # type: ignore[arg-type]
    (Exit(0.3, 2**40), "status"), (Exit(0.3, -1000), "status"),
    (InputRead(0.3, 0), "index"), (InputRead(0.3, -3), "index"),
    (WaitStarted(0.3, 9, "p", None, nan), "timeout"),
    (WaitStarted(0.3, 9, "p", None, -1.0), "timeout"),
    (UnknownSequences(0.3, {"CSI x": -1}), "counts"),
    (Output(-0.000001, b"x"), "time"), (Output(2**60 / 1e6, b"x"), "time"),
    (raw(300_000, "w", ["not", "a", "map"]), "details"),
    (raw(300_000, "s", {"wait": 1, "expected": None, "actual": ""}), "expected"),
    (raw(300_000, "r"), "cols"),
    (raw(300_000, "n", 5), "label"),
    (raw(300_000, "e", "exploded"), "how"),
]


@pytest.mark.parametrize(("bad", "field"), BAD_EVENTS,
                         ids=[f"{field}-{i}" for i, (_, field) in enumerate(BAD_EVENTS)])
def test_a_bad_event_field_is_a_recording_error_at_its_offset(
        bad: Event, field: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.tsr"
    offset = rewrite(path, bad=bad)
    assert offset > HEADER_AT
    rejected(path, tmp_path, field, offset)


def test_a_wait_without_a_time_limit_still_reads(tmp_path: Path) -> None:
    # timeout=math.inf is a wait a live test may ask for (and record).
    path = tmp_path / "forever.tsr"
    rewrite(path, bad=WaitStarted(0.3, 9, "p", None, inf))
    for argv, status, err in every_command(path, tmp_path):
        assert status == 0, (argv, err)


# -- sizes: capped before anything is allocated ----------------------------------------

#: The child: every command and the replay on one file, under a memory and a
#: CPU limit; one JSON line per command.
CHILD = textwrap.dedent("""
    import contextlib, io, json, resource, sys
    memory, cpu = int(sys.argv[3]), int(sys.argv[4])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    import anyio, termsim
    from termsim.cli import main
    for argv in json.loads(sys.argv[1]):
        out, err = io.TextIOWrapper(io.BytesIO()), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
        print(json.dumps([argv, status, err.getvalue()]), flush=True)
    try:
        termsim.replay(sys.argv[2])
        replay = "opened"
    except termsim.RecordingError as exc:
        replay = "RecordingError: " + str(exc)
    except BaseException as exc:
        replay = type(exc).__name__ + ": " + str(exc)
    print(json.dumps(["replay", replay]), flush=True)
""")


def limited_child(path: Path, out: Path) -> list[list[Any]]:
    """Every command and the replay on ``path`` in a child that cannot take
    more than 1 GiB of address space or 60 s of CPU."""
    argv = json.dumps(commands(path, out))
    done = subprocess.run([sys.executable, "-c", CHILD, argv, str(path), str(1 << 30), "60"],
                          capture_output=True,
                          text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    return [json.loads(line) for line in done.stdout.splitlines()]


HUGE: dict[str, Callable[[Path], int]] = {
    # A 250-byte header saying a million by a million.
    "header-1e6": lambda path: rewrite(path, header={"cols": 10**6, "rows": 10**6}),
    "resize-1e6": lambda path: rewrite(path, bad=Resize(0.3, 10**6, 10**6)),
    # Ten thousand square and one DECALN (which fills every cell): over 4 GB.
    "resize-1e4-decaln": lambda path: write(
        path, make_header(argv=["x"], cwd="/", cols=80, rows=24, env={}),
        [Output(0.2, b"\x1b#8"), Exit(0.3, 0)], Resize(0.1, 10_000, 10_000), 0),
    # What made codegen run for minutes.
    "header-1e4": lambda path: rewrite(path, header={"cols": 10_000, "rows": 10_000}),
}


@pytest.mark.parametrize("case", list(HUGE))
def test_a_huge_size_is_refused_before_anything_is_allocated(case: str, tmp_path: Path) -> None:
    path = tmp_path / f"{case}.tsr"
    offset = HUGE[case](path)
    assert path.stat().st_size < 20_000
    results = limited_child(path, tmp_path)
    assert len(results) == len(commands(path, tmp_path)) + 1
    for argv, status, err in results[:-1]:
        check_cli(argv, status, err)
        assert status == 1 and "cols" in err and f"byte {offset}:" in err, (argv, err)
        assert "1000" in err  # the cap, named
    assert results[-1][1].startswith(f"RecordingError: {path}: byte {offset}:"), results[-1]


def test_the_largest_size_still_opens(tmp_path: Path) -> None:
    path = tmp_path / "largest.tsr"
    write(path, make_header(argv=["x"], cwd="/", cols=1000, rows=1000, env={}),
          [Output(0.1, b"hello"), Resize(0.2, 1000, 1000), Exit(0.3, 0)])
    assert Playback(path).screen_at().lines[0].startswith("hello")
    assert replayed(path) is None


def test_a_session_above_the_cap_is_not_recorded_unreadable(tmp_path: Path) -> None:
    # The writer's side of the cap: spawn refuses at once, before the
    # program runs, rather than leave a file no reader opens.
    with pytest.raises(ArgumentError, match="cols is a whole number from 1 to 1000"):
        make_header(argv=["x"], cwd="/", cols=1001, rows=24, env={})

    async def spawn() -> None:
        async with termsim.spawn(["true"], cols=1001, rows=24, record=tmp_path / "r.tsr"):
            pass  # pragma: no cover

    with pytest.raises(ArgumentError, match="1001"):
        anyio.run(spawn)


def test_a_moment_that_is_not_a_number_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match="not nan"):
        Playback(PASSING).screen_at(math.nan)
    status, err = run_cli(["show", "--at", "nan", str(PASSING)])
    assert status in (1, 2) and len(err.strip().splitlines()) == 1, err


# -- properties: any field, any wrong value ---------------------------------------------------


#: Wrong values of every kind: types, ranges, shapes (msgpack holds no int
#: outside -2^63..2^64-1, so those are the largest there can be).
WRONG = st.one_of(
    st.none(), st.booleans(),
    st.sampled_from([0, -1, -5, 1001, 10**6, 2**31, 2**53 + 1, 2**63, 2**64 - 1, -(2**63)]),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "80", "answer", "defer", "kitty", "xterm", "\x1b]52;c;eA==\a"]),
    st.text(max_size=4), st.binary(max_size=4),
    st.lists(st.one_of(st.integers(-3, 3), st.text(max_size=2), st.none()), max_size=3),
    st.dictionaries(st.sampled_from(["cpr", "TERM", "python", "graphemes", "id", "x"]),
                    st.one_of(st.none(), st.integers(-2, 2), st.floats(), st.text(max_size=2)),
                    max_size=2),
)

HEADER_KEYS = ["format", "version", "argv", "cwd", "cols", "rows", "term", "env", "policy",
               "versions", "platform", "started", "cell_size", "emulation", "profile"]


def small_session() -> list[Event]:
    """A short session with one event of every kind but a resize (quick to
    run every command on; the event property adds the resize)."""
    return [
        TtyMode(0.01, True), Output(0.02, b"hello \x1b[1mworld\x1b[m\r\n\x1b[6n"),
        Reply(0.03, b"\x1b[2;1R"), WaitStarted(0.04, 1, "text 'x' in the screen", None, 5.0),
        Input(0.05, b"x", "typed 'x'", False, True), InputRead(0.06, 1, True),
        Output(0.07, b"x"), Note(0.09, "a note"),
        ScreenCompared(0.10, 1, "x", "x", None), WaitEnded(0.11, 1, "matched"),
        Warned(0.12, "keys too early"), Exit(0.13, 0), Hangup(0.14),
        UnknownSequences(0.15, {"CSI x": 1}), End(0.16, "closed"),
    ]


SMALL_HEADER = make_header(argv=["prog", "--flag"], cwd="/", cols=30, rows=5,
                           env={"TERM": "xterm-256color"}, policy={"cpr": 0.5},
                           cell_size=(10, 20), emulation={"reflow": True}, profile="kitty")


def survives(path: Path, out: Path) -> None:
    """Every command works or fails cleanly, and so does the replay (the
    other recording of diff and codegen: the small session, unchanged)."""
    base = out / "base.tsr"
    write(base, SMALL_HEADER, small_session())
    every_command(path, out, base)


@settings(max_examples=examples(40), database=None)
@given(key=st.sampled_from(HEADER_KEYS), value=st.one_of(WRONG, st.just(MISSING)))
def test_any_header_field_with_any_wrong_value(key: str, value: object) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "h.tsr"
        header = dict(SMALL_HEADER)
        if value is MISSING:
            header.pop(key)
        else:
            header[key] = value
        write(path, header, small_session())
        survives(path, Path(folder))


def _mutated(record: list[Any], where: int, value: object, inner: str | None) -> list[Any]:
    """``record`` (``[kind, t_us, *fields]``) with its item ``where`` replaced
    by ``value`` (one past the end: appended), or in a map, its key
    ``inner``; ``value`` MISSING cuts the record there."""
    out = list(record)
    if value is MISSING:
        return out[: max(2, where)]
    if inner is not None and where < len(out) and isinstance(out[where], dict):
        out[where] = {**out[where], inner: value}
    elif where < len(out):
        out[where] = value
    else:
        out.append(value)
    return out


@settings(max_examples=examples(40), database=None)
@given(index=st.integers(0, len(small_session())), where=st.integers(1, 6),
       value=st.one_of(WRONG, st.just(MISSING)),
       inner=st.one_of(st.none(), st.sampled_from(
           ["id", "timeout", "predicate", "since", "outcome", "wait", "expected", "CSI x"])))
def test_any_event_field_with_any_wrong_value(index: int, where: int, value: object,
                                              inner: str | None) -> None:
    events = small_session()
    if index == len(events):  # one more: a resize, then changed
        index = 3
        events.insert(index, Resize(0.035, 30, 6))
    record = encode(events[index])
    if where == 1:  # the time: whole microseconds, the writer's only number there
        if not (isinstance(value, int) and not isinstance(value, bool)):
            return
        value = max(-(2**62), min(value, 2**62))
    changed = _mutated(record, where, value, inner)
    t_us = changed[1] if isinstance(changed[1], int) else record[1]
    events[index] = Unrecognized(t_us / 1_000_000, changed[0], tuple(changed[2:]))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "e.tsr"
        write(path, SMALL_HEADER, events)  # (a changed end event gets a real one after it)
        survives(path, Path(folder))


# -- the pytest plugin's --termsim-dir ---------------------------------------------------------

SPAWNS = '''
import pytest, termsim
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_one():
    async with termsim.spawn(["sh", "-c", "echo hello"]) as term:
        await term.wait_for(Text("hello"), timeout=10)

@pytest.mark.anyio
async def test_two():
    async with termsim.spawn(["sh", "-c", "echo hello"]) as term:
        await term.wait_for(Text("hello"), timeout=10)
'''


def unusable_dirs(where: Path) -> list[tuple[str, str]]:
    """Directories recordings cannot go to, even for root, and why."""
    (where / "a-file").write_text("not a directory")
    out = [(str(where / "a-file"), "it is a file, not a directory"),
           (str(where / "a-file" / "below"), "a-file is a file, not a directory")]
    if sys.platform == "linux":
        # procfs: no file can be made in it, by anyone.
        out += [("/proc", "it cannot be written to"),
                ("/proc/termsim-recordings", "it cannot be made in /proc")]
    return out


def test_an_unusable_termsim_dir_is_one_usage_error_at_start_up(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_spawns=SPAWNS)
    for directory, why in unusable_dirs(pytester.path):
        # (one word: pytest takes a separate one that exists for a rootdir)
        result = pytester.runpytest(f"--termsim-dir={directory}")
        assert result.ret == pytest.ExitCode.USAGE_ERROR, (directory, result.outlines)
        errors = [line for line in result.errlines if "termsim" in line]
        assert len(errors) == 1, result.errlines
        assert f"--termsim-dir {directory}: " in errors[0] and why in errors[0]
        assert "--termsim-keep=none" in errors[0]  # the fix, named
        text = "\n".join(result.outlines + result.errlines)
        assert "OSError" not in text and "Traceback" not in text and "passed" not in text
        # Recording nothing needs no directory.
        pytester.runpytest(f"--termsim-dir={directory}", "--termsim-keep=none") \
            .assert_outcomes(passed=2)


def test_a_termsim_dir_that_can_be_made_is_left_for_the_first_recording(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_spawns=SPAWNS)
    pytester.runpytest("--termsim-dir=new/deeper").assert_outcomes(passed=2)
    assert not (pytester.path / "new" / "deeper").exists()  # an all-pass run leaves it empty
    pytester.runpytest("--termsim-dir=new/deeper", "--termsim-keep=all") \
        .assert_outcomes(passed=2)
    assert len(list((pytester.path / "new" / "deeper").glob("*.tsr"))) == 2


def test_an_unusable_default_directory_warns_and_records_nothing(
        pytester: pytest.Pytester) -> None:
    # Not asked for (the plugin loads wherever termsim is installed): the
    # run goes on, without recordings, and says so once.
    pytester.makepyfile(test_spawns=SPAWNS)
    (pytester.path / ".termsim").write_text("a file where the directory would go")
    result = pytester.runpytest("-W", "default::pytest.PytestConfigWarning")
    result.assert_outcomes(passed=2, warnings=1)
    result.stdout.fnmatch_lines(["*termsim: recordings cannot be kept in *.termsim: it is a "
                                 "file, not a directory; this run records no sessions.*"])
