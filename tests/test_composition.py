"""How the parts are put together: the PTY source and the engine meet through
a narrow interface, settings belong to a context (a test, a task), outcomes
are typed values a recording checks, and the session's clock is public."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

import anyio
import pytest

import termsim
from termsim import RecordingError, Text, WaitTimeout
from termsim.engine import settings
from termsim.events import (
    End,
    Event,
    Exit,
    Output,
    ScreenCompared,
    WaitEnded,
    WaitStarted,
    errored,
)
from termsim.live.pty import PtySource
from termsim.live.session import Session
from termsim.recording.codec import decode, encode
from termsim.recording.format import Recording, RecordingWriter, make_header

pytestmark = pytest.mark.anyio


# -- the PTY source talks to a Sink, not to an engine ---------------------------------


class FakeSink:
    """Everything a live source may do to the engine, and a record of it."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.exited = anyio.Event()
        self.closed = False

    def apply(self, event: Event) -> bytes:
        self.events.append(event)
        if isinstance(event, Exit):
            self.exited.set()
        return b""

    def take_deferred(self) -> list[object]:
        return []

    def notify(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


async def test_a_pty_source_runs_a_program_with_no_engine_at_all() -> None:
    sink = FakeSink()
    emitted: list[Event] = []
    pty = PtySource(["sh", "-c", "printf 'from the pty'; exit 4"], cols=40, rows=5,
                    env=dict(os.environ), cwd=None, write_timeout=5.0, emit=emitted.append,
                    sink=sink)  # type: ignore[arg-type]
    await pty.start()
    try:
        with anyio.fail_after(10):
            await sink.exited.wait()
    finally:
        await pty.aclose()
        await pty.exit_task_group(None, None, None)
    output = b"".join(e.data for e in sink.events if isinstance(e, Output))
    assert b"from the pty" in output
    assert sink.events[-1] == Exit(sink.events[-1].t, 4)
    # The listeners saw what the sink was given, in the same order.
    assert [e for e in emitted if isinstance(e, Output | Exit)] == \
        [e for e in sink.events if isinstance(e, Output | Exit)]
    assert sink.closed  # pending waits are failed through the sink, at teardown
    assert not hasattr(pty, "engine")


async def test_the_session_is_its_engines_source_like_a_replay() -> None:
    session = Session(["true"])
    assert session._engine.source is session
    assert not hasattr(session._pty, "engine")


async def test_a_program_that_reads_nothing_fails_the_write_with_the_screen() -> None:
    # The program puts its tty in raw mode (where a full input queue blocks the
    # writer, where a cooked one drops the excess) and never reads it.
    program = [sys.executable, "-c", "import time, tty; tty.setraw(0); "
               "print('deaf', flush=True); "
               "time.sleep(60)"]  # sync-ok: the program idles, it is no wait of the test
    async with termsim.spawn(program, write_timeout=0.3, record=False) as term:
        await term.wait_for(Text("deaf"), timeout=10)
        with pytest.raises(WaitTimeout) as info:
            await term.send(b"x" * 1_000_000)
    message = str(info.value)
    assert "the program to read its input" in message and "still unread" in message
    assert info.value.timeout == 0.3
    assert "deaf" in info.value.snapshot.text


# -- expect_screen through public engine calls ----------------------------------------


def _write(path: Path, events: list[Event], cols: int = 20, rows: int = 3) -> Path:
    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=cols, rows=rows,
                                               env={}))
    for event in events:
        writer.write(event)
    writer.close(events[-1].t if events else 0.0, "closed")
    return path


async def test_expect_screen_names_its_own_wait_while_others_wait(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.tsr", [Output(1.0, b"hello"), Output(2.0, b"\r\nworld"),
                                       Exit(3.0, 0)])
    seen: list[Event] = []
    async with termsim.replay(path) as term:
        term.listeners.append(seen.append)
        async with anyio.create_task_group() as tg:
            tg.start_soon(term.wait_for, Text("world"))  # another wait, started first
            await anyio.lowlevel.checkpoint()
            await term.expect_screen("hello")
    compared = [e for e in seen if isinstance(e, ScreenCompared)]
    starts = {e.id: e.predicate for e in seen if isinstance(e, WaitStarted)}
    assert len(starts) == 2 and len(compared) == 1
    assert starts[compared[0].wait].startswith("the expected screen")


# -- settings belong to a context --------------------------------------------------------


async def test_a_setting_is_seen_by_the_tasks_it_starts_not_by_concurrent_ones() -> None:
    seen: dict[str, str | None] = {}
    a_set, b_set = anyio.Event(), anyio.Event()
    before = settings.current()  # the plugin's, for this test

    async def child(name: str) -> None:
        seen[name] = settings.recording_path_for(["prog"])

    async def task(name: str, mine: anyio.Event, theirs: anyio.Event) -> None:
        with settings.record_sessions(lambda argv: f"{name}.tsr"):
            mine.set()
            await theirs.wait()  # both blocks are open now
            seen[name] = settings.recording_path_for(["prog"])
            async with anyio.create_task_group() as tg:
                tg.start_soon(child, f"{name}'s child")

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(task, "a", a_set, b_set)
            tg.start_soon(task, "b", b_set, a_set)
    assert seen == {"a": "a.tsr", "b": "b.tsr", "a's child": "a.tsr", "b's child": "b.tsr"}
    assert settings.current() == before  # and gone after the blocks


async def test_substitutes_and_goldens_are_per_task_too() -> None:
    ready, done = anyio.Event(), anyio.Event()
    seen: list[object] = []
    before = (settings.substitute_for(["prog"], {}), settings.golden_path("name"))

    async def other() -> None:
        await ready.wait()
        seen.append(settings.substitute_for(["prog"], {}))
        seen.append(settings.golden_path("name"))
        done.set()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(other)
            with settings.substitute_sessions(lambda argv, options: None), \
                    settings.golden_screens(lambda name: f"/goldens/{name}.screen"):
                assert settings.golden_path("name") == "/goldens/name.screen"
                ready.set()
                await done.wait()
    assert seen == list(before)


SETTINGS_TESTS = '''
import anyio, pytest
from termsim.engine import settings

@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param

@pytest.fixture
async def started_early():
    # An async fixture makes anyio's runner task before the tests run.
    return 1

@pytest.mark.anyio
async def test_one(started_early):
    assert "test_one" in settings.recording_path_for(["prog"])
    # Left set on purpose: it must not reach the next test.
    settings.record_sessions(lambda argv: "leaked.tsr").__enter__()

@pytest.mark.anyio
async def test_two(started_early):
    seen = []
    async def child():
        seen.append(settings.recording_path_for(["prog"]))
    async with anyio.create_task_group() as tg:
        tg.start_soon(child)
    assert "test_two" in seen[0] and "leaked" not in seen[0]

def test_three_sync():
    assert "test_three_sync" in settings.recording_path_for(["prog"])
'''


def test_the_plugins_settings_reach_each_async_test_and_stay_there(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_settings=SETTINGS_TESTS)
    result = pytester.runpytest("-p", "anyio", "--termsim-keep=all")
    result.assert_outcomes(passed=5)


# -- outcomes are typed, and a recording checks them -----------------------------------------


def test_outcomes_read_back_and_unknown_ones_are_named() -> None:
    for outcome in ("matched", "timed out", "stalled", "cancelled", errored("KeyError")):
        event = WaitEnded(1.0, 3, outcome)
        assert decode(encode(event)) == event
    with pytest.raises(ValueError, match="outcome 'exploded' is none of matched"):
        decode(["W", 1, {"id": 1, "outcome": "exploded"}])
    assert decode(encode(End(2.0, errored("not started")))) == End(2.0, "error: not started")
    with pytest.raises(ValueError, match="'vanished', is none of closed"):
        decode(["e", 1, "vanished"])


def test_a_recording_with_an_unknown_outcome_is_an_error_saying_where(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.tsr", [Output(0.5, b"x"), WaitStarted(0.5, 1, "x", None, 1.0),
                                       WaitEnded(0.6, 1, "exploded")])  # type: ignore[arg-type]
    with pytest.raises(RecordingError, match="exploded") as info:
        Recording.open(path)
    assert "offset" in str(info.value) or "byte" in str(info.value)


# -- the session's clock -------------------------------------------------------------------------


async def test_now_is_the_sessions_clock_live() -> None:
    events: list[Event] = []
    async with termsim.spawn(["sh", "-c", "echo ready; read x"], record=False) as term:
        term.listeners.append(events.append)
        first = term.now()
        await term.wait_for(Text("ready"), timeout=10)
        after = term.now()
        mark = await term.type("go\n")
        assert 0 <= first <= after <= mark.at <= term.now()
    ended = next(e for e in events if isinstance(e, WaitEnded))
    assert first <= ended.t <= after + 1e-6


async def test_now_is_the_recorded_time_in_a_replay(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.tsr", [Output(1.5, b"hello"), Output(3.25, b" world"),
                                       Exit(4.0, 0)])
    async with termsim.replay(path) as term:
        assert term.now() == 0.0
        await term.wait_for(Text("hello"))
        assert term.now() == 1.5
        await term.wait_for(Text("world"))
        assert term.now() == 3.25
        assert await term.wait_exit() == 0
        assert term.now() == 4.0


def test_spawn_declares_no_option_of_its_own() -> None:
    spawn = inspect.signature(termsim.spawn).parameters
    session = inspect.signature(Session.__init__).parameters
    assert next(iter(spawn)) == "argv"
    assert {name: p.default for name, p in list(spawn.items())[1:]} == \
        {name: p.default for name, p in list(session.items())[2:]}


# -- the plugin reports the wait that failed ----------------------------------------------------

CANCELLED_LAST = '''
import anyio, pytest, termsim
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_fails_after_a_cancelled_wait():
    async with termsim.spawn(["sh", "-c", "echo booting; read x"]) as term:
        await term.wait_for(Text("booting"), timeout=10)
        with pytest.raises(termsim.WaitTimeout):
            await term.wait_for(Text("ready"), timeout=0.3)
        with anyio.move_on_after(0.2):  # the test's own choice, not a failure
            await term.wait_for(Text("later"), timeout=10)
        assert False, "failing after both"
'''


def test_the_report_names_the_wait_that_failed_not_one_the_test_cancelled(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_cancel=CANCELLED_LAST)
    result = pytester.runpytest("-p", "anyio")
    result.assert_outcomes(failed=1)
    failed = [line for line in result.outlines if "failed wait:" in line]
    assert len(failed) == 1, result.outlines
    assert "ready" in failed[0] and "timed out" in failed[0]
