"""The daemon's protocol: one JSON object a line, one request and one answer
a connection.

A client connects, writes its request (``{"verb": "wait", "session":
"repl", ...}``) and a newline, and reads one line back: the answer, as
:mod:`termsim.drive.service` makes it. The connection then closes. A
client that goes away while its wait runs (Ctrl-C) cancels the wait; the
recording says it was cancelled. JSON is written ASCII-only: what a
program drew reaches the client escaped, never as a control character.
"""

from __future__ import annotations

import json
from typing import Any

#: The longest answer line (a screen of 1000x1000 cells is about 18 MB).
MAX_LINE = 64 * 1024 * 1024
#: The longest request line (a paste of a few MB): what the daemon holds for
#: one connection before it has a whole request.
MAX_REQUEST = 4 * 1024 * 1024
#: The version a client and a daemon speak; a mismatch is refused.
VERSION = 1


def encode(message: dict[str, Any]) -> bytes:
    """One line of the protocol."""
    return json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """The object one line holds; ValueError if it holds none."""
    try:
        value = json.loads(line.decode("utf-8"))
    except RecursionError:  # nested past the interpreter's limit: no request of ours is
        raise ValueError("nested too deeply") from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value
