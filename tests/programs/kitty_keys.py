"""Asks for distinct keys and prints what it reads, decoded.

``kitty_keys.py kitty FLAGS``: pushes the kitty keyboard protocol's flags
(``CSI > FLAGS u``), asks which flags are in force (``CSI ? u``, then DA1
so that a terminal without the protocol still answers something) and
prints ``FLAGS n`` (``FLAGS none``: no answer to ``CSI ? u``).
``kitty_keys.py xterm LEVEL``: sets xterm's modifyOtherKeys level
(``CSI > 4 ; LEVEL m``). ``alt`` as a third argument does it on the
alternate screen. Then ``READY``, and for each key event read a line ``N
name event bytes``: ``3 ctrl+i press b'\\x1b[105;5u'``. A legacy ``\\t``
is ``tab``, as a program without the protocol must read it. Quits on
``q``, popping the flags (and leaving the alternate screen).
"""

from __future__ import annotations

import os
import re
import sys
import tty

_CSI = re.compile(rb"\x1b\[([?>]?)([\d;:]*)([u~ABCDEFHPQSZ])")
_NAMES = {9: "tab", 13: "enter", 27: "escape", 127: "backspace", 32: "space"}
_FINALS = {"A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end",
           "P": "f1", "Q": "f2", "S": "f4"}
_TILDES = {2: "insert", 3: "delete", 5: "pageup", 6: "pagedown", 13: "f3", 15: "f5"}
_EVENTS = {1: "press", 2: "repeat", 3: "release"}


def _mods(value: int) -> str:
    bits = value - 1
    names = [n for b, n in ((4, "ctrl"), (2, "alt"), (8, "super"), (1, "shift")) if bits & b]
    return "".join(n + "+" for n in names)


def _key(code: int) -> str:
    return _NAMES.get(code) or chr(code)


def decode(data: bytes) -> list[tuple[str, str, bytes]]:
    """(name, event, bytes) for each key event in one read."""
    out: list[tuple[str, str, bytes]] = []
    i = 0
    while i < len(data):
        m = _CSI.match(data, i)
        if m:
            raw = m[0]
            fields = [f.split(":") for f in m[2].decode().split(";")]
            final = m[3].decode()
            first = int(fields[0][0] or 1)
            mods = int(fields[1][0] or 1) if len(fields) > 1 else 1
            event = int(fields[1][1]) if len(fields) > 1 and len(fields[1]) > 1 else 1
            if final == "~" and first == 27 and len(fields) == 3:  # modifyOtherKeys
                name = _mods(mods) + _key(int(fields[2][0]))
            elif final == "u":
                name = _mods(mods) + _key(first)
                if len(fields) > 2:
                    name += " text=" + "".join(chr(int(c)) for c in fields[2])
            elif final == "~":
                name = _mods(mods) + _TILDES.get(first, f"key{first}")
            elif final == "Z":
                name = "shift+tab"
            else:
                name = _mods(mods) + _FINALS[final]
            out.append((name, _EVENTS.get(event, str(event)), raw))
            i = m.end()
            continue
        byte = data[i]
        if byte == 0x1B and i + 1 < len(data):  # Alt: ESC and the key
            name, _, raw = decode(data[i + 1:i + 2])[0]
            out.append(("alt+" + name, "press", data[i:i + 2]))
            i += 2
            continue
        if byte in _NAMES:
            name = _NAMES[byte]
        elif byte < 32:
            name = "ctrl+" + chr(byte + 96)
        else:
            name = chr(byte)
        out.append((name, "press", data[i:i + 1]))
        i += 1
    return out


def main() -> None:
    protocol, value = sys.argv[1], int(sys.argv[2])
    alternate = sys.argv[3:] == ["alt"]
    tty.setraw(0)
    out = sys.stdout
    if alternate:
        out.write("\x1b[?1049h")
    if protocol == "kitty":
        out.write(f"\x1b[>{value}u\x1b[?u\x1b[c")
        out.flush()
        answer = b""
        while not re.search(rb"\x1b\[\?[\d;]*c", answer):
            answer += os.read(0, 1024)
        flags = re.search(rb"\x1b\[\?(\d+)u", answer)
        out.write(f"FLAGS {flags[1].decode() if flags else 'none'}\r\n")
    else:
        out.write(f"\x1b[>4;{value}m")
    out.write("READY\r\n")
    out.flush()
    count = 0
    done = False
    while not done:
        for name, event, raw in decode(os.read(0, 1024)):
            count += 1
            out.write(f"{count} {name} {event} {raw!r}\r\n")
            done = done or (name == "q" and event == "press")
        out.flush()
    out.write("\x1b[<u" if protocol == "kitty" else "\x1b[>4;0m")
    if alternate:
        out.write("\x1b[?1049l")
    out.write("BYE\r\n")
    out.flush()


if __name__ == "__main__":
    main()
