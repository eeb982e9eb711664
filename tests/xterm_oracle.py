"""Real xterm as an oracle: one xterm under a virtual X display, many programs.

Why: the other references (libvterm's, kitty's and alacritty's suites, tmux)
share some of termsim's mistakes; xterm itself is what the default profile
plays. This module starts ONE xterm and runs program after program in it,
each on a fresh screen of its own size, and reads back what xterm shows.

How xterm is driven
    ``Xvfb -displayfd`` starts a display and writes its number when it is
    ready (no polling for a socket). xterm runs in its slave mode
    (``-S<pty>/<fd>``, xterm(1)): it drives a pseudo-terminal this process
    opened, so the test writes the programs to the pty's slave side itself
    and reads xterm's answers from it, with no program inside xterm. Every
    read waits in ``select`` with a timeout; nothing sleeps.

What is read after each program (the program is followed by ``CLOSE``,
as in ``tests/differential.py``, so that a sequence it left open ends)
    * the cursor: CPR (``CSI 6 n``), made absolute with the margins DECRQSS
      reports (``DCS $ q r``, ``DCS $ q s``) when origin mode is set;
    * the modes ``differential.View`` compares, by DECRQM: cursor visible
      (``?25``), insert (``4``), autowrap (``?7``), origin (``?6``), the
      alternate screen (``?1049``);
    * every cell: text and attributes, through xterm's printer. ``CSI 0 i``
      (MC, print screen) with ``printerExtent`` prints the whole screen to
      ``printerCommand``, here ``cat`` into a pipe this process reads;
      ``printAttributes: 2`` puts each cell's attributes and colours before
      it as SGR (print.c ``printLine``/``send_SGR``; misc.c
      ``xtermFormatSGR``), ``printerFormFeed`` ends the page with a form
      feed, the right half of a wide character is printed as U+FFFF
      (xterm.h ``HIDDEN_CHAR``), a combining mark after its base
      character, and cells never drawn at the end of a row are left out.
      The printer is opened once (printer controller mode on and off at
      start, with ``printerAutoClose`` off), so a print costs no process.
    * the end: a title holding a nonce, reported back (``CSI 21 t``).

    DECRQCRA (``CSI Pi;Pg;Pt;Pl;Pb;Pr * y``) answers too, but a checksum says
    less than the printed cells, so it is not used.

What makes each program's screen fresh
    ``CLOSE``, then ``CSI 8;rows;cols t`` (allowed: :data:`RESOURCES`) until
    ``CSI 18 t`` reports the size, then RIS, ``?1047h`` (the alternate
    buffer), ``CSI 2 J`` and DECSC there, RIS again. RIS clears the screen,
    homes the cursor and saves that (charproc.c ``ReallyReset``: ``CursorSave``),
    leaves the alternate buffer and resets modes, tab stops, charsets and
    colours; the alternate buffer's own saved cursor and contents are not
    reset by RIS, hence the blank alternate buffer with a fresh cursor
    saved in it.

Why the answers do not depend on the machine
    As ``tests/test_profiles_xterm.py``: no resource variables, an empty
    ``HOME``, ``C.UTF-8``, its own instance name, and the resources the
    answers depend on pinned (:data:`RESOURCES`). Character widths are the
    system's ``wcwidth`` (xterm's default, ``mkWidth`` false), as tmux's.

``python tests/xterm_oracle.py --size 10x3 --hex 1b5b4c`` shows one program
in termsim and in xterm, side by side (the command a failing test prints).
"""

from __future__ import annotations

import argparse
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import tty
import unicodedata
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

if __name__ == "__main__":  # run as a script: import the test helpers beside it
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from differential import (
    _MODE_NAMES,
    Csi,
    Program,
    Raw,
    Text,
    View,
    _described,
    _glibc_width,
    _invalid,
    _look,
    _trimmed,
    differences,
    parse,
    shrink,
    termsim_view,
)
from pyte.graphics import FG_BG_256
from tmux_pane import CLOSE

from termsim.emulator import Emulation

#: How long one exchange with xterm may take before it counts as hung.
TIMEOUT = 20.0

#: The resources pinned (``-xrm``), each at xterm's documented default
#: unless it is how the harness reads: of the window operations, only the
#: three the harness uses (8, resize; 18, report the size; 21, report the
#: title), by taking them out of ``disallowedWindowOps``, which applies
#: while ``allowWindowOps`` is false (xterm(1)), so that a program cannot
#: resize the window (``CSI 25 t``, DECSLPP) as a default xterm would not
#: let it; the printer (a pipe, the whole page, attributes
#: with colours, a form feed after each page, kept open); no bold-as-bright
#: conversion on print (``send_SGR`` subtracts 8 from a bright foreground
#: of a bold cell when ``boldColors`` is on); no 132-column mode
#: (``allowC132``, default false); ``titeInhibit`` false (the alternate
#: screen works).
RESOURCES = {
    "allowWindowOps": "false",
    "disallowedWindowOps": "1,2,3,4,5,6,7,9,11,13,14,19,20,GetSelection,SetSelection,"
                           "SetWinLines,SetXprop",
    "allowC132": "false",
    "titeInhibit": "false",
    "decTerminalID": "vt420",
    "printerExtent": "true",
    "printerFormFeed": "true",
    "printerNewLine": "true",
    "printAttributes": "2",
    "printerAutoClose": "false",
    "boldColors": "false",
    "saveLines": "0",
    "mkWidth": "false",
    "cjkWidth": "false",
}
_RESOURCE_VARIABLES = ("XENVIRONMENT", "XFILESEARCHPATH", "XUSERFILESEARCHPATH", "XAPPLRESDIR")

#: DECRQM queries, in ``differential._MODE_NAMES`` order, then DECSCNM.
_MODE_QUERIES = (("?", 25), ("", 4), ("?", 7), ("?", 6), ("?", 1049), ("?", 5))
_ANSWER_MODE = re.compile(rb"\x1b\[(\??)(\d+);(\d)\$y")
_ANSWER_CPR = re.compile(rb"\x1b\[(\d+);(\d+)R")
_ANSWER_SIZE = re.compile(rb"\x1b\[8;(\d+);(\d+)t")
_ANSWER_RQSS = re.compile(rb"\x1bP1\$r(\d+);(\d+)([rs])\x1b\\")
#: The reset between programs (after CLOSE and the resize), see the module docstring.
_RESET = b"\x1bc\x1b[?1047h\x1b[2J\x1b7\x1bc"
_FORM_FEED = b"\f"


def xterm_missing() -> str | None:
    """Why the oracle cannot run here (a skip reason), or ``None``."""
    missing = [tool for tool in ("xterm", "Xvfb") if shutil.which(tool) is None]
    if missing:
        return (f"{' and '.join(missing)} not installed (Debian/Ubuntu: apt-get install "
                "xterm xvfb; .ci/run installs both)")
    return None


class XtermError(RuntimeError):
    """xterm or its display failed, or stopped answering."""


@dataclass(frozen=True)
class XtermCell:
    """One printed cell: its text (base character and marks) and the SGR
    parameters xterm printed before it (``()`` for none)."""

    text: str
    sgr: tuple[str, ...]
    wide: bool = False


@dataclass(frozen=True)
class XtermScreen:
    """What xterm shows after one program."""

    cols: int
    rows: int
    #: (row, column), 0-based, absolute (origin mode taken out).
    cursor: tuple[int, int]
    #: ``differential._MODE_NAMES`` -> set.
    modes: tuple[tuple[str, bool], ...]
    #: (top, bottom, left, right) margins, 1-based as DECRQSS reports them.
    margins: tuple[int, int, int, int]
    #: Each row's printed cells, up to its last drawn cell.
    cells: tuple[tuple[XtermCell, ...], ...]
    #: DECSCNM (``?5``): xterm shows every cell reversed, its cells unchanged.
    reverse_screen: bool = False

    @property
    def lines(self) -> tuple[str, ...]:
        """Each row's text, right halves of wide characters left out, NFC,
        trailing blanks removed (as ``differential.View.lines``)."""
        return tuple(unicodedata.normalize("NFC", "".join(c.text for c in row)).rstrip(" ")
                     for row in self.cells)


@dataclass
class _Channel:
    """A file descriptor read into a buffer."""

    fd: int
    buffer: bytearray = field(default_factory=bytearray)
    closed: bool = False


class Xterm:
    """One real xterm under Xvfb; :meth:`run` gives what it shows after a program.

    Use as a context manager (or call :meth:`close`): it owns an Xvfb and
    an xterm process, each in its own process group.
    """

    def __init__(self, timeout: float = TIMEOUT) -> None:
        reason = xterm_missing()
        if reason:
            raise XtermError(reason)
        self.timeout = timeout
        #: How many programs have run.
        self.runs = 0
        self._size: tuple[int, int] | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="termsim-xterm-")
        self._xvfb: subprocess.Popen[bytes] | None = None
        self._xterm: subprocess.Popen[bytes] | None = None
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    # -- life cycle --------------------------------------------------------------------

    def exited(self) -> bool:
        """Whether the xterm process (or its Xvfb) has exited, or xterm has
        closed its side of the pty: it does so on its way out, before it has
        exited (a CI run caught it in between), and never otherwise."""
        return any(p is None or p.poll() is not None for p in (self._xterm, self._xvfb)) \
            or self._tty.closed

    def _start(self) -> None:
        tmp = Path(self._tmp.name)
        self._xvfb_log = tmp / "xvfb.log"
        self._xterm_log = tmp / "xterm.log"
        ready_r, ready_w = os.pipe()
        try:
            with self._xvfb_log.open("wb") as log:
                self._xvfb = subprocess.Popen(
                    ["Xvfb", "-displayfd", str(ready_w), "-nolisten", "tcp",
                     "-screen", "0", "1920x1200x24"],
                    pass_fds=(ready_w,), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                    start_new_session=True)
            os.close(ready_w)
            ready_w = -1
            number = self._read_until(_Channel(ready_r), b"\n", "Xvfb's display number")
        finally:
            os.close(ready_r)
            if ready_w >= 0:
                os.close(ready_w)
        display = ":" + number.decode().strip()

        master, self._slave = os.openpty()
        tty.setraw(self._slave)
        # The printer writes into a FIFO this process reads (a path: the
        # shell that runs printerCommand may not redirect to fds above 9).
        fifo = tmp / "printed"
        os.mkfifo(fifo)
        self._printed_r = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        # A writer of its own, so that the FIFO never reads as ended between
        # the printer's opening and closing it.
        self._printed_keep = os.open(fifo, os.O_WRONLY)
        home = tmp / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in _RESOURCE_VARIABLES}
        env.update(DISPLAY=display, HOME=str(home), LC_ALL="C.UTF-8", LANG="C.UTF-8")
        resources = {**RESOURCES, "printerCommand": f"cat > {shlex.quote(str(fifo))}"}
        args = [arg for name, value in resources.items() for arg in ("-xrm", f"*{name}: {value}")]
        try:
            with self._xterm_log.open("wb") as log:
                self._xterm = subprocess.Popen(
                    ["xterm", "-name", "termsim-oracle", "-u8", *args,
                     f"-S{os.ttyname(self._slave)}/{master}"],
                    pass_fds=(master,), env=env, cwd=tmp,
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        finally:
            os.close(master)
        self._tty = _Channel(self._slave)
        self._printed = _Channel(self._printed_r)
        # In slave mode xterm first writes its window id and a newline.
        self._read_until(self._tty, b"\n", "xterm's window id (slave mode)")
        # Open the printer for good: printer controller mode on, a form feed
        # for it, off again (print.c charToPrinter opens it; with
        # printerAutoClose off it stays open, so later prints do not close it).
        self._write(b"\x1b[5i\f\x1b[4i")
        self._read_until(self._printed, _FORM_FEED, "the printer's first page")

    def restart(self) -> None:
        """Start afresh, in place (xterm itself exited): whoever holds this
        object closes the new xterm as it would have closed the old one."""
        self.close()
        self._tmp = tempfile.TemporaryDirectory(prefix="termsim-xterm-")
        self._size = None
        self._start()

    def close(self) -> None:
        """End xterm and its display; safe to call twice."""
        for name in ("_slave", "_printed_r", "_printed_keep"):
            fd = getattr(self, name, -1)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)
        for process in (self._xterm, self._xvfb):
            if process is None or process.poll() is not None:
                continue
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(timeout=5)
        self._xterm = self._xvfb = None
        self._tmp.cleanup()

    def __enter__(self) -> Xterm:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- running programs --------------------------------------------------------------

    def run(self, cols: int, rows: int, data: bytes,
            pauses: Sequence[int] = ()) -> XtermScreen:
        """What xterm shows after ``data`` (then ``CLOSE``) on a fresh
        ``cols`` x ``rows`` screen. At each offset in ``pauses`` xterm is
        made to read everything before it, and go idle, before the rest is
        written (see :meth:`_pause`)."""
        self.runs += 1
        self._write(CLOSE)
        self._resize(cols, rows)
        nonce = uuid.uuid4().hex.encode()
        queries = b"".join(f"\x1b[{private}{mode}$p".encode() for private, mode in _MODE_QUERIES)
        end = b"\x1b]l" + nonce + b"\x1b\\"
        start = 0
        for offset in sorted(pauses):
            self._write((_RESET if not start else b"") + data[start:offset])
            self._pause()
            start = offset
        self._write((_RESET if not start else b"") + data[start:] + CLOSE + b"\x1b[6n" + queries
                    + b"\x1bP$qr\x1b\\\x1bP$qs\x1b\\\x1b[18t" + b"\x1b[0i"
                    + b"\x1b]2;" + nonce + b"\x07\x1b[21t")
        answers = self._read_until(self._tty, end, "the answers after a program",
                                   also=(self._printed, _FORM_FEED))
        page = self._read_until(self._printed, _FORM_FEED, "the printed screen")
        return self._screen(cols, rows, answers, page)

    def _pause(self) -> None:
        """Wait until xterm has read and carried out all it was sent: it
        answers DSR (``CSI 5 n``, which changes nothing on the screen) only
        once it has parsed what came before, and having no input left it
        then goes through its idle work (charproc.c ``in_put``:
        ``update_the_screen``, which flushes a pending jump scroll) before
        it reads again. So a program's effect cannot depend on where
        xterm's reads happen to split it: how the pty delivers one write
        is up to timing."""
        self._write(b"\x1b[5n")
        self._read_until(self._tty, b"\x1b[0n", "the answer to DSR (a pause)")

    def _resize(self, cols: int, rows: int) -> None:
        if self._size == (cols, rows):
            return
        self._write(f"\x1b[8;{rows};{cols}t".encode())
        for _ in range(1000):
            self._write(b"\x1b[18t")
            answer = self._read_until(self._tty, b"t", "the size report (CSI 18 t)")
            size = _ANSWER_SIZE.search(answer)
            if size and (int(size[2]), int(size[1])) == (cols, rows):
                self._size = (cols, rows)
                return
        raise XtermError(f"xterm did not take the size {cols}x{rows} (last report {answer!r})")

    def _screen(self, cols: int, rows: int, answers: bytes, page: bytes) -> XtermScreen:
        modes = {(m[1], int(m[2])): m[3] in b"13" for m in _ANSWER_MODE.finditer(answers)}
        try:
            mode_values = tuple(modes[private.encode(), mode] for private, mode in _MODE_QUERIES)
        except KeyError:
            raise XtermError(f"xterm did not answer every DECRQM: {answers!r}") from None
        sizes = list(_ANSWER_SIZE.finditer(answers))
        if not sizes or (int(sizes[-1][2]), int(sizes[-1][1])) != (cols, rows):
            self._size = None
            raise XtermError(f"the program changed xterm's size from {cols}x{rows}: "
                             f"{answers!r}")
        cprs = list(_ANSWER_CPR.finditer(answers))
        margins = {m[3]: (int(m[1]), int(m[2])) for m in _ANSWER_RQSS.finditer(answers)}
        if not cprs or set(margins) != {b"r", b"s"}:
            raise XtermError(f"xterm did not answer CPR and DECRQSS: {answers!r}")
        (top, bottom), (left, right) = margins[b"r"], margins[b"s"]
        row, col = int(cprs[-1][1]) - 1, int(cprs[-1][2]) - 1
        if mode_values[3]:  # origin mode: CPR counts from the margins
            row, col = row + top - 1, col + left - 1
        return XtermScreen(cols, rows, (row, col),
                           tuple(zip(_MODE_NAMES, mode_values[:-1], strict=True)),
                           (top, bottom, left, right), _printed_rows(page, rows),
                           mode_values[-1])

    # -- the pty and the printer pipe ----------------------------------------------------

    def _write(self, data: bytes) -> None:
        """Write all of ``data``, reading (and keeping) what xterm sends
        meanwhile, so that neither side can block the other."""
        view = memoryview(data)
        channels = [self._tty, self._printed]
        while view:
            readable, writable, _ = select.select([c.fd for c in channels if not c.closed],
                                                  [self._slave], [], self.timeout)
            if not readable and not writable:
                raise self._hung("xterm stopped reading its input")
            for channel in channels:
                if channel.fd in readable:
                    self._fill(channel)
            if writable:
                view = view[os.write(self._slave, view[:4096]):]

    def _read_until(self, channel: _Channel, end: bytes, what: str,
                    also: tuple[_Channel, bytes] | None = None) -> bytes:
        """The bytes of ``channel`` up to and including ``end`` (removed from
        its buffer); ``also`` is read meanwhile, until it holds its own end."""
        others = [also[0]] if also else []
        while end not in channel.buffer:
            fds = [c.fd for c in (channel, *others) if not c.closed]
            if channel.closed:
                raise self._hung(f"{what}: the stream closed")
            readable, _, _ = select.select(fds, [], [], self.timeout)
            if not readable:
                raise self._hung(f"no {what} within {self.timeout}s")
            for c in (channel, *others):
                if c.fd in readable:
                    self._fill(c)
        index = channel.buffer.index(end) + len(end)
        out = bytes(channel.buffer[:index])
        del channel.buffer[:index]
        return out

    def _fill(self, channel: _Channel) -> None:
        try:
            chunk = os.read(channel.fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            channel.buffer += chunk
        else:
            channel.closed = True

    def _hung(self, message: str) -> XtermError:
        logs = []
        for log in (self._xterm_log, self._xvfb_log):
            if log.exists() and log.stat().st_size:
                logs.append(f"{log.name}: {log.read_text(errors='replace')[-2000:]}")
        alive = self._xterm is not None and self._xterm.poll() is None
        return XtermError(f"{message} (xterm {'running' if alive else 'exited'}; "
                          f"{'; '.join(logs) or 'no output'})")


_UTF8_FORM = re.compile(rb"[\x00-\x7f]|[\xc0-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}"
                        rb"|[\xf0-\xf7][\x80-\xbf]{3}|[\xf8-\xfb][\x80-\xbf]{4}"
                        rb"|[\xfc-\xfd][\x80-\xbf]{5}|[\x80-\xff]")


def _decoded(page: bytes) -> str:
    """The printed page as text. xterm prints each cell's value as UTF-8 up
    to six bytes long (print.c ``charToPrinter``, ``convertToUTF8``), and a
    cell can hold a value that is no character: by default (``utf8Weblike``
    off) xterm decodes overlong forms, five- and six-byte forms and values
    past U+10FFFF into one cell each (ptydata.c ``decodeUtf8``). Each such
    value is read as one U+FFFD, as xterm draws it."""
    out = []
    for m in _UTF8_FORM.finditer(page):
        form = m.group()
        if len(form) == 1 and form[0] < 0x80:
            out.append(chr(form[0]))
            continue
        if len(form) == 1:
            out.append("\ufffd")
            continue
        value = form[0] & (0x7f >> len(form))
        for byte in form[1:]:
            value = value << 6 | byte & 0x3f
        valid = value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF
        out.append(chr(value) if valid else "\ufffd")
    return "".join(out)


_PRINTED = re.compile(r"\x1b#[3-6]|\x1b\[([0-9;:]*)m|\r|(.)", re.S)


def _printed_rows(page: bytes, rows: int) -> tuple[tuple[XtermCell, ...], ...]:
    """The cells of a printed page (see the module docstring)."""
    text = _decoded(page)
    assert text.endswith("\f"), text
    lines = text[:-1].split("\n")
    if len(lines) != rows + 1 or lines[-1]:
        raise XtermError(f"the printed page has {len(lines) - 1} rows, not {rows}: {page!r}")
    out = []
    for line in lines[:-1]:
        cells: list[XtermCell] = []
        # printLine writes SGR before every cell with attributes or colours
        # (its ``attr`` starts at 0 for each column) and nothing before a
        # plain one: so a cell with no SGR of its own is plain, whatever
        # the SGR before it said.
        sgr: tuple[str, ...] | None = None
        for m in _PRINTED.finditer(line):
            if m[1] is not None:
                sgr = tuple(p for p in m[1].split(";") if p not in ("", "0"))
                continue
            char = m[2]
            if char is None:
                continue
            own, sgr = sgr or (), None
            if char == "\uffff":
                # The right half of a wide character; after anything else, the
                # half left when the other was overwritten: drawn blank.
                if cells and not cells[-1].wide and _glibc_width(cells[-1].text[0]) == 2:
                    cells[-1] = XtermCell(cells[-1].text, cells[-1].sgr, True)
                else:
                    cells.append(XtermCell(" ", own))
            elif cells and not own and _glibc_width(char) == 0 \
                    and unicodedata.category(char) != "Zs":
                last = cells[-1]
                cells[-1] = XtermCell(last.text + char, last.sgr, last.wide)
            else:
                cells.append(XtermCell(char, own))
        out.append(tuple(cells))
    return tuple(out)


# -- as differential.View --------------------------------------------------------------


_FLAGS = {"1": "bold", "3": "italic", "4": "underline", "5": "blink", "7": "reverse",
          "9": "strikethrough"}


def _colour(params: Sequence[str], side: str) -> str:
    """The RGB hex (``differential._rgb``'s form) of the colour a cell's SGR names."""
    base, extended = ("3", "38") if side == "fg" else ("4", "48")
    bright = "9" if side == "fg" else "10"
    for p in params:
        if p.startswith(extended + ":5:"):
            # A direct colour comes out as its packed 0xRRGGBB value (print.c
            # passes the attributes without ATR_DIRECT_*), so an "index" past
            # the palette is one; one below 256 (red and green 0) cannot be
            # told from a palette entry.
            value = int(p.split(":")[2])
            return FG_BG_256[value] if value < len(FG_BG_256) else f"{value:06x}"
        if p.startswith(extended + ":2:"):
            r, g, b = (int(v) for v in p.split(":")[-3:])
            return f"{r:02x}{g:02x}{b:02x}"
        if len(p) == 2 and p[0] == base and p[1] in "01234567":
            return FG_BG_256[int(p[1])]
        if len(p) == len(bright) + 1 and p.startswith(bright) and p[-1] in "01234567":
            return FG_BG_256[8 + int(p[-1])]
    return side


def xterm_view(screen: XtermScreen) -> View:
    """What xterm shows, as ``differential.View`` (so ``differences`` and
    ``side_by_side`` compare it with :func:`differential.termsim_view`)."""
    cells = []
    for printed in screen.cells:
        row = []
        for cell in printed:
            char = unicodedata.normalize("NFC", cell.text)
            flags = {_FLAGS[p] for p in cell.sgr if p in _FLAGS}
            if screen.reverse_screen:  # termsim's cells hold what is shown
                flags ^= {"reverse"}
            row.append((char, _look(char, _colour(cell.sgr, "fg"), _colour(cell.sgr, "bg"),
                                    flags)))
        cells.append(_trimmed(row))
    rows = list(screen.lines) + [""] * (screen.rows - len(screen.cells))
    return View(screen.cols, screen.rows, tuple(rows), screen.cursor, screen.modes,
                tuple(cells))


@dataclass(frozen=True)
class Comparison:
    """One program in termsim and in xterm."""

    program: Program
    ours: View
    theirs: View
    aspects: tuple[str, ...]

    @property
    def kind(self) -> Kind | None:
        """The known kind this disagreement is (judged on this program as it
        is: shrink it first, :meth:`Checker.minimal`)."""
        return kind_of(self.program, self) if self.aspects else None

    def command(self) -> str:
        """The command that shows this program in both again."""
        return (f"python tests/xterm_oracle.py --size {self.program.cols}x{self.program.rows} "
                f"--hex {self.program.data.hex()}")

    def report(self) -> str:
        """For a person: the program, both screens side by side, the command."""
        o, t = self.ours, self.theirs
        width = max(o.cols, 7)
        lines = [f"{', '.join(self.aspects) or 'nothing'} differ(s): {o.cols}x{o.rows} "
                 f"{self.program.data!r}", f"reproduce: {self.command()}",
                 f"      {'termsim':<{width + 2}}  xterm"]
        for r in range(o.rows):
            mark = "*" if o.lines[r] != t.lines[r] else " "
            lines.append(f"  {r:>2}{mark} |{o.lines[r]:<{width}}|  |{t.lines[r]:<{width}}|")
        lines.append(f"  cursor (row, col): termsim {o.cursor}, xterm {t.cursor}")
        if o.modes != t.modes:
            lines.append(f"  modes: termsim {dict(o.modes)}, xterm {dict(t.modes)}")
        shown = 0
        for r, (mine, theirs) in enumerate(zip(o.cells, t.cells, strict=True)):
            for c in range(min(len(mine), len(theirs))):
                if mine[c] != theirs[c] and shown < 6:
                    lines.append(f"  cell {r},{c}: termsim {mine[c][0]!r} "
                                 f"{_described(mine[c][1])}; xterm {theirs[c][0]!r} "
                                 f"{_described(theirs[c][1])}")
                    shown += 1
        if self.kind is not None:
            lines.append(f"known kind {self.kind.name!r}: {self.kind.what} (xterm: "
                         f"{self.kind.xterm})")
        return "\n".join(lines)


#: termsim's defaults, which are xterm's (the xterm profile's ``Emulation``).
XTERM_WAY = Emulation()


def compare(xterm: Xterm, program: Program, pauses: Sequence[int] = ()) -> Comparison:
    """``program`` in a fresh termsim Terminal (the xterm profile's emulation:
    ``Emulation()``, not the tmux differential's default) and in ``xterm``
    (``pauses``: :meth:`Xterm.run`)."""
    ours = termsim_view(program, XTERM_WAY)
    theirs = xterm_view(xterm.run(program.cols, program.rows, program.data, pauses))
    return Comparison(program, ours, theirs, differences(ours, theirs))


# -- where termsim and xterm differ -----------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """A known way termsim and xterm differ. ``proposal`` names the fix
    proposed for termsim (the kind then goes away), ``None`` for a
    difference kept for now; ``matches`` says whether a minimal program can
    show it; ``example`` is a program that shows it today."""

    name: str
    what: str
    xterm: str
    proposal: str | None
    matches: Callable[[Program], bool]
    example: tuple[int, int, bytes]
    #: Decides on the comparison itself, when the program cannot tell.
    confirm: Callable[[Comparison], bool] | None = None


def _csi_final(program: Program, finals: str, private: str = "",
               param: int | None = None) -> bool:
    return any(isinstance(t, Csi) and t.final in finals and t.private == private
               and not t.inter and (param is None or param in t.params)
               for t in program.tokens)


def _raw_named(program: Program, *names: str) -> bool:
    return any(isinstance(t, Raw) and t.name in names for t in program.tokens)


def _text_with(program: Program, test: Callable[[str], bool]) -> bool:
    return any(isinstance(t, Text) and any(map(test, t.text)) for t in program.tokens)


def _rep_past_screen(program: Program) -> bool:
    return any(isinstance(t, Csi) and t.final == "b" and not t.private and t.params
               and (t.params[0] or 1) > program.cols * program.rows for t in program.tokens)


#: ESC, then what a sequence may hold (controls other than CAN, SUB and ESC
#: are carried out inside it, DEL is ignored), then any byte beyond ASCII: a UTF-8 lead
#: byte, or one that starts no character (a stray continuation byte, the
#: C0 or C1 of an overlong form, F5 to FF), which xterm reads as U+FFFD or
#: as a value past U+10FFFF (ptydata.c decodeUtf8), above 255 either way:
#: dropped there like any character beyond ASCII.
_INTERRUPTED = re.compile(
    rb"\x1b(\[[\x00-\x17\x19\x1c-\x3f\x7f]*|[\x00-\x17\x19\x1c-\x2f\x7f]*)[\x80-\xff]")
#: The forms xterm's decodeUtf8 reads whole into one value that is no
#: character (``utf8Weblike`` off, its default): overlong forms (the value
#: has UCS_REPL shifted into it), four-byte forms past U+10FFFF, five- and
#: six-byte forms. A surrogate's form is read as UCS_REPL, which is a character.
_WHOLE_NON_CHARACTER = re.compile(
    rb"[\xc0\xc1][\x80-\xbf]|\xe0[\x80-\x9f][\x80-\xbf]|\xf0[\x80-\x8f][\x80-\xbf]{2}"
    rb"|\xf4[\x90-\xbf][\x80-\xbf]{2}|[\xf5-\xf7][\x80-\xbf]{3}|[\xf8-\xfb][\x80-\xbf]{4}"
    rb"|[\xfc\xfd][\x80-\xbf]{5}")


def _non_ascii_in_sequence(program: Program) -> bool:
    """A sequence left open (ESC, its intermediates, a CSI's parameters)
    and then a character beyond ASCII."""
    return _INTERRUPTED.search(program.data) is not None


def _whole_non_character_in_text(program: Program) -> bool:
    """A whole non-character (:data:`_WHOLE_NON_CHARACTER`) and text, which
    may be in the same run as it."""
    return any(_invalid(t) and _WHOLE_NON_CHARACTER.search(t.raw) is not None
               for t in program.tokens if isinstance(t, Raw)) \
        and any(isinstance(t, Text) for t in program.tokens)


def _mark_first(program: Program) -> bool:
    return any(isinstance(t, Text) and _glibc_width(t.text[0]) == 0 for t in program.tokens)


def _regional(c: str) -> bool:
    return 0x1F1E6 <= ord(c) <= 0x1F1FF


def _wide(c: str) -> bool:
    return _glibc_width(c) == 2


def _only_blank_colours_unread(comparison: Comparison) -> bool:
    """Only the colours of blanks differ, and xterm's are the defaults."""
    if comparison.aspects != ("attributes",):
        return False
    for mine, theirs in zip(comparison.ours.cells, comparison.theirs.cells, strict=True):
        for a, b in zip(mine, theirs, strict=False):
            if a != b and not (a[0] == b[0] == " " and b[1].bg == "bg"
                               and not b[1].underline and not b[1].strikethrough):
                return False
    return True


#: HPB or VPB in the bytes, whichever tokens made them (a sequence "left
#: open" and the text after it spell one too).
_HPB_VPB = re.compile(rb"\x1b\[[0-9;]*[jk]")

#: Checked in this order; the first that matches a minimal program names it.
KINDS: tuple[Kind, ...] = (
    Kind("rep-count-capped",
         "REP repeats as many times as asked; termsim repeats at most a screenful, which "
         "leaves another number of characters in the last row",
         "charproc.c CASE_REP: a loop of dotext for the whole count", "P5",
         _rep_past_screen, (3, 1, b"a\x1b[100b")),
    Kind("non-ascii-inside-a-sequence",
         "a character beyond ASCII inside an escape or control sequence: xterm drops it "
         "and, for a zero-width one, goes on with the sequence; termsim ends the "
         "sequence and prints the character",
         "charproc.c doparsing: a code point above 255 outside the ground state", None,
         _non_ascii_in_sequence, (5, 1, b"\x1b[1\xe8\xaa\x9ex")),
    Kind("mark-without-a-written-base",
         "a zero-width mark where no character was just written: xterm adds it to the "
         "cell under the cursor if that cell holds anything, else draws it as a "
         "character of its own; termsim joins it to the cell before or drops it",
         "charproc.c doparsing, the combining-character block (char_was_written, "
         "getXtermCell >= ' ')", None,
         # Not after a scroll (the example was CSI T, U+FE0F on one row):
         # xterm drew the mark on its own in the row the scroll brought in
         # only when it read the mark in the same read as the scroll; when
         # it went idle in between (charproc.c in_put: update_the_screen,
         # FlushScroll) the mark vanished, as it does on the cell a reset
         # cleared (not traced further: screen.c is not read), so the
         # example showed no difference on some runs.
         _mark_first, (5, 1, b"ab\r\xcc\x81")),
    Kind("rep-after-a-whole-non-character",
         "REP after a sequence of bytes read whole that is no character (an overlong "
         "form, a code point past U+10FFFF) repeats nothing in xterm; termsim, which "
         "draws the U+FFFD xterm draws, repeats it",
         "ptydata.c decodeUtf8 keeps the sequence's value (not UCS_REPL) for such a "
         "form; charproc.c CASE_REP repeats lastchar, which is then no character", None,
         lambda p: _csi_final(p, "b") and any(_invalid(t) for t in p.tokens),
         (2, 1, b"\xe0\x80\xaf\x1b[b")),
    Kind("whole-non-character-in-a-run",
         "a sequence of bytes xterm reads whole into a value that is no character (an "
         "overlong form, a four-byte form past U+10FFFF, a five- or six-byte form) counts "
         "-1 column when xterm fits a run of text to the line, though it is drawn in one: "
         "a run holding one is written past the right edge, the characters there are "
         "lost and no wrap is left pending; termsim draws U+FFFD in one column and wraps "
         "the run as any other. Kept: an artefact of glibc's wcwidth, not for termsim to "
         "copy",
         "charproc.c dotext: last_chomp = CharWidth(screen, buf[n]) (my_wcwidth, glibc "
         "wcwidth: -1 for such a value, kept: it is no soft hyphen) and width_here += "
         "last_chomp; util.c WriteText writes every character chomped, clipped at the "
         "edge (visual_width counts it 1)", None,
         _whole_non_character_in_text, (2, 1, b"\xf4\x90\x80\x80aa")),
    Kind("decstr-saves-a-pending-wrap",
         "DECSTR (CSI ! p) saves the cursor with its position home, and in xterm with the "
         "wrap flag as it was: DECRC after a DECSTR at a pending wrap restores a wrap "
         "pending at column 0, so the next character goes to the next row; termsim "
         "saves no pending wrap there (it keeps one only at the right edge or margin). "
         "Kept: an xterm quirk",
         "charproc.c ReallyReset (DECSTR): CursorSave (cursor.c CursorSave2: sc->wrap_flag "
         "= screen->do_wrap), then sc row and col set to 0; CursorRestore restores do_wrap",
         None, lambda p: any(isinstance(t, Csi) and t.final == "p" and t.inter == "!"
                             for t in p.tokens) and _raw_named(p, "ESC 8"),
         (2, 2, b"ab\x1b[!p\x1b8c")),
    Kind("rep-after-an-abandoned-sequence",
         "REP after a sequence the parser abandons (an ESC that a second ESC cancels, a "
         "CSI with an intermediate before its parameters) repeats the last character in "
         "xterm; termsim repeats nothing after any sequence",
         "charproc.c: lastchar is kept through a sequence the parser ignores", None,
         lambda p: _csi_final(p, "b") and any(
             isinstance(t, Raw) and (t.name == "ESC" or "left open" in t.name)
             for t in p.tokens), (5, 1, b"a\x1b\x1b[b")),
    Kind("format-character-dropped",
         "a format character (U+200B, U+200D: category Cf) is dropped by xterm; termsim "
         "keeps it as a zero-width mark on the cell before",
         "charproc.c doparsing: is_formatter (CharacterClass CNTRL) keeps it out of the "
         "combining branch, and dotext does not draw it", None,
         lambda p: _text_with(p, lambda c: unicodedata.category(c) == "Cf"),
         (2, 1, "a\u200d".encode())),
    Kind("wide-character-without-autowrap",
         "with autowrap off, a two-column character that does not fit before the edge: "
         "xterm drops it when it comes alone; termsim writes it over the last two columns",
         "charproc.c dotext (see docs/differences.md wide-character-without-autowrap)",
         None, lambda p: _csi_final(p, "l", "?", 7) and _text_with(p, _wide),
         (2, 1, "\x1b[?7l\t\u2705".encode())),
    Kind("dec-graphics-underscore",
         "'_' in DEC Special Graphics is stored by xterm as character 0, not as a blank: "
         "its printer writes no SGR before such a cell (its colours cannot be read: an "
         "oracle limit), and shifted in by SO at a pending wrap it was seen not to wrap "
         "(not explained yet); termsim draws a blank",
         "charsets.c xtermCharSetOut nrc_DEC_Spec_Graphic: chr == 0x5f -> 0; print.c "
         "printLine: SGR only '&& ch'", None,
         lambda p: _raw_named(p, "ESC ( 0", "ESC ) 0") and _text_with(p, lambda c: c == "_"),
         (2, 1, b"\x1b[44m\x1b(0_{")),
    Kind("single-shift-after-a-wide-character",
         "ESC N or ESC O (SS2, SS3) right after a two-column character: xterm draws that "
         "character again (an xterm quirk; no reason found in the source yet, not for "
         "termsim to copy)", "charproc.c CASE_SS2/CASE_SS3 (unexplained)", None,
         lambda p: re.search(rb"\x1b[NO]", p.data) is not None,
         (2, 2, "\u26a1\x1bN".encode())),
    Kind("hpb-vpb-ignored",
         "HPB and VPB (CSI j, CSI k), ECMA-48's moves back and up: xterm ignores both; "
         "termsim moves as CUB and CUU, as Ghostty does. Kept: a program that sends "
         "them means the move",
         "VTPrsTbl.c csi_table: 'j' and 'k' are CASE_GROUND_STATE", None,
         lambda p: _HPB_VPB.search(p.data) is not None, (2, 1, b"+\x1b[1j")),
    Kind("marks-per-cell",
         "xterm keeps two combining marks in a cell (combiningChars, default 2) and drops "
         "the rest; termsim keeps up to five (screen_marks.MAX_MARKS). Kept: a test of "
         "text with several marks would lose them",
         "xterm(1) combiningChars; charproc.c addXtermCombining", None,
         lambda p: sum(_glibc_width(c) == 0 for t in p.tokens if isinstance(t, Text)
                       for c in t.text) >= 3,
         (2, 1, "P\u0308\u0323\u20dd".encode())),
    Kind("zero-cell-colours-unread",
         "a blank row that a scroll brought in holds character 0 in xterm, and its "
         "printer writes no SGR before such a cell, so the colour it was blanked in "
         "cannot be read (an oracle limit, not a difference shown on screen)",
         "util.c xtermScroll/RevScroll: new rows cleared to 0 with the current colours; "
         "print.c printLine: SGR only '&& ch'", None, lambda p: True,
         (2, 1, b"\x1b[44ma\x1bM~"), confirm=_only_blank_colours_unread),
    Kind("cbt-keeps-a-pending-wrap",
         "CBT (CSI Z) from a pending wrap moves the cursor back a tab stop and keeps the "
         "wrap pending in xterm, so the next character wraps; termsim ends the wrap (as "
         "tmux). Kept: an xterm quirk, arguably its bug",
         "tabs.c TabToPrevStop: set_cur_col without ResetWrap (charproc.c CASE_CBT)", None,
         lambda p: _csi_final(p, "Z"), (3, 1, b"abc\x1b[Zx")),
    Kind("colon-outside-sgr-ignored",
         "a CSI sequence other than SGR with a colon in its parameters is ignored by "
         "xterm; termsim carries it out with the colon read as a separator",
         "charproc.c doparsing: parms.has_subparams and a final that takes none -> "
         "InitParams, CASE_CSI_IGNORE ('unexpected subparam usage')", "P13",
         # (C0 controls but CAN, SUB and ESC are carried out inside a sequence.)
         lambda p: re.search(rb"\x1b\[[\x00-\x17\x19\x1c-\x1f0-9;?<=>]*:"
                             rb"[\x00-\x17\x19\x1c-\x1f0-9:;]*[ -/]*[@-ln-~]", p.data)
         is not None, (5, 1, b"\x1b[3:1Cx")),
    Kind("decbi-decfi-not-implemented",
         "DECBI and DECFI (ESC 6, ESC 9: back and forward index, VT420) move the cursor "
         "a column, scrolling the columns at the margin; termsim does not implement them",
         "charproc.c CASE_DECBI/CASE_DECFI -> xtermColIndex (vtXX_level >= 4)", None,
         lambda p: re.search(rb"\x1b[69]", p.data) is not None, (2, 1, b"\x1b9")),
    Kind("one-column-screen",
         "on a screen one column wide, xterm drops a two-column character and, after a "
         "DEC graphics blank, the next character; termsim wraps the wide character to "
         "the next row. Programs that disagree only on one column are not compared "
         "further (a wider program is never shrunk to one column)",
         "charproc.c dotext / WriteText: a character wider than the line is not written",
         None, lambda p: p.cols == 1, (1, 2, "\u672c".encode())),
)


def kind_of(program: Program, comparison: Comparison | None = None) -> Kind | None:
    """The known kind a minimal program shows, if any (kinds that need to
    see the screens are left out without ``comparison``)."""
    return next((k for k in KINDS if k.matches(program) and (
        k.confirm is None or (comparison is not None and k.confirm(comparison)))), None)




class Checker:
    """Programs through termsim and one xterm, each result kept (the shrinker
    asks about the same program more than once)."""

    def __init__(self, xterm: Xterm) -> None:
        self.xterm = xterm
        self._seen: dict[tuple[int, int, bytes], Comparison] = {}
        #: Programs during which xterm itself exited (it was started again and
        #: the program run anew in the fresh one).
        self.crashes: list[Program] = []

    def compare(self, program: Program) -> Comparison:
        key = (program.cols, program.rows, program.data)
        found = self._seen.get(key)
        if found is None or found.program != program:
            found = self._seen[key] = self._compare(program)
        return found

    def _compare(self, program: Program) -> Comparison:
        """One comparison. Real xterm (patch 379) has been seen to exit
        during a 1x1 program after hundreds of others, and not when the
        same program runs in a fresh one: then the program is run again in
        a new xterm (once), and the crash is kept in :attr:`crashes`."""
        try:
            return compare(self.xterm, program)
        except XtermError:
            if not self.xterm.exited():
                raise
        self.crashes.append(program)
        self.xterm.restart()
        return compare(self.xterm, program)

    def minimal(self, program: Program, budget: int = 200) -> Comparison:
        """The smallest program that still disagrees, never shrunk into a
        kind the larger one did not match, nor from several columns to one."""
        def fails(candidate: Program, best: Program) -> bool:
            if candidate.cols == 1 < best.cols:
                return False
            if any(k.matches(candidate) and not k.matches(best) for k in KINDS):
                return False
            return bool(self.compare(candidate).aspects)
        return self.compare(shrink(program, fails, budget))


@contextmanager
def running_xterm(timeout: float = TIMEOUT) -> Iterator[Xterm]:
    """An :class:`Xterm`, closed afterwards."""
    xterm = Xterm(timeout)
    try:
        yield xterm
    finally:
        xterm.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Show one program in termsim and in xterm (the reproduce command)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--size", default="80x24", help="COLSxROWS")
    parser.add_argument("--hex", required=True, help="the program's bytes, in hex")
    options = parser.parse_args(argv)
    cols, rows = (int(n) for n in options.size.lower().split("x"))
    with running_xterm() as xterm:
        comparison = compare(xterm, parse(cols, rows, bytes.fromhex(options.hex)))
    print(comparison.report())
    return 1 if comparison.aspects else 0


if __name__ == "__main__":
    sys.exit(main())
