"""A stranger's recording and a hostile program cannot drive the terminal
that reads what termsim says about them (issue 33, defect 2).

A real recording (``recordings/boot-hang.tsr``) is rewritten with the real
writer so that every string field holds escape sequences a terminal acts
on: OSC 52 (write the clipboard), OSC 0 (the title), CSI 2J (clear the
screen), queries whose answers a terminal types into the shell (DCS
XTGETTCAP, CSI 21t, DA, a C1 CSI 6n), NUL, CR LF (which would forge a line),
a bidi override and a line separator; its output sets a title, draws those
bytes and shows a link whose URL holds them; its file name holds them too,
and a byte that is not UTF-8 (a lone surrogate once decoded). Every text
command, run through ``termsim.cli.main``, must print no control character
(only ``\\n``), and must show each field in its visible form, so the test
cannot pass by printing nothing. Then the same, with tmux as the terminal:
its paste buffer, its title, its screen and the shell's input must be
untouched. And a live program's bytes, quoted by a failed wait's error
(pytest prints it into CI logs, which are terminals too), read the same way.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from tmux_pane import TmuxServer, tmux_available, tmux_server

import termsim
from termsim import ProcessExited, Text, WaitTimeout
from termsim.cli import main
from termsim.events import (
    End,
    Input,
    Note,
    Output,
    ScreenCompared,
    UnknownSequences,
    WaitEnded,
    WaitStarted,
    Warned,
    errored,
)
from termsim.recording.format import Recording, RecordingWriter
from termsim.report.picture import pictures_available

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
BASE = RECORDINGS / "boot-hang.tsr"

#: What goes into every field: clipboard, title, clear, queries, C1, NUL,
#: CR LF, a right-to-left override and a line separator.
EVIL = ("\x1b]52;c;aGk=\x07\x1b]0;pwned\x07\x1b[2J\x1bP+q544e\x1b\\\x1b[21t\x1b[c\x9b6n"
        "\x00\r\n\u202e\u2028")
#: How it must read (written out here, not computed by termsim).
VISIBLE = ("ESC]52;c;aGk=BELESC]0;pwnedBELESC[2JESCP+q544eESC\\ESC[21tESC[c\\x9b6n"
           "\\x00\\x0d\\x0a\\u202e\\u2028")
#: What a title, a cell or a URL can hold (no ESC or BEL: those end or
#: start sequences), and how it reads.
DRAWN = "\u202e\u2028\u2066"
DRAWN_VISIBLE = "\\u202e\\u2028\\u2066"
#: The file's name: a byte that is not UTF-8 (``\udcff`` once decoded), ESC,
#: BEL, C1 CSI and the override.
EVIL_NAME = b"evil-\xff-\x1b]0;pwned\x07-\xc2\x9b2J-\xe2\x80\xae.tsr"
NAME_VISIBLE = "evil-\\xff-ESC]0;pwnedBEL-\\x9b2J-\\u202e.tsr"

#: Fields (tagged ``@name@...@/name@``) that a text command shows.
SHOWN = ("argv", "cwd", "term", "started", "version", "policy", "note", "warning",
         "predicate", "since", "since3", "outcome", "label", "how")
#: Fields no text command prints (the HTML page shows the compared screens,
#: escaped): crafted all the same, so that a command that starts printing
#: them is checked too.
NOT_SHOWN = ("env", "unknown", "expected", "actual", "golden")


def evil(name: str) -> str:
    return f"@{name}@{EVIL}@/{name}@"


def visible(name: str) -> str:
    return f"@{name}@{VISIBLE}@/{name}@"


def craft(path: str | os.PathLike[str], *, complete: bool = True) -> None:
    """boot-hang.tsr with every string field made hostile (see the module's
    description), written by termsim's own writer."""
    recording = Recording.open(BASE)
    header = dict(recording.header)
    header.update(
        argv=["python", evil("argv")], cwd=evil("cwd"), term=evil("term"),
        env={"TERM": "xterm-256color", "LANG": evil("env")}, started=evil("started"),
        versions={**header["versions"], "python": evil("version")},
        policy={evil("policy"): "ignore"},
    )
    drawn = (EVIL.encode() + b"\x1b]0;@title@" + DRAWN.encode() + b"@/title@\x07"
             + b"@cells@" + DRAWN.encode() + b"@/cells@\r\n"
             + b"\x1b]8;;http://example.com/@url@" + DRAWN.encode() + b"\xc2\x9b@/url@\x1b\\"
             + b"a link\x1b]8;;\x1b\\\r\n")
    t = 0.0978  # after the last output, before the first wait ends
    crafted = [
        Output(t, drawn),
        Input(t, b"x", evil("label")),
        Note(t, evil("note")),
        Warned(t, evil("warning")),
        WaitStarted(t, 3, "text 'zzz' in the bottom row", evil("since3"), 1.0),
        WaitEnded(t, 3, errored(evil("outcome"))),
        ScreenCompared(t, 3, evil("expected"), evil("actual"), evil("golden")),
        UnknownSequences(t, {evil("unknown"): 1}),
    ]
    events = []
    for event in recording.events:
        if isinstance(event, WaitStarted) and event.id == 2:  # the wait that failed
            event = replace(event, predicate=evil("predicate"), since=evil("since"))
        if isinstance(event, End):
            continue
        events.append(event)
        if isinstance(event, Output) and event.t < t < next(
                e.t for e in recording.events[recording.events.index(event) + 1:]):
            events += crafted
    writer = RecordingWriter(path, header)
    for event in events:
        writer.write(event)
    writer.close(recording.duration, errored(evil("how")))
    if not complete:
        data = Path(path).read_bytes()
        Path(path).write_bytes(data[:-3])  # the end event cut short


#: What must never reach the terminal: C0 but LF, DEL, C1 (as code points:
#: U+0080-U+009F, UTF-8 C2 80-C2 9F), line and paragraph separators, bidi
#: controls. (Lone surrogates and bytes that are not UTF-8 fail the strict
#: decode first.)
FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f"
                       "\u202a-\u202e\u2066-\u2069]")


def controls(data: bytes) -> list[str]:
    """The forbidden characters in what a command wrote, with their places."""
    text = data.decode("utf-8")  # strict: a lone surrogate cannot be encoded
    return [f"{m.start()}: {m.group()!r} in ...{text[max(0, m.start() - 30):m.end() + 10]!r}"
            for m in FORBIDDEN.finditer(text)]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """The crafted recording (under its hostile name), a cut copy, a damaged
    one, and names for the outputs."""
    directory = os.fsdecode(bytes(tmp_path))
    name = os.fsdecode(EVIL_NAME)
    evil_path = os.path.join(directory, name)
    craft(evil_path)
    cut = os.path.join(directory, "cut-" + name)
    craft(cut, complete=False)
    damaged = os.path.join(directory, "damaged-" + name)
    data = Path(evil_path).read_bytes()
    Path(damaged).write_bytes(data[:300] + b"\xc1" * 10 + data[310:])
    return {"evil": evil_path, "cut": cut, "damaged": damaged,
            "missing": os.path.join(directory, "missing-" + name),
            "txt": os.path.join(directory, name + ".txt"),
            "html": os.path.join(directory, name + ".html")}


def test_every_field_of_the_crafted_recording_is_in_the_file(files: dict[str, str]) -> None:
    """The writer and the reader keep every hostile string as written (so the
    commands below really meet them)."""
    raw = Path(files["evil"]).read_bytes()
    for name in (*SHOWN, *NOT_SHOWN):
        assert evil(name).encode() in raw, name
    recording = Recording.open(files["evil"])
    assert recording.complete and recording.header["argv"][1] == evil("argv")
    assert recording.end is not None and recording.end.how == "error: " + evil("how")


def commands(files: dict[str, str]) -> list[tuple[list[str], int]]:
    """Every text command on the crafted files, and the status it exits with."""
    evil_path, clean = files["evil"], str(BASE)
    return [
        (["show", evil_path], 0),
        (["show", evil_path, "--frame"], 0),
        (["show", evil_path, "--at", "0.09", "--frame"], 0),
        (["show", evil_path, "--steps"], 0),
        (["show", evil_path, "--steps", "--format", "md"], 0),
        (["show", evil_path, "--steps", "--format", "json"], 0),
        (["info", evil_path], 0),
        (["info", files["cut"]], 0),
        (["diff", evil_path, evil_path], 0),
        (["diff", evil_path, clean, "--html", files["html"]], 0),
        (["diff", clean, evil_path], 0),
        (["export", evil_path, "-o", files["txt"]], 0),
        (["info", files["missing"]], 1),
        (["show", files["damaged"]], 1),
        # Pictures (Pillow's, in the test extra): the caption quotes the wait's words.
        *([(["export", evil_path, "--failed", "-o", files["evil"] + ".png"], 0),
           (["export", evil_path, "-o", files["evil"] + ".gif"], 0)]
          if pictures_available() else []),
        (["export", evil_path, "-o", files["evil"] + ".bmp"], 2),
    ]


def test_no_command_writes_a_control_character_and_each_shows_the_fields(
    files: dict[str, str], capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    seen: dict[tuple[str, ...], set[str]] = {}
    for argv, expected in commands(files):
        status = main(argv)
        out, err = capsysbinary.readouterr()
        assert status == expected, (argv, err)
        for stream, data in (("stdout", out), ("stderr", err)):
            assert controls(data) == [], (argv, stream)
        text = (out + err).decode()
        if argv[-1:] == ["md"]:  # Markdown doubles the backslash of ST (ESC \)
            text = text.replace("ESC\\\\ESC", "ESC\\ESC")
        seen[tuple(argv)] = {name for name in SHOWN if visible(name) in text}
        if NAME_VISIBLE in text:
            seen[tuple(argv)].add("file")
        if argv[-1:] == ["json"]:  # the data itself, exactly, in ASCII
            assert out.isascii()
            data = json.loads(out)
            assert data["command"][1] == evil("argv")
            titles = [step["title"] for step in data["steps"]]
            assert "note: " + evil("note") in titles and "warning: " + evil("warning") in titles
        for name in NOT_SHOWN:
            assert f"@{name}@" not in text, (argv, name)
    evil_path = files["evil"]
    assert seen["info", evil_path] == {
        "file", "argv", "cwd", "term", "started", "version", "policy", "note", "warning",
        "predicate", "outcome", "how"}
    steps = seen["show", evil_path, "--steps"]
    assert steps == {"argv", "note", "warning", "predicate", "since", "since3", "outcome",
                     "label", "how"}
    assert seen["show", evil_path, "--steps", "--format", "md"] == steps
    assert {"file", "predicate"} <= seen["diff", evil_path, evil_path]
    assert {"file", "label"} <= seen["diff", evil_path, str(BASE), "--html", files["html"]]
    assert "file" in seen["diff", str(BASE), evil_path]
    for argv in (("info", files["cut"]), ("info", files["missing"]),
                 ("show", files["damaged"]), ("export", evil_path, "-o", files["txt"])):
        assert "file" in seen[argv], argv
    assert set(SHOWN) == set().union(*seen.values()) - {"file"}


def test_what_the_program_drew_reads_visibly(
    files: dict[str, str], capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """The cells, the title and the link's URL: the screen, framed or not,
    the steps, the diff and the report show them as escapes."""
    cells = f"@cells@{DRAWN_VISIBLE}@/cells@"
    for argv, wanted in (
        (["show"], [cells]),
        (["show", "--frame"], [cells, f"title '@title@{DRAWN_VISIBLE}@/title@'"]),
        (["show", "--steps"], [cells, f"title '@title@{DRAWN_VISIBLE}@/title@'"]),
        (["info"], [f"@url@{DRAWN_VISIBLE}\\x9b@/url@",
                    f"title '@title@{DRAWN_VISIBLE}@/title@'"]),
    ):
        assert main([argv[0], files["evil"], *argv[1:]]) == 0
        out, err = capsysbinary.readouterr()
        assert controls(out + err) == [], argv
        for text in wanted:
            assert text in out.decode(), (argv, text)
    assert main(["diff", files["evil"], str(BASE)]) == 0
    out = capsysbinary.readouterr().out.decode()
    assert cells in out


def test_the_error_lines_name_the_file_visibly(
    files: dict[str, str], capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    for argv, status in ((["info", files["missing"]], 1), (["show", files["damaged"]], 1),
                         (["info", files["cut"]], 0)):
        assert main(argv) == status
        _, err = capsysbinary.readouterr()
        assert controls(err) == [] and NAME_VISIBLE in err.decode(), argv
        assert len(err.splitlines()) == 1, err


def test_the_text_export_holds_no_control_character(
    files: dict[str, str], capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    assert main(["export", files["evil"], "-o", files["txt"]]) == 0
    _, err = capsysbinary.readouterr()
    assert controls(err) == [] and NAME_VISIBLE in err.decode()
    written = Path(files["txt"]).read_bytes()
    assert b"@cells@" in written
    # The screen's text as it is (a file, not a terminal): no C0, DEL or C1.
    assert re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", written) is None


@pytest.mark.parametrize("at", ["nan", "inf", "-inf", "NaN", "-1"])
@pytest.mark.parametrize("command", ["show", "export"])
def test_at_must_be_a_finite_number_of_seconds(
    command: str, at: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    output = tmp_path / "s.svg"
    extra = ["-o", str(output)] if command == "export" else []
    status = main([command, str(BASE), f"--at={at}", *extra])
    out, err = capsysbinary.readouterr()
    assert status == 2 and out == b"" and not output.exists()
    assert len(err.splitlines()) == 1 and b"--at" in err and b"seconds" in err, err


# -- a live program's bytes in a failed wait's error ---------------------------------------

#: A real program that draws an override, a line separator and an isolate
#: into its cells, names its window with them, and waits.
DRAWING = (r"printf '\033]0;t\342\200\256t\007ready \342\200\256rlo\342\200\250ls\342\201\246"
           r" end\n'; ")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_failed_wait_quotes_the_program_visibly() -> None:
    async with termsim.spawn(["sh", "-c", DRAWING + "read line"]) as term:
        await term.wait_for(Text("end"), timeout=10)
        with pytest.raises(WaitTimeout) as timed_out:
            await term.wait_for(Text("never drawn"), timeout=0.3)
        await term.type("\n")
        with pytest.raises(ProcessExited) as exited:
            await term.wait_for(Text("never drawn"), timeout=10)
    for error in (timed_out.value, exited.value):
        message = str(error)
        assert FORBIDDEN.search(message) is None, message
        assert "ready \\u202erlo\\u2028ls\\u2066 end" in message
        # The attributes keep what the program drew.
        assert "\u202e" in error.snapshot.text


# -- tmux as the reader's terminal ---------------------------------------------------------

#: The pane's program: cbreak mode (what arrives on its input is kept,
#: unechoed, as a shell's line editor would get it), a line to find on the
#: screen afterwards, the command, then a DSR: tmux answers it once it has
#: read everything the command printed, so what came in before the answer is
#: what tmux typed for the command's output (answers to its queries).
PANE_PROGRAM = r"""
import os, subprocess, sys, tty
report, tmux, socket_name, channel, *command = sys.argv[1:]
tty.setcbreak(0)
subprocess.run([tmux, "-L", socket_name, "wait-for", channel + "-go"], check=True)
os.write(1, b"BEFORE-THE-COMMAND\r\n")
subprocess.run(command, check=False)
os.write(1, b"\x18\x1b\\\x18\x1b[5n")
got = b""
while b"\x1b[0n" not in got:
    got += os.read(0, 4096)
with open(report, "wb") as out:
    out.write(got[:got.index(b"\x1b[0n")])
subprocess.run([tmux, "-L", socket_name, "wait-for", "-S", channel], check=True)
"""


@pytest.fixture(scope="module")
def tmux() -> Iterator[TmuxServer]:
    if not tmux_available():
        pytest.skip("tmux is not installed")
    with tmux_server() as server:
        # OSC 52 from a program sets tmux's paste buffer (as a user who
        # copies from programs has it); a clear erases, not scrolls away.
        server.run("set-option", "-s", "set-clipboard", "on", ";",
                   "set-option", "-g", "scroll-on-clear", "off")
        yield server


@pytest.mark.parametrize("command", [["info"], ["show", "--steps"], ["diff"]])
def test_in_tmux_nothing_reaches_the_terminal(
    command: list[str], tmux: TmuxServer, tmp_path: Path,
) -> None:
    recording = tmp_path / "evil.tsr"
    craft(recording)
    files = [str(recording), str(BASE)] if command == ["diff"] else [str(recording)]
    program = tmp_path / "pane.py"
    program.write_text(PANE_PROGRAM)
    report = tmp_path / "typed"
    session, channel = f"s{uuid.uuid4().hex[:8]}", f"c{uuid.uuid4().hex[:8]}"
    # The termsim under test (this checkout's, or the one PYTHONPATH names).
    source = str(Path(termsim.__file__).resolve().parent.parent)
    argv = ["env", f"PYTHONPATH={source}", sys.executable, str(program), str(report),
            shutil.which("tmux") or "tmux", tmux.name, channel,
            sys.executable, "-m", "termsim", command[0], *files, *command[1:]]
    tmux.run("new-session", "-d", "-s", session, "-x", "200", "-y", "120",
             shlex.join(argv))
    try:
        tmux.run("select-pane", "-t", f"{session}:", "-T", "the-title-before")
        buffers = tmux.run("list-buffers", "-F", "#{buffer_name}").stdout
        tmux.run("wait-for", "-S", channel + "-go")
        tmux.run("wait-for", channel)
        title = tmux.run("display", "-p", "-t", f"{session}:", "#{pane_title}").stdout
        # The history too: a row tmux scrolled away was not cleared (with
        # scroll-on-clear off, a clear erases it).
        screen = tmux.run("capture-pane", "-p", "-S", "-", "-t", f"{session}:").stdout.decode()
        typed = report.read_bytes()
        problems = [what for what, happened in (
            (f"tmux typed {typed!r} into the shell's input", typed != b""),
            ("the paste buffer was set",
             tmux.run("list-buffers", "-F", "#{buffer_name}").stdout != buffers),
            (f"the title became {title!r}", title.decode().strip() != "the-title-before"),
            ("the screen was cleared", not screen.startswith("BEFORE-THE-COMMAND\n")),
        ) if happened]
        assert problems == []
        assert "ESC]52;c;aGk=BELESC]0;pwnedBEL" in screen
    finally:
        tmux.run("kill-session", "-t", session, check=False)
