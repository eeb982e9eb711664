"""Redaction: secrets never reach the recording file, wherever chunks split."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import termsim
from termsim import InputReady, Text
from termsim.events import Input, Note, WaitStarted
from termsim.files import Playback, Recording
from termsim.recording.redact import REDACTED, Redactor, mask
from termsim.recording.redact_stream import BytesRedaction

SECRET = "sk-live-0123456789abcdef"
RAWECHO = Path(__file__).resolve().parent / "programs" / "rawecho.py"


def stream(redactor: Redactor, chunks: list[bytes]) -> bytes:
    bytes_ = BytesRedaction(redactor)
    return b"".join(bytes_.feed(c) for c in chunks) + bytes_.flush()


def test_Redactor_replaces_strings_and_regexes() -> None:
    r = Redactor(["hunter2", re.compile(r"sk-live-[0-9a-f]+")])
    out = stream(r, [f"pw=hunter2 key={SECRET} ok".encode()])
    # In a stream, each character becomes one of the mask: a screen keeps its layout.
    assert out == f"pw={mask(7)} key={mask(len(SECRET))} ok".encode()
    assert mask(7) == "*******" and mask(len(SECRET)) == REDACTED + "*" * (len(SECRET) - 10)
    assert r.count == 2
    assert r.text("say hunter2") == f"say {REDACTED}"
    assert r.data(b"hunter2\r") == REDACTED.encode() + b"\r"


@settings(max_examples=examples(200), deadline=None, database=None)
@given(st.lists(st.integers(min_value=0, max_value=80), max_size=6), st.binary(max_size=20))
def test_Redactor_catches_a_secret_split_anywhere(cuts: list[int], noise: bytes) -> None:
    data = b"before " + noise + SECRET.encode() + b" \xe2\x9d\xaf after" + noise
    points = sorted({min(c, len(data)) for c in cuts})
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    out = stream(Redactor([SECRET]), chunks)
    assert SECRET.encode() not in out
    assert out == data.replace(SECRET.encode(), mask(len(SECRET)).encode())


def test_Redactor_without_patterns_passes_everything_through() -> None:
    r = BytesRedaction(Redactor([]))
    assert r.feed(b"abc") == b"abc" and r.flush() == b""


def test_Redactor_rejects_empty_patterns() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        Redactor([""])


@pytest.mark.anyio
async def test_secrets_never_reach_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.tsr"
    # The program prints the secret in two writes, so it is split on the PTY.
    code = (
        "import os, sys, tty; s = sys.argv[1]; tty.setraw(0); "
        "sys.stdout.write('token: ' + s[:7]); sys.stdout.flush(); "
        "os.read(0, 1); "
        "sys.stdout.write(s[7:] + '\\r\\n'); sys.stdout.flush(); "
        "os.read(0, 100)"
    )
    argv = [sys.executable, "-c", code, SECRET]
    async with termsim.spawn(argv, record=path, redact=[re.compile(r"sk-live-[0-9a-f]+")]) as term:
        await term.wait_for(Text("token: ") & InputReady(), timeout=10)
        await term.type("\n")
        snap = await term.wait_for(Text(SECRET), timeout=10)  # the live screen is real
        assert SECRET in snap.text
        term.note(f"saw {SECRET}")
        await term.type(f"{SECRET}\n")
        assert await term.wait_exit(timeout=10) == 0
    raw = path.read_bytes()
    assert SECRET.encode() not in raw
    assert b"sk-live" not in raw  # not even the first half
    recording = Recording.open(path)
    assert f"token: {REDACTED}" in Playback(recording).screen_at().text
    assert [e.label for e in recording.of_type(Note)] == [f"saw {REDACTED}"]
    waits = [e.predicate for e in recording.of_type(WaitStarted)]
    assert all(SECRET not in w for w in waits) and any(REDACTED in w for w in waits)


@pytest.mark.anyio
async def test_input_typed_with_echo_off_is_masked(tmp_path: Path) -> None:
    path = tmp_path / "s.tsr"
    code = "import getpass; p = getpass.getpass('Password: '); print('length', len(p))"
    async with termsim.spawn([sys.executable, "-c", code], record=path) as term:
        await term.wait_for(Text("Password:"), timeout=10)
        await term.type("correct horse\n")
        await term.wait_for(Text("length 13"), timeout=10)
    raw = path.read_bytes()
    assert b"correct horse" not in raw
    inputs = list(Recording.open(path).of_type(Input))
    assert [e.data for e in inputs] == [REDACTED.encode()]
    assert "echo was off" in inputs[0].label and inputs[0].secret


@pytest.mark.anyio
async def test_raw_mode_keys_are_not_mistaken_for_passwords(tmp_path: Path) -> None:
    path = tmp_path / "s.tsr"
    async with termsim.spawn([sys.executable, str(RAWECHO)], record=path) as term:
        await term.wait_for(Text("READY") & InputReady(), timeout=10)
        mark = await term.type("visible")
        await term.wait_for(Text("READ b'visible'"), since=mark, timeout=10)
        await term.press("ctrl+d")
        await term.wait_exit(timeout=10)
    assert b"visible" in b"".join(e.data for e in Recording.open(path).of_type(Input))


@pytest.mark.anyio
async def test_nothing_termsim_shows_holds_a_secret(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Errors (with their film strip and screen), warnings and log records
    are redacted like the recording."""
    caplog.set_level("DEBUG", logger="termsim")
    code = ("import sys, tty; tty.setraw(0); print('token: ' + sys.argv[1], end='\\r\\n', "
            "flush=True); sys.stdin.read(1); print('bye', flush=True)")
    argv = [sys.executable, "-c", code, SECRET]
    async with termsim.spawn(argv, record=tmp_path / "s.tsr", redact=[SECRET]) as term:
        await term.wait_for(Text(SECRET), timeout=10)
        with pytest.raises(termsim.WaitTimeout) as timeout:
            await term.wait_for(Text(f"never {SECRET}"), timeout=0.2)
        mark = await term.type(SECRET)  # the program reads one key and exits
        with pytest.raises(termsim.ProcessExited) as exited:
            await term.wait_for(Text(f"never {SECRET}"), since=mark, timeout=10)
    with pytest.warns(termsim.TermsimWarning):
        async with termsim.spawn(["sh", "-c", "echo ready; read x"], redact=[SECRET]) as cooked:
            await cooked.wait_for(Text("ready"))
            await cooked.type(f"{SECRET}\x01")
    shown = [str(timeout.value), timeout.value.awaited, timeout.value.film,
             str(exited.value), exited.value.awaited or "", exited.value.film, mark.label,
             *cooked.warnings, *(r.getMessage() for r in caplog.records)]
    assert not [s for s in shown if SECRET in s]
    assert REDACTED in str(timeout.value) and REDACTED in str(exited.value)
    assert REDACTED in cooked.warnings[0]
    assert SECRET in timeout.value.snapshot.text  # the test's own object stays real


PASSWORD_PROMPT = (
    "from prompt_toolkit import prompt\n"
    "p = prompt('Password: ', is_password=True)\n"
    "print('length', len(p))\n"
)


@pytest.mark.anyio
async def test_a_prompt_toolkit_password_is_secret_when_the_test_says_so(tmp_path: Path) -> None:
    """prompt_toolkit reads passwords in raw mode: the tty cannot tell, the
    test can (``secret=True``)."""
    pytest.importorskip("prompt_toolkit")
    path = tmp_path / "s.tsr"
    async with termsim.spawn([sys.executable, "-c", PASSWORD_PROMPT], record=path) as term:
        await term.wait_for(Text("Password:") & InputReady(), timeout=20)
        mark = await term.type("correct horse\n", secret=True)
        assert "correct" not in mark.label
        await term.wait_for(Text("length 13"), since=mark, timeout=20)
    raw = path.read_bytes()
    assert b"correct horse" not in raw
    assert [e.data for e in Recording.open(path).of_type(Input)] == [REDACTED.encode()]
