"""Key names to the bytes an xterm sends for them.

Names are lower case, modifiers joined with ``+``: ``"enter"``, ``"shift+tab"``,
``"ctrl+c"``, ``"alt+x"``, ``"ctrl+left"``. A single character is itself
(``"y"``, ``"❯"``). Arrow, Home and End keys follow the application cursor
keys mode (DECCKM) the program set: ``ESC O A`` instead of ``ESC [ A``.
"""

from __future__ import annotations

from ..errors import UnknownKey

_PLAIN = {
    "enter": b"\r", "return": b"\r", "tab": b"\t", "escape": b"\x1b", "esc": b"\x1b",
    "backspace": b"\x7f", "space": b" ", "delete": b"\x1b[3~", "insert": b"\x1b[2~",
    "pageup": b"\x1b[5~", "pagedown": b"\x1b[6~",
}
# Keys whose CSI form takes xterm's modifier parameter: final byte, and the
# SS3 form used in application cursor mode (None: never SS3).
_CURSOR = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
_FUNCTION_SS3 = {"f1": "P", "f2": "Q", "f3": "R", "f4": "S"}
_FUNCTION_TILDE = {
    "f5": 15, "f6": 17, "f7": 18, "f8": 19, "f9": 20, "f10": 21, "f11": 23, "f12": 24,
    "insert": 2, "delete": 3, "pageup": 5, "pagedown": 6,
}
_MODIFIERS = ("shift", "alt", "ctrl")
_CTRL_SYMBOLS = {"@": 0, "space": 0, "[": 27, "\\": 28, "]": 29, "^": 30, "_": 31, "?": 127}

KEY_NAMES = tuple(sorted(
    set(_PLAIN) | set(_CURSOR) | set(_FUNCTION_SS3) | set(_FUNCTION_TILDE)
    | {"shift+tab", "ctrl+LETTER", "alt+KEY"}
))


def key_bytes(name: str, *, application_cursor: bool = False) -> bytes:
    """The bytes for one key press, e.g. ``key_bytes("ctrl+c") == b"\\x03"``."""
    if len(name) == 1:
        return name.encode()
    if not name:
        raise UnknownKey("an empty key name")
    parts = name.lower().split("+")
    if "" in parts:  # "ctrl++" or "alt++": the key is "+"
        parts = [p for p in parts if p] + ["+"]
    *mods, key = parts
    unknown = [m for m in mods if m not in _MODIFIERS]
    if unknown:
        raise UnknownKey(f"unknown modifier {unknown[0]!r} in key {name!r}")
    shift, alt, ctrl = ("shift" in mods), ("alt" in mods), ("ctrl" in mods)
    code = 1 + shift + 2 * alt + 4 * ctrl  # xterm's modifier parameter

    if key in _CURSOR:
        final = _CURSOR[key]
        if code > 1:
            return f"\x1b[1;{code}{final}".encode()
        return (b"\x1bO" if application_cursor else b"\x1b[") + final.encode()
    if key in _FUNCTION_SS3:
        final = _FUNCTION_SS3[key]
        return f"\x1b[1;{code}{final}".encode() if code > 1 else b"\x1bO" + final.encode()
    if key in _FUNCTION_TILDE and (code > 1 or key.startswith("f")):
        number = _FUNCTION_TILDE[key]
        return f"\x1b[{number};{code}~".encode() if code > 1 else f"\x1b[{number}~".encode()
    if key == "tab" and shift and not (alt or ctrl):
        return b"\x1b[Z"

    if key in _PLAIN:
        base = _PLAIN[key]
        if shift and key not in ("space",):
            raise UnknownKey(f"xterm sends nothing distinct for {name!r}")
        if ctrl:
            base = {"space": b"\x00", "backspace": b"\x08"}.get(key) or _no_ctrl(name)
    elif len(key) == 1:
        base = key.encode()
        if ctrl:
            if "a" <= key <= "z":
                base = bytes([ord(key) - 96])
            elif key in _CTRL_SYMBOLS:
                base = bytes([_CTRL_SYMBOLS[key]])
            else:
                _no_ctrl(name)
        if shift:
            base = base.upper() if len(base) == 1 and not ctrl else _no_shift(name)
    elif key in _CTRL_SYMBOLS and ctrl:
        base = bytes([_CTRL_SYMBOLS[key]])
    else:
        raise UnknownKey(
            f"unknown key {name!r}; known: {', '.join(KEY_NAMES)}, or a single character"
        )
    return b"\x1b" + base if alt else base


def _no_ctrl(name: str) -> bytes:
    raise UnknownKey(f"xterm sends nothing distinct for {name!r}")


def _no_shift(name: str) -> bytes:
    raise UnknownKey(f"{name!r}: write the shifted character itself instead")
