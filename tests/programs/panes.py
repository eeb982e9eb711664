"""Two panes side by side, boxed in line-drawing characters, as mc or a
textual app draws them, full screen. The left one counts: ``n`` counts one
more (only that pane's row is redrawn). The right one shows a number that
changes from run to run (``PANES_LUCKY``, else from the process id), on the
same row as the count: a wait on that row would depend on it, a wait in the
left pane does not. The right pane is split in two: the lower box lists
what the keys do. ``q`` quits."""

import os
import shutil
import sys
import tty

tty.setraw(0)
cols, rows = shutil.get_terminal_size()
half = cols // 2
height = rows - 2
lucky = os.environ.get("PANES_LUCKY") or str(os.getpid() % 90 + 10)
out = sys.stdout


def box(top: int, left: int, width: int, tall: int, title: str, lines: list[str]) -> None:
    inner = width - 2
    out.write(f"\x1b[{top + 1};{left + 1}H┌─ {title} " + "─" * (inner - len(title) - 3) + "┐")
    for r in range(1, tall - 1):
        text = lines[r - 1] if r - 1 < len(lines) else ""
        out.write(f"\x1b[{top + r + 1};{left + 1}H│ {text:<{inner - 1}}│")
    out.write(f"\x1b[{top + tall};{left + 1}H└" + "─" * inner + "┘")


def count(n: int) -> None:
    out.write(f"\x1b[2;3Hcount: {n:<4}")


out.write("\x1b[?1049h\x1b[?25l\x1b[2J")
box(0, 0, half, height, "counter", ["count: 0", "", "apples", "pears", "plums"])
upper = height // 2
box(0, half, cols - half, upper, "visitor", [f"lucky number: {lucky}"])
box(upper, half, cols - half, height - upper, "keys", ["n: count one more", "q: quit"])
out.write(f"\x1b[{rows};1Hpanes: ready")
out.flush()
n = 0
while True:
    data = os.read(0, 1024)
    for byte in data:
        if byte == ord("n"):
            n += 1
            count(n)
        elif byte == ord("q"):
            out.write("\x1b[?1049l\x1b[?25h")
            out.flush()
            sys.exit(0)
    out.flush()
