"""A recording is data: replaying, showing and exporting it never runs
anything and never opens a path named inside it (``docs/reliability.md``,
Security). A recording from a bug report may come from anyone.

The session below is real: a shell that writes a file in its working
directory and reads a golden screen. Its recording names the command, the
directory, the file and the golden. The file is then removed, and every
reader of recordings runs on it (replay in a test; ``show``, ``info``,
``export`` to each format, ``codegen``, ``diff`` and ``play`` on the
command line) under a Python audit hook that notes every process started
and every file opened: no process is started (but ruff's formatter, which
``codegen`` runs on the test it writes), and no file opened is one the
recording names.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from io import BytesIO, TextIOWrapper
from pathlib import Path

import pytest

import termsim
from termsim import Text
from termsim.cli import main

pytestmark = pytest.mark.anyio

#: Audit events that start another program.
_PROCESS_EVENTS = frozenset({
    "subprocess.Popen", "os.posix_spawn", "os.spawn", "os.exec", "os.fork", "os.forkpty",
    "os.system", "pty.spawn", "os.startfile",
})

_seen: list[tuple[str, tuple[object, ...]]] | None = None


def _hook(event: str, args: tuple[object, ...]) -> None:
    if _seen is not None and (event in _PROCESS_EVENTS or event == "open"):
        _seen.append((event, args))


sys.addaudithook(_hook)  # a hook stays for the process; it only notes while asked


@contextmanager
def _watched() -> Iterator[list[tuple[str, tuple[object, ...]]]]:
    global _seen
    _seen = []
    try:
        yield _seen
    finally:
        _seen = None


def _program(event: str, args: tuple[object, ...]) -> str:
    """The name of the program an audit event starts."""
    argv = args[1] if event == "subprocess.Popen" and len(args) > 1 else args[:1]
    first = next(iter(argv), "") if isinstance(argv, (list, tuple)) else argv  # type: ignore[arg-type]
    return os.path.basename(os.fsdecode(first)) if isinstance(first, (str, bytes)) else "?"


def _opened(seen: list[tuple[str, tuple[object, ...]]]) -> set[str]:
    return {os.path.realpath(str(args[0])) for event, args in seen
            if event == "open" and isinstance(args[0], (str, bytes, os.PathLike))}


async def _record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """A real session that names a directory, a file it wrote and a golden."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    golden = workdir / "hello.screen"
    path = tmp_path / "rec.tsr"
    script = "echo made > MARK; echo READY; read line"
    monkeypatch.setenv("TERMSIM_UPDATE", "1")  # the golden is written
    async with termsim.spawn(["sh", "-c", script], cwd=workdir, record=path) as term:
        await term.wait_for(Text("READY"), timeout=10)
        await term.expect_screen(golden=golden, timeout=10)
        await term.type("done\r")
        assert await term.wait_exit(timeout=10) == 0
    monkeypatch.delenv("TERMSIM_UPDATE")
    assert golden.exists()
    mark = workdir / "MARK"
    assert mark.exists()
    mark.unlink()
    return path, mark, golden


async def test_replay_and_every_reader_run_nothing_and_open_nothing_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, mark, golden = await _record(tmp_path, monkeypatch)
    named = _named(path, mark, golden)
    with _watched() as seen:
        async with termsim.replay(path) as term:
            await term.wait_for(Text("READY"), timeout=10)
            await term.type("done\r")
            assert await term.wait_exit(timeout=10) == 0
    assert not [e for e, _ in seen if e in _PROCESS_EVENTS]
    assert not _opened(seen) & named
    monkeypatch.setenv("COLUMNS", "100")
    _every_command(path, named, tmp_path / "out")
    assert not mark.exists()


def _named(path: Path, mark: Path, golden: Path) -> set[str]:
    """The paths the recording names: its directory, the file, the golden."""
    header = termsim.files.Recording.open(path).header
    assert Path(header["cwd"]).resolve() == mark.parent.resolve()
    assert golden.name.encode() in path.read_bytes()
    return {os.path.realpath(p) for p in (mark, golden, mark.parent)}


def _every_command(path: Path, named: set[str], out: Path) -> None:
    out.mkdir()
    commands = [
        ["show", str(path)], ["show", str(path), "--steps", "--format", "md"],
        ["info", str(path)], ["diff", str(path), str(path)],
        ["codegen", str(path), "-o", str(out / "test_generated.py")],
        ["play", str(path), "--speed", "1000"],
        *[["export", str(path), "-o", str(out / f"rec.{ext}")]
          for ext in ("cast", "html", "svg", "txt")],
    ]
    for argv in commands:
        with _watched() as seen, redirect_stdout(TextIOWrapper(BytesIO())):
            status = main(argv)
        assert status == 0, argv
        started = [_program(e, a) for e, a in seen if e in _PROCESS_EVENTS]
        # codegen formats its test with ruff's formatter, when installed.
        assert started in ([], ["ruff"]) if argv[0] == "codegen" else started == [], argv
        opened = _opened(seen)
        assert not opened & named, (argv, opened & named)
        assert str(path.resolve()) in opened, argv  # the hook sees what is opened
    assert sorted(p.name for p in out.iterdir()) == [
        "rec.cast", "rec.html", "rec.svg", "rec.txt", "test_generated.py"]
