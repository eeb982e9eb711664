"""The programs that found termsim's bugs, driven as a user drives them.

bash, sqlite3, vim, less and tmux are OS packages (``.ci/run`` installs them
with apt where it can; each test skips when its program is missing);
bpython, litecli and textual come with the test extra. Every wait counts
only what the program drew after it read the input (``since=``), so none
can pass on a stale screen.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from conftest import inherited_env

import termsim
from termsim import CursorAfter, InputReady, Quiet, Regex, Region, Text

pytestmark = pytest.mark.anyio


def needs(program: str) -> str:
    path = shutil.which(program)
    if path is None:
        pytest.skip(f"{program} is not installed")
    return path


def home_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = inherited_env()
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), **extra)
    return env


async def test_bash_readline_history_completion_and_interrupt(tmp_path: Path) -> None:
    bash = needs("bash")
    env = home_env(tmp_path, PS1="$ ", HISTFILE=str(tmp_path / "history"))
    (tmp_path / "a-file-to-complete.txt").write_text("")
    async with termsim.spawn([bash, "--norc", "--noprofile", "-i"], env=env,
                             cwd=tmp_path) as term:
        await term.wait_for(CursorAfter("$ ") & InputReady())
        mark = await term.type("echo $((6 * 7))\n")
        await term.wait_for(Regex(r"^42$") & CursorAfter("$ "), since=mark)
        mark = await term.press("up")  # readline's history, in raw mode
        await term.wait_for(CursorAfter("$ echo $((6 * 7))"), since=mark)
        await term.press("ctrl+u")  # kill the line
        await term.type("ls a-file-to")
        mark = await term.press("tab")
        await term.wait_for(CursorAfter("ls a-file-to-complete.txt "), since=mark)
        mark = await term.press("ctrl+c")  # readline drops the line
        await term.wait_for(Text("ls a-file-to-complete.txt ^C"), since=mark)
        # bash sometimes handles the interrupt only at the next key (its own
        # race: readline is back in read() first), so press Enter: a new
        # prompt either way, and the dropped line is not run.
        mark = await term.press("enter")
        await term.wait_for(CursorAfter("$ ") & InputReady(), since=mark)
        assert "a-file-to-complete.txt\n" not in term.transcript()
        await term.type("exit 0\n")  # plain exit would return the interrupt's 130
        assert await term.wait_exit() == 0


async def test_ls_color_floods_coloured_lines_drawn_as_each_byte_would_draw_them(
    tmp_path: Path,
) -> None:
    """``ls --color`` writes a line per name, each in the colour of its kind:
    more lines than a screen, which termsim keeps as coloured text until
    asked (``termsim/emulator/screen/styled.py``). What a test sees must be
    what feeding the same bytes in reads too small for that path shows,
    cell by cell."""
    ls = needs("ls")
    listing = tmp_path / "listing"
    listing.mkdir()
    for i in range(150):
        (listing / f"n{i:03d}_dir").mkdir()
        (listing / f"n{i:03d}.tar.gz").write_text("")
        tool = listing / f"n{i:03d}_tool"
        tool.write_text("")
        tool.chmod(0o755)
    env = inherited_env()
    env.update(LC_ALL="C", LS_COLORS="di=01;34:ex=01;32:*.tar.gz=01;31")
    path = tmp_path / "ls.tsr"
    async with termsim.spawn([ls, "--color=always", "-1", str(listing)], env=env,
                             record=path) as term:
        assert await term.wait_exit() == 0
        snap = term.screen
        names = term.transcript().splitlines()
    assert names == sorted(p.name for p in listing.iterdir())
    last = [line.rstrip() for line in snap.lines].index("n149_tool")
    assert snap.lines[last - 2:last] == ("n149.tar.gz".ljust(80), "n149_dir".ljust(80))
    assert snap.cell(last - 2, 0).style == termsim.Style(fg="red", bold=True)
    assert snap.cell(last - 1, 0).style == termsim.Style(fg="blue", bold=True)
    assert snap.cell(last, 0).style == termsim.Style(fg="green", bold=True)
    assert snap.cell(last, 9).style == termsim.Style()
    small = termsim.emulator.Terminal(80, 24)
    for event in termsim.files.Recording.open(path).of_type(termsim.events.Output):
        for i in range(0, len(event.data), 15):
            small.feed(event.data[i:i + 15])
    assert [snap.row_cells(y) for y in range(24)] == [
        small.screen.row_cells(y) for y in range(24)]
    assert small.transcript().splitlines() == names


async def test_sqlite3_runs_a_query(tmp_path: Path) -> None:
    sqlite3 = needs("sqlite3")
    async with termsim.spawn([sqlite3, str(tmp_path / "db.sqlite")],
                             env=home_env(tmp_path)) as term:
        await term.wait_for(CursorAfter("sqlite> "))
        mark = await term.type("create table t(x); insert into t values (6), (7);\n")
        await term.wait_for(CursorAfter("sqlite> "), since=mark)
        mark = await term.type("select x * 7 from t order by x;\n")
        await term.wait_for(Regex(r"^42\n49$") & CursorAfter("sqlite> "), since=mark)
        await term.type(".quit\n")
        assert await term.wait_exit() == 0


async def test_vim_edits_and_writes_a_file(tmp_path: Path) -> None:
    vim = needs("vim")
    path = tmp_path / "notes.txt"
    argv = [vim, "-u", "NONE", "-N", "-i", "NONE", "-n", str(path)]
    async with termsim.spawn(argv, env=home_env(tmp_path, TERM="xterm-256color")) as term:
        await term.wait_for(Text("~", Region.row(1)) & InputReady())
        mark = await term.type("ihello from termsim")
        await term.wait_for(Text("hello from termsim", Region.row(0)), since=mark)
        await term.press("escape")
        mark = await term.type(":wq\n")
        assert await term.wait_exit() == 0
    assert path.read_text() == "hello from termsim\n"
    assert {q.kind for q in term.unanswered()} <= {"kitty-keyboard"}


async def test_less_pages_to_the_end_and_quits(tmp_path: Path) -> None:
    less = needs("less")
    text = tmp_path / "long.txt"
    text.write_text("".join(f"line {n:03}\n" for n in range(200)))
    env = home_env(tmp_path, LESS="", LESSHISTFILE="-")
    async with termsim.spawn([less, str(text)], env=env, rows=20) as term:
        snap = await term.wait_for(Text("line 000") & InputReady())
        assert snap.alternate or "line 018" in snap.text
        mark = await term.press("G")
        await term.wait_for(Text("line 199") & Text("(END)", Region.row(-1)), since=mark)
        mark = await term.type("?line 100\n")  # search backwards from the end
        await term.wait_for(Text("line 100", Region.row(0)), since=mark)
        await term.press("q")
        assert await term.wait_exit() == 0


async def test_a_shell_inside_tmux_inside_termsim(tmp_path: Path) -> None:
    tmux = needs("tmux")
    socket = tmp_path / "tmux.sock"
    env = home_env(tmp_path, TERM="xterm-256color", SHELL="/bin/sh", PS1="in-tmux$ ")
    argv = [tmux, "-S", str(socket), "-f", "/dev/null", "new-session", "sh"]
    async with termsim.spawn(argv, env=env, cols=80, rows=24) as term:
        await term.wait_for(CursorAfter("in-tmux$ "))
        mark = await term.type("echo $((6 * 7)) inside\n")
        await term.wait_for(Text("42 inside") & CursorAfter("in-tmux$ "), since=mark)
        # The status line tmux draws at the bottom.
        assert term.screen.lines[-1].strip()
        await term.type("exit\n")
        assert await term.wait_exit() == 0


async def test_bpython_evaluates(tmp_path: Path) -> None:
    pytest.importorskip("bpython")
    env = home_env(tmp_path)
    async with termsim.spawn([sys.executable, "-m", "bpython"], env=env, timeout=30) as term:
        await term.wait_for(CursorAfter(">>> ") & InputReady())
        mark = await term.type("6 * 7\n")
        await term.wait_for(Regex(r"^42$") & CursorAfter(">>> "), since=mark)
        await term.press("ctrl+d")
        assert await term.wait_exit() == 0
    assert {q.kind for q in term.unanswered()} == set()


async def test_litecli_runs_a_query(tmp_path: Path) -> None:
    pytest.importorskip("litecli")
    env = home_env(tmp_path)
    argv = [sys.executable, "-m", "litecli.main", str(tmp_path / "db.sqlite")]
    async with termsim.spawn(argv, env=env, cols=100, rows=30, timeout=30) as term:
        await term.wait_for(CursorAfter("> ") & InputReady())
        mark = await term.type("select 6 * 7 as answer\n")
        await term.wait_for(Regex(r"\| 42 +\|") & CursorAfter("> "), since=mark)
        await term.wait_for(Quiet(0.2))
        await term.press("ctrl+d")
        assert await term.wait_exit() == 0
