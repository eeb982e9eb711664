"""A recording read as a test's steps: what was typed, and what each input
made the program draw.

Every input of the recording is decoded into keys (``keys.py``); text typed
a character at a time becomes one ``type()``, each other key a ``press()``,
each click a ``click()``. The screens the program drew between one step and
the next are replayed through the same terminal the session had
(``playback.terminal_for``), and the last of them, the one the person saw
when they went on, is what the step's wait must reach: :mod:`.waits`
decides how to say it.

A wait is kept where the step changed the screen; typed text whose only
effect is its own echo gets none (the next key's wait covers it), which is
how a person writes the test too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..emulator.snapshot import Snapshot
from ..emulator.terminal import HistoryMark, Terminal
from ..engine.playback import apply_to_terminal, terminal_for
from ..events import Exit, Input, InputRead, Note, Output, Resize, TtyMode
from ..recording.format import Recording
from .keys import Key, decode

#: How the notes of ``termsim record``'s marks menu begin
#: (``live/interactive.py``: ``MARK_SCREEN``...).
MARK_PREFIX = "termsim: "


@dataclass
class Screen:
    """A screen after one read, with the time and whether the program was
    reading keys in raw mode then."""

    t: float
    snap: Snapshot
    raw: bool


@dataclass
class Step:
    """One call of the test: its keys (one text, or one key, click or
    paste), when it was sent, the screen then, the screens after it up to
    the next step, and how long the program had been quiet when the next
    step came (a person waited that long: the state is settled)."""

    keys: list[Key]
    t: float
    before: Snapshot
    screens: list[Screen] = field(default_factory=list)
    resize: tuple[int, int] | None = None
    #: The recording's mark number of the last input this step sends.
    index: int = 0
    #: Whether the recording says the program read it before the next
    #: step's input: if not, a replay cannot count screens from its read
    #: (it never plays past an input the test has not sent), and the wait
    #: goes without ``since=``.
    read: bool = False
    #: What the person marked after it while recording (``termsim record``'s
    #: menu): ``("screen" | "row" | "comment", the screen then, the comment)``.
    marks: list[tuple[str, Snapshot, str]] = field(default_factory=list)
    #: Where the session's transcript stood when it was sent, and the text
    #: drawn after it when more than a screenful scrolled off (a long reply:
    #: its beginning is on no screen at the end).
    history: HistoryMark | None = None
    scrolled: int = 0
    transcript: str | None = None

    @property
    def text(self) -> str | None:
        return str(self.keys[0].value) if self.keys[0].kind == "text" else None

    @property
    def final(self) -> Snapshot:
        return self.screens[-1].snap if self.screens else self.before


@dataclass
class Session:
    """A recording as steps: the first screens (before any input), the
    steps, and how the program ended."""

    argv: list[str]
    cols: int
    rows: int
    start: list[Screen]
    steps: list[Step]
    exit_status: int | None
    exited: bool
    #: Marks made before the first input.
    start_marks: list[tuple[str, Snapshot, str]] = field(default_factory=list)


def read(recording: Recording) -> Session:
    """The steps of ``recording``."""
    terminal = terminal_for(recording)
    raw = False
    start: list[Screen] = []
    steps: list[Step] = []
    exit_status: int | None = None
    exited = False
    start_marks: list[tuple[str, Snapshot, str]] = []
    marks = 0
    for event in recording.events:
        if isinstance(event, Input | Resize) and (event.t > 0 or isinstance(event, Input)):
            marks += 1
        if isinstance(event, InputRead):
            # Only the last step can still be read in time: every earlier
            # one's next input has gone out already.
            if steps and steps[-1].index <= event.index:
                steps[-1].read = True
            continue
        if isinstance(event, Input):
            if event.secret:
                keys = [Key("bytes", event.data)]
            else:
                keys = decode(event.data,
                              application_cursor=terminal.screen.modes.application_cursor)
            for key in keys:
                last = steps[-1] if steps else None
                if key.kind == "text" and last is not None and last.text is not None:
                    # Typed on: the same type() (its echo is no step; what
                    # the typing drew, a completion menu, is its screens).
                    last.keys = [Key("text", last.text + str(key.value))]
                    last.index, last.read = marks, False
                    continue
                _close(steps, terminal)
                steps.append(Step([key], event.t, terminal.screen, index=marks,
                                  history=terminal.history_mark(),
                                  scrolled=terminal.scrolled))
        elif isinstance(event, Resize) and event.t > 0:
            apply_to_terminal(terminal, event)
            _close(steps, terminal)
            steps.append(Step([], event.t, terminal.screen, resize=(event.cols, event.rows),
                              index=marks))
        elif isinstance(event, Output):
            apply_to_terminal(terminal, event)
            screen = Screen(event.t, terminal.screen, raw)
            (steps[-1].screens if steps else start).append(screen)
        elif isinstance(event, TtyMode):
            raw = bool(event.raw)
            if (steps[-1].screens if steps else start):
                (steps[-1].screens if steps else start)[-1].raw = raw
        elif isinstance(event, Exit):
            exited, exit_status = True, event.status
        elif isinstance(event, Note) and event.label.startswith(MARK_PREFIX):
            what = event.label[len(MARK_PREFIX):]
            kind = {"assert the screen": "screen", "assert the row": "row"}.get(what, "comment")
            text = what.removeprefix("comment ") if kind == "comment" else ""
            (steps[-1].marks if steps else start_marks).append((kind, terminal.screen, text))
        else:
            apply_to_terminal(terminal, event)
    _close(steps, terminal)
    argv = [str(a) for a in recording.header.get("argv") or []]
    return Session(argv, recording.cols, recording.rows, start, steps, exit_status, exited,
                   start_marks)


def _close(steps: list[Step], terminal: Terminal) -> None:
    """The last step is over (the next begins, or the session ends): keep
    its transcript if its output ran past a screenful."""
    if not steps:
        return
    last = steps[-1]
    if last.history is not None and last.transcript is None \
            and terminal.scrolled - last.scrolled > terminal.rows:
        last.transcript = terminal.transcript(last.history)
