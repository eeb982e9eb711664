"""``termsim codegen`` on screens laid out by the program: panes side by side
(tmux's vertical split, boxes drawn in line-drawing characters), a
prompt_toolkit completion menu, and a key that changes the program's mode
before text is typed (vim's ``i``, a small modal editor's). Each generated
test passes live three times, on replay of its own recording and under
shake (``test_codegen._check_generated``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import program
from helpers import recorded
from test_codegen import Script, _check_generated

import termsim
from termsim import CursorAfter, InputReady, Text
from termsim.codegen import generate
from termsim.codegen.panes import Layout, Pane, strokes


def _recorded(path: Path, argv: list[str], script: Script) -> Path:
    """``argv`` recorded to ``path`` while ``script`` drives it."""
    import anyio

    anyio.run(recorded, argv, path, script)
    return path

# -- panes, read from the screen ------------------------------------------------------


def _screen(text: str, cols: int = 40) -> termsim.Snapshot:
    lines = text.strip("\n").split("\n")
    terminal = termsim.emulator.Terminal(cols, len(lines))
    terminal.feed("\r\n".join(lines).encode())
    return terminal.screen


def test_line_drawing_characters_say_where_their_strokes_go() -> None:
    assert strokes("│") == {"up", "down"} and strokes("┌") == {"down", "right"}
    assert strokes("╠") == {"up", "down", "right"} and strokes("╭") == {"down", "right"}
    assert strokes("─") == {"left", "right"} and strokes("x") == strokes("╱") == set()


def test_panes_side_by_side_split_a_row_a_frame_around_the_screen_does_not() -> None:
    tmux = _screen("""
left one            │$ echo hi
left two            │hi
                    │$
                    ├───────────────────
                    │bottom right
""")
    layout = Layout(tmux)
    assert layout.split(1) and layout.segments(1) == [(0, 20), (21, 40)]
    assert layout.pane(1, 21, 40) == Pane(0, 21, 3, 40)  # above the line from ├
    assert layout.pane(4, 21, 40) == Pane(4, 21, 5, 40)
    assert layout.pane(1, 0, 20) == Pane(0, 0, 5, 20)  # the whole height
    assert layout.pane(3, 21, 40) is None  # the line itself
    assert layout.pane_at(2, 23) == Pane(0, 21, 3, 40)
    boxes = _screen("""
┌─ files ─────────┐┌─ view ────────────┐
│ a.txt           ││ hello             │
│ b.txt           ││                   │
└─────────────────┘└───────────────────┘
status
""")
    layout = Layout(boxes)
    assert layout.pane(1, 1, 18) == Pane(1, 1, 3, 18)
    assert layout.pane(2, 20, 39) == Pane(1, 20, 3, 39)
    assert not layout.split(4)
    framed = _screen("""
┌──────────────────────────────────────┐
│ one frame around the whole screen    │
│ splits nothing                       │
└──────────────────────────────────────┘
""")
    assert not Layout(framed).split(1)
    # A lone bar in a line of text is no separator.
    assert not Layout(_screen("a │ b\nc\nd\n")).split(0)


def _tmux_like(*right: str) -> termsim.Snapshot:
    """Two panes, as tmux splits them: the right one holds ``right``."""
    terminal = termsim.emulator.Terminal(40, 6)
    for row in range(6):
        text = right[row] if row < len(right) else ""
        terminal.feed(f"\x1b[{row + 1};1Hclock {row}\x1b[{row + 1};21H│{text}".encode())
    terminal.feed(f"\x1b[{len(right)};{22 + len(right[-1])}H".encode())
    return terminal.screen


def test_an_answer_in_a_pane_is_awaited_in_its_row_where_its_echo_holds_it_too() -> None:
    from termsim.codegen.steps import Screen
    from termsim.codegen.waits import choose

    typed = _tmux_like("$ echo hi there")
    answered = _tmux_like("$ echo hi there", "hi there", "$ ")
    wait = choose(typed, [Screen(1.0, answered, True)], typed=False)
    assert wait is not None  # "hi there" in the pane: its echo would do
    assert wait.source == ("Text('hi there', region=Region.rect(1, 21, 2, 40)) "
                           "& CursorAfter('$ ') & InputReady()")
    answered = _tmux_like("$ echo $((6 * 7))", "42", "$ ")
    wait = choose(_tmux_like("$ echo $((6 * 7))"), [Screen(1.0, answered, True)], typed=False)
    assert wait is not None and wait.source.startswith(
        "Text('42', region=Region.rect(0, 21, 6, 40))")


@pytest.mark.parametrize(("left", "tail"), [
    ("❯ ", "❯ "),
    ("fruit> apricot", "fruit> apricot"),  # a word is not cut
    ("a very long sentence indeed", "sentence indeed"),
    ("abc supercalifragilistic end", "end"),  # a word too long to begin at
    ("x" * 30, ""),
])
def test_the_text_before_the_cursor_starts_at_a_word(left: str, tail: str) -> None:
    from termsim.codegen.waits import _cursor_text

    assert _cursor_text(left) == tail


# -- a prompt_toolkit completion menu ------------------------------------------------


async def _completion(term: termsim.Driver) -> None:
    await term.wait_for(CursorAfter("fruit> ") & InputReady(), timeout=30)
    await term.type("a")
    mark = await term.press("tab")  # the menu opens, nothing selected yet
    await term.wait_for(Text("avocado") & CursorAfter("fruit> a"), since=mark)
    mark = await term.press("down")
    await term.wait_for(CursorAfter("fruit> apple"), since=mark)
    mark = await term.press("down")
    await term.wait_for(CursorAfter("fruit> apricot"), since=mark)
    mark = await term.press("enter")  # picks the entry: the menu closes
    await term.wait_for(~Text("avocado") & CursorAfter("fruit> apricot"), since=mark)
    mark = await term.press("enter")
    await term.wait_for(Text("picked 'apricot'") & CursorAfter("fruit> "), since=mark)
    await term.press("ctrl+d")
    await term.wait_exit()


def test_a_completion_menu_opened_walked_and_picked(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    recording = _recorded(tmp_path / "complete.tsr", program("ptk_complete.py"), _completion)
    source = _check_generated(pytester, recording)
    assert 'Text("avocado", region=Region.row(3))' in source  # the menu, opened
    assert 'CursorAfter("fruit> apricot")' in source  # walked, a word not cut
    # Enter on the entry closes the menu: what it took away is awaited gone.
    assert '~Text("avocado", region=Region.row(3))' in source


# -- panes: a boxed program, tmux's vertical split -----------------------------------


async def _panes(term: termsim.Driver) -> None:
    await term.wait_for(Text("panes: ready"), timeout=30)
    for n in (1, 2):
        mark = await term.press("n")
        await term.wait_for(Text(f"count: {n}"), since=mark)
    await term.press("q")
    await term.wait_exit()


def test_text_in_a_boxed_pane_is_awaited_in_the_pane_not_the_row_through_both(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PANES_LUCKY", "17")
    recording = _recorded(tmp_path / "panes.tsr", program("panes.py"), _panes)
    source = generate(str(recording))
    # The row of the count holds the other pane's number too.
    assert 'Text("count: 1", region=Region.rect(1, 1, 21, 39))' in source
    assert "lucky number: 17" not in source and 'await term.press("n")' in source
    monkeypatch.setenv("PANES_LUCKY", "42")  # another run, another number
    _check_generated(pytester, recording)


def _tmux_argv(tmux: str, socket: Path) -> list[str]:
    """A tmux split in two: a shell on the left (typed into), on the right a
    pane whose first row changes from run to run; a window named (not after
    what runs in it, which changes when tmux looks), no status line, and keys
    typed fast are keys, not a paste (``assume-paste-time``)."""
    right = 'echo "lucky number: $PANES_LUCKY"; read line'
    return [tmux, "-S", str(socket), "-f", "/dev/null", "new-session", "-n", "split", "sh", ";",
            "set", "-g", "status", "off", ";", "set", "-g", "assume-paste-time", "0", ";",
            "split-window", "-h", right, ";", "select-pane", "-L"]


async def _tmux(term: termsim.Driver) -> None:
    await term.wait_for(CursorAfter("$ ") & Text("lucky number") & InputReady(), timeout=30)
    await term.type("clear; echo $((6 * 7)) left")
    mark = await term.press("enter")
    await term.wait_for(Text("42 left") & CursorAfter("$ "), since=mark)
    await term.press("ctrl+b")  # the prefix, then kill-window
    mark = await term.press("&")
    await term.wait_for(Text("(y/n)"), since=mark)
    await term.press("y")
    await term.wait_exit()


def test_a_shell_s_answer_in_a_tmux_pane_is_awaited_in_that_pane(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed")
    for name, value in {"HOME": str(tmp_path), "SHELL": "/bin/sh", "PS1": "$ ",
                        "PANES_LUCKY": "17"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("TMUX", raising=False)
    recording = _recorded(tmp_path / "tmux.tsr", _tmux_argv(tmux, tmp_path / "tmux.sock"), _tmux)
    source = generate(str(recording))
    # The answer's row runs on into the right pane, whose number varies.
    assert 'Text("42 left", region=Region.rect(0, 0, 24, 40))' in source
    assert "lucky number: 17" not in source and 'CursorAfter("$ ")' in source
    # The prefix is a key; "&" opens tmux's prompt, a key of its own too.
    assert 'press("ctrl+b")\n    mark = await term.press("&")' in source
    assert 'Text("kill-window split? (y/n)", region=Region.row(-1))' in source
    monkeypatch.setenv("PANES_LUCKY", "42")
    _check_generated(pytester, recording)


# -- a key that changes the mode, then typed text --------------------------------------


async def _modal(term: termsim.Driver) -> None:
    await term.wait_for(Text("q: quit") & InputReady(), timeout=30)
    mark = await term.press("i")
    await term.wait_for(Text("-- INSERT --"), since=mark)
    for key in "hello":  # key by key, as a person types: only echoed
        await term.press(key)
    await term.wait_for(CursorAfter("hello"))
    mark = await term.press("escape")
    await term.wait_for(~Text("-- INSERT --"), since=mark)
    # "i" and the text in one write: the program had no time to react.
    mark = await term.type("i, bye")
    await term.wait_for(Text("-- INSERT --") & CursorAfter("hello, bye"), since=mark)
    mark = await term.press("escape")
    await term.wait_for(~Text("-- INSERT --"), since=mark)
    mark = await term.press("x")
    await term.wait_for(CursorAfter("hello, by") & InputReady(), since=mark)
    await term.press("q")
    await term.wait_exit()


def test_a_key_the_program_reacted_to_is_pressed_and_the_text_after_it_typed(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    recording = _recorded(tmp_path / "modal.tsr", program("modal.py"), _modal)
    source = _check_generated(pytester, recording)
    assert source == generate(str(recording))
    steps = [line.strip() for line in source.splitlines() if "await term." in line
             and "wait_for" not in line]
    assert steps[:-2] == [
        'mark = await term.press("i")',
        'await term.type("hello")',
        'mark = await term.press("escape")',
        'mark = await term.type("i, bye")',  # faithful: as it was sent
        'mark = await term.press("escape")',
        'mark = await term.press("x")',
    ], source
    # "q" ends the program: a press where its read was reported before the
    # end, else the text it was sent as.
    assert steps[-2:] in (['await term.press("q")', "assert await term.wait_exit() == 0"],
                          ['await term.type("q")', "assert await term.wait_exit() == 0"])
    assert 'Text("-- INSERT --", region=Region.row(-1))' in source
