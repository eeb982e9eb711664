"""The API a test drives, shared by live sessions and replays.

Waiting, typing, pressing and sending read the same in both: only how input
reaches the program (a PTY write, or a check against the recorded input) and
where time comes from differ, and those are the subclass's ``_send_input``
and the engine's source. Everything that happens in a session enters its
:class:`~termsim.engine.stream.EventStream` as a :mod:`termsim.events` value,
which records it (:meth:`Driver._emit`: the recorder, then any listener) and
applies it to the engine in that order.
"""

from __future__ import annotations

import inspect
import os
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Self

import anyio

from ..emulator.input.keys import key_bytes, key_events
from ..emulator.input.mouse import Mouse
from ..emulator.snapshot.region import Region
from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminal.hygiene import Leftover
from ..emulator.terminal.terminal import Query, Terminal
from ..errors import ArgumentError, SessionClosed, TermsimError, surface, warn
from ..events import Event, Note, Warned, stamp
from ..recording.redact import REDACTED
from .activity import Ignore, ignored_regions
from .engine import Engine
from .expect import expect_screen
from .failures import TerminalLeftDirty
from .predicates import PredicateLike
from .screentext import Mask
from .settings import hygiene_checked
from .source import Mark
from .stream import EventStream
from .unawaited import Verbs, verb

#: Called with every event of a session, in order.
Listener = Callable[[Event], None]


class Driver(Verbs, ABC):
    """What :func:`termsim.spawn` and :func:`termsim.replay` give a test.

    Use it as an async context manager; leaving the block closes the
    session (a live one ends its whole process tree).
    """

    _terminal: Terminal
    _engine: Engine
    #: Where every event of the session enters (made by the subclass, over
    #: its engine): :meth:`_emit` records, the engine applies.
    _stream: EventStream

    def __init__(self, *, timeout: float = 10.0, stall: float | None = None,
                 hygiene: bool | None = None, ignore: Ignore | None = None) -> None:
        #: How long a wait waits when it does not say (``wait_for(timeout=)``).
        self.timeout = timeout
        #: Whether the session fails when its program exits leaving modes on
        #: (:meth:`hygiene`); None given: the runner's default
        #: (``--termsim-hygiene``, ``termsim.runner.check_hygiene``).
        self.check_hygiene = hygiene_checked(hygiene)
        #: The session's default ``stall=`` for waits (None: waits never stall).
        self.stall = stall
        #: The session's default ``ignore=``: regions whose changes are not
        #: activity for ``stall=`` (a clock, a spinner).
        self.ignore = ignored_regions(ignore)
        #: Warnings about how the test drove the program (keys sent while the
        #: terminal was cooked, ...), oldest first.
        self.warnings: list[str] = []
        #: Called with every :mod:`termsim.events` value of the session, in
        #: order: output as read, inputs, replies, waits, the exit...
        self.listeners: list[Listener] = []
        self._marks = 0
        self._made = []

    def _emit(self, event: Event) -> None:
        """Record ``event`` (the stream's first half): every listener, in order."""
        for listener in self.listeners:
            listener(event)

    def now(self) -> float:
        """The session's clock: seconds since the program started, live; in a
        replay, virtual seconds into the recording, which move only to a
        recorded event's time or a wait's deadline (after a wait that
        matched, the time the matching output was recorded at). Events'
        ``t``, ``Mark.at`` and timeouts are all on this clock, so a test that
        measures with it measures the same on a replay."""
        return self._engine.source.now()

    def _now(self) -> float:
        return stamp(self.now())

    def _mark(self, label: str, *, tracked: bool = False) -> Mark:
        """The mark of the input (or resize) about to go out. ``tracked``: the
        program's reading of it is watched (it counts from that read, not
        from the write)."""
        self._marks += 1
        mark = Mark(self._marks, self._terminal.generation, self._now(), self._engine.scrub(label))
        self._engine.input_sent(mark, tracked=tracked)
        return mark

    def _warn(self, message: str) -> None:
        message = self._engine.scrub(message)
        self.warnings.append(message)
        self._stream.push(Warned(self._now(), message))
        warn(message)  # last: under -W error it raises

    @abstractmethod
    async def _send_input(self, data: bytes, label: str, *, keys: bool, secret: bool) -> Mark:
        """Deliver one input; return its mark."""

    def _closed_error(self, what: str) -> SessionClosed:
        """Why ``what`` (an input, a resize) cannot go to the program now, and
        what to do instead: the commonest case is a key pressed after the
        ``async with`` block ended."""
        if self._engine.closed:
            return SessionClosed(
                f"cannot send {what}: the session is closed (its `async with` block has "
                "ended, or aclose() was called); send input inside the block")
        status = self._engine.exit_status
        return SessionClosed(
            f"cannot send {what}: the program has exited"
            f"{f' with status {status}' if status is not None else ''}; "
            "`await term.wait_exit()` says when, and the screen what it showed last")

    @abstractmethod
    async def resize(self, cols: int, rows: int) -> Mark:
        """Resize the screen (and the PTY: the program gets SIGWINCH)."""

    @abstractmethod
    async def aclose(self) -> None:
        """Close the session; safe to call twice, and under cancellation."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        exited = self.exit_status is not None
        await self.aclose()
        failure = self._block_failure(exited, exc)
        if failure is not None:
            raise failure
        return None

    def _block_failure(self, exited: bool, exc: BaseException | None) -> TermsimError | None:
        """What fails a block that ended without an error of its own: a verb
        never awaited, else a program that left the terminal dirty. (With an
        error, that error is the story: the forgotten coroutines are closed
        quietly and the terminal is not judged.)"""
        forgotten = self._never_awaited()
        if exc is not None:
            return None
        return forgotten or self._left_dirty(exited)

    def hygiene(self) -> list[Leftover]:
        """What the program left on that a fresh terminal has off: the
        alternate screen, mouse tracking, bracketed paste, a hidden
        cursor... (``termsim/emulator/terminal/hygiene.py`` lists them), each with
        the sequence that undoes it and when it was turned on. Asked after
        the program exited (or was interrupted), an empty list means it left
        the terminal as it found it."""
        return self._terminal.leftovers()

    def _left_dirty(self, exited: bool) -> TerminalLeftDirty | None:
        """The failure of a session that checks hygiene and whose program
        exited by itself (``exited``: before the session closed) leaving
        modes on; None otherwise. A program the session ended had no
        chance to clean up, and is not judged."""
        if not (self.check_hygiene and exited):
            return None
        left = self.hygiene()
        if not left:
            return None
        return TerminalLeftDirty(leftovers=left, status=self.exit_status,
                                 snapshot=self.screen, recording=self._engine.recording)

    def note(self, label: str) -> None:
        """Put a labelled marker in the session (and its recording)."""
        self._stream.push(Note(self._now(), str(label)))

    # -- what the terminal saw -----------------------------------------------------------

    @property
    def queries(self) -> list[Query]:
        """The queries the program sent (CPR, DA, DECRQM...), oldest first,
        each with its reply and status: the most recent 1,000
        (:attr:`query_count` counts them all). A copy: the session's own
        list keeps growing."""
        return list(self._terminal.queries)

    @property
    def query_count(self) -> int:
        """How many queries the program sent in all."""
        return self._terminal.query_count

    def unanswered(self) -> list[Query]:
        """The queries the program is still waiting for an answer to, oldest
        first: a hang that starts here is a program waiting on its terminal."""
        return self._terminal.unanswered()

    @property
    def unknown(self) -> Counter[str]:
        """Sequences termsim did not understand, counted by kind (``"CSI i"``):
        what the program asked of its terminal that termsim ignored."""
        return Counter(self._terminal.unknown)

    @property
    def bytes_read(self) -> int:
        """How many bytes of output the terminal has read from the program."""
        return self._terminal.bytes_fed

    # -- waiting --------------------------------------------------------------------------

    @property
    def screen(self) -> Snapshot:
        """The screen now."""
        return self._engine.snapshot()

    @verb
    @surface
    async def wait_for(
        self, predicate: PredicateLike, *, timeout: float | None = None,
        since: Mark | None = None, stall: float | None = None, ignore: Ignore | None = None,
    ) -> Snapshot:
        """Wait until a settled screen matches; return the snapshot that matched,
        carrying what it found: ``screen.match`` (a ``Regex``'s groups, and
        where they are), ``screen.matched`` (which side of ``a | b`` held).

        ``since=mark`` counts only screens the program drew after it read the
        input that returned ``mark`` (see the README: "Waits that cannot be
        fooled"). ``timeout`` defaults to the session's. ``stall=seconds``
        (default: the session's) gives up early, with :class:`Stalled`, once
        the program has sat reading keys, printing nothing, that long.
        ``ignore=`` (default: the session's): regions where it keeps drawing
        while idle (a clock, a spinner), whose changes do not count as
        activity for ``stall=``: ``stall=3, ignore=Region.row(-1)``.
        Raises :class:`WaitTimeout` (showing the screen), or
        :class:`ProcessExited` at once if the program exits first.
        """
        __tracebackhide__ = True
        return await self._engine.wait_for(
            predicate, timeout=self.timeout if timeout is None else timeout,
            since=checked_since(since),
            stall=self.stall if stall is None else stall,
            ignore=self.ignore if ignore is None else ignored_regions(ignore),
        )

    @verb
    @surface
    async def expect_screen(
        self, expected: str | None = None, *, golden: str | os.PathLike[str] | None = None,
        since: Mark | None = None, timeout: float | None = None, region: Region | None = None,
        mask: Mask | Sequence[Mask] = (), styles: bool | None = None,
        cursor: bool | None = None, stall: float | None = None, ignore: Ignore | None = None,
    ) -> Snapshot:
        """Wait until the screen looks like ``expected``, or like the golden
        file ``golden`` (a name, kept next to the test by the pytest plugin,
        or a path); return the snapshot that matched.

        The assertion is the wait (no separate wait, no race), on settled
        screens drawn after ``since``. ``region``: compare only that part.
        ``mask``: regions or regexes whose cells are written ``░`` (a clock,
        a timing, a temp path). ``styles``: compare colours and attributes
        too (default: if the expectation has them). ``cursor``: compare
        where the cursor is (default: if the expectation says).
        ``stall`` and ``ignore`` (default: the session's): give up early, as
        ``wait_for`` does, once the program sits idle; the ``ignore=``
        regions (a clock, a spinner) are masked in the comparison too.
        Raises :class:`ScreenMismatch` with both screens side by side, or
        :class:`GoldenMissing`; ``pytest --termsim-update`` writes goldens.
        """
        __tracebackhide__ = True
        return await expect_screen(self._engine, expected, golden=golden,
                                   since=checked_since(since),
                                   timeout=self.timeout if timeout is None else timeout,
                                   stall=self.stall if stall is None else stall, region=region,
                                   mask=mask, styles=styles, cursor=cursor,
                                   ignore=self.ignore if ignore is None
                                   else ignored_regions(ignore))

    @verb
    @surface
    async def wait_exit(self, timeout: float | None = None) -> int | None:
        """Wait for the program to exit; its status, negative for a signal
        (``None`` when the status could not be known)."""
        __tracebackhide__ = True
        return await self._engine.wait_exit(timeout=self.timeout if timeout is None else timeout)

    def transcript(self, since: Mark | None = None) -> str:
        """The text drawn after ``since`` was written (everything without it),
        in reading order: the rows that scrolled off the top (the last 1,000),
        then the screen, with no escape sequences. For a reply longer than
        the screen. In a wait, ``Region.transcript()`` reads the same text."""
        return self._engine.transcript(checked_since(since))

    def input_ready(self) -> bool | None:
        """Whether the program reads keys in raw mode (None: unknown), as the
        session last saw its tty: a live one looks after each read of output,
        before each input, and while a wait on it is pending; a replay, as
        recorded. :class:`~termsim.InputReady` waits for it."""
        return self._engine.tty_raw

    def silent_for(self) -> float | None:
        """Seconds since the program last printed (None: it never did)."""
        return self._engine.silent_for()

    @property
    def exit_status(self) -> int | None:
        """The program's exit status once it exited (negative for a signal), else None."""
        return self._engine.exit_status

    # -- input ------------------------------------------------------------------------------

    @verb
    @surface
    async def type(self, text: str, *, secret: bool = False) -> Mark:
        """Type text, in one write. A trailing newline is Enter, pressed after
        the text, so ``type("ls\n")`` runs ``ls``. Other newlines: when the
        program enabled bracketed paste (mode 2004), the text goes as one
        paste and they stay newlines in it (a multi-line paste is not run
        line by line); otherwise each is an Enter. ``secret=True``: the text
        never appears in errors, logs or recordings."""
        text = text.replace("\r\n", "\n")
        body, enter = (text[:-1], True) if text.endswith("\n") else (text, False)
        if self._terminal.modes.bracketed_paste and "\n" in body:
            data = b"\x1b[200~" + body.encode() + b"\x1b[201~"
            how = "pasted"
        else:
            data = body.replace("\n", "\r").encode()
            how = "typed"
        if enter:
            data += b"\r"
        shown = REDACTED if secret else _short(body)
        label = f"{how} {shown}" + (" + enter" if enter else "")
        return await self._send_input(data, label, keys=True, secret=secret)

    @verb
    @surface
    async def press(self, *keys: str, event: str | None = None) -> Mark:
        """Press keys by name (``"enter"``, ``"ctrl+d"``, ``"down"``...), each in
        one write. After Escape the next key waits ``escape_delay`` so the
        program reads two keys, not Alt+key (prompt_toolkit waits 0.5 s).

        Keys are encoded as the program asked at the moment of sending:
        application cursor keys, the kitty keyboard protocol's flags (where
        it asked for event types, each key is a press then a release, in
        the same write), xterm's modifyOtherKeys; with none of them, as the
        profile's terminal sends keys (kitty's legacy encoding under the
        kitty profile). ``event="press"``,
        ``"repeat"`` or ``"release"`` sends only that event (a release the
        program did not ask for sends nothing)."""
        if not keys:
            raise ArgumentError("press() needs at least one key")
        modes = self._terminal.modes
        cursor, flags, other = (modes.application_cursor, modes.kitty_keyboard,
                                modes.modify_other_keys)
        legacy = self._terminal.emulation.keys == "kitty"
        encoded = [
            b"".join(key_events(k, application_cursor=cursor, kitty_flags=flags,
                                modify_other_keys=other, kitty_legacy=legacy)) if event is None
            else key_bytes(k, application_cursor=cursor, kitty_flags=flags,
                           modify_other_keys=other, event=event, kitty_legacy=legacy)
            for k in keys]
        mark: Mark | None = None
        suffix = "" if event is None else f" ({event})"
        for name, data in zip(keys, encoded, strict=True):
            mark = await self._send_input(data, f"key {name}{suffix}", keys=True, secret=False)
        assert mark is not None
        return mark

    @verb
    @surface
    async def click(self, row: int, col: int, button: str = "left", *,
                    modifiers: Sequence[str] = (), count: int = 1) -> Mark:
        """Click a cell (0-based, like every row and column in termsim): a
        press and a release, encoded in the mouse mode and encoding the
        program enabled. ``count=2`` double-clicks; ``modifiers``: any of
        ``"shift"``, ``"alt"``, ``"ctrl"``. Raises :class:`MouseOff` when
        the program enabled no mouse reporting."""
        data = self._mouse().click(row, col, button, modifiers, count)
        times = f" x{count}" if count > 1 else ""
        return await self._send_input(data, f"click {button}{times} at row {row}, col {col}",
                                      keys=True, secret=False)

    @verb
    @surface
    async def scroll(self, row: int, col: int, lines: int, *,
                     modifiers: Sequence[str] = ()) -> Mark:
        """Turn the wheel over a cell: ``lines`` > 0 scrolls down, < 0 up,
        one wheel report per line."""
        data = self._mouse().scroll(row, col, lines, modifiers)
        way = "down" if lines > 0 else "up"
        return await self._send_input(data, f"scroll {way} {abs(lines)} at row {row}, col {col}",
                                      keys=True, secret=False)

    @verb
    @surface
    async def drag(self, start: tuple[int, int], end: tuple[int, int], button: str = "left", *,
                   modifiers: Sequence[str] = ()) -> Mark:
        """Press at ``start`` (row, col), move to ``end`` cell by cell (the
        moves are reported when the program asked for motion, ``?1002h``
        or ``?1003h``), release there."""
        data = self._mouse().drag(start, end, button, modifiers)
        return await self._send_input(data, f"drag {button} from {start} to {end}", keys=True,
                                      secret=False)

    def _mouse(self) -> Mouse:
        terminal = self._terminal
        return Mouse(terminal.modes, terminal.cols, terminal.rows, terminal.cell_size)

    @verb
    @surface
    async def send(self, data: bytes, *, secret: bool = False) -> Mark:
        """Send raw bytes, exactly as given."""
        if not isinstance(data, bytes | bytearray | memoryview):
            hint = (f"type({_short(data)}) types text as keys, or send it encoded: "
                    f"send({_short(data)}.encode())" if isinstance(data, str) else
                    "give the bytes to write")
            raise ArgumentError(f"send() takes bytes, not {type(data).__name__}: {hint}")
        label = f"bytes {REDACTED}" if secret else f"bytes {_short(data)}"
        return await self._send_input(bytes(data), label, keys=False, secret=secret)


def require_event_loop(call: str) -> None:
    """A live session lives on an event loop from its construction:
    ``spawn`` called from plain code says how to call it, where anyio would
    raise its ``NoEventLoopError`` from deep inside. (A replay may be made
    first and entered in a loop later.)"""
    try:
        anyio.get_current_task()
    except RuntimeError:
        raise ArgumentError(
            f"termsim.{call}() needs a running event loop: use `async with termsim.{call}(...) "
            "as term:` in an async test (marked `pytest.mark.anyio`) or in a coroutine run "
            "by anyio.run() or asyncio.run()") from None


def checked_since(since: object) -> Mark | None:
    """``since=`` as a wait takes it: a :class:`Mark` or None. The common
    slip (``mark = term.press("enter")`` without ``await``) gives a
    coroutine, and says so, instead of failing deep in the engine."""
    if since is None or isinstance(since, Mark):
        return since
    if inspect.iscoroutine(since):
        since.close()  # it will never run: no "never awaited" warning on top
        raise ArgumentError(
            "since= got a coroutine, not a Mark: the input was never sent, because the call "
            "that makes the mark was not awaited (write `mark = await term.press(...)`)")
    raise ArgumentError(f"since= takes the Mark that type(), press(), send() or "
                        f"resize() returned, not {type(since).__name__}: {since!r}")


def _short(value: str | bytes, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"
