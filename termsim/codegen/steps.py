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

Typed text is one ``type()`` until the program reacts to a part of it
otherwise than by echoing it: when the recording says the program read that
part (a read report for it or a later input: the reports may come late,
never early) and, before the next part was typed, it drew something that is
not that text at the cursor or inserted in a row (vim's ``-- INSERT --``
after ``i``, tmux's prompt after ``&``), the part was a command, and a lone
character is a ``press()`` with a wait of its own; what follows is typed
text again. Where no such screen came in between (typed too fast for it,
or nothing drawn, or only the echo), the text stays one call, as it was
sent.
"""

from __future__ import annotations

import signal
import unicodedata
from dataclasses import dataclass, field
from itertools import accumulate

from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminal.terminal import HistoryMark, Terminal
from ..engine.playback import ScreenBudget, apply_to_terminal, terminal_for
from ..events import Exit, Hangup, Input, InputRead, Note, Output, Resize, TtyMode
from ..recording.format import Recording
from ..recording.redact import CONTINUED
from .keys import Key, decode

#: Characters an echo drawn into a row (not at the terminal's cursor) may
#: lag behind the typing and still be taken for the echo.
ECHO_LAG = 8
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
    #: For typed text: the screen when its last part was sent, and where
    #: that part's screens begin in :attr:`screens`.
    piece_before: Snapshot | None = None
    piece_start: int = 0

    @property
    def text(self) -> str | None:
        return str(self.keys[0].value) if self.keys and self.keys[0].kind == "text" else None

    @property
    def secret(self) -> bool:
        """Whether it types a secret the recording holds as a mask."""
        return bool(self.keys) and self.keys[0].kind == "secret"

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
    #: Whether the program ended on its own: not when termsim hung up on it
    #: (the test closed the session while it ran, see :func:`hung_up`).
    exited: bool
    #: Marks made before the first input.
    start_marks: list[tuple[str, Snapshot, str]] = field(default_factory=list)


def read(recording: Recording) -> Session:
    """The steps of ``recording``."""
    terminal = terminal_for(recording)
    raw = False
    budget = ScreenBudget(recording, "codegen")
    start: list[Screen] = []
    steps: list[Step] = []
    exit_status: int | None = None
    exited = False
    start_marks: list[tuple[str, Snapshot, str]] = []
    marks = 0
    # The last input the program is known to have read by the end.
    read_by_end = max((e.index for e in recording.events if isinstance(e, InputRead)),
                      default=0)
    for event in recording.events:
        if isinstance(event, Hangup):
            break  # what follows (the exit too) is the teardown's doing
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
                last = steps[-1] if steps else None
                if last is not None and last.secret and (
                        not last.screens or event.label.endswith(CONTINUED)):
                    # Typed on where nothing is echoed (a password, key by
                    # key), or the rest of a secret redaction found across
                    # inputs (whatever was echoed between): one secret, as
                    # the test will type it.
                    last.index, last.read = marks, False
                    continue
                # Its bytes are a mask: the test types what a person gives it.
                keys = [Key("secret", None)]
            else:
                keys = decode(event.data,
                              application_cursor=terminal.screen.modes.application_cursor)
            for key in keys:
                last = steps[-1] if steps else None
                if key.kind == "text" and last is not None and last.text is not None \
                        and not _reacted(last, read_by_end):
                    # Typed on: the same type() (its echo is no step; what
                    # the typing drew, a completion menu, is its screens).
                    last.keys = [Key("text", last.text + str(key.value))]
                    last.index, last.read = marks, False
                    last.piece_before, last.piece_start = terminal.screen, len(last.screens)
                    continue
                _close(steps, terminal, read_by_end)
                steps.append(Step([key], event.t, terminal.screen, index=marks,
                                  history=terminal.history_mark(),
                                  scrolled=terminal.scrolled))
                if key.kind == "text":
                    steps[-1].piece_before = terminal.screen
        elif isinstance(event, Resize) and event.t > 0:
            apply_to_terminal(terminal, event)
            _close(steps, terminal, read_by_end)
            steps.append(Step([], event.t, terminal.screen, resize=(event.cols, event.rows),
                              index=marks))
        elif isinstance(event, Output):
            apply_to_terminal(terminal, event)
            screen = Screen(event.t, budget.keep(terminal.screen), raw)
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
    _close(steps, terminal, read_by_end)
    if exited and hung_up(recording):
        exited, exit_status = False, None
    argv = [str(a) for a in recording.header.get("argv") or []]
    return Session(argv, recording.cols, recording.rows, start, steps, exit_status, exited,
                   start_marks)


def hung_up(recording: Recording) -> bool:
    """Whether the program's end was termsim's doing: the test closed the
    session while it still ran (the pytest plugin does, at a test's end).
    The recording says so with a :class:`~termsim.events.Hangup` before the
    exit; one written before termsim recorded that event says it only by
    how the program ended: killed by SIGHUP, the hang-up (a test has no
    way to send that signal itself). A program that ignores SIGHUP and is
    then terminated looks, in such a file, like one that was killed."""
    exits: list[int | None] = []
    for event in recording.events:
        if isinstance(event, Hangup):
            return True
        if isinstance(event, Exit):
            exits.append(event.status)
    return bool(exits) and exits[-1] == -signal.SIGHUP


def _reacted(step: Step, read_by_end: int) -> bool:
    """Whether the program read the text ``step`` typed last (by the end of
    the recording: ``read_by_end``) and, before the next input, drew
    something other than the echo of what the step typed."""
    before = step.piece_before
    screens = step.screens[step.piece_start:]
    if step.index > read_by_end or before is None or not screens or step.text is None:
        return False
    after = screens[-1].snap
    if after.lines == before.lines and after.cursor == before.cursor:
        return False  # nothing drawn: not echoed (a password), or not yet
    return not _echoed(step.text, step.before, after)


def _width(text: str) -> int:
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _echoed(text: str, before: Snapshot, after: Snapshot) -> bool:
    """Whether ``after`` is ``before`` with ``text``, or the start of it (the
    echo may lag behind the typing), echoed: the cursor moved on by its
    width, or a row is the same with it inserted (a field whose cursor is
    drawn, not the terminal's)."""
    if (before.rows, before.cols) != (after.rows, after.cols):
        return False
    moved = (after.cursor.row - before.cursor.row) * after.cols \
        + after.cursor.col - before.cursor.col
    if moved > 0 and moved in set(accumulate(map(_width, text))):
        return True
    # Inserted: the whole text, or its start a few characters short.
    starts = [text[:k] for k in range(len(text), max(0, len(text) - ECHO_LAG), -1)]
    for row in range(after.rows):
        was, now = before.lines[row], after.lines[row]
        if was == now:
            continue
        for start in starts:
            at = now.find(start)
            while at >= 0:
                if (now[:at] + now[at + len(start):]).split() == was.split():
                    return True
                at = now.find(start, at + 1)
    return False


def _as_key(step: Step, read_by_end: int) -> None:
    """A lone character the program took as a command (it reacted, and did
    not echo it) is a key the test presses."""
    if step.text is not None and len(step.text) == 1 and step.piece_start == 0 \
            and _reacted(step, read_by_end):
        step.keys = [Key("key", "space" if step.text == " " else step.text)]


def _close(steps: list[Step], terminal: Terminal, read_by_end: int) -> None:
    """The last step is over (the next begins, or the session ends): keep
    its transcript if its output ran past a screenful, and read a lone
    character it typed as the key it was."""
    if not steps:
        return
    last = steps[-1]
    _as_key(last, read_by_end)
    if last.history is not None and last.transcript is None \
            and terminal.scrolled - last.scrolled > terminal.rows:
        last.transcript = terminal.transcript(last.history)
