"""libghostty as an oracle: Ghostty's own terminal core, in this process.

Why: real xterm (``tests/xterm_oracle.py``) checks the default profile;
the ``ghostty`` profile plays Ghostty, whose core (``libghostty-vt``, the
Zig terminal of ghostty-org/ghostty, MIT) ``pyghostty`` (PyPI, Apache-2.0)
loads into Python. No process, no display: a program is a
``pyghostty.Terminal`` made, fed and read, about a millisecond.

What is read after each program (followed by ``CLOSE``, as
``differential.termsim_view`` feeds termsim), in ``differential.View``'s
shape, so that ``differential.differences`` compares it unchanged
    * every cell, through the C API (``ghostty_grid_ref_cell``,
      ``ghostty_grid_ref_graphemes``, ``ghostty_grid_ref_style``): its text
      (the base code point and the marks Ghostty keeps with it; a wide
      character's spacer tail is left out, as termsim's right half; the
      spacer head Ghostty leaves at the end of a row a wide character
      wrapped from is a blank) and its look. A blank that an erase left in a
      colour holds the colour in the cell itself (content tag
      ``bg_color_palette``/``bg_color_rgb``), not in a style;
    * the cursor (absolute: Ghostty keeps it so under origin mode, and on
      the last column while a wrap is pending, as a termsim snapshot);
    * the modes ``View`` compares (``?25``, ``4``, ``?7``, ``?6``) and the
      active screen.

How the terminal is set up: as the Ghostty app sets up its own
(``src/termio/Termio.zig`` ``init``): mode 2027 (grapheme clustering) is a
*default* mode, set at start and again by RIS, since
``grapheme-width-method`` is ``unicode`` by default (``src/config/Config.zig``).
No scrollback (only the screen is compared). termsim runs with the ghostty
profile's :class:`~termsim.emulator.Emulation` (graphemes on, among others).

Where they differ on purpose, or Ghostty goes its own way, :data:`KINDS`
lists it, each with the Ghostty source that shows it and an example;
``tests/test_ghostty_oracle.py`` requires every disagreement on a sample
of ``differential.programs`` to shrink to one of them.

``python tests/ghostty_oracle.py --size 10x3 --hex 1b5b4c`` shows one program
in termsim and in Ghostty, side by side (the command a failing test prints).
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: import the test helpers beside it
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import xterm_oracle
from differential import (
    _MODE_NAMES,
    Csi,
    Program,
    Text,
    View,
    _glibc_width,
    _invalid,
    _look,
    _trimmed,
    differences,
    parse,
    shrink,
    side_by_side,
    termsim_view,
)
from pyte.graphics import FG_BG_256
from tmux_pane import CLOSE
from wcwidth import wcswidth
from xterm_oracle import _csi_final, _mark_first, _raw_named, _regional, _text_with

from termsim.emulator.terminals.profiles import PROFILES

try:
    import pyghostty
    from pyghostty import ffi, lib
    from pyghostty._ffi import union_fn
    from pyghostty.core import init_sized
except ImportError:  # tests skip (pytest.importorskip); the helpers below need it
    pyghostty = None

#: termsim's side: the ghostty profile's choices.
GHOSTTY_WAY = PROFILES["ghostty"].emulation

#: The modes Ghostty's app makes defaults (src/termio/Termio.zig init):
#: 2027, grapheme clustering (grapheme-width-method = unicode).
DEFAULT_MODES = ((2027, True),)


def ghostty_missing() -> str | None:
    """Why the oracle cannot run here (a skip reason), or ``None``."""
    if pyghostty is None:
        return ("pyghostty is not installed (the test extra pins it on x86_64 Linux, "
                "the only platform it has a wheel for)")
    return None


# -- reading a pyghostty.Terminal --------------------------------------------------------


def _new_terminal(cols: int, rows: int) -> Any:
    term = pyghostty.Terminal(cols, rows, scrollback=0)
    for mode, value in DEFAULT_MODES:
        config = ffi.new("GhosttyTerminalModeConfig*")
        config.mode, config.value = mode, value
        if lib.ghostty_terminal_set(term._t[0], lib.GHOSTTY_TERMINAL_OPT_MODE_DEFAULT, config):
            raise RuntimeError(f"libghostty-vt refused mode {mode} as a default")
    return term


def _colour(colour: tuple[str, Any] | None, side: str) -> str:
    """A pyghostty style colour as ``differential._rgb``'s form (RGB hex,
    palette entries through xterm's palette, "fg"/"bg" for the default)."""
    if colour is None:
        return side
    kind, value = colour
    if kind == "palette":
        return FG_BG_256[value]
    return "{:02x}{:02x}{:02x}".format(*value)


class _Cells:
    """Reads cells through libghostty-vt's C API (pyghostty's Python layer
    gives the style of a cell, not its text), with its buffers made once:
    a program's every cell is read."""

    def __init__(self, term: Any) -> None:
        self.term = term
        # Passed a tagged union by value: pyghostty's twin struct (as Terminal.ref).
        self.grid_ref = union_fn(
            "ghostty_terminal_grid_ref",
            "GhosttyResult(*)(GhosttyTerminal, GhosttyPointS, GhosttyGridRef*)")
        self.point = ffi.new("GhosttyPointS*")
        self.point.tag = lib.GHOSTTY_POINT_TAG_ACTIVE
        self.ref = init_sized("GhosttyGridRef")
        self.cell = ffi.new("GhosttyCell*")
        self.u32 = ffi.new("uint32_t*")
        self.u16 = ffi.new("uint16_t*")
        self.u8 = ffi.new("uint8_t*")
        self.rgb = ffi.new("GhosttyColorRgb*")
        self.length = ffi.new("size_t*")
        self.buffer = ffi.new("uint32_t[]", 64)

    def _get(self, key: int, out: Any) -> int:
        if lib.ghostty_cell_get(self.cell[0], key, out):
            raise RuntimeError(f"ghostty_cell_get {key} failed")
        return int(out[0])

    def read(self, x: int, y: int) -> tuple[str, str, str, set[str]] | None:
        """One cell: (text, fg, bg, flags), ``None`` for a spacer tail."""
        self.point.value.x, self.point.value.y = x, y
        if self.grid_ref(self.term._t[0], self.point[0], self.ref) \
                or lib.ghostty_grid_ref_cell(self.ref, self.cell):
            raise RuntimeError(f"reading the cell {x},{y} failed")
        wide = self._get(lib.GHOSTTY_CELL_DATA_WIDE, self.u32)
        if wide == lib.GHOSTTY_CELL_WIDE_SPACER_TAIL:
            return None
        tag = self._get(lib.GHOSTTY_CELL_DATA_CONTENT_TAG, self.u32)
        fg, bg, flags = "fg", "bg", set()
        if self._get(lib.GHOSTTY_CELL_DATA_STYLE_ID, self.u16):
            style = self.term.style(x, y)
            fg, bg = _colour(style["fg"], "fg"), _colour(style["bg"], "bg")
            flags = {name for name, key in _FLAGS if style[key]}
            if style["underline"]:
                flags.add("underline")
        text = " "
        if tag == lib.GHOSTTY_CELL_CONTENT_BG_COLOR_PALETTE:
            bg = FG_BG_256[self._get(lib.GHOSTTY_CELL_DATA_COLOR_PALETTE, self.u8)]
        elif tag == lib.GHOSTTY_CELL_CONTENT_BG_COLOR_RGB:
            if lib.ghostty_cell_get(self.cell[0], lib.GHOSTTY_CELL_DATA_COLOR_RGB, self.rgb):
                raise RuntimeError(f"reading the colour of {x},{y} failed")
            bg = f"{self.rgb.r:02x}{self.rgb.g:02x}{self.rgb.b:02x}"
        elif tag == lib.GHOSTTY_CELL_CONTENT_CODEPOINT_GRAPHEME:
            if lib.ghostty_grid_ref_graphemes(self.ref, self.buffer, len(self.buffer),
                                              self.length):
                raise RuntimeError(f"ghostty_grid_ref_graphemes {x},{y} failed")
            text = "".join(chr(self.buffer[i]) for i in range(self.length[0])) or " "
        else:
            point = self._get(lib.GHOSTTY_CELL_DATA_CODEPOINT, self.u32)
            if point:
                text = chr(point)
        return text, fg, bg, flags


#: differential.Look's flags -> pyghostty's style keys.
_FLAGS = (("bold", "bold"), ("italic", "italic"), ("reverse", "inverse"), ("blink", "blink"),
          ("strikethrough", "strikethrough"))


def ghostty_screen(program: Program) -> Any:
    """A fresh Ghostty terminal after the program and ``CLOSE``."""
    term = _new_terminal(program.cols, program.rows)
    term.feed(program.data + CLOSE)
    return term


def ghostty_view(program: Program) -> View:
    """What Ghostty shows after the program (and ``CLOSE``), as
    ``differential.View``."""
    term = ghostty_screen(program)
    try:
        reader = _Cells(term)
        # DECSCNM shows every cell reversed; termsim's cells hold what is shown.
        reverse_screen = term.mode(5)
        cells, lines = [], []
        for y in range(program.rows):
            row = []
            for x in range(program.cols):
                cell = reader.read(x, y)
                if cell is None:
                    continue
                text, fg, bg, flags = cell
                if reverse_screen:
                    flags ^= {"reverse"}
                char = unicodedata.normalize("NFC", text)
                row.append((char, _look(char, fg, bg, flags)))
            lines.append("".join(c for c, _ in row).rstrip(" "))
            cells.append(_trimmed(row))
        x, y = term.cursor
        modes = (term.mode(25), term.mode(4, ansi=True), term.mode(7), term.mode(6),
                 term.get("active_screen", "int") != 0)
        note = "wrap pending" if term.get("cursor_pending_wrap", "bool") else ""
    finally:
        term.close()
    return View(program.cols, program.rows, tuple(lines), (y, x),
                tuple(zip(_MODE_NAMES, modes, strict=True)), tuple(cells), note)


# -- comparing -------------------------------------------------------------------------



@dataclass(frozen=True)
class Comparison:
    """One program in termsim and in Ghostty."""

    program: Program
    ours: View
    theirs: View
    aspects: tuple[str, ...]

    @property
    def kind(self) -> Kind | None:
        """The known kind this disagreement is (judged on this program as it
        is: shrink it first, :func:`minimal`)."""
        return kind_of(self.program, self) if self.aspects else None

    def command(self) -> str:
        """The command that shows this program in both again."""
        return (f"python tests/ghostty_oracle.py --size {self.program.cols}x{self.program.rows} "
                f"--hex {self.program.data.hex()}")

    def report(self) -> str:
        """For a person: the program, both screens side by side, the command."""
        lines = [f"{', '.join(self.aspects) or 'nothing'} differ(s): {self.program.cols}x"
                 f"{self.program.rows} {self.program.data!r}",
                 f"tokens: {', '.join(map(str, self.program.tokens))}",
                 f"reproduce: {self.command()}", *side_by_side(self.ours, self.theirs, "ghostty")]
        kind = self.kind
        if kind is not None:
            lines.append(f"known kind {kind.name!r}: {kind.what} (ghostty: {kind.ghostty})")
        return "\n".join(lines)


def compare(program: Program) -> Comparison:
    """``program`` in a fresh termsim Terminal (the ghostty profile's
    emulation) and in a fresh Ghostty terminal."""
    ours = termsim_view(program, GHOSTTY_WAY)
    theirs = ghostty_view(program)
    return Comparison(program, ours, theirs, differences(ours, theirs))


class Checker:
    """:func:`compare`, each result kept (the shrinker asks about the same
    program more than once)."""

    def __init__(self) -> None:
        self._seen: dict[tuple[int, int, bytes], Comparison] = {}

    def compare(self, program: Program) -> Comparison:
        key = (program.cols, program.rows, program.data)
        found = self._seen.get(key)
        if found is None or found.program != program:
            found = self._seen[key] = compare(program)
        return found

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


# -- where termsim and Ghostty differ ----------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """A known way termsim (ghostty profile) and Ghostty differ: Ghostty's
    own choice (``bug`` False), or a termsim bug (``bug`` True: the
    description says so, and its test is a strict xfail until it is fixed).
    ``matches`` says whether a minimal program can show it; ``example`` is
    a program that shows it today."""

    name: str
    what: str
    ghostty: str
    matches: Callable[[Program], bool]
    example: tuple[int, int, bytes]
    bug: bool = False
    #: Decides on the comparison itself, when the program cannot tell.
    confirm: Callable[[Comparison], bool] | None = None


#: The xterm oracle's kinds, whose matchers some of Ghostty's share.
_XTERM_KINDS = {k.name: k for k in xterm_oracle.KINDS}

#: Finals whose parameter 0 Ghostty takes as 0 (nothing done), where xterm
#: and termsim take it as 1 (found by feeding each final 0 and 1).
_ZERO_IS_ZERO = "aeILMPSTZ"
#: How many parameters a CSI final takes in Ghostty's src/terminal/stream.zig
#: (``switch (input.params.len)``), for the finals of the grammar; more is
#: "invalid" and the sequence is dropped.
_PARAMETERS = {"H": 2, "f": 2, "r": 2, "u": 0,
               **dict.fromkeys("ABCDEFG`adeJKX@PLMSTbIZ", 1)}


def _csis(program: Program) -> list[Csi]:
    """The CSI tokens of a program, as generated or as its bytes read back."""
    tokens = (*program.tokens, *parse(program.cols, program.rows, program.data).tokens)
    return [t for t in tokens if isinstance(t, Csi)]


def _zero_is_zero(program: Program) -> bool:
    return any(t.final in _ZERO_IS_ZERO and not t.private and not t.inter
               and t.params[:1] == (0,) for t in _csis(program))


def _too_many_parameters(program: Program) -> bool:
    return any(not t.inter and (not t.private or (t.private == "?" and t.final in "JK"))
               and len(t.params) > _PARAMETERS.get(t.final, 99) for t in _csis(program))


def _rep_after_a_sequence(program: Program) -> bool:
    """A REP whose token before it is no text (a control or a sequence),
    with some text before that."""
    seen_text = False
    for before, token in pairwise(program.tokens):
        seen_text = seen_text or isinstance(before, Text) or _invalid(before)
        if seen_text and isinstance(token, Csi) and token.final == "b" and not token.private \
                and not isinstance(before, Text):
            return True
    return False


def _extends(c: str) -> bool:
    """A code point termsim adds to the cell before: a zero-width one, a
    regional indicator, an emoji modifier."""
    return _glibc_width(c) == 0 or _regional(c) or _modifier(c)


def _modifier(c: str) -> bool:
    return 0x1F3FB <= ord(c) <= 0x1F3FF


def _text(program: Program) -> str:
    return program.data.decode(errors="replace")


@functools.cache
def _ghostty_width(cluster: str) -> tuple[int, int]:
    """Ghostty's own measure of the first grapheme cluster of ``cluster``
    (src/unicode/grapheme.zig graphemeWidth, through the C API): how many
    code points it takes, and its width."""
    points = ffi.new("uint32_t[]", [ord(c) for c in cluster])
    width = ffi.new("uint8_t*")
    taken = lib.ghostty_unicode_grapheme_width(points, len(cluster), width)
    return int(taken), int(width[0])


def _wide(c: str) -> bool:
    """Two columns wide in Ghostty (a regional indicator too, one in glibc)."""
    return _ghostty_width(c)[1] == 2


def _spacer_heads(comparison: Comparison) -> bool:
    """What differs is the last column of rows, a blank in Ghostty (a
    spacer head): termsim has a character there, or no cell at all."""
    ours, theirs = comparison.ours, comparison.theirs
    if ours.cursor != theirs.cursor or ours.modes != theirs.modes:
        return False
    for r, (mine, its) in enumerate(zip(ours.cells, theirs.cells, strict=True)):
        if ours.lines[r] != theirs.lines[r]:
            line = ours.lines[r]
            if wcswidth(line) != ours.cols \
                    or theirs.lines[r] != line[:-1].rstrip(" "):
                return False
            mine = _trimmed(list(mine[:-1]))
        if mine != its[:len(mine)] or any(c != " " for c, _ in its[len(mine):]):
            return False
    return True


def _short_extended_colour(program: Program) -> bool:
    """SGR 38/48 not followed by 5 and an index or 2 and three values."""
    for t in _csis(program):
        if t.final == "m" and not t.private:
            params = t.params
            for i, p in enumerate(params):
                if p in (38, 48) and (params[i + 1:i + 2] not in ((2,), (5,))
                                      or len(params) - i - 2 < (3 if params[i + 1] == 2 else 1)):
                    return True
    return False


#: What comes before a zero-width code point that has nothing to join:
#: the start, a control, or an escape or CSI sequence (which may have
#: taken the character before it as its own final).
_NOTHING_BEFORE = re.compile(
    r"(?:^|[\x00-\x1f\x7f]|\x1b[\x20-\x7e]|\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e])$")


def _mark_without_a_character(program: Program) -> bool:
    """A zero-width code point with no character just before it, or U+200B."""
    text = _text(program)
    return _mark_first(program) or "\u200b" in text or any(
        c.isprintable() and _glibc_width(c) == 0 and _NOTHING_BEFORE.search(text[:i])
        is not None for i, c in enumerate(text))


def _only_blanks_look(comparison: Comparison) -> bool:
    """Only the looks of blank cells differ."""
    if comparison.aspects != ("attributes",):
        return False
    return all(a == b or a[0] == b[0] == " " for ours, theirs in
               zip(comparison.ours.cells, comparison.theirs.cells, strict=True)
               for a, b in zip(ours, theirs, strict=False))


#: ESC, then what a sequence may hold (controls but CAN, SUB and ESC are
#: carried out inside it), then a byte beyond ASCII.
_BEYOND_ASCII_IN_A_SEQUENCE = re.compile(
    rb"\x1b(\[[\x00-\x17\x19\x1c-\x3f]*|[\x00-\x17\x19\x1c-\x2f]*)[\x80-\xff]")


#: Checked in this order; the first that matches a minimal program names it.
KINDS: tuple[Kind, ...] = (
    # -- termsim bugs (Ghostty agrees with xterm, or with Unicode where xterm
    #    has no say): strict xfails in tests/test_ghostty_oracle.py --------------------
    Kind("rep-count-capped",
         "termsim bug (xterm oracle's P5): REP repeats as many times as asked in Ghostty "
         "and xterm; termsim repeats at most a screenful, leaving another number of "
         "characters in the last row",
         "src/terminal/Terminal.zig printRepeat: prints the whole count, 4096 at a time",
         _XTERM_KINDS["rep-count-capped"].matches, (3, 1, b"a\x1b[25b"), bug=True),
    Kind("colon-outside-sgr-ignored",
         "termsim bug (xterm oracle's P13): a CSI sequence other than SGR with a colon in "
         "its parameters is ignored by Ghostty, as by xterm; termsim carries it out with "
         "the colon read as a separator",
         "src/terminal/stream.zig csiDispatch: a final other than m with a colon "
         "separator is logged and dropped",
         _XTERM_KINDS["colon-outside-sgr-ignored"].matches, (5, 1, b"\x1b[3:1Cx"), bug=True),
    # -- Ghostty's own choices --------------------------------------------------------
    Kind("one-column-screen",
         "on a screen one column wide, Ghostty drops a two-column character (termsim "
         "wraps it to the next row) and clusters nothing (print needs cursor.x > 0). "
         "Programs that disagree only on one column are not compared further",
         "src/terminal/Terminal.zig print: 'if (c > 255 and grapheme_cluster and "
         "cursor.x > 0)'; printWrap of a wide character on one column",
         lambda p: p.cols == 1, (1, 2, "\u672c".encode())),
    Kind("zero-parameter-is-zero",
         "a parameter 0 is taken as 0 (nothing done) by Ghostty for CSI a, e, I, L, M, P, "
         "S, T, Z; termsim, as xterm, takes it as 1",
         "src/terminal/stream.zig csiDispatch: 'input.params[0]' passed as it is "
         "(only a missing parameter is 1)",
         _zero_is_zero, (2, 1, b"a\x1b[0S")),
    Kind("too-many-parameters",
         "a CSI sequence with more parameters than it takes (CSI 1;2B, CSI ;0D, CSI "
         "2;2;2H) is dropped by Ghostty; termsim, as xterm, uses the ones it takes",
         "src/terminal/stream.zig csiDispatch: 'switch (input.params.len) ... else => "
         "log.warn(\"invalid ...\"); return'",
         _too_many_parameters, (5, 3, b"a\x1b[;0Bx")),
    Kind("del-is-printed",
         "DEL (0x7f) is printed into a cell by Ghostty; termsim, as xterm, ignores it",
         "src/terminal/parse_table.zig: range(0x20, 0x7F, .ground, .ground, .print)",
         lambda p: b"\x7f" in p.data, (4, 1, b"a\x7fb")),
    Kind("rep-after-a-sequence",
         "REP after a control or any sequence (a cursor move, SGR, a charset designation) "
         "repeats the last character printed in Ghostty, whatever came since; termsim, "
         "as xterm, repeats nothing once a sequence came in between",
         "src/terminal/Terminal.zig: previous_char is cleared only by fullReset; "
         "printRepeat uses it",
         _rep_after_a_sequence, (5, 2, b"a\x1b[B\x1b[b")),
    Kind("decstr-not-implemented",
         "DECSTR (CSI ! p, soft reset) is ignored by Ghostty's core; termsim, as xterm, "
         "resets the modes (autowrap on, insert and origin off...)",
         "src/terminal/stream.zig csiDispatch 'p': only DECRQM; 'ignoring unimplemented "
         "CSI p with intermediates'",
         lambda p: any(t.final == "p" and t.inter == "!" for t in _csis(p)),
         (5, 1, b"\x1b[?7l\x1b[!p")),
    Kind("decaln-keeps-the-colours",
         "DECALN (ESC # 8) fills the screen with E in the current colours in Ghostty "
         "(other attributes reset); termsim, as xterm, in the default colours",
         "src/terminal/Terminal.zig decaln: cursor.style keeps only bg_color and fg_color",
         lambda p: _raw_named(p, "ESC # 8") and _csi_final(p, "m"),
         (5, 1, b"\x1b[31m\x1b#8")),
    Kind("dec-graphics-beyond-ascii",
         "a character beyond ASCII while DEC Special Graphics is in GL is drawn as a "
         "blank by Ghostty; termsim, as xterm, draws the character",
         "src/terminal/Terminal.zig printCell: 'If we're outside of ASCII range this is "
         "an invalid value in this table so we just return space'",
         lambda p: _raw_named(p, "ESC ( 0", "ESC ) 0") and any(ord(c) > 255 for c in _text(p)),
         (5, 1, "\x1b(0\u672cx".encode())),
    Kind("dec-graphics-underscore",
         "'_' in DEC Special Graphics stays '_' in Ghostty; termsim, as the VT100 and "
         "xterm, draws a blank",
         "src/terminal/charsets.zig dec_special: the table starts at 0x60, 0x5F is not "
         "mapped",
         lambda p: _raw_named(p, "ESC ( 0", "ESC ) 0") and "_" in _text(p),
         (5, 1, b"\x1b(0_x")),
    Kind("non-ascii-inside-a-sequence",
         "a character beyond ASCII inside an escape or control sequence: Ghostty ends "
         "the sequence and prints U+FFFD in its place (its UTF-8 decoder runs inside "
         "sequences); termsim ends the sequence and prints the character",
         "src/terminal/stream.zig nextSlice/UTF8Decoder: a non-ASCII code point outside "
         "the ground state",
         lambda p: _BEYOND_ASCII_IN_A_SEQUENCE.search(p.data) is not None,
         (5, 1, b"\x1b[1\xe6\x9c\xacx")),
    Kind("non-ascii-ends-a-string",
         "a character beyond ASCII inside an APC, PM or SOS string (ESC _, ESC ^, ESC X) "
         "ends the string in Ghostty, which prints U+FFFD and what follows; termsim, as "
         "xterm, keeps it in the string",
         "src/terminal/parse_table.zig sos_pm_apc_string: only 0x00-0x7F stay in the "
         "string (the UTF-8 decoder in stream.zig takes the rest as printable)",
         lambda p: re.search(rb"\x1b[_^X][\x00-\x7f]*[\x80-\xff]", p.data) is not None,
         (5, 1, b"\x1b_\xe6\x96\x87x")),
    Kind("zero-width-without-a-cluster",
         "a zero-width code point that continues no cluster (a mark after a move, at the "
         "start of a row or after a blank; U+200B, which UAX #29 never joins) is dropped "
         "by Ghostty with graphemes on; termsim adds it to the cell before or under the "
         "cursor",
         "src/terminal/Terminal.zig print: 'If we have grapheme clustering enabled, we "
         "don't blindly attach any zero width character to our cells'",
         _mark_without_a_character, (5, 2, "`\n\u0301".encode())),
    Kind("emoji-modifier-after-a-non-base",
         "an emoji modifier (U+1F3FB-U+1F3FF) after a character that is no emoji "
         "modifier base gets a cell of its own, two columns wide, in Ghostty; termsim, "
         "as UAX #29 (a modifier is Extend), joins it to the cell before",
         "src/build/uucode_config.zig WidthComponent: emoji modifiers keep their "
         "standalone width 'to support displaying them in isolation as color patches'",
         lambda p: any(map(_modifier, _text(p))), (5, 1, "3\U0001f3fdx".encode())),
    Kind("variation-selector",
         "VS15/VS16 after a character with no emoji variation sequence is dropped by "
         "Ghostty (termsim keeps it in the cell); VS16 widening a character in the last "
         "column moves it to the next row in Ghostty (termsim leaves it there)",
         "src/unicode/grapheme.zig graphemeWidthEffect (.ignore); src/terminal/"
         "Terminal.zig print, the .wide branch ('If we don't have space for the wide "
         "char, we need to insert spacers and wrap')",
         lambda p: "\ufe0f" in _text(p) or "\ufe0e" in _text(p),
         (5, 1, "\ud55c\ufe0fx".encode())),
    Kind("sgr-trailing-empty-parameter",
         "an empty last SGR parameter (CSI 9;m) is dropped by Ghostty; termsim, as "
         "xterm, takes it as 0 (a reset)",
         "src/terminal/Parser.zig: a separator with no digits after it before the final "
         "adds no parameter",
         lambda p: any(t.final == "m" and not t.private and len(t.params) > 1
                       and t.params[-1] is None for t in _csis(p)),
         (3, 1, b"a\x1b[9;mb")),
    Kind("sgr-colour-missing-parameters",
         "SGR 38/48 not followed by 5 and an index or 2 and three values (38;5 at the "
         "end, 48;103): Ghostty drops the 38/48 and reads what follows as attributes of "
         "their own (5 is blink, 103 a background); termsim, as xterm, reads the "
         "missing values as 0, and ignores a 38/48 with another mode",
         "src/terminal/sgr.zig Parser.next: 38/48 without enough parameters is "
         "unknown, one parameter consumed",
         _short_extended_colour, (3, 1, b"\x1b[38;5mb")),
    Kind("ri-keeps-a-pending-wrap",
         "RI (ESC M) at the top margin from a pending wrap scrolls down and keeps the "
         "wrap pending in Ghostty, so the next character wraps; termsim, as xterm, ends "
         "the wrap",
         "src/terminal/Terminal.zig reverseIndex -> scrollDown: 'old_wrap' restored "
         "after the scroll",
         lambda p: _raw_named(p, "ESC M"), (3, 2, b"aaa\x1bMb")),
    Kind("ed-22-scrolls-the-screen-away",
         "ED 22 (CSI 22 J) is Ghostty's scroll_complete: the screen goes into the "
         "scrollback and the cursor home; termsim, as xterm, ignores ED 22",
         "src/terminal/csi.zig EraseDisplay scroll_complete = 22; Terminal.zig "
         "eraseDisplay .scroll_complete -> scrollClear",
         lambda p: any(t.final == "J" and not t.private and t.params[:1] == (22,)
                       for t in _csis(p)), (3, 2, b"ab\x1b[22J")),
    Kind("reverse-screen-shows-blank-foregrounds",
         "under DECSCNM (?5h) a blank that an erase or scroll made shows its foreground "
         "(reversed): termsim, as xterm, keeps the current foreground in such blanks, "
         "Ghostty only the background (the foreground shown is the default)",
         "src/terminal/Screen.zig blankCell: a bg_color cell, no style",
         lambda p: _csi_final(p, "h", "?", 5) and _csi_final(p, "m"),
         (2, 2, b"\x1b[?5h\x1b[31m\x1b[M"), confirm=_only_blanks_look),
    Kind("wide-character-without-autowrap",
         "with autowrap off, a two-column character that does not fit before the edge "
         "is dropped by Ghostty (as by xterm when it comes alone); termsim writes it "
         "over the last two columns (docs/differences.md)",
         "src/terminal/Terminal.zig print: 'if (!self.modes.get(.wraparound)) return' "
         "for a wide character in the last column",
         lambda p: _csi_final(p, "l", "?", 7) and _text_with(p, _wide),
         (5, 1, "\x1b[?7l\t\u2705".encode())),
    Kind("cbt-keeps-a-pending-wrap",
         "CBT (CSI Z) from a pending wrap keeps the wrap pending in Ghostty, as in xterm, "
         "so the next character wraps; termsim ends the wrap (as tmux; kept, as in the "
         "xterm oracle's kind of the same name)",
         "src/terminal/Terminal.zig horizontalTabBack: moves cursor.x, leaves pending_wrap",
         lambda p: _csi_final(p, "Z"), (3, 1, b"abc\x1b[Zx")),
    Kind("spacer-head-blanks-the-last-column",
         "a two-column character that does not fit in the last column blanks that column "
         "in Ghostty (a spacer head, in the current colours) before it wraps; termsim, "
         "as xterm, leaves the cell as it was",
         "src/terminal/Terminal.zig print: printCell(0, .spacer_head) with the cursor's "
         "style before printWrap",
         lambda p: _text_with(p, _wide), (2, 2, "a,\x1b[C\u4e2d".encode()),
         confirm=_spacer_heads),
)


def kind_of(program: Program, comparison: Comparison | None = None) -> Kind | None:
    """The known kind a minimal program shows, if any (kinds that need to
    see the screens are left out without ``comparison``)."""
    return next((k for k in KINDS if k.matches(program) and (
        k.confirm is None or (comparison is not None and k.confirm(comparison)))), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Show one program in termsim and in Ghostty (the reproduce command)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--size", default="80x24", help="COLSxROWS")
    parser.add_argument("--hex", required=True, help="the program's bytes, in hex")
    options = parser.parse_args(argv)
    if ghostty_missing():
        parser.error(ghostty_missing() or "")
    cols, rows = (int(n) for n in options.size.lower().split("x"))
    comparison = compare(parse(cols, rows, bytes.fromhex(options.hex)))
    print(comparison.report())
    return 1 if comparison.aspects else 0


if __name__ == "__main__":
    sys.exit(main())
