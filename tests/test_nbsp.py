"""A no-break space (U+00A0) reads as a space: ink's prompt is ``❯\\xa0``.

ink apps (Claude Code, Gemini CLI) draw ``❯`` and a no-break space as their
prompt, which looks exactly like ``❯ ``, so ``CursorAfter("❯ ")``, ``Text``
and ``Regex`` match it. A failed wait still shows the screen's own
characters, ``'❯\\xa0'``, and says that U+00A0 was read as a space. Each
scenario runs on a real program in a PTY (tests/programs/nbsp_prompt.py,
and tests/programs/inkapp.py, drawn as ink draws), then on its replay.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import inherited_env, program

import termsim
from termsim import CursorAfter, Driver, InputReady, Regex, Region, Text, WaitTimeout
from termsim.emulator.snapshot.matches import Place

pytestmark = pytest.mark.anyio

PROMPT = CursorAfter("❯ ") & InputReady()


async def prompt_session(term: Driver) -> list[object]:
    """A turn at the ``❯\\xa0`` prompt; what the waits found."""
    seen: list[object] = []
    screen = await term.wait_for(PROMPT, timeout=10)
    assert screen.span(0, 0, 2) == "❯\xa0"  # the screen has the program's character

    mark = await term.type("hi")
    hi = Text("❯ hi")
    m = (await term.wait_for(hi, since=mark, timeout=10)).match
    # The match needed U+00A0 read as a space; its text is the screen's.
    assert m is not None and m.nbsp and m.group() == "❯\xa0hi"
    assert m.where() == Place(0, 0, 0, 4)
    seen.append((m.group(), m.nbsp, m.where()))

    mark = await term.press("enter")
    screen = await term.wait_for(Text("you said: hi") & PROMPT, since=mark, timeout=10)
    assert screen.cursor.row == 2
    # The cursor's row read up to the cursor: the no-break space is its blank.
    m = (await term.wait_for(Regex(r"^❯ $"), timeout=10)).match
    assert m is not None and m.nbsp and m.where() == Place(2, 0, 2, 2)
    # A pattern that says U+00A0 matches it as it is.
    m = (await term.wait_for(Regex("^❯\xa0$"), timeout=10)).match
    assert m is not None and not m.nbsp and m.group() == "❯\xa0"
    # And text given with one matches a plain space, as it looks the same.
    assert (await term.wait_for(Text("said:\xa0hi"), timeout=10)).match is not None
    seen.append(m.where())

    await term.press("ctrl+d")
    assert await term.wait_exit(timeout=10) == 0
    return seen


async def test_cursor_after_a_space_matches_a_no_break_space_live_and_replayed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "nbsp.tsr"
    async with termsim.spawn(program("nbsp_prompt.py"), record=path) as term:
        live = await prompt_session(term)
    async with termsim.replay(path) as replayed:
        again = await prompt_session(replayed)
    assert again == live


async def test_a_failed_wait_shows_the_no_break_space_and_says_how_it_was_read() -> None:
    async with termsim.spawn(program("nbsp_prompt.py"), record=False) as term:
        await term.wait_for(PROMPT, timeout=10)
        await term.type("hello")
        await term.wait_for(CursorAfter("❯ hello"), timeout=10)
        with pytest.raises(WaitTimeout) as cursor:
            await term.wait_for(CursorAfter("❯ help"), timeout=0.2)
        with pytest.raises(WaitTimeout) as text:
            await term.wait_for(Text("❯ hellp"), timeout=0.2)
        await term.press("ctrl+d")
        await term.wait_exit(timeout=10)
    message = str(cursor.value)
    assert r"'❯\xa0hello'" in message, message
    assert "U+00A0 (no-break space) reads as a space" in message, message
    message = str(text.value)
    assert r"closest: '❯\xa0hello' on row 0 (1 edit away)" in message, message
    assert "U+00A0, a no-break space, read as a space" in message, message


async def test_an_ink_app_s_prompt_is_waited_for_as_it_looks(tmp_path: Path) -> None:
    # inkapp draws its input box as ink does: ``│ ❯\xa0<line>`` and its own
    # cursor (the terminal's is hidden), redrawing the whole frame each time.
    env = {**inherited_env(), "INKAPP_SETTLE": "0"}
    path = tmp_path / "ink.tsr"
    async with termsim.spawn(program("inkapp.py"), env=env, cols=40, rows=12,
                             record=path) as term:
        await term.wait_for(Text("Enter to confirm") & InputReady(), timeout=10)
        mark = await term.press("enter")
        box = Regex(r"│ ❯ (\S*)", region=Region.rows(0, -2))
        await term.wait_for(box, since=mark, timeout=10)
        mark = await term.type("hello")
        screen = await term.wait_for(Regex(r"│ ❯ (hello)"), since=mark, timeout=10)
        m = screen.match
        assert m is not None and m.nbsp and m.group() == "│ ❯\xa0hello"
        place = m.where(1)
        assert place is not None and screen.span(place.row, place.col, place.end_col) == "hello"
        live = (m.group(1), m.where(1))
        await term.press("ctrl+c")
        await term.press("ctrl+c")
        assert await term.wait_exit(timeout=10) == 0
    async with termsim.replay(path) as replayed:
        await replayed.wait_for(Text("Enter to confirm") & InputReady(), timeout=10)
        mark = await replayed.press("enter")
        await replayed.wait_for(box, since=mark, timeout=10)
        mark = await replayed.type("hello")
        m = (await replayed.wait_for(Regex(r"│ ❯ (hello)"), since=mark, timeout=10)).match
        assert m is not None and (m.group(1), m.where(1)) == live
        await replayed.press("ctrl+c")
        await replayed.press("ctrl+c")
        await replayed.wait_exit(timeout=10)
