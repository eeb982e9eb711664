"""The program of a tmux pane in which ``tests/test_play_untrusted.py`` runs
``termsim play``, and the watcher of that pane's output.

``play_pane.py pane SERVER CHANNEL DIR -- ARGV...`` (the pane's program):
waits for ``CHANNEL-go`` (the test has read the pane's state before and set
up what it needs), runs ARGV (``termsim play ...``) with the pane as its
terminal and its stderr in DIR/stderr, writes its pid (then wakes
``CHANNEL-pid``) and, when it ends, its exit status (DIR/status). Then it
prints a line of plain text, which shows the character set and attributes
play left, and asks tmux for a DSR: tmux answers while parsing, so the
answer means every byte play wrote has been drawn, and it wakes
``CHANNEL-done``, the moment the test reads tmux's state. Last, it reads
what tmux sends for a paste, up to the ``Z`` the test types after it (in
DIR/paste: bracketed or not), and wakes ``CHANNEL-pasted``. Ctrl-C is for
play: this program ignores SIGINT once play runs.

``play_pane.py watch SERVER CHANNEL MARKER`` (run by ``tmux pipe-pane``
with the pane's output as its input): wakes ``CHANNEL-drawn`` once MARKER
has gone by, then reads on to the end, so that the test can stop play in
the middle of a pause it knows play is in. Standard library only.
"""

import os
import signal
import subprocess
import sys
import tty
from pathlib import Path


def _wake(server: str, channel: str) -> None:
    subprocess.run(["tmux", "-L", server, "wait-for", "-S", channel], check=True)


def pane(server: str, channel: str, where: Path, argv: list[str]) -> None:
    subprocess.run(["tmux", "-L", server, "wait-for", f"{channel}-go"], check=True)
    with open(where / "stderr", "wb") as err:
        child = subprocess.Popen(argv, stderr=err)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        (where / "pid").write_text(str(child.pid))
        _wake(server, f"{channel}-pid")
        status = child.wait()
    (where / "status").write_text(str(status))
    os.write(1, b"\r\nAFTER qqq xxx\r\n")
    tty.setraw(0)
    os.write(1, b"\x1b[5n")
    got = b""
    while b"\x1b[0n" not in got:
        got += os.read(0, 1024)
    _wake(server, f"{channel}-done")
    got = got.partition(b"\x1b[0n")[2]
    while b"Z" not in got:
        got += os.read(0, 1024)
    (where / "paste").write_bytes(got)
    _wake(server, f"{channel}-pasted")


def watch(server: str, channel: str, marker: bytes) -> None:
    seen = b""
    while marker not in seen:
        chunk = os.read(0, 65536)
        if not chunk:
            return
        seen = seen[-len(marker):] + chunk
    _wake(server, f"{channel}-drawn")
    while os.read(0, 65536):
        pass


if __name__ == "__main__":
    if sys.argv[1:2] == ["pane"] and sys.argv[5:6] == ["--"]:
        pane(sys.argv[2], sys.argv[3], Path(sys.argv[4]), sys.argv[6:])
    elif sys.argv[1:2] == ["watch"] and len(sys.argv) == 5:
        watch(sys.argv[2], sys.argv[3], sys.argv[4].encode())
    else:
        sys.exit("usage: play_pane.py pane SERVER CHANNEL DIR -- ARGV... | "
                 "play_pane.py watch SERVER CHANNEL MARKER")
