"""Process-wide defaults that tools set around tests: where sessions record.

The pytest plugin records every session a test spawns without the test
saying so. It does that through :func:`record_sessions`, a public hook any
other runner can use too, instead of reaching into a module of termsim.
``spawn(record=...)`` always wins over the hook; ``record=False`` opts out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
