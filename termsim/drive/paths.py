"""Where the daemon listens, and the checks that keep it one user's.

The daemon holds programs that run as the user who started it, and typing
into one is running commands as that user: nobody else may reach it. So
there is no network listener, only a Unix socket, in a directory of the
user's own:

* ``TERMSIM_DRIVE_DIR`` if set, else ``$XDG_RUNTIME_DIR/termsim-drive``
  (a per-user tmpfs on systemd machines), else ``termsim-drive-<uid>`` in
  the system's temporary directory;
* the directory must be owned by the user and closed to everyone else
  (mode 0700: it is made so), the socket in it is mode 0600, and a socket
  owned by another user is refused before connecting;
* the daemon also asks the kernel who connected (``SO_PEERCRED``) and
  refuses another user, and the client asks who listens: a socket planted
  by someone else is refused from both ends.

A daemon holds ``daemon.lock`` (an ``flock``) for its whole life, so a
socket without a daemon (one killed with SIGKILL) is known to be stale
and is replaced by the next daemon, never trusted.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import socket
import stat
import struct
import sys
import tempfile
import threading
from pathlib import Path

#: The variable that names the directory (tests and several daemons at once).
DIR_VARIABLE = "TERMSIM_DRIVE_DIR"
SOCKET = "drive.sock"
LOCK = "daemon.lock"
START_LOCK = "start.lock"
LOG = "daemon.log"
#: Where sessions record unless told (``--record``), under the directory
#: the command runs in: beside the pytest plugin's ``.termsim/``.
RECORD_DIR = Path(".termsim") / "drive"
#: The longest path a Unix socket may have (``sun_path``, less the NUL).
MAX_SOCKET_PATH = 107 if sys.platform.startswith("linux") else 103


class DriveError(Exception):
    """A step could not be done; the message says why and what to do.
    ``status`` is the command's exit status (1: the step failed)."""

    def __init__(self, message: str, *, status: int = 1, kind: str = "DriveError") -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


def user_name(uid: int) -> str:
    """``name (uid N)``, or ``uid N`` for a user the system does not name."""
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def runtime_dir(*, create: bool = True) -> Path:
    """The directory of this user's daemon, checked (and made, if
    ``create``): :class:`DriveError` when it is another user's or open to
    others."""
    given = os.environ.get(DIR_VARIABLE)
    if given:
        path = Path(given)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        path = Path(os.environ["XDG_RUNTIME_DIR"]) / "termsim-drive"
    else:
        path = Path(tempfile.gettempdir()) / f"termsim-drive-{os.getuid()}"
    if create:
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise DriveError(f"cannot make the directory {path}: {exc.strerror}; set "
                             f"{DIR_VARIABLE} to a directory of your own") from None
    check_private_dir(path)
    return path


def check_private_dir(path: Path) -> None:
    """``path`` is a directory (not a link) owned by this user, that no
    one else may enter; else :class:`DriveError` with the fix."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise DriveError(f"no directory {path}: termsim drive start makes it") from None
    me = os.getuid()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise DriveError(f"{path} is not a directory (a link, or a file): refused; set "
                         f"{DIR_VARIABLE} to a directory of your own")
    if info.st_uid != me:
        raise DriveError(
            f"refused: {path} belongs to {user_name(info.st_uid)}, not to you "
            f"({user_name(me)}): another user's termsim drive directory is never used; "
            f"set {DIR_VARIABLE} to a directory of your own")
    if info.st_mode & 0o077:
        raise DriveError(
            f"refused: {path} is open to other users (mode {stat.S_IMODE(info.st_mode):04o}): "
            f"chmod 700 {path}, or set {DIR_VARIABLE} to a directory of your own")


def socket_path(directory: Path) -> Path:
    """The socket in ``directory``; :class:`DriveError` if the path is too
    long for a Unix socket."""
    path = directory / SOCKET
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise DriveError(f"the socket path {path} is longer than a Unix socket allows "
                         f"({MAX_SOCKET_PATH} bytes): set {DIR_VARIABLE} to a shorter "
                         "directory")
    return path


def check_socket(path: Path) -> bool:
    """Whether there is a socket at ``path`` (False: nothing there);
    :class:`DriveError` when what is there is not a socket of this user."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISSOCK(info.st_mode):
        raise DriveError(f"refused: {path} is not a socket; remove it")
    if info.st_uid != os.getuid():
        raise DriveError(
            f"refused: the socket {path} belongs to {user_name(info.st_uid)}, not to you "
            f"({user_name(os.getuid())}); set {DIR_VARIABLE} to a directory of your own")
    return True


def peer_uid(sock: socket.socket) -> int | None:
    """The user of the process at the other end of ``sock`` (None where the
    system does not say: then the directory's mode is the only fence)."""
    if not hasattr(socket, "SO_PEERCRED"):  # pragma: no cover - not Linux
        getpeereid = getattr(os, "getpeereid", None)
        return int(getpeereid(sock.fileno())[0]) if getpeereid else None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def peer_pid(sock: socket.socket) -> int | None:
    """The process id at the other end of ``sock``, where the system says."""
    if not hasattr(socket, "SO_PEERCRED"):  # pragma: no cover - not Linux
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[0])


def open_private(path: Path, flags: int) -> int:
    """Open (or make) a file only this user may read, not following a link."""
    return os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


def try_lock(path: Path) -> int | None:
    """The descriptor of ``path`` locked for this process's life (released
    by the kernel when it ends, however it ends); None if another holds it."""
    fd = open_private(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def lock_within(path: Path, seconds: float) -> int | None:
    """As :func:`try_lock`, waiting up to ``seconds`` for a holder that is
    letting go (a daemon that is ending holds the lock until its sessions
    are stopped). The wait is the kernel's (a blocking ``flock`` in a
    thread), not a polling loop; None if it is still held then."""
    fd = try_lock(path)
    if fd is not None:
        return fd
    taken: list[int] = []

    def take() -> None:
        waiting = open_private(path, os.O_RDWR)
        fcntl.flock(waiting, fcntl.LOCK_EX)
        taken.append(waiting)

    # A daemon thread: if the holder never lets go, the process ends without it.
    worker = threading.Thread(target=take, name="termsim-drive-lock", daemon=True)
    worker.start()
    worker.join(seconds)
    return taken[0] if taken else None


def lock_holder(path: Path) -> str:
    """What the lock file says of its holder (its pid), for messages."""
    try:
        return path.read_text().strip() or "unknown"
    except OSError:
        return "unknown"
