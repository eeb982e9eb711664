"""``termsim record``: a person at a real terminal, a program, a recording.

Like ``script(1)``: the user's terminal is put in raw mode, their keys go to
the program, the program's output goes to their screen, and everything is
recorded. The user's own terminal answers the program's queries (its answers
arrive as keystrokes and are recorded as input), so termsim's virtual
terminal stays silent here, and the header records that policy. The user's
terminal modes are restored however the session ends.

With stdin not a terminal (``< file``, ``< /dev/null``, a pipe, CI) the
program is recorded without a keyboard: what stdin holds is typed into it,
then an end of input (Ctrl-D), as ``script(1)`` does. A file or a device
cannot be waited on (epoll refuses them) and never blocks a read, so it is
read directly; a pipe is waited on.
"""

from __future__ import annotations

import math
import os
import signal
import stat
import sys
import termios
import tty

import anyio

from ..emulator.terminal.terminal import QUERY_KINDS
from ..engine.cursor_predicates import InputReady
from ..engine.failures import ProcessExited
from ..engine.predicates import Quiet
from ..errors import SessionClosed
from ..events import Event, Output
from .session import Session
from .spawning import spawn

#: What a terminal's line discipline takes for the end of input (VEOF).
EOF_KEY = b"\x04"


def _stdin() -> int | None:
    """Our stdin's descriptor, None if it is closed."""
    try:
        fd = sys.stdin.fileno()
        os.fstat(fd)
    except (AttributeError, ValueError, OSError):
        return None
    return fd


def _pollable(fd: int) -> bool:
    """Whether ``fd`` can be waited on (a pipe, a socket, a terminal): a
    regular file or a device other than a terminal cannot, and a read of
    one does not block."""
    mode = os.fstat(fd).st_mode
    return os.isatty(fd) or not (stat.S_ISREG(mode) or stat.S_ISCHR(mode)
                                 or stat.S_ISBLK(mode))


async def _settled(session: Session) -> None:
    """Until the program is quiet: taking keys in raw mode, or cooked and
    silent a little longer (there is no person to keep waiting). A wait of
    the session's own, so the clock and the tty's mode decide, not a loop."""
    try:
        await session.wait_for((InputReady() & Quiet(0.1)) | Quiet(0.5), timeout=math.inf)
    except ProcessExited:
        pass  # it ended on its own: nothing more to say to it


#: The key that opens the marks menu while recording (``--mark-key``).
MARK_KEY = b"\x1d"  # Ctrl-]
#: The notes a mark leaves in the recording, which ``termsim codegen`` reads.
MARK_SCREEN, MARK_ROW, MARK_COMMENT = "termsim: assert the screen", "termsim: assert the row", \
    "termsim: comment "


class _Menu:
    """The marks menu: the mark key (which the program never sees) shows a
    one-line menu on the bottom row of the person's terminal; the next key
    leaves a note in the recording (``s`` assert the screen here, ``r``
    assert the cursor's row, ``c`` a comment typed up to Enter, anything else
    nothing), and the row the menu covered is drawn again from termsim's
    screen (its text; the program restores its colours when it next draws
    it)."""

    def __init__(self, session: Session, stdout: int, key: bytes) -> None:
        self.session = session
        self.stdout = stdout
        self.key = key
        #: None: not in the menu; "": waiting for the choice; "c": typing a comment.
        self.state: str | None = None
        self.comment = b""

    def take(self, data: bytes) -> bytes:
        """What of ``data`` goes to the program (the rest is the menu's)."""
        out = bytearray()
        for byte in data:
            char = bytes([byte])
            if self.state is None:
                if char == self.key:
                    self.state = ""
                    self._show("termsim mark: s screen · r this row · c comment · "
                               "other key: cancel")
                else:
                    out += char
            elif self.state == "":
                if char in b"sS":
                    self._done(MARK_SCREEN)
                elif char in b"rR":
                    self._done(MARK_ROW)
                elif char in b"cC":
                    self.state, self.comment = "c", b""
                    self._show("termsim comment (Enter ends): ")
                else:
                    self._done(None)
            elif char in b"\r\n":
                self._done(MARK_COMMENT + self.comment.decode("utf-8", "replace"))
            elif char in b"\x7f\x08":
                self.comment = self.comment.decode("utf-8", "replace")[:-1].encode()
                self._show("termsim comment (Enter ends): " + self._typed())
            elif char == b"\x1b":
                self._done(None)
            elif byte >= 0x20:
                self.comment += char
                self._show("termsim comment (Enter ends): " + self._typed())
        return bytes(out)

    def _typed(self) -> str:
        return self.comment.decode("utf-8", "ignore")

    def _show(self, text: str) -> None:
        # Cut to the width, autowrap off: the menu must not scroll the screen.
        terminal = self.session._terminal
        text = text[-(terminal.cols - 1):]
        os.write(self.stdout, f"\x1b7\x1b[?7l\x1b[{terminal.rows};1H\x1b[2K\x1b[7m{text}"
                              f"\x1b[0m\x1b[?7h\x1b8".encode())

    def _done(self, note: str | None) -> None:
        self.state = None
        if note is not None:
            self.session.note(note)
        snap = self.session.screen
        os.write(self.stdout, f"\x1b7\x1b[{snap.rows};1H\x1b[2K".encode()
                 + snap.lines[-1].rstrip().encode() + b"\x1b8")


async def record_interactively(cmd: list[str], output: str, cols: int, rows: int,
                               mark_key: bytes | None = MARK_KEY) -> int | None:
    stdin = _stdin()
    stdout = sys.stdout.fileno()
    #: Our stdin when a person types at it (a terminal), else None.
    keyboard = stdin if stdin is not None and os.isatty(stdin) else None
    saved = termios.tcgetattr(keyboard) if keyboard is not None else None
    # The user's terminal answers queries; two answers would confuse the program.
    session = spawn(cmd, cols=cols, rows=rows, record=output,
                    policy=dict.fromkeys(QUERY_KINDS, "ignore"))

    def show(event: Event) -> None:
        if isinstance(event, Output):
            os.write(stdout, event.data)

    session.listeners.append(show)

    menu = _Menu(session, stdout, mark_key) if keyboard is not None and mark_key else None

    async def pump_keys() -> None:
        if stdin is not None:
            pollable = _pollable(stdin)
            while True:
                if pollable:
                    await anyio.wait_readable(stdin)
                data = os.read(stdin, 1 << 16)
                if not data:
                    break
                if menu is not None:
                    data = menu.take(data)
                if data:
                    await session.send(data)
        if keyboard is None:
            # No person at a keyboard will ever type more: say so to the
            # program, as script(1) does, so that a shell or a REPL ends;
            # once it has taken what came before (a cooked-mode end of input
            # is lost when a line editor then switches to raw mode).
            await _settled(session)
            try:
                await session.send(EOF_KEY)
            except SessionClosed:
                pass  # it ended between the two: nothing more to say to it
        # At the end of a keyboard's input, the program decides what happens.

    async def follow_resizes() -> None:
        with anyio.open_signal_receiver(signal.SIGWINCH) as signals:
            async for _ in signals:
                size = os.get_terminal_size(stdout)
                await session.resize(size.columns, size.lines)

    try:
        async with session:
            if keyboard is not None:
                tty.setraw(keyboard)
            async with anyio.create_task_group() as tg:
                tg.start_soon(pump_keys)
                if keyboard is not None:
                    tg.start_soon(follow_resizes)
                status = await session.wait_exit(timeout=math.inf)
                tg.cancel_scope.cancel()
    finally:
        if keyboard is not None and saved is not None:
            termios.tcsetattr(keyboard, termios.TCSADRAIN, saved)
    return status
