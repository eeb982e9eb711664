"""What a program said outside the cells, as the reports show it: ``termsim
info``, the HTML timeline (links made real links), the film strip of a
failed wait, SVG screenshots and asciicast exports.

The recordings are made by driving real programs (``tests/programs/signals.py``,
and bash with a prompt that writes shell-integration marks); every report
reads the signals back from the recorded output, as a replay does.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import anyio
import pytest
from conftest import inherited_env, program
from test_html import CHROMIUM, Page, data_of, dump_dom

import termsim
from termsim import InputReady, Text
from termsim.cli import main
from termsim.emulator import Terminal
from termsim.engine.film import Film
from termsim.files import Playback, Recording
from termsim.report.html import recording_html
from termsim.report.info import said_outside_the_cells
from termsim.report.svg import snapshot_svg

KEYS = "blcntik"


async def _drive_signals(path: Path) -> None:
    async with termsim.spawn(program("signals.py"), record=path) as term:
        await term.wait_for(Text("ready> ") & InputReady())
        for key in KEYS + "b":
            mark = await term.press(key)
            await term.wait_for(Text(f"done {key}") & InputReady(), since=mark)
            if key == "t":  # "idle" comes in a write of its own, after "done t"
                await term.wait_for(termsim.Title("idle"), since=mark)
        await term.press("q")
        assert await term.wait_exit() == 0


@pytest.fixture(scope="module")
def said(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """A recording of tests/programs/signals.py answering every key, and
    the bell once more at the end."""
    path = tmp_path_factory.mktemp("said") / "said.tsr"
    anyio.run(_drive_signals, path)
    return Recording.open(path)


def info(capsys: pytest.CaptureFixture[str], path: Path | str) -> str:
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    return out


def section(out: str) -> list[str]:
    """The lines of ``termsim info``'s section on signals."""
    lines = out.splitlines()
    start = lines.index("said outside the cells:")
    end = lines.index("longest silences:")
    return lines[start + 1:end]


# -- termsim info ---------------------------------------------------------------------


def test_info_says_what_the_program_said_outside_the_cells(
    said: Recording, capsys: pytest.CaptureFixture[str],
) -> None:
    end = Playback(said).screen_at()
    bells = [f"{b.t:.3f} s" for b in end.bells]
    title_at = f"{end.signals.titles[0].t:.3f} s"
    link_at = f"{next(e.t for e in said.events if b'done l' in getattr(e, 'data', b'')):.3f} s"
    lines = section(info(capsys, said.path))
    assert lines[:3] == ["  titles:        2, the last 'idle'",
                         f"      {title_at}  title 'working'",
                         f"      {end.signals.titles[1].t:.3f} s  title 'idle'"]
    assert lines[3] == f"  bells:         2, the first at {bells[0]}, the last at {bells[1]}"
    assert lines[4:6] == ["  links:         1 link shown",
                          f"      {link_at}  'the docs' -> https://example.org/docs"]
    assert lines[6:8] == ["  clipboard:     1 write",
                          f"      {end.clipboard[0].t:.3f} s  clipboard c set to 'hello'"]
    notes = end.notifications
    assert lines[8:11] == [
        "  notifications: 2",
        f"      {notes[0].t:.3f} s  notification 'Build: finished' (OSC 777)",
        f"      {notes[1].t:.3f} s  notification 'all done' (OSC 9)"]
    assert lines[11:] == ["  images:        2: sixel x1 (14 bytes, 4x6), kitty x1 (8 bytes, 8x4)"]


def test_info_says_nothing_of_signals_when_there_were_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = Path(__file__).resolve().parent.parent / "recordings"
    # boot-hang's program names its window once: no change, nothing to say
    # (the README's sample of this report is compared byte for byte).
    assert Playback(root / "boot-hang.tsr").screen_at().title == "agent-repl"
    for name in ("boot-hang.tsr", "passing.tsr", "cpr-starvation.tsr"):
        assert "said outside the cells" not in info(capsys, root / name)


def test_info_lines_for_each_kind_fed_by_hand() -> None:
    term = Terminal(20, 4)
    term.feed(b"\x1b]1;one\x07\x1b]1;two\x07"  # icon names
              b"\x1b]52;c;" + base64.b64encode(b"x" * 500) + b"\x07"
              b"\x1b]133;A\x07"  # a prompt, no command
              b"\x1b]1337;File=inline=1;width=3:AAAA\x07\x1b]1337;File=inline=1:AA\x07",
              t=0.5)
    lines = said_outside_the_cells(term.screen.signals, {})
    assert lines[0] == "said outside the cells:"
    assert "  icon names:    2, the last 'two'" in lines
    clipboard = lines[lines.index("  clipboard:     1 write") + 1]
    assert clipboard.startswith("      0.500 s  clipboard c set to 'xxx")
    assert clipboard.endswith("…")
    assert len(clipboard) < 130
    assert "  shell marks:   1, no command run" in lines
    assert lines[-1] == "  images:        2: iterm2 x2 (6 bytes, 3x?)"
    assert said_outside_the_cells(Terminal(5, 1).screen.signals, {}) == []


BASHRC = r"""
PS1='\[\e]133;A\e\\\]$ \[\e]133;B\e\\\]'
PS0='\e]133;C\e\\'
PROMPT_COMMAND='printf "\e]133;D;%s\a\e]7;file://host%s\a" "$?" "$PWD"'
"""


async def _drive_bash(bash: str, home: Path, path: Path) -> None:
    env = {**inherited_env(), "HOME": str(home), "PS1": "$ "}
    async with termsim.spawn([bash, "--noprofile", "--rcfile", str(home / "rc"), "-i"],
                             env=env, cols=60, rows=8, record=path, cwd=str(home)) as term:
        await term.wait_for(Text("$ ") & InputReady())
        for line, status in [("true", 0), ("false", 1), ("(exit 3)", 3), ("cd sub", 0)]:
            mark = await term.type(line + "\n")
            await term.wait_for(termsim.CommandFinished(status=status), since=mark)
        await term.type("exit 0\n")
        assert await term.wait_exit() == 0


def test_info_counts_a_shell_s_commands_and_its_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    (tmp_path / "rc").write_text(BASHRC)
    (tmp_path / "sub").mkdir()
    anyio.run(_drive_bash, bash, tmp_path, tmp_path / "bash.tsr")
    lines = section(info(capsys, tmp_path / "bash.tsr"))
    assert f"  directory:     {str(tmp_path / 'sub')!r} (5 changes)" in lines
    # ``exit 0`` started (its C mark) and never finished: bash was gone.
    assert ("  commands:      5, exit statuses 0 x2, 1 x1, 3 x1; the last still running"
            in lines)


# -- the HTML timeline ------------------------------------------------------------------


def test_signals_are_marks_on_the_timeline_and_lines_in_the_list(said: Recording) -> None:
    page = Page(recording_html(said))
    end = Playback(said).screen_at()
    ticks = [a for t, a in page.elements if t == "div" and "signal" in (a.get("class") or "")]
    assert [(a["class"], a["title"]) for a in ticks] == [
        ("tick signal " + kind, "said: " + s.describe()) for s, kind in zip(
            end.signals.all(),
            ["bell", "clipboard", "notification", "notification", "title", "title", "image",
             "image", "bell"], strict=True)]
    assert [float(str(a["data-t"])) for a in ticks] == pytest.approx(
        [s.t for s in end.signals.all()], abs=1e-6)
    events = page.text_of("events")
    assert "said: title 'working'" in events and "said: kitty image (8 bytes, 8x4)" in events
    # In the list, each after the key that caused it and before the next key.
    order = [line.split(" s ", 1)[1] for line in events.strip().splitlines()]
    assert order.index("key b: b") < order.index("said: bell") < order.index("key l: l")
    assert order.index("said: title 'working'") > order.index("key t: t")
    assert order.index("said: title 'idle'") < order.index("key i: i")


def test_a_linked_cell_is_a_link_in_the_page_data(said: Recording) -> None:
    data = data_of(Page(recording_html(said)))
    assert data["links"] == ["https://example.org/docs"]
    linked = [run for row in data["rows"] if not isinstance(row, str) for run in row
              if len(run) > 2]
    assert linked and {run[0] for run in linked} == {"the docs"} and {run[2] for run in linked} \
        == {0}


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")
def test_a_linked_cell_is_a_real_link_in_the_browser(said: Recording, tmp_path: Path) -> None:
    page = tmp_path / "said.html"
    page.write_text(recording_html(said), encoding="utf-8")
    dom = dump_dom(page, tmp_path / "profile")
    links = [a for tag, a in dom.elements if tag == "a"]
    assert links == [{"href": "https://example.org/docs", "rel": "noopener noreferrer",
                      "target": "_blank", "title": "https://example.org/docs"}]
    assert "the docs" in dom.text_of("screen")


# -- the film strip ----------------------------------------------------------------------


def test_the_film_strip_says_what_each_screen_came_with() -> None:
    term = Terminal(20, 4)
    film = Film()
    term.feed(b"ready", t=0.0)
    film.screen(0.0, term.screen)
    film.input(0.1, "key b", term.screen.generation)
    term.feed(b"\x07\x07\x07", t=0.2)  # rung three times: no cell changed
    film.screen(0.2, term.screen)
    term.feed(b"\x1b]2;working\x07\r\nbusy", t=0.3)
    film.screen(0.35, term.screen)
    strip = film.strip(0.15)
    assert strip.splitlines() == [
        "  what happened during the wait (seconds from its start):",
        "      -0.050 s  sent key b",
        "      +0.050 s  bell (x3)",
        # In time order: the title came before the screen that showed it.
        "      +0.150 s  title 'working'",
        "      +0.200 s  screen (1 row changed, cursor to row 1, col 4)",
        "                1 │busy",
    ]


def test_the_film_strip_leaves_out_what_came_before_the_input() -> None:
    term = Terminal(20, 4)
    film = Film()
    term.feed(b"\x07" + b"\x1b]777;notify;old;news\x07", t=0.0)
    film.screen(0.0, term.screen)
    film.input(0.1, "key x", term.screen.generation)
    term.feed(b"x", t=0.2)
    film.screen(0.2, term.screen)
    strip = film.strip(0.15)
    assert "bell" not in strip and "notification" not in strip
    # Many signals on one screen: a few lines, and how many more.
    term.feed(b"".join(b"\x1b]2;t%d\x07" % n for n in range(10)), t=0.3)
    film.screen(0.3, term.screen)
    strip = film.strip(0.15)
    assert "title 't5'" in strip and "title 't6'" not in strip
    assert strip.endswith("… 4 more signals")


async def _title_then_fail(term: termsim.Driver) -> str:
    await term.wait_for(Text("ready> ") & InputReady())
    mark = await term.press("b")
    await term.wait_for(Text("done b"), since=mark)
    mark = await term.press("t")
    with pytest.raises(termsim.WaitTimeout) as failure:
        await term.wait_for(Text("never"), since=mark, timeout=1)
    await term.press("q")
    return str(failure.value)


@pytest.mark.anyio
async def test_a_failed_wait_shows_the_titles_it_saw_live_and_on_replay(tmp_path: Path) -> None:
    async with termsim.spawn(program("signals.py"), record=tmp_path / "t.tsr") as term:
        live = await _title_then_fail(term)
    async with termsim.replay(tmp_path / "t.tsr") as term:
        replayed = await _title_then_fail(term)
    for text in (live, replayed):
        strip = text.split("what happened during the wait", 1)[1].split("the screen at the end")[0]
        said = [line.split(" s  ", 1)[1] for line in strip.splitlines()
                if re.match(r" +[+-]\d+\.\d{3} s  ", line)]
        # Each signal once, after the key that caused it. (A replay starts
        # the wait at the very time of the key, so its strip begins at the
        # key before: the bell's.)
        said = [line for line in said if not line.startswith("screen")]
        assert said[-3:] == ["sent key t", "title 'working'", "title 'idle'"], text
        assert said[:-3] in ([], ["sent key b", "bell"]), text


# -- SVG and asciicast -------------------------------------------------------------------


def test_svg_draws_linked_cells_as_text(said: Recording, tmp_path: Path) -> None:
    term = Terminal(30, 2)
    term.feed(b"\x1b]8;;https://example.org\x1b\\\x1b[1mli\x1b[7mnk\x1b[0m"
              b"\x1b]8;;javascript:alert(1)\x1b\\evil\x1b]8;;\x1b\\")
    term.feed(b"\x1b[1;3H")  # the cursor over the link
    svg = snapshot_svg(term.screen)
    assert "href" not in svg and "example.org" not in svg and "javascript" not in svg
    assert ">li<" in svg and "evil" in svg
    after_link = next(e.t for e in said.events if b"done l" in getattr(e, "data", b""))
    assert main(["export", str(said.path), "-o", str(tmp_path / "s.svg"),
                 "--at", str(after_link)]) == 0
    assert "the docs" in (tmp_path / "s.svg").read_text(encoding="utf-8")


def test_asciicast_keeps_the_bytes_that_said_it(said: Recording, tmp_path: Path) -> None:
    cast = tmp_path / "said.cast"
    assert main(["export", str(said.path), "-o", str(cast)]) == 0
    output = "".join(e[2] for e in map(json.loads, cast.read_text().splitlines()[1:])
                     if e[1] == "o")
    for sequence in ("\x07", "\x1b]8;id=docs;https://example.org/docs\x1b\\",
                     "\x1b]52;c;aGVsbG8=\x07", "\x1b]777;notify;Build;finished\x1b\\",
                     "\x1b]2;working\x07", '\x1bPq"1;1;4;6#0~~~~\x1b\\',
                     "\x1b_Ga=T,f=100,s=8,v=4,m=1;AAAA\x1b\\"):
        assert sequence in output
    # Imported back, it says the same.
    assert main(["import", str(cast), "-o", str(tmp_path / "back.tsr")]) == 0
    back = Playback(tmp_path / "back.tsr").screen_at()
    assert [s.describe() for s in back.signals.all()] == [
        s.describe() for s in Playback(said).screen_at().signals.all()]
