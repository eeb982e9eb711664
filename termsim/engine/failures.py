"""The failures of a wait, carrying what the test needs to see why.

These errors hold a :class:`~termsim.Snapshot`, the :class:`~termsim.Predicate`
that was awaited and the queries left unanswered, so they live with the engine
that raises them; :mod:`termsim.errors` keeps the errors that carry plain data
and that every layer may raise.

Their messages end up in CI logs, which are terminals too, and quote what a
program drew (its screen, its titles, what almost matched): each line of a
message is shown with :func:`~termsim.emulator.terminals.xterm.printable` (:func:`_shown`),
so a program's bytes read as what they are. The attributes stay as they were.

What they list must be true of the program, not of termsim's bookkeeping:
"queries still unanswered" holds only the queries the program may still be
waiting for (:func:`owed`), and "sequences termsim did not understand" leaves
out the modes termsim knows and ignores on purpose, as the profile's
terminal does (:func:`not_understood`). A caveat about the evidence itself
(a replay of a recording cut short) is said in every error, under the head.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..emulator.terminals.profiles import MODES
from ..emulator.terminals.xterm import printable
from ..errors import Scrub, TermsimError, describe_status, indent, same, shown_path

if TYPE_CHECKING:
    from ..emulator.snapshot.snapshot import Snapshot
    from ..emulator.terminal.hygiene import Leftover
    from ..emulator.terminal.terminal import Query
    from .predicates import Predicate


class WaitTimeout(TermsimError, TimeoutError):
    """A wait ran out of time: the screen never matched what was awaited."""

    def __init__(
        self, *, awaited: str, timeout: float, snapshot: Snapshot, silent_for: float | None,
        predicate: Predicate | None = None, unanswered: Sequence[Query] = (),
        explanation: str = "", since: str = "", recording: str | None = None,
        unknown: dict[str, int] | None = None, film: str = "",
        notes: Sequence[str] = (), stalled_for: float | None = None, scrub: Scrub = same,
        caveats: Sequence[str] = (),
    ) -> None:
        # Text fields are redacted (they end up in CI logs); ``snapshot`` and
        # ``predicate`` are the test's own objects, left as they are.
        awaited, explanation, since, film = (scrub(s) for s in (awaited, explanation, since, film))
        notes = [scrub(n) for n in notes]
        #: What is wrong with the evidence itself (a truncated recording).
        self.caveats = [scrub(c) for c in caveats]
        self.awaited = awaited
        self.timeout = timeout
        self.snapshot = snapshot
        self.silent_for = silent_for
        self.predicate = predicate
        #: The queries the program may still be waiting for (:func:`owed`).
        self.unanswered = owed(unanswered)
        self.explanation = explanation
        self.since = since
        self.recording = recording
        #: What termsim did not understand (:func:`not_understood`), by name.
        self.unknown = not_understood(unknown or {})
        #: The last screens before the failure, with the inputs between them.
        self.film = film
        #: Near misses: what almost matched, and when (see ``nearmiss.py``).
        self.notes = list(notes)
        #: For :class:`Stalled`: how long the program had sat reading keys.
        self.stalled_for = stalled_for
        self._scrub = scrub
        super().__init__(_shown(self._message()))

    def _head(self) -> str:
        return f"timed out after {self.timeout:g} s waiting for {self.awaited}"

    def _message(self) -> str:
        lines = [self._head(), *(f"  warning: {c}" for c in self.caveats)]
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
            lines.append(indent(_shown(screen)))
        return "\n".join(lines)

    def _screen(self) -> str:
        return self._scrub(self.snapshot.render())


class Stalled(WaitTimeout):
    """A wait gave up early: the program sat in raw mode reading keys, printing
    nothing and owed no answer, for the wait's ``stall`` seconds. Nothing
    would have changed by waiting longer."""

    def __init__(self, *, ignored: str = "", **evidence: Any) -> None:
        #: The regions ``ignore=`` left out ("" for none): the program may
        #: have kept drawing there.
        self.ignored = ignored
        super().__init__(**evidence)

    def _head(self) -> str:
        where = f" outside {self.ignored}" if self.ignored else ""
        return (f"stalled waiting for {self.awaited}: the program is waiting for input; "
                f"nothing changed{where} for {self.stalled_for or 0.0:.1f} s")


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
            stalled_for=cause.stalled_for, scrub=cause._scrub, caveats=cause.caveats,
        )

    def _head(self) -> str:
        how = (f"the program is waiting for input, nothing changed for "
               f"{self.stalled_for or 0.0:.1f} s" if self.stalled
               else f"timed out after {self.timeout:g} s")
        return f"the screen never matched {self.awaited} ({how}):\n{self._scrub(self.diff)}"

    def _screen(self) -> str:
        return ""  # the diff shows it


class ProcessExited(TermsimError):
    """The program exited while a wait was pending (or before it began)."""

    def __init__(
        self, *, status: int | None, snapshot: Snapshot, awaited: str | None = None,
        predicate: Predicate | None = None, recording: str | None = None, film: str = "",
        scrub: Scrub = same, caveats: Sequence[str] = (),
    ) -> None:
        awaited = None if awaited is None else scrub(awaited)
        film = scrub(film)
        #: What is wrong with the evidence itself (a truncated recording).
        self.caveats = [scrub(c) for c in caveats]
        self.status = status
        self.film = film
        self.snapshot = snapshot
        self.awaited = awaited
        self.predicate = predicate
        self.recording = recording
        head = f"the program exited ({describe_status(status)})"
        if awaited:
            head += f" while waiting for {awaited}"
        body = [head, *(f"  warning: {c}" for c in self.caveats)]
        if recording:
            body.append(f"  recording: {shown_path(recording)}")
        if film:
            body += [film, "  the screen at the end:"]
        body.append(indent(_shown(scrub(snapshot.render()))))
        super().__init__(_shown("\n".join(body)))


class TerminalLeftDirty(TermsimError, AssertionError):
    """The program exited leaving modes on that it turned on (the alternate
    screen, mouse tracking, bracketed paste...): a session spawned with
    ``hygiene=True`` (or under ``--termsim-hygiene``) fails with this once
    its block ends. An ``AssertionError`` too: it is the test's finding."""

    def __init__(self, *, leftovers: list[Leftover], status: int | None, snapshot: Snapshot,
                 recording: str | None = None) -> None:
        self.leftovers = leftovers
        self.status = status
        self.snapshot = snapshot
        self.recording = recording
        body = [f"the program exited ({describe_status(status)}) and left the terminal "
                f"with {len(leftovers)} mode{'s' if len(leftovers) != 1 else ''} on:"]
        body += [f"  - {leftover.describe()}" for leftover in leftovers]
        if recording:
            body.append(f"  recording: {shown_path(recording)}")
        body.append(indent(_shown(snapshot.render())))
        super().__init__(_shown("\n".join(body)))


def owed(queries: Sequence[Query]) -> list[Query]:
    """The queries of ``queries`` (a session's, oldest first) the program may
    still be waiting for the answer to, oldest first.

    One whose answer is on its way (``"deferred"``) is. One the test's
    policy withholds (``"ignored"``) is, unless the program asked something
    later that was answered: then it went on without it, as programs do
    that follow a probe with DA1 and take DA1's answer for "no" (the kitty
    keyboard query ``ESC[?u`` of Codex and Gemini CLI). One this terminal
    has no answer for (``"unsupported"``, as the profile's terminal has
    none) never is: no program can be waiting for termsim to give it, and
    under the xterm profile every agent CLI's error would list it."""
    out: list[Query] = []
    answered_after = -1  # the offset of the latest answered query
    for query in reversed(queries):
        if query.status == "answered":
            answered_after = max(answered_after, query.offset)
        elif query.status == "deferred" or (
                query.status == "ignored" and answered_after < query.offset):
            out.append(query)
    return out[::-1]


#: The names ``Terminal.unknown`` gives a mode a profile's terminal may lack
#: (``profiles.MODES``: SGR-pixel mouse reports, colour-scheme reports...):
#: termsim knows each one, and ignores it where the profile's terminal does.
_IGNORED_MODES = frozenset(f"CSI ?{mode}{final}" for mode in MODES for final in "hl")


def not_understood(unknown: dict[str, int]) -> dict[str, int]:
    """``unknown`` (``Terminal.unknown``) without the modes termsim ignores
    on purpose (``CSI ?2031h`` under the xterm profile: the README's
    "Modes only some terminals have"), which it understood."""
    return {name: count for name, count in unknown.items() if name not in _IGNORED_MODES}


def _shown(message: str) -> str:
    """``message`` with each line through :func:`printable`; a screen before
    it is indented too, since ``indent`` also splits at the separators
    (U+2028...) a program can draw into a cell."""
    return "\n".join(map(printable, message.split("\n")))


class RecordingEnded(WaitTimeout):
    """A replayed wait outlasted its recording. What the program did after
    the recording's end was never recorded, so the wait ends there: going on
    to its deadline would report silence the program never kept."""

    def __init__(self, *, ended_at: float, last_output: float | None, **evidence: Any) -> None:
        #: Where the recording ends, on the replay's clock.
        self.ended_at = ended_at
        #: When the program last printed (None: never).
        self.last_output = last_output
        super().__init__(**evidence)

    def _head(self) -> str:
        last = (f"the program's last output at {self.last_output:.2f} s"
                if self.last_output is not None else "the program printed nothing")
        return (f"the recording ends at {self.ended_at:.2f} s ({last}) while waiting for "
                f"{self.awaited}: what came after was not recorded")
