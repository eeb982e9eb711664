"""For people who run tests without termsim's pytest plugin: the settings the
plugin makes around each test, as context managers.

A runner of its own (unittest, a script, another framework) wraps each test
in these to get what pytest users get by default: every session recorded to
a file of the runner's choosing, golden screens found by name, and sessions
failed when their program leaves the terminal dirty::

    with termsim.runner.record_sessions(lambda argv: f"runs/{name}.tsr"), \\
            termsim.runner.golden_screens(lambda n: f"goldens/{n}.screen"), \\
            termsim.runner.check_hygiene():
        anyio.run(test)

Test code itself needs none of this: it imports from :mod:`termsim`.
"""

from __future__ import annotations

from .engine.settings import check_hygiene, golden_screens, record_sessions
from .naming import publish

__all__ = ["check_hygiene", "golden_screens", "record_sessions"]

publish(globals(), __all__, __name__)
del publish
