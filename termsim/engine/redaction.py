"""What redaction needs of the emulator, handed to the recorder's streams.

The rules that find a secret live with the recorder
(``recording/redact_stream.py``), which imports nothing of the emulator; a
session gives them, from here, a screen to draw the output on (a
:class:`TerminalShadow`, termsim's own terminal, so it draws exactly as the
session's does) and the character a key in the kitty keyboard protocol or
modifyOtherKeys types (:func:`typed`: a program that asks for every key as
an escape sequence gets ``ESC[106u`` for ``j``).
"""

from __future__ import annotations

from wcwidth import wcwidth

from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminal.terminal import Terminal
from ..recording.redact import Span

#: How many codes :meth:`TerminalShadow.rows_with` looks for one by one, at most.
_MANY_CODES = 32


class TerminalShadow:
    """A terminal the output is drawn on, read by rows of cells."""

    def __init__(self, terminal: Terminal) -> None:
        self._terminal = terminal

    def feed(self, data: bytes) -> None:
        self._terminal.feed(data)  # (its replies go nowhere)

    def resize(self, cols: int, rows: int) -> None:
        self._terminal.resize(cols, rows)

    @property
    def cols(self) -> int:
        return self._terminal.cols

    def width(self, char: str) -> int:
        return max(wcwidth(char), 0)

    def cells(self) -> int:
        return self._terminal.cols * self._terminal.rows

    def shown(self) -> set[str]:
        return set("".join(self._terminal.screen.lines))

    def rows_with(self, codes: set[str], reach: int) -> list[list[str]]:
        """The cells of each row that shows one of ``codes``, joined to the
        rows a wrap may join it to, ``reach`` rows at most each way."""
        screen = self._terminal.screen
        groups: list[tuple[int, int]] = []
        # Codes are characters. A few are found fastest one search each (in
        # C); past a few dozen, one pass over the row looking each character
        # up costs less (a 1,000-cell row: 20 codes 1 us against 7 us, 4,000
        # codes 150 us against 10 us; timeit), and the cost stops growing
        # with the number of codes.
        many = len(codes) > _MANY_CODES
        for row, line in enumerate(screen.lines):
            if (codes.isdisjoint(line) if many else not any(code in line for code in codes)):
                continue
            top, bottom = _group(screen, row, reach)
            if groups and top <= groups[-1][1] + 1:
                groups[-1] = (groups[-1][0], max(bottom, groups[-1][1]))
            else:
                groups.append((top, bottom))
        return [[cell for r in range(top, bottom + 1) for cell in _cells(screen, r)]
                for top, bottom in groups]

    def before_cursor(self, reach: int) -> list[str]:
        screen = self._terminal.screen
        row, col = screen.cursor.row, min(screen.cursor.col, screen.cols)
        top, _ = _group(screen, row, reach)
        cells = [cell for r in range(top, row) for cell in _cells(screen, r)]
        return cells + _cells(screen, row)[:col]


def _group(screen: Snapshot, row: int, reach: int) -> tuple[int, int]:
    """The rows a wrap may join to ``row``, ``reach`` at most each way: a
    row whose last cell is drawn runs on into the next (taken as wrapped:
    a match across the break is caught, at worst one that only looks
    joined)."""
    top = row
    while top > max(0, row - reach) and _full(screen, top - 1):
        top -= 1
    bottom = row
    while bottom + 1 < min(screen.rows, row + reach + 1) and _full(screen, bottom):
        bottom += 1
    return top, bottom


def _full(screen: Snapshot, row: int) -> bool:
    return screen.span(row, screen.cols - 1, screen.cols) not in (" ", "")


def _cells(screen: Snapshot, row: int) -> list[str]:
    line = screen.lines[row]
    if len(line) == screen.cols:  # a character a cell: no wide one, no mark
        return list(line)
    return [screen.span(row, col, col + 1) for col in range(screen.cols)]


def typed(span: Span) -> str | None:
    """The character a key sent as an escape sequence types: ``CSI cp u``
    and ``CSI cp ; mods u`` (the kitty protocol, ``cp:shifted`` too) and
    ``CSI 27 ; mods ; cp ~`` (modifyOtherKeys), with no modifier but Shift;
    None for any other sequence (a cursor key, Ctrl+C)."""
    if span.kind != "csi" or span.private:
        return None
    fields = span.params.split(";")
    if span.final == "u":
        code, mods = fields[0], fields[1] if len(fields) > 1 else "1"
    elif span.final == "~" and len(fields) == 3 and fields[0] == "27":
        code, mods = fields[2], fields[1]
    else:
        return None
    keys = code.split(":")
    mod = mods.split(":")[0] or "1"
    if not (mod.isdigit() and keys[0].isdigit()) or int(mod) not in (1, 2):
        return None
    number = int(keys[1]) if int(mod) == 2 and len(keys) > 1 and keys[1].isdigit() \
        else int(keys[0])
    if not (0x20 <= number < 0x110000) or 0xD800 <= number < 0xE000 or number == 0x7F:
        return None
    char = chr(number)
    return char.upper() if int(mod) == 2 and len(keys) == 1 else char
