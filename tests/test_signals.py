"""What a program says outside the cells: read on a snapshot, awaited with
predicates, the same live, on replay and under shake.

The sequences are checked one by one on the sans-IO terminal (whole and cut
at every byte), then on a real program (``tests/programs/signals.py``) and
on bash with a prompt that writes shell-integration marks.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import examples, inherited_env, program

import termsim
from termsim import (
    Bell,
    Clipboard,
    CommandFinished,
    Image,
    InputReady,
    Link,
    Notification,
    Region,
    Text,
    Title,
)
from termsim.emulator import Terminal
from termsim.engine.predicates import Context
from termsim.engine.screentext import Options, render

OSC, ST = b"\x1b]", b"\x1b\\"


def fed(*chunks: bytes, cols: int = 40, rows: int = 6) -> Terminal:
    term = Terminal(cols, rows)
    for n, chunk in enumerate(chunks):
        term.feed(chunk, t=float(n))
    return term


# -- the sequences ------------------------------------------------------------------


def test_a_bell_is_counted_with_its_time_and_not_inside_a_string() -> None:
    term = fed(b"a\x07", OSC + b"2;title\x07b\x07\x07")
    snap = term.screen
    assert snap.signals.bell_count == 3
    assert [b.t for b in snap.bells] == [0.0, 1.0, 1.0]
    assert snap.title == "title" and snap.lines[0].rstrip() == "ab"


def test_titles_and_icon_names_are_logged_once_per_change() -> None:
    term = fed(OSC + b"0;both\x07" + OSC + b"2;both\x07" + OSC + b"1;icon\x07"
               + OSC + b"2;other\x07\x1b[22t" + OSC + b"2;pushed\x07\x1b[23t")
    snap = term.screen
    assert snap.title == "other" and snap.icon_title == "icon"
    changes = [(c.text, c.icon) for c in snap.signals.titles]
    assert changes == [("both", False), ("both", True), ("icon", True), ("other", False),
                       ("pushed", False), ("other", False)]


def test_an_osc_8_link_keeps_its_url_across_sgr_0_and_rows() -> None:
    term = fed(b"see " + OSC + b"8;id=d;https://example.org/a" + ST + b"\x1b[1mthe\x1b[0m doc"
               + OSC + b"8;;" + ST + b" end\r\n" + OSC + b"8;;https://example.org/b\x07two"
               + OSC + b"8;;\x07", cols=20)
    links = term.screen.links
    assert [(x.text, x.url, x.id, x.row, x.start, x.stop) for x in links] == [
        ("the doc", "https://example.org/a", "d", 0, 4, 11),
        ("two", "https://example.org/b", "", 1, 0, 3)]
    assert term.screen.cell(0, 3).style.link == "" and term.screen.cell(0, 11).style.link == ""
    # Erasing is not linking: blanks after an erase carry no URL.
    term.feed(OSC + b"8;;https://x\x07\x1b[2J" + OSC + b"8;;\x07")
    assert term.screen.links == ()


def test_a_link_shows_in_a_golden_with_styles() -> None:
    term = fed(OSC + b"8;;https://example.org" + ST + b"docs" + OSC + b"8;;" + ST, cols=6, rows=1)
    written = render(term.screen, Options(styles=True, cursor=False)).text()
    assert "|{1:docs}  |" in written and "{1}: link=https://example.org" in written


def test_clipboard_writes_are_decoded_and_reads_are_not_answered() -> None:
    term = fed(OSC + b"52;c;aGVsbG8=\x07" + OSC + b"52;p;!!!\x07" + OSC + b"52;c;?\x07")
    writes = term.screen.clipboard
    assert [(w.selection, w.text, w.data) for w in writes] == [
        ("c", "hello", "aGVsbG8="), ("p", None, "!!!"), ("c", None, "?")]
    assert term.feed(b"") == b"" and not term.unknown
    assert Clipboard("hello")(term.screen) and not Clipboard("hello", selection="p")(term.screen)


def test_notifications_from_osc_9_777_and_99() -> None:
    term = fed(OSC + b"9;plain\x07" + OSC + b"9;4;1;50\x07"  # ConEmu progress: none
               + OSC + b"777;notify;Title;Body\x07"
               + OSC + b"99;i=1:d=0;Kitty\x07" + OSC + b"99;i=1:p=body;done\x07"
               + OSC + b"99;e=1:p=body;aGk=\x07")
    notes = [(n.title, n.body, n.via) for n in term.screen.notifications]
    assert notes == [("", "plain", "OSC 9"), ("Title", "Body", "OSC 777"),
                     ("Kitty", "done", "OSC 99"), ("", "hi", "OSC 99")]
    assert Notification("done")(term.screen) and not Notification("progress")(term.screen)


def test_the_working_directory_from_osc_7_and_633() -> None:
    assert fed(OSC + b"7;file://host/tmp/a%20b\x07").screen.cwd == "/tmp/a b"
    assert fed(OSC + b"633;P;Cwd=/srv\x07").screen.cwd == "/srv"


def test_shell_marks_make_commands_with_their_output_and_status() -> None:
    prompt = OSC + b"133;A" + ST + b"$ " + OSC + b"133;B" + ST
    term = fed(prompt + b"ls\r\n" + OSC + b"133;C" + ST + b"a\r\nb\r\n" + OSC + b"133;D;0" + ST
               + prompt + b"false\r\n" + OSC + b"633;E;false" + ST + OSC + b"133;C" + ST
               + OSC + b"133;D;1" + ST + prompt + b"cat\r\n" + OSC + b"133;C" + ST + b"typed",
               rows=4)
    snap = term.screen
    commands = [(c.output, c.status, c.command, c.finished) for c in snap.commands]
    assert commands == [("a\nb", 0, None, True), ("", 1, "false", True),
                        ("typed", None, None, False)]
    # Rows scrolled off (4 rows here) still count.
    assert Text("a\nb", region=Region.output(0))(snap)
    assert Text("typed", region=Region.output(-1))(snap)
    assert CommandFinished(status=1)(snap) and not CommandFinished(status=2)(snap)


def test_images_are_counted_and_sized_not_drawn() -> None:
    term = fed(b'\x1bPq"1;1;4;6#0~~~~\x1b\\'
               + b"\x1b_Ga=T,s=8,v=4,m=1;AAAA" + ST + b"\x1b_Gm=0;BB" + ST
               + b"\x1b_Ga=d" + ST  # a delete: no image
               + OSC + b"1337;File=inline=1;width=3:AAAA\x07")
    assert [(g.protocol, g.size, g.width, g.height) for g in term.screen.graphics] == [
        ("sixel", 14, 4, 6), ("kitty", 6, 8, 4), ("iterm2", 4, "3", None)]
    assert term.screen.text.strip() == "" and not term.unknown
    assert Image("kitty")(term.screen) and not Image()(fed(b"text").screen)


ALL = (b"x\x07" + OSC + b"2;t\x07" + OSC + b"8;id=a;u" + ST + b"l" + OSC + b"8;;" + ST
       + OSC + b"52;c;aGk=\x07" + OSC + b"777;notify;a;b\x07" + OSC + b"7;file:///d\x07"
       + OSC + b"133;C\x07out\r\n" + OSC + b"133;D;3\x07"
       + b'\x1bPq"1;1;2;2~\x1b\\' + b"\x1b_Gm=1;AA" + ST + b"\x1b_Gm=0;B" + ST)


def _said(term: Terminal) -> list[tuple[object, ...]]:
    snap = term.screen
    return [(type(s).__name__, s.at, s.describe()) for s in snap.signals.all()] + [
        (snap.title, snap.cwd, snap.links, snap.commands)]


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_cut_anywhere_the_stream_says_the_same(size: int) -> None:
    whole = Terminal(40, 6)
    whole.feed(ALL)
    cut = Terminal(40, 6)
    for start in range(0, len(ALL), size):
        cut.feed(ALL[start:start + size])
    assert _said(cut) == _said(whole)
    assert cut.screen.signals.bell_count == whole.screen.signals.bell_count == 1
    assert whole.screen.bells[0].at == 1


def test_a_signal_counts_for_a_wait_only_after_the_mark() -> None:
    term = fed(b"\x07")
    before = term.screen
    term.feed(b"\x07" + OSC + b"9;new\x07")
    after = term.screen
    assert Bell().check(after, Context(0.0, None, after=before.generation))
    assert not Bell().check(before, Context(0.0, None, after=before.generation))
    assert not Notification("new").check(after, Context(0.0, None, after=after.generation))
    assert Bell().explain(after) == "bells so far: 2, the last at 0.000 s"


def test_predicates_describe_what_they_await() -> None:
    assert Title("work").describe() == "the title holds 'work'"
    assert Link("docs", url=re.compile("example")).describe() == (
        "a link with text 'docs' and URL /example/")
    assert CommandFinished(status=0).describe() == "a command to finish with status 0"
    assert "no shell-integration marks" in CommandFinished().explain(fed(b"x").screen)
    with pytest.raises(ValueError, match="'sixel', 'kitty' or 'iterm2'"):
        Image("png")


# -- a real program, live, replayed, shaken ----------------------------------------


SCENARIO = """
from termsim import Bell, Clipboard, Image, InputReady, Link, Notification, Text, Title

async def scenario(term):
    await term.wait_for(Text("ready> ") & InputReady())
    for key, signal in [("b", Bell()), ("l", Link("the docs", url="example.org/docs")),
                        ("c", Clipboard("hello")), ("n", Notification("finished")),
                        ("t", Title("idle")), ("i", Image("sixel")), ("k", Image("kitty"))]:
        mark = await term.press(key)
        # The signal alone, then with the text written with it: a signal
        # sent before the key must not satisfy the wait.
        await term.wait_for(signal, since=mark)
        await term.wait_for(Text(f"done {key}") & signal, since=mark)
    await term.wait_for(Notification("all done"))
    assert term.screen.signals.bell_count == 1
    await term.press("q")
    assert await term.wait_exit() == 0
"""
exec(SCENARIO)  # defines scenario(), which the shaken test file below also holds


@pytest.mark.anyio
async def test_a_program_s_signals_are_awaited_live_and_on_replay(tmp_path: Path) -> None:
    async with termsim.spawn(program("signals.py"), record=tmp_path / "s.tsr") as term:
        await scenario(term)  # type: ignore[name-defined]  # noqa: F821
    async with termsim.replay(tmp_path / "s.tsr") as term:
        await scenario(term)  # type: ignore[name-defined]  # noqa: F821


SHAKEN = SCENARIO + """
import pytest, termsim

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_signals():
    async with termsim.spawn({argv!r}) as term:
        await scenario(term)
"""


def test_a_program_s_signals_are_awaited_under_shake(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_said=SHAKEN.replace("{argv!r}", repr(program("signals.py"))))
    variants = examples(20)
    result = pytester.runpytest("-p", "no:randomly", f"--termsim-shake={variants}")
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert f"1 passing tests ran {variants} variants" in result.stdout.str()


@pytest.mark.anyio
async def test_a_wait_for_a_signal_that_never_comes_says_what_was_said() -> None:
    async with termsim.spawn(program("signals.py")) as term:
        await term.wait_for(Text("ready> ") & InputReady())
        mark = await term.press("b")
        await term.wait_for(Text("done b"), since=mark)
        mark = await term.press("n")
        with pytest.raises(termsim.WaitTimeout) as failure:
            await term.wait_for(Bell() & Text("done n"), since=mark, timeout=1)
    text = str(failure.value)
    assert "waiting for a bell and text 'done n'" in text
    assert "bells since the mark: none; before it: 1, the last at" in text


# -- bash with shell integration ---------------------------------------------------------

BASHRC = r"""
PS1='\[\e]133;A\e\\\]$ \[\e]133;B\e\\\]'
PS0='\e]133;C\e\\'
PROMPT_COMMAND='printf "\e]133;D;%s\e\\" "$?"'
"""


@pytest.mark.anyio
async def test_bash_marks_commands_and_their_output(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    (tmp_path / "rc").write_text(BASHRC)
    env = {**inherited_env(), "HOME": str(tmp_path), "PS1": "$ "}
    async with termsim.spawn([bash, "--noprofile", "--rcfile", str(tmp_path / "rc"), "-i"],
                             env=env, cols=60, rows=8) as term:
        await term.wait_for(Text("$ ") & InputReady())
        mark = await term.type("printf 'one\\ntwo\\n'\n")
        await term.wait_for(CommandFinished(status=0), since=mark)
        await term.wait_for(Text("one\ntwo", region=Region.output(-1)), since=mark)
        mark = await term.type("(exit 3)\n")
        snap = await term.wait_for(CommandFinished(status=3), since=mark)
        assert snap.commands[-1].status == 3 and snap.commands[-1].output == ""
        # Two commands' worth of output, scrolled past an 8-row screen.
        mark = await term.type("seq 1 20; false\n")
        snap = await term.wait_for(CommandFinished(status=1), since=mark)
        assert snap.commands[-1].output.split("\n") == [str(n) for n in range(1, 21)]
        await term.type("exit 0\n")
        assert await term.wait_exit() == 0



TITLES = """
from termsim import CursorAfter, InputReady, Text, Title

async def scenario(term):
    prompt = CursorAfter("> ") & InputReady()
    await term.wait_for(prompt & Title("idle"))
    for question in ("one", "two"):
        await term.type(question)
        mark = await term.press("enter")
        # The title alone says the state: working, then idle once answered.
        # Two waits, not a Sequence: "working", the answer and "idle" may
        # all come in one read, and a Sequence wants its parts on screens
        # one after the other.
        await term.wait_for(Title(f"working: {question}"), since=mark)
        # The prompt too: "idle" is set just before the prompt reads keys,
        # and a key sent in between meets a tty that is not raw yet.
        await term.wait_for(Title("idle") & Text(f"answer to {question}") & prompt,
                            since=mark)
    await term.press("ctrl+d")
    assert await term.wait_exit() == 0
"""


def test_a_prompt_toolkit_app_s_title_is_awaited_live_on_replay_and_under_shake(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("prompt_toolkit")
    argv = program("ptk_title.py")
    pytester.makepyfile(test_titles=TITLES + f'''
import pytest, termsim

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_titles(tmp_path):
    async with termsim.spawn({argv!r}, record=tmp_path / "t.tsr", hygiene=True) as term:
        await scenario(term)
    async with termsim.replay(tmp_path / "t.tsr") as term:
        await scenario(term)

@pytest.mark.anyio
async def test_titles_shaken():
    async with termsim.spawn({argv!r}) as term:
        await scenario(term)
''')
    live = pytester.runpytest("-p", "no:randomly", "-k", "not shaken")
    assert live.ret == 0, live.stdout.str()[-3000:]
    variants = examples(20)
    result = pytester.runpytest("-p", "no:randomly", f"--termsim-shake={variants}", "-k",
                                "shaken")
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert f"1 passing tests ran {variants} variants" in result.stdout.str()


def test_a_title_set_and_replaced_within_one_read_is_seen_by_a_wait() -> None:
    term = fed(OSC + b"2;idle\x07")
    before = term.screen
    term.feed(OSC + b"2;working\x07answer\r\n" + OSC + b"2;idle\x07")
    after = term.screen
    title = Title("working").fresh()
    assert not Title("working")(after)  # the screen's own title says idle
    assert title.check(after, Context(0.0, None, after=before.generation))
    # Once looked at, that read is past: the next screen needs a new title.
    term.feed(b"more")
    assert not title.check(term.screen, Context(0.0, None, after=before.generation))
