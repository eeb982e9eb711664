"""pytest plugin: every session a test spawns is recorded; failures keep theirs.

Registered through the ``pytest11`` entry point, so installing termsim is
enough. While a test runs, ``termsim.spawn()`` records to a file named after
the test in ``--termsim-dir`` (default ``.termsim`` under the rootdir). When
the test fails, its recordings stay and the failure report gets a "termsim"
section: each recording's path, the wait that failed, the final screen, and
the commands that replay it. When it passes they are deleted, unless
``--termsim-keep=all``; ``--termsim-keep=none`` turns recording off.

Retries never erase evidence: every attempt records to its own file, and a
failed attempt's files are kept and reported even when a rerun passes.
Names carry the test id and an attempt number, created exclusively, so
pytest-xdist workers never collide. Only public pytest hooks are used, and
termsim's own public hook (:func:`termsim.record_sessions`).

The ``termsim_recordings`` fixture gives a test the paths its sessions
recorded to so far (to attach them, or replay them in the same test).
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator
from pathlib import Path

import pytest

from ._errors import RecordingError, describe_status
from ._hooks import record_sessions
from ._playback import Playback
from ._recording import Recording
from .events import Exit

_KEY = pytest.StashKey[list[Path]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("termsim", "termsim terminal-session recordings")
    group.addoption(
        "--termsim-dir", default=None, metavar="DIR",
        help="where recordings of failed tests are kept (default: .termsim in the rootdir)",
    )
    group.addoption(
        "--termsim-keep", default="failed", choices=("failed", "all", "none"),
        help="keep recordings of failed tests (default), of all tests, or record nothing",
    )


def _directory(config: pytest.Config) -> Path:
    option = config.getoption("--termsim-dir")
    return Path(option) if option else Path(str(config.rootpath)) / ".termsim"


def _safe(nodeid: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.\[\]-]+", "_", nodeid.replace("::", "__"))
    return name.strip("_.")[:150] or "test"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Each attempt (a rerun is a new attempt of the same item) starts a new list.
    item.stash[_KEY] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    config = item.config
    if config.getoption("--termsim-keep") == "none":
        return (yield)
    directory = _directory(config)
    made = item.stash.setdefault(_KEY, [])

    def allocate(argv: list[str]) -> str:
        directory.mkdir(parents=True, exist_ok=True)
        stem = _safe(item.nodeid)
        n = 1
        while True:
            path = directory / (f"{stem}.tsr" if n == 1 else f"{stem}-{n}.tsr")
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                n += 1
                continue
            os.close(fd)
            made.append(path)
            return str(path)

    with record_sessions(allocate):
        return (yield)


@pytest.fixture
def termsim_recordings(request: pytest.FixtureRequest) -> list[Path]:
    """The files this test's sessions recorded to, in the order they started
    (empty with ``--termsim-keep=none``). The list grows as sessions start."""
    made: list[Path] = request.node.stash.setdefault(_KEY, [])
    return made


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None],
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when != "call":
        return report
    made = item.stash.get(_KEY, [])
    if not made:
        return report
    keep = item.config.getoption("--termsim-keep")
    # pytest-rerunfailures reports a failed attempt that will be retried as
    # "rerun": that attempt's recordings are evidence too.
    if report.failed or str(report.outcome) == "rerun":
        report.sections.append(("termsim recordings", _describe(made, item.config)))
    elif keep != "all":
        for path in made:
            try:
                path.unlink()
            except OSError:
                pass
    return report


def _describe(paths: list[Path], config: pytest.Config) -> str:
    out: list[str] = []
    for path in paths:
        shown = _relative(path, config)
        out.append(f"recording: {shown}")
        try:
            recording = Recording.open(path)
        except RecordingError as exc:
            out.append(f"  (unreadable: {exc})")
            continue
        failed = _failed_wait(recording)
        if failed:
            out.append(f"  failed wait: {failed}")
        exit_event = next(recording.of_type(Exit), None)
        if exit_event is not None:
            out.append(f"  program: {describe_status(exit_event.status)} "
                       f"at {exit_event.t:.3f} s")
        out.append(f"  look:   termsim show {shown} --frame   |   termsim info {shown}")
        out.append(f"  replay: termsim play {shown}   (in a test: termsim.replay({str(shown)!r}))")
        out.append("  final screen:")
        out.extend("    " + line for line in Playback(recording).screen_at().render().splitlines())
    return "\n".join(out)


def _failed_wait(recording: Recording) -> str | None:
    """The last wait that ended badly, described."""
    failed = [w for w in recording.waits()
              if w.end is not None and w.outcome not in ("?", "matched")]
    if not failed:
        return None
    w = max(failed, key=lambda w: w.end or 0.0)
    return f"{w.predicate} ({w.outcome} after {(w.end or w.start) - w.start:.3f} s)"


def _relative(path: Path, config: pytest.Config) -> Path:
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        try:
            return path.relative_to(Path(str(config.rootpath)))
        except ValueError:
            return path
