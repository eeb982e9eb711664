"""Named sessions, and the verbs that drive them: one request in, one answer out.

The daemon (``daemon.py``) and the MCP server (``mcp.py``) both hold their
sessions here, so a step gives the same JSON answer, the same error and the
same recording whichever way it came. A request is a JSON object naming
its ``verb`` and ``session``; the answer has ``ok`` and, when it is false,
``error`` (``type``, ``message``: the message a test would get) and
``status`` (the exit status the command gives: 1 the step failed, 2 it was
asked wrongly).

Each session is a :func:`termsim.spawn` held open by a task of its own
(``async with`` is entered and left in one task, as anyio wants), recording
to a file from its first byte. The verbs are the ``Session``'s; what they
add is memory between commands: each input's mark is kept, so that a wait
counts, by default, only what the program drew after it read the last input
(``since=``), and every step is noted in the recording as it was asked
(``termsim.codegen.driven``), so that ``termsim codegen`` writes the waits
that were run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from ..codegen.driven import WaitSpec, paste_bytes, step_note
from ..engine.source import Mark
from ..errors import describe_status
from ..live.session import Session
from ..live.spawning import spawn
from ..recording.fields import MAX_SIZE
from .answers import error_answer, mark_json, match_json, screen_json
from .paths import DriveError
from .requests import number, record_path, start_options

#: What a session may be called: it names its recording too.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
VERBS = ("start", "type", "press", "paste", "resize", "wait", "screen", "status", "stop")


@dataclass
class Held:
    """One named session and what the commands need to remember of it."""

    name: str
    argv: list[str]
    options: dict[str, Any]
    record: str
    term: Session | None = None
    error: Exception | None = None
    stopping: anyio.Event = field(default_factory=anyio.Event)
    closed: anyio.Event = field(default_factory=anyio.Event)
    started: anyio.Event = field(default_factory=anyio.Event)
    #: Inputs go one at a time, in the order they came.
    inputs: anyio.Lock = field(default_factory=anyio.Lock)
    marks: dict[int, Mark] = field(default_factory=dict)
    last: Mark | None = None
    #: How many of the session's warnings were told already.
    warned: int = 0
    pid: int | None = None
    closing_error: Exception | None = None


class Sessions:
    """The sessions of one daemon (or MCP server), by name.

    ``task_group`` runs each session's task; ``marker``: variables every
    program gets (the daemon's mark, which its reaper kills by);
    ``on_start(pid)`` is told each program's process id; ``about()`` says
    what ``status`` tells of the holder itself.
    """

    def __init__(self, task_group: anyio.abc.TaskGroup, *,
                 marker: Mapping[str, str] | None = None,
                 on_start: Callable[[int], None] | None = None,
                 about: Callable[[], dict[str, Any]] | None = None) -> None:
        self._group = task_group
        self._marker = dict(marker or {})
        self._on_start = on_start
        self._about = about
        self.held: dict[str, Held] = {}
        #: Requests being handled now: the daemon does not end under one.
        self.busy = 0
        #: Set (and replaced) whenever a session or a request comes or goes.
        self.changed = anyio.Event()

    def _touch(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    @property
    def idle(self) -> bool:
        """No session held, no request under way."""
        return not self.held and not self.busy

    async def handle(self, request: object) -> dict[str, Any]:
        """Do one step; its answer (never raises but for cancellation)."""
        verb = request.get("verb") if isinstance(request, dict) else None
        name = request.get("session") if isinstance(request, dict) else None
        self.busy += 1
        self._touch()
        try:
            if not isinstance(request, dict) or verb not in VERBS:
                raise DriveError(f"no such verb {verb!r}: one of {', '.join(VERBS)}",
                                 status=2, kind="BadRequest")
            if name is not None and not isinstance(name, str):
                raise DriveError("session is a name (a string)", status=2, kind="BadRequest")
            answer = await getattr(self, f"_{verb}")(name, request)
            assert isinstance(answer, dict)
            return {"ok": True, "verb": verb, "session": name, **answer}
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:
            answer = error_answer(str(verb), name, exc)
            held = self.held.get(name) if isinstance(name, str) else None
            if held is not None and held.term is not None and verb != "stop":
                answer["screen"] = screen_json(held.term.screen, held.term)
                answer.update(self._warnings(held))
            return answer
        finally:
            self.busy -= 1
            self._touch()

    # -- helpers ---------------------------------------------------------------------------

    def _get(self, name: str | None) -> Held:
        if name is None:
            raise DriveError("name the session", status=2, kind="BadRequest")
        held = self.held.get(name)
        if held is None:
            running = ", ".join(sorted(self.held)) or "none"
            raise DriveError(f"no session named {name!r} (sessions: {running}); start one "
                             f"with: termsim drive start {name} -- COMMAND...",
                             kind="NoSuchSession")
        return held

    def _term(self, name: str | None) -> tuple[Held, Session]:
        held = self._get(name)
        if held.term is None:  # its start has not answered yet
            raise DriveError(f"session {held.name!r} is still starting: wait for its "
                             "start to answer, then ask again", kind="Starting")
        return held, held.term

    def _warnings(self, held: Held) -> dict[str, Any]:
        if held.term is None:
            return {}
        new = held.term.warnings[held.warned:]
        held.warned = len(held.term.warnings)
        return {"warnings": list(new)} if new else {}

    def _input(self, held: Held, mark: Mark, step: dict[str, Any]) -> dict[str, Any]:
        held.marks[mark.index] = mark
        held.last = mark
        assert held.term is not None
        held.term.note(step_note({**step, "mark": mark.index}))
        return {**mark_json(mark), **self._warnings(held)}

    # -- the verbs -------------------------------------------------------------------------

    async def _start(self, name: str | None, request: dict[str, Any]) -> dict[str, Any]:
        if name is None or not NAME.fullmatch(name):
            raise DriveError(f"a session's name is letters, digits, '.', '_' and '-' (up to "
                             f"64, a letter or digit first), not {name!r}", status=2,
                             kind="BadRequest")
        if name in self.held:
            raise DriveError(f"a session named {name!r} is already running: stop it first "
                             f"(termsim drive stop {name}) or choose another name",
                             kind="SessionExists")
        argv = request.get("argv")
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
            raise DriveError("give the command to run: argv, a list of strings", status=2,
                             kind="BadRequest")
        options = start_options(request)
        options["env"].update(self._marker)  # the daemon's mark: its reaper's net
        record = record_path(name, request)
        held = Held(name, list(argv), options, record)
        self.held[name] = held
        self._group.start_soon(self._hold, held, request)
        await held.started.wait()
        if held.error is not None or held.term is None:
            self.held.pop(name, None)
            error = held.error or DriveError("the session ended before it started")
            raise error
        term = held.term
        term.note(step_note({"verb": "start", "cols": options["cols"], "rows": options["rows"],
                             "profile": request.get("profile"),
                             "timeout": request.get("timeout"), "stall": request.get("stall"),
                             "cwd": options["cwd"] if request.get("cwd_given") else None}))
        held.pid = term.pid
        if self._on_start is not None:
            self._on_start(term.pid)
        return {"pid": term.pid, "argv": held.argv, "cols": options["cols"],
                "rows": options["rows"], "recording": record, **self._warnings(held)}

    async def _hold(self, held: Held, request: dict[str, Any]) -> None:
        """The session's task: the ``async with`` that holds it until ``stop``."""
        options = dict(held.options)
        overrides = options.pop("set_env")
        try:
            term = spawn(held.argv, record=held.record, **options)
            # What the person set (--env), for the recording's spawn_env and so
            # codegen's ENV: not what differs between the client's environment
            # and the daemon's.
            term._set_env = dict(overrides)
            Path(held.record).parent.mkdir(parents=True, exist_ok=True)
            async with term:
                held.term = term
                held.started.set()
                await held.stopping.wait()
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:
            if held.started.is_set():
                held.closing_error = exc
            else:
                held.error = exc
        finally:
            held.started.set()
            held.closed.set()

    async def _type(self, name: str | None, request: dict[str, Any]) -> dict[str, Any]:
        text = request.get("text")
        if not isinstance(text, str) or not text:
            raise DriveError("type needs the text to type", status=2, kind="BadRequest")
        held, term = self._term(name)
        async with held.inputs:
            mark = await term.type(text)
            return self._input(held, mark, {"verb": "type", "text": text})

    async def _press(self, name: str | None, request: dict[str, Any]) -> dict[str, Any]:
        keys = request.get("keys")
        if not (isinstance(keys, list) and keys and all(isinstance(k, str) and k for k in keys)):
            raise DriveError("press needs key names (enter, down, ctrl+d, a...)", status=2,
                             kind="BadRequest")
        held, term = self._term(name)
        async with held.inputs:
            mark = await term.press(*keys)
            return self._input(held, mark, {"verb": "press", "keys": keys})

    async def _paste(self, name: str | None, request: dict[str, Any]) -> dict[str, Any]:
        text = request.get("text")
        if not isinstance(text, str) or not text:
            raise DriveError("paste needs the text to paste", status=2, kind="BadRequest")
        held, term = self._term(name)
        async with held.inputs:
            # As a terminal pastes: bracketed when the program asked for it
            # (it then takes newlines as text), else as typed.
            bracketed = term.screen.modes.bracketed_paste
            mark = await (term.send(paste_bytes(text)) if bracketed else term.type(text))
            return self._input(held, mark, {"verb": "paste", "text": text,
                                            "bracketed": bracketed})

    async def _resize(self, name: str | None, request: dict[str, Any]) -> dict[str, Any]:
        cols, rows = request.get("cols"), request.get("rows")
        if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_SIZE
                   for v in (cols, rows)):
            raise DriveError(f"resize needs cols and rows, from 1 to {MAX_SIZE}", status=2,
                             kind="BadRequest")
        assert isinstance(cols, int) and isinstance(rows, int)
        held, term = self._term(name)
        async with held.inputs:
            mark = await term.resize(cols, rows)
            return self._input(held, mark, {"verb": "resize", "cols": cols, "rows": rows})

    async def _wait(self, name: str | None, request: dict[str, Any]) -> dict[str, Any]:
        held, term = self._term(name)
        timeout = number(request, "timeout", positive=False)
        stall = number(request, "stall", positive=True)
        start = term.now()
        if request.get("exit"):
            if request.get("spec"):
                raise DriveError("wait for the exit, or for a screen: not both", status=2,
                                 kind="BadRequest")
            try:
                status = await term.wait_exit(timeout=timeout)
            except Exception as exc:
                term.note(step_note({"verb": "wait_exit", "timeout": timeout,
                                     "took": round(term.now() - start, 6),
                                     "outcome": _outcome(exc)}))
                raise
            term.note(step_note({"verb": "wait_exit", "timeout": timeout, "status": status,
                                 "took": round(term.now() - start, 6), "outcome": "matched"}))
            return {"exit_status": status, "described": describe_status(status),
                    "took": round(term.now() - start, 6), **self._warnings(held)}
        spec = WaitSpec.from_json(request.get("spec") or {})
        predicate = spec.predicate()
        since = _since(held, request.get("since", "last"))
        step = {"verb": "wait", "spec": spec.to_json(),
                "since": None if since is None else since.index, "timeout": timeout,
                "stall": stall}
        try:
            snap = await term.wait_for(predicate, timeout=timeout, since=since, stall=stall)
        except Exception as exc:
            term.note(step_note({**step, "took": round(term.now() - start, 6),
                                 "outcome": _outcome(exc)}))
            raise
        took = round(term.now() - start, 6)
        term.note(step_note({**step, "took": took, "outcome": "matched"}))
        return {"matched": predicate.describe(), "took": took,
                "since": None if since is None else mark_json(since),
                "match": match_json(snap), "screen": screen_json(snap, term),
                **self._warnings(held)}

    async def _screen(self, name: str | None, request: dict[str, Any]) -> dict[str, Any]:
        held, term = self._term(name)
        snap = term.screen
        out = {"screen": screen_json(snap, term), "text": snap.text}
        if request.get("frame"):
            out["frame"] = snap.render()
        return {**out, **self._warnings(held)}

    def _status_of(self, held: Held) -> dict[str, Any]:
        term = held.term
        assert term is not None
        status = term.exit_status
        state = "running" if status is None else "exited"
        snap = term.screen
        return {
            "name": held.name, "argv": held.argv, "pid": held.pid, "state": state,
            "exit_status": status,
            "described": None if status is None else describe_status(status),
            "cols": snap.cols, "rows": snap.rows, "title": snap.title,
            "inputs": 0 if held.last is None else held.last.index,
            "last_input": None if held.last is None else mark_json(held.last),
            "silent_for": _rounded(term.silent_for()), "input_ready": term.input_ready(),
            "recording": held.record, "warnings": list(term.warnings),
        }

    async def _status(self, name: str | None, request: dict[str, Any]) -> dict[str, Any]:
        about = self._about() if self._about is not None else {}
        if name is not None:
            return {**self._status_of(self._get(name)), "holder": about}
        return {"holder": about,
                "sessions": [self._status_of(h) for _, h in sorted(self.held.items())
                             if h.term is not None]}

    async def _stop(self, name: str | None, request: dict[str, Any]) -> dict[str, Any]:
        held, term = self._term(name)
        running = term.exit_status is None
        held.stopping.set()
        with anyio.CancelScope(shield=True):
            await held.closed.wait()
        self.held.pop(held.name, None)
        status = term.exit_status
        out: dict[str, Any] = {
            "recording": held.record, "exit_status": status,
            "described": describe_status(status) if status is not None else None,
            "hung_up": running, **self._warnings(held)}
        if held.closing_error is not None:
            out["closing_error"] = error_answer("stop", held.name, held.closing_error)["error"]
        return out

    async def stop_all(self) -> None:
        """End every session (the daemon is stopping): their recordings close."""
        for held in list(self.held.values()):
            held.stopping.set()
        with anyio.CancelScope(shield=True):
            for held in list(self.held.values()):
                await held.closed.wait()
        self.held.clear()
        self._touch()


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _outcome(exc: BaseException) -> str:
    """A failed wait's outcome, in the words of a note (and a comment)."""
    name = type(exc).__name__
    return {"WaitTimeout": "timed out", "Stalled": "stalled",
            "ProcessExited": "ended with the program's exit"}.get(name, f"failed ({name})")


def _since(held: Held, since: object) -> Mark | None:
    """The mark a wait counts from: the last input (``"last"``, the
    default), none (``"none"``), or input number N."""
    if since == "last":
        return held.last
    if since == "none" or since is None:
        return None
    if isinstance(since, int) and not isinstance(since, bool):
        if since in held.marks:
            return held.marks[since]
        known = ", ".join(f"#{i}" for i in sorted(held.marks)) or "none yet"
        raise DriveError(f"no input #{since} in session {held.name!r} to count from (its "
                         f"inputs: {known})", status=2, kind="BadRequest")
    raise DriveError("since is 'last' (the default), 'none' or an input's number", status=2,
                     kind="BadRequest")
