"""The 256-colour palette: OSC 4 (set, query) and OSC 104 (reset), as xterm.

Why a module of its own: the palette is state the screen keeps only to
answer for it (cells keep their colour numbers: what a colour looks like is
not what a test checks), and its defaults and colour syntax are xterm's,
read together here. nvim and colour themes ask for palette entries (``OSC 4
; n ; ?``) and set them; the answer (``queries.py``) is the entry as the
bytes before the query left it.
"""

from __future__ import annotations

from .state import ScreenState

#: xterm's sixteen ANSI colours (its resources ``color0``..``color15``:
#: black, red3, green3, yellow3, blue2, magenta3, cyan3, gray90, gray50,
#: red, green, yellow, rgb:5c/5c/ff, magenta, cyan, white), 8 bits each.
_ANSI = (
    (0x00, 0x00, 0x00), (0xCD, 0x00, 0x00), (0x00, 0xCD, 0x00), (0xCD, 0xCD, 0x00),
    (0x00, 0x00, 0xEE), (0xCD, 0x00, 0xCD), (0x00, 0xCD, 0xCD), (0xE5, 0xE5, 0xE5),
    (0x7F, 0x7F, 0x7F), (0xFF, 0x00, 0x00), (0x00, 0xFF, 0x00), (0xFF, 0xFF, 0x00),
    (0x5C, 0x5C, 0xFF), (0xFF, 0x00, 0xFF), (0x00, 0xFF, 0xFF), (0xFF, 0xFF, 0xFF),
)
#: The levels of xterm's 6x6x6 colour cube (``256colres.h``).
_CUBE = (0x00, 0x5F, 0x87, 0xAF, 0xD7, 0xFF)

Rgb = tuple[int, int, int]


def default_colour(n: int) -> Rgb:
    """Palette entry ``n`` (0..255) at start, 16 bits a component, as xterm
    reports it (an 8-bit value ``v`` is ``v * 257``)."""
    if n < 16:
        rgb = _ANSI[n]
    elif n < 232:
        n -= 16
        rgb = (_CUBE[n // 36], _CUBE[n // 6 % 6], _CUBE[n % 6])
    else:
        level = 8 + 10 * (n - 232)
        rgb = (level, level, level)
    r, g, b = rgb
    return r * 257, g * 257, b * 257


def parse_colour(spec: str) -> Rgb | None:
    """An X11 colour specification as xterm takes it (``XParseColor``):
    ``rgb:r/g/b`` with 1 to 4 hex digits a component (scaled to 16 bits),
    or ``#rgb`` with 1 to 4 digits a component (the most significant bits);
    ``None`` for anything else (colour names are not looked up)."""
    if spec.startswith("rgb:"):
        parts = spec[4:].split("/")
        if len(parts) != 3 or not all(1 <= len(p) <= 4 and _hex(p) for p in parts):
            return None
        r, g, b = (int(p, 16) * 0xFFFF // (16 ** len(p) - 1) for p in parts)
        return r, g, b
    if spec.startswith("#"):
        digits = spec[1:]
        if len(digits) not in (3, 6, 9, 12) or not _hex(digits):
            return None
        n = len(digits) // 3
        r, g, b = (int(digits[i * n:(i + 1) * n], 16) << (16 - 4 * n) for i in range(3))
        return r, g, b
    return None


def _hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


#: Palette entries OSC 4 and OSC 104 reach: an index past them is ignored,
#: as xterm's ``NUM_ANSI_COLORS`` (256, ``ptyx.h``), so the entries kept are
#: at most these, whatever indexes a program sends.
PALETTE_SIZE = 256


def _index(text: str) -> int | None:
    """An entry's number, if it is one (ASCII digits: ``int`` would read
    others, and ten thousand digits slowly)."""
    if not (text.isascii() and text.isdigit()) or len(text.lstrip("0")) > 3:
        return None
    n = int(text)
    return n if n < PALETTE_SIZE else None


class PaletteOps(ScreenState):
    """OSC 4 and OSC 104: the entries the program set, the rest xterm's."""

    def palette_colour(self, n: int) -> Rgb:
        return self.palette.get(n) or default_colour(n)

    def set_palette(self, text: str) -> bool:
        """OSC 4 (``OSC 4 ; c ; spec ; c ; spec ...``): set each entry whose
        spec parses; return whether any pair asks (``?``)."""
        fields = text.split(";")
        asks = False
        for c, spec in zip(fields[::2], fields[1::2], strict=False):
            n = _index(c)
            if n is None:
                continue
            if spec == "?":
                asks = True
            else:
                rgb = parse_colour(spec)
                if rgb is not None:
                    self.palette[n] = rgb
        return asks

    def reset_palette(self, text: str) -> None:
        """OSC 104 (``OSC 104 ; c ; c ...``): those entries back to xterm's,
        all of them without any (xterm's ``ResetAnsiColorRequest``)."""
        if not text:
            self.palette.clear()
            return
        for c in text.split(";"):
            n = _index(c)
            if n is not None:
                self.palette.pop(n, None)

    def palette_report(self, text: str, terminator: str) -> str:
        """The replies to the queries in an OSC 4 body (after ``4;``), one
        OSC each, ended as the request was (xterm's
        ``ReportAnsiColorRequest``)."""
        fields = text.split(";")
        replies = []
        for c, spec in zip(fields[::2], fields[1::2], strict=False):
            n = _index(c)
            if n is not None and spec == "?":
                r, g, b = self.palette_colour(n)
                replies.append(f"\x1b]4;{n};rgb:{r:04x}/{g:04x}/{b:04x}{terminator}")
        return "".join(replies)
