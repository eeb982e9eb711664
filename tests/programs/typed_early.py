"""A program still starting up when the test types: it stays cooked, reading
nothing, until the test sends SIGUSR1 (the test's cue, not a sleep), then:

* ``setraw``: switches to raw mode as ``tty.setraw`` does (TCSAFLUSH, which
  discards unread input), prints ``RAW`` and echoes each read;
* ``lines N``: reads N lines cooked (``input()``), prints each, then goes raw
  the same way (its flush then finds nothing unread) and echoes each read;
* ``flush``: discards its unread input (``tcflush``), prints ``FLUSHED``,
  then reads a line cooked;
* ``exec ARGV...``: runs ARGV in its place (the typed input stays queued).

It prints ``STARTED`` once SIGUSR1 and SIGINT are blocked (so neither can
come too soon), ``INT`` on SIGINT, and ``READ <repr>`` for each raw read.
"""

import os
import signal
import sys
import termios
import tty


def echo_raw_reads() -> None:
    tty.setraw(0)  # TCSAFLUSH: what was typed and not read is gone
    os.write(1, b"RAW\r\n")
    while True:
        data = os.read(0, 4096)
        os.write(1, f"READ {data!r}\r\n".encode())
        if b"\x04" in data:
            return


def main() -> None:
    mode, args = sys.argv[1], sys.argv[2:]
    cues = {signal.SIGUSR1, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, cues)
    signal.signal(signal.SIGINT, lambda *_: os.write(1, b"INT\r\n"))
    os.write(1, b"STARTED\r\n")
    # Both taken here, blocked: a handled SIGINT that came just before a
    # blocking call would run its handler only when the call returned.
    while signal.sigwaitinfo(cues).si_signo == signal.SIGINT:
        os.write(1, b"INT\r\n")
    signal.pthread_sigmask(signal.SIG_UNBLOCK, cues)
    if mode == "setraw":
        echo_raw_reads()
    elif mode == "lines":
        for _ in range(int(args[0])):
            print(f"GOT {input()}", flush=True)
        echo_raw_reads()
    elif mode == "flush":
        termios.tcflush(0, termios.TCIFLUSH)
        print("FLUSHED", flush=True)
        print(f"GOT {input()}", flush=True)
    elif mode == "exec":
        os.execvp(args[0], args)


if __name__ == "__main__":
    main()
