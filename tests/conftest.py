"""Shared fixtures: both anyio backends, and a fresh HOME for the example REPL."""

from __future__ import annotations

import gc
import importlib.util
import os
import shutil
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from termsim import Driver, Regex

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = Path(__file__).resolve().parent / "programs"
EXAMPLE = [sys.executable, str(ROOT / "examples" / "agent_repl.py")]

# pytest rewrites the asserts of every test module it imports and caches the
# result beside it, unless PYTHONDONTWRITEBYTECODE is set: then, run after
# run, each of the eight xdist workers rewrites all hundred test files again
# (2 s of CPU each, on two cores). The suite keeps pytest's cache, and
# Python's for the modules imported from here on, whatever that variable
# says (both are ignored by git); a read-only tree still works (the write
# is skipped). The programs the tests start keep theirs too: each of the
# hundreds of Python processes (the termsim CLI, the example REPL, pytest run
# by a test) compiled every module it imported from source again, about
# 50 ms of CPU each (perf: 2.5 % of the suite's CPU was the compiler).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# A background job of a shell script (`pytest ... &`, nohup) starts with
# SIGINT ignored, and every program it starts inherits that, through termsim's
# spawn: a program cannot even trap a signal ignored on entry, so Ctrl-C (the
# tests that press it) would interrupt nothing. A terminal starts its programs
# with the default; so does this suite, however it was started.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Hypothesis: two profiles, chosen by TERMSIM_HYPOTHESIS_PROFILE. "ci" (the
# default, what the README's test command runs) tries a quarter of each
# test's examples, so the suite runs in a minute; "full" tries them all:
#     TERMSIM_HYPOTHESIS_PROFILE=full python -m pytest -n 8
# Neither has a deadline or the too_slow health check: both are wall-clock
# limits, which a loaded machine breaks without anything being wrong.
_UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("full", max_examples=100, **_UNTIMED)
settings.register_profile("ci", max_examples=25, **_UNTIMED)
settings.load_profile(os.environ.get("TERMSIM_HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Exempt what collection built from the cycle collector, for the rest of
    the worker's life. Each xdist worker imports every test module, Hypothesis
    and all of termsim, about a hundred thousand objects that live to the end;
    every full collection walked them all again (a tenth to a fifth of a
    worker's CPU, measured with perf and gc.callbacks). ``gc.freeze`` leaves
    them out of it; what the tests create is collected as before."""
    gc.collect()
    gc.freeze()


def examples(full: int) -> int:
    """How many examples a property test with ``full`` examples tries under
    the loaded profile: all of them with "full", a quarter with "ci"."""
    return max(10, full * settings.default.max_examples // 100)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's own, run as a user's terminal would show it. With CI (or
    BUILD_NUMBER) set, as on a CI machine, pytest prints each failure's
    whole message again in its short summary, and a test that counts what
    an inner run printed would count it twice."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BUILD_NUMBER", raising=False)
    return pytester


def inherited_env(*drop_prefixes: str) -> dict[str, str]:
    """This process's environment for a child, minus what would change what
    the child draws: TERM (termsim emulates xterm-256color, whatever the CI
    shell says), prompt_toolkit's escape hatches, XDG dirs, and the example's
    own variables."""
    drop = ("XDG_", "AGENT_REPL_", "PROMPT_TOOLKIT_", "NO_COLOR", *drop_prefixes)
    return {
        k: v for k, v in os.environ.items()
        if k not in ("TERM", "COLUMNS", "LINES") and not k.startswith(drop)
    }


def program(name: str, *args: str) -> list[str]:
    """argv for one of the small test programs in tests/programs/."""
    return [sys.executable, str(PROGRAMS / name), *args]


async def stubborn_pids(term: Driver) -> list[int]:
    """The process ids tests/programs/stubborn.py prints, once the whole line
    is on the screen (a read may end in the middle of a number)."""
    snap = await term.wait_for(Regex(r"PIDS ([\d ]+) END"), timeout=10)
    assert snap.match is not None
    return [int(p) for p in (snap.match.group(1) or "").split()]


@pytest.fixture
def repl_env(tmp_path: Path) -> dict[str, str]:
    """Environment for the example REPL: an empty HOME, so the picker shows."""
    env = inherited_env()
    env["HOME"] = str(tmp_path)
    env["AGENT_REPL_BOOT_SECONDS"] = "0.3"
    return env


@pytest.fixture
def configured_env(repl_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """Environment for the example REPL with a theme already chosen (no picker)."""
    config = tmp_path / ".config" / "agent-repl"
    config.mkdir(parents=True)
    (config / "config.json").write_text('{"theme": "dark"}\n')
    return repl_env


#: Headless Chromium, for the tests of the HTML pages (None: not installed).
CHROMIUM = shutil.which("chromium")


def trace_bench() -> ModuleType:
    """``benchmarks/bench_trace_page.py``, whose Chromium driver the tests
    of the trace page share (a script, not a package: loaded by path)."""
    spec = importlib.util.spec_from_file_location(
        "bench_trace_page", ROOT / "benchmarks" / "bench_trace_page.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def browser(tmp_path: Path) -> Any:
    """A headless Chromium of the test's own, closed after it."""
    opened = trace_bench().Chromium(str(tmp_path / "profile"))
    try:
        yield opened
    finally:
        opened.close()
