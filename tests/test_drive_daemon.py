"""The daemon of ``termsim drive``: one user's, one a directory, never outlived
by its programs.

Each test runs the real command (``drive_steps.py``) against a daemon of
its own. The tests that act as another user need root (to run a process as
``nobody`` and to give a file away); they skip elsewhere.
"""

from __future__ import annotations

import json
import os
import pwd
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import program
from drive_steps import Driver, drive_command, drive_in, wait_gone

from termsim.files import Recording
from termsim.live.process import is_running

QUICK = [sys.executable, "-c", "import sys; sys.stdin.readline()"]


@pytest.fixture
def drive(tmp_path: Path) -> Iterator[Driver]:
    yield from drive_in(tmp_path)


def _nobody() -> pwd.struct_passwd:
    if os.getuid() != 0:
        pytest.skip("acting as another user needs root")
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' here")


def test_the_socket_and_its_directory_are_the_user_s_alone(drive: Driver) -> None:
    drive("start", "one", "--", *QUICK)
    directory = os.lstat(drive.directory)
    assert stat.S_IMODE(directory.st_mode) == 0o700 and directory.st_uid == os.getuid()
    sock = os.lstat(drive.directory / "drive.sock")
    assert stat.S_ISSOCK(sock.st_mode)
    assert stat.S_IMODE(sock.st_mode) == 0o600 and sock.st_uid == os.getuid()
    drive("stop", "one")


def test_a_directory_open_to_others_is_refused(drive: Driver) -> None:
    os.chmod(drive.directory, 0o755)
    refused = drive("start", "one", "--", *QUICK, check=1)
    assert refused.err == (f"termsim drive start: refused: {drive.directory} is open to other "
                           f"users (mode 0755): chmod 700 {drive.directory}, or set "
                           "TERMSIM_DRIVE_DIR to a directory of your own\n")
    assert not (drive.directory / "drive.sock").exists()  # no daemon started


def test_a_socket_or_a_directory_of_another_user_is_refused(drive: Driver) -> None:
    nobody = _nobody()
    planted = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path = drive.directory / "drive.sock"
    planted.bind(os.fspath(path))
    planted.listen()
    try:
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
        refused = drive("start", "one", "--", *QUICK, check=1)
        assert refused.err == (
            f"termsim drive start: refused: the socket {path} belongs to nobody (uid "
            f"{nobody.pw_uid}), not to you (root (uid 0)); set TERMSIM_DRIVE_DIR to a "
            "directory of your own\n")
        os.chown(drive.directory, nobody.pw_uid, nobody.pw_gid)
        refused = drive("status", check=1)
        assert refused.err.startswith(
            f"termsim drive status: refused: {drive.directory} belongs to nobody (uid "
            f"{nobody.pw_uid}), not to you (root (uid 0)): another user's termsim drive "
            "directory is never used")
    finally:
        planted.close()
        os.chown(drive.directory, 0, 0)


#: A client of another user: it connects to the socket itself (the files'
#: modes opened up for it by the test) and prints the daemon's answer.
INTRUDER = r"""
import json, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
try:
    sock.sendall(json.dumps({"verb": "type", "session": "one", "text": "rm -rf ~\n"}).encode()
                 + b"\n")
except BrokenPipeError:
    pass  # refused before the request was read: the answer is there to read
data = b""
while not data.endswith(b"\n"):
    chunk = sock.recv(65536)
    if not chunk:
        break
    data += chunk
sys.stdout.write(data.decode())
"""


def test_a_process_of_another_user_is_refused_by_the_daemon(drive: Driver) -> None:
    nobody = _nobody()
    python = "/usr/bin/python3"
    if not os.access(python, os.X_OK):
        pytest.skip("no system python for user nobody")
    drive("start", "one", "--", *QUICK)
    path = drive.directory / "drive.sock"
    # The fences of the files are lowered on purpose: the daemon's own check
    # (SO_PEERCRED) must hold without them.
    os.chmod(drive.directory, 0o711)
    os.chmod(path, 0o666)
    try:
        done = subprocess.run([python, "-c", INTRUDER, os.fspath(path)], user=nobody.pw_uid,
                              group=nobody.pw_gid, extra_groups=[], cwd="/", capture_output=True,
                              text=True, timeout=60, check=False)
    finally:
        os.chmod(path, 0o600)
        os.chmod(drive.directory, 0o700)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["ok"] is False and answer["error"]["type"] == "Refused"
    assert answer["error"]["message"] == (
        f"refused: this termsim drive daemon belongs to root (uid 0) and you are nobody (uid "
        f"{nobody.pw_uid}): each user runs their own (set TERMSIM_DRIVE_DIR to a directory "
        "of your own)")
    # Nothing was typed: the session has had no input.
    assert drive("status", "one", "--json").json()["inputs"] == 0
    drive("stop", "one")


def _token(pid: int) -> str:
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    (mark,) = [v for v in environ if v.startswith(b"TERMSIM_DRIVE_DAEMON=")]
    return mark.decode()


def _carrying(text: str) -> list[int]:
    """The processes whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_daemon_killed_with_sigkill_leaves_no_program_and_the_next_start_works(
    drive: Driver,
) -> None:
    # A program that ignores SIGHUP and SIGTERM, with a child, and a grandchild
    # in a session of its own.
    drive("start", "stubborn", "--", *program("stubborn.py", "--setsid"))
    found = drive("wait", "stubborn", "--regex", r"PIDS ([\d ]+) END", "--timeout", "30",
                  "--json").json()
    pids = [int(p) for p in found["match"]["groups"][0].split()]
    assert len(pids) == 3 and all(is_running(p) for p in pids)
    token = _token(pids[0])
    (reaper,) = _carrying(token)
    daemon = drive.daemon_pid()
    assert daemon is not None
    recording = Path(drive("status", "stubborn", "--json").json()["recording"])

    os.kill(daemon, signal.SIGKILL)
    assert wait_gone(daemon)
    for pid in pids:
        assert wait_gone(pid), f"{pid} outlived its daemon"
    assert wait_gone(reaper), "the reaper stayed"

    # The socket is left, and known to be stale.
    assert (drive.directory / "drive.sock").exists()
    stale = drive("status", check=1)
    assert stale.err.startswith(
        f"termsim drive status: no termsim drive daemon is running (the socket "
        f"{drive.directory / 'drive.sock'} is stale (its daemon is gone: killed, or the "
        "machine restarted))")
    # The recording of the killed session reads back up to its last event.
    assert not Recording.open(recording).complete

    drive("start", "again", "--", *QUICK)
    assert drive.daemon_pid() not in (None, daemon)
    drive("type", "again", "bye", "--enter")
    exited = drive("wait", "again", "--exit", "--timeout", "30")
    assert exited.out == "the program exited: exit status 0\n"
    drive("stop", "again")


def test_a_daemon_stays_its_grace_period_and_ends_its_sessions_on_sigterm(
    drive: Driver,
) -> None:
    drive.env["TERMSIM_DRIVE_GRACE"] = "3600"
    drive("start", "one", "--", *QUICK)
    drive("stop", "one")
    assert drive("status").out == "no sessions\n"  # still there, in its grace period
    started = drive("start", "two", "--json", "--", *QUICK).json()
    daemon = drive.daemon_pid()
    assert daemon is not None
    os.kill(daemon, signal.SIGTERM)
    assert wait_gone(daemon)
    assert wait_gone(started["pid"])
    assert not (drive.directory / "drive.sock").exists()
    recording = Recording.open(started["recording"])
    assert recording.complete  # closed as a test's session is


def test_two_starts_at_once_start_one_daemon(drive: Driver) -> None:
    runs = [subprocess.Popen([*drive_command(), "start", name, "--", *QUICK], cwd=drive.cwd,
                             env=drive.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for name in ("a", "b")]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        assert out.startswith("started ")
    status = drive("status", "--json").json()
    assert [s["name"] for s in status["sessions"]] == ["a", "b"]
    drive("stop", "a")
    drive("stop", "b")


# -- what a request cannot do to the daemon -----------------------------------------------


def _raw_request(drive: Driver, line: bytes) -> dict[str, object]:
    """Send ``line`` on the daemon's socket as a client would, and read its answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(60)
        sock.connect(str(drive.directory / "drive.sock"))
        sock.sendall(line)
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = sock.recv(1 << 16)
            assert chunk, f"the daemon closed without an answer after {answer!r}"
            answer += chunk
    value = json.loads(answer)
    assert isinstance(value, dict)
    return value


def test_a_request_nested_too_deeply_is_refused_and_the_daemon_serves_on(drive: Driver) -> None:
    """A JSON line nested past the interpreter's limit once ended the daemon
    (a RecursionError out of its listener), and every session with it."""
    drive("start", "one", "--", *QUICK)
    answer = _raw_request(drive, b"[" * 100_000 + b"\n")
    assert answer["ok"] is False
    assert answer["error"] == {"type": "BadRequest",  # type: ignore[comparison-overlap]
                               "message": "not a request: nested too deeply"}
    assert drive("status", "one", "--json").json()["state"] == "running"
    drive("stop", "one")


def test_a_regex_too_large_to_build_is_a_usage_error_not_an_internal_one(drive: Driver) -> None:
    drive("start", "one", "--", *QUICK)
    for pattern in ("a{99999999999}", "(" * 5000):
        refused = drive("wait", "one", "--regex", pattern, "--timeout", "5", check=2)
        assert "a regex does not compile" in refused.err, refused.err
    assert drive("status", "one", "--json").json()["state"] == "running"
    drive("stop", "one")


def test_a_quiet_of_zero_seconds_is_a_step_of_the_test(drive: Driver) -> None:
    """``--quiet 0`` once dropped out of the noted step (``0.0 == False``),
    and the recording could not be made into a test."""
    drive("start", "one", "--", *QUICK)
    drive("wait", "one", "--quiet", "0")
    stop = drive("stop", "one", "--test", "test_one.py", "--json").json()
    assert stop["ok"] is True, stop
    assert "Quiet(0" in (drive.cwd / "test_one.py").read_text()

