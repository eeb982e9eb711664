"""The program's terminal as the kernel keeps it: its modes, and input it leaves unread.

Whether the program reads keys raw, cooked or with echo off decides what a
session may type and when a screen answers an input; the session asks
these questions before it writes, the PTY source while it reads, and both
meet :class:`InputNotRead` when the program reads nothing. They are plain
functions of a file descriptor's termios, kept apart from the source's
tasks so they can be read (and tested) without an event loop.
"""

from __future__ import annotations

import termios
from collections.abc import Sequence
from dataclasses import dataclass


def lflag(fd: int) -> int | None:
    """The tty's local modes (ICANON, ECHO...); on Linux the master's termios
    are the slave's, which the program sets. None if they cannot be read."""
    try:
        return int(termios.tcgetattr(fd)[3])
    except (termios.error, OSError):
        return None


def is_raw(flags: int | None) -> bool | None:
    """Raw: ICANON and ECHO off, as prompt_toolkit and readline set it."""
    if flags is None:
        return None
    return not (flags & termios.ICANON) and not (flags & termios.ECHO)


def is_hidden(flags: int | None) -> bool:
    """Cooked with echo off: a password prompt (getpass, sudo, ssh).

    prompt_toolkit's raw mode also turns echo off, but turns ICANON off too,
    so its keys are not mistaken for a password.
    """
    return flags is not None and bool(flags & termios.ICANON) and not flags & termios.ECHO


def is_canonical(flags: int | None) -> bool:
    """Cooked: the line discipline holds input until a whole line is typed."""
    return flags is not None and bool(flags & termios.ICANON)


#: The characters a line discipline gives a meaning to (erase, kill the line,
#: interrupt, end of file...), read from the tty since a program may change them.
LINE_KEYS = ("VINTR", "VQUIT", "VERASE", "VKILL", "VEOF", "VSUSP", "VWERASE", "VREPRINT",
             "VLNEXT")


def mangled_in_line_mode(fd: int, data: bytes) -> str | None:
    """What in ``data`` a cooked tty would mangle, or None if nothing.

    Line-mode input is normal (``input()``, ``read``, a y/n confirm, Ctrl-C
    meant as SIGINT); keys that only a program in raw mode understands are
    not: an Escape sequence (an arrow, a function key) is echoed as ``^[[A``
    and read as part of a line, other control keys likewise.
    """
    try:
        cc = termios.tcgetattr(fd)[6]
    except (termios.error, OSError):
        return None
    meaningful = {b"\r"[0], b"\n"[0], b"\t"[0], 0x08, 0x7F}
    for name in LINE_KEYS:
        index = getattr(termios, name, None)
        if index is not None and index < len(cc):
            value = cc[index]
            meaningful.add(value[0] if isinstance(value, bytes) and value else int(value or 0))
    for byte in data:
        if byte == 0x1B:
            return "an Escape sequence"
        if byte < 0x20 and byte not in meaningful:
            return f"the control key ^{chr(byte + 0x40)}"
    return None


#: ``c_cc`` value that turns a special character off.
_DISABLED = 0

#: The keys that raise a signal (with ISIG) and, unless NOFLSH, discard the
#: input queue: the test's own doing, not the program's.
_SIGNAL_KEYS = ("VINTR", "VQUIT", "VSUSP")


def _chars(cc: list[bytes | int], names: Sequence[str]) -> set[int]:
    """The byte values of the special characters ``names`` (those turned off left out)."""
    out = set()
    for name in names:
        index = getattr(termios, name, None)
        if index is None or index >= len(cc):
            continue
        value = cc[index]
        byte = value[0] if isinstance(value, bytes) and value else int(value or 0)
        if byte != _DISABLED:
            out.add(byte)
    return out


@dataclass(frozen=True, slots=True)
class LineInput:
    """What the line discipline does with bytes written to it now.

    Typed while the tty is cooked, input waits in the kernel until the
    program reads it; if the program discards its unread input first (it
    switches to raw mode with ``TCSAFLUSH``, as ``tty.setraw`` does, or
    calls ``tcflush``) the input is lost. Telling that from the kernel's
    answers needs to know what a cooked queue would show of these bytes
    (``readtrack``'s ``TypedAhead``)."""

    #: A byte of it stays in the queue for the program (not only keys the
    #: line discipline acts on itself: erase, kill, Ctrl-S...).
    kept: bool
    #: It ends a line: a cooked queue shows it (``FIONREAD`` counts whole lines).
    line_end: bool
    #: It holds a key that raises a signal and so discards the queue (Ctrl-C
    #: with ISIG on and NOFLSH off): what was typed before is lost by the
    #: test's own key.
    flushes: bool


def line_input(fd: int, data: bytes) -> LineInput | None:
    """:class:`LineInput` for ``data`` under the tty's settings now; None if unreadable."""
    try:
        iflag, _, _, lflags, _, _, cc = termios.tcgetattr(fd)
    except (termios.error, OSError):
        return None
    signals = _chars(cc, _SIGNAL_KEYS) if lflags & termios.ISIG else set()
    acted_on = _chars(cc, (*LINE_KEYS, "VSTART", "VSTOP", "VDISCARD")) | signals
    ends = {0x0A} | _chars(cc, ("VEOF", "VEOL", "VEOL2"))
    if iflag & termios.ICRNL and not iflag & termios.IGNCR:
        ends.add(0x0D)
    flushes = bool(signals) and not lflags & termios.NOFLSH and any(b in signals for b in data)
    return LineInput(kept=any(b not in acted_on for b in data),
                     line_end=any(b in ends for b in data), flushes=flushes)


def typed_too_early(typed: Sequence[tuple[str, float]], at: float, flags: int | None) -> str:
    """Why input typed in line mode was lost, and what to do instead.

    ``typed``: the inputs' labels and the times they were sent; ``at``: when
    the program's flush was seen; ``flags``: the tty's local modes then,
    which say what the program did (and so the fix)."""
    shown = [f"{label} (sent at {t:.3f} s)" for label, t in typed[:3]]
    if len(typed) > 4:
        shown.append(f"{len(typed) - 3} more inputs (the last sent at {typed[-1][1]:.3f} s)")
    elif len(typed) == 4:
        shown.append(f"{typed[3][0]} (sent at {typed[3][1]:.3f} s)")
    what = " and ".join(shown)
    were = "was" if len(typed) == 1 else "were"
    head = (f"{what}, sent while the terminal was in line mode (cooked), {were} discarded "
            f"unread at {at:.3f} s: the program")
    if is_raw(flags):
        return (f"{head} switched the terminal to raw mode and flushed its input (tcsetattr "
                "TCSAFLUSH, as tty.setraw does); wait for InputReady() (the program reads "
                "keys raw) before typing to a full-screen program")
    if not is_canonical(flags):
        return (f"{head} left line mode and flushed its input (tcsetattr TCSAFLUSH, as "
                "tty.setcbreak does); wait for its first screen before typing")
    return (f"{head} flushed its input (tcflush, or tcsetattr TCSAFLUSH as getpass does "
            "when it turns echo off); wait for its prompt (`await term.wait_for(...)`) "
            "before typing")


class InputNotRead(TimeoutError):
    """A write did not finish within ``write_timeout``: the program does not
    read its input. The session turns it into the engine's
    :class:`~termsim.WaitTimeout`, which shows the screen."""

    def __init__(self, unread: int, total: int, timeout: float) -> None:
        super().__init__(f"{unread} of {total} bytes still unread after {timeout:g} s")
        self.unread = unread
        self.total = total
        self.timeout = timeout
