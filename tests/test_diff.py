"""termsim diff: where a green run and a red run of one test part ways."""

from __future__ import annotations

import html.parser
from pathlib import Path

import pytest
from conftest import EXAMPLE

import termsim
from termsim import CursorAfter, InputReady, Region, Text, WaitTimeout
from termsim.cli import main
from termsim.files import Recording
from termsim.offline.diff import diff

pytestmark = pytest.mark.anyio

TOOLBAR = Region.row(-1)
PROMPT = CursorAfter("❯ ") & InputReady()


async def boot(env: dict[str, str], path: Path, timeout: float) -> None:
    """One test body, run against a server that starts and one that hangs
    (which waits out the timeout: a short one; the other must not race it)."""
    async with termsim.spawn(EXAMPLE, env=env, record=path) as term:
        await term.wait_for(Text("state: booting", region=TOOLBAR), timeout=30)
        try:
            await term.wait_for(PROMPT, timeout=timeout)
        except WaitTimeout:
            return
        await term.press("ctrl+d")
        await term.wait_exit(timeout=10)


@pytest.fixture
def runs(configured_env: dict[str, str], tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "pass.tsr", tmp_path / "fail.tsr"


async def test_diff_names_the_first_wait_that_differed_and_the_row_that_shows_why(
    configured_env: dict[str, str], runs: tuple[Path, Path],
) -> None:
    green, red = runs
    await boot(configured_env, green, timeout=30)
    await boot({**configured_env, "AGENT_REPL_BOOT_HANG": "1"}, red, timeout=1.5)
    result = diff(green, red)
    assert result.first is not None
    assert result.first.what == (
        "wait for the cursor right after '❯ ' and the program reading keys in raw mode: "
        "matched in A, timed out in B")
    text = result.text()
    # The bottom row says why: A's toolbar slept, B's still booted.
    assert any("state: sleeping" in line and "state: booting" in line and "row  23" in line
               for line in text.splitlines()), text
    assert "first divergence: wait for the cursor right after" in result.summary()
    # Timings of the waits both runs have.
    assert any(line.startswith("text 'state: booting' in the bottom row:")
               for line in result.timings)


def test_the_same_run_has_no_divergence() -> None:
    path = Path(__file__).resolve().parent.parent / "recordings" / "passing.tsr"
    result = diff(path, path)
    assert result.same and result.first is None and not result.only_a
    assert "line up, with the same outcomes" in result.text()


def test_a_wait_only_one_run_has_is_the_divergence(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    result = diff(Recording.open(root / "recordings" / "cpr-starvation.tsr"),
                  Recording.open(root / "recordings" / "boot-hang.tsr"))
    assert result.first is not None and result.first.what.startswith("only ")
    assert result.only_a or result.only_b


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


def test_the_cli_prints_the_diff_and_writes_a_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    root = Path(__file__).resolve().parent.parent
    page = tmp_path / "diff.html"
    status = main(["diff", str(root / "recordings" / "passing.tsr"),
                   str(root / "tests" / "data" / "recordings-1.0" / "passing.tsr"),
                   "--html", str(page)])
    out = capsys.readouterr().out
    assert status == 0 and out.startswith("termsim diff: passing.tsr (A) against passing.tsr")
    parser = _Tags()
    parser.feed(page.read_text())
    assert "script" not in parser.tags and "table" in parser.tags
    assert main(["diff", str(tmp_path / "missing.tsr"), str(page)]) == 1
