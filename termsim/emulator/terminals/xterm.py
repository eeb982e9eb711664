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


def printable(text: str) -> str:
    """``"\\x1b[6n"`` -> ``"ESC[6n"``: escape sequences as people write them,
    and the one way text from outside (a program's output, a recording's
    fields) reaches a person's terminal or a report: no byte of it is then a
    control a terminal acts on, and nothing reorders or splits what is read.

    ESC and BEL by name; other C0 and C1 controls, DEL, the bytes a
    ``surrogateescape`` decode kept (``\\xNN``) and other lone surrogates,
    the line and paragraph separators, and the bidirectional controls a
    "Trojan Source" text hides behind (``\\uNNNN``) are written as escapes.
    """
    return text.translate(_PRINTABLE)


#: ``printable``'s table.
_PRINTABLE = {
    **{code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7f, 0xa0))},
    0x1b: "ESC", 0x07: "BEL",
    # Bytes that were not UTF-8, kept by ``surrogateescape``: shown as bytes.
    **{code: f"\\x{code - 0xDC00:02x}" for code in range(0xDC80, 0xDD00)},
    **{code: f"\\u{code:04x}" for code in (
        *range(0xD800, 0xDC80), *range(0xDD00, 0xE000),  # other lone surrogates
        0x2028, 0x2029,  # line and paragraph separators
        0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A),  # bidi
    )},
}
