"""docs/from-pexpect.md runs: each pexpect block and the termsim block that
replaces it drive the example REPL and reach the same outcome.

The page's blocks sit under ``<!-- docs: NAME -->`` comments (the convention
of ``tests/test_docs.py``, whose ``docs_fence`` reads them, and whose
``test_every_docs_block_is_named_once_and_taken_by_a_test`` fails for a
block no test here takes). The page's setup block (imports, ``APP``,
``PROMPT``, the REPL's HOME, pexpect's ``answering``) runs first in a fresh
namespace with ``tmp_path``; then a pexpect block runs as written, and its
termsim block as the body of an async test (top-level ``await`` compiled in).
Each pair names the variables its two blocks leave (``status``, ``reply``...):
both must leave them, with the values given here, so a block that stops
early, or a pair that drifts apart, fails.

The blocks that show pexpect failing (no CPR answered, a toolbar word never
whole in the bytes) are run too, and must fail as the page says. The
sections after the pairs run as test files in a pytest of their own
(pytester), from the repository's root as a reader runs them.

One backend (asyncio) here: the page's termsim blocks use nothing of a
backend, the README's tests run the same calls on trio, and the pexpect half
of each pair would only run twice.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import inherited_env, program
from readme import ROOT
from test_docs import docs_fence

import termsim
from termsim import CursorAfter, InputReady, Stalled, Text

pytestmark = pytest.mark.anyio

PROMPT = CursorAfter("❯ ") & InputReady()
REPL = ROOT / "examples" / "agent_repl.py"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _from_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's ``APP`` is ``examples/agent_repl.py``: run from the root, as it says."""
    monkeypatch.chdir(ROOT)


# -- running the page's blocks ---------------------------------------------------------


def _namespace(home: Path) -> dict[str, Any]:
    """A namespace in which the page's setup block has run, with ``tmp_path``
    (the REPL's HOME) as pytest would give it."""
    home.mkdir(parents=True, exist_ok=True)
    namespace: dict[str, Any] = {"tmp_path": home, "__name__": "from_pexpect"}
    exec(compile(docs_fence("from-pexpect-setup"), "<docs: from-pexpect-setup>", "exec"),
         namespace)
    return namespace


def run_pexpect(source: str, name: str, home: Path) -> dict[str, Any]:
    """Run a pexpect block; what it leaves. A child it left running is ended."""
    namespace = _namespace(home)
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns that a fork in a process with threads may
            # deadlock (termsim's sessions use worker threads); pexpect forks.
            warnings.filterwarnings("ignore", r".*fork\(\) may lead to deadlocks",
                                    DeprecationWarning)
            exec(compile(source, f"<docs: {name}>", "exec"), namespace)
    finally:
        child = namespace.get("child")
        if child is not None and child.isalive():
            child.terminate(force=True)
    return namespace


async def run_termsim(source: str, name: str, home: Path,
                      **overrides: Any) -> dict[str, Any]:
    """Run a termsim block (top-level ``await`` and ``async with``) as the
    body of this async test; what it leaves. ``overrides`` replace names
    the setup defined."""
    namespace = _namespace(home)
    namespace.update(overrides)
    code = compile(source, f"<docs: {name}>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, namespace)
    if inspect.iscoroutine(result):
        await result
    return namespace


NOT_SET = "<not set: the block never got there>"


def left(namespace: dict[str, Any], names: dict[str, object]) -> dict[str, object]:
    return {name: namespace.get(name, NOT_SET) for name in names}


# -- the pairs ---------------------------------------------------------------------------

REPLY = [
    "assistant: thinking about 'hello'",
    "assistant: line 2 of the reply",
    "assistant: line 3 of the reply",
    "assistant: done (5 chars)",
]

#: What both blocks of each pair leave behind.
OUTCOMES: dict[str, dict[str, object]] = {
    "spawn": {"status": 0},
    "expect": {"chars": "5"},
    "expect-exact": {"after": "assistant: done (5 chars)"},
    "send": {"reply": "assistant: thinking about 'howdy'"},
    "before": {"lines": REPLY},
    "eof": {"bye": True, "status": 0},
    "timeout": {"booting": True},
    "kill": {"signum": 15},
}


def pair(name: str) -> tuple[str, str]:
    """The pexpect block of ``name`` and the termsim block that replaces it."""
    return {
        "spawn": (docs_fence("spawn-in-pexpect"), docs_fence("spawn-in-termsim")),
        "expect": (docs_fence("expect-in-pexpect"), docs_fence("expect-in-termsim")),
        "expect-exact": (docs_fence("expect-exact-in-pexpect"),
                         docs_fence("expect-exact-in-termsim")),
        "send": (docs_fence("send-in-pexpect"), docs_fence("send-in-termsim")),
        "before": (docs_fence("before-in-pexpect"), docs_fence("before-in-termsim")),
        "eof": (docs_fence("eof-in-pexpect"), docs_fence("eof-in-termsim")),
        "timeout": (docs_fence("timeout-in-pexpect"), docs_fence("timeout-in-termsim")),
        "kill": (docs_fence("kill-in-pexpect"), docs_fence("kill-in-termsim")),
    }[name]


@pytest.mark.parametrize("name", list(OUTCOMES))
async def test_each_pexpect_block_and_the_termsim_block_replacing_it_reach_the_same_outcome(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    pexpect_source, termsim_source = pair(name)
    expected = OUTCOMES[name]
    by_pexpect = run_pexpect(pexpect_source, f"{name}-in-pexpect", tmp_path / "pexpect")
    by_termsim = await run_termsim(termsim_source, f"{name}-in-termsim", tmp_path / "termsim")
    assert left(by_pexpect, expected) == expected, "the pexpect block"
    assert left(by_termsim, expected) == expected, "the termsim block"
    printed = capsys.readouterr().out
    if name == "spawn":
        # "termsim answers every query ...: each one answered".
        assert by_termsim["cpr"] and set(by_termsim["cpr"]) == {"answered"}
    if name == "timeout":
        # pexpect's error holds the stream's tail; termsim's the wait's story.
        assert "Timeout exceeded." in printed
        termsim_part = printed[printed.index("timed out after 3 s"):]
        assert "waiting for the cursor right after '❯ '" in termsim_part
        assert "what happened during the wait" in termsim_part
        assert "the screen at the end:" in termsim_part
        assert "state: booting" in termsim_part


def test_the_pairs_are_the_pages_sections_in_its_order() -> None:
    """Every ``NAME-in-pexpect`` block of the page has its pair here (the
    interact pair runs in a test of its own, and the CPR and toolbar blocks
    in theirs), in the page's order."""
    text = (ROOT / "docs" / "from-pexpect.md").read_text()
    on_page = re.findall(r"<!-- docs: ([\w-]+)-in-pexpect -->", text)
    assert on_page == ["spawn", "expect", "expect-exact", "toolbar", "send", "before", "eof",
                       "timeout", "interact", "kill"]
    assert set(on_page) - set(OUTCOMES) == {"toolbar", "interact"}


# -- where pexpect fails ---------------------------------------------------------------


def test_without_cpr_answers_the_pexpect_port_never_sees_the_prompt(tmp_path: Path) -> None:
    # The block waits for prompt_toolkit's warning, then for a prompt that
    # never comes.
    left_by = run_pexpect(docs_fence("spawn-without-cpr"), "spawn-without-cpr", tmp_path)
    assert left_by["prompt"] is False


async def test_the_toolbar_word_is_on_the_screen_but_never_whole_in_the_bytes(
    tmp_path: Path,
) -> None:
    by_pexpect = run_pexpect(docs_fence("toolbar-in-pexpect"), "toolbar-in-pexpect",
                             tmp_path / "pexpect")
    by_termsim = await run_termsim(docs_fence("toolbar-in-termsim"), "toolbar-in-termsim",
                                   tmp_path / "termsim")
    assert by_pexpect["toolbar"] is None
    # What pexpect read instead: the cursor moved past "state: ", then the word.
    assert "sleeping" in by_pexpect["child"].before
    assert by_termsim["toolbar"] == "state: sleeping"


# -- interact ----------------------------------------------------------------------------


async def person(argv: list[str], env: dict[str, str], cwd: Path) -> str:
    """Be the person at the keyboard: ask a question, read the answer, leave
    with Ctrl-D. What the terminal showed at the end."""
    async with termsim.spawn(argv, env=env, cwd=cwd, timeout=30) as term:
        await term.wait_for(PROMPT)
        mark = await term.type("hello\n")
        await term.wait_for(Text("assistant: done (5 chars)") & PROMPT, since=mark)
        await term.press("ctrl+d")
        assert await term.wait_exit() == 0
        return term.screen.text


def test_interact_and_termsim_record_both_give_the_repl_to_a_person(
    tmp_path: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    here = Path(sys.executable).parent  # python, termsim: this environment's
    env = {**inherited_env(), "PATH": f"{here}:{inherited_env().get('PATH', '')}"}
    monkeypatch.setenv("PATH", env["PATH"])

    # pexpect: the setup and the block as one script, in a terminal of ours.
    home = tmp_path / "pexpect"
    home.mkdir()
    script = (f"from pathlib import Path\ntmp_path = Path({str(home)!r})\n"
              + docs_fence("from-pexpect-setup") + docs_fence("interact-in-pexpect")
              + "print('STATUS', status)\n")
    shown = anyio.run(person, [sys.executable, "-c", script], env, ROOT)
    assert "assistant: done (5 chars)" in shown
    assert re.search(r"^STATUS 0$", shown, re.M), shown

    # termsim: the two commands, with the REPL's path made absolute, run
    # where the recording and the test may be written; then the test it wrote.
    commands = docs_fence("interact-in-termsim")
    work = tmp_path / "termsim"
    work.mkdir()
    configured = _namespace(work)["env"]["HOME"]
    shown = anyio.run(person, ["sh", "-c", commands.replace("examples/agent_repl.py", str(REPL))],
                      {**env, "HOME": configured}, work)
    assert "recorded to turn.tsr (exit status 0)" in shown
    written = (work / "test_turn.py").read_text()
    assert 'await term.type("hello")' in written
    monkeypatch.setenv("HOME", configured)
    # On one of the two backends anyio's plugin gives it. (This test is not
    # async, and runs its sessions with anyio.run: an inner pytest cannot
    # run in a running event loop.)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--rootdir={work}",
                                          "-k", "asyncio", str(work / "test_turn.py"))
    assert result.ret == 0, result.stdout.str()[-3000:]
    result.assert_outcomes(passed=1, deselected=1)


# -- the sections after the pairs ------------------------------------------------------

ON_ANY_BACKEND = """
import pytest
import termsim

pytestmark = pytest.mark.anyio


async def test_runs():
    async with termsim.spawn(["true"]) as term:
        assert await term.wait_exit(timeout=30) == 0
"""


def test_the_one_backend_fixture_runs_each_test_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_backend=ON_ANY_BACKEND)
    both = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-v")
    both.assert_outcomes(passed=2)  # anyio's own fixture: asyncio and trio
    both.stdout.fnmatch_lines(["*test_runs[[]trio[]] PASSED*"])
    pytester.makeconftest(docs_fence("one-backend"))
    one = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-v")
    one.assert_outcomes(passed=1)
    assert "trio" not in one.stdout.str()


def _run_file(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, path: Path,
              *args: str) -> pytest.RunResult:
    """A pytest of its own over ``path``, from the repository's root (the
    file names ``examples/agent_repl.py``), as a reader runs it."""
    monkeypatch.chdir(ROOT)  # pytester went to its own directory
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--rootdir={pytester.path}",
                                        str(path), *args)


def test_sessions_of_the_fixture_example_are_shaken(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = pytester.makepyfile(test_fixture=docs_fence("fixture-that-shakes"))
    result = _run_file(pytester, monkeypatch, path, "--termsim-shake=3")
    text = result.stdout.str()
    assert result.ret == 0, text[-3000:]
    result.assert_outcomes(passed=1)
    assert "termsim shake: 1 passing tests ran 3 variants of their recordings" in text
    assert "not shaken" not in text


def test_the_pytest_asyncio_example_passes_and_is_shaken(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip(
        "pytest_asyncio",
        reason="pytest-asyncio is not installed: this project's own configuration "
               "(filterwarnings error, --strict-config) cannot have it; see "
               "docs/from-pexpect.md, 'pytest-asyncio'")
    pytester.makepyprojecttoml(docs_fence("pytest-asyncio-config"))
    path = pytester.makepyfile(test_asyncio=docs_fence("pytest-asyncio-test"))
    result = _run_file(pytester, monkeypatch, path, "--termsim-shake=2")
    text = result.stdout.str()
    assert result.ret == 0, text[-3000:]
    result.assert_outcomes(passed=1)
    assert "termsim shake: 1 passing tests ran 2 variants of their recordings" in text


async def test_the_spinner_example_answers_and_an_idle_agent_stalls_at_once(
    tmp_path: Path,
) -> None:
    source = docs_fence("spinners-and-clocks")
    answered = await run_termsim(source, "spinners-and-clocks", tmp_path / "repl")
    assert "assistant: done (5 chars)" in answered["screen"].text

    # An agent whose clock ticks in its toolbar and that goes idle without an
    # answer (tests/programs/ptk_ticking.py): Stalled, not the 300 s timeout.
    ticking = {**inherited_env(), "TICKING_SILENT": "1"}
    with pytest.raises(Stalled) as stalled:
        await run_termsim(source, "spinners-and-clocks", tmp_path / "ticking",
                          APP=program("ptk_ticking.py"), env=ticking)
    message = str(stalled.value)
    assert "nothing changed outside the bottom row for 5.0 s" in message
    assert re.search(r"ignored \(ignore=\): the bottom row, which changed on \d+ screens",
                     message), message
