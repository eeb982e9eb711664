"""Ignores SIGHUP and SIGTERM, forks a grandchild that does too, and one in a
new session; prints all three pids, then waits for signals it ignores. Used to prove cleanup."""

import os
import signal
import sys

for sig in (signal.SIGHUP, signal.SIGTERM):
    signal.signal(sig, signal.SIG_IGN)

pids = [os.getpid()]
child = os.fork()
if child == 0:
    while True:
        signal.pause()
pids.append(child)
if len(sys.argv) > 1 and sys.argv[1] == "--setsid":
    detached = os.fork()
    if detached == 0:
        os.setsid()
        while True:
            signal.pause()
    pids.append(detached)
print("PIDS " + " ".join(map(str, pids)) + " END", flush=True)
while True:
    signal.pause()
