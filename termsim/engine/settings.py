"""Process-wide defaults that tools set around tests: where sessions record,
what stands in for them, and where golden screens live.

The pytest plugin records every session a test spawns without the test
saying so. It does that through :func:`record_sessions`, a public hook any
other runner can use too, instead of reaching into a module of termsim.
``spawn(record=...)`` always wins over the hook; ``record=False`` opts out.
Shaking a test (``--termsim-shake``) runs its body again with
:func:`substitute_sessions` handing out replays where it calls ``spawn``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .driver import Driver

#: Given the argv of a session about to start, the file to record it to
#: (None: do not record this one).
PathFor = Callable[[list[str]], "str | os.PathLike[str] | None"]

_path_for: PathFor | None = None


@contextmanager
def record_sessions(path_for: PathFor | None) -> Iterator[None]:
    """Record every session started in this block to ``path_for(argv)``.

    A process-wide setting (sessions run in many tasks of one test), restored
    when the block ends; blocks nest. ``None`` turns the default off.
    """
    global _path_for
    previous, _path_for = _path_for, path_for
    try:
        yield
    finally:
        _path_for = previous


def recording_path_for(argv: list[str]) -> str | None:
    """Where a session of ``argv`` records by default (None: nowhere)."""
    if _path_for is None:
        return None
    path = _path_for(list(argv))
    return None if path is None else os.fspath(path)


#: Given the argv of a session about to start and spawn's other arguments,
#: a session to use instead (a replay), or None to start the program.
Substitute = Callable[[list[str], dict[str, Any]], "Driver | None"]

_substitute: Substitute | None = None


@contextmanager
def substitute_sessions(substitute: Substitute | None) -> Iterator[None]:
    """Inside this block, ``spawn()`` asks ``substitute(argv, options)`` first
    (``options``: spawn's other arguments) and returns what it gives, if
    anything, instead of starting the program. The pytest plugin's shake runs
    a test's body against replays this way."""
    global _substitute
    previous, _substitute = _substitute, substitute
    try:
        yield
    finally:
        _substitute = previous


def substitute_for(argv: list[str], options: dict[str, Any]) -> Driver | None:
    """The session to use instead of starting ``argv`` (None: start it)."""
    return None if _substitute is None else _substitute(list(argv), options)


#: Given a golden screen's name (``expect_screen(golden="prompt")``), its file.
GoldenPath = Callable[[str], "str | os.PathLike[str]"]
#: Told of every golden used: its path and what became of it ("matched",
#: "written", "updated", "missing", "differs").
GoldenUsed = Callable[[str, str], None]


class _Goldens:
    path_for: GoldenPath | None = None
    update: bool = False
    used: GoldenUsed | None = None


_goldens = _Goldens()


@contextmanager
def golden_screens(path_for: GoldenPath | None, *, update: bool = False,
                   used: GoldenUsed | None = None) -> Iterator[None]:
    """Inside this block, ``expect_screen(golden=name)`` reads (and with
    ``update``, writes) the file ``path_for(name)``, and calls ``used(path,
    outcome)`` for each. The pytest plugin sets it for every test
    (``--termsim-update``); other runners can too. Blocks nest."""
    previous = (_goldens.path_for, _goldens.update, _goldens.used)
    _goldens.path_for, _goldens.update, _goldens.used = path_for, update, used
    try:
        yield
    finally:
        _goldens.path_for, _goldens.update, _goldens.used = previous


def golden_path(name: str | os.PathLike[str]) -> str | None:
    """The file of a golden: a path as given, or a name the hook resolves
    (None: a name, and no hook to resolve it)."""
    text = os.fspath(name)
    if os.sep in text or text.endswith(".screen"):
        return text
    return None if _goldens.path_for is None else os.fspath(_goldens.path_for(text))


def updating_goldens() -> bool:
    """Whether goldens are written (the hook's ``update``, or TERMSIM_UPDATE=1)."""
    return _goldens.update or os.environ.get("TERMSIM_UPDATE") == "1"


def golden_used(path: str, outcome: str) -> None:
    if _goldens.used is not None:
        _goldens.used(path, outcome)
