"""Where real terminals disagree, which way termsim goes.

The defaults follow xterm, which most users' terminals (VTE, iTerm2,
alacritty, Windows Terminal) agree with on these points; each option names
the terminal that goes the other way, for tests whose program was written
against it. The options are recorded in the recording's header, so a
replay draws the same screens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal


@dataclass(frozen=True)
class Emulation:
    """Choices where terminals differ (defaults: xterm's).

    ``backspace_at_wrap``: where BS and CUB go from a pending wrap (just
    after a character was printed in the last column). ``"xterm"``: one
    column left of the last, as xterm, VTE, alacritty, libvterm and
    vttest's expectations have it (the cursor is *on* the last column,
    with a flag). ``"tmux"``: the last column, as tmux and kitty have it
    (the cursor is *past* the last column).

    ``graphemes``: draw each grapheme cluster in one cell, as terminals
    with mode 2027 do (kitty, WezTerm, foot, contour, Ghostty): a ZWJ emoji
    family, a flag (two regional indicators) or an emoji with a skin tone is
    one two-column character, and VS16 makes a text character with an
    emoji presentation two columns wide. Off by default, as in xterm, VTE
    and tmux, which give each code point its own width (a family is then 8
    columns, a flag 2: a regional indicator alone is one column, as the
    system's wcwidth and xterm have it). DECRQM 2027 reports it as
    permanently set.

    ``reflow``: when the width changes, rejoin the rows that text wrapped
    across and cut them anew, as tmux, VTE, kitty, alacritty and iTerm2 do
    (xterm does not). The primary screen and its history are rewrapped;
    the alternate screen (full-screen programs redraw) is not.

    ``keys``: how ``press()`` encodes a key while the program has asked for
    no keyboard protocol. ``"xterm"``: xterm's bytes (a combination they
    cannot spell, ``ctrl+shift+a``, is sent as ``ctrl+a``). ``"kitty"``:
    kitty's legacy encoding, which sends such combinations as ``CSI u``
    even with no flags pushed (``ctrl+shift+a`` is ``CSI 97 ; 6 u``; kitty's
    ``key_encoding.c``, ``encode_key`` falling through to ``serialize``
    when ``encode_printable_ascii_key_legacy`` has no spelling).

    ``linefeed_at_wrap``: what LF, VT, FF and IND do to a pending wrap.
    ``"xterm"``: they end it, so the next character overwrites the last
    column of the new row (xterm's ``xtermIndex`` -> ``CursorDown`` ->
    ``ResetWrap``; real xterm is the oracle, ``tests/test_xterm_oracle.py``).
    ``"tmux"``: it stays pending and the next character starts the row after
    (tmux, and terminals whose cursor sits past the last column).

    ``lines_home``: IL and DL, with the cursor inside the margins, move it to
    the left margin, as xterm (``InsertLine``/``DeleteLine``: ``set_cur_col``
    to ``ScrnLeftMargin``) and ECMA-48 ("the line home position") have it;
    False keeps its column, as tmux does.

    ``alternate_cursor``: ``?1049l`` restores the cursor saved in the main
    screen's slot even when the alternate screen is not on (home with
    nothing saved), and ``?1049h`` while it is on saves the cursor again
    and clears the screen, as xterm's ``srm_OPT_ALTBUF_CURSOR`` does
    whatever the buffer; False: both do nothing then, as tmux.

    ``invalid_utf8``: how many U+FFFD bytes that are not UTF-8 make (a
    program can tell: the cursor moves a column each). ``"xterm"``: one a
    sequence as xterm reads it (a lead byte and the continuation bytes it
    announces, ``ptydata.c`` ``decodeUtf8``): ``E0 80 AF`` is one.
    ``"unicode"``: one per maximal subpart, the Unicode Standard's
    recommended practice, as WHATWG and Ghostty have it: ``E0 80 AF`` is
    three (:mod:`termsim.emulator.parsing.decoding`).

    ``column_mode``: DECCOLM (``?3h``/``?3l``). ``"ignore"``: as a default
    xterm (``allowC132`` off); ``"clear"``: clear the screen and home the
    cursor, as xterm with ``allowC132``, tmux and alacritty do (the width
    stays: a harness must not change the size behind the PTY's back).
    """

    backspace_at_wrap: Literal["xterm", "tmux"] = "xterm"
    graphemes: bool = False
    reflow: bool = False
    keys: Literal["xterm", "kitty"] = "xterm"
    linefeed_at_wrap: Literal["xterm", "tmux"] = "xterm"
    lines_home: bool = True
    alternate_cursor: bool = True
    column_mode: Literal["ignore", "clear"] = "ignore"
    invalid_utf8: Literal["xterm", "unicode"] = "xterm"

    def __post_init__(self) -> None:
        for name, allowed in (("backspace_at_wrap", ("xterm", "tmux")),
                              ("keys", ("xterm", "kitty")),
                              ("linefeed_at_wrap", ("xterm", "tmux")),
                              ("column_mode", ("ignore", "clear")),
                              ("invalid_utf8", ("xterm", "unicode"))):
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f'{name} is "{allowed[0]}" or "{allowed[1]}", not {value!r}')
        for name in ("graphemes", "reflow", "lines_home", "alternate_cursor"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} is True or False, not {getattr(self, name)!r}")

    def to_header(self) -> dict[str, Any]:
        """The options that differ from the defaults, for a recording's header."""
        default = Emulation()
        return {k: v for k, v in asdict(self).items() if getattr(default, k) != v}

    @classmethod
    def from_header(cls, value: object) -> Emulation:
        """The options a recording's header names; unknown or invalid
        entries (a newer termsim's) are left at their defaults."""
        if not isinstance(value, Mapping):
            return cls()
        known = {f.name for f in fields(cls)}
        options: dict[str, Any] = {}
        for key, option in value.items():
            if key in known:
                try:
                    cls(**{key: option})
                except ValueError:
                    continue
                options[key] = option
        return cls(**options)
