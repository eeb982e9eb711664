"""Redaction on what a person reads: a secret drawn with escape sequences
between its characters, split across reads, or typed key by key never
reaches anything termsim writes (issue 33, defect 7).

``redact=`` once matched the raw output bytes and each input write alone:
``h ESC[31m u ESC[0m nter2`` or ten ``press()`` calls kept the secret in
the recording, the replayed screen, ``show``, the HTML page and codegen.
Here a secret is styled, split and typed at random, and every artifact is
scanned for it and for each of its halves.
"""

from __future__ import annotations

import html
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from io import BytesIO, StringIO, TextIOWrapper
from pathlib import Path

import pytest
from conftest import examples, program
from helpers import screen
from hypothesis import given, settings
from hypothesis import strategies as st

import termsim
from termsim import InputReady, Region, Text
from termsim.cli import main
from termsim.codegen import generate
from termsim.emulator.parsing.grammar import Scanner
from termsim.emulator.terminal.terminal import Terminal
from termsim.engine.redaction import TerminalShadow, typed
from termsim.events import (
    End,
    Event,
    Exit,
    Input,
    InputRead,
    Note,
    Output,
    Reply,
    WaitEnded,
    WaitStarted,
)
from termsim.files import Playback, Recording
from termsim.recording.recorder import Recorder
from termsim.recording.redact import CONTINUED, REDACTED, Redactor, mask
from termsim.recording.redact_stream import BytesRedaction, Stream

#: Secrets are drawn from letters nothing else in an artifact is made of
#: (and one two-byte character, so that reads split inside it too); twelve
#: or more, so that a half is six or more and cannot turn up by chance.
ALPHABET = "JQXZVKWYЖ"
secrets = st.text(ALPHABET, min_size=12, max_size=20)

#: What a program may put between two characters of a secret without
#: moving the cursor: colours, erasing the rest of the row, a title, a
#: saved and restored cursor, the cursor hidden and shown, a bell, a query.
BETWEEN = [b"", b"\x1b[1m", b"\x1b[38;5;123m", b"\x1b[0m", b"\x1b[K", b"\x1b]0;t\x07",
           b"\x1b7\x1b8", b"\x1b[?25l", b"\x1b[?25h", b"\x07", b"\x1b[6n", b"\x1b[?2026h"]


def halves(secret: str) -> list[str]:
    middle = len(secret) // 2
    return [secret, secret[:middle], secret[middle:]]


def styled(secret: str, draw: st.DrawFn) -> bytes:
    """The secret with a random sequence before each character."""
    return b"".join(draw(st.sampled_from(BETWEEN)) + ch.encode() for ch in secret)


def cut(data: bytes, points: list[int]) -> list[bytes]:
    at = sorted({min(p, len(data)) for p in points})
    return [data[a:b] for a, b in zip([0, *at], [*at, len(data)], strict=True)]


def screen_text(data: bytes) -> str:
    return screen(data, 80, 24).text


@st.composite
def drawn_streams(draw: st.DrawFn) -> tuple[str, bytes, list[bytes]]:
    secret = draw(secrets)
    data = b"token: \x1b[2m" + styled(secret, draw) + b"\x1b[0m done\r\n"
    points = draw(st.lists(st.integers(0, len(data)), max_size=8))
    return secret, data, cut(data, points)


@settings(max_examples=examples(200), deadline=None, database=None)
@given(drawn_streams())
def test_a_styled_secret_split_anywhere_is_masked_on_the_screen_and_in_the_bytes(
    case: tuple[str, bytes, list[bytes]],
) -> None:
    secret, data, chunks = case
    redactor = BytesRedaction(Redactor([secret], tokens=Scanner))
    out = b"".join(redactor.feed(c) for c in chunks) + redactor.flush()
    shown = screen_text(out)
    for part in halves(secret):
        assert part.encode() not in out and part not in shown
    assert f"token: {mask(len(secret))} done" in shown
    # Where the reads fell changes nothing: the same bytes as in one read.
    whole = BytesRedaction(Redactor([secret], tokens=Scanner))
    assert out == whole.feed(data) + whole.flush()


def test_the_sequences_between_the_characters_stay() -> None:
    """Only the characters are masked, one for one: the colours and the
    erase around them are kept, so the replayed screen keeps its styles
    and its layout."""
    redactor = BytesRedaction(Redactor(["hunter2"], tokens=Scanner))
    data = b"pw: h\x1b[31mun\x1b[Kter\x1b[0m2 ok"
    assert redactor.feed(data) + redactor.flush() == b"pw: *\x1b[31m**\x1b[K***\x1b[0m* ok"


def test_honest_output_is_not_held_back() -> None:
    """A stream is held only where a secret may begin: output that cannot
    is written at once, and a literal secret is never held whole."""
    redactor = BytesRedaction(Redactor(["hunter2"], tokens=Scanner))
    assert redactor.feed(b"hello \x1b[1mworld\x1b[0m") == b"hello \x1b[1mworld\x1b[0m"
    assert redactor.feed(b"say hun") == b"say "  # "hun" may be the secret's start
    assert redactor.feed(b"gry") == b"hungry"
    assert redactor.feed(b"hunter2") == b"*******"


# -- a whole session, through the recorder, to every artifact -----------------------------


@st.composite
def sessions(draw: st.DrawFn) -> tuple[str, list[Event]]:
    """A session that types a secret in random pieces (one key each, or a
    few at a time) at a prompt that echoes each piece styled, in one or
    several reads, with notes and waits naming it."""
    secret = draw(secrets)
    pieces: list[str] = []
    rest = secret
    while rest:
        size = draw(st.integers(1, len(rest)))
        pieces.append(rest[:size])
        rest = rest[size:]
    events: list[Event] = [Output(0.01, b"\x1b]0;prompt\x07READY> ")]
    t = 0.02
    for index, piece in enumerate(pieces, start=1):
        label = f"key {piece}" if len(piece) == 1 else f"type {piece!r}"
        events.append(Input(t, piece.encode(), label, tracked=True))
        echo = styled(piece, draw)
        for chunk in cut(echo, draw(st.lists(st.integers(0, len(echo)), max_size=3))):
            t += 0.001
            events.append(Output(t, chunk))
        events.append(InputRead(t, index, True))
        t += 0.01
    events += [
        WaitStarted(t, 1, f"text {secret!r} in the screen", None, 10.0),
        WaitEnded(t + 0.001, 1, "matched"),
        Note(t + 0.002, f"saw {secret}"),
        Input(t + 0.003, b"\r", "key enter", tracked=True),
        Output(t + 0.004, b"\r\n> "),
        End(t + 0.005, "closed"),
    ]
    return secret, events


def record(path: Path, secret: str, events: list[Event]) -> None:
    """Record as a session does: the output read on a screen of its own."""
    redactor = Redactor([secret], tokens=Scanner)
    recorder = Recorder(path, redactor=redactor, argv=["prog"], cwd="/", cols=80, rows=24,
                        env={"TERM": "xterm-256color"}, policy={},
                        output=Stream(redactor, shadow=TerminalShadow(Terminal(80, 24))),
                        input=Stream(redactor, whole_writes=True, typed=typed))
    for event in events:
        recorder(event)


def artifacts(path: Path, tmp: Path) -> dict[str, str]:
    """Everything termsim writes from a recording, as text a person reads."""
    out: dict[str, str] = {"file": path.read_bytes().decode("utf-8", "surrogateescape")}
    recording = Recording.open(path)
    playback = Playback(recording)
    out["screens"] = "\n".join(playback.screen_at(e.t).text for e in recording.events)
    commands = {
        "show": ["show", str(path)], "frame": ["show", "--frame", str(path)],
        "steps": ["show", "--steps", str(path)],
        "steps-md": ["show", "--steps", "--format", "md", str(path)],
        "steps-json": ["show", "--steps", "--format", "json", str(path)],
        "info": ["info", str(path)], "codegen": ["codegen", str(path)],
    }
    for name, argv in commands.items():
        out[name] = _run(argv)
    for suffix in ("html", "cast", "txt", "svg"):
        target = tmp / f"out.{suffix}"
        _run(["export", str(path), "-o", str(target)])
        out[suffix] = html.unescape(target.read_text())
    out["steps-json"] = json.dumps(json.loads(out["steps-json"]), ensure_ascii=False)
    out["cast"] = "\n".join(json.dumps(json.loads(line), ensure_ascii=False)
                            for line in out["cast"].splitlines() if line.strip())
    return out


def _run(argv: list[str]) -> str:
    buffer = BytesIO()
    stdout = TextIOWrapper(buffer, encoding="utf-8", errors="surrogateescape")
    with redirect_stdout(stdout), redirect_stderr(StringIO()):
        status = main(argv)
        stdout.flush()
    assert status == 0, argv
    return buffer.getvalue().decode("utf-8", "surrogateescape")


def assert_nowhere(secret: str, found: dict[str, str]) -> None:
    leaks = [(name, part) for name, text in found.items() for part in halves(secret)
             if part in text]
    assert not leaks


def kinds(events: list[Event]) -> list[str]:
    """The order of a session's events, consecutive outputs as one (the
    recorder may cut an output where a secret may begin)."""
    out: list[str] = []
    for event in events:
        kind = type(event).__name__
        if not (kind == "Output" and out and out[-1] == kind):
            out.append(kind)
    return out


@settings(max_examples=examples(40), deadline=None, database=None)
@given(sessions())
def test_a_secret_typed_and_drawn_at_random_is_in_no_artifact(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[str, list[Event]],
) -> None:
    secret, events = case
    tmp = tmp_path_factory.mktemp("s")
    path = tmp / "s.tsr"
    record(path, secret, events)
    assert_nowhere(secret, artifacts(path, tmp))
    recording = Recording.open(path)
    # In its place, the mask, on the replayed screen; nothing out of order.
    assert f"READY> {REDACTED}" in Playback(recording).screen_at().text
    assert kinds(recording.events) == kinds(events)
    typed = [e for e in recording.of_type(Input) if e.label != "key enter"]
    assert all(e.secret for e in typed)
    # The first says it holds a secret; the others, that they hold its rest.
    assert [e.label.endswith(CONTINUED) for e in typed] == [False] + [True] * (len(typed) - 1)
    assert all(e.label.removesuffix(CONTINUED).endswith(REDACTED) for e in typed)


def test_a_partial_secret_at_the_end_is_written_as_it_was(tmp_path: Path) -> None:
    """What never became the secret is not masked: the held start of one is
    written whole at the end, and everything after it kept its order."""
    path = tmp_path / "s.tsr"
    recorder = Recorder(path, redactor=Redactor(["JQXZVK"], tokens=Scanner), argv=["prog"],
                        cwd="/", cols=80, rows=24, env={}, policy={})
    for event in (Output(0.1, b"say JQX"), Input(0.2, b"\r", "key enter"), Output(0.3, b"ZV")):
        recorder(event)
    # "JQX" may begin the secret: held, and the events after it with it.
    assert Recording.open(path).events == [Output(0.1, b"say ")]
    recorder.close(0.4, "closed")
    assert Recording.open(path).events == [
        Output(0.1, b"say "), Output(0.1, b"JQX"), Input(0.2, b"\r", "key enter"),
        Output(0.3, b"ZV"), End(0.4, "closed")]


# -- real programs -----------------------------------------------------------------------

SECRET = "JQXZVKWYJQXZ"


@pytest.mark.anyio
async def test_a_secret_typed_key_by_key_into_a_colouring_prompt_is_in_no_artifact(
    tmp_path: Path,
) -> None:
    """The program reads one key at a time and echoes it between two SGR
    sequences; the test presses the secret's keys one by one."""
    path = tmp_path / "s.tsr"
    async with termsim.spawn(program("styled_echo.py"), record=path, redact=[SECRET]) as term:
        await term.wait_for(Text("READY>") & InputReady(), timeout=10)
        for key in SECRET:
            await term.press(key)
        await term.wait_for(Text(f"READY> {SECRET}"), timeout=10)  # the live screen is real
        mark = await term.press("enter")
        await term.wait_for(Text(">", region=Region.row(1)), since=mark, timeout=10)
        await term.press("ctrl+d")
        assert await term.wait_exit(timeout=10) == 0
    assert_nowhere(SECRET, artifacts(path, tmp_path))
    assert f"READY> {REDACTED}" in Playback(Recording.open(path)).screen_at().text
    # codegen asks for the secret once, not once a key.
    source = generate(str(path))
    assert source.count("type(SECRET_1, secret=True)") == 1 and "SECRET_2" not in source
    # The masked keys replay: pressed one by one as recorded, or typed in one
    # write (the first key's input holds the mask, the others are empty).
    for whole in (False, True):
        async with termsim.replay(path, strict=True) as replayed:
            await replayed.wait_for(Text("READY>"), timeout=10)
            if whole:
                await replayed.type(SECRET)
            else:
                for key in SECRET:
                    await replayed.press(key)
            await replayed.wait_for(Text(f"READY> {REDACTED}"), timeout=10)
            mark = await replayed.press("enter")
            await replayed.wait_for(Text(">", region=Region.row(1)), since=mark, timeout=10)
            await replayed.press("ctrl+d")
            assert await replayed.wait_exit(timeout=10) == 0


LEXED = str(Path(__file__).resolve().parent / "programs" / "ptk_lexed.py")


@pytest.mark.anyio
async def test_a_secret_typed_into_prompt_toolkit_with_a_colour_per_character(
    tmp_path: Path,
) -> None:
    """prompt_toolkit redraws what changed after each key, each character
    in its own colour: the secret never crosses the PTY as one string."""
    pytest.importorskip("prompt_toolkit")
    path = tmp_path / "s.tsr"
    async with termsim.spawn([sys.executable, LEXED], record=path, redact=[SECRET]) as term:
        await term.wait_for(Text("key> ") & InputReady(), timeout=30)
        for key in SECRET:
            await term.press(key)
        await term.wait_for(Text(f"key> {SECRET}"), timeout=30)
        mark = await term.press("enter")
        await term.wait_for(Text(f"entered {len(SECRET)} characters"), since=mark, timeout=30)
        assert await term.wait_exit(timeout=10) == 0
        live = term.screen.text
    assert_nowhere(SECRET, artifacts(path, tmp_path))
    # The mask is as wide as the secret: prompt_toolkit's cursor moves
    # (``ESC[17D``) land where they did, and the replayed screen is the
    # live one with the secret masked, cell for cell.
    replayed = Playback(Recording.open(path)).screen_at().text
    assert replayed == live.replace(SECRET, mask(len(SECRET)))
    assert mask(len(SECRET)) == "[REDACTED]**"


@pytest.mark.anyio
async def test_a_secret_typed_in_pieces_replays_in_pieces_or_whole(tmp_path: Path) -> None:
    """Each input after the first that held part of a secret is labelled
    as its rest, with as many mask characters as it had characters: a
    replay gives each piece to the call that sends it, or all of them to
    one call that sends the whole secret."""
    path = tmp_path / "s.tsr"
    pieces = [SECRET[:5], SECRET[5:9], SECRET[9:]]
    async with termsim.spawn(program("styled_echo.py"), record=path, redact=[SECRET]) as term:
        await term.wait_for(Text("READY>") & InputReady(), timeout=10)
        for piece in pieces:
            mark = await term.type(piece)
            await term.wait_for(Text(SECRET[:SECRET.index(piece) + len(piece)]), since=mark,
                                timeout=10)
        await term.press("ctrl+d")
        assert await term.wait_exit(timeout=10) == 0
    inputs = list(Recording.open(path).of_type(Input))[:3]
    assert [len(e.data) for e in inputs] == [len(p) for p in pieces]
    assert b"".join(e.data for e in inputs) == mask(len(SECRET)).encode()
    assert [e.label.endswith(CONTINUED) for e in inputs] == [False, True, True]
    for sends in (pieces, [SECRET]):
        async with termsim.replay(path, strict=True) as replayed:
            await replayed.wait_for(Text("READY>"), timeout=10)
            for piece in sends:
                await replayed.type(piece)
            await replayed.press("ctrl+d")
            assert await replayed.wait_exit(timeout=10) == 0


GETPASS = "import getpass; p = getpass.getpass('pw: '); print('got', len(p))"


@pytest.mark.anyio
async def test_a_hidden_password_typed_a_key_at_a_time_replays_a_key_at_a_time(
    tmp_path: Path,
) -> None:
    """Typed with echo off, each key is masked whole, and no output comes
    between them: a test's own one-character secret calls still each take
    one recorded input."""
    path = tmp_path / "s.tsr"
    async with termsim.spawn([sys.executable, "-c", GETPASS], record=path) as term:
        await term.wait_for(Text("pw:"), timeout=10)
        for key in "abc\n":
            await term.type(key, secret=True)
        await term.wait_for(Text("got 3"), timeout=10)
    async with termsim.replay(path, strict=True) as replayed:
        await replayed.wait_for(Text("pw:"), timeout=10)
        for key in "abc\n":
            await replayed.type(key, secret=True)
        await replayed.wait_for(Text("got 3"), timeout=10)


# -- what the reviewer found: strings, open strings, keys, wide characters, wraps ---------


def session_file(tmp_path: Path, secret: str, events: list[Event], *, cols: int = 80,
                 rows: int = 24) -> Recording:
    """Record ``events`` as a session does, and read the file back."""
    redactor = Redactor([secret], tokens=Scanner)
    path = tmp_path / "s.tsr"
    recorder = Recorder(path, redactor=redactor, argv=["prog"], cwd="/", cols=cols, rows=rows,
                        env={}, policy={},
                        output=Stream(redactor, shadow=TerminalShadow(Terminal(cols, rows))),
                        input=Stream(redactor, whole_writes=True, typed=typed))
    for event in events:
        recorder(event)
    return Recording.open(path)


def test_a_secret_in_a_title_a_link_a_string_or_a_reply_is_replaced(tmp_path: Path) -> None:
    title = f"\x1b]0;token={SECRET}\x07".encode()
    link = f"\x1b]8;;https://example.com/?t={SECRET}\x1b\\here\x1b]8;;\x1b\\".encode()
    dcs = f"\x1bP{SECRET}\x1b\\".encode()
    recording = session_file(tmp_path, SECRET, [
        Output(0.1, title[:9]), Output(0.2, title[9:] + link), Output(0.3, dcs),
        Reply(0.4, f"\x1b]l{SECRET}\x1b\\".encode()), End(0.5, "closed")])
    raw = (tmp_path / "s.tsr").read_bytes()
    for part in halves(SECRET):
        assert part.encode() not in raw
    assert Playback(recording).screen_at().title == f"token={REDACTED}"
    assert f"?t={REDACTED}".encode() in raw


def test_an_unfinished_string_holds_nothing_back(tmp_path: Path) -> None:
    """Inside a string nothing draws: its bytes are written as they come
    (and whatever follows them), not held until it ends."""
    path = tmp_path / "s.tsr"
    redactor = Redactor([SECRET], tokens=Scanner)
    recorder = Recorder(path, redactor=redactor, argv=["prog"], cwd="/", cols=80, rows=24,
                        env={}, policy={},
                        output=Stream(redactor, shadow=TerminalShadow(Terminal(80, 24))))
    recorder(Output(0.1, b"hello\r\n\x1b]0;"))
    for k in range(50):
        recorder(Output(0.2 + k / 1000, b"a" * 4096))
    recorder(Note(0.3, "after"))
    events = Recording.open(path).events
    assert sum(len(e.data) for e in events if isinstance(e, Output)) == 11 + 50 * 4096
    assert events[-1] == Note(0.3, "after")


SECRET_KEYS = "jxzvkwyjxzvk"


@pytest.mark.anyio
async def test_a_secret_typed_as_kitty_protocol_keys_is_masked(tmp_path: Path) -> None:
    """A program that asks for every key as an escape sequence (kitty's
    flag 8, as crossterm apps do) gets ``ESC[106u`` for ``j``: the keys are
    read for the characters they type."""
    path = tmp_path / "s.tsr"
    async with termsim.spawn(program("kitty_keys.py", "kitty", "9"), profile="kitty",
                             record=path, redact=[SECRET_KEYS]) as term:
        await term.wait_for(Text("READY"), timeout=10)
        for key in SECRET_KEYS:
            await term.press(key)
        await term.wait_for(Text(f"{len(SECRET_KEYS)} k press"), timeout=10)
        await term.press("q")
        assert await term.wait_exit(timeout=10) == 0
    inputs = list(Recording.open(path).of_type(Input))[:len(SECRET_KEYS)]
    assert all(e.secret for e in inputs)
    assert not [e for e in inputs if SECRET_KEYS.find(e.label.split()[-1]) >= 0]
    assert "press('j')" not in generate(str(path))


def echoed(before: bytes, secret: str) -> list[Event]:
    """``before``, then each key of ``secret`` echoed on its own, with a
    blank drawn on the bottom row between two (as prompt_toolkit's first
    render does): only the screen rule sees the secret whole."""
    events: list[Event] = [Output(0.1, before)]
    for k, char in enumerate(secret):
        events += [Output(0.2 + k / 100, char.encode()),
                   Output(0.205 + k / 100, b"\x1b7\x1b[24;1H \x08\x1b8")]
    return [*events, End(1.0, "closed")]


def test_a_wide_secret_is_masked_whole_and_as_wide(tmp_path: Path) -> None:
    secret = "密码JQXZ口令"
    recording = session_file(tmp_path, secret, echoed(b"pw> ", secret))
    shown = Playback(recording).screen_at().text
    assert shown.splitlines()[0] == "pw> " + mask(12)  # 4 wide characters and 4 narrow
    drawn = b"".join(e.data for e in recording.of_type(Output))
    assert not [c for c in secret if c.encode() in drawn]


def test_a_secret_a_row_wraps_is_masked_on_both_rows(tmp_path: Path) -> None:
    recording = session_file(tmp_path, SECRET, echoed(b"x" * 74, SECRET))
    shown = Playback(recording).screen_at().text
    assert shown.splitlines()[:2] == ["x" * 74 + mask(12)[:6], mask(12)[6:]]


def test_tags_are_given_back_when_they_run_out(tmp_path: Path) -> None:
    """A screen with more cells than there are tags for: tags of cells no
    longer shown are collected when they run out, so a secret echoed
    after 150,000 tagged characters of output is still caught on the screen.

    32,000 cells (31,744 at least) put the collection a screen's size
    allows (four tags a cell and 4,096) past the 131,068 tags there are;
    150,000 run out of them. The screen is wide and low (1,000 x 32, as
    many cells as 320 x 100): each read looks for its tags row by row, and
    fewer rows make that cheaper."""
    line = b"x" * 250 + b"\r"  # a read small enough to be tagged, drawn over and over
    events: list[Event] = [Output(0.1 + k / 1000, line) for k in range(600)]
    for k, char in enumerate(SECRET):
        events += [Output(9 + k / 100, char.encode()),
                   Output(9.005 + k / 100, b"\x1b7\x1b[32;1H \x08\x1b8")]
    events.append(End(10.0, "closed"))
    recording = session_file(tmp_path, SECRET, events, cols=1000, rows=32)
    assert Playback(recording).screen_at().text.startswith(mask(12))


def test_output_after_the_exit_is_masked_where_it_stands(tmp_path: Path) -> None:
    recording = session_file(tmp_path, SECRET, [
        Output(0.1, b"before "), Exit(0.2, 0), Output(0.3, f"after {SECRET}".encode()),
        End(0.4, "closed")])
    assert Playback(recording).screen_at().text.startswith(f"before after {mask(12)}")


def test_a_secret_typed_with_a_typo_put_right_is_masked(tmp_path: Path) -> None:
    """``JQXZVKA``, Backspace, ``WYJQXZ``: a person reads the secret."""
    typed = [*SECRET[:6], "A", "\x7f", *SECRET[6:]]
    recording = session_file(tmp_path, SECRET, [
        *(Input(0.1 + k / 100, key.encode(), f"key {key}", tracked=True)
          for k, key in enumerate(typed)), End(1.0, "closed")])
    data = b"".join(e.data for e in recording.of_type(Input))
    for part in halves(SECRET):
        assert part.encode() not in data
    assert b"A\x7f" in data  # what was put right stays as it was
