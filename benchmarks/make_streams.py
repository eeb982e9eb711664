"""Generate the benchmark workloads into ``benchmarks/data/``.

Six byte streams, as a program would write them to its terminal:

* ``logs.bin``: plain ASCII log lines ending in CRLF, 40-200 characters
  (so many wrap at 80 columns), seeded random.
* ``colour.bin``: colour-heavy output: ``ls --color``-like listings,
  pytest-like progress dots (``ESC[32m.ESC[0m``), bold red errors,
  256-colour (``38;5;n``) and 24-bit (``38;2;r;g;b``) runs, seeded random.
* ``ptk.bin``: a real prompt_toolkit session: ``examples/agent_repl.py`` in a
  PTY at 80x24, its CPR requests answered by a :class:`termsim.emulator.Terminal`;
  30 short lines typed a key at a time (each key after the previous one was
  echoed), each line's Enter sent after the previous reply finished, then
  Ctrl-D. The raw bytes read
  from the PTY are saved exactly. This one is recorded live, so its bytes
  (spinner frames, how the renderer batched its writes) vary from run to run;
  the other three are identical on every run.
* ``fullscreen.bin``: a synthetic full-screen application on the alternate
  screen: 2000 frames of a header and 22 body rows (either a coloured row
  cleared with ``ESC[K``, or cursor-addressed 5-character numeric fields), and
  a reverse-video function-key bar redrawn every tenth frame.

* ``sgr.bin``: SGR-dense colour: an SGR change every 1-5 printed
  characters, mixing 16 colours, bold, ``38;5;n``, ``38;2;r;g;b`` and
  resets, as coloured test runners and ``ls --color`` of short names write.
* ``seq.bin``: ``seq 1 100000`` as a PTY delivers it (CR LF line ends).

Sizes are chosen so that the files stay under about 4.2 MB together.

Usage: ``python benchmarks/make_streams.py [--skip-ptk]``.
"""

from __future__ import annotations

import json
import os
import random
import select
import sys
import tempfile
import time
from pathlib import Path

import termsim

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
REPO = HERE.parent
AGENT_REPL = REPO / "examples" / "agent_repl.py"

SEED = 20240501
LOGS_SIZE = 650_000
COLOUR_SIZE = 650_000
FULLSCREEN_FRAMES = 2000
PTK_TURNS = 30

ESC = "\x1b"
CSI = ESC + "["

WORDS = (
    "request", "response", "worker", "cache", "miss", "hit", "upstream", "timeout", "retry",
    "connection", "pool", "session", "token", "user", "order", "invoice", "payment",
    "queue", "job", "scheduler", "shard", "replica", "leader", "follower", "commit",
    "rollback", "index", "query", "plan", "scan", "seek", "buffer", "flush", "sync",
    "compact", "snapshot", "checkpoint", "lease", "heartbeat", "gossip", "ring",
    "partition", "rebalance",
)
LEVELS = ("DEBUG", "INFO", "INFO", "INFO", "WARN", "ERROR")


# -- (a) logs ---------------------------------------------------------------------


def log_line(rng: random.Random, n: int) -> str:
    ms = n * 37 + rng.randrange(37)
    stamp = f"2024-05-01T{ms // 3_600_000 % 24:02d}:{ms // 60_000 % 60:02d}:" \
            f"{ms // 1000 % 60:02d}.{ms % 1000:03d}Z"
    head = f"{stamp} {rng.choice(LEVELS):5} [worker-{rng.randrange(16)}] "
    target = rng.randint(40, 200)
    parts = [head]
    length = len(head)
    while length < target:
        if rng.random() < 0.3:
            word = f"{rng.choice(WORDS)}={rng.randrange(100000)}"
        else:
            word = rng.choice(WORDS)
        parts.append(word)
        length += len(word) + 1
    return " ".join(parts)[:target]


def make_logs(rng: random.Random) -> bytes:
    out: list[str] = []
    size = 0
    n = 0
    while size < LOGS_SIZE:
        line = log_line(rng, n) + "\r\n"
        out.append(line)
        size += len(line)
        n += 1
    return "".join(out).encode("ascii")


# -- (b) colour -------------------------------------------------------------------

LS_COLOURS = {"dir": "01;34", "exe": "01;32", "link": "01;36", "archive": "01;31", "file": ""}
EXTS = {"dir": "", "exe": "", "link": "", "archive": ".tar.gz", "file": ".py"}


def sgr(code: str, text: str) -> str:
    return f"{CSI}{code}m{text}{CSI}0m" if code else text


def ls_block(rng: random.Random) -> str:
    names = []
    for _ in range(rng.randint(6, 30)):
        kind = rng.choice(tuple(LS_COLOURS))
        name = rng.choice(WORDS) + ("_" + rng.choice(WORDS) if rng.random() < 0.5 else "")
        names.append(sgr(LS_COLOURS[kind], name + EXTS[kind]))
    rows = []
    for i in range(0, len(names), 4):
        rows.append("  ".join(names[i:i + 4]))
    return "".join(f"{CSI}0m{row}\r\n" for row in rows)


def pytest_block(rng: random.Random, done: list[int]) -> str:
    out = []
    for _ in range(rng.randint(2, 8)):
        module = f"tests/test_{rng.choice(WORDS)}.py "
        dots = []
        for _ in range(rng.randint(5, 60)):
            r = rng.random()
            if r < 0.9:
                dots.append(sgr("32", "."))
            elif r < 0.95:
                dots.append(sgr("33", "s"))
            else:
                dots.append(sgr("31", "F"))
        done[0] += len(dots)
        pct = done[0] % 100
        out.append(f"{module}{''.join(dots)}{sgr('32', f' [{pct:3d}%]')}\r\n")
    return "".join(out)


def error_block(rng: random.Random) -> str:
    out = [sgr("1;31", f"E   AssertionError: expected {rng.randrange(1000)}, "
                       f"got {rng.randrange(1000)}") + "\r\n"]
    for _ in range(rng.randint(1, 4)):
        out.append(sgr("1;31", f"E     at {rng.choice(WORDS)}.py:{rng.randrange(900)}: "
                               f"in {rng.choice(WORDS)}_{rng.choice(WORDS)}") + "\r\n")
    out.append(f"{CSI}31m{CSI}1m{'=' * 20} 1 failed {'=' * 20}{CSI}0m\r\n")
    return "".join(out)


def palette_block(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 6)):
        cells = []
        for _ in range(rng.randint(8, 24)):
            word = rng.choice(WORDS)[:rng.randint(1, 6)]
            cells.append(f"{CSI}38;5;{rng.randrange(256)}m{word}")
        out.append(" ".join(cells) + f"{CSI}0m\r\n")
    return "".join(out)


def truecolour_block(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 4)):
        cells = []
        base = rng.randrange(256)
        for i in range(rng.randint(20, 70)):
            r, g, b = (base + 3 * i) % 256, (base * 2 + 5 * i) % 256, (255 - 4 * i) % 256
            bg = f"48;2;{b};{r};{g};" if rng.random() < 0.3 else ""
            cells.append(f"{CSI}{bg}38;2;{r};{g};{b}m{rng.choice('#*+=-.:oO@')}")
        out.append("".join(cells) + f"{CSI}0m\r\n")
    return "".join(out)


def make_colour(rng: random.Random) -> bytes:
    done = [0]
    makers = (
        (ls_block, 3), (lambda r: pytest_block(r, done), 4), (error_block, 1),
        (palette_block, 2), (truecolour_block, 2),
    )
    choices = [fn for fn, weight in makers for _ in range(weight)]
    out: list[str] = []
    size = 0
    while size < COLOUR_SIZE:
        block = rng.choice(choices)(rng)
        out.append(block)
        size += len(block)
    return "".join(out).encode("utf-8")


# -- (e) SGR-dense, (f) seq ---------------------------------------------------------

SGR_SIZE = 650_000
SEQ_LINES = 100_000


def sgr_change(rng: random.Random) -> str:
    """One SGR sequence of the kinds coloured test runners and ``ls --color``
    of short names write: 16 colours, bold, 256 and 24-bit colours, resets."""
    kind = rng.random()
    if kind < 0.35:
        return f"{CSI}{rng.choice((31, 32, 33, 34, 35, 36, 37, 90, 91, 92))}m"
    if kind < 0.5:
        return f"{CSI}1;{rng.choice((31, 32, 33, 34))}m"
    if kind < 0.65:
        return f"{CSI}38;5;{rng.randrange(256)}m"
    if kind < 0.8:
        return f"{CSI}38;2;{rng.randrange(256)};{rng.randrange(256)};{rng.randrange(256)}m"
    return f"{CSI}0m" if kind < 0.95 else f"{CSI}m"


def make_sgr(rng: random.Random) -> bytes:
    """An SGR change every 1-5 printed characters, lines of 20-100 of them."""
    out: list[str] = []
    size = 0
    while size < SGR_SIZE:
        line = []
        for _ in range(rng.randint(4, 30)):
            line.append(sgr_change(rng) + rng.choice(WORDS)[:rng.randint(1, 5)])
        text = "".join(line) + f"{CSI}0m\r\n"
        out.append(text)
        size += len(text)
    return "".join(out).encode("utf-8")


def make_seq() -> bytes:
    """What ``seq 1 100000`` prints through a PTY (LF turned into CR LF)."""
    return "".join(f"{n}\r\n" for n in range(1, SEQ_LINES + 1)).encode()


# -- (d) fullscreen ---------------------------------------------------------------

FKEYS = ("Help", "Setup", "Search", "Filter", "Tree", "SortBy", "Nice-", "Nice+", "Kill", "Quit")


def make_fullscreen(rng: random.Random) -> bytes:
    out = [f"{CSI}?1049h{CSI}?25l{CSI}H{CSI}2J"]
    # Ten 8-column keys fill the 80-column bottom row exactly (no wrap, no scroll).
    bar = "".join(
        f"{CSI}0m{f'F{i + 1}'}{CSI}7m{name:<{6 - len(str(i + 1)) + 1}}"
        for i, name in enumerate(FKEYS)
    )
    colours = ("31", "32", "33", "34", "35", "36", "1;37", "38;5;208")
    for frame in range(FULLSCREEN_FRAMES):
        parts = [f"{CSI}1;1H{CSI}1;44;37m top - frame {frame:5d}  load "
                 f"{rng.random() * 4:4.2f}  tasks {rng.randrange(400):3d}{CSI}K{CSI}0m"]
        for row in range(2, 24):
            if (row + frame) % 2:
                col = rng.choice(colours)
                pid = rng.randrange(1, 99999)
                parts.append(f"{CSI}{row};1H{CSI}{col}m{pid:5d} {rng.choice(WORDS):<10}"
                             f"{CSI}0m{CSI}K")
            else:
                for column in rng.sample((20, 30, 40, 50, 60, 70), 2):
                    parts.append(f"{CSI}{row};{column}H{rng.randrange(100000):5d}")
        if frame % 10 == 0:  # static: redrawn now and then, as a diffing app would
            parts.append(f"{CSI}24;1H{bar}{CSI}0m")
        out.append("".join(parts))
    out.append(f"{CSI}?25h{CSI}?1049l")
    return "".join(out).encode("utf-8")


# -- (c) ptk ----------------------------------------------------------------------


class Recorder:
    """agent_repl in a PTY; its output fed to a Terminal that answers it."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        from termsim.live.spawn import start

        self.proc = start(argv, env=env, cwd=None, cols=80, rows=24)
        self.fd = self.proc.fd
        self.term = termsim.emulator.Terminal(80, 24)
        self.raw = bytearray()
        self.eof = False

    def pump(self, timeout: float) -> None:
        """Read what arrives within ``timeout``; answer the terminal's queries."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed its side
            chunk = b""
        if not chunk:
            self.eof = True
            return
        self.raw += chunk
        replies = self.term.feed(chunk)
        if replies:
            os.write(self.fd, replies)

    def until(self, what: str, check, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not check(self.term.screen):
            if self.eof or time.monotonic() > deadline:
                raise RuntimeError(f"agent_repl: gave up waiting for {what}:\n"
                                   + self.term.screen.render())
            self.pump(0.05)

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)


def sleeping(snap: termsim.Snapshot) -> bool:
    return "state: sleeping" in snap.lines[-1]


def make_ptk() -> bytes:
    with tempfile.TemporaryDirectory(prefix="termsim-bench-") as home:
        config = Path(home, ".config", "agent-repl", "config.json")
        config.parent.mkdir(parents=True)
        config.write_text(json.dumps({"theme": "dark"}))
        env = {
            "HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "TERM": "xterm-256color", "LANG": "C.UTF-8",
            "AGENT_REPL_BOOT_SECONDS": "0.2",
        }
        rec = Recorder([sys.executable, str(AGENT_REPL)], env)
        try:
            rec.until("the first prompt", lambda s: sleeping(s) and "❯" in s.text)
            rng = random.Random(SEED)
            for turn in range(PTK_TURNS):
                text = f"q{turn:02d} {rng.choice(WORDS)} {rng.choice(WORDS)}"
                for i in range(1, len(text) + 1):  # a key at a time, as people type
                    rec.send(text[i - 1].encode())
                    rec.until(f"{text[:i]!r} echoed", lambda s, t=text[:i]: echoed(s, t))
                rec.send(b"\r")
                rec.until(f"the reply to {text!r}", lambda s, t=text: replied(s, t), 15.0)
            rec.send(b"\x04")
            deadline = time.monotonic() + 10.0
            while not rec.eof and time.monotonic() < deadline:
                rec.pump(0.1)
            if "bye" not in rec.term.screen.text:
                raise RuntimeError("agent_repl did not say bye:\n" + rec.term.screen.render())
        finally:
            rec.proc.popen.kill()
            rec.proc.popen.wait()
            os.close(rec.fd)
        return bytes(rec.raw)


def echoed(snap: termsim.Snapshot, typed: str) -> bool:
    """The prompt line shows ``typed``, with the cursor right after it."""
    cursor = snap.cursor
    return snap.lines[cursor.row].startswith(f"❯ {typed}") and cursor.col == 2 + len(typed)


def replied(snap: termsim.Snapshot, text: str) -> bool:
    """The reply to ``text`` is complete: its done line is below its thinking
    line, and the toolbar is back to sleeping."""
    if not sleeping(snap):
        return False
    lines = snap.lines
    start = next((i for i, line in enumerate(lines)
                  if f"assistant: thinking about '{text}'" in line), None)
    if start is None:
        return False
    return any(f"assistant: done ({len(text)} chars)" in line for line in lines[start:])


# -- main -------------------------------------------------------------------------


def main() -> int:
    skip_ptk = "--skip-ptk" in sys.argv[1:]
    DATA.mkdir(exist_ok=True)
    streams = {
        "logs.bin": lambda: make_logs(random.Random(SEED)),
        "colour.bin": lambda: make_colour(random.Random(SEED + 1)),
        "ptk.bin": make_ptk,
        "fullscreen.bin": lambda: make_fullscreen(random.Random(SEED + 2)),
        "sgr.bin": lambda: make_sgr(random.Random(SEED + 3)),
        "seq.bin": make_seq,
    }
    total = 0
    print(f"{'file':<16} {'bytes':>10}")
    for name, make in streams.items():
        path = DATA / name
        if name == "ptk.bin" and skip_ptk and path.exists():
            data = path.read_bytes()
            note = " (kept)"
        else:
            data = make()
            path.write_bytes(data)
            note = ""
        total += len(data)
        print(f"{name:<16} {len(data):>10}{note}")
    print(f"{'total':<16} {total:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
