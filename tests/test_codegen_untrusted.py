"""``termsim codegen`` on a stranger's recording writes only literals: no
string the recording holds (its file name, the header's ``started``,
``argv``, ``cwd``, ``env`` and ``term``, a comment typed into the marks
menu, the screens the program drew, what was typed) can become code in the
generated test (issue 33, "Generated code contains only literals").

Each crafted recording is the real session of ``recordings/passing.tsr``
rewritten with the real writer, one kind of field at a time and all at
once, with CR, LF, ``\"\"\"``, quotes, backslashes, NUL, U+2028, a lone
surrogate (in the file name, the one place a recording's reader lets one
through), OSC 52 and payloads that run ``exit(42)`` or ``os.system``. Its
clean twin is the same rewrite with every such character replaced by a
letter. The module generated from the crafted one parses to the same
tree as the twin's but for the values of its constants, collecting it runs
nothing, the literals mean what was recorded (its own ``drive`` replays the
crafted recording and passes), and it holds no control character but the
newlines between its lines.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import os
import re
import sys
import tokenize
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path

import pytest
from conftest import inherited_env

import termsim
import termsim.codegen.module as codegen_module
from termsim import CursorAt, Text
from termsim.codegen import generate, generate_files
from termsim.codegen.keys import decode
from termsim.emulator.terminals.xterm import printable
from termsim.events import End, Input, Note, Output
from termsim.recording.format import Recording, RecordingWriter

ROOT = Path(__file__).resolve().parent.parent
PASSING = ROOT / "recordings" / "passing.tsr"

#: What the crafted module would do if any part of it ran: write this file
#: (in the directory pytest runs in), set this variable, or exit.
MARKER = "PWNED"
RUN = f'__import__("os").system("touch {MARKER}")'
SET = f'__import__("os").environ.__setitem__("TERMSIM_{MARKER}", "1")'
#: Characters that mean something in Python source or to a terminal.
CHARS = '"""\r\n\\\'#\x00\u2028\u2029\u202e\x85\x0c\x0b\x1c\x1b]52;c;aGk=\x07;exit(42);'
#: What a program draws of them (a terminal acts on the controls).
DRAWN = '"""\\\'# \u2028 \u2029 \u202e \x1b]52;c;aGk=\x07exit(42)'

MARKS = "termsim: "


@dataclass
class Craft:
    """What a rewrite of ``passing.tsr`` puts in each field (None: as recorded)."""

    name: str = "crafted"
    started: str | None = None
    header: dict[str, object] = field(default_factory=dict)
    argv: list[str] | None = None
    #: Comments typed into the marks menu, before the first input and at the end.
    comments: tuple[str, ...] = ("a comment",)
    #: The rows the program prints in place of its first reply line.
    reply: tuple[str, ...] = ("thinking about 'hello'",)
    #: What the last reply line says after ``assistant: done at 10:41:07``.
    done: str = "(5 chars)"
    typed: str = "hello"

    def clean(self) -> Craft:
        """The twin: every character that is not a letter, a digit, a blank
        or ``:.()`` is an ``x``, so each field keeps its length and its words."""
        def tame(text: str) -> str:
            return re.sub(r"[^A-Za-z0-9 :.()]", "x", text)
        return Craft(
            name=tame(self.name), started=tame(self.started) if self.started else None,
            header={k: {n: tame(v) for n, v in v.items()} if isinstance(v, dict) else tame(str(v))
                    for k, v in self.header.items()},
            argv=[tame(a) for a in self.argv] if self.argv else None,
            comments=tuple(map(tame, self.comments)), reply=tuple(map(tame, self.reply)),
            done=tame(self.done), typed=tame(self.typed))


CASES = {
    "file name, code": Craft(name=f'x""";{RUN};{SET};"""y'),
    "file name, characters": Craft(name=CHARS.replace("\x00", "") + "\udcff"),
    "started, code": Craft(started='""";exit(42);"""'),
    "started, characters": Craft(started=CHARS[:19]),
    "cwd, env and term": Craft(header={"cwd": CHARS, "term": CHARS,
                                       "env": {"TERM": CHARS, "LANG": CHARS}}),
    "argv": Craft(argv=["python", "examples/agent_repl.py", CHARS + RUN]),
    "comment, code": Craft(comments=(f"x\r{RUN}\r{SET}\rasync def _f():",)),
    "comment, characters": Craft(comments=(CHARS + RUN, "\r", "#", "")),
    "screen, code": Craft(reply=('""")', RUN, SET, 'x = dict(y="""')),
    "screen, characters": Craft(reply=(DRAWN, '"', "\\", "screen 80x24", "{1}: bold")),
    "awaited row": Craft(done="\\'# \u2028\u202e\x1b]52;c;aGk=\x07exit(42)"),
    "typed text": Craft(typed=f'"""\\\'#é;exit(42);{RUN}#'),
}
CASES["everything"] = Craft(
    name=CASES["file name, characters"].name, started=CASES["started, code"].started,
    header=CASES["cwd, env and term"].header, argv=CASES["argv"].argv,
    comments=(*CASES["comment, code"].comments, *CASES["comment, characters"].comments),
    reply=(*CASES["screen, code"].reply, *CASES["screen, characters"].reply),
    done=CASES["awaited row"].done, typed=CASES["typed text"].typed)


def _comment_notes(craft: Craft) -> list[Note]:
    return [Note(0.0, f"{MARKS}comment {text}") for text in craft.comments]


def craft(directory: Path, what: Craft) -> Path:
    """``passing.tsr`` rewritten with ``what``, by the recording writer."""
    recorded = Recording.open(PASSING)
    header = {**recorded.header, **what.header}
    if what.started is not None:
        header["started"] = what.started
    if what.argv is not None:
        header["argv"] = what.argv
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{what.name}.tsr"
    writer = RecordingWriter(path, header)
    reply = "\r\n".join(what.reply).encode()
    first = True
    for event in recorded.events:
        if isinstance(event, End):
            writer.close(event.t, event.how)
            break
        if isinstance(event, Input) and first:
            first = False  # marks made before the first input
            for note in _comment_notes(what):
                writer.write(dataclasses.replace(note, t=event.t))
        if isinstance(event, Input) and event.data == b"\x04":  # the end: marks
            for label in ("assert the screen", "assert the row"):
                writer.write(Note(event.t, MARKS + label))
            for note in _comment_notes(what):
                writer.write(dataclasses.replace(note, t=event.t))
        if isinstance(event, Input) and event.data == b"hello":
            event = dataclasses.replace(event, data=what.typed.encode(),
                                        label=f"typed {what.typed!r}")
        if isinstance(event, Output):
            data = event.data.replace(b"thinking about 'hello'", reply)
            data = data.replace(b"done (5 chars)", f"done at 10:41:07 {what.done}".encode())
            event = dataclasses.replace(event, data=data)
        writer.write(event)
    return path


# -- what the generated module is made of ----------------------------------------------


def shape(source: str) -> object:
    """The module's tree with each constant's value left out (its type
    kept), and the test function's name (made from the file's) too."""
    def of(node: object) -> object:
        if isinstance(node, ast.Constant):
            return ("Constant", type(node.value).__name__)
        if isinstance(node, ast.AST):
            return (type(node).__name__, tuple(
                (name, "test_" if name == "name" and str(value).startswith("test_")
                 else of(value)) for name, value in ast.iter_fields(node)))
        if isinstance(node, list):
            return tuple(of(item) for item in node)
        return node
    return of(ast.parse(source))


def comments(source: str) -> list[str]:
    return [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type == tokenize.COMMENT]


def hidden(source: str) -> list[str]:
    """The characters of ``source`` a reader would not see as they are or
    that end a line: controls but the newline, surrogates, line and
    paragraph separators, format characters (bidi overrides) but joiners."""
    return sorted({c for c in source if c != "\n" and unicodedata.category(c) in
                   ("Cc", "Cs", "Zl", "Zp", "Cf") and c not in "\u200c\u200d"})


def calls(tree: ast.AST, name: str) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == name:
            yield node


def _constant(node: ast.expr) -> object:
    assert isinstance(node, ast.Constant), ast.dump(node)
    return node.value


def _run_generated(pytester: pytest.Pytester, recording: Path, source: str,
                   *args: str) -> pytest.RunResult:
    replay = f'''

async def test_replay() -> None:
    async with termsim.replay({str(recording)!r}) as term:
        await drive(term)
'''
    (pytester.path / "test_generated.py").write_text(source + replay, encoding="utf-8")
    return pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", *args)


@pytest.mark.parametrize("case", list(CASES))
def test_a_crafted_recording_generates_only_literals(
    case: str, tmp_path: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    what = CASES[case]
    crafted = craft(tmp_path / "crafted", what)
    clean = craft(tmp_path / "clean", what.clean())
    source = generate(str(crafted))
    # (d) Nothing a terminal or an editor acts on: the module may be printed.
    assert hidden(source) == [], source
    # (a) The same statements and expressions as the clean twin's, and as
    # what codegen writes where ruff's formatter is not installed.
    assert shape(source) == shape(generate(str(clean))), source
    with monkeypatch.context() as unformatted:
        unformatted.setattr(codegen_module, "_formatter", lambda: None)
        bare = generate(str(crafted))
    assert hidden(bare) == [] and shape(bare) == shape(source), bare
    tree = ast.parse(source)
    # (c) Each string from the recording means what was recorded.
    header = Recording.open(crafted).header
    docstring = ast.get_docstring(tree, clean=False) or ""
    assert docstring.split("\n")[0] == (
        f"Generated by `termsim codegen` from {printable(crafted.name)} "
        f"(recorded {printable(str(header['started'])[:19])}).")
    command = next(n.value for n in tree.body if isinstance(n, ast.Assign)
                   and ast.unparse(n.targets[0]) == "COMMAND")
    assert ast.literal_eval(command) == header["argv"]
    assert comments(source) == [f"# {printable(text)}".rstrip() for text in what.comments] * 2
    typed = [_constant(call.args[0]) for call in calls(tree, "type")]
    assert typed == [what.typed]
    if case == "cwd, env and term":  # codegen writes none of them
        assert CHARS not in source and printable(CHARS) not in source
    # (b) Importing and collecting it runs nothing; (c) its waits and its
    # screen are the recorded ones: its drive() replays the recording.
    monkeypatch.delenv(f"TERMSIM_{MARKER}", raising=False)
    result = _run_generated(pytester, crafted, source, "--collect-only", "-q")
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert not (pytester.path / MARKER).exists()
    assert f"TERMSIM_{MARKER}" not in os.environ
    result = _run_generated(pytester, crafted, source, "-k", "replay and asyncio")
    assert result.ret == 0, source + result.stdout.str()[-3000:]
    result.assert_outcomes(passed=1)
    assert not (pytester.path / MARKER).exists()
    assert f"TERMSIM_{MARKER}" not in os.environ


def test_a_screen_that_reads_as_code_keeps_its_meaning_in_the_source(tmp_path: Path) -> None:
    """The rows that would end a triple-quoted string are one literal each."""
    source = generate(str(craft(tmp_path, CASES["screen, code"])))
    screen = next(calls(ast.parse(source), "expect_screen"))
    text = _constant(screen.args[0])
    assert isinstance(text, str)
    assert '""")\n' + RUN + "\n" in text and '\nx = dict(y="""\n' in text
    assert 'await term.expect_screen("""' not in source


def test_golden_files_stay_in_the_tests_screens_folder(tmp_path: Path) -> None:
    what = dataclasses.replace(CASES["everything"], comments=(
        "../../escape", "/etc/passwd", "x\x00y", "..", *CASES["everything"].comments))
    recording = craft(tmp_path / "in", what)
    test = tmp_path / "out" / "test_it.py"
    files = generate_files(str(recording), str(test), golden=True)
    assert set(files) == {test, test.with_suffix(".screens") / "screen-1.screen"}
    assert hidden(files[test]) == []


def test_format_characters_in_a_comment_are_shown_not_kept(tmp_path: Path) -> None:
    """A zero-width space, a byte order mark or an invisible tag would hide
    what a comment says from the person reading it."""
    invisible = "a\u200bb\ufeffc\U000e0041d\u2066e"
    source = generate(str(craft(tmp_path, Craft(comments=(invisible,)))))
    assert hidden(source) == []
    assert "# a\\u200bb\\ufeffc\\U000e0041d\\u2066e" in comments(source)


def test_a_key_no_character_has_is_sent_as_bytes_not_a_crash() -> None:
    """A kitty key number past Unicode (or a surrogate's) names no key."""
    for data in (b"\x1b[99999999u", b"\x1b[55296u", b"\x1b[27;1;99999999~"):
        (key,) = decode(data)
        assert (key.kind, key.value) == ("bytes", data)


def test_a_file_name_becomes_a_test_name_python_accepts(tmp_path: Path) -> None:
    for name in ("²x", "a\u2e2fb", "ﬁle", "1st", "\udcff", "Ⅻ"):
        source = generate(str(craft(tmp_path / "names", Craft(name=name))))
        (test,) = [n.name for n in ast.parse(source).body
                   if isinstance(n, ast.AsyncFunctionDef) and n.name.startswith("test_")]
        assert test.isidentifier(), test


def test_a_resize_then_typing_generates_a_test(
    tmp_path: Path, pytester: pytest.Pytester,
) -> None:
    """A resize is a step with no keys: the typing after it used to read
    that step's first key (IndexError)."""
    recorded = Recording.open(PASSING)
    path = tmp_path / "resized.tsr"
    writer = RecordingWriter(path, recorded.header)
    for event in recorded.events:
        if isinstance(event, End):
            writer.close(event.t, event.how)
            break
        if isinstance(event, Input) and event.data == b"hello":
            writer.write(termsim.events.Resize(event.t, 100, 30))
        writer.write(event)
    source = generate(str(path))
    assert "await term.resize(cols=100, rows=30)" in source
    result = _run_generated(pytester, path, source, "-k", "replay and asyncio")
    assert result.ret == 0, source + result.stdout.str()[-3000:]


# -- honest recordings: the same tests as before --------------------------------------


def _marked(source: Path, directory: Path) -> Path:
    """A real recording with the marks a person makes before each input:
    the screen, the cursor's row, a comment."""
    recorded = Recording.open(source)
    path = directory / source.name
    writer = RecordingWriter(path, recorded.header)
    for event in recorded.events:
        if isinstance(event, End):
            writer.close(event.t, event.how)
            break
        if isinstance(event, Input):
            for label in ("assert the screen", "assert the row", f"comment before {event.label}"):
                writer.write(Note(event.t, MARKS + label))
        writer.write(event)
    return path


#: SHA-256 (first 16 digits) of what ``termsim codegen`` wrote, unformatted,
#: before it quoted what it writes: for each recording in recordings/, as it
#: is and with marks before each input, inline and with golden files.
BEFORE = {
    ('boot-hang', False, False): '78220b8c377fabcc',
    ('boot-hang', False, True): '78220b8c377fabcc',
    ('boot-hang', True, False): '78220b8c377fabcc',
    ('boot-hang', True, True): '78220b8c377fabcc',
    ('boot-ok', False, False): 'd84425e13c50930a',
    ('boot-ok', False, True): 'd84425e13c50930a',
    ('boot-ok', True, False): 'd84425e13c50930a',
    ('boot-ok', True, True): 'd84425e13c50930a',
    ('cpr-starvation', False, False): 'd34d5da463c5f004',
    ('cpr-starvation', False, True): 'd34d5da463c5f004',
    ('cpr-starvation', True, False): 'd34d5da463c5f004',
    ('cpr-starvation', True, True): 'd34d5da463c5f004',
    ('fullscreen', False, False): 'e7b8b5f7abcffaa6',
    ('fullscreen', False, True): '57862ed4cbe213c5',
    ('fullscreen', True, False): '5f00c0667176118c',
    ('fullscreen', True, True): 'fa646f508b065f10',
    ('ipython', False, False): 'e96f6fe265c35d29',
    ('ipython', False, True): '46d99d1c3bcbdb73',
    ('ipython', True, False): 'e3c376e4049d02b0',
    ('ipython', True, True): '66157ec9b6b714e4',
    ('passing', False, False): 'b336a226d5a7e817',
    ('passing', False, True): '1aedc3068baaa6d1',
    ('passing', True, False): 'b5db75ee61ab51e7',
    ('passing', True, True): '4aa11ee6781edf27',
    ('ptpython', False, False): 'd0552b86c1c747ee',
    ('ptpython', False, True): '63279655903d2cf1',
    ('ptpython', True, False): 'bebf3baf1a110600',
    ('ptpython', True, True): '7e3c0cd4e06ed109',
}
#: What changed, and why: ipython's marked screens begin with a blank row,
#: which a triple-quoted screen cannot hold (``parse`` strips the blank lines
#: at its start), so the test written before failed on its own recording
#: (:func:`test_a_screen_that_begins_with_a_blank_row_is_the_screen`); its
#: rows are between ``|`` now.
#: Every file since issue 34: ENV (the variables the recording keeps), no exit
#: after termsim's hang-up, no state that only ticked.
CHANGED = {
    ('boot-hang', False, False): '7618e98f3e670e1c',
    ('boot-hang', False, True): '7618e98f3e670e1c',
    ('boot-hang', True, False): '7618e98f3e670e1c',
    ('boot-hang', True, True): '7618e98f3e670e1c',
    ('boot-ok', False, False): 'c1f773ae0be7b302',
    ('boot-ok', False, True): 'c1f773ae0be7b302',
    ('boot-ok', True, False): 'c1f773ae0be7b302',
    ('boot-ok', True, True): 'c1f773ae0be7b302',
    ('cpr-starvation', False, False): 'fbe7c6d9a566b2af',
    ('cpr-starvation', False, True): 'fbe7c6d9a566b2af',
    ('cpr-starvation', True, False): 'fbe7c6d9a566b2af',
    ('cpr-starvation', True, True): 'fbe7c6d9a566b2af',
    ('fullscreen', False, False): 'a7e430164a43aafa',
    ('fullscreen', False, True): 'd436deb9e73138c3',
    ('fullscreen', True, False): 'e93b839f8cb04f17',
    ('fullscreen', True, True): 'bfc388ec0bf98953',
    ('ipython', False, False): '82a58b4322f79008',
    ('ipython', False, True): '31fb637e799301e7',
    ('ipython', True, False): '77115ad3309059a8',
    ('ipython', True, True): '6da1c9291862ff03',
    ('passing', False, False): 'ac1853e05687cf22',
    ('passing', False, True): '747123687192f0fd',
    ('passing', True, False): 'c0db3afe245e601e',
    ('passing', True, True): '717c9946f5ef640d',
    ('ptpython', False, False): 'd0f4d1f1e17686ae',
    ('ptpython', False, True): '497f60a02e3bd330',
    ('ptpython', True, False): 'f6f4f0a5b01999e8',
    ('ptpython', True, True): 'f192f7961e68e99d',
}


def test_honest_recordings_generate_the_same_tests_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Unformatted: the digests are codegen's, not those of a ruff version.
    monkeypatch.setattr(codegen_module, "_formatter", lambda: None)
    got = {}
    for recording in sorted((ROOT / "recordings").glob("*.tsr")):
        for golden in (False, True):
            for marked in (False, True):
                path = _marked(recording, tmp_path) if marked else recording
                files = generate_files(str(path), str(tmp_path / "test_x.py"), golden=golden)
                text = "".join(f"== {p.name}\n{t}" for p, t in files.items())
                got[recording.stem, golden, marked] = sha256(text.encode()).hexdigest()[:16]
    assert got == {**BEFORE, **CHANGED}


def test_a_screen_that_begins_with_a_blank_row_is_the_screen(
    tmp_path: Path, pytester: pytest.Pytester,
) -> None:
    recording = _marked(ROOT / "recordings" / "ipython.tsr", tmp_path)
    source = generate(str(recording))
    assert "|In [1]:" in source
    result = _run_generated(pytester, recording, source, "-k", "replay and asyncio")
    assert result.ret == 0, source + result.stdout.str()[-3000:]
    result.assert_outcomes(passed=1)


# -- secrets: typed from the environment, never from the mask --------------------------


#: A password prompt: echo off, then the prompt on a line of its own (the
#: wait for it comes after the echo is off), a line read; exit status 1 for
#: a wrong password. The password, backwards: the program's own text (the
#: generated COMMAND) does not hold it.
GETPASS = [sys.executable, "-c", """
import sys, termios
fd = sys.stdin.fileno()
cooked = termios.tcgetattr(fd)
hidden = termios.tcgetattr(fd)
hidden[3] &= ~termios.ECHO
termios.tcsetattr(fd, termios.TCSADRAIN, hidden)
print("Password, not echoed:", flush=True)
password = sys.stdin.readline().rstrip("\\n")
termios.tcsetattr(fd, termios.TCSADRAIN, cooked)
print("welcome" if password[::-1] == "2retnuh" else "denied")
sys.exit(0 if password[::-1] == "2retnuh" else 1)
"""]


async def _log_in(term: termsim.Driver, *, key_by_key: bool) -> None:
    # The whole prompt, its newline too: output between two keys would part them.
    await term.wait_for(Text("Password, not echoed:") & CursorAt(1, 0))
    if key_by_key:  # as a person types it in `termsim record`
        for char in "hunter2\r":
            await term.send(char.encode())
    else:
        await term.type("hunter2\n")
    await term.wait_for(Text("welcome"))
    assert await term.wait_exit() == 0


@pytest.mark.parametrize("key_by_key", [False, True], ids=["one write", "key by key"])
def test_a_secret_is_typed_from_the_environment_and_fails_clearly_without_it(
    key_by_key: bool, tmp_path: Path, pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import anyio

    recording = tmp_path / "login.tsr"

    async def record() -> None:
        async with termsim.spawn(GETPASS, env=inherited_env(), record=recording) as term:
            await _log_in(term, key_by_key=key_by_key)

    anyio.run(record)
    inputs = list(Recording.open(recording).of_type(Input))
    assert inputs and all(i.secret for i in inputs), inputs  # echo was off
    source = generate(str(recording))
    assert "hunter2" not in source and "REDACTED" not in source
    tree = ast.parse(source)
    (typed,) = calls(tree, "type")
    assert ast.unparse(typed) == "term.type(SECRET_1, secret=True)"
    assert 'SECRET_1 = os.environ.get("TERMSIM_SECRET_1", "")' in source
    assert {n.names[0].name for n in tree.body if isinstance(n, ast.Import)} \
        == {"os", "pytest", "termsim"}

    monkeypatch.delenv("TERMSIM_SECRET_1", raising=False)
    live = ("-k", "not replay and asyncio")
    result = _run_generated(pytester, recording, source, *live)
    result.assert_outcomes(failed=1)
    assert "set TERMSIM_SECRET_1 to what was typed there" in result.stdout.str()
    monkeypatch.setenv("TERMSIM_SECRET_1", "hunter2\n")
    result = _run_generated(pytester, recording, source, *live)
    result.assert_outcomes(passed=1)
    monkeypatch.setenv("TERMSIM_SECRET_1", "wrong\n")
    result = _run_generated(pytester, recording, source, *live)
    result.assert_outcomes(failed=1)
    # A replay compares nothing where the recording holds a mask: it needs no secret.
    monkeypatch.delenv("TERMSIM_SECRET_1")
    result = _run_generated(pytester, recording, source, "-k", "replay and asyncio")
    result.assert_outcomes(passed=1)
