"""Hostile programs, cancellation at every await, and files that fail.

After every case: no process left, the test finished within its timeout, and
the recording reads back (complete, or marked incomplete/cancelled).
Figures and what was tried: docs/reliability.md.
"""

from __future__ import annotations

import os
import random
import re
import select
import signal
import subprocess
import sys
import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest
from conftest import program, stubborn_pids

import termsim
from termsim import ProcessExited, RecordingError, Text, WaitTimeout
from termsim.events import Input
from termsim.files import Playback, Recording
from termsim.live.process import descendants, is_running

pytestmark = pytest.mark.anyio

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"


async def test_program_that_exits_at_once() -> None:
    async with termsim.spawn(["true"]) as term:
        with pytest.raises(ProcessExited) as info:
            await term.wait_for(Text("never"), timeout=30)
        assert info.value.status == 0
        assert await term.wait_exit(timeout=5) == 0


async def test_program_that_closes_its_output_early() -> None:
    script = "exec 1>&- 2>&-; read line; exit 7"
    async with termsim.spawn(["sh", "-c", script]) as term:
        await term.send(b"bye\n")
        assert await term.wait_exit(timeout=10) == 7


async def test_program_that_never_reads_its_input_does_not_block_the_loop() -> None:
    # Whether another task ran while the write waited, or only once it ended
    # (a write that blocked the loop would give it no turn in between).
    beats: list[str] = []
    typed = anyio.Event()

    async def heartbeat() -> None:
        await anyio.lowlevel.checkpoint()
        beats.append("after" if typed.is_set() else "during")

    # Raw, no echo: the kernel's input buffer fills and the PTY stops
    # taking bytes. (Cooked, n_tty lets characters past a full line buffer
    # through, and drops them, so that a line can always end: the write then
    # finishes or not depending on how fast the echo is read.)
    async with termsim.spawn(["sh", "-c", "stty raw -echo; echo ready; exec tail -f /dev/null"],
                             write_timeout=1.0) as term:
        await term.wait_for(Text("ready"), timeout=10)
        async with anyio.create_task_group() as tg:
            tg.start_soon(heartbeat)
            with pytest.raises(WaitTimeout) as info:
                await term.type("x" * 10_000_000)
            typed.set()
        assert beats == ["during"]
        # The write's own timeout ended it, once the PTY's buffer was full:
        # part of the input went in, the rest is reported unread.
        assert info.value.timeout == 1.0
        assert "the program to read its input" in str(info.value)
        unread = re.search(r"(\d+) of (\d+) bytes still unread", str(info.value))
        assert unread is not None, str(info.value)
        assert 0 < int(unread[1]) < int(unread[2]) == 10_000_000


async def test_program_that_resizes_its_pty_and_flips_modes() -> None:
    script = (
        "stty cols 100 rows 30; printf '\\033[?1049h\\033[?1000h\\033[?2004halt\\n'; "
        "printf '\\033[8;50;200t'; read x; printf '\\033[?1049lprimary\\n'; read y"
    )
    async with termsim.spawn(["sh", "-c", script], cols=80, rows=24) as term:
        snap = await term.wait_for(Text("alt"), timeout=10)
        assert snap.alternate and snap.modes.mouse == "normal"
        assert (snap.cols, snap.rows) == (80, 24)  # the program cannot resize our screen
        await term.send(b"\n")
        snap = await term.wait_for(Text("primary"), timeout=10)
        assert not snap.alternate
        await term.send(b"\n")
        assert await term.wait_exit(timeout=10) == 0


async def test_flood_of_output_keeps_waits_working() -> None:
    code = (
        "import sys\n"
        "line = b'\\x1b[32mflood\\x1b[0m ' + b'x' * 60 + b'\\r\\n'\n"
        "for i in range(40000): sys.stdout.buffer.write(line)\n"  # ~3 MB
        "sys.stdout.buffer.write(b'FLOOD-DONE\\r\\n'); sys.stdout.flush()\n"
        "sys.stdin.readline()\n"
    )
    async with termsim.spawn([sys.executable, "-c", code]) as term:
        await term.wait_for(Text("FLOOD-DONE"), timeout=120)
        assert term.bytes_read > 3_000_000
        await term.send(b"\n")
        assert await term.wait_exit(timeout=10) == 0


# -- cancellation at every await point ---------------------------------------------------------

Step = Callable[[termsim.Session], Awaitable[object]]

STEPS: dict[str, Step] = {
    "type": lambda t: t.type("hello"),
    "press": lambda t: t.press("enter"),
    "send": lambda t: t.send(b"x"),
    "wait_for": lambda t: t.wait_for(Text("never"), timeout=60),
    "resize": lambda t: t.resize(100, 30),
    "wait_exit": lambda t: t.wait_exit(timeout=60),
    "close": lambda t: t.aclose(),
}


@pytest.mark.parametrize("step", list(STEPS))
async def test_cancelled_at_every_await_point_leaves_nothing(step: str, tmp_path: Path) -> None:
    path = tmp_path / "cancelled.tsr"
    pids: list[int] = []
    session: termsim.Session | None = None
    with anyio.CancelScope() as scope:
        async with termsim.spawn(program("stubborn.py"), record=path) as term:
            session = term
            pids = await stubborn_pids(term)
            scope.cancel()
            await STEPS[step](term)  # raises Cancelled, except aclose (shielded)
            await anyio.lowlevel.checkpoint()
    assert scope.cancelled_caught
    assert session is not None and session._pty._tg is None and session._pty._reader_done.is_set()
    assert pids and not any(is_running(pid) for pid in pids)
    recording = Recording.open(path)
    assert recording.complete
    assert recording.end is not None and recording.end.how in ("cancelled", "closed")


async def test_cancelled_while_spawning_starts_nothing() -> None:
    before = set(descendants(_self_pid()))
    session = termsim.spawn(program("stubborn.py"))
    with anyio.CancelScope() as scope:
        scope.cancel()
        async with session:
            pytest.fail("the block should not run")  # pragma: no cover
    assert scope.cancelled_caught
    assert session._pty.proc is None
    left = [p for p in set(descendants(_self_pid())) - before if is_running(p)]
    assert left == []


async def test_background_tasks_cancelled_first_still_end_and_reap(tmp_path: Path) -> None:
    """The test's scope is cancelled while the session runs: our reader and
    exit tasks die with it, and the shielded teardown alone must end and
    reap the program and record its exit."""
    path = tmp_path / "s.tsr"
    pids: list[int] = []
    with anyio.CancelScope() as scope:
        async with termsim.spawn(program("stubborn.py"), record=path) as term:
            pids = await stubborn_pids(term)
            # The deadline is set once the program is up (its start may take
            # long on a loaded machine); nothing but it can end this wait.
            scope.deadline = anyio.current_time() + 0.5
            await term.wait_for(Text("never"), timeout=60)
    assert scope.cancelled_caught and pids
    assert not any(is_running(pid) for pid in pids)
    assert term.exit_status == -9  # it ignored SIGHUP and SIGTERM
    recording = Recording.open(path)
    assert recording.exit_status == -9 and recording.end is not None
    assert recording.end.how == "cancelled"


def _self_pid() -> int:
    import os

    return os.getpid()


# -- files ----------------------------------------------------------------------------------


def test_sigkill_mid_session_loses_at_most_the_last_moments(tmp_path: Path) -> None:
    path = tmp_path / "killed.tsr"
    code = textwrap.dedent(f"""
        import anyio, termsim, sys
        async def main():
            argv = ["sh", "-c", "i=0; while true; do i=$((i+1)); echo tick $i; read x; done"]
            async with termsim.spawn(argv, record={str(path)!r}) as t:
                for n in range(1, 50):
                    await t.wait_for(termsim.Text(f"tick {{n}}"), timeout=10)
                    await t.send(b"\\n")
                print("SENT", n, flush=True)
                await anyio.sleep_forever()
        anyio.run(main)
    """)
    # The test process ignores SIGHUP, SIGINT and SIGQUIT, as one started
    # by a CI runner or from a shell's background job may: the program must
    # still get a terminal's default signals, so the PTY's hangup ends it.
    ignore = [signal.SIGHUP, signal.SIGINT, signal.SIGQUIT]
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE,
        preexec_fn=lambda: [signal.signal(s, signal.SIG_IGN) for s in ignore])
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().split()[0] == b"SENT"
        programs = _programs_below(proc.pid, b"echo tick")
        assert programs
    finally:
        proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
    # Killed, the harness closed the PTY: the hangup ends the program (it
    # loops on `read`, which fails on a hung-up terminal, forever if it
    # lived). A pidfd says when, no polling.
    for pid in programs:
        assert _ends_within(pid, 10), f"the program {pid} outlived its terminal"
    recording = Recording.open(path)
    assert not recording.complete and recording.stopped_at == path.stat().st_size
    # Every input the killed process sent is in the file.
    assert len(list(recording.of_type(Input))) == 49
    assert "tick 49" in Playback(recording).screen_at().text
    # Killed in the middle of writing its last event: readable up to it.
    data = path.read_bytes()
    cut = Recording.from_bytes(data[:-1])
    assert not cut.complete and cut.events == recording.events[:-1]


def _programs_below(root: int, needle: bytes) -> list[int]:
    """Descendants of ``root`` whose command line holds ``needle``."""
    found = []
    for pid in descendants(root):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if needle in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def _ends_within(pid: int, seconds: float) -> bool:
    """Whether ``pid`` ends within ``seconds``, told by its pidfd."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], seconds)[0]) or not is_running(pid)
    finally:
        os.close(fd)


def test_random_corruption_is_reported_by_offset_or_read_back() -> None:
    data = (RECORDINGS / "passing.tsr").read_bytes()
    full = Recording.from_bytes(data)
    rng = random.Random(20261129)
    errors = clean = 0
    for _ in range(2000):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        if rng.random() < 0.3:
            damaged = damaged[: rng.randrange(len(damaged))]
        try:
            recording = Recording.from_bytes(bytes(damaged))
        except RecordingError as exc:
            errors += 1
            assert re.search(r"byte \d+: ", str(exc)), exc
            continue
        clean += 1
        # If it reads, it is a prefix of the truth: nothing made up.
        assert recording.events == full.events[: len(recording.events)]
    assert errors > 1000 and clean > 0


@pytest.mark.parametrize("command", ["show", "info", "export", "play"])
def test_cli_never_shows_a_traceback_on_damaged_files(
    command: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # In-process: ``python -m termsim`` is ``cli.main``, which must turn every
    # damage into one line and a status, never let an exception out.
    from termsim.cli import main

    data = (RECORDINGS / "passing.tsr").read_bytes()
    rng = random.Random(command)
    for n in range(15):
        damaged = bytearray(data[: rng.randrange(1, len(data))])
        if n % 2:
            damaged[rng.randrange(len(damaged))] ^= 0xFF
        path = tmp_path / f"d{n}.tsr"
        path.write_bytes(bytes(damaged))
        extra = ["-o", str(tmp_path / "out.cast")] if command == "export" else []
        if command == "play":
            extra = ["--speed", "1000"]
        status = main([command, str(path), *extra])
        err = capsysbinary.readouterr().err
        assert status in (0, 1), err
        assert b"Traceback" not in err
        if status == 1:
            assert re.search(rb"byte \d+", err), err


async def test_unwritable_recording_is_an_error_at_spawn() -> None:
    with pytest.raises(RecordingError, match="No space left on device"):
        async with termsim.spawn(["true"], record="/dev/full"):
            pass  # pragma: no cover


def test_disk_filling_up_mid_session_warns_and_the_file_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "full.tsr"
    code = textwrap.dedent(f"""
        import anyio, resource, signal, termsim, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # over the limit: EFBIG, not death
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        async def main():
            code = "import sys; sys.stdout.write('y' * 20000 + 'END'); sys.stdout.flush(); input()"
            async with termsim.spawn([sys.executable, "-c", code], record={str(path)!r}) as t:
                await t.wait_for(termsim.Text("END"), timeout=30)
                print("WARNINGS", len(t.warnings), t.warnings[0] if t.warnings else "")
        anyio.run(main)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert b"WARNINGS 1 recording stopped: File too large" in result.stdout
    recording = Recording.open(path)
    assert not recording.complete and path.stat().st_size <= 4096
