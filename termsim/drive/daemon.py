"""The daemon: named sessions held open between commands, on a private Unix socket.

``termsim drive start`` starts it when none runs (``termsim drive daemon``
runs one in the foreground). Its life:

1. it takes ``daemon.lock`` in its directory (``paths.py``), or stops: one
   daemon a directory; holding the lock makes any socket already there
   stale (its daemon is gone), so it is removed;
2. it starts its reaper (``reaper.py``), so that no program outlives it;
3. it listens on ``drive.sock`` (mode 0600, in a directory of mode 0700)
   and says so on the readiness pipe the client gave it (``--ready-fd``):
   the client waits for that line, not for time to pass;
4. it answers each connection (``protocol.py``), refusing a peer of
   another user;
5. once it holds no session and no request for ``grace`` seconds it
   stops; on SIGTERM, SIGINT or SIGHUP it ends its sessions (their
   recordings close as a test's do) and stops.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from ..errors import TermsimWarning
from .answers import error_answer
from .paths import (
    LOCK,
    DriveError,
    check_private_dir,
    check_socket,
    lock_holder,
    lock_within,
    peer_uid,
    socket_path,
    try_lock,
    user_name,
)
from .protocol import MAX_REQUEST, VERSION, decode, encode
from .reaper import MARKER
from .service import Sessions

log = logging.getLogger("termsim.drive")

#: Seconds the daemon stays once it holds no session (``TERMSIM_DRIVE_GRACE``).
GRACE = 30.0
GRACE_VARIABLE = "TERMSIM_DRIVE_GRACE"


def default_grace() -> float:
    """The grace period: ``TERMSIM_DRIVE_GRACE`` if set (seconds), else :data:`GRACE`."""
    given = os.environ.get(GRACE_VARIABLE)
    if not given:
        return GRACE
    try:
        value = float(given)
    except ValueError:
        raise DriveError(f"{GRACE_VARIABLE} is a number of seconds, not {given!r}",
                         status=2) from None
    if not 0 <= value <= 86_400:
        raise DriveError(f"{GRACE_VARIABLE} is from 0 to 86400 seconds, not {given!r}",
                         status=2)
    return value


class Reaper:
    """The reaper process, and the pipe whose end is its cue."""

    def __init__(self, marker: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "termsim.drive.reaper", marker], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, start_new_session=True, close_fds=True)

    def tell(self, pid: int) -> None:
        """One more program whose session the reaper ends with the daemon."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(f"{pid}\n".encode())
            self.proc.stdin.flush()
        except OSError:
            log.warning("termsim drive: the reaper is gone: program %d may outlive the "
                        "daemon if it is killed", pid)

    def close(self) -> None:
        """The daemon is done: the reaper checks that nothing is left, and exits."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except OSError:
            pass


def _tell(fd: int | None, line: str) -> None:
    """Write the readiness line (or the reason for none) to the client."""
    if fd is None:
        return
    try:
        os.write(fd, line.encode() + b"\n")
    except OSError:
        pass  # the client is gone: nobody to tell
    finally:
        os.close(fd)


def run_daemon(directory: Path, *, grace: float, ready_fd: int | None = None) -> int:
    """Be the daemon of ``directory`` until it is no longer needed; the
    exit status (1: another daemon runs, or it could not listen)."""
    try:
        check_private_dir(directory)
        path = socket_path(directory)
        lock = try_lock(directory / LOCK)
        if lock is None and not _answers(path):
            lock = lock_within(directory / LOCK, LOCK_WAIT)  # one that is ending
        if lock is None:
            holder = lock_holder(directory / LOCK)
            if _answers(path):
                raise DriveError(f"a termsim drive daemon already runs (pid {holder}), "
                                 f"listening on {path}: its sessions are there")
            raise DriveError(
                f"another termsim drive daemon (pid {holder}) holds "
                f"{directory / LOCK}, but its socket {path} does not answer: end it (kill "
                "that pid), and the next termsim drive start starts a new one")
        os.ftruncate(lock, 0)
        os.write(lock, f"{os.getpid()}\n".encode())
        if check_socket(path):
            path.unlink()  # its daemon is gone: this one holds the lock
    except DriveError as exc:
        _tell(ready_fd, f"error: {exc}")
        sys.stderr.write(f"termsim drive daemon: {exc}\n")
        return 1
    # The daemon holds no directory of anyone's busy, and what its sessions
    # say of paths (a failed wait's recording) is absolute, not relative to
    # whichever client happened to start it.
    os.chdir("/")
    warnings.simplefilter("ignore", TermsimWarning)  # told in the answers instead
    token = os.urandom(8).hex()
    reaper = Reaper(f"{MARKER}={token}")
    try:
        anyio.run(partial(_serve, path, grace, ready_fd, reaper, token))
    finally:
        # Its sessions are stopped and it listens no more: a new daemon may
        # start now (a start that came as this one ended waits for this).
        os.close(lock)
        reaper.close()
        try:
            # Its check that nothing is left: once this daemon is gone, so is all of it.
            reaper.proc.wait(timeout=REAPER_WAIT)
        except subprocess.TimeoutExpired:
            log.warning("termsim drive: the reaper (pid %d) is still checking",
                        reaper.proc.pid)
    return 0


#: How long a new daemon waits for one that is ending to let go of the lock.
LOCK_WAIT = 15.0


def _answers(path: Path) -> bool:
    """Whether a daemon listens at ``path`` now (a connection is accepted)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(2.0)
        sock.connect(str(path))
    except OSError:
        return False
    finally:
        sock.close()
    return True


#: How long a stopping daemon waits for its reaper's last check (it ends
#: what is left with its grace periods, a few seconds at most).
REAPER_WAIT = 30.0


async def _serve(path: Path, grace: float, ready_fd: int | None, reaper: Reaper,
                 token: str) -> None:
    started = time.time()
    old = os.umask(0o177)  # the socket is born 0600, not chmod-ed into it
    try:
        listener = await anyio.create_unix_listener(path, mode=0o600)
    except OSError as exc:
        _tell(ready_fd, f"error: cannot listen on {path}: {exc.strerror}")
        raise
    finally:
        os.umask(old)
    inode = os.stat(path).st_ino
    stop = anyio.Event()

    def about() -> dict[str, Any]:
        return {"pid": os.getpid(), "socket": str(path), "grace": grace,
                "since": round(time.time() - started, 3)}

    try:
        async with listener, anyio.create_task_group() as group:
            sessions = Sessions(group, marker={MARKER: token}, on_start=reaper.tell,
                                about=about)
            group.start_soon(_serve_connections, listener, sessions)
            group.start_soon(_signals, sessions, stop)
            _tell(ready_fd, "ready")
            if ready_fd is None:
                sys.stderr.write(f"termsim drive: listening on {path} (pid {os.getpid()})\n")
            await _lifetime(sessions, grace, stop)
            await sessions.stop_all()
            group.cancel_scope.cancel()
    finally:
        try:
            if os.stat(path).st_ino == inode:  # ours, not a newer daemon's
                os.unlink(path)
        except OSError:
            pass


#: How long a new daemon waits for its first request (the start that
#: started it connects as soon as it is told the daemon is ready).
FIRST_REQUEST = 60.0


async def _lifetime(sessions: Sessions, grace: float, stop: anyio.Event) -> None:
    """Return once ``stop`` is set, or the daemon has been idle ``grace``
    seconds after its first request (:data:`FIRST_REQUEST` before it)."""
    with anyio.move_on_after(max(grace, FIRST_REQUEST)):
        while sessions.idle and not stop.is_set():
            await sessions.changed.wait()
    while not stop.is_set():
        changed = sessions.changed
        if sessions.idle:
            with anyio.move_on_after(grace) as scope:
                await changed.wait()
            if scope.cancel_called and sessions.idle:
                return
        else:
            await changed.wait()


async def _signals(sessions: Sessions, stop: anyio.Event) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as got:
        async for _ in got:
            stop.set()
            sessions.changed.set()
            return


#: How long a client may take to send its request line, and to read an
#: answer: a connection that says nothing, or reads nothing, is closed
#: rather than held (each holds a file descriptor and a task).
REQUEST_WITHIN = 10.0
#: Connections served at once; past it a new one waits to be accepted (the
#: kernel's backlog holds it), so that idle clients cannot use up the
#: daemon's file descriptors.
MOST_CONNECTIONS = 64


async def _serve_connections(listener: Any, sessions: Sessions) -> None:
    """Accept connections and serve each in a task of its own, at most
    :data:`MOST_CONNECTIONS` at once. Running out of file descriptors (or a
    connection aborted before it was accepted) is waited out, not fatal:
    anyio's ``serve`` would end the daemon, and every session with it."""
    limit = anyio.Semaphore(MOST_CONNECTIONS)  # released by the connection's own task
    async with anyio.create_task_group() as group:
        while True:
            await limit.acquire()
            try:
                stream = await listener.accept()
            except OSError as exc:  # EMFILE, ENFILE, ECONNABORTED...
                limit.release()
                log.warning("termsim drive: accept failed (%s); trying again", exc)
                await anyio.sleep(0.1)  # not a synchronization: a back-off from EMFILE
                continue

            async def serve(stream: anyio.abc.SocketStream = stream) -> None:
                try:
                    await _connection(sessions, stream)
                finally:
                    limit.release()

            group.start_soon(serve)


async def _connection(sessions: Sessions, stream: anyio.abc.SocketStream) -> None:
    """One request, one answer; a peer of another user gets a refusal.
    Whatever a request holds, it never ends the daemon: an error while
    serving it is answered (and logged), not raised."""
    try:
        await _one_connection(sessions, stream)
    except Exception as exc:  # a bug of termsim's: this client's, not every session's end
        log.exception("termsim drive: serving a request failed")
        with anyio.CancelScope(shield=True), anyio.move_on_after(REQUEST_WITHIN):
            await _send(stream, error_answer("request", None, DriveError(
                f"internal error: {type(exc).__name__}: {exc} (please report it)",
                status=3, kind="InternalError")))
        with anyio.CancelScope(shield=True):
            await stream.aclose()


async def _one_connection(sessions: Sessions, stream: anyio.abc.SocketStream) -> None:
    async with stream:
        raw = stream.extra(anyio.abc.SocketAttribute.raw_socket)
        uid = peer_uid(raw)
        if uid is not None and uid != os.getuid():
            message = (f"refused: this termsim drive daemon belongs to {user_name(os.getuid())}"
                       f" and you are {user_name(uid)}: each user runs their own (set "
                       "TERMSIM_DRIVE_DIR to a directory of your own)")
            await _send(stream, error_answer("connect", None,
                                             DriveError(message, kind="Refused")))
            return
        buffered = BufferedByteReceiveStream(stream)
        try:
            with anyio.fail_after(REQUEST_WITHIN):
                line = await buffered.receive_until(b"\n", MAX_REQUEST)
            request = decode(line)
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError, TimeoutError):
            return
        except (anyio.DelimiterNotFound, ValueError) as exc:
            await _send(stream, error_answer("request", None, DriveError(
                f"not a request: {exc}", status=2, kind="BadRequest")))
            return
        if request.get("version", VERSION) != VERSION:
            await _send(stream, error_answer("request", None, DriveError(
                f"this daemon speaks version {VERSION} of the protocol, the client "
                f"{request.get('version')!r}: stop the daemon's sessions, and the next "
                "start runs the installed termsim", kind="Version")))
            return
        if request.get("verb") != "wait":
            with anyio.CancelScope(shield=True):  # an input, a start, a stop: whole or not
                answer = await sessions.handle(request)
            await _send(stream, answer)
            return
        waited = await _cancelled_with_client(sessions, request, buffered)
        if waited is not None:
            await _send(stream, waited)


async def _cancelled_with_client(sessions: Sessions, request: dict[str, Any],
                                 buffered: BufferedByteReceiveStream) -> dict[str, Any] | None:
    """``sessions.handle(request)``, cancelled if the client hangs up first
    (None then): a wait nobody reads the answer of ends."""
    answer: dict[str, Any] | None = None
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            try:
                while await buffered.receive():
                    pass
            except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                pass
            group.cancel_scope.cancel()

        group.start_soon(watch)
        answer = await sessions.handle(request)
        group.cancel_scope.cancel()
    return answer


async def _send(stream: anyio.abc.SocketStream, answer: dict[str, Any]) -> None:
    """Send ``answer``; a client that does not read it within
    :data:`REQUEST_WITHIN` seconds loses it (it must not hold the daemon,
    or its stopping, for ever)."""
    with anyio.move_on_after(REQUEST_WITHIN):
        try:
            await stream.send(encode(answer))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass  # the client is gone
