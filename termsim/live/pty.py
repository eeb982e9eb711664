"""The live source: a real program in a pseudo-terminal, read and written through anyio.

The thin I/O shell around the sans-IO :class:`~termsim.emulator.Terminal` and the
shared :class:`~termsim.engine.engine.Engine`. It turns what happens at the PTY
into :mod:`termsim.events` and hands them on, in order:

* ``spawn`` starts the child in a new PTY, with ``subprocess``'s contract
  (it becomes a session leader), in a worker thread so the loop never waits
  for a start;
* a reader task waits for the master fd to be readable (``anyio.wait_readable``,
  so epoll on asyncio and trio alike), reads everything available (each read
  an :class:`~termsim.events.Output`, emitted at once so the recording has
  it as read), and applies the backlog to the engine in slices between reads;
  the terminal's replies are written back at once, so a CPR is answered
  within the same loop iteration that read it;
* the master is in packet mode (``TIOCPKT``), so the kernel also tells,
  before the output that follows, when the program flushes its input: what
  the test typed in line mode and the program never read is then lost, and
  the session warns (``readtrack``'s "Input typed too early");
* an exit task waits on a pidfd, reaps the child, reads the output still in
  the PTY, and only then applies the :class:`~termsim.events.Exit`, so a wait
  that the last output satisfies still succeeds and every other pending
  wait fails at once;
* closing (normally, by exception, by cancellation) is shielded: hangup, then
  terminate, then kill, each with a short grace period, for the child's
  process group, every descendant found in ``/proc``, and every process that
  carries the session's marker in its environment (daemons that left). The
  process table is scanned in a worker thread, and the inotify fd, whose
  close waits for the kernel, is closed by a thread of its own: closing
  never holds the loop.

Reading, the exit watcher, writing and teardown are one process's lifecycle
and share its state, so they stay in this one class; what needs none of it
lives apart: the tty's modes (``tty``), finding, signalling and awaiting
processes (``process``), and the test-facing API (``session``). That one
class is why this module passes 500 lines.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import queue
import signal
import struct
import termios
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING

import anyio
import anyio.abc
import anyio.lowlevel

from ..emulator.terminal.terminal import Query
from ..engine.stream import EventStream
from ..errors import SessionClosed
from ..events import Event, Exit, InputRead, Output, Reply, TtyMode, stamp
from . import process as _process
from .process import end_tree, scan_started_by, signal_all, started_by, wait_exited
from .readprobe import ReadProbe
from .readtrack import ReadTracker, Typed, TypedAhead
from .spawn import SESSION_VARIABLE, Child, set_size, start
from .tty import InputNotRead, is_canonical, is_raw, lflag, typed_too_early

if TYPE_CHECKING:
    from ..engine.source import Sink

log = logging.getLogger("termsim")

READ_SIZE = 1 << 16
#: Packet mode (``TIOCPKT``): each read of the master starts with a byte,
#: 0 before output, else the tty's news alone (its input flushed...).
_PACKET_DATA = 0
_FLUSHREAD = getattr(termios, "TIOCPKT_FLUSHREAD", 1)
#: Bytes emulated per pass of the reader between two reads of the PTY.
FEED_SLICE = 1 << 14
#: Output read but not yet emulated, beyond which reading pauses.
MAX_BACKLOG = 64 << 20
#: Read at most this much before letting other tasks run.
MAX_READ_BURST = 1 << 20
#: How often a wait on the tty mode (``InputReady``) re-checks it: every
#: 10 ms after output or input (when programs switch modes), doubling while
#: nothing happens, up to the last. termios changes print nothing, so
#: something must look; an idle program costs a check every 160 ms.
TTY_POLL = (0.01, 0.16)
#: Without inotify, how often to ask whether the program read its input:
#: from the first interval, doubling up to the last.
READ_POLL = (0.001, 0.05)


class _Closer:
    """A thread of its own that closes the fds it is given, in order."""

    def __init__(self) -> None:
        self._fds: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        #: Fds given and not closed yet, told when that changes (``settled``).
        self._open = 0
        self._changed = threading.Condition()

    def close(self, fd: int) -> None:
        with self._changed:
            self._open += 1
        self._fds.put(fd)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():  # (gone after a fork)
                self._thread = threading.Thread(target=self._run, name="termsim-closer",
                                                daemon=True)
                self._thread.start()

    def settled(self, timeout: float) -> bool:
        """Whether every fd given so far is closed, waiting at most
        ``timeout`` seconds (a thread's wait, never the loop's): for a check
        that a closed session left no fd open."""
        with self._changed:
            return self._changed.wait_for(lambda: self._open == 0, timeout)

    def _run(self) -> None:
        while True:
            fd = self._fds.get()
            try:
                os.close(fd)
            except OSError:
                pass
            with self._changed:
                self._open -= 1
                self._changed.notify_all()


#: Closes, off the event loop, the fds whose close blocks the caller.
CLOSER = _Closer()
close_soon = CLOSER.close


#: One worker thread starts this event loop's programs, one after another:
#: a start holds its thread until the exec (a posix_spawn's child may wait
#: for a CPU) but never the loop, and more threads would only take turns
#: at the interpreter lock with the loop, and each cost a thread start.
_SPAWNER: anyio.lowlevel.RunVar[anyio.CapacityLimiter] = anyio.lowlevel.RunVar("termsim_spawner")


def _spawner() -> anyio.CapacityLimiter:
    try:
        return _SPAWNER.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(1)
        _SPAWNER.set(limiter)
        return limiter


class PtySource:
    """A program in a PTY: what a live session's
    :class:`~termsim.engine.source.Source` methods are made of.

    Every event it sees enters the session's :attr:`stream`
    (:class:`~termsim.engine.stream.EventStream`), made of ``emit``, which
    records each as it happens (the recorder and listeners), and ``sink``
    (the engine, seen through the narrow :class:`~termsim.engine.source.Sink`),
    which the reader gives the same events, in the same order. It holds
    nothing else of the engine. The session's own events (inputs, resizes,
    the hangup) enter the same stream.
    """

    def __init__(
        self, argv: Sequence[str], *, cols: int, rows: int, env: Mapping[str, str],
        cwd: str | None, write_timeout: float, emit: Callable[[Event], None], sink: Sink,
        inotify: bool = True, cell_size: tuple[int, int] = (10, 20),
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.token = os.urandom(8).hex()
        self.env = {**env, SESSION_VARIABLE: self.token}
        self.size = (cols, rows)
        self.cell_size = cell_size
        # Outputs read and inputs written so far, and at the last tty check:
        # the tty mode is checked soon after either, then less and less often.
        self._activity = 0
        self._polled_activity = -1
        self._tty_poll = TTY_POLL[0]
        self.write_timeout = write_timeout
        self._sink = sink
        #: Where every event of the session enters: recorded, then applied
        #: to the engine in that order (the reader's backlog is its queue).
        self.stream = EventStream(emit, sink)
        self.proc: Child | None = None
        self.fd = -1
        self._pidfd = -1
        self._t0 = 0.0
        #: Deadlines waits sleep towards (``run_until``), and the last time
        #: ``now()`` said, which it never goes back from.
        self._sleepers: list[float] = []
        self._last_now = 0.0
        #: The tty mode last put in the stream (None: not looked at yet).
        self._tty_raw: bool | None = None
        self._write_lock = anyio.Lock()
        #: The task group :meth:`start` entered, and the task that entered
        #: it: only that task can leave it (:meth:`exit_task_group`).
        self._tg: anyio.abc.TaskGroup | None = None
        self._owner: int | None = None
        #: Set once the session closes: ends the tasks that wait for a time
        #: of their own (a delayed answer), so the group is left at once.
        self._closed = anyio.Event()
        self._tasks = anyio.CancelScope()
        self._reader_done = anyio.Event()
        self._reader_idle = False
        #: Whether queued events are being applied now (``_apply_slice``).
        self._applying = False
        self._reaped = False
        #: Which inputs the program has read (see ``_readtrack``).
        self.reads = ReadTracker()
        self.probe: ReadProbe | None = None
        self._use_inotify = inotify
        self._reads_pending = anyio.Event()
        #: Inputs typed in line mode the program may yet lose (``readtrack``).
        self.typed_ahead = TypedAhead()
        #: Whether the master is in packet mode (it tells of input flushes),
        #: whether a flush is still to be judged, and whether it is being.
        self._packet = False
        self._flushed = False
        self._judging = False
        self._probing = False
        self._closing = False
        #: A warning the reader gave that ``-W error`` made an exception: it
        #: is raised in the test's task, at its next wait or input, and the
        #: waits sleeping now are woken for it (``_sleeps``).
        self._deferred: Warning | None = None
        self._sleeps: set[anyio.CancelScope] = set()

    # -- the Source protocol (for the engine) ------------------------------------

    def now(self) -> float:
        """The session clock: the system's monotonic clock, held at the
        earliest deadline a wait is sleeping towards until that wait has
        looked (``run_until``).

        A replay never applies an event recorded after a wait's deadline
        before the wait has looked at the screen of that deadline; a live
        wait whose task runs late would, and decide on a later screen (a
        golden written live with the toolbar, from the replay without it).
        Holding the clock makes output read late carry the deadline's time,
        in the screen the wait sees and in the recording alike, so the
        replay decides the same; once the wait has looked, the clock goes on
        from the deadline (``_resume``), so a session's clock may run behind
        the system's, never ahead. (Not anyio.current_time(): that looks the
        backend up at each call, and only durations ever reach anyio.)"""
        t = time.monotonic() - self._t0
        if self._sleepers:
            t = min(t, min(self._sleepers))
        if t < self._last_now:
            t = self._last_now
        self._last_now = t
        return t

    def _stamp(self) -> float:
        return stamp(self.now())

    def look_at_tty(self) -> None:
        """Read the tty's mode; if it changed, that is a :class:`TtyMode`
        event, which enters the stream like any other (recorded, then applied
        after everything read before it), so the live engine decides on the
        mode the recording holds, as a replay of it does.

        termios changes print nothing, so something must look: the reader
        after each read of output, the poll of a wait on the mode (its first
        look as it starts, then on a timer: ``TTY_POLL``), and a drain
        (before a timer decides, an input, a resize, the exit)."""
        if self.fd < 0:
            return
        raw = is_raw(lflag(self.fd))
        if raw == self._tty_raw:
            return
        self._tty_raw = raw
        self._tell(TtyMode(self._stamp(), raw))

    def catch_up(self) -> None:
        self.drain()

    def tty_flags(self) -> int | None:
        return lflag(self.fd) if self.fd >= 0 else None

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        self.raise_deferred()
        self._sleepers.append(deadline)
        try:
            if poll:
                self.look_at_tty()  # the poll's first look: the mode as the wait starts
            await self._run_until(event, deadline, poll)
        finally:
            self._sleepers.remove(deadline)
            self._resume(deadline)
        self.raise_deferred()

    def raise_deferred(self) -> None:
        """Raise, in the test's task, a warning the reader found that the
        warning filters made an exception (``-W error``)."""
        exc, self._deferred = self._deferred, None
        if exc is not None:
            raise exc

    async def _sleep(self, event: anyio.Event, seconds: float) -> None:
        """Wait for ``event`` at most ``seconds``, or until a deferred warning."""
        with anyio.move_on_after(seconds) as scope:
            self._sleeps.add(scope)
            try:
                await event.wait()
            finally:
                self._sleeps.discard(scope)

    def _resume(self, deadline: float) -> None:
        """After a wait whose deadline held the clock: go on from where it
        stood, not from the real time it missed, so that no duration on the
        session clock (a ``Quiet``, a frame settling, a stall, the delay
        after Escape) comes out longer than it really was."""
        if self._last_now != deadline or (self._sleepers and min(self._sleepers) < deadline):
            return  # nothing read the clock while it was held at this deadline
        missed = time.monotonic() - self._t0 - deadline
        if missed > 0:
            self._t0 += missed

    async def _run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        while not event.is_set() and self._deferred is None:
            remaining = deadline - (time.monotonic() - self._t0)
            if remaining <= 0:
                # What came in meanwhile, read while the clock still says
                # ``deadline``: the wait looks at it now, as a replay would.
                self.drain()
                return
            if not poll:
                await self._sleep(event, remaining)
                continue
            activity = self._activity
            if activity != self._polled_activity:  # output or input since: look soon
                self._polled_activity, self._tty_poll = activity, TTY_POLL[0]
            await self._sleep(event, min(remaining, self._tty_poll))
            self.look_at_tty()
            if self._activity == activity:
                self._tty_poll = min(self._tty_poll * 2, TTY_POLL[1])

    # -- lifecycle -----------------------------------------------------------------

    async def start(self) -> None:
        """Fork the program and start the reader and exit tasks."""
        cols, rows = self.size

        def run() -> Child:
            return start(self.argv, env=self.env, cwd=self.cwd, cols=cols, rows=rows,
                         cell_size=self.cell_size)

        with anyio.CancelScope(shield=True):  # a started child must be known, to end it
            child = await anyio.to_thread.run_sync(run, limiter=_spawner())
        self.proc = child
        self.fd = child.fd
        self._t0 = time.monotonic()
        try:
            # The kernel then tells when the program flushes its input (which
            # loses what was typed too early): see ``_read_available``.
            fcntl.ioctl(self.fd, termios.TIOCPKT, struct.pack("i", 1))
            self._packet = True
        except (OSError, AttributeError):
            self._packet = False
        self._last_now = 0.0
        try:
            await anyio.lowlevel.checkpoint_if_cancelled()
            leader = child.pid
            self.probe = ReadProbe(self.fd, inotify=self._use_inotify,
                                   holds_tty=lambda: _process.session_holds(leader, "/dev/tty"))
            if _process.EXIT_WATCH == "pidfd":
                try:
                    self._pidfd = os.pidfd_open(child.pid)
                except OSError:
                    self._pidfd = -1
            self._tg = anyio.create_task_group()
            await self._tg.__aenter__()
            self._owner = anyio.get_current_task().id
            self._tg.start_soon(self._run_tasks)
        except BaseException:
            # Cancelled (or failed) between fork and the tasks that would
            # reap the child: end it here, so nothing is left running.
            self.kill_now()
            raise

    async def exit_task_group(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        """Leave the task group :meth:`start` entered (after :meth:`aclose`),
        in the task that entered it (:meth:`in_owner_task`)."""
        tg, self._tg = self._tg, None
        if tg is None:
            return None
        try:
            return await tg.__aexit__(exc_type, exc, tb)
        except BaseExceptionGroup as group:
            # Our tasks never raise, so a group holds only the body's own
            # exception (trio wraps it): let the original propagate unwrapped.
            if exc is not None and len(group.exceptions) == 1 and group.exceptions[0] is exc:
                return False
            raise

    @property
    def entered(self) -> bool:
        """Whether :meth:`start` entered a task group not left yet."""
        return self._tg is not None

    def in_owner_task(self) -> bool:
        """Whether this is the task that entered the task group (the only
        one that can leave it)."""
        return self._owner == anyio.get_current_task().id

    def _started(self) -> set[int]:
        """Every process this session started, wherever it went (``_process``)."""
        assert self.proc is not None
        return started_by(self.proc.pid, f"{SESSION_VARIABLE}={self.token}")

    async def _scan_started(self) -> set[int]:
        """:meth:`_started`, scanned off the event loop (``_process``)."""
        assert self.proc is not None
        return await scan_started_by(self.proc.pid, f"{SESSION_VARIABLE}={self.token}")

    def kill_now(self) -> None:
        """Synchronous last resort: SIGKILL the tree, reap, release."""
        proc = self.proc
        assert proc is not None
        signal_all(proc.pid, self._started(), signal.SIGKILL)
        try:
            os.waitpid(proc.pid, 0)
        except ChildProcessError:
            pass
        self.release()

    async def _run_tasks(self) -> None:
        with self._tasks:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._reader)
                tg.start_soon(self._watch_exit)
                tg.start_soon(self._watch_reads)

    async def aclose(self) -> None:
        """End the program and its whole process tree, and release the PTY.

        Shielded, so it completes under cancellation.
        """
        if self.proc is None:
            return
        self._closing = True  # what the teardown makes the program discard is not news
        with anyio.CancelScope(shield=True):
            try:
                await self._end_process_tree()
            finally:
                self.drain()
                self._sink.close()
                self._closed.set()
                self._tasks.cancel()
                with anyio.move_on_after(1.0):
                    await self._reader_done.wait()
                self.release()

    async def _end_process_tree(self) -> None:
        proc = self.proc
        assert proc is not None
        await end_tree(proc.pid, self._scan_started, lambda: self._reaped, self._try_reap)

    def release(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1
        if self.probe is not None:
            # Closing an inotify fd waits for the kernel's RCU grace period
            # (8-16 ms, in the caller): another thread does it, and no one waits.
            events_fd, self.probe.events_fd = self.probe.events_fd, None
            self.probe.close()
            if events_fd is not None:
                close_soon(events_fd)
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            try:
                os.close(fd)
            except OSError:
                pass

    # -- reading ----------------------------------------------------------------------

    async def _reader(self) -> None:
        """Read the PTY at full speed; emulate in slices between reads.

        Reading is decoupled from emulation: every pass first empties the
        PTY into the backlog (emitting each chunk as read, so the recording
        has it), then applies at most ``FEED_SLICE`` bytes to the engine. A
        program that floods its output is never slowed by the emulator until
        the backlog reaches ``MAX_BACKLOG`` (then the PTY applies
        back-pressure, and memory stays bounded). Events are applied in
        order and waits are evaluated after each, so a lagging emulator
        delays a wait but never skips a screen.
        """
        try:
            open_ = True
            stream = self.stream
            while self.fd >= 0 and (open_ or stream.pending):
                if not stream.pending:
                    self._reader_idle = True
                    try:
                        await anyio.wait_readable(self.fd)
                    finally:
                        self._reader_idle = False
                if open_ and stream.pending_output < MAX_BACKLOG:
                    if self.reads.pending and self._watched():
                        # An input is not known read, and output came: the
                        # program may have read it and answered, and the
                        # kernel already says so (inotify). Ask first, so
                        # that the read is placed before that answer
                        # (``readtrack``'s ``early``) whether or not a wait
                        # is pending yet, and a wait decides on this pass.
                        self.probe_reads()
                    open_ = self._read_available()
                self._apply_slice(FEED_SLICE)
                await anyio.lowlevel.checkpoint()
        except (OSError, anyio.ClosedResourceError) as exc:
            log.debug("termsim: reader stopped: %s", exc)
        finally:
            self._reader_done.set()

    def _read_available(self) -> bool:
        """Move what the PTY has now into the backlog, then, if there was
        any, the tty's mode as of that read (after every byte of it: the
        program may have changed it before writing); False at end of output."""
        activity = self._activity
        open_ = self._read_pty()
        if self._activity != activity:
            self.look_at_tty()
        return open_

    def _read_pty(self) -> bool:
        """Move what the PTY has now into the backlog; False at end of output.

        In packet mode a read holds output after a 0 byte, or the tty's news
        alone, which comes before the output written after it: an input
        flush is judged there (``_judge_flushes``), or, during a probe, once
        the probe is done."""
        fd = self.fd
        if fd < 0:
            return False
        total = 0
        packet = self._packet
        while total < MAX_READ_BURST:
            try:
                chunk = os.read(fd, READ_SIZE + 1 if packet else READ_SIZE)
            except BlockingIOError:
                return True
            except OSError as exc:
                if exc.errno == errno.EIO:  # every slave fd is closed
                    return False
                raise
            if not chunk:
                return False
            if packet:
                if chunk[0] != _PACKET_DATA:
                    if chunk[0] & _FLUSHREAD:
                        self._flushed = True
                        if not self._judging and not self._probing:
                            self._judge_flushes()  # here: its warning where the flush was
                    continue
                chunk = chunk[1:]
                if not chunk:
                    continue
            total += len(chunk)
            self._activity += 1
            self._push(Output(self._stamp(), chunk))
        return True

    # -- input typed too early -------------------------------------------------------

    def reads_seen(self) -> int | None:
        """The program's reads seen so far (None: they are not seen here).

        While an input is tracked the watch takes the kernel's events (a
        probe, as the watch would make); else they are only looked at
        (``ReadProbe.peek``), for the next probe."""
        probe = self.probe
        if probe is None or not probe.counts_reads or self.fd < 0:
            return None
        if self.reads.pending:
            self.probe_reads()
        else:
            probe.peek()
        return probe.reads_seen

    def _judge_flushes(self) -> None:
        """The program flushed its input: tell which inputs typed in line
        mode went with it (``readtrack``'s "Input typed too early")."""
        self._judging = True
        try:
            while self._flushed:
                self._flushed = False
                if not self.typed_ahead.held:
                    continue
                if self._closing or self._reaped or self.probe is None:
                    self.typed_ahead.flushed(reads=None, queued=None, empty=False,
                                             canonical=False)
                    continue
                # The queue first, then the reads: input that survived the
                # flush and is read meanwhile is seen in one or the other.
                queued, empty = self.probe.queued()
                reads = self.reads_seen()  # (a probe may read a flush again: the loop has it)
                flags = lflag(self.fd) if self.fd >= 0 else None
                lost = self.typed_ahead.flushed(reads=reads, queued=queued, empty=empty,
                                                canonical=is_canonical(flags))
                if lost:
                    self._tell_lost(lost, flags)
        finally:
            self._judging = False

    def _tell_lost(self, lost: list[Typed], flags: int | None) -> None:
        message = typed_too_early([(t.label, t.at) for t in lost], self.now(), flags)
        try:
            lost[-1].warn(message)
        except Warning as exc:
            # ``-W error``: not here (the reader's task), but in the test's.
            self._deferred = exc
            for scope in self._sleeps:
                scope.cancel()

    def _watched(self) -> bool:
        """Whether inotify tells of the program's reads (else a timer asks)."""
        return self.probe is not None and self.probe.events_fd is not None

    def _push(self, event: Event) -> None:
        """An event happened now: into the stream (recorded now, applied in turn)."""
        self.stream.push(event)

    def _tell(self, event: Event) -> None:
        """:meth:`_push`, and apply it now if nothing else is about to: the
        reader sleeps until the PTY is readable, and a tty change or a reply
        is no output."""
        self.stream.push(event)
        if self._reader_idle and not self._applying and not self._probing:
            self._apply_slice(None)  # (a probe applies once its reads are told)

    def drain(self) -> None:
        """Read and apply everything there is now, the tty's mode included
        (before a timer decides, an input, a resize, the teardown)."""
        self._read_pty()
        self.look_at_tty()
        self._apply_slice(None)

    def _apply_slice(self, limit: int | None) -> None:
        """Apply queued events, up to ``limit`` bytes of output (all for
        None); the replies each makes the terminal owe go out at once."""
        self._applying = True
        try:
            self.stream.apply(limit, self.write_reply)
        finally:
            self._applying = False
        deferred = self._sink.take_deferred()
        if deferred and self._tg is not None:
            for query in deferred:
                self._tg.start_soon(self._answer_later, query)

    def write_reply(self, data: bytes) -> None:
        """Replies go out at once, without waiting for other writers; the
        :class:`Reply` enters the stream after what was read before it."""
        self._before_reply()
        self._tell(Reply(self._stamp(), data))
        try:
            written = os.write(self.fd, data)
        except OSError as exc:
            log.debug("termsim: could not write a reply: %s", exc)
            return
        self.reads.wrote(data[:written], None)
        if written < len(data) and self._tg is not None:
            self._tg.start_soon(self.write, data[written:])

    async def _answer_later(self, query: Query) -> None:
        assert query.reply is not None
        with anyio.move_on_after(query.delay or 0.0):  # the policy's delay
            await self._closed.wait()  # (or the close, which sends nothing more)
        if self.fd >= 0 and not self._closed.is_set():
            # Applied in order with the output, as a replay will apply it.
            self._before_reply()
            self._push(Reply(self._stamp(), query.reply))
            await self.write(query.reply)

    def _before_reply(self) -> None:
        """A reply is about to be written while an input is not known read:
        look first. The program may have read that input and answered with
        the query this reply answers; once it reads the reply, that read,
        after the answer, would be the last one a later look sees, and the
        input would stay unanswered for good (``readtrack``)."""
        if self.reads.input_unread:
            self.probe_reads()

    async def _watch_exit(self) -> None:
        proc = self.proc
        assert proc is not None
        try:
            await wait_exited(proc.pid, self._pidfd)
            # The child has exited: this does not block.
            _, status = os.waitpid(proc.pid, 0)  # noqa: ASYNC222
        except ChildProcessError:
            return  # the teardown reaped it first (see _try_reap)
        self._exited(status)

    def _try_reap(self) -> None:
        """Reap the child if it has exited (whoever gets there first wins)."""
        proc = self.proc
        if proc is None or self._reaped:
            return
        try:
            pid, status = os.waitpid(proc.pid, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            self._exited(status)

    def _exited(self, status: int) -> None:
        proc = self.proc
        assert proc is not None
        if self._reaped:  # the exit is told once, whoever reaped the child
            log.debug("termsim: process %d reported exiting twice", proc.pid)
            return
        self._reaped = True
        # subprocess must not wait for (or warn about) a child reaped here.
        proc.popen.returncode = os.waitstatus_to_exitcode(status)
        if self.reads.pending:
            self.probe_reads()  # it may have read its input, answered and exited
        self._read_available()  # the output the program wrote before exiting
        self.look_at_tty()  # and the mode it left the tty in
        self._push(Exit(self._stamp(), os.waitstatus_to_exitcode(status)))
        self._apply_slice(None)

    # -- what the program read -----------------------------------------------------------

    async def _watch_reads(self) -> None:
        """While an input is unread (or read and unanswered), wake on the
        program's reads and writes (inotify) and ask the kernel what it read.
        Without inotify, ask on a timer that backs off."""
        probe = self.probe
        assert probe is not None
        delay = READ_POLL[0]
        while self.fd >= 0:
            if not self.reads.pending:
                self._reads_pending = anyio.Event()
                await self._reads_pending.wait()
                delay = READ_POLL[0]
                continue
            if self.reads.recheck:
                # A read was seen before its consumption was: ask again now,
                # whether or not the program does anything more.
                await anyio.lowlevel.checkpoint()
            elif probe.events_fd is not None:
                await anyio.wait_readable(probe.events_fd)
            else:
                await anyio.sleep(delay)  # no inotify: the kernel cannot tell us
                delay = min(delay * 2, READ_POLL[1])
            if self.reads.pending:  # (the reader may have asked already)
                self.probe_reads()

    def probe_reads(self) -> None:
        """Ask what the program read; put :class:`InputRead` events in the stream.

        In this order (``_readtrack`` says why): the input queue, then the
        program's reads and writes, then the output, drained, so an input
        read event comes after every byte written before that read.
        """
        probe = self.probe
        if probe is None or self.fd < 0:
            return
        queued, empty = probe.queued()
        canonical = is_canonical(lflag(self.fd))
        events = probe.events()
        decisions = self.reads.observe(queued=queued, flushed_empty=empty, canonical=canonical,
                                       events=events)
        before, after = self.reads.around_drain(decisions)
        for index, answered in before:  # all the output about to be drained came after
            self._push(InputRead(self._stamp(), index, answered))
        probing, self._probing = self._probing, True
        try:
            self._read_available()
        finally:
            self._probing = probing
        for index, answered in after:
            self._push(InputRead(self._stamp(), index, answered))
        if self._flushed and not self._judging and not self._probing:
            self._judge_flushes()  # a flush this drain read, now that the probe is told
        if self.stream.pending and self._reader_idle and not self._applying:
            # The reader sleeps until the PTY is readable again, and this
            # drain may have taken what would have woken it. (Not while
            # applying: a probe before a reply, whose apply goes on.)
            self._apply_slice(None)

    # -- writing ----------------------------------------------------------------------

    async def write(self, data: bytes, index: int | None = None, *,
                    typed: Typed | None = None, reads: int | None = None) -> None:
        """Write all of ``data``, in order with other writers, within ``write_timeout``.

        ``index``: the mark of an input whose reading the program's side is
        watched for (see ``_readtrack``). ``typed``: an input typed in line
        mode, held once written in case the program flushes it unread, with
        ``reads``, the program's reads seen before it (:meth:`reads_seen`)."""
        view = memoryview(data)
        self._activity += 1
        if index is not None and not self.reads.pending and self.probe is not None:
            self.probe.discard()  # what the program did before this input is not news
        await anyio.lowlevel.checkpoint()
        if not self._write_lock.locked():
            # No other writer: what the PTY takes now goes out at once. The
            # program may answer at once too, so nothing waits after it:
            # only a write the PTY cannot take whole takes the lock and the
            # timeout (a cancel scope costs more than the write).
            try:
                n = os.write(self.fd, view)
            except BlockingIOError:
                n = 0
            except OSError as exc:
                raise SessionClosed(f"cannot write to the program: {exc}") from None
            if n:
                self.reads.wrote(bytes(view[:n]), index if n == len(view) else None,
                                 raw=index is not None)
                view = view[n:]
            if not view:
                if index is not None:
                    self._reads_pending.set()
                if typed is not None:
                    self.typed_ahead.typed(typed, reads)
                return
        try:
            with anyio.fail_after(self.write_timeout):
                async with self._write_lock:
                    while view:
                        try:
                            n = os.write(self.fd, view)
                        except BlockingIOError:
                            await anyio.wait_writable(self.fd)
                            continue
                        self.reads.wrote(bytes(view[:n]), index if n == len(view) else None,
                                         raw=index is not None)
                        view = view[n:]
            if index is not None:
                self._reads_pending.set()
            if typed is not None:
                self.typed_ahead.typed(typed, reads)
        except TimeoutError:
            raise InputNotRead(len(view), len(data), self.write_timeout) from None
        except OSError as exc:
            raise SessionClosed(f"cannot write to the program: {exc}") from None

    def set_size(self, cols: int, rows: int) -> None:
        """Tell the kernel (and so the program, with SIGWINCH) the new size."""
        self.size = (cols, rows)
        if self.fd < 0:
            return
        try:
            set_size(self.fd, cols, rows, self.cell_size)
        except OSError as exc:
            log.debug("termsim: resize failed: %s", exc)
