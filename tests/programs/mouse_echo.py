"""Enables the mouse mode and encoding given on the command line (e.g.
``1002 1006``), prints READY, then prints each read in Python's repr until
it reads ``q``. The mouse tests check what termsim's gestures deliver."""

import os
import sys
import tty

modes = sys.argv[1:]
tty.setraw(0)
sys.stdout.write("".join(f"\x1b[?{m}h" for m in modes) + "READY\r\n")
sys.stdout.flush()
while True:
    data = os.read(0, 1024)
    sys.stdout.write(f"READ {data!r}\r\n")
    sys.stdout.flush()
    if data == b"q":
        break
