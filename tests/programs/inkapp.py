"""An agent TUI drawn the way ink (React for terminals) draws: what Claude
Code and Gemini CLI are, in miniature, for the generated tests of
``tests/test_codegen_agents.py``.

ink's log-update keeps no screen: on every change it erases the lines of its
last frame (``ESC[2K`` then ``ESC[1A``, once a line, then ``ESC[G``) and
writes the whole new frame, changed or not. Messages go above it once, as
ink's ``<Static>`` writes them. The cursor stays hidden; the input box draws
its own (an inverse cell), and the prompt is ``❯`` and a no-break space.
Below the box, a status line that every frame redraws identically but for
its clock (which ticks each second), and a footer of hints.

It starts with a mode picker (up/down, Enter), drawn whole in a
synchronized update (mode 2026) as full-screen TUIs draw their dialogs,
that comes up before the program has finished starting, as Codex CLI's
first dialog does: it then asks the terminal for its attributes (DA1)
``INKAPP_SETTLE`` times, each once the last is answered (20 unless set;
0: it is ready at once), drops every key that comes meanwhile, and redraws
the picker. The start is a run of round trips, not a span of time, so what
is lost does not depend on how busy the machine is: a key pressed as soon
as the picker shows comes during the run (the terminal answers from the
event loop that sends the key, which answers a couple at most before it
does), and one pressed once the program has been quiet comes after it (the
run ends with the redraw, and the run's queries are output). Then each
line typed and submitted with Enter is sent to a model server
(``INKAPP_MODEL_URL``, a POST of ``{"prompt": ...}`` answered with
``{"reply": ...}``): ``✻ Thinking…`` with a spinner while it waits, then
the reply, a line a row, after ``⏺``. A first Ctrl-C says
``Press Ctrl-C again to exit`` in the footer; a second exits 0. With
``INKAPP_SHOW_CWD=1``, the frame's last row is the working directory, as
Gemini CLI shows it.
"""

import json
import os
import re
import select
import sys
import termios
import time
import tty
import urllib.request

URL = os.environ.get("INKAPP_MODEL_URL", "")
COLS = os.get_terminal_size(1).columns
SPINNER = "·✢✳✶✻✽"
MODES = ["fast", "careful"]
SHOW_CWD = os.environ.get("INKAPP_SHOW_CWD") == "1"
SETTLE = int(os.environ.get("INKAPP_SETTLE", "20"))
DA1 = "\x1b[c"
ANSWER = re.compile(rb"\x1b\[\?[\d;]*c")


def write(text: str) -> None:
    data = text.encode()
    while data:
        data = data[os.write(1, data):]


class Screen:
    """The frame last drawn, to erase it, as log-update does."""

    lines = 0

    def render(self, frame: list[str], static: list[str] = (), *, sync: bool = False) -> None:
        """Draw ``frame`` over the last one; ``sync``: in a synchronized
        update (mode 2026), which a terminal shows whole at its end."""
        out = ["\x1b[?2026h"] if sync else []
        if self.lines:
            for i in range(self.lines):
                out.append("\x1b[2K" + ("\x1b[1A" if i < self.lines - 1 else ""))
            out.append("\x1b[G")
        out.extend(f"{line}\r\n" for line in static)
        out.append("\r\n".join(frame))
        self.lines = len(frame)
        write("".join(out) + ("\x1b[?2026l" if sync else ""))


screen = Screen()


def box(text: str, cursor: str) -> list[str]:
    """The input box, ``cursor`` (drawn, not the terminal's) after ``text``."""
    pad = " " * (COLS - 5 - len(text))
    return ["╭" + "─" * (COLS - 2) + "╮", f"│ {text}{cursor}{pad} │",
            "╰" + "─" * (COLS - 2) + "╯"]


def status() -> str:
    return f"  ● {MODES[mode]} · /effort · {time.strftime('%H:%M:%S')}"


def main_frame(line: str, footer: str, working: str = "") -> list[str]:
    return [*([working] if working else []),
            *box(f"❯\u00a0{line}", "\x1b[7m \x1b[27m"), status(), f"  {footer}",
            *([f"  {os.getcwd()}"] if SHOW_CWD else [])]


def picker_frame(choice: int) -> list[str]:
    return ["Select a mode:",
            *(f"{'❯' if i == choice else ' '} {i + 1}. {name}" for i, name in enumerate(MODES)),
            "Enter to confirm"]


def ask(prompt: str) -> list[str]:
    """The model's reply, a line a row, drawing the spinner while it comes."""
    import threading

    result: list[str] = []

    def fetch() -> None:
        request = urllib.request.Request(URL, data=json.dumps({"prompt": prompt}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            result.extend(json.load(response)["reply"].splitlines())

    thread = threading.Thread(target=fetch)
    thread.start()
    started, frame = time.monotonic(), 0
    while thread.is_alive():
        elapsed = int(time.monotonic() - started)
        working = f"{SPINNER[frame % len(SPINNER)]} Thinking… ({elapsed}s · esc to interrupt)"
        screen.render(main_frame("", "? for shortcuts", working))
        frame += 1
        thread.join(0.1)
    return result


def settle() -> None:
    """Finish starting: ask DA1 ``SETTLE`` times, each once the last is
    answered, dropping whatever else comes (the keys pressed meanwhile)."""
    pending = b""
    for _ in range(SETTLE):
        write(DA1)
        while not ANSWER.search(pending):
            data = os.read(fd, 1024)
            if not data:
                raise SystemExit("inkapp: the terminal went away while it started")
            pending += data
        pending = pending[ANSWER.search(pending).end():]  # what follows is dropped too


fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd)
tty.setraw(fd)
write("\x1b[?25l")
mode = 0
try:
    screen.render(picker_frame(mode), sync=True)
    if SETTLE:
        settle()
        screen.render(picker_frame(mode), sync=True)
    while True:
        key = os.read(fd, 64)
        if key in (b"\x1b[A", b"\x1bOA"):
            mode = max(0, mode - 1)
        elif key in (b"\x1b[B", b"\x1bOB"):
            mode = min(len(MODES) - 1, mode + 1)
        elif key == b"\r":
            break
        screen.render(picker_frame(mode), sync=True)
    screen.render([], [f"mode: {MODES[mode]}"])
    screen.lines = 0
    line, footer, tick = "", "? for shortcuts", time.monotonic()
    screen.render(main_frame(line, footer))
    while True:
        ready, _, _ = select.select([fd], [], [], max(0.0, tick + 1 - time.monotonic()))
        if not ready:
            tick = time.monotonic()
            screen.render(main_frame(line, footer))  # the clock: the whole frame again
            continue
        data = os.read(fd, 1024).decode("utf-8", "replace")
        for char in data:
            if char == "\x03":
                if footer.startswith("Press"):
                    raise SystemExit(0)
                footer = "Press Ctrl-C again to exit"
            elif char == "\r" and line:
                prompt, line, footer = line, "", "? for shortcuts"
                reply = ask(prompt)
                screen.render(main_frame(line, footer),
                              [f"> {prompt}", *(f"⏺ {text}" for text in reply), ""])
            elif char == "\x7f":
                line = line[:-1]
            elif char.isprintable():
                line += char
        screen.render(main_frame(line, footer))
finally:
    write("\r\n\x1b[?25h")
    termios.tcsetattr(fd, termios.TCSADRAIN, saved)
