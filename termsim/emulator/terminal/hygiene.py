"""Did a program leave the terminal as it found it?

A program that exits (or is interrupted, or crashes) with the alternate
screen still on, the cursor hidden, mouse tracking or bracketed paste on,
leaves its user's shell broken: the mouse prints garbage, a paste arrives
wrapped in ``ESC[200~``, the prompt is invisible. None of that shows in the
cells, so a screen-based test never notices. This module lists what is left
on, each with the sequence that turns it off, by comparing the terminal's
state with the state of a terminal nobody has written to.

What counts, and why: every mode a full-screen or line-editing program
turns on for itself and must turn off on its way out (ncurses' ``rmcup``,
``cnorm``, ``rmkx``; prompt_toolkit's and crossterm's cleanup): the
alternate screen, the cursor's visibility, mouse tracking, bracketed paste,
focus events, application cursor keys and keypad, synchronized output, the
kitty keyboard flags and modifyOtherKeys, scrolling and left/right margins,
origin, insert and reverse-video modes, autowrap, an open OSC 8 link and the
text attributes; and, where the profile's terminal offers them, SGR-pixel
mouse reports, colour-scheme and in-band resize reports. The cursor's shape
and the title are left out: terminals and shells reset those themselves,
and programs rarely restore them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pyte import modes as mo

from ..screen.screen import TermScreen

#: The extra fields of a pen start here (``sgr.EXTRA``: sgr imports the screen).
_LINK = -1


@dataclass(frozen=True, slots=True)
class Leftover:
    """Something a program left on: what it is, the sequence that turns it
    off, and when the program turned it on (the session's time and output
    byte, when known: modes are followed, attributes and margins are not)."""

    key: str
    what: str
    undo: str
    t: float | None = None
    at: int | None = None

    def describe(self) -> str:
        """In words, for a failure: what, how to undo it, since when."""
        when = f", on since {self.t:.3f} s" if self.t is not None else ""
        return f"{self.what} (undone by {self.undo}{when})"


#: Private modes that are off in a fresh terminal: key, words, mode.
_PRIVATE_OFF: tuple[tuple[str, str, int], ...] = (
    ("mouse-x10", "mouse tracking (X10, mode 9)", 9),
    ("mouse-normal", "mouse tracking (clicks, mode 1000)", 1000),
    ("mouse-button", "mouse tracking (drags, mode 1002)", 1002),
    ("mouse-any", "mouse tracking (all motion, mode 1003)", 1003),
    ("bracketed-paste", "bracketed paste (mode 2004)", 2004),
    ("focus-events", "focus events (mode 1004)", 1004),
    ("application-cursor", "application cursor keys (DECCKM, mode 1)", 1),
    ("synchronized-output", "a synchronized update left open (mode 2026)", 2026),
    ("left-right-margins", "left and right margin mode (DECLRMM, mode 69)", 69),
    ("reverse-video", "reverse video (DECSCNM, mode 5)", 5),
    ("origin", "origin mode (DECOM, mode 6)", 6),
    ("mouse-sgr", "SGR mouse encoding (mode 1006)", 1006),
    ("mouse-urxvt", "urxvt mouse encoding (mode 1015)", 1015),
    ("mouse-utf8", "UTF-8 mouse encoding (mode 1005)", 1005),
)
#: Private modes only some profiles' terminals offer (``profiles.py``):
#: left on only where the terminal would have kept them.
_OFFERED_OFF: tuple[tuple[str, str, int], ...] = (
    ("mouse-sgr-pixels", "SGR-pixel mouse encoding (mode 1016)", 1016),
    ("colour-scheme-reports", "colour-scheme reports (mode 2031)", 2031),
    ("inband-resize-reports", "in-band resize reports (mode 2048)", 2048),
)
#: The mouse encodings matter only while tracking is on.
_ENCODINGS = {"mouse-sgr", "mouse-urxvt", "mouse-utf8", "mouse-sgr-pixels"}
_TRACKING = {"mouse-x10", "mouse-normal", "mouse-button", "mouse-any"}


def _checks() -> dict[str, tuple[str, str, Callable[[TermScreen], bool]]]:
    """Every leftover's key -> its words, its undo, and whether it is on."""
    checks: dict[str, tuple[str, str, Callable[[TermScreen], bool]]] = {
        "alternate-screen": ("the alternate screen", "ESC[?1049l", lambda s: s.alternate),
        "cursor-hidden": ("the cursor hidden (DECTCEM)", "ESC[?25h",
                          lambda s: bool(s.cursor.hidden)),
        "application-keypad": ("application keypad (DECKPAM)", "ESC >",
                               lambda s: s.application_keypad),
        "kitty-keyboard": ("kitty keyboard flags pushed", "ESC[<u",
                           lambda s: any(s.kitty_keyboard)),
        "modify-other-keys": ("modifyOtherKeys", "ESC[>4m",
                              lambda s: s.modify_other_keys != 0),
        "scrolling-region": ("a scrolling region (DECSTBM)", "ESC[r",
                             lambda s: s.margins is not None
                             and (s.margins.top, s.margins.bottom) != (0, s.lines - 1)),
        "insert": ("insert mode (IRM)", "ESC[4l", lambda s: mo.IRM in s.mode),
        "autowrap-off": ("autowrap off (DECAWM)", "ESC[?7h", lambda s: mo.DECAWM not in s.mode),
        "link-open": ("an OSC 8 link left open", "ESC]8;;ESC\\",
                      lambda s: len(s.cursor.attrs) > 9 and bool(s.cursor.attrs[_LINK])),
        "attributes": ("text attributes not reset (SGR)", "ESC[0m", _pen_not_default),
    }
    for key, words, mode in _PRIVATE_OFF:
        checks[key] = (words, f"ESC[?{mode}l", _private_on(mode))
    for key, words, mode in _OFFERED_OFF:
        checks[key] = (words, f"ESC[?{mode}l", _private_on(mode, offered=True))
    return checks


def _private_on(mode: int, *, offered: bool = False) -> Callable[[TermScreen], bool]:
    shifted = mode << 5
    if offered:
        return lambda s: shifted in s.mode and s.offers(mode)
    return lambda s: shifted in s.mode


def _pen_not_default(screen: TermScreen) -> bool:
    pen = screen.cursor.attrs
    # Colours and flags, not the link (its own leftover) nor DECSCA.
    plain = tuple(pen[1:9])
    extra: tuple[object, ...] = tuple(pen[9:-1]) if len(pen) > 9 else ()
    return plain != tuple(screen.default_char[1:9]) or any(
        value not in ("", "default", False) for value in extra)


CHECKS = _checks()


def modes_on(screen: TermScreen) -> frozenset[str]:
    """The keys of the leftovers on now."""
    on = {key for key, (_, _, check) in CHECKS.items() if check(screen)}
    if not on & _TRACKING:
        on -= _ENCODINGS
    return frozenset(on)


def leftovers(screen: TermScreen,
              since: Mapping[str, tuple[float | None, int]]) -> list[Leftover]:
    """What is on now that a fresh terminal has off, in :data:`CHECKS`
    order; ``since``: when each key last turned on, where known."""
    on = modes_on(screen)
    out = []
    for key, (words, undo, _) in CHECKS.items():
        if key in on:
            t, at = since.get(key, (None, None))
            out.append(Leftover(key, words, undo, t, at))
    return out
