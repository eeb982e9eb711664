"""Whole-screen assertions: ``expect_screen()``, its text format and goldens.

The format is checked on its own (masks, styles, wide characters, escapes,
hand-written expectations); the assertion on real programs (a shell
printing, a clock ticking under a mask, the example REPL, IPython and the
full-screen app through pytester with ``--termsim-update``); and goldens
written from a live run and from a replay of its recording are the same
bytes.
"""

from __future__ import annotations

import re
import sys
import textwrap
from functools import partial
from pathlib import Path

import helpers
import pytest
from conftest import EXAMPLE, ROOT, inherited_env

import termsim
from termsim import GoldenMissing, Region, ScreenMismatch, Text
from termsim.engine.screentext import Options, diff, matches, parse, render

pytestmark = pytest.mark.anyio


screen = partial(helpers.screen, cols=12, rows=3)


# -- the text format --------------------------------------------------------------------


def test_a_screen_as_text_has_margins_the_cursor_and_every_row() -> None:
    text = render(screen(b"hello\r\nworld")).text()
    assert text == ("screen 12x3, cursor at row 1, col 5\n"
                    "|hello       |\n|world       |\n|            |\n")
    hidden = render(screen(b"x\x1b[?25l")).text()
    assert hidden.startswith("screen 12x3, cursor hidden\n")
    assert render(screen(b"x"), Options(cursor=False)).text().startswith("screen 12x3\n|x")


def test_styles_are_marked_inline_with_a_legend_in_order_of_appearance() -> None:
    snap = screen(b"\x1b[1;31mred\x1b[0m ok \x1b[7mrev\x1b[0m\r\n\x1b[1;31mred{}\\")
    text = render(snap, Options(styles=True, cursor=False)).text()
    assert text == ("screen 12x3, styles\n"
                    "|{1:red} ok {2:rev}  |\n"
                    "|{1:red\\{\\}\\\\}      |\n"
                    "|            |\n"
                    "{1}: bold, fg=red\n{2}: reverse\n")
    colours = render(screen(b"\x1b[38;5;196;48;2;1;2;3mx"), Options(styles=True)).legend
    assert colours == ["{1}: fg=#ff0000, bg=#010203"]


def test_masks_hide_cells_by_region_or_regex_keeping_columns() -> None:
    snap = screen("at 12:34:56\r\nid 中文 ok\r\nfooter".encode(), cols=14)
    masked = render(snap, Options(mask=(re.compile(r"\d+:\d+:\d+"), r"中文",
                                        Region.row(-1)), cursor=False))
    assert masked.rows == ["at ░░░░░░░░   ", "id ░░░░ ok    ", "░░░░░░░░░░░░░░"]


def test_wide_characters_take_their_two_columns() -> None:
    assert render(screen(b"a\xe4\xb8\xadb", cols=5, rows=1)).rows == ["a中b "]


def test_a_hand_written_expectation_may_leave_out_header_margins_and_blank_rows() -> None:
    snap = screen(b"hello\r\nworld")
    for written in ("hello\nworld", "\nhello\nworld\n\n", "|hello       |\n|world       |\n"
                    "|            |", render(snap).text()):
        expected = parse(written)
        assert matches(expected, render(snap)), written
    assert not matches(parse("hello\nworld!"), render(snap))
    assert not matches(parse("screen 12x3, cursor at row 0, col 0\nhello\nworld"), render(snap))


def test_a_screen_written_indented_in_a_test_loses_the_codes_indentation() -> None:
    # As the README's snippet writes it inside a test function: the rows
    # share the code's indentation, which is not the screen's.
    snap = screen(b"hello\r\n  world")
    indented = """
        hello
          world
        """
    assert parse(indented).rows == ["hello", "  world"]
    assert matches(parse(indented), render(snap))
    # A one-line string keeps its blanks (a toolbar row starts with one),
    # and so do rows written between margins.
    assert parse(" state").rows == [" state"]
    assert parse("\n  |  a |\n  |  b |").rows == ["  a ", "  b "]

def test_the_diff_puts_rows_side_by_side_and_marks_the_cells() -> None:
    expected = parse("screen 12x2\n|state: sleep|\n|ok          |")
    actual = render(screen(b"state: work\r\nok", rows=2), Options(cursor=False))
    text = diff(expected, actual)
    assert text.splitlines() == [
        "      expected         actual",
        "! 0   |state: sleep|   |state: work |",
        "                               ^^^^^",
        "  1   |ok          |   |ok          |",
    ]


# -- expect_screen on real programs ------------------------------------------------------


PRINTS = ["sh", "-c", "printf 'hello\\n\\033[1;31mred\\033[0m done\\n'; read x"]


async def test_expect_screen_waits_for_the_screen_and_returns_it() -> None:
    async with termsim.spawn(PRINTS, cols=20, rows=3) as term:
        snap = await term.expect_screen("hello\nred done")
        assert "red done" in snap.text
        await term.expect_screen("screen 20x3, cursor at row 2, col 0, styles\n"
                                 "|hello               |\n|{1:red} done            |\n"
                                 "|                    |\n{1}: bold, fg=red\n")


async def test_a_mismatch_shows_both_screens_and_the_differing_cells() -> None:
    async with termsim.spawn(PRINTS, cols=20, rows=3) as term:
        with pytest.raises(ScreenMismatch) as info:
            await term.expect_screen("hello\nred gone", timeout=0.3)
    error = info.value
    message = str(error)
    assert message.startswith("the screen never matched the expected screen (2 rows) "
                              "(timed out after 0.3 s):")
    assert "! 1   red gone   red done" in message
    assert re.search(r"\n +\^\n", message)  # under the one differing cell
    assert error.expected == "hello\nred gone\n" and "red done" in error.actual
    assert isinstance(error, termsim.WaitTimeout)  # the same except clauses catch it


CLOCK = [sys.executable, "-c", textwrap.dedent("""
    import sys, time, tty
    tty.setraw(0)
    sys.stdout.write("report ready\\r\\n")
    for i in range(400):
        sys.stdout.write(f"\\x1b[3;1Hclock {time.monotonic():.3f} tick {i}\\x1b[K")
        sys.stdout.flush()
        time.sleep(0.02)  # sync-ok: a clock ticks; the test waits on the screen
""")]


async def test_a_ticking_clock_under_a_mask_does_not_break_the_assertion(tmp_path: Path) -> None:
    golden = tmp_path / "clock.screen"
    mask = [Region.row(-1)]
    with termsim.runner.golden_screens(None, update=True):
        async with termsim.spawn(CLOCK, cols=30, rows=3) as term:
            await term.expect_screen(golden=str(golden), mask=mask)
    assert golden.read_text() == ("screen 30x3, cursor at row 2, masked\n"
                                  "|report ready                  |\n"
                                  "|                              |\n"
                                  f"|{'░' * 30}|\n")
    async with termsim.spawn(CLOCK, cols=30, rows=3) as term:
        await term.expect_screen(golden=str(golden), mask=mask, cursor=False)
        await term.expect_screen(golden=str(golden), mask=[re.compile(r"clock.*")],
                                 cursor=False)
        with pytest.raises(ScreenMismatch):
            await term.expect_screen(golden=str(golden), timeout=0.3)  # without the mask


async def test_a_missing_golden_fails_and_shows_what_would_be_written(tmp_path: Path) -> None:
    path = tmp_path / "missing.screen"
    async with termsim.spawn(PRINTS, cols=20, rows=3) as term:
        with pytest.raises(GoldenMissing) as info:
            await term.expect_screen(golden=str(path))
    assert "--termsim-update" in str(info.value) and "|red done            |" in str(info.value)
    assert not path.exists()
    with pytest.raises(termsim.ArgumentError, match="one of them"):
        async with termsim.spawn(PRINTS) as term:
            await term.expect_screen()


async def test_a_golden_from_a_replay_is_the_golden_from_the_live_run(
    tmp_path: Path, configured_env: dict[str, str],
) -> None:
    recording = tmp_path / "turn.tsr"
    written: dict[str, bytes] = {}

    async def body(term: termsim.Driver) -> None:
        await term.wait_for(termsim.CursorAfter("❯ ") & termsim.InputReady(), timeout=30)
        await term.type("hello")
        mark = await term.press("enter")
        # The golden is the screen once it has stayed the same for 0.5 s: a
        # loaded machine can hold the program that long before its reply, so
        # the reply is awaited first.
        await term.wait_for(termsim.Text("assistant: done"), since=mark, timeout=30)
        await term.expect_screen(golden="after-reply", since=mark, styles=True, timeout=30)
        await term.press("ctrl+d")
        await term.wait_exit(timeout=10)

    for source in ("live", "replay"):
        directory = tmp_path / source
        with termsim.runner.golden_screens(lambda name, d=directory: d / f"{name}.screen",
                                    update=True):
            if source == "live":
                async with termsim.spawn(EXAMPLE, env=configured_env, record=recording) as t:
                    await body(t)
            else:
                async with termsim.replay(recording) as r:
                    await body(r)
        written[source] = (directory / "after-reply.screen").read_bytes()
    assert written["live"] == written["replay"]
    assert "assistant: done (5 chars)" in written["live"].decode()


# -- goldens in a pytest suite (pytester) ------------------------------------------------


SUITE = '''
import os, sys
from pathlib import Path
import pytest, termsim
from termsim import CursorAfter, InputReady, Region

EXAMPLE = {example!r}
FULLSCREEN = {fullscreen!r}

@pytest.fixture
def anyio_backend():
    return "asyncio"

def env(tmp_path):
    environ = dict({env!r})
    config = tmp_path / ".config" / "agent-repl"
    config.mkdir(parents=True)
    (config / "config.json").write_text('{{"theme": "%s"}}' % os.environ["THEME"])
    environ["HOME"] = str(tmp_path)
    return environ

@pytest.mark.anyio
async def test_repl_turn(tmp_path):
    # stall=: a screen that will never match fails once the REPL sits idle.
    async with termsim.spawn(EXAMPLE, env=env(tmp_path), cols=60, rows=10, stall=2) as term:
        await term.wait_for(CursorAfter("❯ ") & InputReady(), timeout=30)
        await term.type(os.environ["WORD"])
        mark = await term.press("enter")
        await term.expect_screen(golden="reply", since=mark, styles=True, timeout=30)

@pytest.mark.anyio
async def test_fullscreen(tmp_path):
    async with termsim.spawn([sys.executable, FULLSCREEN], cols=60, rows=12, stall=2) as term:
        await term.wait_for(termsim.Text("q") & InputReady(), timeout=30)
        await term.expect_screen(golden="start", styles=True, timeout=30)
'''


def _suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test file the runs below use, with the dark theme and "hello"."""
    monkeypatch.setenv("THEME", "dark")
    monkeypatch.setenv("WORD", "hello")
    env = inherited_env()
    env["AGENT_REPL_BOOT_SECONDS"] = "0.2"
    pytester.makepyfile(test_app=SUITE.format(
        example=EXAMPLE, fullscreen=str(ROOT / "examples" / "fullscreen_app.py"), env=env))


def test_a_golden_not_written_yet_fails_its_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 1. No goldens yet: the run fails and says how to write them.
    _suite(pytester, monkeypatch)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=2)
    # Count the raised errors, not the summary lines: whether pytest's short
    # summary repeats the message depends on the terminal's width.
    missing = re.compile(r"E\s+termsim\.GoldenMissing: no golden screen at")
    raised = [line for line in result.outlines if missing.match(line)]
    assert len(raised) == 2, result.stdout.str()


def test_goldens_are_written_checked_and_rewritten(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _suite(pytester, monkeypatch)
    screens = pytester.path / "test_app.screens"
    # A golden no test uses: a run of the whole file lists it; a run of some
    # of its tests (-k) cannot tell, and says nothing.
    screens.mkdir()
    (screens / "test_gone__old.screen").write_text("screen 1x1\n| |\n")
    unused = "termsim golden not used by any test: *test_gone__old.screen"
    # 2. --termsim-update writes them; 3. the next run passes, unchanged.
    result = pytester.runpytest("-p", "no:randomly", "--termsim-update")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["termsim goldens: 2 written, 0 unchanged (--termsim-update)"])
    reply = (screens / "test_repl_turn__reply.screen").read_text()
    assert "|{1:❯ }hello " in reply and "assistant: done (5 chars)" in reply
    assert "{1}: fg=cyan" in reply
    assert (screens / "test_fullscreen__start.screen").read_text().startswith("screen 60x12")
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([unused])


def test_a_changed_golden_shows_a_readable_diff(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Apart from the test above and the one below (each waits on its
    # programs, so they run side by side): goldens written, then the app
    # changes.
    _suite(pytester, monkeypatch)
    pytester.runpytest("-p", "no:randomly", "--termsim-update", "-k", "repl").assert_outcomes(
        passed=1)
    # 4. The app's text changes: a readable diff.
    monkeypatch.setenv("WORD", "howdy")
    result = pytester.runpytest("-p", "no:randomly", "-k", "repl")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "not used" not in text
    assert "ScreenMismatch: the screen never matched the screen in" in text
    assert re.search(r"! +\d+ +\|\{1:❯ \}hello +\| +\|\{1:❯ \}howdy", text)


def test_a_changed_style_is_named(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _suite(pytester, monkeypatch)
    pytester.runpytest("-p", "no:randomly", "--termsim-update").assert_outcomes(passed=2)
    # 5. A style changes (another theme): the legend says how.
    monkeypatch.setenv("THEME", "light")
    result = pytester.runpytest("-p", "no:randomly", "-k", "repl")
    result.assert_outcomes(failed=1)
    assert "styles: expected {1}:" in result.stdout.str()


def test_a_golden_whose_style_changed_is_rewritten_on_purpose(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _suite(pytester, monkeypatch)
    pytester.runpytest("-p", "no:randomly", "--termsim-update").assert_outcomes(passed=2)
    monkeypatch.setenv("THEME", "light")  # the style the test above sees fail
    # 6. Rewritten on purpose, it passes again.
    result = pytester.runpytest("-p", "no:randomly", "--termsim-update")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["termsim goldens: 1 updated, 1 unchanged (--termsim-update)"])
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)


async def test_ipython_screen(tmp_path: Path) -> None:
    pytest.importorskip("IPython")
    env = inherited_env("IPYTHON")
    env.update(HOME=str(tmp_path), IPYTHONDIR=str(tmp_path / "ipython"), PYTHONSTARTUP="")
    argv = [sys.executable, "-m", "IPython", "--no-banner", "--colors=NoColor"]
    golden = tmp_path / "ipython.screen"
    for update in (True, False):
        with termsim.runner.golden_screens(None, update=update):
            async with termsim.spawn(argv, env=env, cols=40, rows=6, timeout=60) as term:
                await term.wait_for(termsim.CursorAfter("In [1]: ") & termsim.InputReady())
                mark = await term.type("6 * 7\n")
                await term.wait_for(Text("Out[1]: 42"), since=mark)
                await term.expect_screen(golden=str(golden), since=mark)
    assert "|Out[1]: 42" in golden.read_text()
