"""Prints its terminal size at start and on every SIGWINCH."""

import os
import signal
import sys


def report(*_: object) -> None:
    size = os.get_terminal_size(0)
    sys.stdout.write(f"SIZE {size.columns}x{size.lines}\r\n")
    sys.stdout.flush()


signal.signal(signal.SIGWINCH, report)
report()
sys.stdin.readline()
