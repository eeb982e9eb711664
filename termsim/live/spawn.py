"""Starting a program in a new pseudo-terminal, with ``subprocess``'s contract.

A test harness must start programs the way :mod:`subprocess` does, because
that is what its users know:

* every failure between fork and exec (no such program, a ``cwd`` that does
  not exist, no permission, an exec format error) is raised in the parent,
  with the reason, before ``spawn`` returns, and the child never runs a line
  of the parent's code (a child that outlived a failed ``chdir`` once went on
  running the test suite): :class:`subprocess.Popen` forks and execs in C and
  reports such errors through a pipe;
* the program is looked up in the ``PATH`` of the environment it is given;
* ``argv`` is a list; a string with spaces is a mistake worth naming.

The child is a session leader (``start_new_session``) whose controlling
terminal is the PTY (one ``TIOCSCTTY`` ioctl, and the signals a terminal
gives its program set to their default action: the only code run in the
child before exec), so job control, ``/dev/tty`` and SIGHUP on hangup work as in a
real terminal. :func:`start` blocks until the exec (that is how errors come
back), so the session runs it in a worker thread: the event loop never waits
for a fork.

Every process of a session carries ``TERMSIM_SESSION=<token>`` in its
environment, so that teardown finds the daemons it started even after they
forked twice and left its session (``_process.marked``).
"""

from __future__ import annotations

import fcntl
import os
import signal
import struct
import subprocess
import termios
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import ArgumentError, TermsimError

#: The environment variable every process of a session inherits.
SESSION_VARIABLE = "TERMSIM_SESSION"


@dataclass
class Child:
    """A started program: its pid and the PTY's master side (non-blocking)."""

    pid: int
    fd: int
    popen: subprocess.Popen[bytes]


def check_argv(argv: object) -> list[str]:
    """``argv`` as a list of strings, or a clear error."""
    if isinstance(argv, str | bytes):
        text = os.fsdecode(argv)
        if any(c.isspace() for c in text.strip()):
            raise ArgumentError(
                f"spawn() takes the program and its arguments as a list: "
                f"spawn({text.split()!r}), or spawn(['sh', '-c', {text!r}]) for a shell line")
        return [text]
    if isinstance(argv, os.PathLike):
        return [os.fspath(argv)]
    try:
        args = [os.fspath(a) for a in argv]  # type: ignore[attr-defined]
    except TypeError:
        raise ArgumentError(
            f"spawn() takes a list of arguments, not {type(argv).__name__}") from None
    if not args:
        raise ArgumentError("spawn() needs a command")
    return args


def set_size(fd: int, cols: int, rows: int, cell_size: tuple[int, int] = (0, 0)) -> None:
    """Tell the kernel the terminal's size, in cells and pixels (the program
    gets SIGWINCH)."""
    width, height = cell_size
    fcntl.ioctl(fd, termios.TIOCSWINSZ,
                struct.pack("HHHH", rows, cols, cols * width, rows * height))


#: Signals a terminal gives its program with their default action, whatever
#: the test process ignores (a CI runner or a shell's background job starts
#: it with SIGHUP, SIGINT or SIGQUIT ignored, and an ignored signal stays
#: ignored across exec): with SIGHUP ignored, a program outlives the PTY's
#: hangup when the test process dies, and spins on a terminal that is gone.
_DEFAULT_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM,
                    signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU)


def _controlling_terminal() -> None:
    """In the child, after ``setsid``: the signals a terminal's program
    starts with, and stdin, the PTY, becomes its terminal. (Python code in
    a forked child: subprocess has run its after-fork hook, so
    ``signal.signal`` works there; nothing here can fail.)"""
    for sig in _DEFAULT_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def start(argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None, cols: int,
          rows: int, cell_size: tuple[int, int] = (0, 0)) -> Child:
    """Start ``argv`` in a new PTY; raise :class:`TermsimError` saying why not."""
    master, slave = os.openpty()
    try:
        set_size(slave, cols, rows, cell_size)
        path = env.get("PATH", os.defpath)
        try:
            popen = subprocess.Popen(
                list(argv), stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=dict(env),
                start_new_session=True, preexec_fn=_controlling_terminal, close_fds=True,
            )
        except FileNotFoundError:
            if cwd is not None and not os.path.isdir(cwd):
                raise TermsimError(f"cannot start {argv[0]!r}: the working directory "
                                   f"{cwd!r} does not exist") from None
            where = "" if os.sep in argv[0] else f" on the PATH it was given ({path})"
            raise TermsimError(f"cannot start {argv[0]!r}: no such program{where}") from None
        except NotADirectoryError:
            raise TermsimError(f"cannot start {argv[0]!r}: the working directory {cwd!r} "
                               "is not a directory") from None
        except PermissionError as exc:
            raise TermsimError(f"cannot start {argv[0]!r}: permission denied "
                               f"({exc.filename or argv[0]})") from None
        except OSError as exc:
            raise TermsimError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        except subprocess.SubprocessError as exc:
            raise TermsimError(f"cannot start {argv[0]!r}: {exc}") from None
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    os.set_blocking(master, False)
    return Child(popen.pid, master, popen)
