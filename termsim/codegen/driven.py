"""Tests from sessions driven step by step (``termsim drive``, ``termsim mcp``):
the waits the person or agent ran, not waits guessed from the screens.

A driven session's recording holds, beside its events, one note per step
(``termsim drive: {...}``, JSON): the session's start (size, profile,
defaults), each input as the call that sent it (``type``, ``press``, a
paste, ``resize``) and its mark's number, and each wait as it was asked
(:class:`WaitSpec`: the texts, the region, the cursor, ``InputReady``,
``Quiet``...), the input it counted from, its timeout and its outcome.
The generated test makes the same calls in the same order and waits for
what was waited for, each ``since=`` the input it counted from; a wait
that did not match while driving is left out, as a comment, since a test
that repeats it fails where the exploration did.

A step's wait turns into a predicate (for the session that runs it) and
into source (for the test) in one place, ``driven_waits.py``, so that both
say the same thing. A recording is a stranger's file: every note is checked
field by field before a line is written, and its strings go into the source
only as literals (``literals.py``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ArgumentError, RecordingError
from ..events import Exit, Note
from ..recording.fields import MAX_SIZE
from ..recording.format import Recording
from .driven_waits import (
    MOST_SECONDS,
    WaitSpec,
    flag_of,
    seconds_of,
    string_of,
    strings_of,
)
from .environment import Environment, recorded
from .literals import comment, docstring_words, literal, literal_list
from .module import env_docstring, environment, formatted, needed, test_name
from .steps import hung_up

__all__ = ["MOST_SECONDS", "NOTE_PREFIX", "WaitSpec", "driven_steps", "generate",
           "generate_files", "is_driven", "paste_bytes", "step_note"]

#: How a driven step's note begins; the rest is the step, as JSON.
NOTE_PREFIX = "termsim drive: "
#: The verbs a note may hold.
VERBS = ("start", "type", "press", "paste", "resize", "wait", "wait_exit")
#: A wait's timeout when the step took longer than a third of it: three
#: times what it took (a loaded CI machine is slower than the one driven).
SLOW = 3.0
#: The first wait's timeout, at least: the program's start.
FIRST_TIMEOUT = 30.0
#: A session's default timeout (``spawn(timeout=...)``).
DEFAULT_TIMEOUT = 10.0
def step_note(step: Mapping[str, Any]) -> str:
    """The note that records ``step`` in the session's recording."""
    return NOTE_PREFIX + json.dumps(step, ensure_ascii=True, separators=(",", ":"))


# -- reading the steps back -------------------------------------------------------------


@dataclass
class Step:
    """One driven step, checked: its verb and its fields."""

    verb: str
    data: dict[str, Any]


def _checked(data: Mapping[str, Any]) -> Step:
    """The step a note holds, every field of the right type (a stranger's
    recording may hold anything)."""
    verb = data.get("verb")
    if verb not in VERBS:
        raise ArgumentError(f"no such step {verb!r}")
    assert isinstance(verb, str)
    out: dict[str, Any] = {}

    def integer(name: str, low: int, high: int, *, optional: bool = False) -> None:
        value = data.get(name)
        if value is None and optional:
            return
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ArgumentError(f"{verb}: {name} is an integer from {low} to {high}")
        out[name] = value

    if verb == "start":
        integer("cols", 1, MAX_SIZE)
        integer("rows", 1, MAX_SIZE)
        for name in ("timeout", "stall"):
            out[name] = seconds_of(data, name, positive=True)
        for name in ("profile", "cwd"):
            out[name] = string_of(data, name)
    elif verb in ("type", "paste"):
        text = data.get("text")
        if not isinstance(text, str) or not text:
            raise ArgumentError(f"{verb}: text is a non-empty string")
        out["text"] = text
        if verb == "paste":
            out["bracketed"] = flag_of(data, "bracketed")
    elif verb == "press":
        out["keys"] = strings_of(data, "keys")
        if not out["keys"]:
            raise ArgumentError("press: keys is a list of key names")
    elif verb == "resize":
        integer("cols", 1, MAX_SIZE)
        integer("rows", 1, MAX_SIZE)
    if verb in ("type", "paste", "press", "resize"):
        integer("mark", 1, 2**53)
    if verb in ("wait", "wait_exit"):
        out["timeout"] = seconds_of(data, "timeout")
        out["took"] = seconds_of(data, "took") or 0.0
        outcome = data.get("outcome")
        if not isinstance(outcome, str):
            raise ArgumentError(f"{verb}: outcome is a string")
        out["outcome"] = outcome
    if verb == "wait":
        out["spec"] = WaitSpec.from_json(data.get("spec"))
        integer("since", 1, 2**53, optional=True)
        out.setdefault("since", None)
        out["stall"] = seconds_of(data, "stall", positive=True)
    if verb == "wait_exit":
        integer("status", -255, 255, optional=True)
        out.setdefault("status", None)
    return Step(verb, out)


def driven_steps(recording: Recording) -> list[Step]:
    """The driven steps ``recording`` holds, in order ([] for a recording
    not made by driving: ``termsim codegen`` then guesses the waits)."""
    steps = []
    for index, event in enumerate(recording.events):
        if not (isinstance(event, Note) and event.label.startswith(NOTE_PREFIX)):
            continue
        where = recording.offsets[index] if index < len(recording.offsets) else 0
        try:
            data = json.loads(event.label[len(NOTE_PREFIX):])
            if not isinstance(data, dict):
                raise ArgumentError("not a JSON object")
            steps.append(_checked(data))
        except (ValueError, ArgumentError, RecursionError) as exc:
            raise RecordingError(f"{recording.path}: the driven step noted at byte {where} "
                                 f"cannot be read: {exc}") from None
    return steps


def is_driven(recording: Recording) -> bool:
    """Whether ``recording`` is of a session driven step by step."""
    return any(isinstance(e, Note) and e.label.startswith(NOTE_PREFIX)
               for e in recording.events)


# -- the test -----------------------------------------------------------------------------


def generate(path: str) -> str:
    """The source of a pytest module that drives the program as the
    session in ``path`` was driven, with its waits."""
    return _generate(path)


def generate_files(path: str, test: str) -> dict[Path, str]:
    """The test file ``test`` and its text (one file: a driven session
    marks no golden screen)."""
    return {Path(test): _generate(path)}


def _input_call(step: Step) -> str:
    data = step.data
    if step.verb == "type":
        return f"type({literal(data['text'])})"
    if step.verb == "press":
        return f"press({', '.join(literal(k) for k in data['keys'])})"
    if step.verb == "resize":
        return f"resize(cols={data['cols']}, rows={data['rows']})"
    if data["bracketed"]:
        return f"send({paste_bytes(data['text'])!r})"
    return f"type({literal(data['text'])})"


def paste_bytes(text: str) -> bytes:
    """What a terminal sends for ``text`` pasted into a program that asked
    for bracketed paste (mode 2004)."""
    return b"\x1b[200~" + text.replace("\r\n", "\n").encode() + b"\x1b[201~"


def _timeout(given: float | None, took: float, default: float, least: float = 0.0) -> str:
    """The timeout to write: the one asked (the session's ``default`` if
    none), at least ``least`` and three times what the step took."""
    wanted = max(default if given is None else given, least)
    if took * SLOW > wanted:
        wanted = float(math.ceil(took * SLOW))
    if given is None and wanted == default:
        return ""
    return f", timeout={wanted:g}"


def _mark_names(steps: list[Step]) -> dict[int, str]:
    """The variable each input's mark goes into, for the inputs a written
    wait counts from: ``mark`` where every wait on it comes before the next
    input, ``mark_N`` otherwise."""
    uses: dict[int, bool] = {}
    last: int | None = None
    for step in steps:
        if "mark" in step.data:
            last = step.data["mark"]
        elif step.verb == "wait" and step.data["outcome"] == "matched" \
                and step.data["since"] is not None:
            since = step.data["since"]
            uses[since] = uses.get(since, True) and since == last
    return {index: "mark" if latest else f"mark_{index}" for index, latest in uses.items()}


def _generate(path: str) -> str:
    recording = Recording.open(path)
    steps = driven_steps(recording)
    if not steps:
        raise RecordingError(f"{path} holds no driven steps (it was not made with termsim "
                             "drive): termsim codegen writes a test of it from its screens")
    start = next((s.data for s in steps if s.verb == "start"), {})
    default = start.get("timeout") or DEFAULT_TIMEOUT
    names: set[str] = set()
    body: list[str] = []
    marks = _mark_names(steps)
    known: set[int] = set()
    first_wait = True
    for step in steps:
        data = step.data
        if step.verb == "start":
            continue
        if "mark" in data:
            index = data["mark"]
            known.add(index)
            target = f"{marks[index]} = " if index in marks else ""
            body.append(f"{target}await term.{_input_call(step)}")
            continue
        # The first wait is the program's start: slower on a busy CI machine.
        timeout = _timeout(data["timeout"], data["took"], default,
                           FIRST_TIMEOUT if first_wait else 0.0)
        first_wait = False
        if step.verb == "wait_exit":
            if data["outcome"] != "matched":
                body.append(comment(f"while driving, the wait for the exit {data['outcome']}"))
            else:
                body.append(f"assert await term.wait_exit({timeout.removeprefix(', ')}) == "
                            f"{data['status']!r}")
            continue
        spec: WaitSpec = data["spec"]
        predicate = spec.source(names)
        if data["outcome"] != "matched":
            body.append(comment(f"while driving, this wait {data['outcome']}: {predicate}"))
            continue
        since = data["since"]
        counted = f", since={marks[since]}" if since is not None and since in known else ""
        stall = f", stall={data['stall']:g}" if data["stall"] is not None else ""
        body.append(f"await term.wait_for({predicate}{counted}{timeout}{stall})")
    exits = [e for e in recording.events if isinstance(e, Exit)]
    if exits and not hung_up(recording) and not any(s.verb == "wait_exit" for s in steps):
        body.append(f"assert await term.wait_exit() == {exits[-1].status!r}")
    return _module(path, recording, start, body, names)


def _module(path: str, recording: Recording, start: Mapping[str, Any], body: list[str],
            names: set[str]) -> str:
    header = recording.header
    env: Environment = recorded(header)
    argv = [str(a) for a in header.get("argv") or []]
    cols = start.get("cols", recording.cols)
    rows = start.get("rows", recording.rows)
    options = [f"cols={cols!r}", f"rows={rows!r}"]
    if env:
        options.append("env={**os.environ, **ENV}")
    for name in ("profile", "cwd"):
        if start.get(name) is not None:
            options.append(f"{name}={literal(start[name])}")
    for name in ("timeout", "stall"):
        if start.get(name) is not None:
            options.append(f"{name}={start[name]:g}")
    shown = docstring_words(Path(path).name)
    started = docstring_words(str(header.get("started", ""))[:19])
    lines = [
        f'"""Generated by `termsim codegen` from {shown} (driven with termsim drive, '
        f"recorded {started}).",
        "",
        "Each step is one the session was driven with, and each wait the one that",
        "was run then, since= the input it counted from (only what the program drew",
        "after it read that input counts). Edit freely: the waits are plain termsim",
        "predicates.",
        *env_docstring(env),
        '"""',
        "",
        *(["import os", ""] if env else []),
        "import pytest",
        "",
        "import termsim",
        *([f"from termsim import {', '.join(sorted(names))}"] if names else []),
        "",
        "pytestmark = pytest.mark.anyio",
        "",
        f"COMMAND = {literal_list(argv)}",
        *environment(env),
        "",
        "",
        "async def drive(term: termsim.Driver) -> None:",
        *[f"    {line}" for line in body or ["pass"]],
        "",
        "",
        f"async def test_{test_name(path)}() -> None:",
        *needed([], env.needed),
        f"    async with termsim.spawn(COMMAND, {', '.join(options)}) as term:",
        "        await drive(term)",
    ]
    return formatted("\n".join(lines) + "\n")
