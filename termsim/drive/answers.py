"""What the steps answer: JSON objects an agent reads (and ``--json`` prints).

A screen is its rows (trailing blanks removed), the cursor, the title, the
modes, whether the program reads keys and the queries it still waits for;
an error is its type as a test sees it (``termsim.WaitTimeout``), its whole
message, and the exit status the command gives.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ..emulator.snapshot.snapshot import Snapshot
from ..engine.source import Mark
from ..errors import ArgumentError, TermsimError
from ..live.session import Session
from .paths import DriveError


def error_answer(verb: str, name: str | None, exc: BaseException) -> dict[str, Any]:
    """The answer for a step that raised ``exc``: its type as a test sees it
    (``termsim.WaitTimeout``) and its message, whole."""
    message = str(exc)
    if isinstance(exc, DriveError):
        kind, status = exc.kind, exc.status
    elif isinstance(exc, TermsimError):
        kind = f"termsim.{type(exc).__name__}"
        status = 2 if isinstance(exc, ArgumentError) else 1
    elif isinstance(exc, OSError):
        kind, status = "OSError", 1
        message = f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)
    else:  # a bug of termsim's: said as one, not as the program's failure
        kind, status = "InternalError", 3
        message = f"internal error: {type(exc).__name__}: {exc} (please report it)"
    return {"ok": False, "verb": verb, "session": name,
            "error": {"type": kind, "message": message}, "status": status}


def screen_json(snap: Snapshot, term: Session | None = None) -> dict[str, Any]:
    """A screen as an agent reads it: its rows (trailing blanks removed),
    the cursor, the title, the modes, whether the program reads keys, and
    the queries it is still waiting for an answer to."""
    out: dict[str, Any] = {
        "cols": snap.cols, "rows": snap.rows,
        "lines": [line.rstrip() for line in snap.lines],
        "cursor": {"row": snap.cursor.row, "col": snap.cursor.col,
                   "visible": snap.cursor.visible},
        "title": snap.title, "alternate": snap.alternate,
        "modes": asdict(snap.modes), "input_ready": snap.input_ready,
    }
    if term is not None:
        out["unanswered"] = [{"request": q.request, "kind": q.kind, "offset": q.offset,
                              "status": q.status} for q in term.unanswered()]
    return out


def match_json(snap: Snapshot) -> dict[str, Any] | None:
    match = snap.match
    if match is None:
        return None
    return {"text": match.group(0), "groups": list(match.groups()),
            "named": match.groupdict(), "row": match.row, "col": match.col}


def mark_json(mark: Mark) -> dict[str, Any]:
    return {"input": mark.index, "label": mark.label, "at": round(mark.at, 6)}
