"""Live sessions: the test API over a real program in a pseudo-terminal.

A :class:`Session` composes three parts and adds the rules about input:

* a :class:`~termsim.live.pty.PtySource` (the program, its PTY, reading and
  writing, teardown), which gives its events to the engine through the
  narrow :class:`~termsim.engine.source.Sink` it is built with;
* the shared :class:`~termsim.engine.engine.Engine` over a sans-IO
  :class:`~termsim.emulator.Terminal`, whose :class:`~termsim.engine.source.Source`
  is the session itself (its four methods are the PTY's), as a replay is;
* a :class:`~termsim.recording.recorder.Recorder` (when recording), which is just the
  first listener of the session's event stream.

Everything that happens enters the session's one
:class:`~termsim.engine.stream.EventStream` as an event (the PTY's reads, replies
and tty changes, the session's inputs, resizes and hangup), which records it
and applies it to the engine in that order: what a listener sees, what the
recording holds, what the live engine applied and what a replay applies are
the same values in the same order.

Lifetime: ``async with spawn(...)`` is the session's, and the block's exit
ends it. Without a block, :meth:`Session.start` and :meth:`Session.aclose`
are its two ends and pair like them: called by one task, at one level of
its cancel scopes (``start()`` opens the task group of the session's
reader and watchers in that task, which only ``aclose()`` there can leave).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Literal

import anyio

from ..emulator.parsing.grammar import Scanner
from ..emulator.snapshot.region import Region
from ..emulator.terminal.terminal import Policy, Terminal
from ..emulator.terminals.emulation import Emulation
from ..emulator.terminals.profiles import TERMINAL_VARIABLES, Profile, profile_named
from ..engine.driver import Driver
from ..engine.engine import Engine
from ..engine.redaction import TerminalShadow, typed
from ..engine.settings import recording_path_for
from ..engine.source import Mark
from ..engine.unawaited import verb
from ..errors import ArgumentError, SessionClosed, TermsimError, surface
from ..events import Hangup, How, Input, Resize, Warned, errored
from ..recording.fields import MAX_SIZE
from ..recording.recorder import Recorder
from ..recording.redact import REDACTED, Masking, Redactor
from ..recording.redact_stream import Stream
from .pty import PtySource
from .readtrack import Typed
from .tty import InputNotRead, is_canonical, is_hidden, is_raw, line_input, mangled_in_line_mode

log = logging.getLogger("termsim")

Command = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]


def _policy(cpr: Policy, policy: Mapping[str, Policy] | None) -> dict[str, Policy]:
    """``cpr=`` is shorthand for the policy of both cursor position queries."""
    if isinstance(cpr, str) and cpr not in ("answer", "ignore"):
        raise ValueError(f'cpr must be "answer", "ignore" or a delay in seconds, not {cpr!r}')
    if not isinstance(cpr, str) and not cpr >= 0:
        raise ValueError(f"a CPR delay must be >= 0 seconds, not {cpr!r}")
    out: dict[str, Policy] = {} if cpr == "answer" else {"cpr": cpr, "decxcpr": cpr}
    out.update(policy or {})
    return out


class Session(Driver):
    """A program running in a pseudo-terminal, watched through a virtual screen.

    Create one with :func:`termsim.spawn` and use it as an async context
    manager; leaving the block ends the whole process tree.
    """

    def __init__(
        self, argv: Sequence[str], *, cols: int = 80, rows: int = 24,
        env: Mapping[str, str] | None = None, cwd: str | os.PathLike[str] | None = None,
        cpr: Policy = "answer", policy: Mapping[str, Policy] | None = None,
        term: str | None = None, escape_delay: float = 0.6, write_timeout: float = 10.0,
        record: str | os.PathLike[str] | Literal[False] | None = None,
        redact: Sequence[str | re.Pattern[str]] = (), mask_hidden_input: bool = True,
        timeout: float = 10.0, stall: float | None = None, inotify: bool = True,
        cell_size: tuple[int, int] = (10, 20), emulation: Emulation | None = None,
        hygiene: bool | None = None, profile: str | Profile | None = None,
        ignore: Region | Sequence[Region] | None = None,
    ) -> None:
        super().__init__(timeout=timeout, stall=stall, hygiene=hygiene, ignore=ignore)
        self.argv = list(argv)
        #: The terminal this session answers as (``termsim profiles``).
        self.profile = profile_named(profile or "xterm")
        env_dict = dict(os.environ if env is None else env)
        if profile is not None:
            if env is None:
                # The terminal running the tests (a kitty, a tmux) is not
                # the one this session plays: its variables go.
                for name in TERMINAL_VARIABLES:
                    env_dict.pop(name, None)
            for name, value in self.profile.env.items():
                env_dict.setdefault(name, value)
        term = term or self.profile.term
        if emulation is None and profile is not None:
            emulation = self.profile.emulation
        # COLUMNS and LINES describe the terminal that runs the tests (pytest
        # and xdist set them), not this one: programs that trust them over
        # the PTY (textual, shutil.get_terminal_size) would draw for the
        # wrong width. Kept only when they say this session's size.
        for name, size in (("COLUMNS", cols), ("LINES", rows)):
            if name in env_dict and env_dict[name] != str(size):
                del env_dict[name]
        if env is None or "TERM" not in env:
            env_dict["TERM"] = term
        self.env = env_dict
        # What the test set itself (what differs from the environment it
        # runs in): the recording keeps it, for codegen's spawn.
        self._set_env = {} if env is None else {
            k: v for k, v in env.items() if os.environ.get(k) != v}
        self.cwd = None if cwd is None else os.fspath(cwd)
        #: How long after a lone Escape the next input waits (see ``press``).
        self.escape_delay = escape_delay
        self._terminal = Terminal(cols, rows, policy=_policy(cpr, policy), cell_size=cell_size,
                                 term=self.env.get("TERM", term), emulation=emulation,
                                 profile=self.profile)
        # Composed in one direction each: the engine asks this session (the
        # Source) for time; the PTY hands the engine (a Sink) its events.
        self._engine = Engine(self._terminal, self, self._emit)
        self._pty = PtySource(self.argv, cols=cols, rows=rows, env=self.env, cwd=self.cwd,
                              write_timeout=write_timeout, emit=self._emit, sink=self._engine,
                              inotify=inotify, cell_size=cell_size)
        self._stream = self._pty.stream
        self._record = record
        #: Where this session records (None: it does not); known once started.
        self.record_path = None if not record else os.fspath(record)
        # Secrets are looked for in what the program draws and what is typed,
        # read with the terminal's own grammar (escape sequences passed over).
        self._redactor = Redactor(redact, tokens=Scanner)
        # Everything termsim shows (errors, warnings, logs, marks) is redacted
        # the way the recording is.
        self._engine.scrub = self._redactor.text
        self.mask_hidden_input = mask_hidden_input
        self._recorder: Recorder | None = None
        self._hold_until = 0.0
        self._started = False
        self._closed = False
        #: Whether ``async with`` runs this session (its exit leaves what start() entered).
        self._block = False

    # -- the engine's Source: the PTY's --------------------------------------------------

    def now(self) -> float:
        """Seconds since the program started: the system's monotonic clock,
        except that it holds at a wait's deadline until that wait has looked
        and goes on from there (so a replay decides alike): it may run behind
        the system's clock after a late wait, never ahead."""
        return self._pty.now()

    def catch_up(self) -> None:
        """For the engine (the session is its source): apply the output
        already read, before a wait decides on the screen."""
        self._pty.catch_up()

    async def run_until(self, event: anyio.Event, deadline: float, poll: bool) -> None:
        """For the engine (the session is its source): let the program run
        until ``event`` is set or the session clock reaches ``deadline``."""
        await self._pty.run_until(event, deadline, poll)

    # -- lifecycle -----------------------------------------------------------------

    @surface
    async def __aenter__(self) -> Session:
        self._block = True  # the block's exit leaves what start() enters
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        how: How
        if exc is None:
            how = "closed"
        elif isinstance(exc, anyio.get_cancelled_exc_class()):
            how = "cancelled"
        else:
            how = errored(type(exc).__name__)
        exited = self.exit_status is not None
        await self._teardown(how)
        suppressed = await self._leave(exc_type, exc, tb)
        failure = self._block_failure(exited, exc)
        if failure is not None:
            raise failure
        return suppressed

    def _streams(self) -> dict[str, Masking]:
        """How the recorder finds secrets: the output drawn on a terminal of
        its own like this one, the input read as the keys this session
        sends (none: nothing to redact)."""
        if not self._redactor.patterns:
            return {}
        terminal = self._terminal
        shadow = Terminal(terminal.cols, terminal.rows, term=self.env.get("TERM", ""),
                          emulation=terminal.emulation, profile=self.profile)
        return {"output": Stream(self._redactor, shadow=TerminalShadow(shadow)),
                "input": Stream(self._redactor, whole_writes=True, typed=typed)}

    @surface
    async def start(self) -> None:
        """Start the program. ``async with spawn(...)`` calls this for you;
        without the block, :meth:`aclose` is its other end, in the same task
        and at the same level of its cancel scopes (as a block's two ends)."""
        if self._closed:
            raise SessionClosed(
                "start(): this session is closed (it has run, or its start failed); a "
                "session runs its program once: spawn() a new one to run it again")
        if self._started:
            raise ArgumentError(
                "start(): this session is started already (`async with spawn(...)` starts "
                "it): call start() once, and only for a session used without that block")
        if self._record is None:
            # The default (the pytest plugin's), asked only now: the files of a
            # test's sessions are numbered in the order they start, the order
            # in which a shake hands their replays out again.
            self.record_path = recording_path_for(self.argv)
        try:
            await anyio.lowlevel.checkpoint_if_cancelled()  # cancelled: nothing starts
        except BaseException:
            if self._record is None and self.record_path is not None:
                _remove_empty(self.record_path)
            raise
        self._started = True
        if self.record_path is not None:
            self._recorder = Recorder(
                self.record_path, redactor=self._redactor, argv=self.argv, cwd=self.cwd,
                cols=self._terminal.cols, rows=self._terminal.rows, env=self.env,
                policy=self._terminal.policy, on_failure=self._recording_failed,
                cell_size=self._pty.cell_size, emulation=self._terminal.emulation.to_header(),
                profile=self.profile.name, spawn_env=self._set_env, **self._streams(),
            )
            self.listeners.insert(0, self._recorder)
            self._engine.recording = self.record_path
        try:
            await self._pty.start()
        except TermsimError as exc:
            self._closed = True
            if self._recorder is not None:
                self._recorder(Warned(0.0, str(exc)))
                self._recorder.close(0.0, errored("not started"))
            raise
        except BaseException:
            self._closed = True
            if self._recorder is not None:
                self._recorder.close(0.0, "cancelled while starting")
            raise

    def _recording_failed(self, reason: str) -> None:
        warning = f"{reason}; the file ends here (the test goes on)"
        self.warnings.append(warning)
        log.warning("termsim: %s: %s", self.record_path, warning)

    @surface
    async def aclose(self, how: How = "closed") -> None:
        """End the program and its whole process tree, and release the PTY.

        Safe to call twice and under cancellation (the teardown is shielded).
        ``how`` is written at the end of the recording. Inside ``async with
        spawn(...)``, any task may call it (the block's exit then leaves the
        rest). Without the block it is the other end of :meth:`start`: call
        it in the task that called ``start()``, at the same level of its
        cancel scopes; then nothing of the session is left (no task, fd or
        process). From another task it ends the program and raises
        :class:`~termsim.ArgumentError`, since only that task can leave
        the session's task group.
        """
        await self._teardown(how)
        if not self._block:
            await self._leave(None, None, None)

    async def _leave(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        """Leave the task group :meth:`start` entered (the reader's and the
        watchers', ended by the teardown), in the task that entered it."""
        if not self._pty.entered:
            return None
        if not self._pty.in_owner_task():
            raise ArgumentError(
                "aclose() was called in another task than the one that called start(): the "
                "program has ended, but the session's task group can be left only in the task "
                "that entered it; call aclose() in the task that called start() (or use "
                "`async with spawn(...)`, whose exit does it, and from which any task may "
                "call aclose())")
        try:
            return await self._pty.exit_task_group(exc_type, exc, tb)
        except RuntimeError as error:
            if "cancel scope" not in str(error).lower():
                raise
            # anyio (trio, asyncio) refuses to leave a cancel scope that is
            # not the innermost one: start() and aclose() did not pair.
            raise ArgumentError(
                "aclose() was called at another level of cancel scopes than start(): a "
                "scope entered after start() (a `with anyio.fail_after(...)` around aclose() "
                "alone) or left before aclose() (start() inside a `with` block that ended) "
                "misnests the session's task group; call both at the same level, or use "
                "`async with spawn(...)`") from error

    async def _teardown(self, how: How) -> None:
        """End the program and its whole process tree, release the PTY, and
        close the recording (once)."""
        if self._closed:
            return
        self._closed = True
        if self._pty.proc is None:
            return
        if not self._engine.exited:
            # What follows is the teardown's doing: a replay waits for its own close.
            self._stream.push(Hangup(self._now()))
        try:
            await self._pty.aclose()
        finally:
            if self._recorder is not None:
                self._recorder.close(self._now(), how, self._terminal.unknown)

    @property
    def pid(self) -> int:
        """The program's process id (it leads its own session and process group)."""
        if self._pty.proc is None:
            raise SessionClosed("the session has not started")
        return int(self._pty.proc.pid)

    # -- input ------------------------------------------------------------------------

    async def _send_input(self, data: bytes, label: str, *, keys: bool, secret: bool) -> Mark:
        if self._closed or self._pty.fd < 0:
            raise self._closed_error(label)
        self._pty.raise_deferred()  # a warning the reader found, under -W error
        wait = self._hold_until - self._pty.now()
        if wait > 0:
            await anyio.sleep(wait)  # protocol timing: ESC must stand alone
        flags = self._pty.tty_flags()
        # Raw: the program reads bytes as they come, and termsim can tell when
        # it has read these. Cooked: the line discipline echoes and holds
        # them; a mark then counts from the write (see the README).
        tracked = flags is not None and not is_canonical(flags)
        if is_hidden(flags) and self.mask_hidden_input and not secret:
            # Typed while the program had echo off: a password prompt.
            secret = True
            label = f"input {REDACTED} (echo was off)"
        if keys and is_raw(flags) is False and self._pty.fd >= 0:
            what = mangled_in_line_mode(self._pty.fd, data)
            if what is not None:
                self._warn(
                    f"{label} sent at {self._pty.now():.3f} s while the terminal was in "
                    f"line mode (cooked: the program was not reading keys): {what} is "
                    "echoed by the terminal and read as part of a line, not as a key; "
                    "wait for InputReady() before pressing keys a full-screen program reads"
                )
        # Typed in line mode, the input waits in the kernel: a program that
        # reads lines reads it when it gets there (typing ahead is fine), but
        # one that flushes its input first (going raw with TCSAFLUSH, as
        # tty.setraw does) loses it. The PTY tells which, from the kernel
        # (``readtrack``'s "Input typed too early"), and warns then.
        ahead = self._pty.typed_ahead
        cooked = flags is not None and not tracked
        line = line_input(self._pty.fd, data) if cooked or ahead.held else None
        if line is not None and line.flushes:
            ahead.signal_key()  # Ctrl-C discards what is queued: the test's own doing
        # The program's reads so far, before the drain: a read racing this
        # write counts against a loss (never a false warning).
        watch = cooked and line is not None and line.kept and not line.flushes
        reads = self._pty.reads_seen() if watch else None
        if not watch and self._pty.reads.pending:
            # An earlier input not yet seen read, or read and not yet seen
            # answered: the kernel may know already, and the read watch may
            # not have run yet (this task came first). Ask now, so that its
            # InputRead goes before this input, as it happened: a replay
            # waiting ``since`` that input would otherwise find its answer
            # only after this one.
            self._pty.probe_reads()
        # The mark must cover every byte read so far: apply the backlog
        # first, so "since" means "read after this input was written".
        self._pty.drain()
        self._pty.raise_deferred()
        mark = self._mark(label, tracked=tracked)
        self._stream.enter(Input(mark.at, data, mark.label, secret, tracked))
        typed = Typed(label, mark.at, self._warn, line.line_end) if watch and line else None
        try:
            await self._pty.write(data, mark.index if tracked else None, typed=typed,
                                  reads=reads)
        except InputNotRead as exc:
            raise self._engine.timed_out(
                f"the program to read its input ({exc.unread} of {exc.total} bytes still "
                "unread)", exc.timeout) from None
        self._hold_until = self._pty.now() + self.escape_delay if data == b"\x1b" else 0.0
        return mark


    @verb
    @surface
    async def resize(self, cols: int, rows: int) -> Mark:
        """Resize the screen and the PTY; the program gets SIGWINCH."""
        if self._pty.proc is None or self._closed:
            raise self._closed_error(f"resize {cols}x{rows}")
        if self._recorder is not None and not (1 <= cols <= MAX_SIZE and 1 <= rows <= MAX_SIZE):
            raise ArgumentError(f"resize({cols}, {rows}): a recorded screen is at most "
                                f"{MAX_SIZE}x{MAX_SIZE} (a reader refuses larger ones)")
        await anyio.lowlevel.checkpoint_if_cancelled()
        self._pty.drain()  # what was read before the resize, at the old size
        report = self._stream.enter(Resize(self._now(), cols, rows))
        self._pty.set_size(cols, rows)
        if report:  # after SIGWINCH, as kitty sends it
            self._pty.write_reply(report)
        return self._mark(f"resize {cols}x{rows}")  # the resized screen itself is before it

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("exited" if self._engine.exited else "running")
        return f"<termsim.Session {self.argv!r} {state}>"


def _remove_empty(path: str) -> None:
    """A file allocated for a session that never started."""
    try:
        if os.path.getsize(path) == 0:
            os.remove(path)
    except OSError:
        pass
