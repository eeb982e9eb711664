"""termsim's exceptions.

::

    TermsimError
    ├── WaitTimeout        (also a TimeoutError) the screen never matched in time
    │   ├── Stalled        ... and the program sat waiting for keys, so it never would
    │   ├── ScreenMismatch expect_screen(): the screen never looked like the expectation
    │   └── RecordingEnded a replayed wait outlasted its recording
    ├── GoldenMissing      expect_screen(golden=...) has no file yet (--termsim-update)
    ├── ProcessExited      the program exited while a wait was pending
    ├── TerminalLeftDirty  (also an AssertionError) the program exited leaving modes
    │                      on (the alternate screen, mouse tracking...): hygiene=
    ├── MouseOff           a click, but the program has not asked for mouse reports
    ├── SessionClosed      the test closed the session (or it was never opened)
    ├── RecordingError     a recording file is not one, or is damaged
    ├── ReplayDivergence   a replayed test sent input the recording does not have
    ├── ShakeFailure       a test that passed live fails on a variant of its recordings
    └── ArgumentError      a call that cannot work as written (also a ValueError
        │                  and a TypeError): a region outside the screen...
        └── UnknownKey     a key name termsim does not know

    TermsimWarning         (a UserWarning) the test drove the program in a way
                           that likely lost or mangled its input

The three ways a wait can end badly are siblings on purpose: *the screen never
matched* (``WaitTimeout``), *the program went away* (``ProcessExited``) and *you
closed it* (``SessionClosed``) call for different fixes. Each carries the data
an error report needs (``.predicate``, ``.snapshot``, ``.silent_for``...) so
the pytest plugin and the CLI render them without parsing strings.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")



class TermsimError(Exception):
    """Base class of every termsim error."""


class TermsimWarning(UserWarning):
    """The test drove the program in a way that likely lost or mangled its
    input (keys only a raw-mode program understands, sent in line mode...).
    A Python warning, so pytest shows it with the test that caused it; the
    session keeps them too (``term.warnings``) and its recording has them."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def warn(message: str) -> None:
    """Warn, pointing at the first caller outside termsim (the test's line)."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE + os.sep):
        level += 1
        frame = frame.f_back  # type: ignore[assignment]
    warnings.warn(message, TermsimWarning, stacklevel=level)


#: Turns a text into what may be shown: the session's redaction (``redact=``).
Scrub = Callable[[str], str]


def same(text: str) -> str:
    return text


def indent(text: str, prefix: str = "  ") -> str:
    # split("\n"), not splitlines(): a U+2028 a program drew is in a row, not between two.
    return "\n".join(prefix + line if line else line for line in text.split("\n"))


def shown_path(path: str) -> str:
    """A path as a person would type it here: relative below the current directory."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if relative.startswith("..") else relative


def describe_status(status: int | None) -> str:
    if status is None:
        return "unknown status"
    if status < 0:
        import signal

        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"killed by {name}"
    return f"exit status {status}"


class GoldenMissing(TermsimError):
    """``expect_screen(golden=...)`` found no golden file. ``screen`` is what
    ``--termsim-update`` (or ``TERMSIM_UPDATE=1``) would write there."""

    def __init__(self, path: str, screen: str) -> None:
        self.path = path
        self.screen = screen
        super().__init__(
            f"no golden screen at {shown_path(path)}: run with --termsim-update (pytest) or "
            f"TERMSIM_UPDATE=1 to write it; the screen now, as it would be written:\n"
            + indent(screen.rstrip("\n")))


class SessionClosed(TermsimError):
    """The session was closed (by the test) and cannot be used any more."""


class RecordingError(TermsimError):
    """A file is not a termsim recording, or is damaged; says where and why."""

    def __init__(self, message: str, *, path: str | None = None, offset: int | None = None) -> None:
        self.path = path
        self.offset = offset
        where = []
        if path:
            where.append(str(path))
        if offset is not None:
            where.append(f"byte {offset}")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)


class ReplayDivergence(TermsimError):
    """The test sent input the recording does not have at that point."""


class ShakeFailure(TermsimError):
    """A test passed live, but fails on a variant of its recorded sessions that
    could physically have happened: a race, found before CI finds it."""

    def __init__(self, message: str, *, variants: Sequence[object],
                 error: BaseException) -> None:
        #: The smallest failing variant, one ``Perturbation`` per recorded
        #: session, in the order the test started them.
        self.variants = list(variants)
        #: What the test raised on that variant.
        self.error = error
        super().__init__(message)


class ArgumentError(TermsimError, ValueError, TypeError):
    """A call that cannot work as written: a wait on a region outside the
    screen, a negative timeout, a mark of another session... A ValueError
    (and a TypeError, for the wrong kind of argument), so the usual
    ``except`` clauses catch it."""


class UnknownKey(ArgumentError):
    """A key name termsim does not know."""


#: What the public API raises at the caller's line (see :func:`surface`).
_SURFACED = (TermsimError,)


def surface(fn: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """Raise termsim's errors from the public method the test called.

    A failed wait is about the test's line, not termsim's insides: the error
    is re-raised with its traceback cut at this frame (which pytest hides),
    so a report shows the test's line and the message, not ~45 lines of
    engine source. Other exceptions (termsim's own bugs) keep theirs.
    """

    @functools.wraps(fn)
    async def public(*args: P.args, **kwargs: P.kwargs) -> R:
        __tracebackhide__ = True
        try:
            return await fn(*args, **kwargs)
        except _SURFACED as exc:
            raise exc.with_traceback(None)  # noqa: B904 - the same error, shorter

    return public


def surface_sync(fn: Callable[P, R]) -> Callable[P, R]:
    """:func:`surface` for a plain function."""

    @functools.wraps(fn)
    def public(*args: P.args, **kwargs: P.kwargs) -> R:
        __tracebackhide__ = True
        try:
            return fn(*args, **kwargs)
        except _SURFACED as exc:
            raise exc.with_traceback(None)  # noqa: B904 - the same error, shorter

    return public
