"""A modal editor of one line, as vi is: in normal mode ``i`` enters insert
mode (the bottom row says ``-- INSERT --``), ``x`` deletes the last
character, ``q`` quits, other keys do nothing; in insert mode what is typed
is echoed at the cursor, and Escape goes back to normal mode. The top row is
the line, the one below it the help."""

import io
import os
import sys
import tty

tty.setraw(0)
out = io.StringIO()  # what one read makes the program draw, written at once
out.write("\x1b[2J\x1b[2;1Hi: insert  x: delete  q: quit\x1b[H")


def flush() -> None:
    os.write(1, out.getvalue().encode())
    out.seek(0)
    out.truncate()


flush()
line = ""
insert = False


def draw_line() -> None:
    out.write(f"\x1b[1;1H\x1b[K{line}")


def draw_mode() -> None:
    out.write(f"\x1b[{os.get_terminal_size(1).lines};1H\x1b[K")
    if insert:
        out.write("-- INSERT --")
    draw_line()


while True:
    data = os.read(0, 1024).decode("utf-8", "replace")
    for char in data:
        if insert:
            if char == "\x1b":
                insert = False
                draw_mode()
            elif char.isprintable():
                line += char
                out.write(char)
        elif char == "i":
            insert = True
            draw_mode()
        elif char == "x" and line:
            line = line[:-1]
            draw_line()
        elif char == "q":
            out.write("\x1b[2J\x1b[H")
            flush()
            sys.exit(0)
    flush()
