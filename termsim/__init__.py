"""termsim: drive terminal programs in tests, on a virtual screen that answers them.

    async with termsim.spawn(["python", "app.py"]) as term:
        await term.wait_for(termsim.CursorAfter("> ") & termsim.InputReady(), timeout=10)
        mark = await term.type("hello\\n")
        screen = await term.wait_for(termsim.Text("hi there"), since=mark, timeout=10)

General layout, lowest layer first: each package imports only from those
listed before it, ``emulator`` and ``recording`` not from each other, nor
``live`` and ``report`` (``tests/test_layers.py`` holds that). Every
session is a stream of :mod:`termsim.events`, which all of them speak.

* ``errors`` / ``events``: the errors any layer raises, and what can happen
  in a session.
* ``emulator``: the sans-IO :class:`Terminal`: bytes in, replies and
  immutable :class:`Snapshot` values out. The tokenizer is the one escape
  grammar; the screen is split by concern; ``queries`` is the one table of
  queries and their answers.
* ``recording``: the file format, the recorder and redaction.
* ``engine``: the one waiting engine, shared by live and replayed sessions,
  with the predicates (:class:`Text`, :class:`Regex`, :class:`CursorAt`...),
  the failures of a wait, the :class:`Driver` API, golden screens and the
  settings a runner makes around a test.
* ``live``: a real program in a PTY (:func:`spawn`).
* ``report``: HTML, SVG, asciicast, playing into a terminal.
* ``offline``: sessions from recordings (:func:`replay`), and hunting flakes
  offline: variants of a recording, a test body run against them, two runs
  compared.
* Edges: ``cli`` (the ``termsim`` command), ``pytest_plugin``, and the
  public modules by audience: this one for test authors, ``runner``,
  ``files`` and ``emulator`` (its ``__init__``) for the others.
"""

from .emulator.input.mouse import MouseOff
from .emulator.signals.signals import (
    BellRung,
    ClipboardWrite,
    Command,
    DirectoryChange,
    ImageSent,
    NotificationSent,
    ShellMark,
    Signal,
    Signals,
    TitleChange,
)
from .emulator.snapshot.region import Region
from .emulator.snapshot.snapshot import (
    Cell,
    Cursor,
    LinkRun,
    Match,
    Modes,
    Place,
    Run,
    Snapshot,
    Style,
)
from .emulator.terminal.hygiene import Leftover
from .emulator.terminal.terminal import Query
from .engine.cursor_predicates import CursorAfter, CursorAt, InputReady
from .engine.driver import Driver
from .engine.failures import (
    ProcessExited,
    RecordingEnded,
    ScreenMismatch,
    Stalled,
    TerminalLeftDirty,
    WaitTimeout,
)
from .engine.predicates import Predicate, Quiet, Sequence, as_predicate
from .engine.signal_predicates import (
    Bell,
    Clipboard,
    CommandFinished,
    Image,
    Link,
    Notification,
    Title,
)
from .engine.source import Mark
from .engine.text_predicates import Regex, Text
from .errors import (
    ArgumentError,
    GoldenMissing,
    RecordingError,
    ReplayDivergence,
    SessionClosed,
    ShakeFailure,
    TermsimError,
    TermsimWarning,
    UnknownKey,
)
from .live.session import Session
from .live.spawning import spawn
from .naming import publish
from .offline.perturb import Perturbation
from .offline.session import ReplaySession, replay

__version__ = "0.1.0"

#: What a test author writes. The other audiences have modules of their own:
#: :mod:`termsim.runner` (runners other than pytest), :mod:`termsim.files`
#: (tools over recordings and reports), :mod:`termsim.emulator` (the
#: terminal without a program). ``docs/api.md`` lists every name.
__all__ = [
    "ArgumentError",
    "Bell",
    "BellRung",
    "Cell",
    "Clipboard",
    "ClipboardWrite",
    "Command",
    "CommandFinished",
    "Cursor",
    "CursorAfter",
    "CursorAt",
    "DirectoryChange",
    "Driver",
    "GoldenMissing",
    "Image",
    "ImageSent",
    "InputReady",
    "Leftover",
    "Link",
    "LinkRun",
    "Mark",
    "Match",
    "Modes",
    "MouseOff",
    "Notification",
    "NotificationSent",
    "Perturbation",
    "Place",
    "Predicate",
    "ProcessExited",
    "Query",
    "Quiet",
    "RecordingEnded",
    "RecordingError",
    "Regex",
    "Region",
    "ReplayDivergence",
    "ReplaySession",
    "Run",
    "ScreenMismatch",
    "Sequence",
    "Session",
    "SessionClosed",
    "ShakeFailure",
    "ShellMark",
    "Signal",
    "Signals",
    "Snapshot",
    "Stalled",
    "Style",
    "TerminalLeftDirty",
    "TermsimError",
    "TermsimWarning",
    "Text",
    "Title",
    "TitleChange",
    "UnknownKey",
    "WaitTimeout",
    "__version__",
    "as_predicate",
    "replay",
    "spawn",
]

publish(globals(), __all__, __name__)
del publish

# The other audiences' modules, so that ``import termsim`` is enough to
# reach ``termsim.files.Recording`` or ``termsim.runner.record_sessions``.
from . import files, runner  # noqa: E402, F401
