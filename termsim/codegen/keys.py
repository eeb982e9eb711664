"""What a person typed, from the bytes a recording holds: text, named keys,
mouse clicks, pastes, and the terminal's answers to queries (dropped).

A test says ``type("select 1;")`` and ``press("enter")``, not
``send(b"select 1;\\r")``. The bytes come from a keyboard (``termsim
record``) or from a test's own calls; either way the same bytes mean the
same keys, because :func:`termsim.emulator.input.keys.key_bytes` made them, or an
xterm did, which is the table that function follows. This module reads it
backwards: every key name it knows, in both cursor-key modes, with every
modifier, becomes one entry of a byte table, and a run of bytes is read
longest key first.

In an interactive recording the real terminal answers the program's
queries (a cursor position report comes back as ``ESC [ row ; col R``)
through the keyboard; a generated test gets those answers from termsim, so
they are no keys and are left out.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache

from ..emulator.input.keys import KITTY_FUNCTIONAL, key_bytes
from ..errors import UnknownKey


@dataclass(frozen=True)
class Key:
    """One thing typed: ``kind`` is ``text`` (``value`` the text), ``key``
    (``value`` a key name), ``click`` (``value`` ``(row, col, button)``,
    0-based), ``paste`` (``value`` the text), ``bytes`` (``value``
    bytes no key makes) or ``secret`` (no ``value``: the recording holds a
    mask)."""

    kind: str
    value: object


_NAMED = ("enter", "tab", "escape", "backspace", "delete", "insert", "pageup", "pagedown",
          "up", "down", "left", "right", "home", "end",
          *(f"f{n}" for n in range(1, 13)))
_MODS = ("", "shift+", "alt+", "ctrl+", "ctrl+shift+", "alt+shift+", "ctrl+alt+")

#: Answers a terminal sends to queries: CPR, DECXCPR, DA1/DA2/DA3, DSR,
#: DECRQM, window reports, OSC colour replies, DCS replies (DECRQSS,
#: XTGETTCAP, XTVERSION).
_ANSWER = re.compile(
    rb"\x1b\[\??\d+;\d+(?:;\d+)?R|\x1b\[[?>=][\d;]*c|\x1b\[\d+n|\x1b\[\??[\d;]+\$y"
    rb"|\x1b\[\d+;\d+;\d+t|\x1b\][\d;]+rgb:[^\x07\x1b]*(?:\x07|\x1b\\)"
    rb"|\x1bP[^\x1b]*\x1b\\")
_SGR_MOUSE = re.compile(rb"\x1b\[<(\d+);(\d+);(\d+)([Mm])")
_X10_MOUSE = re.compile(rb"\x1b\[M([\x20-\xff])([\x20-\xff])([\x20-\xff])")
_PASTE = re.compile(rb"\x1b\[200~(.*?)\x1b\[201~", re.S)
#: A key in the kitty keyboard protocol's CSI u form: the key's number (its
#: alternates after colons), the modifiers and the event type, the text.
_KITTY_KEY = re.compile(rb"\x1b\[(\d+)(?::\d*)*(?:;(\d*)(?::(\d))?(?:;[\d:]*)?)?u")
#: A key in xterm's modifyOtherKeys form: ``CSI 27 ; modifiers ; code ~``.
_OTHER_KEY = re.compile(rb"\x1b\[27;(\d+);(\d+)~")
#: The kitty protocol's numbers for keys that are no character.
_KITTY_NUMBERS = {number: name for name, (number, final) in KITTY_FUNCTIONAL.items()
                  if final == "u"}
_MODIFIER_NAMES = ((8, "super"), (4, "ctrl"), (2, "alt"), (1, "shift"))


@cache
def _table(application_cursor: bool) -> dict[bytes, str]:
    """Bytes -> the shortest key name that sends them (``key_bytes``'s inverse)."""
    table: dict[bytes, str] = {}
    names = [m + k for k in _NAMED for m in _MODS]
    names += [f"ctrl+{c}" for c in "abcdefghijklmnopqrstuvwxyz"]
    names += [f"alt+{c}" for c in "abcdefghijklmnopqrstuvwxyz0123456789"]
    for name in names:
        try:
            data = key_bytes(name, application_cursor=application_cursor)
        except UnknownKey:
            continue
        if data not in table or len(name) < len(table[data]):
            table[data] = name
    # Arrows in the other cursor-key mode: a person's keyboard may send
    # either, whatever the program asked for.
    for final, name in zip("ABCDHF", ("up", "down", "right", "left", "home", "end"),
                           strict=True):
        table.setdefault(b"\x1bO" + final.encode(), name)
        table.setdefault(b"\x1b[" + final.encode(), name)
    return table


def decode(data: bytes, *, application_cursor: bool = False) -> list[Key]:
    """The keys in one input's bytes, in order."""
    table = _table(application_cursor)
    longest = max(map(len, table))
    out: list[Key] = []
    text: list[str] = []
    i = 0

    def flush() -> None:
        if text:
            out.append(Key("text", "".join(text)))
            text.clear()

    while i < len(data):
        kind, m = "", None
        for pattern, name in ((_PASTE, "paste"), (_SGR_MOUSE, "sgr"), (_X10_MOUSE, "x10"),
                              (_KITTY_KEY, "kitty"), (_OTHER_KEY, "other"),
                              (_ANSWER, "answer")):
            m = pattern.match(data, i)
            if m:
                kind = name
                break
        if m is not None:
            flush()
            if kind == "paste":
                out.append(Key("paste", m[1].decode("utf-8", "replace")))
            elif kind == "sgr" and m[4] == b"M" and int(m[1]) in (0, 1, 2):
                out.append(Key("click", (int(m[3]) - 1, int(m[2]) - 1,
                                         ("left", "middle", "right")[int(m[1])])))
            elif kind == "kitty" and (m[3] or b"1") != b"3":  # a release is press()'s
                named = _named(int(m[1]), int(m[2] or 1) - 1)
                out.append(Key("key", named) if named is not None else Key("bytes", m[0]))
            elif kind == "other":
                named = _named(int(m[2]), int(m[1]) - 1)
                out.append(Key("key", named) if named is not None else Key("bytes", m[0]))
            elif kind == "x10" and m[1][0] - 32 in (0, 1, 2):
                out.append(Key("click", (m[3][0] - 33, m[2][0] - 33,
                                         ("left", "middle", "right")[m[1][0] - 32])))
            i = m.end()  # a release, a motion, an answer: nothing a test types
            continue
        for size in range(min(longest, len(data) - i), 0, -1):
            key = table.get(data[i:i + size])
            if key is not None and not (size == 1 and 0x20 <= data[i] < 0x7f):
                flush()
                out.append(Key("key", key))
                i += size
                break
        else:
            end = i + 1
            while end < len(data) and data[end] >= 0x80 and data[end] < 0xc0:
                end += 1  # a UTF-8 character's continuation bytes
            chunk = data[i:end]
            try:
                char = chunk.decode("utf-8")
            except UnicodeDecodeError:
                flush()
                out.append(Key("bytes", chunk))
            else:
                if char.isprintable():
                    text.append(char)
                else:
                    flush()
                    out.append(Key("bytes", chunk))
            i = end
    flush()
    return out


def _named(number: int, modifiers: int) -> str | None:
    """A key's name from its number (a character's code point, or the
    kitty protocol's number for a key that is none) and modifier bits;
    None for a number no key has (past Unicode, a surrogate, a control)."""
    key = _KITTY_NUMBERS.get(number)
    if key is None and number > 32:
        if number > sys.maxunicode or not chr(number).isprintable():
            return None
        key = chr(number)
    key = key or "space"
    mods = [name for bit, name in reversed(_MODIFIER_NAMES) if modifiers & bit]
    order = {"ctrl": 0, "alt": 1, "shift": 2, "super": 3}
    return "+".join([*sorted(mods, key=order.__getitem__), key])
