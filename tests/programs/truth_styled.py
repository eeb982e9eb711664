"""Prints a status line whose look comes from the environment, as an agent
CLI's ``· working on: …`` line does: two runs that differ only in its
attribute (``TRUTH_STYLE``, an SGR code), its column (``TRUTH_COLUMN``) or
its words (``TRUTH_WORD``). ``q`` quits."""

import os
import tty

style = os.environ.get("TRUTH_STYLE", "2")
column = os.environ.get("TRUTH_COLUMN", "1")
word = os.environ.get("TRUTH_WORD", "hello")

tty.setraw(0)
os.write(1, f"prompt> \r\n\x1b[{column}G\x1b[{style}m· working on: {word}\x1b[0m\r\n".encode())
while os.read(0, 1) not in (b"q", b""):
    pass
