"""Talks to its terminal through /dev/tty, not fds 0 and 1, as less, fzf,
emacs, pinentry and password prompts do: raw mode on /dev/tty, writes
``ready> `` there, and answers each byte it reads with ``got X``. Its
stdin is not the terminal when run with ``< /dev/null``."""

import os
import tty

fd = os.open("/dev/tty", os.O_RDWR)
tty.setraw(fd)
os.write(fd, b"ready> ")
while True:
    data = os.read(fd, 1)
    if not data or data == b"\x04":
        break
    os.write(fd, b"got " + data + b"\r\nready> ")
