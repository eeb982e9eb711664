"""A prompt drawn as ink (React for terminals) draws Claude Code's: ``❯``
and a no-break space (U+00A0), the cursor after them, keys read in raw mode.

Each key is echoed after the prompt; Enter answers ``you said: <line>`` on
the next row and draws the prompt again below it; Ctrl-D exits.
"""

import os
import tty

PROMPT = "❯\u00a0"


def write(text: str) -> None:
    data = text.encode()
    while data:
        data = data[os.write(1, data):]


tty.setraw(0)
write(PROMPT)
line = ""
while True:
    for char in os.read(0, 1024).decode("utf-8", "replace"):
        if char == "\x04":
            write("\r\n")
            raise SystemExit(0)
        if char == "\r":
            write(f"\r\nyou said: {line}\r\n{PROMPT}")
            line = ""
        elif char == "\x7f" and line:
            line = line[:-1]
            write("\b \b")
        elif char.isprintable():
            line += char
            write(char)
