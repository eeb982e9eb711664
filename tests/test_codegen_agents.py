"""``termsim codegen`` on the recordings agent suites have: an ink-style TUI
(``tests/programs/inkapp.py``: whole-frame redraws in erase-line runs, a
hidden cursor, a no-break space after its prompt, a status line redrawn
identically every frame with a clock on it) talking to a fake model server
on 127.0.0.1; a recording the pytest plugin kept when the test ended with
the program still running; a program that drops keys pressed while it
starts; one that reads its settings from the environment.

Each generated test passes live (three times), on replay and under shake,
and fails when the program's answer is not there, however much of the
screen stays the same.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest
from conftest import ROOT, inherited_env, program
from helpers import recorded
from test_codegen import _check_generated

import termsim
from termsim import InputReady, Quiet, Text
from termsim.codegen import generate
from termsim.files import Recording

REPLY = "The answer is 42.\nAsk me anything else."
REPLY_END = "⏺ Ask me anything else."
OPTIONS = ("-p", "no:randomly", "-p", "no:cacheprovider")


class ModelServer:
    """A model API on 127.0.0.1 answering every prompt with :attr:`reply`."""

    def __init__(self) -> None:
        self.reply = REPLY
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                data = json.dumps({"reply": server.reply}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModelServer]:
    """The fake model server, its URL in the environment (the generated
    tests, run in this process, inherit it), an ink app that keeps no key
    from the start (``INKAPP_SETTLE=0``) unless a test says otherwise."""
    server = ModelServer()
    server.thread.start()
    monkeypatch.setenv("INKAPP_MODEL_URL", server.url)
    monkeypatch.setenv("INKAPP_SETTLE", "0")
    try:
        yield server
    finally:
        server.http.shutdown()
        server.http.server_close()
        server.thread.join(10)


async def _picker(term: termsim.Driver) -> None:
    await term.wait_for(Text("Select a mode") & InputReady(), timeout=30)
    # Down, up (the selection leaves "careful"), down; then Enter picks it.
    for key, selected in (("down", "❯ 2. careful"), ("up", "❯ 1. fast"),
                          ("down", "❯ 2. careful")):
        mark = await term.press(key)
        await term.wait_for(Text(selected), since=mark)
    mark = await term.press("enter")
    await term.wait_for(Text("? for shortcuts"), since=mark)


async def _turn(term: termsim.Driver) -> None:
    await term.type("hello")
    await term.wait_for(Text("❯\u00a0hello"))
    mark = await term.press("enter")
    await term.wait_for(Text(REPLY_END), since=mark, timeout=30)


async def _ink_session(term: termsim.Driver) -> None:
    await _picker(term)
    await _turn(term)
    mark = await term.press("ctrl+c")
    await term.wait_for(Text("Press Ctrl-C again to exit"), since=mark)
    await term.press("ctrl+c")
    assert await term.wait_exit() == 0


def _run_live(pytester: pytest.Pytester, source: str) -> pytest.RunResult:
    pytester.makepyfile(test_generated=source)
    return pytester.runpytest(*OPTIONS, "-k", "asyncio")


@pytest.fixture(scope="module")
def ink_recording(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One recording of the ink app's session (against a model server of its
    own) and the test made from it, shared by the tests that run that test
    (one whole test of all of it took 25 s; xdist spreads these)."""
    server = ModelServer()
    server.thread.start()
    recording = tmp_path_factory.mktemp("ink") / "ink.tsr"
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("INKAPP_MODEL_URL", server.url)
            env.setenv("INKAPP_SETTLE", "0")
            anyio.run(recorded, program("inkapp.py"), recording, _ink_session)
    finally:
        server.http.shutdown()
        server.http.server_close()
        server.thread.join(10)
    return recording, generate(str(recording))


def test_an_ink_app_s_test_awaits_the_reply(
    pytester: pytest.Pytester, ink_recording: tuple[Path, str], model: ModelServer,
) -> None:
    recording, made = ink_recording
    source = _check_generated(pytester, recording)
    assert source == made
    # What each input changed, none of it on the screen before the input.
    assert f'Text("{REPLY_END}", region=Region.row(3))' in source
    assert 'Text("❯ 1. fast", region=Region.row(1))' in source  # not the row it left
    assert 'Text("Press Ctrl-C again to exit", region=Region.row(9))' in source
    assert "? for shortcuts\", region=Region.row(9)" not in source  # the footer, moved


@pytest.mark.parametrize("reply", ["I cannot help with that.\nTry another question.", ""],
                         ids=["another-reply", "no-reply"])
def test_an_ink_app_s_test_fails_without_the_reply(
    pytester: pytest.Pytester, ink_recording: tuple[Path, str], model: ModelServer,
    reply: str,
) -> None:
    # The status line, its clock ticking, and the footer are on the screen
    # whatever the model says (in the same rows for another reply of as
    # many lines): a reply that is another, or none, fails.
    _, source = ink_recording
    model.reply = reply
    # The wait for the reply can only time out here: 2 s, not 10, say so.
    wait = f'Text("{REPLY_END}", region=Region.row(3)), since=mark)'
    assert source.count(wait) == 1, source
    result = _run_live(pytester, source.replace(wait, wait[:-1] + ", timeout=2)"))
    assert result.ret != 0, source
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*WaitTimeout: timed out after * waiting for text "
                                 f"{REPLY_END!r} in row *", "*● careful · /effort ·*"])


def test_keys_the_program_drops_while_it_starts_wait_for_it_to_settle(
    pytester: pytest.Pytester, tmp_path: Path, model: ModelServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Keys sent while it makes its 20 round trips to the terminal are lost:
    # one pressed as the picker shows always is, one pressed once it has
    # been quiet never is (the run ends with a redraw), however loaded the
    # machine (see inkapp.py).
    monkeypatch.setenv("INKAPP_SETTLE", "20")

    async def session(term: termsim.Driver) -> None:
        await term.wait_for(Text("Select a mode") & InputReady(), timeout=30)
        await term.wait_for(Quiet(0.5))  # as a person waits for the dialog to settle
        mark = await term.press("down")
        await term.wait_for(Text("❯ 2. careful"), since=mark)
        mark = await term.press("enter")
        await term.wait_for(Text("? for shortcuts"), since=mark)
        await _turn(term)

    recording = tmp_path / "settle.tsr"
    anyio.run(recorded, program("inkapp.py"), recording, session)
    source = _check_generated(pytester, recording)
    # The wait for the quiet stands between the picker and the first key. As
    # long as the pause was, in tenths (a loaded machine may pause longer, and
    # elsewhere too: only this one matters).
    first_key = source.index('await term.press("down")')
    settle = re.search(r"await term\.wait_for\(Quiet\((?:0\.[5-9]|1)\)\)\n", source)
    assert settle is not None and settle.end() <= first_key, source
    # It is what makes the test pass: without it, the first key is lost.
    without = source[:settle.start()] + "pass\n" + source[settle.end():]
    # The wait after that key can only time out then: 2 s, not 10, say so.
    lost = re.compile(r'(await term\.press\("down"\)\n\s*await term\.wait_for\(Text\("❯ 2\. '
                      r'careful"[^\n]*since=mark)\)')
    assert lost.search(without) is not None, without
    result = _run_live(pytester, lost.sub(r"\1, timeout=2)", without, count=1))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*WaitTimeout: timed out after * waiting for text "
                                 "'❯ 2. careful'*"])


def test_a_temporary_path_is_left_free_where_a_long_row_is_cut(
    pytester: pytest.Pytester, tmp_path: Path, model: ModelServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("INKAPP_SHOW_CWD", "1")  # the frame's last row: the working directory
    project = tmp_path / "gemini-work" / "d" / "proj"
    project.mkdir(parents=True)
    assert len(str(project)) > 60  # longer than the part of a row a wait names

    async def session() -> None:
        async with termsim.spawn(program("inkapp.py"), cols=120, rows=24, cwd=project,
                                 env=inherited_env(), record=tmp_path / "cwd.tsr") as term:
            await _picker(term)
            await _turn(term)

    anyio.run(session)
    source = generate(str(tmp_path / "cwd.tsr"))
    assert "gemini-work" not in source and "/proj" not in source, source
    # The generated test runs elsewhere: its working directory is another.
    _check_generated(pytester, tmp_path / "cwd.tsr", runs=1)


INNER = '''
import pytest
import termsim
from termsim import InputReady, Text

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def test_turn():
    async with termsim.spawn({argv!r}, cols=80, rows=24, env={env!r}) as term:
        await term.wait_for(Text("Select a mode") & InputReady(), timeout=30)
        mark = await term.press("enter")
        await term.wait_for(Text("? for shortcuts"), since=mark)
        await term.type("hello")
        await term.wait_for(Text("hello"))
        mark = await term.press("enter")
        await term.wait_for(Text({reply!r}), since=mark, timeout=30)
    # The test ends with the app still running: termsim hangs up on it.
'''


def test_a_recording_the_plugin_kept_is_no_exit_and_its_last_input_has_a_wait(
    pytester: pytest.Pytester, model: ModelServer,
) -> None:
    inner = pytester.makepyfile(test_turn=INNER.format(
        argv=program("inkapp.py"), env=inherited_env(), reply=REPLY_END))
    result = pytester.runpytest(*OPTIONS, "--termsim-keep", "all")
    result.assert_outcomes(passed=1)
    inner.unlink()
    (recording,) = (pytester.path / ".termsim").glob("*.tsr")
    info = Recording.open(recording)
    assert any(isinstance(e, termsim.events.Hangup) for e in info.events)
    source = generate(str(recording))
    assert "wait_exit" not in source, source  # termsim's hang-up is not the program's exit
    drive = source[source.index("async def drive"):source.index("async def test_")]
    last = drive.rstrip().split("\n")[-2:]
    assert last[0].strip() == 'mark = await term.press("enter")', drive
    assert REPLY_END in last[1], drive
    _check_generated(pytester, recording)


def test_the_same_recording_gives_the_same_file_whatever_path_says(tmp_path: Path) -> None:
    recording = ROOT / "recordings" / "passing.tsr"
    venv_bin = str(Path(sys.executable).parent)
    outputs = []
    for path in (f"{venv_bin}:/usr/bin:/bin", "/usr/bin:/bin"):
        env = {**os.environ, "PATH": path}
        env.pop("VIRTUAL_ENV", None)
        done = subprocess.run([sys.executable, "-m", "termsim", "codegen", str(recording)],
                              env=env, cwd=tmp_path, capture_output=True, check=False,
                              timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1], b"\n=====\n".join(outputs).decode()
    # Formatted, as in this process, where ruff is beside the interpreter.
    assert outputs[0].decode().rstrip("\n") == generate(str(recording)).rstrip("\n")


async def _show_env(term: termsim.Driver) -> None:
    await term.wait_for(Text("ready> "))
    await term.type("x\n")
    assert await term.wait_exit() == 0


def test_the_environment_the_test_set_is_written_into_the_spawn(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A variable of the header's allowlist: its value in the spawn.
    recording = tmp_path / "ci.tsr"
    anyio.run(functools.partial(recorded, program("showenv.py", "CI"), recording, _show_env,
                                env={**inherited_env(), "CI": "1"}))
    monkeypatch.delenv("CI", raising=False)  # the generated test runs where CI is unset
    source = _check_generated(pytester, recording, runs=1)
    assert '"CI": "1"' in source and "env={**os.environ, **ENV}" in source

    # Any other the test set, from the header's spawn_env: the value where
    # it is kept; where it is withheld, the test needs it set, and says so.
    # The recorder keeps them (live, not made up): the secret's name only.
    monkeypatch.delenv("MYAGENT_API_KEY", raising=False)
    recording = tmp_path / "lines.tsr"
    anyio.run(functools.partial(
        recorded, program("showenv.py", "?MYAGENT_API_KEY", "MYAGENT_REPLY_LINES"), recording,
        _show_env, env={**inherited_env("MYAGENT_"), "MYAGENT_REPLY_LINES": "30",
                        "MYAGENT_API_KEY": "sk-test"}))
    header = termsim.files.Recording.open(recording).header
    assert header["spawn_env"] == {"MYAGENT_API_KEY": None, "MYAGENT_REPLY_LINES": "30"}
    monkeypatch.setenv("MYAGENT_API_KEY", "sk-test")
    source = generate(str(recording))
    assert '"MYAGENT_REPLY_LINES": "30"' in source and "sk-test" not in source
    _check_generated(pytester, recording, runs=1)
    monkeypatch.delenv("MYAGENT_API_KEY")
    result = _run_live(pytester, source)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*set MYAGENT_API_KEY: the recorded program ran with it*"])
