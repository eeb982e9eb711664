"""The ``term`` fixture: a session of the test's program, started for the
test and ended after it, so a test says only what it does.

The program is named once for many tests, by a ``termsim_command`` fixture
(in ``conftest.py`` or the test module), or per test by the ``termsim``
mark's ``command=``; the mark's other keywords are :func:`termsim.spawn`'s
options (``cols``, ``rows``, ``env``, ``timeout``...), over those a
``termsim_options`` fixture gives. Because it is a function-scoped async
fixture, everything the plugin does for a test's sessions holds for it:
recorded under the test's name, reported when the test fails, in the test
matrix's combination, and shaken (its session is replayed in each variant).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from .errors import ArgumentError
from .live.session import Session
from .live.spawning import spawn

#: The ``termsim`` mark's keywords that are not spawn options.
_MARK_ONLY = {"command", "profiles", "sizes"}


@pytest.fixture
def termsim_command() -> Sequence[str] | None:
    """The program the ``term`` fixture starts: override it, e.g. in
    ``conftest.py``, to return ``["python", "app.py"]``."""
    return None


@pytest.fixture
def termsim_options() -> dict[str, Any]:
    """:func:`termsim.spawn` options for the ``term`` fixture (override it);
    the ``termsim`` mark's keywords win over these."""
    return {}


@pytest.fixture
async def term(
    request: pytest.FixtureRequest, termsim_command: Sequence[str] | None,
    termsim_options: dict[str, Any],
) -> AsyncIterator[Session]:
    """The test's program, running in a terminal for the length of the test."""
    mark = request.node.get_closest_marker("termsim")
    given = dict(mark.kwargs) if mark is not None else {}
    command = given.get("command", termsim_command)
    if not command:
        raise ArgumentError(
            "the term fixture needs the program to start: a `termsim_command` fixture "
            "returning its argv (in conftest.py: `@pytest.fixture\\ndef termsim_command(): "
            "return [\"python\", \"app.py\"]`), or `@pytest.mark.termsim(command=[...])` "
            "on the test")
    options = {**termsim_options,
               **{k: v for k, v in given.items() if k not in _MARK_ONLY}}
    async with spawn(list(command), **options) as session:
        yield session
