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

It starts with a mode picker (up/down, Enter) that comes up before the
program has finished starting: keys pressed in its first ``INKAPP_SETTLE``
seconds (0.3 unless set; 0: none) are dropped (the input is flushed), as
Codex CLI drops keys pressed while its first dialog is drawn. Then each
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
SETTLE = float(os.environ.get("INKAPP_SETTLE", "0.3"))


def write(text: str) -> None:
    data = text.encode()
    while data:
        data = data[os.write(1, data):]


class Screen:
    """The frame last drawn, to erase it, as log-update does."""

    lines = 0

    def render(self, frame: list[str], static: list[str] = ()) -> None:
        out = []
        if self.lines:
            for i in range(self.lines):
                out.append("\x1b[2K" + ("\x1b[1A" if i < self.lines - 1 else ""))
            out.append("\x1b[G")
        out.extend(f"{line}\r\n" for line in static)
        out.append("\r\n".join(frame))
        self.lines = len(frame)
        write("".join(out))


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


fd = sys.stdin.fileno()
saved = termios.tcgetattr(fd)
tty.setraw(fd)
write("\x1b[?25l")
mode = 0
try:
    screen.render(picker_frame(mode))
    if SETTLE:
        time.sleep(SETTLE)  # sync-ok: a slow start, whose early keys are lost
        termios.tcflush(fd, termios.TCIFLUSH)
    while True:
        key = os.read(fd, 64)
        if key in (b"\x1b[A", b"\x1bOA"):
            mode = max(0, mode - 1)
        elif key in (b"\x1b[B", b"\x1bOB"):
            mode = min(len(MODES) - 1, mode + 1)
        elif key == b"\r":
            break
        screen.render(picker_frame(mode))
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
