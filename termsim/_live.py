"""Live sessions: a real program in a pseudo-terminal, driven through anyio.

The thin I/O shell around the sans-IO :class:`~termsim.Terminal` and the
shared :class:`~termsim._engine.Engine`:

* ptyprocess forks the child in a new PTY (it becomes a session leader);
* a reader task waits for the master fd to be readable (``anyio.wait_readable``,
  so epoll on asyncio and trio alike), reads everything available, feeds the
  terminal and writes the terminal's replies back at once: a CPR is answered
  within the same loop iteration that read it;
* an exit task waits on a pidfd, reaps the child, reads the output still in
  the PTY, and only then tells the engine, so a wait that the last output
  satisfies still succeeds and every other pending wait fails at once;
* closing (normally, by exception, by cancellation) is shielded: hangup, then
  terminate, then kill, each with a short grace period, for the child's
  process group and every descendant found in ``/proc``.

Why this module is long: reading, the exit watcher, input, recording hooks
and teardown are one session's lifecycle and share its state; the process
tree (``_process.py``), keys (``_keys.py``), redaction (``_redact.py``) and
the test-facing API (``_driver.py``) live apart.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import signal
import termios
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Literal, cast

import anyio
from ptyprocess import PtyProcess

from . import _recording as rec
from ._driver import Driver
from ._engine import Engine, Mark
from ._errors import SessionClosed, TermsimError, WaitTimeout
from ._process import descendants, in_session, is_running, signal_all, wait_gone
from ._redact import MARKER, Redactor
from ._terminal import Policy, Query, Terminal

log = logging.getLogger("termsim")

CprPolicy = Literal["answer", "ignore"] | float
Command = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]

READ_SIZE = 1 << 16
#: Bytes emulated per pass of the reader between two reads of the PTY.
FEED_SLICE = 1 << 14
#: Output read but not yet emulated, beyond which reading pauses.
MAX_BACKLOG = 64 << 20
#: Read at most this much before letting other tasks run.
MAX_READ_BURST = 1 << 20
#: How often a wait on the tty mode (``InputReady``) re-checks it.
TTY_POLL_INTERVAL = 0.01
#: Set by the pytest plugin while a test runs: where a session records when
#: ``spawn()`` was not told (``record=False`` opts out).
default_record: Callable[[list[str]], str] | None = None
#: Grace periods when ending the process tree: after SIGHUP, after SIGTERM.
HANGUP_GRACE = 0.5
TERMINATE_GRACE = 0.5
KILL_GRACE = 2.0


def _hidden_input(fd: int) -> bool:
    """Cooked with echo off: a password prompt (getpass, sudo, ssh).

    prompt_toolkit's raw mode also turns echo off, but turns ICANON off too,
    so its keys are not mistaken for a password.
    """
    try:
        lflag = termios.tcgetattr(fd)[3]
    except (termios.error, OSError):
        return False
    return bool(lflag & termios.ICANON) and not lflag & termios.ECHO


def _raw_mode(fd: int) -> bool | None:
    """Whether the PTY's line discipline is raw (ICANON and ECHO off).

    On Linux the master's termios are the slave's, which the program sets.
    """
    try:
        lflag = termios.tcgetattr(fd)[3]
    except (termios.error, OSError):
        return None
    return not (lflag & termios.ICANON) and not (lflag & termios.ECHO)


class Session(Driver):
    """A program running in a pseudo-terminal, watched through a virtual screen.

    Create one with :func:`termsim.spawn` and use it as an async context
    manager; leaving the block ends the whole process tree.
    """

    def __init__(
        self, argv: Sequence[str], *, cols: int = 80, rows: int = 24,
        env: Mapping[str, str] | None = None, cwd: str | os.PathLike[str] | None = None,
        cpr: CprPolicy = "answer", term: str = "xterm-256color",
        escape_delay: float = 0.6, write_timeout: float = 10.0,
        record: str | os.PathLike[str] | Literal[False] | None = None,
        redact: Sequence[str | re.Pattern[str]] = (), mask_hidden_input: bool = True,
    ) -> None:
        if isinstance(cpr, str) and cpr not in ("answer", "ignore"):
            raise ValueError(f'cpr must be "answer", "ignore" or a delay in seconds, not {cpr!r}')
        if not isinstance(cpr, str) and not cpr >= 0:
            raise ValueError(f"a CPR delay must be >= 0 seconds, not {cpr!r}")
        self.argv = list(argv)
        self.cwd = None if cwd is None else os.fspath(cwd)
        env_dict = dict(os.environ if env is None else env)
        if env is None or "TERM" not in env:
            env_dict["TERM"] = term
        self.env = env_dict
        self.cpr = cpr
        self.escape_delay = escape_delay
        self.write_timeout = write_timeout
        policy: dict[str, Policy] = {}
        if cpr == "ignore":
            policy = {"cpr": "ignore", "decxcpr": "ignore"}
        elif not isinstance(cpr, str):
            policy = {"cpr": "defer", "decxcpr": "defer"}
        self.terminal = Terminal(cols, rows, policy=policy)
        self.engine = Engine(self.terminal, self)
        #: Warnings about how the test drove the program (keys sent while the
        #: terminal was cooked, ...), oldest first.
        self.warnings: list[str] = []
        #: Called as ``listener(kind, seconds, data)`` for everything that
        #: crosses the PTY: ``"output"`` (bytes, as read), ``"input"``
        #: (``(bytes, label, typed_with_echo_off)``), ``"reply"`` (bytes the terminal answered),
        #: ``"resize"`` (``(cols, rows)``) and ``"exit"`` (the status).
        #: Recorders and reports hang off this.
        self.listeners: list[Callable[[str, float, object], None]] = []
        self._proc: PtyProcess | None = None
        self._backlog: deque[bytes] = deque()
        self._backlog_size = 0
        self._fd = -1
        self._pidfd = -1
        self._t0 = 0.0
        self._last_output: float | None = None
        self._tty_raw: bool | None = None
        self._inputs = 0
        self._hold_until = 0.0
        self._write_lock = anyio.Lock()
        self._tg: anyio.abc.TaskGroup | None = None
        self._tasks = anyio.CancelScope()
        self._reader_done = anyio.Event()
        self._started = False
        self._closed = False
        if record is None and default_record is not None:
            record = default_record(self.argv)
        self.record_path = None if record is None or record is False else os.fspath(record)
        self._recorder: rec.Recorder | None = None
        self._redactor = Redactor(redact)
        self.mask_hidden_input = mask_hidden_input

    # -- the Source protocol (for the engine) ------------------------------------

    def now(self) -> float:
        return anyio.current_time() - self._t0

    def silent_for(self) -> float | None:
        if self._last_output is None:
            return None
        return self.now() - self._last_output

    def input_ready(self) -> bool | None:
        if self._fd < 0:
            return self._tty_raw
        raw = _raw_mode(self._fd)
        if raw != self._tty_raw:
            self._tty_raw = raw
            if self._recorder is not None:
                self._recorder.event(rec.TTY, self.now(), raw)
        return raw

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        while not event.is_set():
            remaining = deadline - self.now()
            if remaining <= 0:
                return
            with anyio.move_on_after(min(remaining, TTY_POLL_INTERVAL) if poll else remaining):
                await event.wait()
            if poll:
                self.engine.notify()

    # -- lifecycle -----------------------------------------------------------------

    async def __aenter__(self) -> Session:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        if exc is None:
            how = "closed"
        elif isinstance(exc, anyio.get_cancelled_exc_class()):
            how = "cancelled"
        else:
            how = f"error: {type(exc).__name__}"
        await self.aclose(how)
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

    async def start(self) -> None:
        """Start the program. ``async with spawn(...)`` calls this for you."""
        if self._started:
            raise TermsimError("this session was already started")
        await anyio.lowlevel.checkpoint_if_cancelled()  # cancelled: nothing starts
        self._started = True
        if self.record_path is not None:
            scrub = self._redactor.text
            header = rec.make_header(
                argv=[scrub(a) for a in self.argv],
                cwd=None if self.cwd is None else scrub(self.cwd), cols=self.terminal.cols,
                rows=self.terminal.rows, env={k: scrub(v) for k, v in self.env.items()},
                policy=self.terminal.policy,
            )
            self._recorder = rec.Recorder(
                self.record_path, header, on_failure=self._recording_failed,
            )
            self.listeners.append(self._record)
            self.engine.observers.append(self._record_wait)
            self.engine.recording = self.record_path
        try:
            self._proc = PtyProcess.spawn(
                self.argv, cwd=self.cwd, env=self.env,
                dimensions=(self.terminal.rows, self.terminal.cols),
            )
        except OSError as exc:
            if self._recorder is not None:
                self._recorder.event(rec.WARNING, 0.0, f"cannot start: {exc}")
                self._recorder.close(0.0, "error: not started")
            raise TermsimError(f"cannot start {self.argv[0]!r}: {exc}") from None
        self._fd = self._proc.fd
        self._t0 = anyio.current_time()
        try:
            os.set_blocking(self._fd, False)
            try:
                self._pidfd = os.pidfd_open(self._proc.pid)
            except (AttributeError, OSError):
                self._pidfd = -1
            self._tg = anyio.create_task_group()
            await self._tg.__aenter__()
            self._tg.start_soon(self._run_tasks)
        except BaseException:
            # Cancelled (or failed) between fork and the tasks that would
            # reap the child: end it here, so nothing is left running.
            self._closed = True
            self._kill_now()
            raise

    def _kill_now(self) -> None:
        """Synchronous last resort: SIGKILL the tree, reap, release."""
        proc = self._proc
        assert proc is not None
        signal_all(proc.pid, descendants(proc.pid), signal.SIGKILL)
        try:
            os.waitpid(proc.pid, 0)
        except ChildProcessError:
            pass
        self._release()
        if self._recorder is not None:
            self._recorder.close(self.now(), "cancelled while starting")

    def _recording_failed(self, reason: str) -> None:
        warning = f"{reason}; the file ends here (the test goes on)"
        self.warnings.append(warning)
        log.warning("termsim: %s: %s", self.record_path, warning)

    async def _run_tasks(self) -> None:
        with self._tasks:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._reader)
                tg.start_soon(self._watch_exit)

    @property
    def pid(self) -> int:
        if self._proc is None:
            raise SessionClosed("the session has not started")
        return int(self._proc.pid)

    async def aclose(self, how: str = "closed") -> None:
        """End the program and its whole process tree, and release the PTY.

        Safe to call twice and under cancellation (the teardown is shielded).
        ``how`` is written at the end of the recording.
        """
        if self._closed:
            return
        self._closed = True
        if self._proc is None:
            return
        with anyio.CancelScope(shield=True):
            try:
                await self._end_process_tree()
            finally:
                self._drain()
                self.engine.close()
                self._tasks.cancel()
                with anyio.move_on_after(1.0):
                    await self._reader_done.wait()
                self._release()
                if self._recorder is not None:
                    self._flush_redacted()
                    if self.terminal.unknown:
                        # So a reader knows the screens may be wrong, and where.
                        self._recorder.event(rec.UNKNOWN, self.now(), dict(self.terminal.unknown))
                    self._recorder.close(self.now(), how)

    async def _end_process_tree(self) -> None:
        proc = self._proc
        assert proc is not None
        pid = proc.pid
        others = set(descendants(pid)) | set(in_session(pid))
        for n, (sig, grace) in enumerate((
            (signal.SIGHUP, HANGUP_GRACE), (signal.SIGTERM, TERMINATE_GRACE),
            (signal.SIGKILL, KILL_GRACE),
        )):
            if n and not self.engine.exited:
                others |= set(descendants(pid))  # it may have forked since
            alive = [p for p in others if is_running(p)]
            if self.engine.exited and not alive:
                return
            if not self.engine.exited:
                alive.append(pid)
            signal_all(pid, alive, sig)
            # Wait on the processes themselves (pidfds), not on the exit
            # task: when the test's own scope was cancelled, that task is
            # gone already and this shielded teardown is all that is left.
            await wait_gone(alive, grace)
            self._try_reap()
        if not self.engine.exited:
            log.error("termsim: process %d survived SIGKILL", pid)

    def _release(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1
        if self._fd >= 0:
            self._fd = -1
            try:
                proc.fileobj.close()
            except OSError:
                pass
        # ptyprocess's __del__ would close again and sleep; it has nothing left to do.
        proc.closed = True
        proc.terminated = True

    # -- reading ----------------------------------------------------------------------

    async def _reader(self) -> None:
        """Read the PTY at full speed; emulate in slices between reads.

        Reading is decoupled from emulation: every pass first empties the
        PTY into the backlog (recording each chunk as read), then feeds at
        most ``FEED_SLICE`` bytes to the terminal. A program that floods its
        output is never slowed by the emulator until the backlog reaches
        ``MAX_BACKLOG`` (then the PTY applies back-pressure, and memory stays
        bounded). Chunks are fed in order and waits are evaluated after each
        one, so a lagging emulator delays a wait but never skips a screen.
        """
        try:
            open_ = True
            while self._fd >= 0 and (open_ or self._backlog):
                if not self._backlog:
                    await anyio.wait_readable(self._fd)
                if open_ and self._backlog_size < MAX_BACKLOG:
                    open_ = self._read_available()
                self._feed_slice(FEED_SLICE)
                await anyio.lowlevel.checkpoint()
        except (OSError, anyio.ClosedResourceError) as exc:
            log.debug("termsim: reader stopped: %s", exc)
        finally:
            self._reader_done.set()

    def _read_available(self) -> bool:
        """Move what the PTY has now into the backlog; False at end of output."""
        fd = self._fd
        if fd < 0:
            return False
        total = 0
        while total < MAX_READ_BURST:
            try:
                chunk = os.read(fd, READ_SIZE)
            except BlockingIOError:
                return True
            except OSError as exc:
                if exc.errno == errno.EIO:  # every slave fd is closed
                    return False
                raise
            if not chunk:
                return False
            total += len(chunk)
            self._on_read(chunk)
        return True

    def _drain(self) -> None:
        """Read and emulate everything there is now (exit, teardown, input)."""
        self._read_available()
        self._feed_slice(None)

    def _on_read(self, chunk: bytes) -> None:
        self._last_output = self.now()
        if self.listeners:
            self._emit("output", chunk)
        self._backlog.append(chunk)
        self._backlog_size += len(chunk)

    def _feed_slice(self, limit: int | None) -> None:
        """Emulate up to ``limit`` bytes of the backlog (all of it for None)."""
        fed = 0
        backlog = self._backlog
        while backlog and (limit is None or fed < limit):
            chunk = backlog.popleft()
            if limit is not None and len(chunk) > limit - fed:
                chunk, rest = chunk[: limit - fed], chunk[limit - fed:]
                backlog.appendleft(rest)
            self._backlog_size -= len(chunk)
            fed += len(chunk)
            self._on_output(chunk)

    def _emit(self, kind: str, data: object) -> None:
        now = self.now()
        for listener in self.listeners:
            listener(kind, now, data)

    def _on_output(self, chunk: bytes) -> None:
        replies = self.engine.feed(chunk)
        if replies:
            self._write_reply(replies)
        deferred = self.terminal.take_deferred()
        if deferred and self._tg is not None:
            for query in deferred:
                self._tg.start_soon(self._answer_later, query)

    def _write_reply(self, data: bytes) -> None:
        """Replies go out at once, without waiting for other writers."""
        if self.listeners:
            self._emit("reply", data)
        try:
            written = os.write(self._fd, data)
        except OSError as exc:
            log.debug("termsim: could not write a reply: %s", exc)
            return
        if written < len(data) and self._tg is not None:
            self._tg.start_soon(self._write_all, data[written:])

    async def _answer_later(self, query: Query) -> None:
        assert query.reply is not None
        assert not isinstance(self.cpr, str)
        await anyio.sleep(float(self.cpr))  # the policy's delay, not synchronisation
        if self._fd >= 0:
            if self.listeners:
                self._emit("reply", query.reply)
            await self._write_all(query.reply)
            query.status = "answered"

    async def _watch_exit(self) -> None:
        proc = self._proc
        assert proc is not None
        try:
            if self._pidfd >= 0:
                await anyio.wait_readable(self._pidfd)
                # The pidfd is readable: the child has exited, this does not block.
                _, status = os.waitpid(proc.pid, 0)  # noqa: ASYNC222
            else:
                _, status = await anyio.to_thread.run_sync(
                    os.waitpid, proc.pid, 0, abandon_on_cancel=True,
                )
        except ChildProcessError:
            return  # the teardown reaped it first (see _try_reap)
        self._exited(status)

    def _try_reap(self) -> None:
        """Reap the child if it has exited (whoever gets there first wins)."""
        proc = self._proc
        if proc is None or self.engine.exited:
            return
        try:
            pid, status = os.waitpid(proc.pid, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            self._exited(status)

    def _exited(self, status: int) -> None:
        proc = self._proc
        assert proc is not None
        code = os.waitstatus_to_exitcode(status)
        proc.terminated = True
        self._drain()  # the output the program wrote before exiting
        if self.listeners:
            self._emit("exit", code)
        self.engine.process_exited(code)

    async def _send_input(self, data: bytes, label: str, *, keys: bool) -> Mark:
        if self._closed or self._fd < 0:
            raise SessionClosed("the session is closed")
        wait = self._hold_until - self.now()
        if wait > 0:
            await anyio.sleep(wait)  # protocol timing: ESC must stand alone
        hidden = _hidden_input(self._fd)
        if keys and self.input_ready() is False:
            warning = (
                f"{label} sent at {self.now():.3f} s while the terminal was cooked "
                "(the program was not reading keys): they may be echoed, turn into "
                "signals or be lost; wait for InputReady() first"
            )
            self.warnings.append(warning)
            log.warning("termsim: %s", warning)
            if self._recorder is not None:
                if hidden and self.mask_hidden_input:
                    warning = warning.replace(label, f"input {MARKER}")
                self._recorder.event(rec.WARNING, self.now(), self._redactor.text(warning))
        # The mark must cover every byte read so far: emulate the backlog
        # first, so "since" means "read after this input was written".
        self._feed_slice(None)
        self._inputs += 1
        mark = Mark(self._inputs, self.terminal.generation, self.now(), label)
        self.engine.input_sent(mark)
        if self.listeners:
            self._emit("input", (data, label, hidden))
        await self._write_all(data)
        self._hold_until = self.now() + self.escape_delay if data == b"\x1b" else 0.0
        return mark

    async def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            with anyio.fail_after(self.write_timeout):
                async with self._write_lock:
                    while view:
                        try:
                            n = os.write(self._fd, view)
                        except BlockingIOError:
                            await anyio.wait_writable(self._fd)
                            continue
                        view = view[n:]
        except TimeoutError:
            raise WaitTimeout(
                awaited=f"the program to read its input ({len(view)} of {len(data)} bytes "
                "still unread)", timeout=self.write_timeout, snapshot=self.screen,
                silent_for=self.silent_for(), unanswered=self.terminal.unanswered(),
            ) from None
        except OSError as exc:
            raise SessionClosed(f"cannot write to the program: {exc}") from None

    # -- recording ------------------------------------------------------------------------

    def note(self, label: str) -> None:
        if self._recorder is not None:
            self._recorder.event(rec.NOTE, self.now(), self._redactor.text(str(label)))

    def _flush_redacted(self) -> None:
        assert self._recorder is not None
        rest = self._redactor.flush()
        if rest:
            self._recorder.event(rec.OUTPUT, self.now(), rest)

    def _record(self, kind: str, t: float, data: object) -> None:
        recorder = self._recorder
        assert recorder is not None
        redactor = self._redactor
        if kind == "output":
            assert isinstance(data, bytes)
            scrubbed = redactor.feed(data)
            if scrubbed:
                recorder.event(rec.OUTPUT, t, scrubbed)
        elif kind == "input":
            payload, label, hidden = cast("tuple[bytes, str, bool]", data)
            if hidden and self.mask_hidden_input:
                # Typed while the program had echo off: a password prompt.
                recorder.event(rec.INPUT, t, MARKER.encode(), f"input {MARKER} (echo was off)")
            else:
                recorder.event(rec.INPUT, t, redactor.data(payload), redactor.text(label))
        elif kind == "reply":
            recorder.event(rec.REPLY, t, data)
        elif kind == "resize":
            cols, rows = cast("tuple[int, int]", data)
            recorder.event(rec.RESIZE, t, cols, rows)
        elif kind == "exit":
            self._flush_redacted()  # the final screen must be complete before the exit
            recorder.event(rec.EXIT, t, data)

    def _record_wait(self, kind: str, details: dict[str, object]) -> None:
        recorder = self._recorder
        assert recorder is not None
        at = float(details.pop("at"))  # type: ignore[arg-type]
        if kind == "wait-start":
            details["predicate"] = self._redactor.text(str(details["predicate"]))
            since = details.get("since")
            if since is None:
                del details["since"]
            else:
                details["since"] = self._redactor.text(str(since))
            recorder.event(rec.WAIT_START, at, details)
        else:
            # The start event has the description and time; the end refers
            # to it by id.
            del details["predicate"], details["started"]
            recorder.event(rec.WAIT_END, at, details)

    async def resize(self, cols: int, rows: int) -> Mark:
        """Resize the screen and the PTY; the program gets SIGWINCH."""
        if self._proc is None or self._closed:
            raise SessionClosed("the session is closed")
        await anyio.lowlevel.checkpoint_if_cancelled()
        self._feed_slice(None)  # what was read before the resize, at the old size
        self.terminal.resize(cols, rows)
        self._inputs += 1
        mark = Mark(self._inputs, self.terminal.generation, self.now(), f"resize {cols}x{rows}")
        if self.listeners:
            self._emit("resize", (cols, rows))
        try:
            self._proc.setwinsize(rows, cols)
        except OSError as exc:
            log.debug("termsim: resize failed: %s", exc)
        self.engine.notify()
        return mark

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("exited" if self.engine.exited else "running")
        return f"<termsim.Session {self.argv!r} {state}>"


def spawn(
    argv: Command, *, cols: int = 80, rows: int = 24, env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None, cpr: CprPolicy = "answer",
    term: str = "xterm-256color", escape_delay: float = 0.6, write_timeout: float = 10.0,
    record: str | os.PathLike[str] | Literal[False] | None = None,
    redact: Sequence[str | re.Pattern[str]] = (), mask_hidden_input: bool = True,
) -> Session:
    """Start ``argv`` in a pseudo-terminal of ``cols`` x ``rows``.

    Use as ``async with termsim.spawn([...]) as term:``. ``env`` replaces the
    whole environment, as in :mod:`subprocess`; ``TERM`` is ``term`` unless
    ``env`` sets it. ``cpr``: ``"answer"`` (default), ``"ignore"`` (never
    answer cursor position requests, to reproduce CPR starvation), or a delay
    in seconds before each answer. ``record``: write the session to this
    file as it runs (see :class:`termsim.Recording`); under the pytest plugin
    sessions record by default, and ``record=False`` opts out. ``redact``:
    strings and compiled regexes replaced by ``[REDACTED]`` in everything
    written to the recording (the live screen is untouched); input typed
    while the program has echo off (a password prompt) is masked unless
    ``mask_hidden_input=False``.
    """
    if isinstance(argv, (str, os.PathLike)):
        args = [os.fspath(argv)]
    else:
        args = [os.fspath(a) for a in argv]
    if not args:
        raise ValueError("spawn() needs a command")
    return Session(
        args, cols=cols, rows=rows, env=env, cwd=cwd, cpr=cpr, term=term,
        escape_delay=escape_delay, write_timeout=write_timeout, record=record,
        redact=redact, mask_hidden_input=mask_hidden_input,
    )

