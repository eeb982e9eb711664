"""Probes its terminal the way Codex and Gemini CLI do, then sets modes:
``truth_probe.py QUERY [alone] [MODE...]``.

It writes QUERY (``kitty``: the kitty keyboard query ``ESC[?u``; ``cpr``:
``ESC[6n``) and DA1 (``ESC[c``) in one write, and reads until DA1's answer
(``ESC[?...c``) has come: a terminal that does not know the query answers
only DA1, and the program goes on without it. With ``alone`` it writes
QUERY only and goes on at once. Then it sets each MODE (``CSI ? MODE h``),
prints ``ready> ``, and reads keys until ``q``. Reads wait with a timeout
(``select``), so a terminal that never answers ends the probe, not the test.
"""

import os
import re
import select
import sys
import tty

QUERIES = {"kitty": b"\x1b[?u", "cpr": b"\x1b[6n"}
DA1_ANSWER = re.compile(rb"\x1b\[\?[\d;]*c")

query, rest = QUERIES[sys.argv[1]], sys.argv[2:]
alone = rest[:1] == ["alone"]
modes = rest[1:] if alone else rest

tty.setraw(0)
if alone:
    os.write(1, query)
else:
    os.write(1, query + b"\x1b[c")
    got = b""
    while not DA1_ANSWER.search(got):
        ready, _, _ = select.select([0], [], [], 10)
        if not ready:
            break
        got += os.read(0, 1024)
os.write(1, b"".join(b"\x1b[?%sh" % mode.encode() for mode in modes) + b"ready> ")
while os.read(0, 1) not in (b"q", b""):
    pass
