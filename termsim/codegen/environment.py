"""The environment the generated test starts the program with: what the
recording says the program ran with, on top of the environment the test
runs in.

A recording keeps two kinds of variables. Its header's ``env`` is an
allowlisted few (``TERM``, ``LANG``, ``NO_COLOR``, ``CI``...), kept whoever
set them, since they change what a program draws. And ``spawn_env``, where
a recorder writes it, holds the variables the test itself gave ``spawn(env=
...)`` that differ from the environment it ran in (a ``MYAGENT_REPLY_LINES=30``),
each value scrubbed of the session's secrets, or nil where the value was
withheld. A variable ``TERM`` that the recorded terminal profile sets
anyway is left out, so is one the profile sets to the same value.

A value the recording withholds, or holds redacted, is not written, nor
one in a temporary directory (a ``HOME`` in the recording test's
``tmp_path``, gone by now): the generated test takes it from the
environment it runs in, and fails naming
the variable when that does not set it (as it does for a typed secret), so
that a test without its API key says so instead of timing out at a wait.

Everything here comes from the file, a stranger's data: names that could
not be a variable's are dropped, and values go into the source only as
literals (one no environment can hold, with a NUL, makes the generated
test's ``spawn`` fail, saying so).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..emulator.terminals.profiles import PROFILES
from ..recording.redact import REDACTED
from .masks import TEMPORARY

#: What a variable's name may be, to be written into the test.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: The header's key for the variables the test set (see the module's docstring).
SPAWN_ENV = "spawn_env"


@dataclass
class Environment:
    """The variables the generated test sets (``values``) and those it
    needs the environment it runs in to set (``needed``), by name."""

    values: dict[str, str] = field(default_factory=dict)
    needed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.values or self.needed)


def recorded(header: Mapping[str, object]) -> Environment:
    """The environment the recording with ``header`` says its program ran with."""
    profile = PROFILES.get(str(header.get("profile") or "xterm"), PROFILES["xterm"])
    given: dict[str, str | None] = {}
    kept = header.get("env")
    if isinstance(kept, Mapping):
        given.update({k: v for k, v in kept.items() if isinstance(v, str)})
    spawned = header.get(SPAWN_ENV)
    if isinstance(spawned, Mapping):
        given.update({k: v for k, v in spawned.items() if v is None or isinstance(v, str)})
    out = Environment()
    for name, value in sorted(given.items(), key=lambda item: str(item[0])):
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            continue
        if value is not None and value in (profile.term if name == "TERM" else None,
                                           profile.env.get(name)):
            continue  # spawn sets it so anyway
        if value is None or REDACTED in value or TEMPORARY.search(value):
            out.needed.append(name)
        else:
            out.values[name] = value
    return out
