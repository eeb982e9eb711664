"""Asking the kernel what the program has read from its terminal.

The I/O half of :mod:`termsim.live.readtrack`: the program's side of the PTY
(the slave) is opened for a moment to ask how many bytes wait in its input
queue, and watched with inotify, which reports each read and write the
program makes on it, in order.

* ``poll()`` on the slave first flushes input still in flight to the queue
  (when nothing is readable yet), so "nothing to read" after it means
  everything written has arrived and been read. ``FIONREAD`` then gives the
  bytes still queued.
* The slave is opened once, at the first question (``O_NOCTTY``, so it never
  becomes termsim's controlling terminal; closing a tty costs about 0.1 ms,
  too much to pay per key). While termsim holds it, reading the master never
  reports end-of-file when the program exits; the session learns of the exit
  from a pidfd, not from the PTY, so nothing waits for that.
* inotify (Linux) makes the watch event-driven: the program's read wakes
  termsim, nothing polls. A program may talk to its terminal through
  ``/dev/tty`` instead (less, fzf, emacs, password prompts, ``read <
  /dev/tty``): the kernel then reports its reads and writes on ``/dev/tty``,
  not on the pts. So ``/dev/tty`` is watched too; but every process of the
  machine that uses its own ``/dev/tty`` is reported there, so those events
  count only while a process of this session has ``/dev/tty`` open
  (``holds_tty``, asked when such an event comes). How much was read is
  still asked of the pts (``FIONREAD``), whichever file the program read.
  Where inotify is missing (macOS, or the user's
  inotify instances are used up), :attr:`ReadProbe.events_fd` is None and
  the session asks on a backing-off timer instead; the program's writes are
  then not seen, so only output that arrives after the read was seen
  counts (see the README).
* Every read event is also counted (:attr:`ReadProbe.reads_seen`, those of
  ``/dev/tty`` whoever made them), by whichever call takes it from the
  kernel: whether the program read
  anything between two moments is what tells input it never read
  (``readtrack``'s ``TypedAhead``). :meth:`ReadProbe.peek` brings the count
  up to date and keeps the events it took for the next :meth:`ReadProbe.events`,
  which returns them as if they had waited in the kernel.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import logging
import os
import select
import struct
import termios
from collections.abc import Callable

log = logging.getLogger("termsim")

_TIOCGPTN = 0x80045430  # Linux: the number N of /dev/pts/N behind a master
_IN_ACCESS = 0x001
_IN_MODIFY = 0x002
_IN_Q_OVERFLOW = 0x4000
_EVENT = struct.Struct("iIII")
#: At most this many events wait in :meth:`ReadProbe.peek`'s hands (the
#: kernel's default queue holds 16384): more, and they are lost, as there.
_KEPT = 16384
#: The controlling terminal, whichever it is, for a program that opens it.
_DEV_TTY = "/dev/tty"

_libc: ctypes.CDLL | None = None


def _c() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    return _libc


def slave_path(master_fd: int) -> str | None:
    """The path of the slave side of a PTY master, or None."""
    try:
        number = struct.unpack("I", fcntl.ioctl(master_fd, _TIOCGPTN, b"\0\0\0\0"))[0]
        return f"/dev/pts/{number}"
    except OSError:
        pass
    try:  # BSD, macOS
        ptsname = _c().ptsname
        ptsname.restype = ctypes.c_char_p
        name = ptsname(master_fd)
        return os.fsdecode(name) if name else None
    except (AttributeError, OSError):
        return None


class ReadProbe:
    """What the kernel says about the program's reads on one PTY."""

    def __init__(self, master_fd: int, *, inotify: bool = True,
                 holds_tty: Callable[[], bool] | None = None) -> None:
        self.path = slave_path(master_fd)
        #: The inotify fd that becomes readable when the program reads or
        #: writes its terminal (None: no inotify here; ask on a timer).
        self.events_fd: int | None = None
        #: The watch on ``/dev/tty`` (None: none), and how to ask whether
        #: this session's program has it open.
        self._tty_watch: int | None = None
        self._holds_tty = holds_tty
        if inotify and self.path is not None:
            self.events_fd = _inotify(self.path)
            if self.events_fd is not None and holds_tty is not None:
                self._tty_watch = _watch(self.events_fd, _DEV_TTY)
        self._slave = -1
        #: The program's reads seen so far (each read event, by whichever
        #: call took it from the kernel; lost events count as one).
        self.reads_seen = 0
        #: Events :meth:`peek` took from the kernel, for :meth:`events`, and
        #: whether some were lost meanwhile.
        self._kept: list[tuple[bool, str]] = []
        self._lost = False

    @property
    def counts_reads(self) -> bool:
        """Whether :attr:`reads_seen` sees every read of the terminal: the
        pts and ``/dev/tty`` both watched."""
        return self.events_fd is not None and self._tty_watch is not None

    def queued(self) -> tuple[int | None, bool]:
        """``(bytes queued, flushed_empty)``; ``(None, False)`` if the slave is gone."""
        if self.path is None:
            return None, False
        if self._slave < 0:
            try:
                self._slave = os.open(
                    self.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK | os.O_CLOEXEC)
            except OSError:
                return None, False
            self._poller = select.poll()
            self._poller.register(self._slave, select.POLLIN)
        try:
            readable = bool(self._poller.poll(0))
            count = struct.unpack("i", fcntl.ioctl(self._slave, termios.FIONREAD,
                                                   b"\0\0\0\0"))[0]
            return int(count), not readable
        except OSError:
            return None, False

    def _take(self) -> list[tuple[bool, str]] | None:
        """The events the kernel holds now, ``(from /dev/tty, "read"/"write")``
        in order; None if some were lost (an overflow: the order is lost)."""
        assert self.events_fd is not None
        found: list[tuple[bool, str]] = []
        while True:
            try:
                data = os.read(self.events_fd, 4096)
            except BlockingIOError:
                break
            except OSError:
                return None
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size + length
                if mask & _IN_Q_OVERFLOW:
                    return None  # the order is lost: decide without it (late)
                tty = wd == self._tty_watch
                if mask & _IN_ACCESS:
                    found.append((tty, "read"))
                if mask & _IN_MODIFY:
                    found.append((tty, "write"))
        return found

    def _count(self, found: list[tuple[bool, str]] | None) -> None:
        """Count the program's reads among ``found`` (lost events count as
        one: a read may be among them). Reads of ``/dev/tty`` count too,
        whoever made them: who held it *then* cannot be asked afterwards
        (getpass has closed it by the time its flush is seen), and a read
        too many only ever hides a loss, never makes one."""
        if found is None:
            self.reads_seen += 1
            return
        self.reads_seen += sum(1 for _, what in found if what == "read")

    def peek(self) -> int | None:
        """:attr:`reads_seen` now (None without inotify); the events taken
        for it wait for :meth:`events`."""
        if self.events_fd is None:
            return None
        found = self._take()
        self._count(found)
        if found is None or len(self._kept) + len(found) > _KEPT:
            self._lost, self._kept = True, []  # as the kernel's own queue overflows
        elif not self._lost:
            kept = self._kept
            for event in found:
                if not kept or kept[-1] != event:  # the kernel merges repeats too
                    kept.append(event)
        return self.reads_seen

    def events(self) -> list[str] | None:
        """The program's reads and writes since the last call, in order
        (``"read"``/``"write"``); None without inotify, or if events were lost.

        ``/dev/tty``'s events are kept only if a process of this session has
        it open now, asked once per call (a ``/proc`` scan), not per event."""
        if self.events_fd is None:
            return None
        fresh = self._take()
        kept, lost, self._kept, self._lost = self._kept, self._lost, [], False
        if fresh is None or lost:
            self._count(fresh)
            return None
        found = [*kept, *fresh]
        uses_tty = any(tty for tty, _ in found) and self._uses_tty()
        self._count(fresh)
        if not uses_tty:
            found = [event for event in found if not event[0]]
        return [what for _, what in found]

    def discard(self) -> None:
        """Forget the events so far (what the program did before an input is
        not news), without asking who holds ``/dev/tty`` (its reads are
        counted all the same: see :meth:`_count`)."""
        if self.events_fd is None:
            return
        self._kept, self._lost = [], False
        while True:
            try:
                data = os.read(self.events_fd, 4096)
            except OSError:
                return
            if not data:
                return
            offset = 0
            while offset + _EVENT.size <= len(data):
                _, mask, _, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size + length
                if mask & (_IN_ACCESS | _IN_Q_OVERFLOW):
                    self.reads_seen += 1

    def _uses_tty(self) -> bool:
        return self._holds_tty is not None and self._holds_tty()

    def close(self) -> None:
        if self.events_fd is not None:
            os.close(self.events_fd)
            self.events_fd = None
        if self._slave >= 0:
            os.close(self._slave)
            self._slave = -1


def _inotify(path: str) -> int | None:
    try:
        libc = _c()
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    except (AttributeError, OSError):
        return None
    if fd < 0:
        reason = os.strerror(ctypes.get_errno())
        log.debug("termsim: no inotify (%s); input reads are polled", reason)
        return None
    if _watch(fd, path) is None:
        os.close(fd)
        return None
    return int(fd)


def _watch(fd: int, path: str) -> int | None:
    """Add a watch of reads and writes on ``path``; its descriptor, or None."""
    wd = _c().inotify_add_watch(fd, os.fsencode(path), _IN_ACCESS | _IN_MODIFY)
    return None if wd < 0 else int(wd)
