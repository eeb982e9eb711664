"""Draws a run of frames, as a progress line or a streamed reply does, and
says things between them (a bell, titles), so that a wait which fails
after it has screens its film strip leaves out, and signals among them.

    truth_frames.py N [auto] [fill] [bell=K] [every=M] [pause=MS]

It prints ``ready> `` in raw mode; on ``g`` (or at once, with ``auto``)
it draws N frames (``frame 001``..., as wide as the screen with
``fill``) on the next row, one write each, MS (4) milliseconds apart (a
program's own pace: nothing waits on it), ringing the bell with frame K
(5) and setting the title to ``step J`` with every M-th (20th) frame J;
then ``idle> ``. ``q`` quits.
"""

import os
import sys
import time
import tty

COUNT = int(sys.argv[1])
OPTIONS = dict(arg.split("=") for arg in sys.argv[2:] if "=" in arg)
AUTO = "auto" in sys.argv[2:]
BELL = int(OPTIONS.get("bell", 5))
EVERY = int(OPTIONS.get("every", 20))
PAUSE = float(OPTIONS.get("pause", 4)) / 1000
WIDTH = os.get_terminal_size(1).columns if "fill" in sys.argv[2:] else 0


def frames() -> None:
    os.write(1, b"\r\n")
    for k in range(1, COUNT + 1):
        said = b"\x07" if k == BELL else b""
        if k % EVERY == 0:
            said += b"\x1b]2;step %d\x07" % k
        os.write(1, said + b"\r\x1b[K" + (b"frame %03d " % k).ljust(WIDTH, b"="))
        time.sleep(PAUSE)  # sync-ok: the program under test draws at a pace of its own
    os.write(1, b"\r\nidle> ")


tty.setraw(0)
os.write(1, b"ready> ")
if AUTO:
    frames()
while True:
    key = os.read(0, 1)
    if not key or key == b"q":
        break
    if key == b"g":
        frames()
