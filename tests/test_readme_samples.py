"""The README's samples are what termsim prints, so they cannot go stale.

Each test takes a block out of README.md as it stands and produces it: the
shake example is run as printed (live it passes, shaken it fails with the
report the README shows), and ``termsim info``'s sample is compared with
the command's output to the byte.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from termsim.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def block_after(marker: str, fence: str = "```") -> str:
    """The body of the first fenced block after ``marker`` in the README."""
    at = README.index(marker)
    start = README.index(fence, at)
    start = README.index("\n", start) + 1
    return README[start:README.index("```\n", start)]


def shape(line: str) -> str:
    """A sample line as a pattern: its numbers may differ from run to run
    (which variant fails, at which byte, after how many runs), and so may
    the text cut at that byte; its words may not."""
    pattern = re.escape(line.rstrip())
    pattern = re.sub(r"\d+", r"\\d+", pattern)
    return re.sub(r"'[^']*(?:\\ [^']*)*'", "'.*'", pattern)


def test_the_shake_example_runs_as_printed_and_fails_as_shown(
    pytester: pytest.Pytester,
) -> None:
    code = block_after("**Shake: find the race before CI does.**", "```python")
    pytester.makepyfile(test_steps=code)
    live = pytester.runpytest("-p", "no:randomly")
    assert live.ret == 0, live.stdout.str()
    shaken = pytester.runpytest("-p", "no:randomly", "--termsim-shake=50")
    assert shaken.ret == 1
    sample = block_after("Shaken (`pytest test_steps.py --termsim-shake=50`)")
    shaken.stdout.re_match_lines([r".*" + shape(line.removeprefix("E")) for line in
                                  sample.splitlines() if line.strip()])


def test_the_info_sample_is_what_termsim_info_prints(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["info", "recordings/boot-hang.tsr"]) in (0, None)
    sample = block_after("`termsim info recordings/boot-hang.tsr` tells the story")
    assert capsys.readouterr().out == sample
