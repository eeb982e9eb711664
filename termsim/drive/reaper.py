"""The daemon's reaper: when the daemon is gone, however it went, so are its programs.

A daemon killed with SIGKILL runs no teardown, and a program that ignores
SIGHUP (the hang-up its PTY's closing sends) would run on. So the daemon
starts this process first, in a session of its own, with a pipe on its
stdin whose other end only the daemon holds. The daemon writes each
program's process id on it; the kernel closes the pipe when the daemon
ends. At that end of file the reaper ends every process that carries the
daemon's mark in its environment (each program gets it, and so does
everything a program starts) and everything the programs' sessions and
process groups hold: SIGHUP, then SIGTERM, then SIGKILL, each after its
grace period, waiting on the processes themselves (pidfds), never on a
timer. After a clean stop it finds nothing and exits.
"""

from __future__ import annotations

import os
import signal
import sys

import anyio

from ..live.process import (
    HANGUP_GRACE,
    KILL_GRACE,
    TERMINATE_GRACE,
    is_running,
    processes,
    started_by,
    wait_gone,
)

#: The variable every program of a daemon carries (its value: the daemon's token).
MARKER = "TERMSIM_DRIVE_DAEMON"


def targets(marker: str, leaders: set[int]) -> set[int]:
    """What is left of the daemon's programs: every process carrying
    ``marker`` (``NAME=token``), and what the sessions of ``leaders``
    (those that still carry it) started."""
    table = processes(marker)
    needle = marker.encode()
    marked = {p.pid for p in table if needle in p.marks}
    found = set(marked)
    for leader in leaders & marked:
        found |= started_by(leader, marker, table)
    return {p for p in found if is_running(p)}


async def end_all(marker: str, leaders: set[int]) -> None:
    """Hang up, terminate, then kill everything :func:`targets` finds."""
    for sig, grace in ((signal.SIGHUP, HANGUP_GRACE), (signal.SIGTERM, TERMINATE_GRACE),
                       (signal.SIGKILL, KILL_GRACE)):
        alive = targets(marker, leaders)
        if not alive:
            return
        for pid in alive:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        await wait_gone(alive, grace)


def main(argv: list[str] | None = None) -> int:
    """``python -m termsim.drive.reaper NAME=TOKEN``, stdin the daemon's pipe."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not args[0].startswith(f"{MARKER}="):
        sys.stderr.write(f"usage: python -m termsim.drive.reaper {MARKER}=TOKEN\n")
        return 2
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)  # the daemon's end is its cue, not a signal
    leaders: set[int] = set()
    for line in sys.stdin.buffer:  # until the daemon is gone
        if line.strip().isdigit():
            leaders.add(int(line))
    anyio.run(end_all, args[0], leaders)
    return 0


if __name__ == "__main__":
    sys.exit(main())
