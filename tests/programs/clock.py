"""A REPL with a clock in its status line and durations in its answers, as
build tools and agent CLIs have: what a generated test must leave free.
``CLOCK_OFFSET`` (seconds) moves its clock, to be a minute later now."""

import os
import sys
import time
import tty

OFFSET = float(os.environ.get("CLOCK_OFFSET", "0"))


def now() -> str:
    return time.strftime("%H:%M:%S", time.localtime(time.time() + OFFSET))


def status() -> bytes:
    # Save the cursor, draw the bottom row, come back.
    return f"\x1b7\x1b[24;1H\x1b[2Kready at {now()} pid {os.getpid()}\x1b8".encode()


tty.setraw(0)
os.write(1, status() + b"> ")
count = 0
line = b""
while True:
    key = os.read(0, 1)
    if not key or key == b"\x04":
        break
    if key == b"\r":
        count += 1
        took = 0.25 + count / 100 + (OFFSET / 1000)
        answer = f"\r\nran {line.decode()!r}, took {took:.2f} s\r\n".encode()
        os.write(1, answer + status() + b"> ")
        line = b""
    else:
        line += key
        os.write(1, key)
sys.exit(0)
