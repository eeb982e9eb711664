"""Asks its terminal who it is, as programs that adapt to it do: DA1, DA2,
XTVERSION, the kitty keyboard query and the background colour (OSC 11),
each followed by a device status
request (every terminal answers that one, so what came before it is the
answer, or nothing), then prints the answers and the variables a terminal
sets, and exits on a key."""

import os
import sys
import tty

QUERIES = {"da1": b"\x1b[c", "da2": b"\x1b[>c", "xtversion": b"\x1b[>q", "kitty": b"\x1b[?u",
           "background": b"\x1b]11;?\x07"}

tty.setraw(0)


def ask(query: bytes) -> bytes:
    os.write(1, query + b"\x1b[5n")
    got = b""
    while not got.endswith(b"\x1b[0n"):
        got += os.read(0, 1024)
    return got[: -len(b"\x1b[0n")]


answers = {name: ask(query) for name, query in QUERIES.items()}
lines = [f"{name}: {answer!r}" for name, answer in answers.items()]
lines += [f"{name}={os.environ.get(name, '-')}"
          for name in ("TERM", "TERM_PROGRAM", "KITTY_WINDOW_ID", "COLORTERM")]
lines.append(f"size {os.get_terminal_size(0).columns}x{os.get_terminal_size(0).lines}")
os.write(1, ("\r\n".join(lines) + "\r\ndone> ").encode())
os.read(0, 1)
sys.exit(0)
