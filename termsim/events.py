"""What can happen in a terminal session: one value per thing that happened.

A session is a stream of these events. The live PTY source emits them as
they happen, the waiting engine emits the wait events, the recorder writes
them (``recording/codec.py`` encodes them, one record each), a :class:`~termsim.files.Recording`
reads back the same values, and replay, the HTML report, the CLI and the
pytest plugin consume them, each with a ``match`` on the type. This module is
the one place that says what can happen; everything else speaks it.

Every event is a frozen, slotted dataclass, so events compare with ``==``
and can be kept, and ``t`` is always seconds since the session started, on
the session's clock (virtual in a replay). Times are kept to the microsecond
(:func:`stamp`), which is what a recording stores, so an event read back from
a file equals the one that was written.

Ordering is meaningful: an event's place in the stream is where it happened
relative to the program's output. :class:`InputRead`, for example, sits after
exactly the output that had been read when termsim saw the program read its
input, and a replay applies it at the same place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NewType, TypeAlias, get_args

__all__ = [
    "CLOSINGS",
    "OUTCOMES",
    "Closing",
    "End",
    "Errored",
    "Event",
    "Exit",
    "Hangup",
    "How",
    "Input",
    "InputRead",
    "Note",
    "Outcome",
    "Output",
    "Reply",
    "Resize",
    "TtyMode",
    "UnknownSequences",
    "Unrecognized",
    "WaitEnded",
    "WaitOutcome",
    "WaitStarted",
    "Warned",
    "end_how",
    "errored",
    "stamp",
    "wait_outcome",
]


def stamp(seconds: float) -> float:
    """``seconds`` to the microsecond, as a recording stores it."""
    return round(seconds * 1_000_000) / 1_000_000


@dataclass(frozen=True, slots=True)
class Output:
    """Bytes the program wrote, exactly as one read of the PTY returned them.

    Chunk boundaries are kept: they are how the output really arrived, and a
    wait sees a screen after every chunk (and every frame inside one).
    """

    t: float
    data: bytes


@dataclass(frozen=True, slots=True)
class Input:
    """Bytes written to the program.

    ``label`` says what the test did, in words (``"typed 'hello'"``,
    ``"key enter"``, ``"bytes b'\\x03'"``). ``secret``: typed at a prompt
    with echo off, or declared secret by the test; a recorder writes a mask
    instead of ``data``. ``tracked``: the tty was raw when it was written, so
    termsim watched for the program to read it (see :class:`InputRead`).
    """

    t: float
    data: bytes
    label: str
    secret: bool = False
    tracked: bool = False


@dataclass(frozen=True, slots=True)
class Reply:
    """An answer to one of the program's queries (CPR, DA...), as written to it."""

    t: float
    data: bytes


@dataclass(frozen=True, slots=True)
class Resize:
    """The window changed size; the program was sent SIGWINCH."""

    t: float
    cols: int
    rows: int


@dataclass(frozen=True, slots=True)
class TtyMode:
    """The program switched its tty: ``raw`` True when it reads keys one by one
    (ICANON and ECHO off, as prompt_toolkit does), False when cooked, None
    when termsim could not tell."""

    t: float
    raw: bool | None


@dataclass(frozen=True, slots=True)
class InputRead:
    """By this point in the output, the program had read input number ``index``
    (1-based, counting inputs and resizes as :class:`~termsim.Mark` does) and
    every input before it.

    ``answered``: the output up to here already holds something the program
    wrote *after* that read. When it is False, a second event with
    ``answered=True`` follows once such output arrives. ``since=mark`` counts
    only screens drawn from output after this event (or, once answered, the
    screen at the answering event itself).
    """

    t: float
    index: int
    answered: bool = False


#: How a wait ended, when nothing raised.
Outcome: TypeAlias = Literal[
    "matched", "timed out", "stalled", "program exited", "session closed", "cancelled",
]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)

#: ``"error: <what>"``: a wait's predicate raised (``<what>`` is the error's
#: type), or a session ended by an error. Not a Literal, since the type is
#: the test's; :func:`errored` is the one way to make one, so a bare string
#: cannot pass for it under mypy.
Errored = NewType("Errored", str)
ERROR_PREFIX = "error: "


def errored(what: str) -> Errored:
    """The outcome (or end) for an error: ``"error: <what>"``."""
    return Errored(ERROR_PREFIX + what)


#: What :attr:`WaitEnded.outcome` holds.
WaitOutcome: TypeAlias = Outcome | Errored
#: How a session ended, besides ``"error: <what>"`` (``"error: not started"``:
#: the program could not be started); ``"imported"``: converted from another
#: format (asciicast).
Closing: TypeAlias = Literal["closed", "cancelled", "cancelled while starting", "imported"]
CLOSINGS: tuple[Closing, ...] = get_args(Closing)
#: What :attr:`End.how` holds.
How: TypeAlias = Closing | Errored


def wait_outcome(value: str) -> WaitOutcome:
    """``value`` as a wait's outcome; :class:`ValueError` naming it if it is
    none (a recording from a newer termsim, or a damaged one)."""
    for outcome in OUTCOMES:
        if value == outcome:
            return outcome
    if value.startswith(ERROR_PREFIX):
        return Errored(value)
    raise ValueError(f"outcome {value!r} is none of {', '.join(OUTCOMES)} or 'error: ...'")


def end_how(value: str) -> How:
    """``value`` as how a session ended; :class:`ValueError` naming it if it is none."""
    for closing in CLOSINGS:
        if value == closing:
            return closing
    if value.startswith(ERROR_PREFIX):
        return Errored(value)
    raise ValueError(f"how the session ended, {value!r}, is none of "
                     f"{', '.join(CLOSINGS)} or 'error: ...'")


@dataclass(frozen=True, slots=True)
class WaitStarted:
    """The test began waiting for ``predicate`` (its description in words)."""

    t: float
    id: int
    predicate: str
    #: The mark the wait counts from, in words (``None``: any screen).
    since: str | None
    timeout: float


@dataclass(frozen=True, slots=True)
class WaitEnded:
    """The wait with this ``id`` ended: one of :data:`OUTCOMES`, or ``"error: <type>"``."""

    t: float
    id: int
    outcome: WaitOutcome


@dataclass(frozen=True, slots=True)
class ScreenCompared:
    """``expect_screen()``'s wait ``wait`` ended: the expected screen, and the
    actual one written the same way (the last screen the wait saw), so a
    report can show them side by side. ``golden``: the file the
    expectation came from."""

    t: float
    wait: int
    expected: str
    actual: str
    golden: str | None = None


@dataclass(frozen=True, slots=True)
class Note:
    """A marker the test put in the session (``term.note("label")``)."""

    t: float
    label: str


@dataclass(frozen=True, slots=True)
class Warned:
    """Something about how the test drove the program that a person should know."""

    t: float
    message: str


@dataclass(frozen=True, slots=True)
class Exit:
    """The program exited: its status, negative for a signal (None: unknown)."""

    t: float
    status: int | None


@dataclass(frozen=True, slots=True)
class Hangup:
    """The test closed the session while the program still ran: termsim hung
    up on it (SIGHUP, then SIGTERM and SIGKILL as needed). What follows, its
    exit included, is the teardown's doing, not the program's; a replay does
    not play it until the test closes the replay."""

    t: float


@dataclass(frozen=True, slots=True)
class UnknownSequences:
    """Escape sequences the terminal did not understand, counted by kind, so a
    reader knows the screens may be wrong and where to look."""

    t: float
    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class End:
    """The session closed: ``how`` is ``"closed"``, ``"cancelled"``, ``"error: ..."``.
    A recording without it was cut short (a crash, a kill)."""

    t: float
    how: How


@dataclass(frozen=True, slots=True)
class Unrecognized:
    """An event of a kind this termsim does not know (written by a newer one):
    kept as read, so nothing in a file is lost, and skipped by consumers."""

    t: float
    kind: str
    data: tuple[Any, ...]


Event: TypeAlias = (
    Output | Input | Reply | Resize | TtyMode | InputRead | WaitStarted | WaitEnded
    | ScreenCompared | Note | Warned | Exit | Hangup | UnknownSequences | End | Unrecognized
)
