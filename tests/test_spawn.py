"""Starting and ending programs: ``subprocess``'s contract, and no leftovers.

Every failure between fork and exec is raised in the test process before
``spawn`` returns; the program is looked up in the ``PATH`` it is given and
started in ``cwd``; it leads its own session, with the PTY as its
controlling terminal and the default signal dispositions; nothing a session
started outlives it, daemons included (a hand-written double-fork-and-setsid
daemon, and a tmux server). The contract is proved for both ways of
starting a program (``posix_spawn``, and the ``fork`` fallback), the
teardown with the fallbacks forced (no ``/proc``, no pidfd, no inotify), as
on macOS.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from conftest import program, stubborn_pids

import termsim
from termsim import Regex, TermsimError, Text
from termsim.live import process as _process
from termsim.live import spawn as _spawn
from termsim.live.process import descendants, is_running
from termsim.live.spawn import SESSION_VARIABLE

pytestmark = pytest.mark.anyio


def leftovers(before: set[int]) -> list[int]:
    return [p for p in set(descendants(os.getpid())) - before if is_running(p)]


async def started_daemon(term: termsim.Driver) -> int:
    snap = await term.wait_for(Regex(r"DAEMON (\d+) END"), timeout=10)
    match = re.search(r"DAEMON (\d+) END", snap.text)
    assert match is not None
    return int(match.group(1))


@pytest.fixture(params=["linux", "fallbacks"])
def platform(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The Linux mechanisms, or every fallback forced: the process table from
    ``ps``, process ends checked with a backoff, reads probed on a timer."""
    if request.param == "fallbacks":
        if shutil.which("ps") is None:
            pytest.skip("ps is not installed")
        monkeypatch.setattr(_process, "BACKEND", "ps")
        monkeypatch.setattr(_process, "EXIT_WATCH", "poll")
        original = termsim.Session.__init__

        def without_inotify(self: termsim.Session, *args: object, **kwargs: object) -> None:
            kwargs.setdefault("inotify", False)
            original(self, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(termsim.Session, "__init__", without_inotify)
    yield str(request.param)


@pytest.fixture(params=["posix_spawn", "fork"])
def method(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How the program is started: posix_spawn (Linux) or the fork fallback
    (elsewhere), forced here."""
    if request.param == "posix_spawn" and _spawn._load() is None:
        pytest.skip("no posix_spawn with what termsim needs here")
    monkeypatch.setattr(_spawn, "METHOD", request.param)
    return str(request.param)


# -- subprocess's contract ----------------------------------------------------------------


@pytest.mark.parametrize("cwd", ["/nonexistent/dir", "/etc/hostname"], ids=["missing", "file"])
async def test_a_bad_cwd_raises_in_the_parent_and_forks_nothing(cwd: str, method: str) -> None:
    before = set(descendants(os.getpid()))
    with pytest.raises(TermsimError, match="working directory") as info:
        async with termsim.spawn(["pwd"], cwd=cwd):
            pytest.fail("the block must not run")  # pragma: no cover
    assert cwd in str(info.value)
    assert leftovers(before) == []


async def test_a_missing_program_names_the_path_it_searched(method: str) -> None:
    with pytest.raises(TermsimError, match="no such program") as info:
        async with termsim.spawn(["termsim-no-such-tool"], env={"PATH": "/nowhere"}):
            pytest.fail("the block must not run")  # pragma: no cover
    assert "/nowhere" in str(info.value)


async def test_a_file_without_execute_permission(tmp_path: Path, method: str) -> None:
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho hi\n")
    with pytest.raises(TermsimError, match="permission denied"):
        async with termsim.spawn([str(tool)]):
            pytest.fail("the block must not run")  # pragma: no cover


async def test_a_file_that_is_not_a_program(tmp_path: Path, method: str) -> None:
    tool = tmp_path / "tool"
    tool.write_bytes(b"\x00\x01not an executable\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(TermsimError, match=r"[Ee]xec format error"):
        async with termsim.spawn([str(tool)]):
            pytest.fail("the block must not run")  # pragma: no cover


async def test_the_program_is_found_on_the_path_of_its_env(tmp_path: Path, method: str) -> None:
    tool = tmp_path / "termsim-test-tool"
    tool.write_text("#!/bin/sh\necho found on the given PATH\n")
    tool.chmod(0o755)
    env = {"PATH": f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    async with termsim.spawn([tool.name], env=env) as term:
        await term.wait_for(Text("found on the given PATH"))
        assert await term.wait_exit() == 0


async def test_a_command_line_as_a_string_says_argv_is_a_list() -> None:
    with pytest.raises(ValueError, match=r"a list: spawn\(\['echo', 'hello'\]\)"):
        termsim.spawn("echo hello")
    async with termsim.spawn("true") as term:  # one word is a program's name
        assert await term.wait_exit() == 0


async def test_the_program_has_the_pty_as_its_controlling_terminal(method: str) -> None:
    # Ctrl-C is turned into SIGINT by the tty only for its foreground group.
    async with termsim.spawn(["sh", "-c", "tty; trap 'echo INTERRUPTED; exit 3' INT; "
                              "echo READY; while :; do sleep 1; done"]) as term:
        await term.wait_for(Text("READY"))
        assert "/dev/pts/" in term.screen.text or "/dev/tty" in term.screen.text
        await term.press("ctrl+c")
        await term.wait_for(Text("INTERRUPTED"))
        assert await term.wait_exit() == 3


async def test_the_path_of_the_test_process_is_not_searched(method: str) -> None:
    # "sh" is on this process's PATH; the program's PATH has nothing.
    with pytest.raises(TermsimError, match="no such program") as info:
        async with termsim.spawn(["sh", "-c", "true"], env={"PATH": "/nonexistent"}):
            pytest.fail("the block must not run")  # pragma: no cover
    assert "/nonexistent" in str(info.value)


async def test_a_file_without_permission_early_on_the_path_is_passed_over(
    tmp_path: Path, method: str,
) -> None:
    """As execvp does: a directory of the PATH where the name is not an
    executable is passed over, and the program found later runs."""
    early, late = tmp_path / "early", tmp_path / "late"
    early.mkdir()
    late.mkdir()
    (early / "termsim-tool").write_text("#!/bin/sh\necho EARLY\n")  # not executable
    (late / "termsim-tool").write_text("#!/bin/sh\necho LATE\n")
    (late / "termsim-tool").chmod(0o755)
    env = {"PATH": f"{early}{os.pathsep}{late}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    async with termsim.spawn(["termsim-tool"], env=env) as term:
        await term.wait_for(Text("LATE"))
        assert "EARLY" not in term.screen.text
    # Alone on the PATH, it is the reason given.
    with pytest.raises(TermsimError, match="permission denied"):
        async with termsim.spawn(["termsim-tool"], env={"PATH": str(early)}):
            pytest.fail("the block must not run")  # pragma: no cover


def _real(path: Path) -> str:
    return os.path.realpath(path)


async def test_the_program_starts_in_cwd(tmp_path: Path, method: str) -> None:
    where = _real(tmp_path)
    async with termsim.spawn(["sh", "-c", "echo AT $(pwd -P) END"], cwd=tmp_path) as term:
        await term.wait_for(Text(f"AT {where} END"))
        assert await term.wait_exit() == 0


async def test_a_relative_program_path_is_found_from_cwd(tmp_path: Path, method: str) -> None:
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho RELATIVE TOOL RAN\n")
    tool.chmod(0o755)
    async with termsim.spawn(["./tool"], cwd=tmp_path) as term:
        await term.wait_for(Text("RELATIVE TOOL RAN"))
        assert await term.wait_exit() == 0


@pytest.mark.skipif(os.geteuid() == 0, reason="root may enter any directory")
async def test_a_cwd_without_permission_raises_in_the_parent(
    tmp_path: Path, method: str,
) -> None:
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o600)
    try:
        with pytest.raises(TermsimError, match="permission denied"):
            async with termsim.spawn(["pwd"], cwd=closed):
                pytest.fail("the block must not run")  # pragma: no cover
    finally:
        closed.chmod(0o700)


async def test_a_null_byte_in_an_argument_is_an_argument_error(method: str) -> None:
    with pytest.raises(ValueError, match="null byte"):
        async with termsim.spawn(["echo", "a\0b"]):
            pytest.fail("the block must not run")  # pragma: no cover


def _stat_fields(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        data = f.read()
    return data[data.rfind(")") + 2:].split()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
async def test_the_program_leads_its_session_in_the_foreground_of_the_pty(method: str) -> None:
    # The shell stays itself after READY: a program caught in the middle of
    # an exec has an empty /proc/PID/environ for a moment (the new image's
    # environment is not mapped yet), which made this check fail under load
    # when the shell went on to `exec cat`.
    async with termsim.spawn(["sh", "-c", "echo READY; read line"]) as term:
        await term.wait_for(Text("READY"))
        fields = _stat_fields(term.pid)
        pgid, sid, tty_nr, tpgid = (int(fields[i]) for i in (2, 3, 4, 5))
        assert pgid == sid == term.pid  # a session leader, its own group
        assert tty_nr != 0  # it has a controlling terminal...
        assert tpgid == term.pid  # ...in whose foreground its group is
        marker = f"{SESSION_VARIABLE}={term._pty.token}".encode()
        assert _process._marks(term.pid, frozenset({marker})) == {marker}


async def test_a_program_that_opens_dev_tty_talks_to_the_pty(method: str) -> None:
    code = ("import os; fd = os.open('/dev/tty', os.O_RDWR); "
            "os.write(fd, b'TTY OPEN\\r\\n'); line = os.read(fd, 100); "
            "os.write(fd, b'READ ' + line.strip() + b' FROM TTY\\r\\n')")
    async with termsim.spawn([sys.executable, "-c", code]) as term:
        await term.wait_for(Text("TTY OPEN"))
        await term.type("hello\n")
        await term.wait_for(Text("READ hello FROM TTY"))
        assert await term.wait_exit() == 0


#: A Python program that waits for a signal without losing one. A signal
#: that comes while the interpreter is between its last check and a
#: blocking call (``read``, ``pause``) runs its handler only when that call
#: returns, which may be never: the test's Ctrl-C came as soon as READY was
#: on the screen, and under load it fell in that gap (the program sat in
#: ``read`` with its KeyboardInterrupt pending). The handler's byte on the
#: wakeup fd stays in the pipe, so ``select`` returns even for a signal that
#: came before it was called (the fd is set before READY is printed), and
#: the loop's next check runs the handler.
WAIT_FOR_SIGNALS = (
    "import os, select, signal, sys\n"
    "r, w = os.pipe(); os.set_blocking(w, False); signal.set_wakeup_fd(w)\n"
    "def until_a_signal():\n"
    "    while True: select.select([r], [], [])\n")


async def test_ctrl_c_interrupts_a_python_program(method: str) -> None:
    """The program gets SIGINT as in a terminal (Python: KeyboardInterrupt)."""
    code = (WAIT_FOR_SIGNALS + "try:\n    print('READY', flush=True)\n    until_a_signal()\n"
            "except KeyboardInterrupt:\n    print('INTERRUPTED', flush=True); sys.exit(5)")
    async with termsim.spawn([sys.executable, "-c", code]) as term:
        await term.wait_for(Text("READY"))
        await term.press("ctrl+c")
        await term.wait_for(Text("INTERRUPTED"))
        assert await term.wait_exit() == 5


def _signal_masks(text: str) -> tuple[int, int]:
    """SigIgn and SigBlk from a /proc/PID/status listing."""
    masks = dict(re.findall(r"(Sig(?:Ign|Blk)):\s*([0-9a-f]+)", text))
    return int(masks["SigIgn"], 16), int(masks["SigBlk"], 16)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
async def test_the_program_starts_with_the_default_signal_dispositions(method: str) -> None:
    """The test process ignores SIGHUP, SIGINT, SIGQUIT and SIGPIPE (as a
    background job or a CI runner may) and blocks SIGUSR1; the program
    ignores and blocks none of the signals a terminal gives it."""
    reset = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGTSTP,
             signal.SIGTTIN, signal.SIGTTOU, signal.SIGPIPE, signal.SIGXFSZ)
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGHUP, signal.SIGINT,
                                                     signal.SIGQUIT, signal.SIGPIPE)}
    for sig in saved:
        signal.signal(sig, signal.SIG_IGN)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        # grep reads its own status: what it inherited, unchanged by a shell.
        async with termsim.spawn(["grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"],
                                 cols=120) as term:
            assert await term.wait_exit() == 0
            ignored, blocked_now = _signal_masks(term.screen.text)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert [sig.name for sig in reset if ignored & (1 << (sig - 1))] == []
    assert blocked_now == 0


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
async def test_no_fd_of_the_test_process_reaches_the_program(method: str) -> None:
    read_end, write_end = os.pipe()
    os.set_inheritable(read_end, True)
    os.set_inheritable(write_end, True)
    try:
        async with termsim.spawn(["sh", "-c", "echo FDS $(ls /proc/$$/fd) END"],
                                 cols=200) as term:
            snap = await term.wait_for(Regex(r"FDS ([\d ]*) END"))
    finally:
        os.close(read_end)
        os.close(write_end)
    match = re.search(r"FDS ([\d ]*) END", snap.text)
    assert match is not None
    fds = {int(fd) for fd in match.group(1).split()}
    assert {0, 1, 2} <= fds and not {read_end, write_end} & fds


async def test_without_closefrom_each_inheritable_fd_is_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before glibc 2.34 there is no closefrom action: each inheritable fd is
    named instead."""
    libc = _spawn._load()
    if libc is None or _spawn.METHOD != "posix_spawn":
        pytest.skip("no posix_spawn here")
    monkeypatch.setattr(libc, "add_closefrom", None)
    await test_no_fd_of_the_test_process_reaches_the_program("posix_spawn")


def test_no_code_of_the_test_process_runs_in_the_child(tmp_path: Path) -> None:
    """posix_spawn runs the C library alone in the child: not even the
    at-fork hooks a fork runs."""
    if _spawn.METHOD != "posix_spawn":
        pytest.skip("no posix_spawn here")
    _AT_FORK.append(tmp_path / "forked")
    try:
        child = _spawn.start([sys.executable, "-c", "print('RAN')"], env=dict(os.environ),
                             cwd=None, cols=80, rows=24)
        _read_until_closed(child.fd)
        assert child.popen.wait() == 0
    finally:
        _AT_FORK.clear()
    assert not (tmp_path / "forked").exists()


#: Where the at-fork hook writes, while a test wants to know (else nothing).
_AT_FORK: list[Path] = []


def _forked() -> None:  # pragma: no cover - runs only in a forked child
    for path in _AT_FORK:
        path.write_text("a hook of the test process ran in the child")


os.register_at_fork(after_in_child=_forked)


def _read_until_closed(fd: int) -> bytes:
    """Everything the program writes to its PTY, until the last slave closes."""
    out = b""
    while True:
        select.select([fd], [], [], 30)  # a deadline for a broken test, not a timing
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            continue
        except OSError:  # EIO: every slave fd is closed
            return out
        if not chunk:
            return out
        out += chunk


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits on a pidfd")
def test_the_pty_closing_hangs_up_the_program(method: str) -> None:
    """Without termsim's teardown: the kernel sends SIGHUP to the session
    leader when its terminal goes away, as it does in a terminal emulator."""
    code = (WAIT_FOR_SIGNALS + "signal.signal(signal.SIGHUP, lambda *_: sys.exit(42))\n"
            "print('READY', flush=True)\n"
            "until_a_signal()")
    child = _spawn.start([sys.executable, "-c", code], env=dict(os.environ), cwd=None,
                         cols=80, rows=24)
    try:
        out = b""
        while b"READY" not in out:
            select.select([child.fd], [], [], 30)  # a deadline for a broken test
            try:
                out += os.read(child.fd, 4096)
            except BlockingIOError:
                continue
    finally:
        os.close(child.fd)
    pidfd = os.pidfd_open(child.pid)
    try:
        exited = select.select([pidfd], [], [], 30)[0]  # a deadline for a broken test
    finally:
        os.close(pidfd)
    if not exited:  # pragma: no cover - the failure this test is for
        child.popen.kill()
    assert child.popen.wait() == 42


# -- nothing outlives the session ---------------------------------------------------------


async def test_a_double_forked_setsid_daemon_is_ended(platform: str) -> None:
    async with termsim.spawn(program("daemonize.py")) as term:
        daemon = await started_daemon(term)
        assert await term.wait_exit() == 0
        assert is_running(daemon)  # it outlived the program, as daemons do
    assert not is_running(daemon)


async def test_a_daemon_is_ended_when_the_program_is_still_running(platform: str) -> None:
    async with termsim.spawn(program("daemonize.py", "--stay")) as term:
        daemon = await started_daemon(term)
    assert not is_running(daemon)


async def test_processes_that_ignore_signals_and_leave_the_session(platform: str) -> None:
    async with termsim.spawn(program("stubborn.py", "--setsid")) as term:
        pids = await stubborn_pids(term)
    assert pids and not any(is_running(pid) for pid in pids)
    assert term.exit_status == -9


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
async def test_a_tmux_server_started_by_the_program_is_ended(tmp_path: Path) -> None:
    socket = tmp_path / "tmux.sock"
    script = (f"tmux -S {socket} -f /dev/null new-session -d 'sleep 600' && "
              f"tmux -S {socket} display-message -p 'SERVER #{{pid}} END'")
    async with termsim.spawn(["sh", "-c", script]) as term:
        snap = await term.wait_for(Regex(r"SERVER (\d+) END"), timeout=20)
        match = re.search(r"SERVER (\d+) END", snap.text)
        assert match is not None
        server = int(match.group(1))
        assert await term.wait_exit() == 0
        pane = descendants(server)
        assert is_running(server) and pane
    assert not is_running(server)
    assert not any(is_running(p) for p in pane)


async def test_fifty_sessions_of_a_daemonizing_program_leave_nothing() -> None:
    daemons: list[int] = []

    async def one() -> None:
        async with termsim.spawn(program("daemonize.py")) as term:
            daemons.append(await started_daemon(term))

    async with anyio.create_task_group() as tg:
        for _ in range(50):
            tg.start_soon(one)
    assert len(daemons) == 50
    assert [p for p in daemons if is_running(p)] == []


def test_the_fallbacks_read_the_same_process_table() -> None:
    """``ps`` and ``/proc`` agree on this process and its parent."""
    if shutil.which("ps") is None:
        pytest.skip("ps is not installed")
    me = os.getpid()
    proc = {p.pid: p for p in _process._from_proc(None)}
    ps = {p.pid: p for p in _process._from_ps(None)}
    assert ps[me].ppid == proc[me].ppid and ps[me].pgid == proc[me].pgid
    marker = f"TERMSIM_TEST_MARK={os.urandom(4).hex()}"
    assert not any(p.marked for p in _process._from_ps(marker.encode()))


async def test_the_marker_is_found_by_both_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("ps") is None:
        pytest.skip("ps is not installed")
    # READY comes from the program that then waits, not before an exec: a
    # process in the middle of an exec shows an empty environment (the
    # new image's is not set up yet), so a scan then finds no marker.
    argv = [sys.executable, "-c", "import signal; print('READY', flush=True); signal.pause()"]
    async with termsim.spawn(argv) as term, termsim.spawn(argv) as other:
        await term.wait_for(Text("READY"))
        await other.wait_for(Text("READY"))
        token = f"{SESSION_VARIABLE}={term._pty.token}"
        other_token = f"{SESSION_VARIABLE}={other._pty.token}"
        found = {}
        for backend in ("proc", "ps"):
            monkeypatch.setattr(_process, "BACKEND", backend)
            found[backend] = {p.pid for p in _process.processes(token) if p.marked}
            # One scan for several sessions (teardowns share them): each its own.
            table = _process.processes(token, other_token)
            assert {p.pid for p in table if token.encode() in p.marks} == {term.pid}
            assert {p.pid for p in table if other_token.encode() in p.marks} == {other.pid}
        assert found["proc"] == found["ps"] == {term.pid}


async def test_stale_columns_and_lines_do_not_reach_the_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pytest-xdist workers have COLUMNS=80; a textual app believed it over the
    PTY and drew 80 columns on a 60-column screen."""
    monkeypatch.setenv("COLUMNS", "132")
    monkeypatch.setenv("LINES", "50")
    code = "import shutil; print('SIZE %dx%d END' % tuple(shutil.get_terminal_size()))"
    for env in (None, dict(os.environ)):
        async with termsim.spawn([sys.executable, "-c", code], env=env, cols=60,
                                 rows=20) as term:
            await term.wait_for(Text("SIZE 60x20 END"))


async def test_teardowns_at_once_share_their_scans_of_the_process_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Twenty sessions closing together read the table a few times, not
    forty: whoever asks while a scan runs joins the next one."""
    scans: list[tuple[str, ...]] = []
    original = _process.processes

    def counted(*markers: str) -> list[_process.Proc]:
        scans.append(markers)
        return original(*markers)

    monkeypatch.setattr(_process, "processes", counted)
    daemons: list[int] = []
    all_up = anyio.Event()

    async def one() -> None:
        async with termsim.spawn(program("daemonize.py", "--stay")) as term:
            daemons.append(await started_daemon(term))
            if len(daemons) == 20:
                all_up.set()
            await all_up.wait()  # then every block is left at once

    async with anyio.create_task_group() as tg:
        for _ in range(20):
            tg.start_soon(one)
    assert len(daemons) == 20 and not any(is_running(p) for p in daemons)
    # Each teardown scans twice; shared, that is far fewer than 40 scans.
    assert len(scans) < 20
    assert sum(len(markers) for markers in scans) >= 40  # every teardown was served
