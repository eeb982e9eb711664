"""Draws a run of frames, as a progress line or a streamed reply does, and
says things between them (a bell, titles), so that a wait which fails
after it has screens its film strip leaves out, and signals among them.

    truth_frames.py N [auto] [fill] [bell=K] [every=M] [ack=FIFO]

It prints ``ready> `` in raw mode; on ``g`` (or, with ``auto``, unasked)
it draws N frames (``frame 001``..., as wide as the screen with ``fill``)
on the next row, one write each, ringing the bell with frame K (5) and
setting the title to ``step J`` with every M-th (20th) frame J; then
``idle> `` (a write of its own). ``q`` quits.

Without ``ack``, the frames come 4 ms apart, a program's own pace: how many
reads they make depends on how busy the machine is. With ``ack=FIFO``, the
test paces them: after each frame J the program waits until a line of the
FIFO says a number of at least J (the test has read frame J), so every
frame is a read, a screen, of its own, however loaded the machine; with
``auto`` it also waits for a line (``0``) before the first frame, sent when
the test's wait begins, so that none is drawn before it.
"""

import os
import sys
import time
import tty

COUNT = int(sys.argv[1])
OPTIONS = dict(arg.split("=", 1) for arg in sys.argv[2:] if "=" in arg)
AUTO = "auto" in sys.argv[2:]
BELL = int(OPTIONS.get("bell", 5))
EVERY = int(OPTIONS.get("every", 20))
WIDTH = os.get_terminal_size(1).columns if "fill" in sys.argv[2:] else 0
ACKS = open(OPTIONS["ack"], "rb") if "ack" in OPTIONS else None  # noqa: SIM115
heard = -1


def acked(k: int) -> None:
    """Return once the test says it has read frame ``k`` (0: go)."""
    global heard
    assert ACKS is not None
    while heard < k:
        line = ACKS.readline()
        if not line:
            raise SystemExit("truth_frames: the acknowledgement FIFO closed")
        heard = max(heard, int(line))


def frames() -> None:
    for k in range(1, COUNT + 1):
        said = b"\r\n" if k == 1 else b""
        if k == BELL:
            said += b"\x07"
        if k % EVERY == 0:
            said += b"\x1b]2;step %d\x07" % k
        os.write(1, said + b"\r\x1b[K" + (b"frame %03d " % k).ljust(WIDTH, b"="))
        if ACKS is not None:
            acked(k)
        else:
            time.sleep(0.004)  # sync-ok: the program under test draws at a pace of its own
    os.write(1, b"\r\nidle> ")


tty.setraw(0)
os.write(1, b"ready> ")
if AUTO:
    if ACKS is not None:
        acked(0)
    frames()
while True:
    key = os.read(0, 1)
    if not key or key == b"q":
        break
    if key == b"g":
        frames()
