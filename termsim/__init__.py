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

import typing as _typing

__version__ = "0.1.0"

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


#: The other audiences' modules, so that ``import termsim`` is enough to
#: reach ``termsim.files.Recording``, ``termsim.runner.record_sessions`` or
#: ``termsim.emulator.Terminal`` (any module of the package is reached so,
#: as when this one imported them all; these are the ones ``dir`` lists).
_AUDIENCES = ("emulator", "files", "runner")

if _typing.TYPE_CHECKING:  # what the names are, for type checkers; loaded below when asked for
    from .surface import *


def __getattr__(name: str) -> _typing.Any:
    """Load the public names (``surface``) the first time one is asked for:
    ``import termsim`` alone, or a command that needs none of them
    (``termsim drive``), does not pay for every layer."""
    import importlib
    import importlib.util

    if name not in __all__:
        if not name.startswith("_") and importlib.util.find_spec(f"termsim.{name}"):
            return importlib.import_module(f"termsim.{name}")  # ``termsim.files``...
        raise AttributeError(f"module 'termsim' has no attribute {name!r}")
    surface = importlib.import_module("termsim.surface")
    globals().update((each, getattr(surface, each)) for each in surface.__all__)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_AUDIENCES})
