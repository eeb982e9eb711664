"""IPython and ptpython, installed by the test extra, driven like a user would."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import inherited_env

import termsim
from termsim import CursorAfter, InputReady, Region, Text

pytestmark = pytest.mark.anyio


def fresh_env(tmp_path: Path) -> dict[str, str]:
    env = inherited_env("IPYTHON")
    env.update(
        HOME=str(tmp_path), IPYTHONDIR=str(tmp_path / "ipython"),
        XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
        PYTHONSTARTUP="",
    )
    return env


async def test_ipython_evaluates_and_exits(tmp_path: Path) -> None:
    pytest.importorskip("IPython")
    argv = [sys.executable, "-m", "IPython", "--no-banner", "--colors=NoColor"]
    async with termsim.spawn(argv, env=fresh_env(tmp_path), cols=100, rows=30) as term:
        await term.wait_for(CursorAfter("In [1]: ") & InputReady(), timeout=60)
        await term.type("6 * 7")
        mark = await term.press("enter")
        snap = await term.wait_for(Text("Out[1]: 42"), since=mark, timeout=30)
        assert "In [1]: 6 * 7" in snap.text
        await term.wait_for(CursorAfter("In [2]: ") & InputReady(), timeout=30)
        await term.type("exit")
        await term.press("enter")
        assert await term.wait_exit(timeout=30) == 0


async def test_ptpython_evaluates_and_exits(tmp_path: Path) -> None:
    pytest.importorskip("ptpython")
    argv = [sys.executable, "-m", "ptpython"]
    async with termsim.spawn(argv, env=fresh_env(tmp_path), cols=100, rows=30) as term:
        # The status bar is drawn only once the terminal answered a CPR.
        await term.wait_for(
            CursorAfter(">>> ") & InputReady() & Text("[F4]", region=Region.rows(-2, None)),
            timeout=60,
        )
        await term.type("6 * 7")
        mark = await term.press("enter")
        await term.wait_for(Regex42(), since=mark, timeout=30)
        # Between two prompts the tty is cooked and a Ctrl-D would be lost:
        # wait until ptpython reads keys again.
        await term.wait_for(CursorAfter(">>> ") & InputReady(), since=mark, timeout=30)
        await term.press("ctrl+d")
        await term.wait_for(Text("Do you really want to exit"), timeout=30)
        await term.press("y")
        assert await term.wait_exit(timeout=30) == 0


def Regex42() -> termsim.Predicate:
    """ptpython prints results as 'Out[1]: 42' or '42' depending on its version."""
    return termsim.Regex(r"^(Out\[\d+\]: )?42\s*$")
