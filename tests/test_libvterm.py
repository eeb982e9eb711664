"""libvterm's own test suite (``tests/data/libvterm``), run against termsim.

The files are libvterm 0.3.3's ``t/*.test`` (MIT: ``tests/data/libvterm/LICENSE``;
origin in ``tests/data/libvterm/README.md``). Each is a script for libvterm's C
harness (``t/harness.c``, driven by ``t/run-test.pl``): commands in capitals
(``PUSH "bytes"``, ``RESET``, ``RESIZE rows,cols``...), each followed by the
callbacks it must cause (``putglyph 0x41 1 0,0``, ``erase 0..1,2..80``,
``output "..."``...), and assertions (``?cursor = 0,3``, ``?screen_row 0 = "ABC"``,
``?screen_cell``, ``?pen bold = on``...). This module reads the scripts itself
(with the bit of Perl string syntax they use: ``"A"x5``, ``.``, ``\\e``,
``\\x{8e}``) and keeps one terminal per file, as the harness keeps one
``VTerm``: ``RESET`` is a fresh ``termsim.emulator.Terminal`` of the current size
(80x25 until a ``RESIZE``), and every command goes to it in order.

What a unit is
--------------
One pytest item per *unit*, named ``FILE:LINE`` (``:N`` added for the ``$SEQ``
expansion ``N``):

* each ``?`` assertion line is a unit, as the harness checks each on its own;
* each command with its callback lines (an "expectation group") is one unit,
  checked once the whole command has run, if at least one of its lines says
  something a screen shows (below).

Of the 661 units, termsim passes 615 (``PASSING``) and stock pyte 0.8.2
(``pyte.Screen`` fed by ``pyte.ByteStream``, no termsim code) passes 492
(``PYTE_PASSING``). ``test_libvterm_pass_count`` holds termsim to exactly
``PASSING`` and names every unit that changed; ``test_pyte_pass_count`` holds
pyte's number. (pyte raises on a few sequences, ``CSI ? 6 n`` among them,
which kills its parser: its adapter then starts a new stream, as a caller
would.)

What is checked, and how
------------------------
* ``putglyph CHARS WIDTH ROW,COL``: the character is in that cell once the
  command has run (the cell right of a wide one is its right half), unless a
  later callback of the same command moved or erased it: the command's
  ``putglyph``, ``erase``, ``scrollrect`` and ``moverect`` lines are replayed,
  in order, on a map of the cells it is known to have written, and exactly
  those cells are compared. The ``dwl``/``dhl`` flags (a double-width or
  double-height line) are compared too: termsim has no such lines.
* ``erase RECT``: those cells are blank (on the same map); for ``selective``,
  all but the ones written under DECSCA protection.
* ``movecursor`` (the last of a command) and ``?cursor``: the cursor position.
  libvterm reports a pending wrap as the last column, as a termsim snapshot does.
* ``output``: all the replies ``Terminal.feed`` returned for the command (so a
  checked command without ``output`` must reply nothing).
* ``settermprop``: cursor visibility (1), alternate screen (3), the title (4,
  once the OSC is complete), the cursor shape (7: block, underline or bar, read
  from the DECSCUSR value in ``Modes.cursor_shape``), the mouse mode (8) and
  focus reports (9), read from the snapshot after the command.
* ``?screen_row``, ``?screen_chars``, ``?screen_text``: the text of a row or
  rectangle, built as libvterm builds it (a wide character once, a blank as
  padding, rows joined by newlines). ``?screen_eol``: blank from there to the
  end of the row. ``?screen_attrs_extent``: the run of cells styled alike
  around a cell.
* ``?screen_cell``: text, width, bold, underline (on or off: termsim keeps no
  underline style), italic, blink, reverse, double-width/height line, and the
  colours as RGB through libvterm's palette (termsim's ``"red"`` is libvterm's
  ``rgb(224,0,0)``; the defaults are what ``SETDEFAULTCOL``, the host's call,
  made them).
* ``?pen``: what a character printed now would look like: a second terminal
  is given the same input, then a probe ``X`` at the home position, and its
  cell is read (bold, underline, italic, blink, reverse, colours).
* ``03encoding_utf8`` (``ENCIN``: libvterm's UTF-8 decoder alone): the same
  bytes, fed to a fresh terminal, must draw the code points ``encout`` lists.
  ``02parser`` (``WANTPARSER``: the tokeniser alone): a command whose callbacks
  are only ``text`` (and LF) must draw that text on a fresh screen, which is
  how CAN aborting a sequence and DEL inside text are seen.
* ``WANTSCREEN r``, with which the harness turns reflow on for
  ``69screen_reflow``, is ``Emulation(reflow=True)``, termsim's equivalent.

Text is compared NFC-normalised (pyte merges a combining mark into its base
character), and a written space is a never-written cell (termsim, like pyte,
keeps no difference): trailing blanks are dropped on both sides.

Not counted
-----------
``EXCLUDED`` says how many expectation groups and assertions each reason
leaves out (315 in all; ``test_unit_census`` keeps the numbers true):

* libvterm API internals: ``damage`` rectangles and their merging,
  ``scrollrect``/``moverect`` (used only to place ``putglyph``/``erase``),
  ``sb_pushline``/``sb_popline``/``sb_clear`` (the embedder's scrollback), the
  tokeniser's callbacks with their parameters (``02parser``), the fallbacks
  for sequences libvterm does not handle (``29state_fallback``), the clipboard
  callbacks (``40state_selection``), and ``?lineinfo``: the soft-wrap mark,
  which is never drawn (termsim keeps one, for reflow, out of the snapshot).
* What a termsim snapshot does not hold: cursor blink alone (2; DECSCUSR's
  blink goes with the shape), the icon name (5), DECSCNM as a property (6; its
  effect is compared cell by cell in ``64screen_pen``), a title still being
  sent, and the ``?pen`` attributes termsim's cells do not model, which xterm
  does not draw either: fonts (SGR 10-19), super/subscript (SGR 73-75).
* Input encoding (``INKEY``, ``INCHAR``, ``MOUSEBTN``, ``MOUSEMOVE``, ``PASTE``,
  ``FOCUS``, ``SELECTION``): what a terminal sends for keys, mouse and paste,
  not what it does with a program's output.
* 8-bit mode: a file that never says ``UTF8 1`` runs libvterm in 8-bit mode,
  where ``\\xe1`` is a character and ``\\x9b`` is CSI; termsim decodes UTF-8
  only, so a command with a byte above 0x7f there, and all that follows it up
  to the next ``RESET``, means something else to it. Likewise decoder output
  that holds C0/C1 controls, which a terminal executes instead of drawing.
* The state right after the harness's ``RESET``: a fresh ``Terminal`` has it
  by construction.
* What only the harness's fake scrollback explains: its ``sb_popline`` hands
  back lines of ``ABCDE`` that no terminal has.

Failures
--------
Every unit that fails is listed with its reason, both lists
``xfail(strict=True)`` (a unit that starts passing fails the suite until it
is taken off): ``EXPECTED_DEVIATIONS``, where termsim differs on purpose
(libvterm makes a choice xterm does not, or for malformed UTF-8, where termsim
follows the Unicode Standard), and ``KNOWN_GAPS``, where xterm does what
libvterm does and termsim falls short.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Protocol

import pyte
import pytest
from helpers import PYTE_COLOUR_INDEX, PYTE_HEX_INDEX, is_wide, nfc, xfail_param
from pyte.screens import Char

from termsim import Style
from termsim.emulator import Emulation, Terminal

DATA = Path(__file__).resolve().parent / "data" / "libvterm" / "t"
#: The harness's terminal: ``vterm_new(25, 80)``.
ROWS, COLS = 25, 80
#: termsim's score on the units (see the module docstring for what they are).
PASSING = 615
#: Stock pyte 0.8.2's score on the same units.
PYTE_PASSING = 492
#: How many units there are.
UNITS = 661


# -- reading the scripts ---------------------------------------------------------------

_ESCAPES = {"e": "\x1b", "n": "\n", "r": "\r", "t": "\t", "b": "\b", "a": "\a", "f": "\f",
            "0": "\0"}
_PERL_ESCAPE = re.compile(r"\\(x\{([0-9a-fA-F]+)\}|x([0-9a-fA-F]{0,2})|.)", re.S)
_PERL_TERM = re.compile(r'\s*"((?:[^"\\]|\\.)*)"((?:\s*x\s*\d+)*)\s*(\.)?', re.S)


def _unescape(body: str) -> str:
    """A Perl double-quoted string's body, as the code points it stands for."""

    def one(m: re.Match[str]) -> str:
        if m.group(2) is not None:
            return chr(int(m.group(2), 16))
        if m.group(3) is not None:
            return chr(int(m.group(3) or "0", 16))
        char = m.group(1)
        return _ESCAPES.get(char, char)

    return _PERL_ESCAPE.sub(one, body)


def perl_string(expr: str) -> str:
    """The value of the Perl expressions these scripts use for strings:
    double-quoted literals, ``x N`` (repeat; binds tighter) and ``.`` (join)."""
    out, pos = [], 0
    while pos < len(expr.rstrip()):
        m = _PERL_TERM.match(expr, pos)
        if m is None:
            raise ValueError(f"not a string expression: {expr!r}")
        text = _unescape(m.group(1))
        for count in re.findall(r"\d+", m.group(2)):
            text *= int(count)
        out.append(text)
        pos = m.end()
    return "".join(out)


def perl_bytes(expr: str) -> bytes:
    """A string expression as the bytes the harness is given (``unpack "H*"``)."""
    return perl_string(expr).encode("latin-1")


def numbers(text: str) -> list[int]:
    """``0x41,0x42`` (the harness's lists of code points or bytes) as ints."""
    return [int(n, 0) for n in text.replace(" ", "").split(",") if n]


@dataclass
class Command:
    """A line in capitals, and the callback lines that follow it."""

    word: str
    arg: str
    line: int
    seq: int | None
    block: str
    source: str
    expects: list[tuple[str, str]] = field(default_factory=list)  # (word, rest)


@dataclass
class Assertion:
    """A ``?name ARGS = EXPECTED`` line."""

    name: str
    args: str
    expected: str
    line: int
    seq: int | None
    block: str
    source: str


Step = Command | Assertion


def parse(path: Path) -> list[Step]:
    """The script as ``run-test.pl`` reads it: ``$SEQ``/``$REP`` expanded,
    comments and blank lines dropped, callback lines under their command."""
    steps: list[Step] = []
    block = ""

    def do_line(text: str, number: int, seq: int | None) -> None:
        nonlocal block
        source = text
        if m := re.match(r"\$SEQ\s+(\d+)\s+(\d+):\s*", text):
            for value in range(int(m.group(1)), int(m.group(2)) + 1):
                do_line(text[m.end():].replace("\\#", str(value)), number, value)
            return
        if m := re.match(r"\$REP\s+(\d+):\s*", text):
            for _ in range(int(m.group(1))):
                do_line(text[m.end():], number, seq)
            return
        if text.startswith("!"):
            block = text[1:].strip()
        elif m := re.match(r"([A-Z0-9]+)\s*(.*)", text):
            steps.append(Command(m.group(1), m.group(2), number, seq, block, source))
        elif m := re.match(r"([a-z_-]+)\s*(.*)", text):
            last = steps[-1]
            assert isinstance(last, Command), f"{path.name}:{number}: a callback line after ?"
            last.expects.append((m.group(1), m.group(2)))
        elif m := re.match(r"\?(\w+)\s*(.*?)\s*=\s*(.*)", text):
            steps.append(Assertion(m.group(1), m.group(2), m.group(3).strip(), number, seq,
                                   block, source))
        else:
            raise ValueError(f"{path.name}:{number}: unrecognised line {text!r}")

    for number, raw in enumerate(path.read_text("latin-1").splitlines(), start=1):
        text = raw.strip()
        if text == "__END__":
            break
        if text and not text.startswith("#"):
            do_line(text, number, None)
    return steps


# -- the emulators under test ----------------------------------------------------------


@dataclass(frozen=True)
class Screen:
    """What the checks read from an emulator: one moment of its screen."""

    rows: int
    cols: int
    cursor: tuple[int, int]  # (row, col); a pending wrap is the last column
    visible: bool
    title: str
    alternate: bool
    mouse: str | None  # termsim's names: "x10", "normal", "button", "any"
    focus: bool
    cursor_shape: int  # the DECSCUSR value
    cells: Callable[[int, int], tuple[str, Style]]
    lines: Callable[[int], str]  # a row's text, a wide character once

    def cell(self, row: int, col: int) -> tuple[str, Style]:
        """The cell's text (``""``: the right half of a wide character) and style."""
        return self.cells(row, col)

    def line(self, row: int) -> str:
        return self.lines(row)


class Emulator(Protocol):
    """A terminal emulator as the scripts drive it."""

    def feed(self, data: bytes) -> bytes: ...

    def resize(self, rows: int, cols: int) -> None: ...

    def screen(self) -> Screen: ...


#: Makes an emulator of (rows, cols), reflowing on resize or not.
Factory = Callable[[int, int, bool], Emulator]


class TermsimEmulator:
    """``termsim.emulator.Terminal``, read through its public snapshot."""

    def __init__(self, rows: int, cols: int, reflow: bool) -> None:
        emulation = Emulation(reflow=True) if reflow else None
        self.term = Terminal(cols, rows, emulation=emulation)

    def feed(self, data: bytes) -> bytes:
        return self.term.feed(data)

    def resize(self, rows: int, cols: int) -> None:
        self.term.resize(cols, rows)

    def screen(self) -> Screen:
        snap = self.term.screen
        modes = snap.modes

        def cell(row: int, col: int) -> tuple[str, Style]:
            got = snap.cell(row, col)
            return got.char, got.style

        return Screen(
            snap.rows, snap.cols, (snap.cursor.row, snap.cursor.col), snap.cursor.visible,
            snap.title, snap.alternate, modes.mouse, modes.focus_events, modes.cursor_shape,
            cell, lambda row: snap.lines[row],
        )


_PYTE_MOUSE = ((1003, "any"), (1002, "button"), (1000, "normal"), (9, "x10"))


class _PyteScreen(pyte.Screen):
    """``pyte.Screen``, keeping the replies it writes (DA, DSR...)."""

    def __init__(self, cols: int, rows: int) -> None:
        super().__init__(cols, rows)
        self.replies: list[str] = []

    def write_process_input(self, data: str) -> None:
        self.replies.append(data)


class PyteEmulator:
    """Stock pyte 0.8.2, for comparison: ``pyte.Screen`` fed by ``pyte.ByteStream``."""

    def __init__(self, rows: int, cols: int, reflow: bool) -> None:
        self.pyte = _PyteScreen(cols, rows)
        self.stream = pyte.ByteStream(self.pyte)
        self.replies = self.pyte.replies

    def feed(self, data: bytes) -> bytes:
        try:
            self.stream.feed(data)
        except Exception:
            # pyte raises on a few sequences (``CSI ? 6 n``...) and its parser
            # is dead after that: start a new stream, as a caller would.
            self.stream = pyte.ByteStream(self.pyte)
        replies = "".join(self.replies).encode()
        self.replies.clear()
        return replies

    def resize(self, rows: int, cols: int) -> None:
        self.pyte.resize(rows, cols)

    def screen(self) -> Screen:
        s = self.pyte
        mode = s.mode

        # Read with .get: indexing pyte's buffer creates rows, and what pyte
        # does next depends on which rows exist (the reason termsim rewrote
        # its delete_lines), so a read must leave it as it was.
        def cell(row: int, col: int) -> tuple[str, Style]:
            line = s.buffer.get(row)
            c: Char = line[col] if line is not None else s.default_char
            return c.data, Style(c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse,
                                 c.strikethrough, c.blink)

        def line(row: int) -> str:
            return "".join(cell(row, col)[0] for col in range(s.columns))

        mouse = next((name for m, name in _PYTE_MOUSE if m << 5 in mode), None)
        return Screen(
            s.lines, s.columns, (s.cursor.y, min(s.cursor.x, s.columns - 1)),
            not s.cursor.hidden, s.title, False, mouse, 1004 << 5 in mode, 0, cell, line,
        )


# -- colours ---------------------------------------------------------------------------

RGB = tuple[int, int, int]
#: libvterm's palette (src/pen.c): 16 ANSI colours, a 6x6x6 cube, 24 greys.
_RAMP6 = (0x00, 0x33, 0x66, 0x99, 0xCC, 0xFF)
_RAMP24 = (0x00, 0x0B, 0x16, 0x21, 0x2C, 0x37, 0x42, 0x4D, 0x58, 0x63, 0x6E, 0x79,
           0x85, 0x90, 0x9B, 0xA6, 0xB1, 0xBC, 0xC7, 0xD2, 0xDD, 0xE8, 0xF3, 0xFF)
VTERM_PALETTE: list[RGB] = [
    (0, 0, 0), (224, 0, 0), (0, 224, 0), (224, 224, 0), (0, 0, 224), (224, 0, 224),
    (0, 224, 224), (224, 224, 224), (128, 128, 128), (255, 64, 64), (64, 255, 64),
    (255, 255, 64), (64, 64, 255), (255, 64, 255), (64, 255, 255), (255, 255, 255),
    *[(_RAMP6[i // 36], _RAMP6[i // 6 % 6], _RAMP6[i % 6]) for i in range(216)],
    *[(g, g, g) for g in _RAMP24],
]
VTERM_DEFAULT_FG: RGB = (240, 240, 240)
VTERM_DEFAULT_BG: RGB = (0, 0, 0)
#: pyte's colour names and ``38;5;n`` hex values as palette indexes.
_NAMED, _HEX = PYTE_COLOUR_INDEX, PYTE_HEX_INDEX


def rgb_of(colour: str, default: RGB) -> RGB:
    """A pyte/termsim colour as libvterm would paint it (its palette)."""
    if colour == "default":
        return default
    index = _NAMED.get(colour, _HEX.get(colour))
    if index is not None:
        return VTERM_PALETTE[index]
    return int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)


_COLOUR = re.compile(r"(rgb|idx)\(([\d,]+)(,is_default_(?:fg|bg))?\)")


def expected_colour(text: str) -> RGB | None:
    """libvterm's printed colour: ``None`` for "the default", else its RGB."""
    m = _COLOUR.fullmatch(text.strip())
    assert m, text
    if m.group(3):
        return None
    values = numbers(m.group(2))
    return VTERM_PALETTE[values[0]] if m.group(1) == "idx" else (values[0], values[1], values[2])


# -- running a script ------------------------------------------------------------------


@dataclass
class Outcome:
    """One unit: where it is, and what went wrong (``excluded``: why it is not counted)."""

    id: str
    block: str
    source: str
    problems: list[str] = field(default_factory=list)
    excluded: str | None = None


def _trimmed(text: str) -> str:
    """Text as compared: NFC, each line without trailing blanks (a written
    space and a never-written cell look the same; termsim keeps no difference)."""
    return "\n".join(line.rstrip(" ") for line in nfc(text).split("\n"))


def _rect(text: str) -> tuple[int, int, int, int]:
    """``R0..R1,C0..C1`` as (r0, r1, c0, c1)."""
    m = re.fullmatch(r"(\d+)\.\.(\d+),(\d+)\.\.(\d+)", text.strip())
    assert m, text
    r0, r1, c0, c1 = map(int, m.groups())
    return r0, r1, c0, c1


BLANK, CONTINUATION = " ", ""
_INPUT_COMMANDS = frozenset({"INKEY", "INCHAR", "MOUSEBTN", "MOUSEMOVE", "PASTE", "FOCUS",
                             "SELECTION"})
_API_CALLBACKS = frozenset({"scrollrect", "moverect", "damage", "sb_pushline", "sb_popline",
                            "sb_clear", "selection-set", "selection-query", "csi", "escape",
                            "osc", "dcs", "apc", "pm", "sos"})

# Why units are not counted (the module docstring explains each).
X_8BIT = "8-bit mode input (UTF8 0 and bytes above 0x7f): termsim decodes UTF-8 only"
X_INPUT = "input encoding (keys, mouse, paste, focus, clipboard): not Terminal's job"
X_RESET = "state right after the harness's RESET: a fresh Terminal has it by construction"
X_LINEINFO = "?lineinfo: the soft-wrap mark is never drawn"
X_ATTR = "pen attribute termsim's cells do not model (font, super/subscript)"
X_FAKE_SB = "depends on the harness's fake scrollback (sb_popline hands back ABCDE lines)"
X_TOKENS = "tokeniser/fallback callbacks (csi, escape, osc...): libvterm API, no screen meaning"
X_CONTROLS = "decoder output holds C0/C1 controls, which a terminal executes, not draws"
X_API = "libvterm API callbacks only (damage, scrollrect/moverect, scrollback, clipboard)"
X_PROPS = "properties a Snapshot does not hold (cursor blink, icon name, DECSCNM, partial title)"


class Session:
    """One script run against one emulator, as ``harness.c`` runs it."""

    def __init__(self, stem: str, factory: Factory) -> None:
        self.stem = stem
        self.factory = factory
        self.utf8 = False
        self.size = (ROWS, COLS)
        self.reflow = False
        self.parser_mode = False
        self.fallbacks = False
        self.encoding_mode = False
        self._emulator: Emulator | None = None
        self.base = self.size  # the size the history starts from
        self.history: list[bytes | tuple[int, int]] = []
        self.taint: str | None = None  # why units are not counted until the next RESET
        self.fresh = True  # nothing fed or resized since the last RESET
        self.protected: set[tuple[int, int]] = set()
        self.title = ""
        self.default_fg, self.default_bg = VTERM_DEFAULT_FG, VTERM_DEFAULT_BG
        self.span: list[bytes] = []  # input since the last checked group (02/03 files)
        self.outcomes: list[Outcome] = []

    # -- the terminal ------------------------------------------------------------------

    def emulator(self) -> Emulator:
        if self._emulator is None:
            self._emulator = self.replayed()
        return self._emulator

    def replayed(self) -> Emulator:
        """A new emulator given this session's input since the last RESET."""
        emu = self.factory(*self.base, self.reflow)
        for item in self.history:
            if isinstance(item, bytes):
                emu.feed(item)
            else:
                emu.resize(*item)
        return emu

    def reset(self) -> None:
        self.fresh = True
        self._emulator = None
        self.base = self.size
        self.history = []
        self.taint = None
        self.protected = set()
        self.title = ""

    # -- outcomes ------------------------------------------------------------------------

    def unit(self, step: Step) -> Outcome:
        suffix = f":{step.seq}" if step.seq is not None else ""
        outcome = Outcome(f"{self.stem}:{step.line}{suffix}", step.block, step.source)
        self.outcomes.append(outcome)
        return outcome

    def exclude(self, step: Step, reason: str) -> None:
        self.unit(step).excluded = reason

    # -- running -------------------------------------------------------------------------

    def run(self, steps: list[Step]) -> list[Outcome]:
        for step in steps:
            if isinstance(step, Command):
                self.command(step)
            else:
                self.assertion(step)
        return self.outcomes

    def command(self, cmd: Command) -> None:
        word, arg = cmd.word, cmd.arg
        replies = b""
        if word == "INIT":
            pass
        elif word == "UTF8":
            self.utf8 = arg.strip() == "1"
        elif word == "WANTPARSER":
            self.parser_mode = True
        elif word == "WANTENCODING":
            self.encoding_mode = True
        elif word == "WANTSTATE":
            self.fallbacks = _flags(arg).get("f", self.fallbacks)
        elif word == "WANTSCREEN":
            reflow = _flags(arg).get("r", self.reflow)
            if reflow != self.reflow:
                self.reflow = reflow
                if self._emulator is not None:
                    self._emulator = self.replayed()
        elif word == "RESET":
            self.reset()
            if self.has_checks(cmd):
                self.exclude(cmd, X_RESET)
            return
        elif word == "RESIZE":
            rows, cols = numbers(arg)
            self.size = (rows, cols)
            self.emulator().resize(rows, cols)
            self.history.append(self.size)
            self.fresh = False
        elif word in ("PUSH", "ENCIN"):
            data = perl_bytes(arg)
            if not self.utf8 and word == "PUSH" and _eight_bit(data):
                self.taint = X_8BIT
                if cmd.expects and (self.parser_mode or self.has_checks(cmd)):
                    self.exclude(cmd, X_8BIT)
                self.span = []
                return
            if self.parser_mode or self.encoding_mode:
                self.span.append(data)
                self.drawn_text(cmd)
                return
            replies = self.emulator().feed(data)
            self.history.append(data)
            self.fresh = False
        elif word in _INPUT_COMMANDS:
            if any(w == "output" for w, _ in cmd.expects):
                self.exclude(cmd, X_INPUT)
            return
        elif word == "SETDEFAULTCOL":
            colours = re.findall(r"rgb\([\d,]+\)", arg)
            self.default_fg = expected_colour(colours[0]) or VTERM_DEFAULT_FG
            if len(colours) > 1:
                self.default_bg = expected_colour(colours[1]) or VTERM_DEFAULT_BG
            return
        elif word in ("DAMAGEMERGE", "DAMAGEFLUSH"):
            return
        else:
            raise ValueError(f"{self.stem}:{cmd.line}: unknown command {word}")
        for word, rest in cmd.expects:
            if word == "sb_popline":
                self.taint = X_FAKE_SB
            elif word == "settermprop" and rest.startswith("4 "):
                value = rest[2:]
                text = perl_string(value.strip("[]")) if value.strip("[]") else ""
                self.title = text if value.startswith("[") else self.title + text
        if self.has_checks(cmd):
            self.group(cmd, replies)
        elif cmd.expects:
            self.exclude(cmd, self.unchecked(cmd))

    def unchecked(self, cmd: Command) -> str:
        """Why a command's callback lines, none of which a screen shows, are not counted."""
        words = {w for w, _ in cmd.expects}
        if self.taint:
            return self.taint
        if words == {"settermprop"}:
            return X_PROPS
        if self.fallbacks and words <= _API_CALLBACKS | {"control"}:
            return X_TOKENS
        return X_API

    def has_checks(self, cmd: Command) -> bool:
        """Whether any of the command's callback lines says what a screen shows."""
        for word, rest in cmd.expects:
            if word in ("putglyph", "erase", "movecursor", "output"):
                return True
            if word == "settermprop":
                prop, value = rest.split(" ", 1)
                if prop in ("1", "3", "7", "8", "9") or (prop == "4" and value.endswith("]")):
                    return True
        return False

    def group(self, cmd: Command, replies: bytes) -> None:
        """Check a command's callback lines (see the module docstring)."""
        if self.taint:
            self.exclude(cmd, self.taint)
            return
        if not self.utf8 and any(w == "output" and _eight_bit(perl_bytes(r))
                                 for w, r in cmd.expects):
            self.exclude(cmd, X_8BIT)
            return
        outcome = self.unit(cmd)
        problems = outcome.problems
        screen = self.emulator().screen()
        cells: dict[tuple[int, int], str] = {}
        cursor: tuple[int, int] | None = None
        output = b""
        props: dict[str, str] = {}
        line_attrs: list[str] = []
        for word, rest in cmd.expects:
            if word == "putglyph":
                chars, width, pos, *flags = rest.split()
                row, col = numbers(pos)
                cells[row, col] = "".join(map(chr, numbers(chars)))
                if width == "2":
                    cells[row, col + 1] = CONTINUATION
                if "prot" in flags:
                    self.protected.add((row, col))
                lines = " ".join(f for f in flags if f == "dwl" or f.startswith("dhl"))
                if lines and f"row {row}: {lines}" not in line_attrs:
                    line_attrs.append(f"row {row}: {lines}")
            elif word == "erase":
                r0, r1, c0, c1 = _rect(rest.split()[0])
                selective = rest.endswith("selective")
                for r in range(r0, r1):
                    for c in range(c0, c1):
                        if not (selective and (r, c) in self.protected):
                            cells[r, c] = BLANK
            elif word == "scrollrect":
                m = re.fullmatch(r"(\S+) => ([+-]\d+),([+-]\d+)", rest)
                assert m, rest
                r0, r1, c0, c1 = _rect(m.group(1))
                down, right = int(m.group(2)), int(m.group(3))
                src = (max(r0, r0 + down), min(r1, r1 + down), max(c0, c0 + right),
                       min(c1, c1 + right))
                _move(cells, src, (-down, -right), (r0, r1, c0, c1))
            elif word == "moverect":
                src_text, dest_text = rest.split(" -> ")
                src, dest = _rect(src_text), _rect(dest_text)
                _move(cells, src, (dest[0] - src[0], dest[2] - src[2]), src)
            elif word == "movecursor":
                row, col = numbers(rest)
                cursor = (row, col)
            elif word == "output":
                output += perl_bytes(rest)
            elif word == "settermprop":
                prop, value = rest.split(" ", 1)
                props[prop] = value
        for (row, col), want in sorted(cells.items()):
            if not (0 <= row < screen.rows and 0 <= col < screen.cols):
                problems.append(f"cell {row},{col}: outside the {screen.rows}x{screen.cols} screen")
                continue
            got = screen.cell(row, col)[0]
            if want == BLANK:
                # A right half is blank only if its wide character is gone.
                ok = got == " " or (
                    got == "" and not (col and is_wide(screen.cell(row, col - 1)[0])))
            else:
                ok = nfc(got) == nfc(want)
            if not ok:
                problems.append(f"cell {row},{col}: expected {want!r}, got {got!r}")
        if line_attrs:
            problems.append(f"line attributes {', '.join(line_attrs)}: termsim has none")
        if cursor is not None and screen.cursor != cursor:
            problems.append(f"cursor: expected {cursor}, got {screen.cursor}")
        if replies != output:
            problems.append(f"replies: expected {output!r}, got {replies!r}")
        self.check_props(props, screen, problems)

    def check_props(self, props: dict[str, str], screen: Screen, problems: list[str]) -> None:
        """``settermprop`` lines, as the screen shows them after the command."""
        if "1" in props and screen.visible != (props["1"] == "true"):
            problems.append(f"cursor visible: expected {props['1']}, got {screen.visible}")
        if "3" in props and screen.alternate != (props["3"] == "true"):
            problems.append(f"alternate screen: expected {props['3']}, got {screen.alternate}")
        if "4" in props and props["4"].endswith("]") and screen.title != self.title:
            problems.append(f"title: expected {self.title!r}, got {screen.title!r}")
        if "7" in props:
            # libvterm: 1 block, 2 underline, 3 bar; DECSCUSR: 0-2 block, 3-4, 5-6.
            shape = {0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3}.get(screen.cursor_shape)
            if str(shape) != props["7"]:
                problems.append(f"cursor shape: expected {props['7']} (libvterm), got "
                                f"DECSCUSR {screen.cursor_shape}")
        if "8" in props:
            want: dict[str, set[str | None]] = {
                "0": {None}, "1": {"normal", "x10"}, "2": {"button"}, "3": {"any"}}
            if screen.mouse not in want[props["8"]]:
                problems.append(f"mouse mode: expected {props['8']}, got {screen.mouse}")
        if "9" in props and screen.focus != (props["9"] == "true"):
            problems.append(f"focus reports: expected {props['9']}, got {screen.focus}")

    # -- the tokeniser and decoder files (02, 03) --------------------------------------------

    def drawn_text(self, cmd: Command) -> None:
        """``02parser``/``03encoding_utf8``: what the input since the last checked
        command draws on a fresh screen must be the text the callbacks list."""
        words = {w for w, _ in cmd.expects}
        if not words:
            return
        data, self.span = self.span, []
        if words & _API_CALLBACKS:
            self.exclude(cmd, X_TOKENS)
            return
        rows: list[list[str]] = [[]]
        for word, rest in cmd.expects:
            if word in ("text", "encout"):
                # A number past U+10FFFF (libvterm decodes up to U+1FFFFF) is
                # no character: shown as its name, it can never match.
                text = "".join(chr(c) if c <= 0x10FFFF else f"<U+{c:X}>" for c in numbers(rest))
                if any(unicodedata.category(ch) == "Cc" for ch in text):
                    self.exclude(cmd, X_CONTROLS)
                    return
                rows[-1] += list(text)
            elif word == "control" and int(rest, 0) == 0x0A:
                rows.append([" "] * len(rows[-1]))
        outcome = self.unit(cmd)
        emu = self.factory(*self.size, False)
        for chunk in data:
            emu.feed(chunk)
        screen = emu.screen()
        want = [nfc("".join(row).rstrip()) for row in rows]
        shown = [nfc(screen.line(r).rstrip()) for r in range(screen.rows)]
        while len(shown) > len(want) and not shown[-1]:
            shown.pop()
        if shown != want:
            outcome.problems.append(f"drawn: expected {want}, got {shown}")

    # -- ? assertions ----------------------------------------------------------------------

    def assertion(self, a: Assertion) -> None:
        if self.taint:
            self.exclude(a, self.taint)
            return
        if self.fresh:
            self.exclude(a, X_RESET)
            return
        if a.name == "lineinfo":
            self.exclude(a, X_LINEINFO)
            return
        if a.name == "pen" and a.args in ("font", "small", "baseline"):
            self.exclude(a, X_ATTR)
            return
        outcome = self.unit(a)
        screen = self.emulator().screen()
        check = getattr(self, f"check_{a.name}")
        problem = check(a.args, a.expected, screen)
        if problem:
            outcome.problems.append(problem)

    def check_cursor(self, args: str, expected: str, screen: Screen) -> str | None:
        row, col = numbers(expected)
        if screen.cursor != (row, col):
            return f"cursor: expected {row},{col}, got {screen.cursor[0]},{screen.cursor[1]}"
        return None

    def check_screen_row(self, args: str, expected: str, screen: Screen) -> str | None:
        row = int(args)
        want = perl_string(expected) if expected.startswith('"') else "".join(
            map(chr, numbers(expected)))
        if row >= screen.rows:
            return f"row {row}: the screen has {screen.rows} rows"
        got = screen.line(row)
        if nfc(got.rstrip()) != nfc(want.rstrip()):
            return f"row {row}: expected {want.rstrip()!r}, got {got.rstrip()!r}"
        return None

    def check_screen_chars(self, args: str, expected: str, screen: Screen) -> str | None:
        want = perl_string(expected) if expected.startswith('"') else "".join(
            map(chr, numbers(expected)))
        got = _chars(screen, args)
        if _trimmed(got) != _trimmed(want):
            return f"chars {args}: expected {want!r}, got {got!r}"
        return None

    def check_screen_text(self, args: str, expected: str, screen: Screen) -> str | None:
        want = bytes(numbers(expected)).decode("utf-8")
        got = _chars(screen, args)
        if _trimmed(got) != _trimmed(want):
            return f"text {args}: expected {want!r}, got {got!r}"
        return None

    def check_screen_eol(self, args: str, expected: str, screen: Screen) -> str | None:
        row, col = numbers(args)
        eol = all(screen.cell(row, c)[0] == " " for c in range(col, screen.cols))
        if eol != (expected == "1"):
            return f"eol {row},{col}: expected {expected}, got {int(eol)}"
        return None

    def check_screen_attrs_extent(self, args: str, expected: str, screen: Screen) -> str | None:
        row, col = numbers(args)
        style = screen.cell(row, col)[1]
        start = col
        while start > 0 and screen.cell(row, start - 1)[1] == style:
            start -= 1
        end = col
        while end < screen.cols - 1 and screen.cell(row, end + 1)[1] == style:
            end += 1
        got = f"{row},{start}-{row + 1},{end}"
        if got != expected:
            return f"extent {row},{col}: expected {expected}, got {got}"
        return None

    def check_screen_cell(self, args: str, expected: str, screen: Screen) -> str | None:
        row, col = numbers(args)
        m = re.fullmatch(r"\{([^}]*)\} width=(\d) attrs=\{([^}]*)\} ((?:dwl |dhl-\w+ )*)"
                         r"fg=(\S+) bg=(\S+)", expected)
        assert m, expected
        char, style = screen.cell(row, col)
        attrs = m.group(3)
        want_text = "".join(map(chr, numbers(m.group(1)))) or " "
        wide = is_wide(char) and col + 1 < screen.cols and screen.cell(row, col + 1)[0] == ""
        checks: dict[str, tuple[object, object]] = {
            "text": (nfc(want_text), nfc(char or " ")),
            "width": (int(m.group(2)), 2 if wide else 1),
            "bold": ("B" in attrs, style.bold),
            "underline": ("U" in attrs, style.underline),
            "italic": ("I" in attrs, style.italic),
            "blink": ("K" in attrs, style.blink),
            "reverse": ("R" in attrs, style.reverse),
            "line attributes": (m.group(4).strip(), ""),
            "fg": (expected_colour(m.group(5)), rgb_of(style.fg, self.default_fg)),
            "bg": (expected_colour(m.group(6)), rgb_of(style.bg, self.default_bg)),
        }
        bad = [f"{k} {w!r} != {g!r}" for k, (w, g) in checks.items() if w != g]
        return f"cell {row},{col}: " + ", ".join(bad) if bad else None

    def check_pen(self, args: str, expected: str, screen: Screen) -> str | None:
        probe = self.replayed()
        probe.feed(b"\x1b[?6l\x1b[HX")
        style = probe.screen().cell(0, 0)[1]
        got: object
        if args in ("foreground", "background"):
            colour = style.fg if args == "foreground" else style.bg
            got = None if colour == "default" else rgb_of(colour, VTERM_DEFAULT_FG)
            want: object = expected_colour(expected)
        elif args == "underline":
            want, got = expected != "0", style.underline
        else:
            flag = {"italic": "italic", "bold": "bold", "blink": "blink", "reverse": "reverse"}
            want, got = expected == "on", getattr(style, flag[args])
        if want != got:
            return f"pen {args}: expected {expected} ({want!r}), got {got!r}"
        return None


def _flags(arg: str) -> dict[str, bool]:
    """``WANTSTATE``/``WANTSCREEN`` letters: ``+`` turns the next ones on, ``-`` off."""
    flags, sense = {}, True
    for char in arg.replace(" ", ""):
        if char in "+-":
            sense = char == "+"
        else:
            flags[char] = sense
    return flags


def _eight_bit(data: bytes) -> bool:
    return any(b > 0x7F for b in data)


def _move(cells: dict[tuple[int, int], str], src: tuple[int, int, int, int],
          by: tuple[int, int], cleared: tuple[int, int, int, int]) -> None:
    """Move the known cells of ``src`` by ``by``; the rest of ``cleared`` and of
    the destination becomes unknown (only a later ``erase`` says it is blank)."""
    r0, r1, c0, c1 = src
    dr, dc = by
    moved = {(r + dr, c + dc): v for (r, c), v in cells.items() if r0 <= r < r1 and c0 <= c < c1}
    for key in [k for k in cells if _inside(k, cleared) or _inside(k, (r0 + dr, r1 + dr,
                                                                     c0 + dc, c1 + dc))]:
        del cells[key]
    cells.update(moved)


def _inside(cell: tuple[int, int], rect: tuple[int, int, int, int]) -> bool:
    return rect[0] <= cell[0] < rect[1] and rect[2] <= cell[1] < rect[3]


def _chars(screen: Screen, args: str) -> str:
    """``vterm_screen_get_chars``: the rectangle's text, blank cells as padding
    that only a later character writes out, rows joined by newlines."""
    values = numbers(args)
    if len(values) == 1:
        r0, c0, r1, c1 = values[0], 0, values[0] + 1, screen.cols
    else:
        r0, c0, r1, c1 = values
    out: list[str] = []
    for row in range(r0, r1):
        padding = 0
        for col in range(c0, c1):
            char = screen.cell(row, col)[0]
            if char == " ":
                padding += 1
            elif char:
                out.append(" " * padding + char)
                padding = 0
        if row < r1 - 1:
            out.append("\n")
    return "".join(out)


# -- the units -------------------------------------------------------------------------

FILES = sorted(p.stem for p in DATA.glob("*.test"))


@cache
def outcomes(stem: str, emulator: str = "termsim") -> tuple[Outcome, ...]:
    factory: Factory = TermsimEmulator if emulator == "termsim" else PyteEmulator
    return tuple(Session(stem, factory).run(parse(DATA / f"{stem}.test")))


def all_outcomes(emulator: str = "termsim") -> Iterator[Outcome]:
    for stem in FILES:
        yield from outcomes(stem, emulator)


# Why units fail. Each reason names libvterm's choice, xterm's, and where
# xterm's is (its source files: charproc.c, cursor.c, misc.c, screen.c, ptydata.c).
_UTF8_RANGE = (
    "libvterm decodes F7 BF BF BF as U+1FFFFF; UTF-8 ends at U+10FFFF (RFC 3629: F5-FF never "
    "appear), so termsim draws a U+FFFD for each of those bytes"
)
_DECSC_CURSOR_STYLE = (
    "libvterm saves the cursor's visibility, blink and shape with DECSC (and ?1048) and "
    "restores them; xterm's CursorSave (cursor.c) saves the position, attributes, charsets "
    "and flags, not the cursor style, so DECRC leaves DECSCUSR's shape alone"
)
_DA1 = (
    "DA1 names the terminal: libvterm says VT100 with AVO (CSI ? 1 ; 2 c); termsim answers "
    "as the xterm it emulates (a VT220 with ANSI colour)"
)
_XTVERSION = "XTVERSION names the terminal: libvterm(0.3) there, XTerm(...) for termsim"
_DECXCPR = (
    "xterm's DECXCPR reply carries the page number, CSI ? r ; c ; p R (ctlseqs, charproc.c); "
    "libvterm leaves it out"
)
_DECRQSS_SGR = (
    "DECRQSS SGR: xterm's reply (misc.c do_dcs) starts with 0 (reset) and writes colours "
    "with ';' (38;5;n); libvterm lists only what is set, and 256/RGB colours with ':'"
)
_DECRQSS_DECSCA = (
    "DECRQSS DECSCA: xterm answers 1 (protected) or 0 (misc.c do_dcs); libvterm echoes the "
    "2 it was given"
)
_BOLD_HIGHBRIGHT = (
    "the harness turns on vterm_state_set_bold_highbright, so bold turns colours 0-7 into "
    "8-15 in libvterm's pen; termsim keeps the SGR colour and bold apart (DECRQSS reports "
    "them so), and brightening is the renderer's business, as xterm's boldColors is"
)
_REP_WRAP = (
    "REP past the right margin: libvterm stops at the margin; xterm repeats through the "
    "print path (charproc.c CASE_REP calls dotext in a loop), so it wraps"
)
_REP_BASE = (
    "REP after a character with a combining mark: libvterm repeats the whole character; "
    "xterm repeats the base character alone (charproc.c: lastchar is the last base "
    "character dotext wrote, marks go to addXtermCombining), as real xterm and Ghostty "
    "show (tests/test_fidelity.py, tests/test_xterm_oracle.py)"
)
_RESIZE_KEEPS_CURSOR = (
    "shrinking with text below the cursor: libvterm keeps the bottom rows and pushes the top "
    "ones out; xterm (screen.c Reallocate, default resizeGravity SouthWest) drops the rows "
    "below the cursor first and pushes off the top only what keeps the cursor on screen"
)
_REFLOW_TOP = (
    "reflow (the harness turns it on; xterm never reflows): when rewrapping makes more rows, "
    "libvterm fills the blank rows below the text; termsim's reflow (modelled on tmux's) "
    "keeps the bottom of the screen where it was and moves the top row into its history"
)
_REFLOW_HISTORY = (
    "reflow (the harness turns it on; xterm never reflows): the harness gives libvterm no "
    "scrollback, so when rewrapping frees rows nothing comes back down; termsim's reflow "
    "(modelled on tmux's) brings back the rows its history holds"
)
_DECDWL = (
    "DECDWL/DECDHL (ESC # 6, ESC # 3, ESC # 4) are not implemented: termsim has no line "
    "attributes; xterm draws double-width and double-height lines (a 40-column row)"
)

_IL_KEEPS_COLUMN = (
    "IL: libvterm keeps the cursor's column (state.c, IL only scrolls); xterm moves "
    "it to the left margin (util.c InsertLine: set_cur_col(screen, "
    "ScrnLeftMargin(xw))), as real xterm shows (tests/test_xterm_oracle.py); "
    "Emulation(lines_home=False) goes libvterm's way"
)

#: Units where termsim differs from libvterm on purpose; reviewed.
EXPECTED_DEVIATIONS: dict[str, str] = {
    "03encoding_utf8:42": _UTF8_RANGE,
    "13state_edit:81": _IL_KEEPS_COLUMN,
    "13state_edit:268": _DECRQSS_DECSCA,
    **{f"22state_save:{n}": _DECSC_CURSOR_STYLE for n in (29, 43, 53, 60)},
    "26state_query:6": _DA1,
    "26state_query:11": _XTVERSION,
    "26state_query:26": _DECXCPR,
    **{f"26state_query:{n}": _DECRQSS_SGR for n in (36, 41, 46, 51, 56)},
    "30state_pen:111": _BOLD_HIGHBRIGHT,
    "30state_pen:114": _BOLD_HIGHBRIGHT,
    "31state_rep:40": _REP_BASE,
    "31state_rep:46": _REP_WRAP,
    **{f"63screen_resize:{n}": _RESIZE_KEEPS_CURSOR for n in (53, 54, 55)},
    **{f"69screen_reflow:{n}": _REFLOW_TOP for n in (36, 37, 39, 41, 42, 44)},
    **{f"69screen_reflow:{n}": _REFLOW_HISTORY for n in (74, 75, 76, 78, 79)},
}
#: Units where xterm does what libvterm does and termsim falls short.
KNOWN_GAPS: dict[str, str] = {
    **{f"28state_dbl_wh:{n}": _DECDWL for n in (17, 24, 27, 32, 40, 50, 55, 59)},
    **{f"67screen_dbl_wh:{n}": _DECDWL for n in (16, 24, 25, 32, 37)},
}


COUNTED = [o for o in all_outcomes() if o.excluded is None]
BY_ID = {o.id: o for o in COUNTED}


@pytest.mark.parametrize("unit", [
    xfail_param(o.id, id=o.id, reason=EXPECTED_DEVIATIONS.get(o.id) or KNOWN_GAPS.get(o.id))
    for o in COUNTED])
def test_libvterm(unit: str) -> None:
    outcome = BY_ID[unit]
    assert not outcome.problems, (
        f"{unit} [{outcome.block}] {outcome.source}\n" + "\n".join(outcome.problems[:20]))


def _score(emulator: str) -> tuple[int, set[str]]:
    failing = {o.id for o in all_outcomes(emulator) if o.excluded is None and o.problems}
    return len(COUNTED) - len(failing), failing


def test_libvterm_pass_count() -> None:
    passing, failing = _score("termsim")
    listed = set(EXPECTED_DEVIATIONS) | set(KNOWN_GAPS)
    now_failing = sorted(failing - listed)
    now_passing = sorted(listed - failing)
    assert (passing, now_failing, now_passing) == (PASSING, [], []), (
        f"{passing} of {len(COUNTED)} units pass, expected exactly {PASSING}. "
        f"Failing and in neither EXPECTED_DEVIATIONS nor KNOWN_GAPS: {now_failing or 'none'} "
        "(a regression, or a difference to review and list). "
        f"Listed but passing now: {now_passing or 'none'} (take them off the list)."
    )


def test_pyte_pass_count() -> None:
    passing, _ = _score("pyte")
    assert passing == PYTE_PASSING, (
        f"stock pyte passes {passing} of {len(COUNTED)} units, not {PYTE_PASSING}")


def test_unit_census() -> None:
    """The numbers the module docstring gives: the units, and why the other
    expectation groups and assertions are not counted."""
    everything = list(all_outcomes())
    excluded = Counter(o.excluded for o in everything if o.excluded)
    assert len({o.id for o in everything}) == len(everything), "unit ids are unique"
    assert (len(COUNTED), dict(excluded)) == (UNITS, EXCLUDED), (len(COUNTED), dict(excluded))
    doc = " ".join((__doc__ or "").split())
    assert f"Of the {UNITS} units, termsim passes {PASSING} (``PASSING``)" in doc
    assert f"passes {PYTE_PASSING} (``PYTE_PASSING``)" in doc
    assert f"({sum(EXCLUDED.values())} in all;" in doc


#: How many expectation groups and assertions each reason leaves uncounted.
EXCLUDED: dict[str, int] = {
    X_INPUT: 90, X_API: 74, X_TOKENS: 51, X_RESET: 43, X_8BIT: 18, X_LINEINFO: 16,
    X_ATTR: 11, X_FAKE_SB: 5, X_CONTROLS: 4, X_PROPS: 3,
}


def test_lists_are_current() -> None:
    assert set(EXPECTED_DEVIATIONS) <= set(BY_ID)
    assert set(KNOWN_GAPS) <= set(BY_ID)
    assert not set(EXPECTED_DEVIATIONS) & set(KNOWN_GAPS)
    assert all(reason.strip() for reason in [*EXPECTED_DEVIATIONS.values(),
                                             *KNOWN_GAPS.values()])


def test_perl_strings() -> None:
    """The subset of Perl's string syntax the scripts use."""
    assert perl_bytes(r'"A"x3') == b"AAA"
    assert perl_bytes(r'"e" . "\xCC\x81" x 2') == b"e\xcc\x81\xcc\x81"
    assert perl_bytes(r'"\e[\$q\"q\e\\"') == b'\x1b[$q"q\x1b\\'
    assert perl_bytes(r'"\x{8e}a\x9c\x0"') == b"\x8ea\x9c\x00"
    assert perl_string(r'"\n"x2 . "b"') == "\n\nb"
