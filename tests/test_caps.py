"""Caps that had no test feeding past them (``docs/security.md``, Caps): each
test here goes one past the cap, and one to it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import termsim
from termsim import RecordingError, Text
from termsim.emulator.parsing import tokenizer
from termsim.emulator.screen import modes as screen_modes
from termsim.emulator.terminal import terminal
from termsim.emulator.terminal.terminal import Terminal
from termsim.events import End, Exit, Output
from termsim.files import Recording
from termsim.live import pty
from termsim.recording import fields
from termsim.recording.format import RecordingWriter, make_header


def _file(path: Path, events: list[object], **header: object) -> Path:
    head = make_header(argv=["prog"], cwd="/", cols=80, rows=24, env={})
    head.update(header)
    writer = RecordingWriter(path, head)
    for event in events:
        writer.write(event)  # type: ignore[arg-type]
    return path


def test_a_cell_of_more_than_MAX_CELL_PIXELS_is_refused(tmp_path: Path) -> None:
    cap = fields.MAX_CELL_PIXELS
    Recording.open(_file(tmp_path / "ok.tsr", [], cell_size=[cap, cap]))
    with pytest.raises(RecordingError, match="cell_size"):
        Recording.open(_file(tmp_path / "big.tsr", [], cell_size=[cap + 1, 20]))


def test_a_time_past_MAX_T_US_is_refused(tmp_path: Path) -> None:
    cap = fields.MAX_T_US
    assert Recording.open(_file(tmp_path / "ok.tsr", [Output(cap / 1e6, b"x")])).events
    with pytest.raises(RecordingError, match="byte"):
        Recording.open(_file(tmp_path / "late.tsr", [Output((cap + 2) / 1e6, b"x")]))


@pytest.mark.parametrize("status", [fields.MAX_STATUS, -fields.MAX_STATUS])
def test_an_exit_status_up_to_MAX_STATUS_reads(tmp_path: Path, status: int) -> None:
    assert Recording.open(_file(tmp_path / "s.tsr", [Exit(0.1, status)])).exit_status == status


@pytest.mark.parametrize("status", [fields.MAX_STATUS + 1, -fields.MAX_STATUS - 1])
def test_an_exit_status_past_MAX_STATUS_is_refused(tmp_path: Path, status: int) -> None:
    with pytest.raises(RecordingError, match="status"):
        Recording.open(_file(tmp_path / "s.tsr", [Exit(0.1, status), End(0.2, "closed")]))


def test_the_kitty_flag_stack_keeps_KITTY_STACK_entries() -> None:
    term = Terminal(80, 24)
    for flags in range(1, screen_modes.KITTY_STACK + 5):
        term.feed(b"\x1b[>%du" % flags)
    stack = term._screen.kitty_keyboard
    assert len(stack) == screen_modes.KITTY_STACK
    assert stack[-1] == screen_modes.KITTY_STACK + 4  # the oldest went


def test_a_string_past_MAX_STRING_is_dropped() -> None:
    cap = tokenizer.MAX_STRING
    term = Terminal(80, 24)
    term.feed(b"\x1b]2;" + b"t" * (cap - 10) + b"\x07")
    assert term.screen.title == "t" * (cap - 10)
    term.feed(b"\x1b]2;" + b"u" * (cap + 10) + b"\x07after")
    assert term.screen.title == "t" * (cap - 10)  # the long one never ends as a title
    assert "after" in term.screen.text


def test_the_query_log_keeps_QUERY_LOG_and_counts_them_all() -> None:
    term = Terminal(80, 24)
    term.feed(b"\x1b[6n" * (terminal.QUERY_LOG + 500))
    assert len(term.queries) == terminal.QUERY_LOG
    assert term.query_count == terminal.QUERY_LOG + 500


@pytest.mark.anyio
async def test_the_reader_stops_reading_past_MAX_BACKLOG(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flood is read only while what is read but not yet emulated stays
    under the cap (the PTY then holds the program back), at most one burst
    of reads past it: here the cap is made 64 KB, and a program writes 4 MB."""
    cap = 1 << 16
    monkeypatch.setattr(pty, "MAX_BACKLOG", cap)
    code = "import sys; sys.stdout.write('x' * 4_000_000 + '\\r\\nFLOOD-DONE\\r\\n')"
    sizes: list[int] = []
    async with termsim.spawn([sys.executable, "-c", code], record=False) as term:
        source = term._pty
        term.listeners.append(lambda event: sizes.append(source.stream.pending_output))
        await term.wait_for(Text("FLOOD-DONE"), timeout=60)
    assert max(sizes) <= cap + pty.MAX_READ_BURST < 4_000_000 // 2
    assert len(sizes) > 4_000_000 // pty.READ_SIZE  # it was read in pieces, every one seen
