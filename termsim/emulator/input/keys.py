"""Key names to the bytes a terminal sends for them.

Names are lower case, modifiers joined with ``+``: ``"enter"``, ``"shift+tab"``,
``"ctrl+c"``, ``"alt+x"``, ``"ctrl+left"``, ``"super+s"``. A single character
is itself (``"y"``, ``"❯"``). The modifiers are ``shift``, ``alt``, ``ctrl``,
``super``, ``hyper`` and ``meta``.

What a key sends depends on what the program asked for:

* By default, xterm's legacy encoding: arrow, Home and End keys follow the
  application cursor keys mode (DECCKM) the program set (``ESC O A``
  instead of ``ESC [ A``), modifiers of function keys are xterm's parameter
  (``CSI 1 ; 5 D``), Ctrl maps a letter to its C0 control, Alt prefixes
  ESC. Keys legacy xterm sends nothing distinct for (``shift+enter``,
  ``ctrl+1``, ``super+a``) raise :class:`UnknownKey`.
* Under the kitty keyboard protocol (``kitty_flags``, the flags the program
  pushed with ``CSI > flags u``), kitty's encoding, ported from kitty's
  ``kitty/key_encoding.c`` (``encode_glfw_key_event``) and documented in
  kitty's ``docs/keyboard-protocol.rst``: ``CSI key:shifted ; mods:event ;
  text u`` and the legacy-compatible ``CSI 1 ; mods A`` and ``CSI n ; mods
  ~`` forms, by the flags 1 (disambiguate), 2 (event types), 4 (alternate
  keys), 8 (all keys as escape codes) and 16 (associated text). The keyboard
  is a US layout: ``shift+a`` has the shifted key ``A`` and the text
  ``A``; ``+`` is ``shift+=``. Text comes only with no modifier but Shift,
  as kitty's GLFW backend gives it (``glfw/xkb_glfw.c``), and never with a
  release.
* Under xterm's modifyOtherKeys (``modify_other_keys``, the level the
  program set with ``CSI > 4 ; level m``), the keys xterm's ``input.c``
  (``ModifyOtherKeys``, ``allowedCharModifiers``) reports as ``CSI 27 ;
  mods ; code ~`` (formatOtherKeys=0, xterm's default; ctlseqs "CSI > Pp ;
  Pv m"), and legacy bytes for the others: level 1 ``ctrl+1``,
  ``shift+enter``, ``ctrl+enter``, ``ctrl+tab``; level 2 also ``ctrl+i``,
  ``ctrl+a``, ``alt+x``, ``ctrl+space``. Alt is taken as xterm's with
  metaSendsEscape (Alt prefixes ESC in the legacy bytes).

The kitty protocol wins where a program enabled both (kitty, Ghostty and
WezTerm ignore modifyOtherKeys while it is on).
"""

from __future__ import annotations

from typing import NamedTuple

from ...errors import UnknownKey

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

#: The kitty keyboard protocol's modifier bits (keyboard-protocol.rst,
#: "Modifiers"); xterm's modifier parameter uses the same first three.
SHIFT, ALT, CTRL, SUPER, HYPER, META = 1, 2, 4, 8, 16, 32
_MODIFIER_BITS = {"shift": SHIFT, "alt": ALT, "ctrl": CTRL, "super": SUPER, "hyper": HYPER,
                  "meta": META}

#: The kitty keyboard protocol's progressive enhancement flags
#: (keyboard-protocol.rst, "Progressive enhancement").
DISAMBIGUATE, REPORT_EVENTS, REPORT_ALTERNATES, REPORT_ALL_KEYS, REPORT_TEXT = 1, 2, 4, 8, 16

#: Key event types, as ``key_bytes(..., event=)`` names them; kitty's
#: numbers are 1, 2, 3 (keyboard-protocol.rst, "Event types").
EVENTS = ("press", "repeat", "release")

#: Functional keys under the kitty protocol: key number and final byte
#: (keyboard-protocol.rst, "Functional key definitions"; key_encoding.c's
#: "special numbers"). The keys past F12 and Menu use Private Use Area
#: numbers.
KITTY_FUNCTIONAL: dict[str, tuple[int, str]] = {
    "escape": (27, "u"), "enter": (13, "u"), "tab": (9, "u"), "backspace": (127, "u"),
    "insert": (2, "~"), "delete": (3, "~"), "left": (1, "D"), "right": (1, "C"),
    "up": (1, "A"), "down": (1, "B"), "pageup": (5, "~"), "pagedown": (6, "~"),
    "home": (1, "H"), "end": (1, "F"), "f1": (1, "P"), "f2": (1, "Q"), "f3": (13, "~"),
    "f4": (1, "S"), "f5": (15, "~"), "f6": (17, "~"), "f7": (18, "~"), "f8": (19, "~"),
    "f9": (20, "~"), "f10": (21, "~"), "f11": (23, "~"), "f12": (24, "~"),
    **{f"f{n}": (57376 + n - 13, "u") for n in range(13, 36)},
    "menu": (57363, "u"),
}
_ALIASES = {"return": "enter", "esc": "escape"}

#: A US keyboard: each shifted character and the key it is on.
_US_SHIFTED = dict(zip('~!@#$%^&*()_+{}|:"<>?', "`1234567890-=[]\\;',./", strict=True))
_US_SHIFT_OF = {base: shifted for shifted, base in _US_SHIFTED.items()}
#: The keys kitty's legacy text encoding covers (key_encoding.c,
#: ``is_legacy_ascii_key``).
_LEGACY_ASCII = frozenset("abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*()`~-_=+[{]}\\|;:'\",<.>/? ")
#: What Ctrl makes of an ASCII key (keyboard-protocol.rst, "Legacy ctrl
#: mapping of ASCII keys"; key_encoding.c's ``ctrled_key``); the others are
#: left untouched.
_KITTY_CTRL = {
    " ": 0, "/": 31, "2": 0, "3": 27, "4": 28, "5": 29, "6": 30, "7": 31, "8": 127,
    "?": 127, "@": 0, "[": 27, "\\": 28, "]": 29, "^": 30, "_": 31, "~": 30,
    **{chr(c): c - 96 for c in range(ord("a"), ord("z") + 1)},
}

KEY_NAMES = tuple(sorted(
    set(_PLAIN) | set(_CURSOR) | set(_FUNCTION_SS3) | set(_FUNCTION_TILDE)
    | {"shift+tab", "ctrl+LETTER", "alt+KEY", "shift+enter", "ctrl+enter", "super+KEY",
       "f13..f35", "menu"}
))


class _Key(NamedTuple):
    """A parsed key name: kitty's modifier bits, and either a functional
    key's name or a text key's (unshifted) character and shifted character."""

    mods: int
    name: str  # a functional key ("enter", "f5"), or "" for a text key
    char: str  # the unshifted character of a text key
    shifted: str  # its shifted character ("" if it has none)


def key_bytes(name: str, *, application_cursor: bool = False, kitty_flags: int = 0,
              modify_other_keys: int = 0, event: str = "press",
              kitty_legacy: bool = False) -> bytes:
    """The bytes for one key event, e.g. ``key_bytes("ctrl+c") == b"\\x03"``.

    ``kitty_flags``: the kitty keyboard protocol flags in force;
    ``modify_other_keys``: xterm's modifyOtherKeys level; ``event``:
    ``"press"``, ``"repeat"`` or ``"release"``. An event the terminal does
    not report (a release without kitty flag 2; Enter's release without
    flag 8) is ``b""``. ``kitty_legacy``: with no kitty flags, kitty's own
    legacy encoding rather than xterm's (``CSI u`` for the combinations
    legacy bytes cannot tell apart, ``ctrl+shift+a`` -> ``CSI 97 ; 6 u``)."""
    if event not in EVENTS:
        raise UnknownKey(f"unknown key event {event!r}; known: {', '.join(EVENTS)}")
    if kitty_flags & 0x1F or kitty_legacy:
        return _kitty(_parse(name), kitty_flags & 0x1F, EVENTS.index(event) + 1,
                      application_cursor)
    if event == "release":
        _legacy_or_other(name, application_cursor, modify_other_keys)  # a known key?
        return b""
    return _legacy_or_other(name, application_cursor, modify_other_keys)


def key_events(name: str, *, application_cursor: bool = False, kitty_flags: int = 0,
               modify_other_keys: int = 0, kitty_legacy: bool = False) -> tuple[bytes, ...]:
    """What one tap of a key sends: its press, and its release where the
    program asked for releases (kitty flag 2) and the key reports one."""
    press, release = (
        key_bytes(name, application_cursor=application_cursor, kitty_flags=kitty_flags,
                  modify_other_keys=modify_other_keys, event=event, kitty_legacy=kitty_legacy)
        for event in ("press", "release"))
    return (press, release) if release else (press,)


# -- names ------------------------------------------------------------------

def _split(name: str) -> tuple[list[str], str]:
    if not name:
        raise UnknownKey("an empty key name")
    if len(name) == 1:
        return [], name
    parts = name.split("+")
    if "" in parts:  # "ctrl++" or "alt++": the key is "+"
        parts = [p for p in parts if p] + ["+"]
    *mods, key = parts
    return [m.lower() for m in mods], key.lower()


def _parse(name: str) -> _Key:
    mods, key = _split(name)
    bits = 0
    for m in mods:
        if m not in _MODIFIER_BITS:
            raise UnknownKey(f"unknown modifier {m!r} in key {name!r}")
        bits |= _MODIFIER_BITS[m]
    key = _ALIASES.get(key, key)
    if key in KITTY_FUNCTIONAL:
        return _Key(bits, key, "", "")
    if key == "space":
        key = " "
    if len(key) != 1:
        raise UnknownKey(
            f"unknown key {name!r}; known: {', '.join(KEY_NAMES)}, or a single character")
    if key in _US_SHIFTED:  # "+" is shift+"=" on a US keyboard
        return _Key(bits | SHIFT, "", _US_SHIFTED[key], key)
    lower = key.lower()
    if lower != key and len(lower) == 1:  # "A": shift+a
        return _Key(bits | SHIFT, "", lower, key)
    shifted = _US_SHIFT_OF.get(key) or (key.upper() if len(key.upper()) == 1 else "")
    return _Key(bits, "", key, "" if shifted == key else shifted)


# -- the kitty keyboard protocol ---------------------------------------------

def _kitty(key: _Key, flags: int, action: int, application_cursor: bool) -> bytes:
    """kitty's ``encode_glfw_key_event`` for one key event (key_encoding.c)."""
    disambiguate, events = flags & DISAMBIGUATE, flags & REPORT_EVENTS
    all_keys, embed_text = flags & REPORT_ALL_KEYS, flags & REPORT_TEXT
    if action == 3 and not events:
        return b""
    if key.name:
        return _kitty_functional(key, flags, action, application_cursor)
    mods = key.mods
    # Text: only without modifiers other than Shift, never on a release
    # (glfw/xkb_glfw.c); control characters carry none.
    text = ""
    if not mods & ~SHIFT and action != 3:
        text = key.shifted if mods & SHIFT and key.shifted else key.char
    if not all_keys and text:
        return text.encode()
    add_actions = bool(events) and action != 1
    shifted = key.shifted if flags & REPORT_ALTERNATES and mods & SHIFT else ""
    embedded = text if embed_text else ""
    if not add_actions and not shifted and not embedded:
        if not mods:
            if all_keys:
                return _csi(ord(key.char), mods, action, add_actions, "", "", "u")
            return key.char.encode()
        if not disambiguate and not all_keys and (
                key.char in _LEGACY_ASCII or key.shifted in _LEGACY_ASCII):
            legacy = _kitty_legacy_text(key)
            if legacy:
                return legacy
    return _csi(ord(key.char), mods, action, add_actions, shifted, embedded, "u")


def _kitty_legacy_text(key: _Key) -> bytes:
    """key_encoding.c's ``encode_printable_ascii_key_legacy``: Alt prefixes
    ESC, Ctrl maps to a C0 control, Shift gives the shifted character;
    other combinations (``ctrl+shift+a``, ``super+a``) are b"" (CSI u)."""
    mods, char = key.mods, key.char
    if mods & SHIFT and key.shifted and key.shifted != char and (
            not mods & CTRL or not "a" <= char <= "z"):
        char, mods = key.shifted, mods & ~SHIFT
    if key.mods == SHIFT:
        return char.encode()
    if mods == ALT:
        return b"\x1b" + char.encode()
    if mods in (CTRL, CTRL | ALT):
        code = _KITTY_CTRL.get(char)
        out = bytes([code]) if code is not None else char.encode()
        return b"\x1b" + out if mods & ALT else out
    if char == " " and mods == CTRL | SHIFT:
        return b"\x00"
    if char == " " and mods == ALT | SHIFT:
        return b"\x1b "
    return b""


def _kitty_functional(key: _Key, flags: int, action: int, application_cursor: bool) -> bytes:
    """key_encoding.c's ``encode_function_key``."""
    disambiguate, events = flags & DISAMBIGUATE, flags & REPORT_EVENTS
    all_keys = flags & REPORT_ALL_KEYS
    legacy_mode = not events and not disambiguate and not all_keys
    name, mods = key.name, key.mods
    if application_cursor and legacy_mode and not mods and name in _CURSOR:
        return b"\x1bO" + _CURSOR[name].encode()
    if not mods:
        if not disambiguate and not all_keys and name == "escape":
            return b"\x1b"
        if legacy_mode and name in _FUNCTION_SS3:
            return b"\x1bO" + _FUNCTION_SS3[name].encode()
        if not all_keys and name in ("enter", "backspace", "tab"):
            return b"" if action == 3 else {"enter": b"\r", "backspace": b"\x7f",
                                            "tab": b"\t"}[name]
    elif legacy_mode and name in ("enter", "escape", "backspace", "tab"):
        prefix = b"\x1b" if mods & ALT else b""
        if name == "tab" and mods & SHIFT:
            return prefix + b"\x1b[Z"
        main = {"enter": b"\r", "escape": b"\x1b", "tab": b"\t",
                "backspace": b"\x08" if mods & CTRL else b"\x7f"}[name]
        return prefix + main
    number, final = KITTY_FUNCTIONAL[name]
    if name == "menu" and legacy_mode:
        number, final = 29, "~"  # xterm's F16, in legacy mode
    return _csi(number, mods, action, bool(events) and action != 1, "", "", final)


def _csi(number: int, mods: int, action: int, add_action: bool, shifted: str, text: str,
         final: str) -> bytes:
    """key_encoding.c's ``serialize``: ``CSI number:shifted ; mods:event ;
    text final``, fields left out while they hold their defaults."""
    second = bool(mods) or add_action
    out = "\x1b["
    if number != 1 or shifted or second or text:
        out += str(number)
    if shifted:
        out += f":{ord(shifted)}"
    if second or text:
        out += ";"
        if second:
            out += str(mods + 1)
        if add_action:
            out += f":{action}"
    if text:
        out += ";" + ":".join(str(ord(c)) for c in text)
    return (out + final).encode()


# -- xterm's modifyOtherKeys ---------------------------------------------------

def _legacy_or_other(name: str, application_cursor: bool, level: int) -> bytes:
    if level > 0:
        other = _modify_other_keys(_parse(name), level)
        if other is not None:
            return other
    return _legacy(name, application_cursor)


def _x_ctrl(char: str) -> int | None:
    """What Ctrl makes of a character in X's ``XLookupString``: ``@``..``~``
    masked to 0x1f, and the digits and space of a PC keyboard."""
    c = ord(char)
    if 0x40 <= c < 0x7F:
        return c & 0x1F
    return {" ": 0, "2": 0, "3": 27, "4": 28, "5": 29, "6": 30, "7": 31, "8": 127,
            "/": 31}.get(char)


def _modify_other_keys(key: _Key, level: int) -> bytes | None:
    """``CSI 27 ; mods ; code ~`` where xterm's ``ModifyOtherKeys`` and
    ``allowedCharModifiers`` (input.c) say the key is modified at this
    level, else None (the legacy bytes). Covers the text keys, Enter, Tab
    and Escape; Backspace keeps its legacy bytes (xterm's backarrow toggle
    is not modelled)."""
    state = key.mods
    if state & ~(SHIFT | ALT | CTRL) or not state:
        return None
    if key.name == "tab" and state & SHIFT:  # ISO_Left_Tab: an editing key
        return _xterm_other(9, state) if level >= 2 and state & ~SHIFT else b"\x1b[Z"
    if key.name in ("enter", "tab"):
        if level <= 1 and state & ALT:  # filterAltMeta: Return and Tab lose Alt and Ctrl
            state &= ~(ALT | CTRL)
        return _xterm_other(13 if key.name == "enter" else 9, state) if state else None
    if key.name == "escape":
        # A control alias whose modifiers level 1 filters out (Alt under
        # metaSendsEscape); at level 2 modified unless Shift alone.
        return _xterm_other(27, state) if level >= 2 and state & ~SHIFT else None
    if key.name:
        return None  # function, cursor and editing keys: not "other" keys
    keysym = key.shifted if state & SHIFT and key.shifted else key.char
    if ord(keysym) > 0xFF:
        return None
    control_input = 0x40 <= ord(keysym) <= 0x7F  # IsControlInput
    alias = bool(state & CTRL) and _x_ctrl(keysym) is not None  # IsControlAlias
    allowed = state
    if level <= 1:  # allowedCharModifiers
        if control_input and not allowed & ~CTRL:
            pass
        elif alias:
            if not allowed & ~(CTRL | SHIFT):
                allowed = 0
        elif not allowed & CTRL:
            allowed &= ~SHIFT  # printable keys already go with Shift
        if allowed & ALT:  # filterAltMeta, with metaSendsEscape
            allowed &= ~ALT
            if control_input and allowed & CTRL:
                allowed &= ~CTRL
    if not allowed:
        return None
    if level <= 1:
        if control_input:
            modified = allowed not in (CTRL, SHIFT)
        elif alias:
            modified = allowed != SHIFT and bool(allowed & ~CTRL)
        else:
            modified = True
    elif control_input:
        modified = True
    elif allowed == SHIFT:
        modified = keysym == " "
    else:
        modified = bool(allowed & ~SHIFT)
    return _xterm_other(ord(keysym), allowed) if modified else None


def _xterm_other(code: int, mods: int) -> bytes:
    return f"\x1b[27;{mods + 1};{code}~".encode()


# -- xterm's legacy encoding -----------------------------------------------------

def _legacy(name: str, application_cursor: bool) -> bytes:
    """The bytes xterm sends without modifyOtherKeys."""
    if len(name) == 1:
        return name.encode()
    if not name:
        raise UnknownKey("an empty key name")
    parts = name.lower().split("+")
    if "" in parts:  # "ctrl++" or "alt++": the key is "+"
        parts = [p for p in parts if p] + ["+"]
    *mods, key = parts
    unknown = [m for m in mods if m not in _MODIFIER_BITS]
    if unknown:
        raise UnknownKey(f"unknown modifier {unknown[0]!r} in key {name!r}")
    if any(m not in _MODIFIERS for m in mods):
        raise UnknownKey(f"xterm sends nothing distinct for {name!r}; it needs the kitty "
                         "keyboard protocol")
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
            raise UnknownKey(_not_distinct(name))
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


def _not_distinct(name: str) -> str:
    return (f"xterm sends nothing distinct for {name!r}; it needs the kitty keyboard "
            "protocol or modifyOtherKeys")


def _no_ctrl(name: str) -> bytes:
    raise UnknownKey(_not_distinct(name))


def _no_shift(name: str) -> bytes:
    raise UnknownKey(f"{name!r}: write the shifted character itself instead")
