"""termsim: drive terminal programs in tests, on a virtual screen that answers them.

    async with termsim.spawn(["python", "app.py"]) as term:
        await term.wait_for(termsim.CursorAfter("> ") & termsim.InputReady(), timeout=10)
        mark = await term.type("hello\\n")
        screen = await term.wait_for(termsim.Text("hi there"), since=mark, timeout=10)

General layout, front to back (each session is a stream of
:mod:`termsim.events`, which every part below speaks):

* ``_parser`` / ``_screen`` / ``_sgr`` / ``_queries`` / ``_terminal``: the
  sans-IO :class:`Terminal`; bytes in, replies and immutable :class:`Snapshot`
  values out. ``_queries`` is the one table of queries and their answers.
* ``_snapshot`` / ``_region`` / ``_predicates``: what a screen is, and the questions
  (:class:`Text`, :class:`Regex`, :class:`CursorAt`...) a test asks of it.
* ``events``: every kind of event, its fields and its meaning.
* ``_playback``: the one way an event changes a terminal, and screens at a
  time (:class:`Playback`).
* ``_engine`` (+ ``_film``): the one waiting engine, shared by live and
  replayed sessions; it consumes events in order.
* ``_driver``: the test-facing API both sources share (:class:`Driver`).
* ``_live`` (+ ``_pty``, ``_process``, ``_keys``): a real program in a PTY
  (:func:`spawn`); ``_pty`` turns what happens at the PTY into events.
* ``_recorder`` (+ ``_redact``): one listener that writes a session's events
  to a file, redacted; ``_recording`` (+ ``_codec``) is the file format and
  reads back the same events; ``_replay`` drives the engine from them on a
  virtual clock (:func:`replay`).
* ``_perturb`` / ``_shake`` / ``_diff``: hunting flakes offline: variants of
  a recording that could have happened, a test body run against them, and
  two runs compared.
* Edges: ``cli`` (the ``termsim`` command), ``pytest_plugin`` (through the
  public hook in ``_hooks``), and the renderers ``_asciicast``, ``_html`` and
  ``_svg``.
* ``_errors``: what can go wrong, with the screen attached.
"""

from . import events
from .emulator.emulation import Emulation
from .emulator.keys import key_bytes
from .emulator.mouse import MouseOff
from .emulator.region import Region
from .emulator.snapshot import Cell, Cursor, Modes, Run, Snapshot, Style
from .emulator.terminal import QUERY_KINDS, Policy, Query, Terminal
from .engine.cursor_predicates import CursorAfter, CursorAt, InputReady
from .engine.driver import Driver
from .engine.failures import ProcessExited, ScreenMismatch, Stalled, WaitTimeout
from .engine.playback import Playback
from .engine.predicates import Predicate, Quiet, Sequence, as_predicate
from .engine.settings import golden_screens, record_sessions
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
    "QUERY_KINDS",
    "ArgumentError",
    "Cell",
    "Cursor",
    "CursorAfter",
    "CursorAt",
    "Driver",
    "Emulation",
    "Event",
    "GoldenMissing",
    "InputReady",
    "Mark",
    "Modes",
    "MouseOff",
    "Playback",
    "Policy",
    "Predicate",
    "ProcessExited",
    "Query",
    "Quiet",
    "Recording",
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
    "Snapshot",
    "Stalled",
    "Style",
    "Terminal",
    "TermsimError",
    "TermsimWarning",
    "Text",
    "UnknownKey",
    "WaitRecord",
    "WaitTimeout",
    "__version__",
    "as_predicate",
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
