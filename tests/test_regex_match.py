"""The screen a wait returns carries what it found, as pexpect's ``match`` does.

``screen = await term.wait_for(Regex(r"total: (?P<n>\\d+)"))`` gives
``screen.match.group("n")``, the groups as :class:`re.Match` reads them, and
where each is on the screen (``where``, ``row``, ``col``), in screen columns;
for ``a | b``, ``screen.matched`` says which side held. Each scenario runs on
a real program in a PTY, recorded, then on the replay of that recording: the
same engine must give the same answers. Taking a match must leave snapshots
the values they were (equal, hashed alike, immutable).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from conftest import program

import termsim
from termsim import Driver, InputReady, Quiet, Regex, Region, Sequence, Text
from termsim.emulator.snapshot.matches import Place
from termsim.emulator.terminal.terminal import Terminal
from termsim.engine.predicates import Context, matched_screen

pytestmark = pytest.mark.anyio

#: tests/programs/match_report.py on a 40 x 10 screen: a report, a prompt
#: with the cursor after its blank; after Enter, 30 rows that scroll the
#: report away, and the prompt again.
REPORT = program("match_report.py")


async def report(term: Driver) -> list[Any]:
    """Every wait of the scenario, and what its screen says it found."""
    seen: list[Any] = []

    # Groups, numbered and named, as re.Match reads them; where they are.
    total = Regex(r"total: (?P<n>\d+) (\w+)")
    screen = await term.wait_for(total, timeout=10)
    m = screen.match
    assert m is not None and m.predicate is total
    assert m.group("n") == m["n"] == m.group(1) == "42"
    assert m.group() == "total: 42 items" and m.group(1, 2) == ("42", "items")
    assert m.groups() == ("42", "items") and m.groupdict() == {"n": "42"}
    assert m.string[slice(*m.span("n"))] == "42" == m.string[m.start(1):m.end(1)]
    assert (m.row, m.col) == (1, 2)
    assert m.where() == Place(1, 2, 1, 17) and m.where("n") == Place(1, 9, 1, 11)
    assert screen.span(1, 9, 11) == "42"  # the place is the screen's own cells
    with pytest.raises(IndexError, match="no group named 'count'"):
        m.group("count")
    seen.append((m.groups(), m.where(), m.where("n")))

    # Columns are the screen's: a wide character takes two.
    name = Regex(r"名前: (\S+)")
    m = (await term.wait_for(name, timeout=10)).match
    assert m is not None and m.group(1) == "アナ"
    assert m.where(1) == Place(2, 6, 2, 10)
    seen.append((m.group(1), m.where(1)))

    # In a region, places are still the screen's, not the region's.
    ok = Regex(r"o(k)", region=Region.rect(3, 8, 4, None))
    m = (await term.wait_for(ok, timeout=10)).match
    assert m is not None and m.string == "ok" and m.where() == Place(3, 8, 3, 10)
    seen.append((m.string, m.where(), m.where(1)))

    # The cursor's row read up to the cursor: the blank before it is matched.
    prompt = Regex(r"^>>> $")
    screen = await term.wait_for(prompt & InputReady(), timeout=10)
    m = screen.match
    assert m is not None and m.string.split("\n")[4] == ">>> "
    assert m.where() == Place(4, 0, 4, 4) == (4, 0, screen.cursor.row, screen.cursor.col)
    seen.append(m.where())

    # a | b: which side held, by the predicates the test wrote.
    error = Text("error")
    either = error | total
    screen = await term.wait_for(either, timeout=10)
    assert screen.matched[0] is either
    assert total in screen.matched and error not in screen.matched
    assert screen.match is not None and screen.match.predicate is total

    # a & b: both matches, in the predicate's order.
    status = Regex(r"status: (\w+)")
    screen = await term.wait_for(total & status, timeout=10)
    assert [(m.predicate, m.group(1)) for m in screen.matches] == [(total, "42"), (status, "ok")]
    assert screen.match is screen.matches[0]

    # The transcript: the text drawn since the mark, scrolled-off rows too;
    # it is no place on the screen, so the match has none.
    mark = await term.type("go\n")
    third = Regex(r"line 3: (\w+)", region=Region.transcript())
    quiet = Quiet(0.05)
    settled = Text("done in") & quiet  # a Quiet is copied for each wait
    screen = await term.wait_for(third & settled & CursorPrompt, since=mark, timeout=10)
    m = screen.match
    assert m is not None and m.predicate is third and m.group(1) == "word3"
    assert m.row is None and m.col is None and m.where(1) is None
    assert "line 30: word30" in m.string
    assert all(p in screen.matched for p in (third, quiet, CursorPrompt))
    seen.append((m.group(1), m.where()))
    last = screen.matches[1]
    assert last.group() == "done in" and last.row == 8  # the 10-row screen has scrolled
    seen.append(last.where())

    # The match is what the wait found, not part of the screen: the screen
    # now (the program waits, drawing nothing) is equal, and hashes alike.
    now = term.screen
    assert now.match is None and now.matches == () and now.matched == ()
    assert screen == now and hash(screen) == hash(now) and {screen: 1}[now] == 1
    with pytest.raises(AttributeError):
        screen.match = None  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.string = ""  # type: ignore[misc]

    await term.type("bye\n")
    assert await term.wait_exit(timeout=10) == 0
    return seen


#: The prompt drawn after the long output (its cursor after ``>>> `` on row 9).
CursorPrompt = Regex(r"done in \d+ ms\n>>> $")


async def test_a_wait_gives_back_its_match_live_and_in_the_replay(tmp_path: Path) -> None:
    path = tmp_path / "report.tsr"
    async with termsim.spawn(REPORT, cols=40, rows=10, record=path) as term:
        live = await report(term)
    async with termsim.replay(path) as replayed:
        again = await report(replayed)
    assert again == live


async def test_the_returned_screen_is_a_copy_the_terminal_s_own_has_no_match() -> None:
    # Two waits that return the same screen each get their own answer.
    async with termsim.spawn(program("nbsp_prompt.py"), record=False) as term:
        first = Regex(r"❯")
        second = Text("❯")
        a = await term.wait_for(first & InputReady(), timeout=10)
        b = await term.wait_for(second, timeout=10)
        assert a == b and a.generation == b.generation
        assert a.match is not None and a.match.predicate is first
        assert b.match is not None and b.match.predicate is second
        assert term.screen.match is None
        await term.press("ctrl+d")
        await term.wait_exit(timeout=10)


def test_a_sequence_s_match_is_its_last_stage_s_on_the_screen_that_completed_it() -> None:
    # The engine's own steps, on screens fed by hand: the stages before the
    # last held on earlier screens, so only the last one's match is this
    # screen's; the Sequence itself is among the parts that held.
    term = Terminal(30, 4)
    first, last = Text("working"), Regex(r"done in (\d+) ms")
    steps = Sequence(first, last)
    wait = steps.fresh()  # what a wait evaluates: a copy with its own memory
    term.feed(b"working")
    assert not wait.check(term.screen, Context(0.0, None))
    term.feed(b"\r\ndone in 7 ms")
    ctx = Context(0.0, None)
    assert wait.check(term.screen, ctx)
    screen = matched_screen(wait, term.screen, ctx)
    assert screen.matched == (steps, last)  # named as written, not as the wait's copy
    assert screen.match is not None and screen.match.group(1) == "7"
    assert screen.match.where(1) == Place(1, 8, 1, 9)
