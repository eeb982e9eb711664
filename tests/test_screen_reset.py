"""RIS (``ESC c``) puts back every field of the screen a program can change.

A terminal fed a stream that touches every kind of state (the cursor saved
per buffer, the alternate screen, margins, modes, the kitty keyboard stack,
modifyOtherKeys, titles pushed, the palette, XTSAVE'd modes, DECSCA, a
mark after BS, charsets, the cursor's shape) and then RIS must equal a
fresh one field by field, but for the fields listed below with why.
A field added to the screen and forgotten in ``reset`` fails this test.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path
from typing import Any

import pyte

import termsim.emulator
from termsim.emulator import Terminal
from termsim.emulator.screen.state import ScreenState

#: Fields RIS keeps, and why: what the terminal was made with (its profile,
#: TERM, cell size, emulation choices, the callback of its Terminal), what
#: scrolled off (a transcript reads it: xterm's RIS keeps its saved lines
#: too), and what the Terminal reads and clears itself (``dirty``).
KEPT = {"profile", "term_name", "cell_size", "backspace_past_edge", "reflow", "graphemes",
        "index_ends_wrap", "lines_home", "alternate_cursor", "column_mode_clears",
        "on_inband_resize", "history", "scrolled", "shifted", "dirty"}

#: What the screen keeps only to draw faster (each checked against what it
#: stands for before use, so its contents never change what is drawn).
CACHES = {"_blank_text", "_segments", "_glyphs", "_blanks", "_single"}

#: Touches every kind of state, then the cursor moves away from its BS.
STREAM = (b"ab\x1b7\x1b[?1049h\x1b[2;4r\x1b[?69h\x1b[2;10s\x1b[?6h\x1b[4h\x1b[>1u"
          b"\x1b[>4;2m\x1b[22;0t\x1b]4;1;rgb:11/22/33\x07\x1b[?2004s\x1b[1\"q\x1b(0x"
          b"\x1b[5 q\x1b=hello\x08\xcc\x81\x1b[1$}\x1b[?25l\x1b[?1000h" + b"y" * 50)


def _plain(value: Any) -> Any:
    """A value made comparable: rows and dicts by content, objects by fields."""
    if isinstance(value, pyte.screens.Cursor):
        return (value.x, value.y, value.attrs, value.hidden)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        return [_plain(v) for v in value]
    if hasattr(value, "__dict__") and not callable(value):
        return {k: _plain(v) for k, v in vars(value).items()}
    return value


def test_ris_restores_every_field_a_program_can_change() -> None:
    fresh = Terminal(20, 5)._screen
    used = Terminal(20, 5)
    used.feed(STREAM)
    assert used.screen.alternate and used.screen.modes.bracketed_paste is False  # it took
    used.feed(b"\x1bc")
    screen = used._screen
    assert set(vars(screen)) == set(vars(fresh))
    differ = [name for name in sorted(vars(fresh)) if name not in KEPT | CACHES
              and _plain(getattr(fresh, name)) != _plain(getattr(screen, name))]
    assert differ == []


def _assigned(function: Any) -> set[str]:
    """The ``self.<name>`` fields a method assigns, read from its source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return {target.attr for node in ast.walk(tree) if isinstance(node, ast.Assign | ast.AnnAssign)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            and target.value.id == "self"}


def test_every_field_is_declared_in_one_place() -> None:
    """What a program can change is declared once (``ScreenState``'s
    annotations) and set in one method (``reset_state``, which RIS runs);
    what the screen is made with is set in ``__init__``; the rest is pyte's
    own. A field set anywhere else (a concern's module, the Terminal after
    construction) is in none of these and fails here."""
    declared = set(ScreenState.__annotations__)
    assert _assigned(ScreenState.reset_state) == declared
    made_with = _assigned(ScreenState.__init__)
    assert not made_with & declared
    pyte_own = set(vars(pyte.Screen(2, 2)))
    screen = Terminal(20, 5)._screen
    assert set(vars(screen)) == declared | made_with | pyte_own
    used = Terminal(20, 5)
    used.feed(STREAM)
    assert set(vars(used._screen)) == set(vars(screen))


def test_the_terminal_acts_on_its_screen_through_methods() -> None:
    """The modules above the screen (the dispatcher, the terminal, the
    answers, snapshots) never assign a field of it: each change is a method
    of the screen, which owns its state (``s.x = ...`` once reached into it
    from the dispatcher, and the terminal pushed seven fields in)."""
    root = Path(termsim.emulator.__file__).parent
    found = []
    for package in ("terminal", "answers", "snapshot", "input", "signals"):
        for path in sorted((root / package).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                targets = (node.targets if isinstance(node, ast.Assign)
                           else [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign)
                           else [])
                for target in targets:
                    if isinstance(target, ast.Attribute) and _names_the_screen(target.value):
                        found.append(f"{package}/{path.name}:{node.lineno}: {ast.unparse(target)}")
    assert found == []


def _names_the_screen(value: ast.expr) -> bool:
    """``s``, ``screen``, ``self.s``, ``self._screen`` (how these modules name it)."""
    if isinstance(value, ast.Name):
        return value.id in ("s", "screen")
    return isinstance(value, ast.Attribute) and value.attr in ("s", "_screen", "screen")
