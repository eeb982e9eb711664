"""The xterm termsim is by default: the patch it announces, its colours, and
how an escape sequence is written for people.

Why a module of its own: the answers to queries (``queries.py``) and the
terminal profiles (``profiles.py``, whose ``xterm`` is exactly these) both
need them, and the screen reads the profile: kept here, below all three,
none of them imports another back.
"""

from __future__ import annotations

#: The xterm termsim answers as (XTVERSION, DA2): patch 398 (2025).
XTERM_PATCH = 398
#: Its default colours, as OSC 10 and 11 report them.
FOREGROUND = "rgb:ffff/ffff/ffff"
BACKGROUND = "rgb:0000/0000/0000"


def printable(seq: str) -> str:
    """``"\\x1b[6n"`` -> ``"ESC[6n"``: escape sequences as people write them."""
    return seq.translate(_PRINTABLE)


#: ``printable``'s table: ESC and BEL by name, other C0 and C1 controls and
#: DEL as ``\xNN``.
_PRINTABLE = {
    **{code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7f, 0xa0))},
    0x1b: "ESC", 0x07: "BEL",
}
