"""What a request may hold, checked: it comes from a client process (or an
agent, through the MCP server), and a wrong field is answered with the
field's name and what it takes (exit status 2), never a traceback.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..codegen.driven_waits import MOST_SECONDS
from ..emulator.terminals.profiles import TERMINAL_VARIABLES
from ..recording.fields import MAX_SIZE
from .paths import DriveError


def number(request: Mapping[str, Any], name: str, *, positive: bool) -> float | None:
    value = request.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            value == value and (value > 0 if positive else value >= 0)
            and value <= MOST_SECONDS):
        raise DriveError(f"{name} is a number of seconds {'> 0' if positive else '>= 0'}, "
                         f"at most {MOST_SECONDS:g}", status=2, kind="BadRequest")
    return float(value)


def start_options(request: Mapping[str, Any]) -> dict[str, Any]:
    """``spawn``'s options from a start request, checked."""
    options: dict[str, Any] = {}
    for name, default in (("cols", 80), ("rows", 24)):
        value = request.get(name, default)
        if value is None:
            value = default
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SIZE:
            raise DriveError(f"{name} is a number from 1 to {MAX_SIZE}", status=2,
                             kind="BadRequest")
        options[name] = value
    base = request.get("base_env")
    overrides = request.get("env") or {}
    for what, env in (("base_env", base), ("env", overrides)):
        if env is not None and not (isinstance(env, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
            raise DriveError(f"{what} maps names to strings", status=2, kind="BadRequest")
    environment = dict(os.environ if base is None else base)
    # The terminal the command ran in is not the session's: its TERM, size
    # and terminal's variables go (the session sets its own), as spawn()
    # does for an inherited environment.
    for name in ("TERM", "COLUMNS", "LINES", *TERMINAL_VARIABLES):
        environment.pop(name, None)
    environment.update(overrides)
    options["env"] = environment
    options["set_env"] = dict(overrides)
    cwd = request.get("cwd")
    if cwd is not None and not (isinstance(cwd, str) and os.path.isabs(cwd)):
        raise DriveError("cwd is an absolute path", status=2, kind="BadRequest")
    options["cwd"] = cwd
    profile = request.get("profile")
    if profile is not None:
        if not isinstance(profile, str):
            raise DriveError("profile is a name (termsim profiles lists them)", status=2,
                             kind="BadRequest")
        options["profile"] = profile
    timeout = number(request, "timeout", positive=True)
    if timeout is not None:
        options["timeout"] = timeout
    stall = number(request, "stall", positive=True)
    if stall is not None:
        options["stall"] = stall
    return options


def record_path(name: str, request: Mapping[str, Any]) -> str:
    """Where the session records: the path asked, else ``NAME.tsr`` in the
    directory asked (numbered ``NAME-2.tsr``... so that no earlier session's
    recording is written over)."""
    record = request.get("record")
    if record is not None:
        if not (isinstance(record, str) and os.path.isabs(record)):
            raise DriveError("record is an absolute path", status=2, kind="BadRequest")
        return record
    directory = request.get("record_dir")
    if not (isinstance(directory, str) and os.path.isabs(directory)):
        raise DriveError("record_dir is an absolute path", status=2, kind="BadRequest")
    for n in range(1, 10_000):
        path = Path(directory) / (f"{name}.tsr" if n == 1 else f"{name}-{n}.tsr")
        if not path.exists():
            return str(path)
    return str(Path(directory) / f"{name}-{time.time_ns()}.tsr")
