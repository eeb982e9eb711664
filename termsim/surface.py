"""What a test author writes, loaded when first asked for.

``import termsim`` is cheap: the names below come in (with every layer
under them) the first time one of them is used (``termsim/__init__``'s
``__getattr__``), so that a command that needs none of them starts fast:
``termsim drive``'s steps are one process each, and an agent runs hundreds.
Every name gets its public module here (``termsim.WaitTimeout``, not
``termsim.engine.failures.WaitTimeout``); the pytest plugin loads this
module, so a test's errors show the public names however it imported them.
"""

from __future__ import annotations

import termsim as _package

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

__all__ = [name for name in _package.__all__ if not name.startswith("__")]
del _package

publish(globals(), __all__, "termsim")
del publish
