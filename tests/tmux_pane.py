"""A real tmux pane as an oracle: bytes in, the screen tmux shows out.

termsim's screen model is checked against tmux, a second implementation of
the same xterm model that runs on every CI machine, by writing the very same
bytes into a tmux pane and reading back what tmux made of them. Used by
``tests/test_tmux.py`` (recorded sessions), ``tests/test_differential.py``
and ``fuzz/tmux_differential.py`` (generated programs). Only the standard
library is imported here: the pane program below is this very file, and it
must start fast.

How the bytes reach tmux untranslated
    The pane runs this file as its program (``--serve``). It puts its tty in
    raw mode (``tty.setraw``: no ONLCR, no echo, no signals, no IEXTEN), so
    the bytes it writes reach tmux exactly as given; it receives them from
    the test over a Unix socket.

Why tmux's answers do not matter
    tmux answers queries (DSR, DA...) by writing to the pane's input. The
    pane program reads everything tmux writes there and drops it, so an
    answer is never echoed back as output, and a program that asks things
    draws the same as one that does not.

How the test knows tmux has read everything (no sleeps, no polling)
    After the program, the pane program writes CAN ST CAN (which ends any
    sequence or string the program left open), a title (OSC 2) holding a
    fresh nonce, then DSR (``ESC [ 5 n``). tmux answers a DSR while parsing,
    so when its answer arrives every byte before it has been drawn; the pane
    program sends the test one wake-up byte per answer. The test then reads
    the title, the cursor, the modes and the screen in one tmux command, and
    keeps them only if the title is the nonce: a wake-up for a DSR of the
    program's own just means reading again after the next one.

Why one pane serves many programs
    Starting a pane costs a Python start-up; a program costs a few
    milliseconds. So a :class:`TmuxPane` is reused: before each program it
    leaves the alternate screen (tmux's RIS does not), resets (``ESC c``:
    modes, margins, tab stops, character sets, the screen) and saves that
    state with DECSC (RIS leaves tmux's saved origin mode alone). Two
    things no sequence resets: the cursor mode 1049 saved (tmux restores it
    on any later 1049 reset), so after a program that may have set that
    mode the pane program is respawned (tmux's screen_reinit); and the
    history, which a resize reflows (tmux 3.3a can crash reflowing wide
    characters into one column), so it is cleared after each program and
    the pane is reset before each resize (``resize-window``).
    ``tests/test_differential.py`` checks that a program draws the same in
    a fresh pane and in one that ran others first. A tmux that crashes or
    hangs raises :class:`TmuxError`.

Why the outer terminal is pinned
    Every tmux command runs with ``TERM=xterm-256color``, a UTF-8 locale,
    ``-u`` and no configuration file, without ``TMUX``: the tmux server, and so
    what it draws, is the same whatever terminal (or none, in CI) the tests
    were started from.

What is read back
    ``capture-pane -p -e -N`` (text with SGR attributes, trailing blanks
    kept) and ``display -p`` (cursor, cursor visibility, insert, autowrap,
    origin and alternate-screen flags, title). tmux reports the cursor past
    the last column (``cursor_x == cols``) while a wrap is pending; that is
    kept as is in :class:`PaneScreen`, and ``pending_wrap`` says so.
"""

from __future__ import annotations

import os
import re
import select
import shlex
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import tty
import unicodedata
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

_T = TypeVar("_T")
#: How long any one step may take before the pane is declared stuck.
TIMEOUT = 30.0
#: Ends whatever the program left open, in tmux and in termsim alike: CAN
#: aborts any escape sequence, ST ends a string CAN did not, CAN again
#: cancels the ESC of that ST if it began a sequence of its own.
CLOSE = b"\x18\x1b\\\x18"
#: Sent before each program in a reused pane: leave the alternate screen
#: (restoring the primary one, which RIS then clears), RIS, then DECSC:
#: tmux's RIS leaves the origin mode DECSC saved, and saving the state RIS
#: made is the same, for DECRC, as a fresh pane's nothing saved (home,
#: default attributes and character sets, origin mode off).
RESET = CLOSE + b"\x1b[?1049l\x1bc\x1b7"
_CONTROLS = re.compile(rb"[\x00-\x1f]")
_DSR = b"\x1b[5n"
_DSR_ANSWER = b"\x1b[0n"
#: What ``display -p`` reports, in this order, the title last (it may hold spaces).
_FORMAT = ("#{cursor_x} #{cursor_y} #{cursor_flag} #{insert_flag} #{wrap_flag} "
           "#{origin_flag} #{alternate_on} #{pane_width} #{pane_height} #{pane_title}")


def tmux_available() -> bool:
    """Whether the tests that need tmux can run here."""
    return shutil.which("tmux") is not None


def tmux_env() -> dict[str, str]:
    """The environment of every tmux command: the outer terminal pinned
    (see the module docstring), nothing from a tmux the tests run inside."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TMUX", "TMUX_PANE") and not k.startswith("LC_")}
    env.update(TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    return env


class TmuxError(RuntimeError):
    """tmux failed, hung or died: no verdict on termsim (tmux 3.3a crashes
    on a few streams; a caller may start a new server and go on)."""


class TmuxServer:
    """A private tmux server (its own socket name), for one test module or
    one fuzz run; :func:`tmux_server` starts and ends one."""

    def __init__(self) -> None:
        self.name = f"termsim-test-{uuid.uuid4().hex[:8]}"
        self.base = ["tmux", "-u", "-L", self.name, "-f", os.devnull]
        self.env = tmux_env()
        #: Unix sockets and logs of the panes; removed with the server.
        self.dir = Path(tempfile.mkdtemp(prefix="termsim-tmux-"))
        self._panes = 0

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        """One tmux command (``;`` chains several, as on a command line)."""
        try:
            done = subprocess.run([*self.base, *args], env=self.env, capture_output=True,
                                  timeout=TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise TmuxError(f"tmux {shlex.join(args)} hung for {TIMEOUT}s") from exc
        if check and done.returncode != 0:
            raise TmuxError(f"tmux {shlex.join(args)}: {done.stderr.decode(errors='replace')}")
        return done

    def start(self) -> None:
        # A session that lives as long as the server: killing the last session
        # ends a tmux server, and a new-session racing that shutdown fails.
        # remain-on-exit: a pane whose program is respawned (TmuxPane) can
        # otherwise see its session destroyed when tmux reaps the old
        # program after the new one started (tmux 3.3a, now and then).
        self.run("new-session", "-d", "-s", "keeper", f"tail -f {shlex.quote(os.devnull)}", ";",
                 "set-option", "-g", "remain-on-exit", "on")

    def alive(self) -> bool:
        return self.run("has-session", "-t", "keeper", check=False).returncode == 0

    def close(self) -> None:
        self.run("kill-server", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def pane(self) -> TmuxPane:
        """A new pane, in a session of its own; close it when done."""
        self._panes += 1
        return TmuxPane(self, f"pane{self._panes}")


@contextmanager
def tmux_server() -> Iterator[TmuxServer]:
    """A tmux server for the duration of the block."""
    server = TmuxServer()
    try:
        server.start()
        yield server
    finally:
        server.close()


# -- what tmux shows ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PaneStyle:
    """A cell's attributes as tmux keeps them. Colours are ``"default"``,
    ``"p<n>"`` for palette entry n (SGR 30-37 and 90-97 are entries 0-15) or
    ``"#rrggbb"``; ``attrs`` holds names among bold, dim, italic,
    underline, blink, reverse, hidden, strikethrough, overline."""

    fg: str = "default"
    bg: str = "default"
    attrs: frozenset[str] = frozenset()


DEFAULT_STYLE = PaneStyle()


@dataclass(frozen=True, slots=True)
class PaneScreen:
    """The screen of a tmux pane after a program.

    ``cells`` holds, for each row, one ``(text, style)`` per character from
    the left (a wide character once; its right half is not a cell of its
    own, as tmux captures it), up to the last cell tmux stored; the rest of
    the row is default blanks. ``lines`` is each row's text with trailing
    blanks removed. Characters drawn in the DEC Special Graphics set are
    given as the glyphs tmux draws for them (``ACS_GLYPHS``).
    """

    cols: int
    rows: int
    cells: tuple[tuple[tuple[str, PaneStyle], ...], ...]
    lines: tuple[str, ...]
    #: As tmux reports it: ``cursor_x == cols`` while a wrap is pending.
    cursor_x: int
    cursor_y: int
    cursor_visible: bool
    insert: bool
    autowrap: bool
    origin: bool
    alternate: bool

    @property
    def pending_wrap(self) -> bool:
        """A character was just drawn in the last column: the next one wraps."""
        return self.cursor_x >= self.cols


#: The glyph tmux draws, on a UTF-8 terminal, for a character it keeps in
#: the DEC Special Graphics set (tmux's tty-acs.c ``tty_acs_table``); the
#: others it draws as themselves.
ACS_GLYPHS = {
    "+": "→", ",": "←", "-": "↑", ".": "↓", "0": "▮", "`": "◆", "a": "▒", "f": "°",
    "g": "±", "h": "▒", "i": "☃", "j": "┘", "k": "┐", "l": "┌", "m": "└", "n": "┼",
    "o": "⎺", "p": "⎻", "q": "─", "r": "⎼", "s": "⎽", "t": "├", "u": "┤", "v": "┴",
    "w": "┬", "x": "│", "y": "≤", "z": "≥", "{": "π", "|": "≠", "}": "£", "~": "·",
}
_CAPTURE_TOKEN = re.compile(r"\x1b\[([0-9;:]*)m|[\x0e\x0f]|.", re.S)
_ATTR_CODES = {1: "bold", 2: "dim", 3: "italic", 4: "underline", 5: "blink", 7: "reverse",
               8: "hidden", 9: "strikethrough", 53: "overline"}


def _colour(params: list[int], i: int, base: int) -> tuple[str | None, int]:
    """The colour an SGR parameter list sets at ``params[i]`` (``base`` 30
    for the foreground, 40 for the background), and the next index; ``None``
    when ``params[i]`` is no colour for that side."""
    code = params[i]
    if base <= code <= base + 7:
        return f"p{code - base}", i + 1
    if base + 60 <= code <= base + 67:
        return f"p{code - base - 52}", i + 1
    if code == base + 9:
        return "default", i + 1
    if code == base + 8 and i + 2 < len(params) and params[i + 1] == 5:
        return f"p{params[i + 2]}", i + 3
    if code == base + 8 and i + 4 < len(params) and params[i + 1] == 2:
        r, g, b = params[i + 2:i + 5]
        return f"#{r:02x}{g:02x}{b:02x}", i + 5
    return None, i


def _apply_sgr(style: PaneStyle, text: str) -> PaneStyle:
    """``style`` after the SGR sequence ``capture-pane -e`` wrote (tmux's
    grid_string_cells_code: attribute codes, 0 when one is removed, colours
    as 30-37/90-97/39, 38;5;n or 38;2;r;g;b and their background forms)."""
    fg, bg, attrs = style.fg, style.bg, set(style.attrs)
    params = [int(p.split(":")[0] or 0) for p in text.split(";")] if text else [0]
    i = 0
    while i < len(params):
        code = params[i]
        if code == 0:
            fg, bg, attrs = "default", "default", set()
            i += 1
            continue
        if code in _ATTR_CODES:
            attrs.add(_ATTR_CODES[code])
            i += 1
            continue
        colour, j = _colour(params, i, 30)
        if colour is not None:
            fg, i = colour, j
            continue
        colour, j = _colour(params, i, 40)
        if colour is not None:
            bg, i = colour, j
            continue
        if code == 58 and i + 1 < len(params):  # underline colour: not compared
            i += 3 if params[i + 1] == 5 else 5  # 58;5;n or 58;2;r;g;b
            continue
        i += 1
    return PaneStyle(fg, bg, frozenset(attrs))


def parse_capture(text: str, rows: int) -> tuple[tuple[tuple[str, PaneStyle], ...], ...]:
    """Cells from ``capture-pane -p -e -N`` output: ``rows`` lines, the SGR
    state carried from one line to the next as tmux writes it, SO/SI around
    characters kept in the DEC Special Graphics set."""
    lines = text.split("\n")[:rows]
    lines += [""] * (rows - len(lines))
    style = DEFAULT_STYLE
    graphics = False
    out = []
    for line in lines:
        row: list[tuple[str, PaneStyle]] = []
        for m in _CAPTURE_TOKEN.finditer(line):
            token = m.group()
            if m.group(1) is not None:
                style = _apply_sgr(style, m.group(1))
            elif token == "\x0e":
                graphics = True
            elif token == "\x0f":
                graphics = False
            elif row and _joins(token):
                # tmux keeps combining marks (and ZWJ, variation selectors) in
                # the cell of the character before them: one cell, not two.
                row[-1] = (row[-1][0] + token, row[-1][1])
            else:
                row.append((ACS_GLYPHS.get(token, token) if graphics else token, style))
        out.append(tuple(row))
    return tuple(out)


def _joins(ch: str) -> bool:
    """Whether tmux stores ``ch`` with the character before it (a zero-width
    code point: a combining mark, ZWJ, a variation selector)."""
    return unicodedata.combining(ch) != 0 or unicodedata.category(ch) in ("Mn", "Me", "Cf")


# -- the pane ---------------------------------------------------------------------------


class TmuxPane:
    """One tmux pane that runs many programs, each from a reset screen.

    Not thread-safe; one per process (pytest-xdist workers each make theirs).
    """

    def __init__(self, server: TmuxServer, name: str) -> None:
        self.server = server
        self.name = name
        #: The pane, as tmux commands name it: its session's current window.
        self.target = f"{name}:"
        self.size: tuple[int, int] = (80, 24)
        path = server.dir / f"{name}.sock"
        self._log = server.dir / f"{name}.log"
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(path))
        self._listener.listen(1)
        self._listener.settimeout(TIMEOUT)
        argv = [sys.executable, str(Path(__file__).resolve()), "--serve", str(path)]
        self._command = f"exec {shlex.join(argv)} 2>{shlex.quote(str(self._log))}"
        #: Programs drawn since the pane program (re)started.
        self.programs = 0
        self._stale = False
        self._conn: socket.socket | None = None
        server.run("new-session", "-d", "-s", name, "-x", "80", "-y", "24", self._command)
        self._connect()

    def _connect(self) -> None:
        try:
            conn, _ = self._listener.accept()
        except (TimeoutError, OSError) as exc:
            raise TmuxError(f"the pane program did not start: {self._log_text()}") from exc
        conn.settimeout(TIMEOUT)
        self._conn = conn
        self.programs = 0

    def _respawn(self) -> None:
        """A new pane program, and a screen as new (tmux's screen_reinit):
        for what RIS leaves behind."""
        if self._conn is not None:
            self._conn.close()
        self.server.run("respawn-pane", "-k", "-t", self.target, self._command)
        self._connect()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._listener.close()
        self.server.run("kill-session", "-t", self.target, check=False)

    def __enter__(self) -> TmuxPane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _log_text(self) -> str:
        try:
            return self._log.read_text(errors="replace")[-2000:] or "(no output)"
        except OSError:
            return "(no log)"

    def run(self, data: bytes, cols: int, rows: int) -> PaneScreen:
        """The screen after ``data`` (then ``CLOSE``) was written to a reset
        pane of ``cols`` x ``rows``."""
        if self._stale:
            self._respawn()
        # tmux keeps the cursor saved by mode 1049 through RIS and restores
        # it on any later 1049 reset: after a program that may have set that
        # mode (controls may stand inside its digits), only a new screen is
        # as new as a fresh pane's.
        self._stale = b"1049" in _CONTROLS.sub(b"", data)
        if (cols, rows) != self.size:
            if self.programs:
                # A resize reflows the screen and the history, and tmux 3.3a
                # can crash reflowing wide characters into one column: the
                # resize has to meet an empty pane.
                self._wait(self._send(RESET), self._has_title)
            self.server.run("clear-history", "-t", self.target, ";",
                            "resize-window", "-t", self.target, "-x", str(cols), "-y", str(rows))
            self.size = (cols, rows)
        screen = self._wait(self._send((RESET if self.programs else b"") + data), self._read)
        self.programs += 1
        if (screen.cols, screen.rows) != (cols, rows):
            raise TmuxError(f"the pane is {screen.cols}x{screen.rows}, not {cols}x{rows}")
        return screen

    def _send(self, data: bytes) -> str:
        """Have the pane program write ``data``, CLOSE and the marker; the
        marker's nonce."""
        nonce = uuid.uuid4().hex
        payload = data + CLOSE + f"\x1b]2;{nonce}\x07".encode() + _DSR
        try:
            assert self._conn is not None
            self._conn.sendall(struct.pack(">I", len(payload)) + payload)
        except OSError as exc:
            raise TmuxError(f"the pane program is gone: {self._log_text()}") from exc
        return nonce

    def _wait(self, nonce: str, read: Callable[[str], _T | None]) -> _T:
        """``read(nonce)`` once tmux has drawn everything before the marker:
        after each wake-up, until it returns something."""
        assert self._conn is not None
        try:
            while True:
                if not self._conn.recv(1):
                    raise TmuxError(f"the pane program ended: {self._log_text()}")
                got = read(nonce)
                if got is not None:
                    return got
        except TimeoutError as exc:
            raise TmuxError(f"tmux did not draw the program within {TIMEOUT}s") from exc

    def _has_title(self, nonce: str) -> bool | None:
        title = self.server.run("display", "-p", "-t", self.target, "#{pane_title}").stdout
        return True if title.decode(errors="replace").strip() == nonce else None

    def _read(self, nonce: str) -> PaneScreen | None:
        """The screen, if tmux has drawn the program (its title is ``nonce``)."""
        out = self.server.run(
            "display", "-p", "-t", self.target, _FORMAT, ";",
            "capture-pane", "-p", "-e", "-N", "-t", self.target, ";",
            "clear-history", "-t", self.target,
        ).stdout.decode("utf-8", errors="replace")
        info, _, capture = out.partition("\n")
        fields = info.split(" ", 9)
        if fields[9] != nonce:
            return None
        x, y, visible, insert, wrap, origin, alternate, cols, rows = map(int, fields[:9])
        cells = parse_capture(capture, rows)
        lines = tuple("".join(text for text, _ in row).rstrip() for row in cells)
        return PaneScreen(cols, rows, cells, lines, x, y, bool(visible), bool(insert),
                          bool(wrap), bool(origin), bool(alternate))


def tmux_screen(server: TmuxServer, data: bytes, cols: int, rows: int) -> list[str]:
    """The text a fresh tmux pane shows after its program wrote ``data``:
    each row, trailing blanks removed. A pane of its own for each call, so
    that nothing an earlier call drew can matter."""
    with server.pane() as pane:
        return list(pane.run(data, cols, rows).lines)


# -- the program inside the pane ---------------------------------------------------------


def _recv_exactly(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise SystemExit(0)  # the test is gone
        data += chunk
    return data


def serve(path: str) -> None:
    """The pane program: write what the test sends, raw, and report each
    answer to a DSR (see the module docstring)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    tty.setraw(0)
    tail = b""
    while True:
        ready, _, _ = select.select([conn.fileno(), 0], [], [])
        if 0 in ready:
            got = tail + os.read(0, 65536)
            answers = got.count(_DSR_ANSWER)
            tail = got[-(len(_DSR_ANSWER) - 1):] if not got.endswith(_DSR_ANSWER) else b""
            if answers:
                conn.sendall(b"!" * answers)
        if conn.fileno() in ready:
            (size,) = struct.unpack(">I", _recv_exactly(conn, 4))
            view = memoryview(_recv_exactly(conn, size))
            while view:
                view = view[os.write(1, view):]


if __name__ == "__main__":
    if sys.argv[1:2] != ["--serve"] or len(sys.argv) != 3:
        sys.exit("usage: tmux_pane.py --serve SOCKET (run by TmuxPane inside a tmux pane)")
    serve(sys.argv[2])
