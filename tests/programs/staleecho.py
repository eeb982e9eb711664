"""A raw-mode program whose toolbar says "sleeping" just *before* it reads each
key: the output a since-wait must not take for the answer to that key.

argv: seconds to wait before drawing the stale toolbar, seconds from it to
reading the key, seconds between "working" and the answer. Ctrl-D ends it.
"""

import os
import sys
import time
import tty

before, gap, work = (float(a) for a in sys.argv[1:4])
tty.setraw(0)


def show(text: str) -> None:
    sys.stdout.write(f"\r\x1b[K{text}")
    sys.stdout.flush()


sys.stdout.write("READY\r\n")
count = 0
while True:
    time.sleep(before)  # sync-ok: the program is busy; the test's key waits in the queue
    show("state: sleeping")  # stale: drawn before the key is read
    time.sleep(gap)  # sync-ok: the program's own pace, what the test races
    key = os.read(0, 1)
    if key == b"\x04":
        break
    count += 1
    show("state: working")
    time.sleep(work)  # sync-ok: the program's own pace
    show(f"state: sleeping (answered {count}: {key.decode()})")
