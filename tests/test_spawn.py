"""Starting and ending programs: ``subprocess``'s contract, and no leftovers.

Every failure between fork and exec is raised in the test process before
``spawn`` returns; the program is looked up in the ``PATH`` it is given;
nothing a session started outlives it, daemons included (a hand-written
double-fork-and-setsid daemon, and a tmux server). The same proofs run with
the fallbacks forced (no ``/proc``, no pidfd, no inotify), as on macOS.
"""

from __future__ import annotations

import os
import re
import shutil
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


# -- subprocess's contract ----------------------------------------------------------------


@pytest.mark.parametrize("cwd", ["/nonexistent/dir", "/etc/hostname"], ids=["missing", "file"])
async def test_a_bad_cwd_raises_in_the_parent_and_forks_nothing(cwd: str) -> None:
    before = set(descendants(os.getpid()))
    with pytest.raises(TermsimError, match="working directory") as info:
        async with termsim.spawn(["pwd"], cwd=cwd):
            pytest.fail("the block must not run")  # pragma: no cover
    assert cwd in str(info.value)
    assert leftovers(before) == []


async def test_a_missing_program_names_the_path_it_searched() -> None:
    with pytest.raises(TermsimError, match="no such program") as info:
        async with termsim.spawn(["termsim-no-such-tool"], env={"PATH": "/nowhere"}):
            pytest.fail("the block must not run")  # pragma: no cover
    assert "/nowhere" in str(info.value)


async def test_a_file_without_execute_permission(tmp_path: Path) -> None:
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho hi\n")
    with pytest.raises(TermsimError, match="permission denied"):
        async with termsim.spawn([str(tool)]):
            pytest.fail("the block must not run")  # pragma: no cover


async def test_a_file_that_is_not_a_program(tmp_path: Path) -> None:
    tool = tmp_path / "tool"
    tool.write_bytes(b"\x00\x01not an executable\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(TermsimError, match=r"[Ee]xec format error"):
        async with termsim.spawn([str(tool)]):
            pytest.fail("the block must not run")  # pragma: no cover


async def test_the_program_is_found_on_the_path_of_its_env(tmp_path: Path) -> None:
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


async def test_the_program_has_the_pty_as_its_controlling_terminal() -> None:
    # Ctrl-C is turned into SIGINT by the tty only for its foreground group.
    async with termsim.spawn(["sh", "-c", "tty; trap 'echo INTERRUPTED; exit 3' INT; "
                              "echo READY; while :; do sleep 1; done"]) as term:
        await term.wait_for(Text("READY"))
        assert "/dev/pts/" in term.screen.text or "/dev/tty" in term.screen.text
        await term.press("ctrl+c")
        await term.wait_for(Text("INTERRUPTED"))
        assert await term.wait_exit() == 3


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
    async with termsim.spawn(["sh", "-c", "echo READY; exec sleep 600"]) as term:
        await term.wait_for(Text("READY"))
        token = f"{SESSION_VARIABLE}={term._pty.token}"
        found = {}
        for backend in ("proc", "ps"):
            monkeypatch.setattr(_process, "BACKEND", backend)
            found[backend] = {p.pid for p in _process.processes(token) if p.marked}
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
