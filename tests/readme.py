"""README.md's fenced blocks, by name, for the tests that produce them.

Every fenced block of the README (a snippet, a command, a sample of what
termsim prints) sits right under a ``<!-- readme: NAME -->`` comment, which
GitHub does not show. A test takes a block with ``block("NAME")`` and runs
it or produces it; ``tests/test_readme_blocks.py`` fails when a block has no
name, when two share one, or when no test takes a block, so a snippet added
to the README without a test that runs it fails the suite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

_BLOCK = re.compile(r"^(?P<marker>[^\n]*)\n```(?P<lang>[\w-]*)\n(?P<body>.*?)^```$", re.M | re.S)


@dataclass(frozen=True)
class Block:
    """One fenced block: its name, its language tag and its text."""

    name: str | None
    lang: str
    body: str
    line: int  # of the opening fence, 1-based


def blocks(text: str | None = None) -> list[Block]:
    """Every fenced block of the README, in order, named or not."""
    return fenced(README.read_text() if text is None else text, "readme")


def fenced(text: str, marker: str) -> list[Block]:
    """Every fenced block of ``text``, in order, each named by the
    ``<!-- MARKER: NAME -->`` comment on the line above it (``None`` if it
    has none): the README's convention, for any Markdown file and marker."""
    named = re.compile(rf"<!-- {re.escape(marker)}: (?P<name>[\w-]+) -->")
    found = []
    for match in _BLOCK.finditer(text):
        name = named.fullmatch(match["marker"].strip())
        line = text.count("\n", 0, match.start("lang")) + 1
        found.append(Block(name["name"] if name else None, match["lang"], match["body"], line))
    return found


def block(name: str) -> str:
    """The text of the README block called ``name``."""
    for each in blocks():
        if each.name == name:
            return each.body
    raise KeyError(f"README.md has no block marked <!-- readme: {name} -->")


def shape(line: str) -> str:
    """A sample line as a regular expression: the numbers in it may differ
    from run to run (times, byte offsets, which variant failed), and so may
    the text between quotes that such a number picks; the words may not."""
    pattern = re.escape(line.rstrip())
    pattern = re.sub(r"\d+", r"\\d+", pattern)
    return re.sub(r"'[^']*(?:\\ [^']*)*'", "'.*'", pattern)


def untaken(names: list[str], call: str) -> tuple[set[str], set[str]]:
    """Which of the blocks ``names`` no test takes (by calling ``call("NAME")``
    in a test module), and which names tests take that are not there."""
    sources = "\n".join(p.read_text() for p in (ROOT / "tests").glob("test_*.py"))
    taken = set(re.findall(rf"""\b{call}\(\s*["']([\w-]+)["']""", sources))
    return set(names) - taken, taken - set(names)
