"""``--previous CHECKOUT``: a benchmark's pass run against another termsim.

A checkout of an older commit (a git worktree) is measured in its own
process, so that its modules and this one's never meet, and the pass hands
its figures back as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def in_checkout(checkout: str, module: str, call: str, cwd: str) -> Any:
    """``module.call`` (``call`` as written after the dot, with its
    arguments: ``"one_pass()"``), run in a new process that imports termsim
    from ``checkout``; what it returned, through JSON. ``cwd``: where that
    process runs, which must hold no other termsim (``python -c`` puts it
    first on ``sys.path``)."""
    env = dict(os.environ, PYTHONPATH=checkout)
    here = str(Path(__file__).resolve().parent)
    code = (f"import sys, json, termsim; sys.path.append({here!r}); "
            f"assert termsim.__file__.startswith({checkout!r}), termsim.__file__; "
            f"import {module}; print(json.dumps({module}.{call}))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True, cwd=cwd)
    return json.loads(done.stdout.strip().splitlines()[-1])
