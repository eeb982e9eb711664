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


class InputNotRead(TimeoutError):
    """A write did not finish within ``write_timeout``: the program does not
    read its input. The session turns it into the engine's
    :class:`~termsim.WaitTimeout`, which shows the screen."""

    def __init__(self, unread: int, total: int, timeout: float) -> None:
        super().__init__(f"{unread} of {total} bytes still unread after {timeout:g} s")
        self.unread = unread
        self.total = total
        self.timeout = timeout
