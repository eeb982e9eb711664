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
from ._asciicast import export_asciicast, import_asciicast, read_asciicast
from ._diff import SessionDiff, diff
from ._driver import Driver
from ._emulation import Emulation
from ._engine import Mark
from ._errors import (
    ArgumentError,
    GoldenMissing,
    ProcessExited,
    RecordingError,
    ReplayDivergence,
    ScreenMismatch,
    SessionClosed,
    ShakeFailure,
    Stalled,
    TermsimError,
    TermsimWarning,
    UnknownKey,
    WaitTimeout,
)
from ._hooks import golden_screens, record_sessions
from ._html import recording_html
from ._keys import key_bytes
from ._live import Session, spawn
from ._mouse import MouseOff
from ._playback import Playback
from ._predicates import (
    CursorAfter,
    CursorAt,
    InputReady,
    Predicate,
    Quiet,
    Regex,
    Sequence,
    Text,
    as_predicate,
)
from ._recording import Recording, WaitRecord
from ._region import Region
from ._replay import ReplaySession, replay
from ._snapshot import Cell, Cursor, Modes, Run, Snapshot, Style
from ._svg import snapshot_svg
from ._terminal import QUERY_KINDS, Policy, Query, Terminal
from .events import Event

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
# traceback, not ``termsim._errors.WaitTimeout`` (pickling still works:
# every name is importable from here).
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type) and _obj.__module__.startswith("termsim._"):
        _obj.__module__ = "termsim"
del _name, _obj
