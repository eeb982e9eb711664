"""A report to wait for the numbers in: ``total: 42 items``, a row of wide
characters, ``status: ok``, then a ``>>> `` prompt read in raw mode. Enter
there prints 30 rows (``line N: wordN``) that scroll the report away,
``done in 7 ms`` and the prompt again; Enter there exits."""

import os
import tty


def write(text: str) -> None:
    data = text.encode()
    while data:
        data = data[os.write(1, data):]


def read_line() -> None:
    """Until Enter, echoing what is typed."""
    while True:
        data = os.read(0, 1024)
        write(data.replace(b"\r", b"").decode("utf-8", "replace"))
        if b"\r" in data:
            write("\r\n")
            return


tty.setraw(0)
write("report\r\n  total: 42 items\r\n名前: アナ\r\nstatus: ok\r\n>>> ")
read_line()
write("".join(f"line {i}: word{i}\r\n" for i in range(1, 31)) + "done in 7 ms\r\n>>> ")
read_line()
