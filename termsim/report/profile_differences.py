"""What a terminal profile does differently from xterm, in words for people:
``termsim profiles`` lists them under each profile.

The facts are :mod:`termsim.emulator.terminals.profiles`' (the emulator
answers from them); this module only says them.
"""

from __future__ import annotations

from ..emulator.terminals.profiles import MODE_STATES, MODES, XTERM, Profile
from ..emulator.terminals.xterm import printable


def _reply(value: str | None) -> str:
    return "nothing" if value is None else printable(value)


def differences(profile: Profile) -> list[str]:
    """What ``profile`` does differently from the ``xterm`` profile, one
    sentence each (empty for ``xterm`` itself): for ``termsim profiles``."""
    base = XTERM
    out: list[str] = []
    if profile.term != base.term:
        out.append(f"TERM={profile.term} (xterm: {base.term})")
    if profile.env != base.env:
        out.append("sets " + ", ".join(f"{k}={v}" for k, v in sorted(profile.env.items())))
    for label, mine, theirs in (
        ("DA1", profile.da1, base.da1), ("DA2", profile.da2, base.da2),
        ("DA3", profile.da3, base.da3), ("XTVERSION", profile.xtversion, base.xtversion),
    ):
        if mine == theirs:
            continue
        if mine is None:
            out.append(f"does not answer {label} (xterm: {_reply(theirs)})")
        else:
            out.append(f"answers {label} with {_reply(mine)} (xterm: {_reply(theirs)})")
    if profile.modes is None:
        out.append("does not answer DECRQM (mode reports)")
    else:
        for mode, what in MODES.items():
            mine_state, theirs_state = profile.mode_state(mode), base.mode_state(mode)
            if mine_state != theirs_state and mine_state is not None and theirs_state is not None:
                out.append(f"DECRQM {mode} ({what}): {MODE_STATES[mine_state]} "
                           f"(xterm: {MODE_STATES[theirs_state]})")
    if profile.kitty_keyboard != base.kitty_keyboard:
        out.append("answers the kitty keyboard query (CSI ? u)" if profile.kitty_keyboard
                   else "does not answer the kitty keyboard query (CSI ? u)")
    for label, code, mine, theirs in (
        ("foreground", 10, profile.foreground, base.foreground),
        ("background", 11, profile.background, base.background),
    ):
        if mine != theirs:
            out.append(f"does not answer OSC {code} ({label} colour)" if mine is None
                       else f"{label} colour {mine} (xterm: {theirs})")
    emulation, default = profile.emulation, base.emulation
    if emulation.backspace_at_wrap != default.backspace_at_wrap:
        out.append("BS at a pending wrap stays on the last column (as tmux)"
                   if emulation.backspace_at_wrap == "tmux"
                   else "BS at a pending wrap goes left of the last column (as xterm)")
    if emulation.graphemes != default.graphemes:
        out.append("draws a grapheme cluster (emoji ZWJ sequence, flag) in one cell"
                   if emulation.graphemes else "gives each code point its own width")
    if emulation.reflow != default.reflow:
        out.append("rewraps lines when the width changes" if emulation.reflow
                   else "does not rewrap lines when the width changes")
    if emulation.keys != default.keys:
        out.append("sends kitty's legacy keys with no flags (ctrl+shift+a is CSI 97;6u)"
                   if emulation.keys == "kitty" else "sends xterm's legacy keys")
    return out
