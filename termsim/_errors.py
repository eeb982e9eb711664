"""termsim's exceptions.

::

    TermsimError
    ├── WaitTimeout        (also a TimeoutError) the screen never matched in time
    │   ├── Stalled        ... and the program sat waiting for keys, so it never would
    │   └── ScreenMismatch expect_screen(): the screen never looked like the expectation
    ├── GoldenMissing      expect_screen(golden=...) has no file yet (--termsim-update)
    ├── ProcessExited      the program exited while a wait was pending
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
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

if TYPE_CHECKING:
    from ._predicates import Predicate
    from ._snapshot import Snapshot
    from ._terminal import Query


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
    while frame is not None and os.path.dirname(frame.f_code.co_filename) == _PACKAGE:
        level += 1
        frame = frame.f_back  # type: ignore[assignment]
    warnings.warn(message, TermsimWarning, stacklevel=level)


#: Turns a text into what may be shown: the session's redaction (``redact=``).
Scrub = Callable[[str], str]


def _same(text: str) -> str:
    return text


def _indent(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


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


class WaitTimeout(TermsimError, TimeoutError):
    """A wait ran out of time: the screen never matched what was awaited."""

    def __init__(
        self, *, awaited: str, timeout: float, snapshot: Snapshot, silent_for: float | None,
        predicate: Predicate | None = None, unanswered: Sequence[Query] = (),
        explanation: str = "", since: str = "", recording: str | None = None,
        unknown: dict[str, int] | None = None, film: str = "",
        notes: Sequence[str] = (), stalled_for: float | None = None, scrub: Scrub = _same,
    ) -> None:
        # Text fields are redacted (they end up in CI logs); ``snapshot`` and
        # ``predicate`` are the test's own objects, left as they are.
        awaited, explanation, since, film = (scrub(s) for s in (awaited, explanation, since, film))
        notes = [scrub(n) for n in notes]
        self.awaited = awaited
        self.timeout = timeout
        self.snapshot = snapshot
        self.silent_for = silent_for
        self.predicate = predicate
        self.unanswered = list(unanswered)
        self.explanation = explanation
        self.since = since
        self.recording = recording
        self.unknown = dict(unknown or {})
        #: The last screens before the failure, with the inputs between them.
        self.film = film
        #: Near misses: what almost matched, and when (see ``_nearmiss``).
        self.notes = list(notes)
        #: For :class:`Stalled`: how long the program had sat reading keys.
        self.stalled_for = stalled_for
        self._scrub = scrub
        super().__init__(self._message())

    def _head(self) -> str:
        return f"timed out after {self.timeout:g} s waiting for {self.awaited}"

    def _message(self) -> str:
        lines = [self._head()]
        if self.since:
            lines.append(f"  counting only screens drawn after {self.since}")
        if self.explanation:
            lines.append(f"  instead: {self.explanation}")
        lines += [f"  {note}" for note in self.notes]
        if self.silent_for is None:
            lines.append("  the program printed nothing at all")
        else:
            lines.append(f"  the program has been silent for {self.silent_for:.2f} s")
        if self.unanswered:
            lines.append("  queries still unanswered:")
            lines += [f"    {q.describe()}" for q in self.unanswered[-5:]]
        if self.unknown:
            seen = ", ".join(f"{k} x{v}" for k, v in sorted(self.unknown.items()))
            lines.append(f"  sequences termsim did not understand: {seen}")
        if self.recording:
            lines.append(f"  recording: {shown_path(self.recording)}")
        screen = self._screen()
        if self.film:
            lines.append(self.film)
            if screen:
                lines.append("  the screen at the end:")
        if screen:
            lines.append(_indent(screen))
        return "\n".join(lines)

    def _screen(self) -> str:
        return self._scrub(self.snapshot.render())


class Stalled(WaitTimeout):
    """A wait gave up early: the program sat in raw mode reading keys, printing
    nothing and owed no answer, for the wait's ``stall`` seconds. Nothing
    would have changed by waiting longer."""

    def _head(self) -> str:
        return (f"stalled waiting for {self.awaited}: the program is waiting for input; "
                f"nothing changed for {self.stalled_for or 0.0:.1f} s")


class ScreenMismatch(WaitTimeout):
    """``expect_screen()`` ran out of time: the screen never looked like the
    expectation. The message shows both, side by side, the differing cells
    marked; ``expected`` and ``actual`` are the two texts, ``golden`` the
    file the expectation came from (if any)."""

    def __init__(self, cause: WaitTimeout, *, expected: str, actual: str, diff: str,
                 golden: str | None) -> None:
        self.expected = expected
        self.actual = actual
        self.diff = diff
        self.golden = golden
        self.stalled = isinstance(cause, Stalled)
        super().__init__(
            awaited=cause.awaited, timeout=cause.timeout, snapshot=cause.snapshot,
            silent_for=cause.silent_for, predicate=cause.predicate,
            unanswered=cause.unanswered, since=cause.since, recording=cause.recording,
            unknown=cause.unknown, film=cause.film, notes=cause.notes,
            stalled_for=cause.stalled_for, scrub=cause._scrub,
        )

    def _head(self) -> str:
        how = (f"the program is waiting for input, nothing changed for "
               f"{self.stalled_for or 0.0:.1f} s" if self.stalled
               else f"timed out after {self.timeout:g} s")
        return f"the screen never matched {self.awaited} ({how}):\n{self._scrub(self.diff)}"

    def _screen(self) -> str:
        return ""  # the diff shows it


class GoldenMissing(TermsimError):
    """``expect_screen(golden=...)`` found no golden file. ``screen`` is what
    ``--termsim-update`` (or ``TERMSIM_UPDATE=1``) would write there."""

    def __init__(self, path: str, screen: str) -> None:
        self.path = path
        self.screen = screen
        super().__init__(
            f"no golden screen at {shown_path(path)}: run with --termsim-update (pytest) or "
            f"TERMSIM_UPDATE=1 to write it; the screen now, as it would be written:\n"
            + _indent(screen.rstrip("\n")))


class ProcessExited(TermsimError):
    """The program exited while a wait was pending (or before it began)."""

    def __init__(
        self, *, status: int | None, snapshot: Snapshot, awaited: str | None = None,
        predicate: Predicate | None = None, recording: str | None = None, film: str = "",
        scrub: Scrub = _same,
    ) -> None:
        awaited = None if awaited is None else scrub(awaited)
        film = scrub(film)
        self.status = status
        self.film = film
        self.snapshot = snapshot
        self.awaited = awaited
        self.predicate = predicate
        self.recording = recording
        head = f"the program exited ({describe_status(status)})"
        if awaited:
            head += f" while waiting for {awaited}"
        body = [head]
        if recording:
            body.append(f"  recording: {shown_path(recording)}")
        if film:
            body += [film, "  the screen at the end:"]
        body.append(_indent(scrub(snapshot.render())))
        super().__init__("\n".join(body))


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
