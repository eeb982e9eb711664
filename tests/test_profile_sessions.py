"""Sessions that answer as another terminal: a profile's answers, TERM and
variables reach the program, live and on replay, and a test matrix runs a
test once per profile and size.

The facts of each profile, and their sources, are checked in
``tests/test_profiles.py``; here, what a program sees of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import program

import termsim
from termsim import InputReady, Text
from termsim.cli import main
from termsim.emulator.terminals.profiles import KITTY, PROFILES, VSCODE, XTERM

pytestmark = pytest.mark.anyio


async def _who(term: termsim.Driver) -> str:
    screen = await term.wait_for(Text("done> ") & InputReady())
    await term.press("q")
    assert await term.wait_exit() == 0
    return screen.text


async def test_a_program_sees_the_profile_s_answers_and_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The terminal running the tests is some other one: none of it leaks.
    monkeypatch.setenv("KITTY_WINDOW_ID", "7")
    monkeypatch.setenv("TERM_PROGRAM", "WezTerm")
    path = tmp_path / "kitty.tsr"
    async with termsim.spawn(program("whoami.py"), profile="kitty", record=path) as term:
        text = await _who(term)
    assert f"da1: {KITTY.da1.encode()!r}" in text  # type: ignore[union-attr]
    assert f"da2: {KITTY.da2.encode()!r}" in text  # type: ignore[union-attr]
    assert "kitty: b'\\x1b[?0u'" in text
    assert f"TERM={KITTY.term}" in text and f"KITTY_WINDOW_ID={KITTY.env['KITTY_WINDOW_ID']}" \
        in text
    assert "TERM_PROGRAM=-" in text
    # Replayed, the terminal answers as the recording's profile did.
    assert termsim.files.Recording.open(path).header["profile"] == "kitty"
    async with termsim.replay(path) as term:
        assert await _who(term) == text
        assert [q.reply for q in term.queries if q.kind == "da2"] == [
            KITTY.da2.encode()]  # type: ignore[union-attr]


@pytest.mark.parametrize("name", sorted(PROFILES))
async def test_a_program_detects_each_profile_as_documented(name: str) -> None:
    profile = PROFILES[name]
    async with termsim.spawn(program("whoami.py"), profile=name) as term:
        text = await _who(term)
    for query, answer in (("da1", profile.da1), ("da2", profile.da2),
                          ("xtversion", profile.xtversion)):
        assert f"{query}: {(answer or '').encode()!r}" in text, (query, text)
    kitty = b"\x1b[?0u" if profile.kitty_keyboard else b""
    assert f"kitty: {kitty!r}" in text
    background = f"\x1b]11;{profile.background}\x07".encode() if profile.background else b""
    assert f"background: {background!r}" in text
    assert f"TERM={profile.term}" in text
    assert f"TERM_PROGRAM={profile.env.get('TERM_PROGRAM', '-')}" in text


async def test_no_profile_is_termsim_s_xterm_and_dumb_answers_nothing() -> None:
    async with termsim.spawn(program("whoami.py")) as term:
        text = await _who(term)
    assert f"da2: {XTERM.da2.encode()!r}" in text and "kitty: b''" in text  # type: ignore[union-attr]
    async with termsim.spawn(program("whoami.py"), profile="dumb") as term:
        text = await _who(term)
    assert "da1: b''" in text and "da2: b''" in text and "TERM=dumb" in text


async def test_an_unknown_profile_names_the_ones_there_are() -> None:
    with pytest.raises(termsim.ArgumentError, match="no terminal profile 'kity'; there are: "
                       "xterm, kitty"):
        termsim.spawn(program("whoami.py"), profile="kity")


MATRIX = """
import pytest, termsim
from termsim import InputReady, Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
@pytest.mark.termsim(profiles=["xterm", "vscode"], sizes=[(80, 24), (40, 12)])
async def test_who(termsim_matrix):
    async with termsim.spawn({argv!r}) as term:
        screen = await term.wait_for(Text("done> ") & InputReady())
        await term.press("q")
        await term.wait_exit()
    cols, rows = termsim_matrix.size
    assert f"size {{cols}}x{{rows}}" in screen.text
    assert f"TERM_PROGRAM={{'vscode' if termsim_matrix.profile == 'vscode' else '-'}}" \\
        in screen.text
"""


def test_a_matrix_runs_a_test_per_profile_and_size_named_in_its_id(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TERM_PROGRAM", raising=False)
    pytester.makepyfile(test_matrix=MATRIX.format(argv=program("whoami.py")))
    result = pytester.runpytest("-p", "no:randomly", "-v", "--termsim-keep=all")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*test_who*xterm-80x24*PASSED*", "*test_who*vscode-40x12*PASSED*"])
    kept = sorted(p.name for p in (pytester.path / ".termsim").glob("*.tsr"))
    assert "test_matrix.py__test_who[vscode-40x12].tsr" in kept
    # --termsim-profiles: every profile, whatever the mark says.
    result = pytester.runpytest("-p", "no:randomly", "--termsim-profiles=xterm,kitty", "-k",
                                "80x24", "-v")
    result.stdout.fnmatch_lines(["*test_who*kitty-80x24*"])


def test_termsim_profiles_lists_them_with_what_differs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["profiles"]) == 0
    out = capsys.readouterr().out
    for name in PROFILES:
        assert f"\n{name}" in f"\n{out}"
    assert "TERM_PROGRAM" in out and VSCODE.term in out


def test_the_readme_matrix_runs_four_combinations(pytester: pytest.Pytester) -> None:
    from readme import block

    pytester.makepyfile(test_readme_matrix=block("matrix"))
    result = pytester.runpytest("-p", "no:randomly", "-v")
    result.assert_outcomes(passed=8)  # 2 profiles x 2 sizes x asyncio and trio
    result.stdout.fnmatch_lines(["*kitty-40x12*PASSED*"])


@pytest.mark.parametrize(("name", "anyio_backend"), [
    (name, ("asyncio", "trio")[k % 2]) for k, name in enumerate(sorted(PROFILES))])
async def test_prompt_toolkit_and_textual_start_under_every_profile(name: str) -> None:
    # Each answers what its terminal answers, and leaves unanswered what its
    # terminal would (dumb answers nothing): neither program may wait on it.
    # What is checked is the profile's answers, which the terminal gives
    # whatever runs the session: each profile on one backend, the two taking
    # turns (both started two real programs under every profile, 9 s of CPU).
    pytest.importorskip("prompt_toolkit")
    pytest.importorskip("textual")
    async with termsim.spawn(program("ptk_title.py"), profile=name) as term:
        await term.wait_for(termsim.CursorAfter("> ") & InputReady())
        assert "CPR" not in term.screen.text  # prompt_toolkit's warning
        await term.press("ctrl+d")
        assert await term.wait_exit() == 0
    async with termsim.spawn(program("textual_button.py"), profile=name, timeout=30) as term:
        await term.wait_for(Text("Press me") & InputReady())
        await term.press("ctrl+q")
        assert await term.wait_exit() == 0
        statuses = {q.status for q in term.queries if q.kind == "decrqm"}
    # textual asks for synchronized output and more with DECRQM: answered
    # where the profile's terminal answers DECRQM, logged unanswered where not.
    assert statuses == ({"answered"} if PROFILES[name].modes is not None else {"unsupported"})


ONE_FAILS = """
import pytest, termsim
from termsim import InputReady, Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_who():
    async with termsim.spawn({argv!r}) as term:
        screen = await term.wait_for(Text("done> ") & InputReady())
        await term.press("q")
        await term.wait_exit()
    assert "da1: b''" not in screen.text, "the program got no device attributes"
"""


def test_all_profiles_give_a_test_each_and_the_failing_one_is_named(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_one=ONE_FAILS.format(argv=program("whoami.py")))
    result = pytester.runpytest("-p", "no:randomly", "--termsim-profiles=all", "-rf")
    result.assert_outcomes(passed=len(PROFILES) - 1, failed=1)
    result.stdout.fnmatch_lines([
        "*replay: termsim play .termsim/test_one.py__test_who[[]dumb[]].tsr*",
        "FAILED test_one.py::test_who[[]dumb[]] - AssertionError: the program got no devic*",
    ])


@pytest.mark.parametrize("name", sorted(PROFILES))
async def test_neovim_starts_under_every_profile(name: str, tmp_path: Path) -> None:
    import shutil

    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("neovim is not installed")
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": str(tmp_path)}
    async with termsim.spawn([nvim, "--clean", "notes.txt"], profile=name, env=env,
                             cwd=tmp_path, timeout=30) as term:
        await term.wait_for(Text("two") & Text("notes.txt") & InputReady())
        await term.type(":q!\n")
        assert await term.wait_exit() == 0


GOLDEN = """
import pytest, termsim
from termsim import InputReady, Region, Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
@pytest.mark.termsim(profiles=["xterm", "kitty"])
async def test_who(termsim_matrix):
    async with termsim.spawn({argv!r}, stall=1) as term:
        await term.wait_for(Text("done> ") & InputReady())
        # The answers differ by profile: so does the golden.
        await term.expect_screen(golden="who", region=Region.rows(0, 3))
        await term.press("q")
        await term.wait_exit()
"""


def test_goldens_may_differ_by_profile(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_gold=GOLDEN.format(argv=program("whoami.py")))
    screens = pytester.path / "test_gold.screens"
    result = pytester.runpytest("-p", "no:randomly", "--termsim-update")
    result.assert_outcomes(passed=2)
    assert sorted(p.name for p in screens.iterdir()) == [
        "test_who__who@kitty.screen", "test_who__who@xterm.screen"]
    assert "kitty" in (screens / "test_who__who@kitty.screen").read_text()
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)
    # A shared golden that matches one combination serves it; the other
    # keeps its own.
    (screens / "test_who__who@xterm.screen").rename(screens / "test_who__who.screen")
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)
    (screens / "test_who__who@kitty.screen").unlink()
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_who[[]kitty[]]*ScreenMismatch*"])
