"""Echoes each key it reads in a colour of its own, one key per read and one
write per key, as a syntax-highlighting prompt does: a secret typed key by
key then crosses the PTY as one character between two SGR sequences at a
time. Enter starts a new prompt; Ctrl-D ends."""

import os
import sys
import tty

tty.setraw(0)
os.write(1, b"READY> ")
count = 0
while True:
    key = os.read(0, 1)
    if not key or key == b"\x04":
        break
    if key == b"\r":
        os.write(1, b"\r\n> ")
        continue
    os.write(1, b"\x1b[3%dm" % (count % 7 + 1) + key + b"\x1b[0m")
    count += 1
sys.exit(0)
