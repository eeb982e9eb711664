"""The client side: one request to the daemon, starting it first if asked.

Each ``termsim drive`` command is a short process: it checks the directory
and the socket (``paths.py``), connects, checks who listens (the daemon
must be the same user), sends one line and blocks until the answer's line
comes back: a wait returns when the wait is done, with nothing polled.

Starting the daemon (for ``start``, when no daemon answers) is serialised
by ``start.lock``: two starts at once start one daemon. The new daemon
gets the write end of a pipe and says ``ready`` on it once it listens; the
client blocks on that pipe (up to :data:`READY_TIMEOUT`, a daemon that
cannot start says why on it or in its log), then connects.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import socket
import sys
from pathlib import Path
from typing import Any

from .paths import (
    DIR_VARIABLE,
    LOG,
    START_LOCK,
    DriveError,
    check_socket,
    open_private,
    peer_uid,
    runtime_dir,
    socket_path,
    user_name,
)
from .protocol import MAX_LINE, MAX_REQUEST, VERSION, decode, encode
from .reaper import MARKER

#: How long a new daemon may take to listen (a loaded machine starts Python slowly).
READY_TIMEOUT = 60.0


def _connect(path: Path) -> socket.socket | None:
    """A connection to the daemon at ``path``; None when none listens
    (no socket, or a stale one)."""
    if not check_socket(path):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.fspath(path))
    except (ConnectionRefusedError, FileNotFoundError):
        sock.close()
        return None
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise DriveError(f"refused: {path}: {exc.strerror}; set {DIR_VARIABLE} to a "
                             "directory of your own") from None
        raise
    uid = peer_uid(sock)
    if uid is not None and uid != os.getuid():
        sock.close()
        raise DriveError(f"refused: the daemon on {path} runs as {user_name(uid)}, not as you "
                         f"({user_name(os.getuid())}); set {DIR_VARIABLE} to a directory of "
                         "your own")
    return sock


#: How many times a start tries again when the daemon it reached was ending.
ENDING_RETRIES = 3


def _exchange(sock: socket.socket, request: dict[str, Any], log: Path) -> dict[str, Any]:
    line = encode({**request, "version": VERSION})
    if len(line) > MAX_REQUEST:
        sock.close()
        raise DriveError(f"this request is {len(line) / 1e6:.1f} MB, and the daemon takes "
                         f"{MAX_REQUEST / 1e6:.1f} MB at most: send the text in parts",
                         status=2, kind="BadRequest")
    with sock:
        try:
            sock.sendall(line)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before it read the request: its answer says why
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if chunk.endswith(b"\n") or size > MAX_LINE:
                break
    data = b"".join(chunks)
    if not data.endswith(b"\n"):
        raise DriveError(f"the daemon closed the connection without an answer (did it "
                         f"end? its log: {log})")
    try:
        return decode(data)
    except ValueError as exc:
        raise DriveError(f"the daemon's answer cannot be read: {exc}") from None


def send(request: dict[str, Any], *, start_daemon: bool = False) -> dict[str, Any]:
    """Send ``request`` to this user's daemon and return its answer;
    ``start_daemon``: start one if none runs (else :class:`DriveError`
    saying how to start one)."""
    directory = runtime_dir(create=start_daemon)
    path = socket_path(directory)
    sock = _connect(path)
    if sock is None and start_daemon:
        sock = _start_daemon(directory, path)
    for _ in range(ENDING_RETRIES):
        if sock is None:
            break
        try:
            return _exchange(sock, request, directory / LOG)
        except ConnectionResetError:
            # The daemon was ending (idle past its grace) as this connected:
            # it reset the connection unread. A start starts a new one.
            if not start_daemon:
                raise DriveError("the termsim drive daemon ended as this request came (it "
                                 "had no session left); start a session with termsim drive "
                                 "start NAME -- COMMAND...", kind="NoDaemon") from None
            sock = _start_daemon(directory, path)
    if sock is None:
        stale = path.exists()
        why = (f"the socket {path} is stale (its daemon is gone: killed, or the machine "
               "restarted)" if stale else f"nothing listens at {path}")
        raise DriveError(f"no termsim drive daemon is running ({why}); start a session with "
                         "termsim drive start NAME -- COMMAND...", kind="NoDaemon")
    raise DriveError(f"the termsim drive daemon at {path} kept ending as this request came; "
                     f"its log: {directory / LOG}")


def _start_daemon(directory: Path, path: Path) -> socket.socket:
    lock = open_private(directory / START_LOCK, os.O_RDWR)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another start may be starting one
        sock = _connect(path)
        if sock is not None:
            return sock
        _spawn_daemon(directory)
        sock = _connect(path)
        if sock is None:
            raise DriveError(f"the daemon said it was ready, but nothing listens at {path}; "
                             f"its log: {directory / LOG}")
        return sock
    finally:
        os.close(lock)


def _spawn_daemon(directory: Path) -> None:
    """Start the daemon, detached, and return once it listens."""
    read, write = os.pipe()
    env = {k: v for k, v in os.environ.items() if k != MARKER}
    env[DIR_VARIABLE] = str(directory)
    log = open_private(directory / LOG, os.O_WRONLY | os.O_APPEND)
    try:
        os.set_inheritable(write, True)
        # Detached (a session of its own, nothing of this process's but the
        # pipe and the log), and never waited for: it outlives this command.
        # Every other descriptor this command inherited is closed in it: a
        # pipe a caller holds (a CI step's, make's jobserver) must not stay
        # open for as long as the daemon lives.
        inherited = [(os.POSIX_SPAWN_CLOSE, fd) for fd in _open_fds()
                     if fd > 2 and fd not in (write, log)]
        os.posix_spawn(
            sys.executable,
            [sys.executable, "-m", "termsim.drive", "daemon", "--ready-fd", str(write)],
            env,
            file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                          (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                          (os.POSIX_SPAWN_DUP2, log, 2), (os.POSIX_SPAWN_CLOSE, log),
                          *inherited],
            setsid=True)
    finally:
        os.close(write)
        os.close(log)
    try:
        said = _read_line(read, READY_TIMEOUT)
    finally:
        os.close(read)
    if said == "ready":
        return
    if said.startswith("error: "):
        raise DriveError(said.removeprefix("error: "))
    what = "did not say it was ready" if said == "" else f"said {said!r}"
    raise DriveError(f"the daemon {what} within {READY_TIMEOUT:g} s; its log: "
                     f"{directory / LOG}")


def _open_fds() -> list[int]:
    """This process's open file descriptors (Linux's /proc, the BSDs' and
    macOS's /dev/fd; none known elsewhere)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        fds = []
        for name in names:
            try:
                fd = int(name)
                os.fstat(fd)  # the listing's own descriptor is closed by now
            except (ValueError, OSError):
                continue
            fds.append(fd)
        return fds
    return []


def _read_line(fd: int, timeout: float) -> str:
    """The first line written to ``fd`` ("" at end of file or after ``timeout``)."""
    data = b""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    while b"\n" not in data:
        if not poller.poll(timeout * 1000):
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].decode(errors="replace")
