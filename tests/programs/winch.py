"""Prints its terminal size at start and on every SIGWINCH; with --echo,
prints ``got:<line>`` for the line it then reads."""

import os
import select
import signal
import sys


def report(*_: object) -> None:
    size = os.get_terminal_size(0)
    sys.stdout.write(f"SIZE {size.columns}x{size.lines}\r\n")
    sys.stdout.flush()


# The handler is run when the interpreter next checks, which a blocking
# read postpones until the read returns: a resize that came just before
# ``readline`` began was reported only with the line. So the program waits
# on the signal's wakeup fd as well as on its input, and reads once a line
# is there.
wake_r, wake_w = os.pipe()
os.set_blocking(wake_w, False)
signal.set_wakeup_fd(wake_w)
signal.signal(signal.SIGWINCH, report)
report()
while 0 not in select.select([0, wake_r], [], [])[0]:
    os.read(wake_r, 512)  # a resize: its handler runs as the loop goes round
line = sys.stdin.readline()
if "--echo" in sys.argv:
    sys.stdout.write(f"got:{line.strip()}\r\n")
    sys.stdout.flush()
