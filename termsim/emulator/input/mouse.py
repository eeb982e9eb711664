"""Mouse input: the bytes xterm sends for a click, a wheel turn or a drag.

A program asks for mouse reports with a mode (which events) and an
encoding (how they are written), and reads nothing else; so a click must be
encoded exactly as the program asked, or it is garbage to it:

========================  ==========================================================
mode                      reports
========================  ==========================================================
``x10`` (``?9h``)         presses only, no modifiers
``normal`` (``?1000h``)   presses and releases (and the wheel)
``button`` (``?1002h``)   ... and motion while a button is held (a drag)
``any`` (``?1003h``)      ... and all motion
========================  ==========================================================

========================  ==========================================================
encoding                  one event
========================  ==========================================================
default (X10 bytes)       ``ESC [ M`` and three bytes, 32 + value (coordinates <= 223)
``utf8`` (``?1005h``)     the same, each value a UTF-8 character (coordinates <= 2015)
``urxvt`` (``?1015h``)    ``ESC [ b ; x ; y M`` in decimal, b + 32
``sgr`` (``?1006h``)      ``ESC [ < b ; x ; y M`` (press) or ``m`` (release, which
                          names its button); no limit
``sgr-pixels``            SGR's form with x and y in pixels, 0-based (kitty, Ghostty,
(``?1016h``)              WezTerm, xterm.js; not termsim's xterm): a cell's centre,
                          by the profile's cell size
========================  ==========================================================

The button value: left 0, middle 1, right 2, release 3 (except SGR), wheel
up 64, down 65, left 66, right 67; + 32 for motion; + 4 shift, + 8 alt,
+ 16 ctrl. Coordinates are 1-based on the wire; termsim's API is 0-based
like the rest of it (row 0 is the top row).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from ...errors import ArgumentError, TermsimError
from ..snapshot.snapshot import Modes

Button = Literal["left", "middle", "right"]
BUTTONS = {"left": 0, "middle": 1, "right": 2}
MODIFIERS = {"shift": 4, "alt": 8, "ctrl": 16}
WHEEL_UP, WHEEL_DOWN = 64, 65
RELEASE = 3
MOTION = 32
#: The largest 1-based coordinate each legacy encoding can carry.
LIMITS = {None: 223, "utf8": 2015}


class MouseOff(TermsimError):
    """The program has not asked for mouse reports (no ``ESC[?1000h`` or
    kin): a click would reach it as bytes it does not read."""


def _modifier_bits(modifiers: Iterable[str]) -> int:
    bits = 0
    for name in modifiers:
        if name not in MODIFIERS:
            raise ArgumentError(f"unknown modifier {name!r}; known: shift, alt, ctrl")
        bits |= MODIFIERS[name]
    return bits


def _button(name: str) -> int:
    if name not in BUTTONS:
        raise ArgumentError(f"unknown mouse button {name!r}; known: left, middle, right")
    return BUTTONS[name]


def _event(modes: Modes, value: int, row: int, col: int, *, release: bool = False,
           cell: tuple[int, int] = (10, 20)) -> bytes:
    """One report, in the program's encoding (``cell``: a cell's size in
    pixels, for SGR-pixel reports)."""
    x, y = col + 1, row + 1
    encoding = modes.mouse_encoding
    if encoding == "sgr-pixels":
        # kitty/mouse.c SGR_PIXEL_PROTOCOL: round(global_x), no +1; the
        # pointer at the cell's centre, so a program dividing by the cell
        # size finds the cell.
        width, height = cell
        x, y = col * width + width // 2, row * height + height // 2
        encoding = "sgr"
    if encoding == "sgr":  # a release names its button
        return f"\x1b[<{value};{x};{y}{'m' if release else 'M'}".encode()
    if release:
        value = (value & ~3) | RELEASE
    if encoding == "urxvt":
        return f"\x1b[{value + 32};{x};{y}M".encode()
    limit = LIMITS.get(encoding, 223) - 32
    if x > limit or y > limit:
        raise ArgumentError(
            f"row {row}, column {col} is beyond what the program's mouse encoding "
            f"({encoding or 'X10'}) can carry ({limit} cells): it must enable SGR (?1006h)")
    if encoding == "utf8":
        return ("\x1b[M" + "".join(chr(32 + v) for v in (value, x, y))).encode()
    return b"\x1b[M" + bytes([32 + value, 32 + x, 32 + y])


class Mouse:
    """Encodes mouse gestures for the modes a program enabled."""

    def __init__(self, modes: Modes, cols: int, rows: int,
                 cell: tuple[int, int] = (10, 20)) -> None:
        if modes.mouse is None:
            raise MouseOff(
                "the program has not enabled mouse reporting (ESC[?1000h, ?1002h, ?1003h or "
                "?9h), so it would not read a click: wait until it does, e.g. "
                "wait_for(lambda screen: screen.modes.mouse is not None)")
        self.modes = modes
        self.cols, self.rows = cols, rows
        self.cell = cell

    def _check(self, row: int, col: int) -> None:
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ArgumentError(f"row {row}, column {col} is outside the screen, which is "
                                f"{self.cols} columns x {self.rows} rows")

    def click(self, row: int, col: int, button: str, modifiers: Sequence[str],
              count: int = 1) -> bytes:
        """A press and a release (X10 mode: the press alone), ``count`` times."""
        self._check(row, col)
        b = _button(button)
        x10 = self.modes.mouse == "x10"
        value = b if x10 else b | _modifier_bits(modifiers)
        one = _event(self.modes, value, row, col, cell=self.cell)
        if not x10:
            one += _event(self.modes, value, row, col, release=True, cell=self.cell)
        return one * count

    def scroll(self, row: int, col: int, lines: int, modifiers: Sequence[str]) -> bytes:
        """One wheel report per line: down for positive ``lines``, up for negative."""
        self._check(row, col)
        if self.modes.mouse == "x10":
            raise ArgumentError("the program enabled X10 mouse mode (?9h), which reports "
                                "no wheel")
        value = (WHEEL_DOWN if lines > 0 else WHEEL_UP) | _modifier_bits(modifiers)
        return _event(self.modes, value, row, col, cell=self.cell) * abs(lines)

    def drag(self, start: tuple[int, int], end: tuple[int, int], button: str,
             modifiers: Sequence[str]) -> bytes:
        """Press at ``start``, move cell by cell to ``end`` (reported in the
        button and any-motion modes), release there."""
        for row, col in (start, end):
            self._check(row, col)
        b = _button(button)
        if self.modes.mouse == "x10":
            raise ArgumentError("the program enabled X10 mouse mode (?9h), which reports "
                                "presses only: no drag")
        value = b | _modifier_bits(modifiers)
        out = [_event(self.modes, value, *start, cell=self.cell)]
        if self.modes.mouse in ("button", "any"):
            out += [_event(self.modes, value | MOTION, r, c, cell=self.cell)
                    for r, c in _path(start, end)]
        out.append(_event(self.modes, value, *end, release=True, cell=self.cell))
        return b"".join(out)


def _path(start: tuple[int, int], end: tuple[int, int]) -> list[tuple[int, int]]:
    """The cells a pointer crosses from ``start`` to ``end`` (not ``start``)."""
    (r0, c0), (r1, c1) = start, end
    steps = max(abs(r1 - r0), abs(c1 - c0))
    return [(r0 + round((r1 - r0) * i / steps), c0 + round((c1 - c0) * i / steps))
            for i in range(1, steps + 1)]
