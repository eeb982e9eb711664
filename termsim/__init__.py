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
* ``replay``: sessions from recordings (:func:`replay`), and hunting flakes
  offline: variants of a recording, a test body run against them, two runs
  compared.
* Edges: ``cli`` (the ``termsim`` command) and ``pytest_plugin``.
"""

from . import events
from .emulator.emulation import Emulation
from .emulator.hygiene import Leftover
from .emulator.keys import key_bytes
from .emulator.mouse import MouseOff
from .emulator.profiles import PROFILES, Profile
from .emulator.region import Region
from .emulator.signals import (
    Command,
    Graphic,
    Notification,
    ShellMark,
    Signal,
    Signals,
)
from .emulator.snapshot import Cell, Cursor, Hyperlink, Modes, Run, Snapshot, Style
from .emulator.terminal import QUERY_KINDS, Policy, Query, Terminal
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
from .engine.playback import Playback
from .engine.predicates import Predicate, Quiet, Sequence, as_predicate
from .engine.settings import check_hygiene, golden_screens, record_sessions
from .engine.signal_predicates import (
    Bell,
    Clipboard,
    CommandFinished,
    Image,
    Link,
    Notified,
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
from .events import Event
from .live.session import Session, spawn
from .recording.format import Recording, WaitRecord
from .replay.diff import SessionDiff, diff
from .replay.session import ReplaySession, replay
from .report.asciicast import export_asciicast, import_asciicast, read_asciicast
from .report.html import recording_html
from .report.svg import snapshot_svg

__version__ = "0.1.0"

__all__ = [
    "PROFILES",
    "QUERY_KINDS",
    "ArgumentError",
    "Bell",
    "Cell",
    "Clipboard",
    "Command",
    "CommandFinished",
    "Cursor",
    "CursorAfter",
    "CursorAt",
    "Driver",
    "Emulation",
    "Event",
    "GoldenMissing",
    "Graphic",
    "Hyperlink",
    "Image",
    "InputReady",
    "Leftover",
    "Link",
    "Mark",
    "Modes",
    "MouseOff",
    "Notification",
    "Notified",
    "Playback",
    "Policy",
    "Predicate",
    "ProcessExited",
    "Profile",
    "Query",
    "Quiet",
    "Recording",
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
    "SessionDiff",
    "ShakeFailure",
    "ShellMark",
    "Signal",
    "Signals",
    "Snapshot",
    "Stalled",
    "Style",
    "Terminal",
    "TerminalLeftDirty",
    "TermsimError",
    "TermsimWarning",
    "Text",
    "Title",
    "UnknownKey",
    "WaitRecord",
    "WaitTimeout",
    "__version__",
    "as_predicate",
    "check_hygiene",
    "diff",
    "events",
    "export_asciicast",
    "golden_screens",
    "import_asciicast",
    "key_bytes",
    "read_asciicast",
    "record_sessions",
    "recording_html",
    "replay",
    "snapshot_svg",
    "spawn",
]

# Errors and objects name the public module: ``termsim.WaitTimeout`` in a
# traceback, not ``termsim.errors.WaitTimeout`` (pickling still works:
# every name is importable from here).
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type) and _obj.__module__.startswith("termsim."):
        _obj.__module__ = "termsim"
del _name, _obj
