"""What changes from run to run in a line of text, so that a generated wait
does not depend on it: clocks, dates, durations, temporary paths, process
ids, long hexadecimal ids, and, given a second recording of the same
session, whatever differs between the two.

A line with none of these is awaited as it is (``Text``); one with some is
awaited as a pattern (``Regex``) whose variable parts match any value of
their kind, so a test generated at 10:41 still passes at 10:42.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

#: A path in a temporary directory (pytest's ``tmp_path``, ``mktemp``).
TEMPORARY = re.compile(r"(?:/tmp|/var/tmp|/var/folders|/private/tmp)/\S+")
#: Variable parts, each with the pattern that stands for it in a wait.
_KINDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"), r"[\d:. T-]+"),
    (re.compile(r"\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b"), r"[\d:.]+"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds|m|min|h)\b"),
     r"\d+(?:\.\d+)?\s?\w+"),
    (TEMPORARY, r"\S+"),
    (re.compile(r"\b(?:pid|PID|process)\s*[:=]?\s*\d+"), r"\w+\s*[:=]?\s*\d+"),
    (re.compile(r"\b[0-9a-f]{8,}\b"), r"[0-9a-f]+"),
    # A version (of the interpreter, of a tool) differs between machines.
    (re.compile(r"\b\d+\.\d+\.\d+(?:[.-]?\w+)?\b"), r"\d+\.\d+\.\S+"),
)


def variable_spans(line: str, other: str | None = None) -> list[tuple[int, int, str]]:
    """The spans of ``line`` that vary, with the pattern for each, in order,
    not overlapping; ``other``: the same line in another run, whose
    differences vary too (as ``.+?`` unless a kind above says more)."""
    spans: list[tuple[int, int, str]] = []
    for pattern, replacement in _KINDS:
        for m in pattern.finditer(line):
            if m.end() > m.start() and not any(a < m.end() and m.start() < b
                                               for a, b, _ in spans):
                spans.append((m.start(), m.end(), replacement))
    if other is not None and other != line:
        matcher = SequenceMatcher(None, line, other, autojunk=False)
        for tag, a, b, _, _ in matcher.get_opcodes():
            if tag == "equal":
                continue
            # Widen to whole words: "took 5" and "took 12" differ in a number.
            while a > 0 and line[a - 1].isalnum():
                a -= 1
            while b < len(line) and line[b].isalnum():
                b += 1
            if b > a and not any(x <= a and b <= y for x, y, _ in spans):
                spans = [s for s in spans if not (a <= s[0] and s[1] <= b)]
                spans.append((a, b, r"\d+" if line[a:b].isdigit() else ".+?"))
    return sorted(spans)


_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")


def escape(text: str) -> str:
    """``text`` as a pattern that matches it, escaping only what has a
    meaning in a pattern (``re.escape`` escapes blanks too, which a person
    reading the generated test would not write)."""
    return _SPECIAL.sub(r"\\\1", text)


def pattern_of(line: str, spans: list[tuple[int, int, str]]) -> str:
    """A regular expression matching ``line`` with its variable spans free."""
    out, at = [], 0
    for start, end, replacement in spans:
        out.append(escape(line[at:start]))
        out.append(replacement)
        at = end
    out.append(escape(line[at:]))
    return "".join(out)


def fixed_text(line: str, spans: list[tuple[int, int, str]]) -> str:
    """The part of ``line`` that does not vary (its longest fixed stretch)."""
    pieces, at = [], 0
    for start, end, _ in spans:
        pieces.append(line[at:start])
        at = end
    pieces.append(line[at:])
    return max((p.strip() for p in pieces), key=len, default="")
