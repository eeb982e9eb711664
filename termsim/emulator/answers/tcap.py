"""XTGETTCAP (``DCS + q name ST``): what the terminfo of the terminal's
``TERM`` says of a capability, as xterm answers from its own.

Why a module of its own: the answer is a table of terminfo names, the one
place that maps them to the keys termsim sends (``keys.py`` says what each
key's bytes are); the query table (``queries.py``) only calls it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..screen.screen import TermScreen

#: Terminfo (and termcap) names of the keys XTGETTCAP answers, and the key
#: termsim sends for each (``input/keys.py``), in keypad-transmit mode as terminfo
#: describes them: ``kcuu1`` is ``ESC O A``. kf13-kf60 are F1-F12 with shift,
#: ctrl, ctrl+shift and alt, as in xterm's terminfo.
_TCAP_KEYS: Mapping[str, str] = {
    **dict.fromkeys(("kcuu1", "ku"), "up"), **dict.fromkeys(("kcud1", "kd"), "down"),
    **dict.fromkeys(("kcuf1", "kr"), "right"), **dict.fromkeys(("kcub1", "kl"), "left"),
    **dict.fromkeys(("khome", "kh"), "home"), **dict.fromkeys(("kend", "@7"), "end"),
    **dict.fromkeys(("kbs", "kb"), "backspace"), **dict.fromkeys(("kdch1", "kD"), "delete"),
    **dict.fromkeys(("kich1", "kI"), "insert"), **dict.fromkeys(("knp", "kN"), "pagedown"),
    **dict.fromkeys(("kpp", "kP"), "pageup"), **dict.fromkeys(("kcbt", "kB"), "shift+tab"),
    **dict.fromkeys(("kDC", "*4"), "shift+delete"), **dict.fromkeys(("kEND", "*7"), "shift+end"),
    **dict.fromkeys(("kHOM", "#2"), "shift+home"), **dict.fromkeys(("kIC", "#3"), "shift+insert"),
    **dict.fromkeys(("kLFT", "#4"), "shift+left"), **dict.fromkeys(("kRIT", "%i"), "shift+right"),
    **dict.fromkeys(("kNXT", "%c"), "shift+pagedown"),
    **dict.fromkeys(("kPRV", "%e"), "shift+pageup"),
    **{f"kf{n + 12 * i}": f"{mods}f{n}" for i, mods in enumerate(
        ("", "shift+", "ctrl+", "ctrl+shift+", "alt+")) for n in range(1, 13)},
    **{f"k{n % 10}": f"f{n}" for n in range(1, 11)}, "k;": "f10", "F1": "f11", "F2": "f12",
}


#: What xterm-256color's terminfo says of the keys termsim has no name for:
#: the keypad in application mode, and the bracketed-paste brackets.
_TCAP_STRINGS: Mapping[str, str] = {
    **dict.fromkeys(("ka1", "K1"), "\x1bOw"), **dict.fromkeys(("ka3", "K3"), "\x1bOy"),
    **dict.fromkeys(("kb2", "K2"), "\x1bOu"), **dict.fromkeys(("kc1", "K4"), "\x1bOq"),
    **dict.fromkeys(("kc3", "K5"), "\x1bOs"), **dict.fromkeys(("kent", "@8"), "\x1bOM"),
    "PS": "\x1b[200~", "PE": "\x1b[201~",
}


def tcap_value(name: str, screen: TermScreen) -> str | None:
    """What XTGETTCAP answers for one capability name (None: unknown)."""
    from ..input.keys import key_bytes  # the one place that knows what each key sends

    if name in ("TN", "name"):
        return screen.term_name
    if name in ("Co", "colors"):
        return "256" if "256" in screen.term_name else "8"
    if name in _TCAP_STRINGS:
        return _TCAP_STRINGS[name]
    key = _TCAP_KEYS.get(name)
    if key is None:
        return None
    return key_bytes(key, application_cursor=True).decode()
