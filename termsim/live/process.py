"""Finding and ending everything a session started.

A test harness must leave nothing running: not the child, not a grandchild it
forked, not one that ignores SIGHUP and SIGTERM, not a daemon that forked
twice and called ``setsid`` (a tmux server). Three nets catch them, from one
scan of the process table:

* the child's process group (it is a session leader, so ``killpg`` reaches
  every process that did not move to another group);
* its descendants, and the processes of its session left behind when their
  parent died;
* every process whose environment carries the session's marker
  (``TERMSIM_SESSION=<token>``, see ``_spawn``), wherever it went: a daemon
  keeps the environment it was started with. (A process caught in the
  middle of an exec shows none for that moment, the new image's not yet
  set up; each step of a teardown scans again.)

Where things are read from, so it works beyond Linux:

* the process table comes from ``/proc`` where there is one, else from
  ``ps`` (macOS, the BSDs), which has no session ids (the marker covers the
  processes the session net would catch);
* a process's end is awaited through a pidfd (Linux), else a kqueue
  (macOS, the BSDs), else by checking with a backoff. Each fallback can be
  forced on Linux (``BACKEND``, ``EXIT_WATCH``) so the tests exercise it.

A teardown never scans on the event loop: :func:`scan_started_by` reads the
table in a worker thread, and the teardowns that ask while a scan runs
share the next one (twenty sessions closing at once make four or five
scans, not forty).
"""

from __future__ import annotations

import logging
import os
import select
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Literal

import anyio
import anyio.lowlevel

#: Where the process table is read from: ``"proc"`` or ``"ps"``.
BACKEND: Literal["proc", "ps"] = "proc" if os.path.isdir("/proc/self") else "ps"
#: How a process's end is awaited: ``"pidfd"``, ``"kqueue"`` or ``"poll"``.
EXIT_WATCH: Literal["pidfd", "kqueue", "poll"] = (
    "pidfd" if hasattr(os, "pidfd_open")
    else "kqueue" if hasattr(select, "kqueue") else "poll"
)
log = logging.getLogger("termsim")

#: Grace periods when ending the process tree: after SIGHUP, after SIGTERM.
HANGUP_GRACE = 0.5
TERMINATE_GRACE = 0.5
KILL_GRACE = 2.0

#: With ``EXIT_WATCH = "poll"``: the first and the longest interval between checks.
POLL = (0.001, 0.05)


@dataclass(frozen=True)
class Proc:
    """One row of the process table."""

    pid: int
    ppid: int
    pgid: int
    sid: int  # -1 where it cannot be read (``ps`` has no portable session id)
    marked: bool
    #: Which of the markers looked for its environment carries.
    marks: frozenset[bytes] = frozenset()


def _proc_stat(pid: int) -> tuple[int, int, int] | None:
    """``(ppid, pgrp, session)`` of a process, from ``/proc/PID/stat``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may itself contain ") ".
    fields = data[data.rfind(b")") + 2:].split()
    try:
        return int(fields[1]), int(fields[2]), int(fields[3])
    except (IndexError, ValueError):
        return None


def _marks(pid: int, needles: frozenset[bytes]) -> frozenset[bytes]:
    """Which of ``needles`` (``NAME=value``) are in the environment of ``pid``."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            variables = f.read().split(b"\0")
    except OSError:  # gone, or another user's
        return frozenset()
    return frozenset(n for n in needles if n in variables)


def _needles(needle: bytes | None, more: tuple[bytes, ...]) -> frozenset[bytes]:
    return frozenset(n for n in (needle, *more) if n is not None)


def _from_proc(needle: bytes | None, *more: bytes) -> list[Proc]:
    needles = _needles(needle, more)
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    out = []
    for name in names:
        if not name.isdigit():
            continue
        pid = int(name)
        stat = _proc_stat(pid)
        if stat is not None:
            marks = _marks(pid, needles) if needles else frozenset()
            out.append(Proc(pid, stat[0], stat[1], stat[2], bool(marks), marks))
    return out


def _from_ps(needle: bytes | None, *more: bytes) -> list[Proc]:
    needles = _needles(needle, more)
    # The environment follows the command: "e" for procps, "-E" on macOS,
    # "-e" on the BSDs. The marker's token is random, so a substring test is exact enough.
    env_flag = "-E" if sys.platform == "darwin" else "e" if sys.platform == "linux" else "-e"
    argv = ["ps", "-A", "-ww", "-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "command="]
    if needles:
        argv.insert(2, env_flag)
    try:
        listing = subprocess.run(argv, capture_output=True, check=False, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    out = []
    for line in listing.splitlines():
        fields = line.split(None, 3)
        try:
            pid, ppid, pgid = int(fields[0]), int(fields[1]), int(fields[2])
        except (IndexError, ValueError):
            continue
        command = fields[3] if len(fields) > 3 else b""
        marks = frozenset(n for n in needles if n in command)
        out.append(Proc(pid, ppid, pgid, -1, bool(marks), marks))
    return out


def processes(marker: str | None = None, *more: str) -> list[Proc]:
    """The process table now; ``marker`` (``NAME=value``), and any ``more``,
    is looked for in each environment (``Proc.marks``: which were found;
    ``Proc.marked``: any). [] if it cannot be read at all."""
    needle = marker.encode() if marker is not None else None
    others = tuple(m.encode() for m in more)
    return _from_proc(needle, *others) if BACKEND == "proc" else _from_ps(needle, *others)


def descendants(root: int, table: Iterable[Proc] | None = None) -> list[int]:
    """All live descendants of ``root`` (not ``root`` itself)."""
    children: dict[int, list[int]] = {}
    for proc in processes() if table is None else table:
        children.setdefault(proc.ppid, []).append(proc.pid)
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.append(child)
                todo.append(child)
    return found


def started_by(leader: int, marker: str | None, table: Iterable[Proc] | None = None) -> set[int]:
    """Everything the session led by ``leader`` started, by all three nets
    (see the module's docstring); ``leader`` itself is not included, nor is
    the calling process (which may carry the marker when it ran the session
    through a wrapper). ``table``: a scan that looked for ``marker`` (by
    default, one made now)."""
    table = list(processes(marker) if table is None else table)
    needle = None if marker is None else marker.encode()
    found = set(descendants(leader, table))
    found |= {p.pid for p in table if needle in p.marks or leader in (p.sid, p.pgid)}
    found -= {leader, os.getpid()}
    return found


async def scan_started_by(leader: int, marker: str | None) -> set[int]:
    """:func:`started_by`, from a scan made after this call, off the event
    loop, shared with every other teardown that asks meanwhile."""
    return started_by(leader, marker, await _shared_scan(marker))


class _Scan:
    """One scan of the process table, and who waits for it."""

    def __init__(self) -> None:
        self.markers: set[str] = set()
        self.done = anyio.Event()
        self.table: list[Proc] = []


class _Scans:
    """This event loop's scans: at most one runs; the next gathers who asks."""

    def __init__(self) -> None:
        self.running: _Scan | None = None
        self.next: _Scan | None = None


_SCANS: anyio.lowlevel.RunVar[_Scans] = anyio.lowlevel.RunVar("termsim_scans")


async def _shared_scan(marker: str | None) -> list[Proc]:
    """A scan of the table that starts after this call (so it sees every
    process that exists now), looking for ``marker``; made in a worker
    thread, one at a time: whoever asks while one runs joins the next."""
    try:
        scans = _SCANS.get()
    except LookupError:
        scans = _Scans()
        _SCANS.set(scans)
    scan = scans.next
    if scan is not None:  # not started yet: it will see what exists now
        if marker is not None:
            scan.markers.add(marker)
        await scan.done.wait()
        return scan.table
    scan = scans.next = _Scan()
    if marker is not None:
        scan.markers.add(marker)
    # Shielded: others wait for this scan, whatever happens to this caller.
    with anyio.CancelScope(shield=True):
        try:
            # The teardowns that run in this same pass of the loop join it.
            await anyio.lowlevel.checkpoint()
            while scans.running is not None:
                # It may have read the table before this call: wait, then scan again.
                await scans.running.done.wait()
            scans.next, scans.running = None, scan
            markers = sorted(scan.markers)
            scan.table = await anyio.to_thread.run_sync(lambda: processes(*markers))
        finally:
            if scans.running is scan:
                scans.running = None
            if scans.next is scan:
                scans.next = None
            scan.done.set()
    return scan.table


def session_holds(leader: int, path: str) -> bool:
    """Whether a process of the session led by ``leader`` has ``path`` open.
    A program that opens ``/dev/tty`` gets its controlling terminal, which
    only the members of the PTY's session have: so asking them is enough
    (Linux's ``/proc``; elsewhere the answer is False)."""
    for proc in processes():
        if proc.sid != leader:
            continue
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{proc.pid}/fd/{fd}") == path:
                    return True
            except OSError:
                continue
    return False


def is_running(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except FileNotFoundError:
        if BACKEND == "proc":
            return False
        data = b""
    except OSError:
        data = b""
    if not data:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    state = data[data.rfind(b")") + 2:data.rfind(b")") + 3]
    if state == b"Z":
        # The main thread may be a zombie while other threads still run.
        try:
            return len(os.listdir(f"/proc/{pid}/task")) > 1
        except OSError:
            return False
    return state != b"X"


def signal_all(pgid: int, pids: Iterable[int], sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


async def end_tree(
    pid: int, started: Callable[[], Awaitable[set[int]]], reaped: Callable[[], bool],
    try_reap: Callable[[], None],
) -> None:
    """End the child ``pid`` and everything ``started`` finds: hangup, then
    terminate, then kill, each with its grace period. ``reaped``: whether
    the child is reaped; ``try_reap`` reaps it if it has exited."""
    others = await started()
    for n, (sig, grace) in enumerate((
        (signal.SIGHUP, HANGUP_GRACE), (signal.SIGTERM, TERMINATE_GRACE),
        (signal.SIGKILL, KILL_GRACE),
    )):
        if n:
            # It may have forked since, or started a daemon that left.
            others |= await started()
        alive = [p for p in others if is_running(p)]
        if reaped() and not alive:
            return
        if not reaped():
            alive.append(pid)
        signal_all(pid, alive, sig)
        # Wait on the processes themselves (pidfds), not on the exit
        # task: when the test's own scope was cancelled, that task is
        # gone already and this shielded teardown is all that is left.
        await wait_gone(alive, grace)
        try_reap()
    if not reaped():
        log.error("termsim: process %d survived SIGKILL", pid)


async def wait_exited(pid: int, pidfd: int) -> None:
    """Return once the child ``pid`` has exited, without reaping it
    (``pidfd``: its pidfd, or -1)."""
    if pidfd >= 0:
        await anyio.wait_readable(pidfd)
    else:
        # No pidfd (macOS, old kernels): a thread waits for the exit
        # without reaping (WNOWAIT), so the reaping stays on this
        # thread and the teardown's reap cannot race it.
        await anyio.to_thread.run_sync(
            os.waitid, os.P_PID, pid, os.WEXITED | os.WNOWAIT,
            abandon_on_cancel=True,
        )


async def wait_gone(pids: Iterable[int], timeout: float) -> bool:
    """Wait until none of ``pids`` runs; True if so, False after ``timeout``."""
    pids = list(pids)
    with anyio.move_on_after(timeout):
        if EXIT_WATCH == "pidfd":
            await _wait_pidfds(pids)
        elif EXIT_WATCH == "kqueue":
            await _wait_kqueue(pids)
        else:
            await _wait_polling(pids)
        return True
    return False


async def _wait_pidfds(pids: list[int]) -> None:
    # A pidfd is readable once the whole thread group has exited; a /proc
    # check would call a process gone whose main thread exited while its
    # other threads are still running.
    watched: list[int] = []
    try:
        for pid in pids:
            try:
                watched.append(os.pidfd_open(pid))
            except OSError:
                continue  # gone already
        for pidfd in watched:
            await anyio.wait_readable(pidfd)
    finally:
        for pidfd in watched:
            os.close(pidfd)


async def _wait_kqueue(pids: list[int]) -> None:  # pragma: no cover - macOS, the BSDs
    if sys.platform == "linux":  # (for the type checker: no kqueue here)
        raise RuntimeError("kqueue is not available on Linux")
    kq = select.kqueue()
    try:
        pending = 0
        for pid in pids:
            event = select.kevent(pid, filter=select.KQ_FILTER_PROC,
                                  flags=select.KQ_EV_ADD | select.KQ_EV_ONESHOT,
                                  fflags=select.KQ_NOTE_EXIT)
            try:
                kq.control([event], 0, 0)
                pending += 1
            except OSError:
                continue  # gone already
        while pending:
            await anyio.wait_readable(kq.fileno())
            pending -= len(kq.control(None, pending, 0))
    finally:
        kq.close()


async def _wait_polling(pids: list[int]) -> None:
    interval, longest = POLL
    while any(is_running(pid) for pid in pids):
        await anyio.sleep(interval)  # the fallback of last resort: nothing to wait on
        interval = min(interval * 2, longest)
