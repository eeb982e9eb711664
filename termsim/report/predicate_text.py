"""A wait's predicate, back from the words a recording keeps of it.

A recording stores what a wait awaited as its description
(``WaitStarted.predicate``: ``"text 'state: booting' in the bottom row"``),
not the test's object. To explain a failed wait on its final screen, outline
the region it looked at and say which of its parts held when, the trace
viewer rebuilds the predicate from those words: :func:`parse` reads the
descriptions termsim's own predicates write (``Text``, ``Regex``,
``CursorAt``, ``CursorAfter``, ``InputReady``, ``Quiet``, and ``&``, ``|``,
``~`` and ``Sequence`` of them) and gives None for anything else (a
function's docstring, a signal predicate): the viewer then shows the
description alone. It decides nothing about a live wait.

The words come from a file anyone may have written, so reading them is
bounded: a description past :data:`LONGEST` characters, or nested past
Python's recursion limit, is not read, nor is a pattern that would expand
past :data:`PATTERN_SIZE`, and a pattern is run by ``regex``
with :data:`PATTERN_BUDGET` seconds in all (``(a+)+$`` on a screen of
``a`` would take hours with ``re``): past that, it matches nothing more.
"""

from __future__ import annotations

import ast
import importlib
import re
import time
import typing
from collections.abc import Iterator
from typing import cast

import regex

from ..emulator.snapshot.region import Region
from ..engine.cursor_predicates import CursorAfter, CursorAt, InputReady
from ..engine.predicates import All, Any, Not, Predicate, Quiet, Sequence
from ..engine.text_predicates import Regex, Text

__all__ = ["parse", "region_of"]

_STR = r"""(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
_INT = r"-?\d+"
_SLICE = rf"(?:{_INT})?:(?:{_INT})?"
_REGION = (rf"the screen|the bottom row|the top row|the transcript|the output of the last "
           rf"command|the output of command {_INT}|rows {_SLICE}, columns {_SLICE}|"
           rf"rows {_SLICE}|row {_INT}")
#: What may follow a whole part: the end, a joiner, a closing bracket.
_NEXT = r"(?=$| and | or |, then |\))"
_VISIBLE = r"(?P<vis> \(hidden\)| \(visible or not\))?"
_LEAVES = [
    ("text", re.compile(rf"text (?P<s>{_STR}) in (?P<r>{_REGION}){_NEXT}")),
    ("regex", re.compile(rf"regex /(?P<p>.*?)/ in (?P<r>{_REGION}){_NEXT}")),
    ("after", re.compile(rf"the cursor right after (?P<s>{_STR}){_VISIBLE}{_NEXT}")),
    ("at", re.compile(rf"the cursor (?:at (?:row (?P<row>{_INT}))?(?:, )?"
                      rf"(?:column (?P<col>{_INT}))?|(?P<any>anywhere)){_VISIBLE}{_NEXT}")),
    ("ready", re.compile(rf"the program reading keys in raw mode{_NEXT}")),
    ("quiet", re.compile(rf"no output for (?P<n>[\d.e+-]+) s{_NEXT}")),
]


#: ``re``'s own parser (no stubs, and the old name ``sre_parse`` warns).
_parser: typing.Any = importlib.import_module("re._parser")

#: The longest description read back (termsim's own are a line or two).
LONGEST = 10_000
#: Seconds a pattern read from a recording may run, in all its searches.
PATTERN_BUDGET = 1.0
#: The largest pattern read back, counted as ``regex`` builds it: every
#: counted repeat's body as many times as its count (``(?:a{1000}){1000}``
#: would be a million, and ``regex`` builds it in memory before any budget
#: of time applies). termsim's own patterns are a few hundred.
PATTERN_SIZE = 10_000


class _Unknown(Exception):
    pass


def _size(parsed: typing.Any) -> int:
    """How large ``regex`` makes a pattern ``re``'s parser read."""
    total = 0
    for op, value in parsed:
        if op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT):
            low, high, body = value
            times = low if high == _parser.MAXREPEAT else high
            total += max(times, 1) * _size(body)
        elif op == _parser.SUBPATTERN:
            total += _size(value[-1])
        elif op == _parser.BRANCH:
            total += sum(_size(branch) for branch in value[1])
        elif op in (_parser.ASSERT, _parser.ASSERT_NOT):
            total += _size(value[1])
        else:
            total += 1
        if total > PATTERN_SIZE:
            break
    return total


class _Bounded:
    """A pattern from a recording, as ``Regex`` runs it (``search``,
    ``finditer``, ``pattern``), with a budget of time for all its runs."""

    def __init__(self, pattern: str) -> None:
        # Read by ``re`` first, which builds nothing of its size.
        if len(pattern) > PATTERN_SIZE or _size(_parser.parse(pattern)) > PATTERN_SIZE:
            raise _Unknown
        self.pattern = pattern
        self.flags = re.MULTILINE
        self._compiled = regex.compile(pattern, regex.MULTILINE)
        self._left = PATTERN_BUDGET

    def _run(self, call: str, text: str) -> list[regex.Match[str]] | regex.Match[str] | None:
        if self._left <= 0:
            return None
        began = time.monotonic()
        try:
            if call == "search":
                return self._compiled.search(text, timeout=self._left)
            return list(self._compiled.finditer(text, timeout=self._left))
        except TimeoutError:
            self._left = 0.0
            return None
        finally:
            self._left -= time.monotonic() - began

    def search(self, text: str) -> regex.Match[str] | None:
        found = self._run("search", text)
        return found if not isinstance(found, list) else None

    def finditer(self, text: str) -> Iterator[regex.Match[str]]:
        found = self._run("finditer", text)
        return iter(found if isinstance(found, list) else ())


def parse(description: str) -> Predicate | None:
    """The predicate whose :meth:`~termsim.Predicate.describe` is
    ``description``, or None when these words are not one termsim writes."""
    if len(description) > LONGEST:
        return None
    try:
        predicate, at = _sequence(description, 0)
    except (_Unknown, ValueError, SyntaxError, re.error, regex.error, RecursionError):
        return None
    if at != len(description) or predicate.describe() != description:
        return None
    return predicate


def _sequence(text: str, at: int) -> tuple[Predicate, int]:
    parts = []
    while True:
        part, at = _any(text, at)
        parts.append(part)
        if not text.startswith(", then ", at):
            break
        at += len(", then ")
    return (parts[0] if len(parts) == 1 else Sequence(*parts)), at


def _any(text: str, at: int) -> tuple[Predicate, int]:
    parts = []
    while True:
        part, at = _all(text, at)
        parts.append(part)
        if not text.startswith(" or ", at):
            break
        at += len(" or ")
    return (parts[0] if len(parts) == 1 else Any(*parts)), at


def _all(text: str, at: int) -> tuple[Predicate, int]:
    parts = []
    while True:
        part, at = _unary(text, at)
        parts.append(part)
        if not text.startswith(" and ", at):
            break
        at += len(" and ")
    return (parts[0] if len(parts) == 1 else All(*parts)), at


def _unary(text: str, at: int) -> tuple[Predicate, int]:
    if text.startswith("not ", at):
        inner, at = _unary(text, at + 4)
        return Not(inner), at
    if text.startswith("(", at):
        inner, at = _sequence(text, at + 1)
        if not text.startswith(")", at):
            raise _Unknown
        return inner, at + 1
    return _leaf(text, at)


def _visible(match: re.Match[str]) -> bool | None:
    return {None: True, " (hidden)": False, " (visible or not)": None}[match["vis"]]


def _leaf(text: str, at: int) -> tuple[Predicate, int]:
    for kind, pattern in _LEAVES:
        m = pattern.match(text, at)
        if m is None:
            continue
        if kind == "text":
            return Text(ast.literal_eval(m["s"]), _region(m["r"])), m.end()
        if kind == "regex":
            bounded = _Bounded(m["p"])
            read = Regex(m["p"], _region(m["r"]))
            read.pattern = cast(re.Pattern[str], bounded)
            return read, m.end()
        if kind == "after":
            return CursorAfter(ast.literal_eval(m["s"]), visible=_visible(m)), m.end()
        if kind == "at":
            row = int(m["row"]) if m["row"] is not None else None
            col = int(m["col"]) if m["col"] is not None else None
            return CursorAt(row, col, visible=_visible(m)), m.end()
        if kind == "ready":
            return InputReady(), m.end()
        return Quiet(float(m["n"])), m.end()
    raise _Unknown


def _ints(text: str) -> tuple[int | None, int | None]:
    a, b = text.split(":")
    return (int(a) if a else None), (int(b) if b else None)


def _region(label: str) -> Region:
    if label == "the screen":
        return Region.screen()
    if label == "the bottom row":
        return Region.row(-1)
    if label == "the top row":
        return Region.row(0)
    if label == "the transcript":
        return Region.transcript()
    if label == "the output of the last command":
        return Region.output(-1)
    if label.startswith("the output of command "):
        return Region.output(int(label.rsplit(" ", 1)[1]))
    if label.startswith("rows ") and ", columns " in label:
        rows, cols = label[5:].split(", columns ")
        top, bottom = _ints(rows)
        left, right = _ints(cols)
        return Region.rect(top, left, bottom, right)
    if label.startswith("rows "):
        return Region.rows(*_ints(label[5:]))
    return Region.row(int(label[4:]))


def region_of(predicate: Predicate) -> Region | None:
    """The region a text predicate looks in (None for the others)."""
    region = getattr(predicate, "region", None)
    return region if isinstance(region, Region) else None
