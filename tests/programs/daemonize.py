"""Starts a daemon the classic way (fork, setsid, fork again, close stdio,
ignore SIGHUP), prints its pid, then exits or, with --stay, waits for input.
Used to prove that nothing a session started outlives it."""

import os
import signal
import sys

read_end, write_end = os.pipe()
first = os.fork()
if first == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        os.write(write_end, f"{os.getpid()}\n".encode())
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.chdir("/")
        while True:
            signal.pause()
    os._exit(0)
os.waitpid(first, 0)
os.close(write_end)
daemon = os.read(read_end, 64).decode().strip()
print(f"DAEMON {daemon} END", flush=True)
if "--stay" in sys.argv:
    sys.stdin.readline()
