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

from .module import generate, generate_files

__all__ = ["generate", "generate_files"]
