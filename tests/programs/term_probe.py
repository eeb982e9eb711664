"""Asks the terminal it runs in a list of queries and writes the answers as
JSON: ``term_probe.py OUT QUERIES_JSON [TIMEOUT]``.

Each query is followed by a device status request (``ESC [ 5 n``), which
every terminal answers, in order: so what came before that answer is the
answer to the query, or nothing. The tty is put in raw mode first (no echo,
no line discipline), so the answers arrive byte for byte. Every read blocks
with a timeout (``select``), never a sleep: a terminal that stops answering
ends the probe with ``"error"`` in the JSON instead of hanging it. The JSON
(``{"replies": {name: answer}, "env": {...}, "error": ...}``, answers decoded
as latin-1) is written to OUT.tmp and renamed, so OUT is whole or absent.
"""

import json
import os
import select
import sys
import termios
import tty

DSR_REPLY = b"\x1b[0n"


def main() -> int:
    out, queries = sys.argv[1], json.loads(sys.argv[2])
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    saved = termios.tcgetattr(0)
    tty.setraw(0)
    replies: dict[str, str] = {}
    error = None
    pending = b""
    try:
        for name, query in queries.items():
            os.write(1, query.encode("latin-1") + b"\x1b[5n")
            while DSR_REPLY not in pending:
                ready, _, _ = select.select([0], [], [], timeout)
                chunk = os.read(0, 4096) if ready else b""
                if not chunk:
                    error = f"no DSR answer after {name} within {timeout}s"
                    break
                pending += chunk
            if error:
                break
            reply, _, pending = pending.partition(DSR_REPLY)
            replies[name] = reply.decode("latin-1")
    finally:
        termios.tcsetattr(0, termios.TCSANOW, saved)
    env = {key: os.environ.get(key) for key in (
        "TERM", "XTERM_VERSION", "XTERM_LOCALE", "XTERM_SHELL", "WINDOWID", "COLORTERM",
        "TERM_PROGRAM")}
    with open(out + ".tmp", "w") as file:
        json.dump({"replies": replies, "env": env, "error": error}, file)
    os.replace(out + ".tmp", out)
    return 1 if error else 0


if __name__ == "__main__":
    sys.exit(main())
