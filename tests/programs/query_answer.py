"""Reads keys one at a time: answers ``a`` with a line, and ``b`` with a line
that ends in a query (CPR), in one write, then reads the reply and says
nothing more until the next key. vim's ``hello`` then escape, in a few lines:
escape's redraw ends in ``CSI ? 4 m``. A key typed before the reply came is
kept for after it. One byte per read: two keys queued are two reads, as
when vim reads one key and redraws before it looks at the next. With
``hold FIFO``, it reads a byte from the FIFO after each answer to 'a': a
test lets it go on when it chooses (a byte sent early waits there)."""

import os
import sys
import tty

hold = os.open(sys.argv[2], os.O_RDONLY) if sys.argv[1:2] == ["hold"] else None

tty.setraw(0)
os.write(1, b"ready\r\n")
count = 0
pending = b""


def byte() -> bytes:
    global pending
    if not pending:
        pending = os.read(0, 1)
    out, pending = pending[:1], pending[1:]
    return out


keys = b""
while True:
    key = keys[:1] or byte()
    keys = keys[1:]
    if key in (b"", b"\x04"):
        break
    count += 1
    query = b"\x1b[6n" if key == b"b" else b""
    os.write(1, b"\rgot %s %d\x1b[K%s" % (key, count, query))
    if key == b"a" and hold is not None:
        os.read(hold, 1)
    if query:
        reply = b""
        while not reply.endswith(b"R"):
            c = byte()
            if not c:
                raise SystemExit(1)
            if reply or c == b"\x1b":
                reply += c
            else:
                keys += c  # typed before the reply came
