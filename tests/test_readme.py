"""The README's example test runs, so the README stays true."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_example_test_passes(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## A test\n\n```python\n(.*?)```", readme, re.S)
    assert block, "README.md has no '## A test' python block"
    (tmp_path / "test_from_readme.py").write_text(block.group(1))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"--rootdir={tmp_path}", str(tmp_path / "test_from_readme.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "2 passed" in result.stdout  # asyncio and trio
