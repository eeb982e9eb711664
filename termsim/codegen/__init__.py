"""Tests from recordings: ``termsim codegen REC`` writes the pytest module a
person would have written for the session it holds.

``keys`` reads what was typed from the recorded input bytes; ``steps``
replays the session into steps and the screens each one caused (up to
termsim's hang-up, which is no exit); ``waits`` says in predicates what a
step changed, among the texts ``fresh`` finds it drew, in the pane it
changed it in when the screen is split (``panes``); ``masks`` leaves free
what varies from run to run; ``environment`` reads what the program ran
with; ``module`` writes the file. It sits beside ``offline`` (it
reads recordings and replays them through the engine's terminal) and below
the edges (the ``termsim`` command).
"""

from pathlib import Path

from ..errors import ArgumentError
from ..recording.format import Recording
from . import driven, module

__all__ = ["generate", "generate_files"]


def _driven(path: str, other: str | None, golden: bool) -> bool:
    """Whether ``path`` was driven step by step (``termsim drive``): its
    test is written from the steps as they were asked, not guessed from
    its screens, so a second run or golden screens have nothing to add."""
    if not driven.is_driven(Recording.open(path)):
        return False
    if other is not None or golden:
        raise ArgumentError(
            f"{path} was driven with termsim drive: its test waits as the steps were asked, "
            "so it takes no second recording and marks no golden screen; run "
            "termsim codegen on it alone")
    return True


def generate(path: str, *, other: str | None = None, golden: bool = False) -> str:
    """The source of a pytest module of the session in ``path`` (see
    :func:`termsim.codegen.module.generate`; a driven session's test is
    :func:`termsim.codegen.driven.generate`)."""
    if _driven(path, other, golden):
        return driven.generate(path)
    return module.generate(path, other=other, golden=golden)


def generate_files(path: str, test: str, *, other: str | None = None,
                   golden: bool = False) -> dict[Path, str]:
    """The test file ``test`` and the golden screens it reads, each with its text."""
    if _driven(path, other, golden):
        return driven.generate_files(path, test)
    return module.generate_files(path, test, other=other, golden=golden)
