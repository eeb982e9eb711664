"""docs/drive.md says what ``termsim drive`` does: its help is the command's,
every step's options are the ones its parser has, and every step's help runs.

The help is compared with its words and line breaks of the description
kept and the blanks argparse pads with collapsed (a wider or narrower
terminal, or another Python, wraps the option lists otherwise).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from drive_steps import cli_has_drive, drive_command
from readme import ROOT
from test_docs import docs_fence

from termsim.drive.cli import build_parser

STEPS = ["start", "type", "press", "paste", "resize", "wait", "screen", "status", "stop",
         "daemon"]


def _help(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "100"}
    done = subprocess.run([*drive_command(), *args, "--help"], capture_output=True, text=True,
                          env=env, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _words(text: str) -> str:
    return " ".join(text.split())


def test_termsim_drive_help_is_the_one_the_page_shows() -> None:
    assert _words(_help()) == _words(docs_fence("drive-help"))


def test_the_steps_the_help_lists_are_the_parser_s() -> None:
    listed = re.findall(r"^    (\w+) ", docs_fence("drive-help"), re.M)
    assert listed == STEPS


def _options(step: str) -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "verb")
    assert sub.choices is not None
    found: set[str] = set()
    for action in sub.choices[step]._actions:  # type: ignore[index]
        if action.help != "==SUPPRESS==":
            found |= {o for o in action.option_strings if o.startswith("--")}
    return found - {"--help", "--json"}


def _table() -> dict[str, str]:
    rows = {}
    for line in (ROOT / "docs" / "drive.md").read_text().splitlines():
        match = re.match(r"\| `(\w+)[^`]*` \|\s*(.*?)\s*\| .* \|$", line)
        if match:
            rows[match[1]] = match[2]
    return rows


@pytest.mark.parametrize("step", STEPS)
def test_each_step_s_help_runs_and_the_page_lists_its_options(step: str) -> None:
    text = _help(step)
    assert text.startswith(f"usage: termsim drive {step} [-h] [--json]")
    row = _table()[step]
    documented = set(re.findall(r"`(--[\w-]+)", row))
    assert documented == _options(step), (step, row)
    for option in _options(step):
        assert option in text


def test_python_m_termsim_drive_and_termsim_drive_say_the_same() -> None:
    """The two ways in are one function (once ``termsim`` registers it)."""
    if not cli_has_drive():
        pytest.skip("the termsim command does not register drive yet (the proposal's hook)")
    env = {**os.environ, "COLUMNS": "100"}
    direct = subprocess.run([sys.executable, "-m", "termsim.drive", "wait", "--help"],
                            capture_output=True, text=True, env=env, check=True).stdout
    assert _help("wait") == direct


def test_termsim_mcp_without_the_sdk_says_how_to_get_it_in_one_line() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("the mcp SDK is installed here")
    done = subprocess.run([sys.executable, "-m", "termsim.drive.mcp"], capture_output=True,
                          text=True, check=False, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert done.stderr == "termsim mcp needs the MCP SDK: pip install 'termsim[mcp]'\n"
    assert done.stdout == ""
