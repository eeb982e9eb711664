"""Running ``termsim drive`` as a person or an agent does: one process a step.

The tests of ``termsim drive`` run the real command in a child process for
each step, against a daemon of their own (``TERMSIM_DRIVE_DIR``: a short
private directory a test, so no two tests share a daemon and the socket's
path fits a Unix socket's). ``TERMSIM_DRIVE_GRACE=0``: the daemon ends as
soon as its last session is stopped, which a test can wait for.

The command is ``termsim drive`` once the ``termsim`` command has it (the
hook in ``termsim/cli.py``), and ``python -m termsim.drive`` before: both
are the same function. Waiting for a process to end is a pidfd (or a
process table check on each exit report), never a sleep.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conftest import ROOT, inherited_env

from termsim.live.process import is_running


def cli_has_drive() -> bool:
    """Whether the ``termsim`` command registers ``drive`` (the hook landed)."""
    from termsim.cli import _parser

    parser = _parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return "drive" in action.choices
    return False


def drive_command() -> list[str]:
    """How to run ``termsim drive`` here."""
    if cli_has_drive():
        return [sys.executable, "-m", "termsim", "drive"]
    return [sys.executable, "-m", "termsim.drive"]


@dataclass
class Ran:
    """One step's process: its exit status and what it printed."""

    args: list[str]
    status: int
    out: str
    err: str

    def json(self) -> dict[str, Any]:
        value = json.loads(self.out)
        assert isinstance(value, dict)
        return value


class Driver:
    """Runs ``termsim drive`` steps in ``cwd`` with ``env``, against the
    daemon of ``directory``."""

    def __init__(self, directory: Path, cwd: Path, env: dict[str, str]) -> None:
        self.directory = directory
        self.cwd = cwd
        self.env = {**env, "TERMSIM_DRIVE_DIR": str(directory), "TERMSIM_DRIVE_GRACE": "0",
                    "COLUMNS": "100"}

    def __call__(self, *args: str, check: int | None = 0, timeout: float = 120) -> Ran:
        done = subprocess.run([*drive_command(), *args], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=timeout, check=False)
        ran = Ran(list(args), done.returncode, done.stdout, done.stderr)
        if check is not None:
            assert ran.status == check, (args, ran.status, ran.out, ran.err, self.log())
        assert "Traceback" not in ran.err, ran.err
        return ran

    def log(self) -> str:
        try:
            return (self.directory / "daemon.log").read_text()
        except OSError:
            return ""

    def daemon_pid(self) -> int | None:
        """The daemon's process id, from its lock file (None: none ran)."""
        try:
            text = (self.directory / "daemon.lock").read_text().strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None


def wait_gone(pid: int, timeout: float = 30.0) -> bool:
    """Wait until process ``pid`` no longer runs; False after ``timeout``."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        poller.poll(timeout * 1000)
    finally:
        os.close(fd)
    return not is_running(pid)


def drive_in(tmp_path: Path) -> Iterator[Driver]:
    """For a fixture: a ``termsim drive`` of the test's own, run from ``tmp_path`` (which
    holds ``examples/agent_repl.py``, so that commands read as a person
    types them); its daemon is ended after the test if still running."""
    directory = Path(tempfile.mkdtemp(prefix="td-"))
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "agent_repl.py").symlink_to(ROOT / "examples" / "agent_repl.py")
    home = tmp_path / "home"
    home.mkdir()
    env = {**inherited_env(), "HOME": str(home), "AGENT_REPL_BOOT_SECONDS": "0.3"}
    driver = Driver(directory, tmp_path, env)
    yield driver
    pid = driver.daemon_pid()
    if pid is not None and is_running(pid):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        assert wait_gone(pid), f"the daemon {pid} did not end on SIGTERM"
    shutil.rmtree(directory, ignore_errors=True)
