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
    """

    backspace_at_wrap: Literal["xterm", "tmux"] = "xterm"

    def __post_init__(self) -> None:
        if self.backspace_at_wrap not in ("xterm", "tmux"):
            raise ValueError(
                f'backspace_at_wrap is "xterm" or "tmux", not {self.backspace_at_wrap!r}')

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
