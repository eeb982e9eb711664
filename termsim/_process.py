"""Finding and ending a child's whole process tree.

A test harness must leave nothing running: not the child, not a grandchild it
forked, not one that ignores SIGHUP and SIGTERM. The child is a session leader
(the PTY made it one), so its process group is signalled as a whole; on
Linux, ``/proc`` also yields descendants that moved to another process group
or session, which ``killpg`` would miss. Each process is watched through a
pidfd, so waiting for them to go is event-driven, not a polling loop.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable

import anyio


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


def descendants(root: int) -> list[int]:
    """All live descendants of ``root`` (not ``root`` itself); [] without /proc."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    children: dict[int, list[int]] = {}
    for name in names:
        if not name.isdigit():
            continue
        stat = _proc_stat(int(name))
        if stat is not None:
            children.setdefault(stat[0], []).append(int(name))
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.append(child)
                todo.append(child)
    return found


def in_session(sid: int) -> list[int]:
    """Processes of session ``sid`` (those left when their parent died)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    out = []
    for name in names:
        if name.isdigit() and int(name) != sid:
            stat = _proc_stat(int(name))
            if stat is not None and stat[2] == sid:
                out.append(int(name))
    return out


def is_running(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return False
    except OSError:
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


async def wait_gone(pids: Iterable[int], timeout: float) -> bool:
    """Wait (event-driven, via pidfd) until none of ``pids`` runs; True if so."""
    watched: list[tuple[int, int]] = []
    try:
        for pid in pids:
            try:
                watched.append((pid, os.pidfd_open(pid)))
            except (ProcessLookupError, AttributeError, OSError):
                continue
        with anyio.move_on_after(timeout):
            # A pidfd is readable once the whole thread group has exited; a
            # /proc check would call a process gone whose main thread exited
            # while its other threads are still running.
            for _, pidfd in watched:
                await anyio.wait_readable(pidfd)
            return True
        return False
    finally:
        for _, pidfd in watched:
            os.close(pidfd)
