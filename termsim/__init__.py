"""termsim: drive terminal programs in tests, on a virtual screen that answers them.

General layout, front to back:

* ``_parser`` / ``_screen`` / ``_terminal``: the sans-IO :class:`Terminal`;
  bytes in, replies and immutable :class:`Snapshot` values out.
* ``_snapshot`` / ``_predicates``: what a screen is, and the questions
  (:class:`Text`, :class:`Regex`, :class:`CursorAt`...) a test asks of it.
* ``_engine``: the one waiting engine, shared by live and replayed sessions.
* ``_driver``: the test-facing API both sources share.
* ``_live`` (+ ``_process``, ``_keys``): a real program in a PTY (:func:`spawn`).
* ``_recording`` / ``_replay``: sessions written to a file as they run, and
  replayed through the same engine on a virtual clock (:func:`replay`).
* Edges: ``cli`` (the ``termsim`` command), ``pytest_plugin``, ``_redact``,
  and the renderers ``_asciicast``, ``_html`` and ``_svg``.
* ``_errors``: what can go wrong, with the screen attached.
"""

from ._asciicast import export_asciicast, import_asciicast, read_asciicast
from ._engine import Mark
from ._errors import ProcessExited, RecordingError, SessionClosed, TermsimError, WaitTimeout
from ._html import recording_html
from ._keys import UnknownKey, key_bytes
from ._live import Session, spawn
from ._predicates import (
    CursorAfter,
    CursorAt,
    InputReady,
    Predicate,
    Regex,
    Region,
    Text,
    as_predicate,
)
from ._recording import Event, Recording
from ._replay import ReplayDivergence, ReplaySession, replay
from ._snapshot import Cell, Cursor, Modes, Snapshot, Style
from ._svg import snapshot_svg
from ._terminal import QUERY_KINDS, Query, Terminal

__version__ = "0.1.0"

__all__ = [
    "QUERY_KINDS",
    "Cell",
    "Cursor",
    "CursorAfter",
    "CursorAt",
    "Event",
    "InputReady",
    "Mark",
    "Modes",
    "Predicate",
    "ProcessExited",
    "Query",
    "Recording",
    "RecordingError",
    "Regex",
    "Region",
    "ReplayDivergence",
    "ReplaySession",
    "Session",
    "SessionClosed",
    "Snapshot",
    "Style",
    "Terminal",
    "TermsimError",
    "Text",
    "UnknownKey",
    "WaitTimeout",
    "__version__",
    "as_predicate",
    "export_asciicast",
    "import_asciicast",
    "key_bytes",
    "read_asciicast",
    "recording_html",
    "replay",
    "snapshot_svg",
    "spawn",
]
