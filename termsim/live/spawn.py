"""Starting a program in a new pseudo-terminal, with ``subprocess``'s contract.

A test harness must start programs the way :mod:`subprocess` does, because
that is what its users know:

* every failure between fork and exec (no such program, a ``cwd`` that does
  not exist, no permission, an exec format error) is raised in the parent,
  with the reason, before ``spawn`` returns, and the child never runs a line
  of the parent's code (a child that outlived a failed ``chdir`` once went on
  running the test suite);
* the program is looked up in the ``PATH`` of the environment it is given,
  and started in ``cwd``;
* ``argv`` is a list; a string with spaces is a mistake worth naming.

The child is a session leader whose controlling terminal is the PTY, so job
control, ``/dev/tty``, Ctrl-C and SIGHUP on hangup work as in a real
terminal, and the signals a terminal gives its program have their default
action whatever the test process does with them (``_DEFAULT_SIGNALS``),
with none blocked.

How (``METHOD``):

* ``"posix_spawn"`` (Linux): the C library's ``posix_spawn``, called
  through ctypes: a ``vfork``-like clone that shares the parent's memory
  until the exec, so nothing of a large test process is copied and the
  call takes well under a millisecond, with the interpreter lock released.
  In the child, libc alone runs, in this order: the default signal actions
  and an empty signal mask, ``setsid``, then the file actions: ``chdir``,
  the PTY's slave opened by its path as fd 0 (a session leader without a
  controlling terminal that opens a tty acquires it: that is how the PTY
  becomes its terminal, with the child's group in the foreground), dup'ed
  to 1 and 2, every other fd closed; then the exec. libc reports any
  failure of these steps, the exec's included, as the call's error. The
  ``PATH`` search is done here in the parent, with ``subprocess``'s rules
  (each directory in turn, the first error other than "not found" wins).
* ``"fork"`` (elsewhere, or forced in tests): :class:`subprocess.Popen`
  with ``start_new_session`` and a ``preexec_fn`` that sets the signals and
  does the ``TIOCSCTTY`` ioctl (the only parent code run in the child,
  after subprocess's after-fork hook). It forks the whole process (its
  page tables copied) while holding the interpreter lock.

Either way :func:`start` returns only once the child has exec'ed, and on a
busy machine the child may wait for a CPU first: the session calls it in a
worker thread, so the event loop never waits for a start.

Every process of a session carries ``TERMSIM_SESSION=<token>`` in its
environment, so that teardown finds the daemons it started even after they
forked twice and left its session (``_process.marked``).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..errors import ArgumentError, TermsimError

#: The environment variable every process of a session inherits.
SESSION_VARIABLE = "TERMSIM_SESSION"


class Process:
    """The started program, for code that held a :class:`subprocess.Popen`:
    its pid, and its exit status once the session reaped it. The session
    reaps it (``waitpid``); ``wait``, ``poll`` and the signals are for
    scripts that start programs with :func:`start` alone."""

    def __init__(self, pid: int, popen: subprocess.Popen[bytes] | None = None) -> None:
        self.pid = pid
        self._popen = popen
        self._returncode: int | None = None

    @property
    def returncode(self) -> int | None:
        return self._returncode

    @returncode.setter
    def returncode(self, code: int | None) -> None:
        self._returncode = code
        if self._popen is not None:
            # subprocess must not wait for (or warn about) a child reaped here.
            self._popen.returncode = code

    def poll(self) -> int | None:
        return self._reap(os.WNOHANG)

    def wait(self) -> int:
        code = self._reap(0)
        assert code is not None
        return code

    def _reap(self, flags: int) -> int | None:
        if self._returncode is None:
            try:
                pid, status = os.waitpid(self.pid, flags)
            except ChildProcessError:
                return self._returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self._returncode

    def send_signal(self, sig: int) -> None:
        if self._returncode is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


@dataclass
class Child:
    """A started program: its pid and the PTY's master side (non-blocking)."""

    pid: int
    fd: int
    popen: Process = field(repr=False)


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
#: SIGPIPE and SIGXFSZ, which Python ignores, as ``subprocess`` restores them.
_DEFAULT_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM,
                    signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU, signal.SIGPIPE,
                    signal.SIGXFSZ)


def start(argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None, cols: int,
          rows: int, cell_size: tuple[int, int] = (0, 0)) -> Child:
    """Start ``argv`` in a new PTY; raise :class:`TermsimError` saying why not."""
    args = list(argv)
    master, slave = os.openpty()
    try:
        set_size(slave, cols, rows, cell_size)
        if METHOD == "posix_spawn":
            process = Process(_posix_spawn(args, env, cwd, os.ttyname(slave)))
        else:
            popen = _popen(args, env, cwd, slave)
            process = Process(popen.pid, popen)
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    os.set_blocking(master, False)
    return Child(process.pid, master, process)


def _cannot(argv0: str, why: str) -> TermsimError:
    return TermsimError(f"cannot start {argv0!r}: {why}")


def _cwd_error(argv0: str, cwd: str | None) -> TermsimError | None:
    """What is wrong with ``cwd``, if anything: as subprocess would say it."""
    if cwd is None:
        return None
    if not os.path.exists(cwd):
        return _cannot(argv0, f"the working directory {cwd!r} does not exist")
    if not os.path.isdir(cwd):
        return _cannot(argv0, f"the working directory {cwd!r} is not a directory")
    if not os.access(cwd, os.X_OK):
        return _cannot(argv0, f"permission denied ({cwd})")
    return None


def _exec_error(argv0: str, cwd: str | None, path: str, code: int) -> TermsimError:
    """The reason a start failed with ``code``, the first error that counts
    (``path``: the file it was about)."""
    bad_cwd = _cwd_error(argv0, cwd)
    if bad_cwd is not None:
        return bad_cwd
    if code in (errno.ENOENT, errno.ENOTDIR):
        where = "" if os.sep in argv0 else f" on the PATH it was given ({path})"
        return _cannot(argv0, f"no such program{where}")
    if code == errno.EACCES:
        return _cannot(argv0, f"permission denied ({path})")
    return _cannot(argv0, os.strerror(code))


# -- posix_spawn ---------------------------------------------------------------------------

# The values of glibc's spawn.h (musl's are the same).
_SETSIGDEF = 0x04
_SETSIGMASK = 0x08
_SETSID = 0x80
#: Room for posix_spawnattr_t (336 bytes in glibc), posix_spawn_file_actions_t
#: (80) and sigset_t (128): whatever the libc, larger than needed.
_OPAQUE = 1024


class _Libc:
    """The posix_spawn calls, from the C library already loaded."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self.spawn = libc.posix_spawn
        self.attr_init = libc.posix_spawnattr_init
        self.attr_destroy = libc.posix_spawnattr_destroy
        self.attr_setflags = libc.posix_spawnattr_setflags
        self.attr_setflags.argtypes = (ctypes.c_void_p, ctypes.c_short)
        self.attr_setsigdefault = libc.posix_spawnattr_setsigdefault
        self.attr_setsigmask = libc.posix_spawnattr_setsigmask
        self.actions_init = libc.posix_spawn_file_actions_init
        self.actions_destroy = libc.posix_spawn_file_actions_destroy
        self.add_chdir = libc.posix_spawn_file_actions_addchdir_np
        self.add_open = libc.posix_spawn_file_actions_addopen
        self.add_open.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                                  ctypes.c_int, ctypes.c_uint)
        self.add_dup2 = libc.posix_spawn_file_actions_adddup2
        self.add_close = libc.posix_spawn_file_actions_addclose
        # glibc 2.34; without it, each inheritable fd is closed by name.
        self.add_closefrom = getattr(libc, "posix_spawn_file_actions_addclosefrom_np", None)
        self.sigemptyset = libc.sigemptyset
        self.sigaddset = libc.sigaddset
        # The signals set to their default action, and no signal blocked.
        self.defaults = ctypes.create_string_buffer(_OPAQUE)
        self.empty = ctypes.create_string_buffer(_OPAQUE)
        self.sigemptyset(self.empty)
        self.sigemptyset(self.defaults)
        for sig in _DEFAULT_SIGNALS:
            self.sigaddset(self.defaults, int(sig))


_libc: _Libc | None = None


def _load() -> _Libc | None:
    """The C library's posix_spawn, if this is Linux and it has all that is needed."""
    global _libc
    if _libc is None and sys.platform == "linux":
        try:
            _libc = _Libc()
        except (OSError, AttributeError):
            return None
    return _libc


def _check(code: int, what: str) -> None:
    """A posix_spawn setup call's result (an errno, or 0)."""
    if code:
        raise TermsimError(f"cannot start the program: {what}: {os.strerror(code)}")


def _c_strings(items: Sequence[bytes], what: str) -> ctypes.Array[ctypes.c_char_p]:
    for item in items:
        if b"\0" in item:
            raise ArgumentError(f"spawn(): embedded null byte in {what} {item!r}")
    return (ctypes.c_char_p * (len(items) + 1))(*items, None)


def _candidates(argv0: str, env: Mapping[str, str], cwd: str | None) -> list[str]:
    """Where the program may be, in order (subprocess's rules): the path as
    given, or each directory of the ``PATH`` of ``env``. Those that surely
    are not there are left out here, so no child is started for them."""
    if os.path.dirname(argv0):
        return [argv0]
    found = []
    for directory in os.get_exec_path(dict(env)):
        path = os.path.join(directory, argv0)
        where = path if cwd is None else os.path.join(cwd, path)
        try:
            os.stat(where)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            pass  # let the exec say what it is
        found.append(path)
    return found


def _posix_spawn(argv: list[str], env: Mapping[str, str], cwd: str | None, tty: str) -> int:
    """Start ``argv`` with posix_spawn (see the module's docstring); its pid."""
    libc = _load()
    assert libc is not None
    bad_cwd = _cwd_error(argv[0], cwd)
    if bad_cwd is not None:
        raise bad_cwd
    for name in env:
        if "=" in name or not name:
            raise ArgumentError(f"spawn(): illegal environment variable name {name!r}")
    c_argv = _c_strings([os.fsencode(a) for a in argv], "an argument")
    c_env = _c_strings([os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()],
                       "the environment")
    attr = ctypes.create_string_buffer(_OPAQUE)
    actions = ctypes.create_string_buffer(_OPAQUE)
    _check(libc.attr_init(attr), "posix_spawnattr_init")
    try:
        _check(libc.actions_init(actions), "posix_spawn_file_actions_init")
        try:
            _check(libc.attr_setflags(attr, _SETSIGDEF | _SETSIGMASK | _SETSID),
                   "posix_spawnattr_setflags")
            _check(libc.attr_setsigdefault(attr, libc.defaults), "posix_spawnattr_setsigdefault")
            _check(libc.attr_setsigmask(attr, libc.empty), "posix_spawnattr_setsigmask")
            if cwd is not None:
                _check(libc.add_chdir(actions, os.fsencode(cwd)), "addchdir")
            # After setsid: opening the tty makes it the controlling terminal.
            _check(libc.add_open(actions, 0, os.fsencode(tty), os.O_RDWR, 0), "addopen")
            _check(libc.add_dup2(actions, 0, 1), "adddup2")
            _check(libc.add_dup2(actions, 0, 2), "adddup2")
            _close_the_rest(libc, actions)
            return _spawn_first(libc, argv[0], _candidates(argv[0], env, cwd),
                                env.get("PATH", os.defpath), cwd, attr, actions, c_argv,
                                c_env)
        finally:
            libc.actions_destroy(actions)
    finally:
        libc.attr_destroy(attr)


def _close_the_rest(libc: _Libc, actions: ctypes.Array[ctypes.c_char]) -> None:
    """Every fd above 2 closed in the child (``close_fds``): Python opens its
    own fds close-on-exec, but a library or a test may not."""
    if libc.add_closefrom is not None:
        _check(libc.add_closefrom(actions, 3), "addclosefrom")
        return
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            inheritable = fd > 2 and os.get_inheritable(fd)
        except OSError:
            continue  # the listing's own fd, now closed
        if inheritable:
            _check(libc.add_close(actions, fd), "addclose")


def _spawn_first(
    libc: _Libc, argv0: str, candidates: list[str], where: str, cwd: str | None,
    attr: ctypes.Array[ctypes.c_char], actions: ctypes.Array[ctypes.c_char],
    c_argv: ctypes.Array[ctypes.c_char_p], c_env: ctypes.Array[ctypes.c_char_p],
) -> int:
    """Try each candidate in turn, as execvpe does: the first error other
    than "not there" is the one reported (``where``: the ``PATH`` searched)."""
    first_error: tuple[int, str] | None = None
    for path in candidates:
        pid = ctypes.c_int(0)
        code = libc.spawn(ctypes.byref(pid), os.fsencode(path), actions, attr, c_argv, c_env)
        if code == 0:
            return pid.value
        if code not in (errno.ENOENT, errno.ENOTDIR) and first_error is None:
            first_error = (code, path)
    code, path = first_error or (errno.ENOENT, where)
    raise _exec_error(argv0, cwd, path, code)


# -- fork ----------------------------------------------------------------------------------


def _controlling_terminal() -> None:
    """In the child, after ``setsid``: the signals a terminal's program
    starts with, and stdin, the PTY, becomes its terminal. (Python code in
    a forked child: subprocess has run its after-fork hook, so
    ``signal.signal`` works there; nothing here can fail.)"""
    for sig in _DEFAULT_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _popen(argv: list[str], env: Mapping[str, str], cwd: str | None,
           slave: int) -> subprocess.Popen[bytes]:
    argv0 = argv[0]
    try:
        return subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=dict(env),
            start_new_session=True, preexec_fn=_controlling_terminal, close_fds=True,
        )
    except (FileNotFoundError, NotADirectoryError):
        raise _exec_error(argv0, cwd, env.get("PATH", os.defpath), errno.ENOENT) from None
    except PermissionError as exc:
        raise _exec_error(argv0, cwd, exc.filename or argv0, errno.EACCES) from None
    except OSError as exc:
        raise _exec_error(argv0, cwd, argv0, exc.errno or errno.EINVAL) from None
    except subprocess.SubprocessError as exc:
        raise _cannot(argv0, str(exc)) from None


#: How programs are started: ``"posix_spawn"`` where the C library can
#: (Linux), else ``"fork"`` (see the module's docstring). Tests force "fork".
METHOD: Literal["posix_spawn", "fork"] = "posix_spawn" if _load() is not None else "fork"
