"""The generated test, as a Python module a person would have written.

It imports only ``pytest`` and ``termsim``, starts the recorded command at
the recorded size, and runs the steps in one ``drive(term)`` function, so
the same steps run live (``test_<name>``) and against the recording
(``termsim.replay(path)`` with ``drive``), as ``recordings/scenarios.py``
does for this project's own recordings. Each input that changed the
screen returns its mark and is followed by the wait it caused
(``since=mark``). Nothing in it sleeps.

The text is the same for the same recording (no clock, no path of this
machine but what the recording holds), and formatted by ruff's formatter
when it is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from ..emulator.snapshot import Snapshot
from ..emulator.terminal import Terminal
from ..recording.format import Recording
from .keys import Key
from .steps import Session, Step, read
from .waits import Wait, choose

#: A wait's timeout when the recorded step took longer than the default
#: (10 s) allows: three times what it took.
SLOW = 3.0
DEFAULT_TIMEOUT = 10.0
#: The first wait's timeout, at least: the program's start.
FIRST_TIMEOUT = 30


def _call(key: Key) -> str:
    if key.kind == "text":
        return f"type({key.value!r})"
    if key.kind == "paste":
        return f"type({key.value!r})"
    if key.kind == "key":
        return f"press({key.value!r})"
    if key.kind == "click":
        assert isinstance(key.value, tuple)
        row, col, button = key.value
        extra = f", button={button!r}" if button != "left" else ""
        return f"click({row}, {col}{extra})"
    return f"send({key.value!r})"


def _timeout(step_time: float, screens_end: float) -> str:
    took = screens_end - step_time
    if took * SLOW <= DEFAULT_TIMEOUT:
        return ""
    return f", timeout={round(took * SLOW)}"


def test_name(recording_path: str) -> str:
    stem = Path(recording_path).stem
    name = re.sub(r"\W+", "_", stem).strip("_").lower() or "session"
    return name if not name[0].isdigit() else f"session_{name}"


def generate(path: str, *, other: str | None = None) -> str:
    """The source of a pytest module that replays the session in
    ``path`` as a test (``other``: a second recording of the same
    session, whose differences are left free in the waits)."""
    recording = Recording.open(path)
    session = read(recording)
    second = read(Recording.open(other)) if other is not None else None
    names: set[str] = set()
    body: list[str] = []

    first = choose(_blank(session), session.start, typed=False,
                   other_final=second.start[-1].snap if second and second.start else None)
    if first is not None:
        names |= first.names
        end = session.start[-1].t if session.start else 0.0
        # A program starts slower on a busy CI machine than it did here.
        timeout = max(FIRST_TIMEOUT, round(end * SLOW))
        body.append(f"await term.wait_for({first.source}, timeout={timeout})")
    steps = session.steps
    for index, step in enumerate(steps):
        other_step = second.steps[index] if second and index < len(second.steps) else None
        wait = _wait_after(step, other_step, session, index)
        call = f"resize(cols={step.resize[0]}, rows={step.resize[1]})" if step.resize \
            else _call(step.keys[0])
        if wait is None:
            body.append(f"await term.{call}")
            continue
        names |= wait.names
        end = step.screens[-1].t if step.screens else step.t
        if step.read:
            body.append(f"mark = await term.{call}")
            body.append(f"await term.wait_for({wait.source}, since=mark"
                        f"{_timeout(step.t, end)})")
        else:
            # The recording never saw the program read this input before the
            # next one went: a replay could not count from that read.
            body.append(f"await term.{call}")
            body.append(f"await term.wait_for({wait.source}{_timeout(step.t, end)})")
    if session.exited:
        body.append(f"assert await term.wait_exit() == {session.exit_status!r}")
    return _module(path, recording, session, body, names)


def _blank(session: Session) -> Snapshot:
    """The screen before the program drew anything."""
    return Terminal(session.cols, session.rows).screen


def _wait_after(step: Step, other: Step | None, session: Session, index: int) -> Wait | None:
    last = index == len(session.steps) - 1
    if last and session.exited:
        return None  # the program's exit is the answer: wait_exit says it
    return choose(step.before, step.screens, typed=step.text is not None,
                  other_final=other.final if other is not None and other.screens else None)


def _module(path: str, recording: Recording, session: Session, body: list[str],
            names: set[str]) -> str:
    imports = sorted(names)
    header = recording.header
    started = str(header.get("started", ""))[:19]
    argv = session.argv
    lines = [
        f'"""Generated by `termsim codegen` from {Path(path).name} (recorded {started}).',
        "",
        "Each input is followed by the wait for what it made the program draw",
        "(since=mark: only what it drew after reading that input counts). Edit",
        "freely: the waits are plain termsim predicates.",
        '"""',
        "",
        "import pytest",
        "",
        "import termsim",
    ]
    if imports:
        lines.append(f"from termsim import {', '.join(imports)}")
    lines += [
        "",
        "pytestmark = pytest.mark.anyio",
        "",
        f"COMMAND = {argv!r}",
        "",
        "",
        "async def drive(term: termsim.Driver) -> None:",
        *(f"    {line}" for line in body or ["pass"]),
        "",
        "",
        f"async def test_{test_name(path)}() -> None:",
        f"    async with termsim.spawn(COMMAND, cols={session.cols}, rows={session.rows})"
        " as term:",
        "        await drive(term)",
    ]
    return _formatted("\n".join(lines) + "\n")


def _formatted(source: str) -> str:
    """``source`` through ruff's formatter, if it is installed (the same
    text either way for the same recording on one machine)."""
    ruff = shutil.which("ruff")
    if ruff is None:
        return source
    try:
        done = subprocess.run([ruff, "format", "--line-length", "99", "-"], input=source,
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return source
    return done.stdout if done.returncode == 0 and done.stdout else source
