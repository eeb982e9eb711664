"""Prints its terminal size at start and on every SIGWINCH; with --echo,
prints ``got:<line>`` for the line it then reads."""

import os
import signal
import sys


def report(*_: object) -> None:
    size = os.get_terminal_size(0)
    sys.stdout.write(f"SIZE {size.columns}x{size.lines}\r\n")
    sys.stdout.flush()


signal.signal(signal.SIGWINCH, report)
report()
line = sys.stdin.readline()
if "--echo" in sys.argv:
    sys.stdout.write(f"got:{line.strip()}\r\n")
    sys.stdout.flush()
