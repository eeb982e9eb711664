"""Reads one key in raw mode, then writes three frames in ONE write: each
frame hides the cursor, redraws the status row (``state: queued``, then
``running``, then ``finished``) and shows the cursor again. A ``Sequence``
of the three states must see every frame, whichever of termsim's tasks
(the PTY reader, the read watch, the test) runs first."""

import os
import tty

tty.setraw(0)
os.write(1, b"state: ready\r\n> ")
while True:
    key = os.read(0, 1)
    if not key or key == b"\x04":
        break
    frames = b"".join(
        b"\x1b[?25l\x1b[1;1H\x1b[2Kstate: " + state + b"\x1b[2;3H\x1b[?25h"
        for state in (b"queued", b"running", b"finished"))
    os.write(1, frames)
