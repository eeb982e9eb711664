"""termsim (the ghostty profile) against libghostty, Ghostty's own terminal core.

``tests/ghostty_oracle.py`` feeds each program to a fresh
``pyghostty.Terminal`` in this process and reads every cell, the cursor and
the modes back as a ``differential.View``. Here:

* the reading itself, on a screen whose every aspect is known;
* each known kind (``ghostty_oracle.KINDS``, each with Ghostty's source)
  is well formed, and its example still shows it (else the kind is stale);
  a kind that is a termsim bug is a strict xfail, so that its fix shows;
* a sample of the differential grammar (``tests/differential.py``): each
  program that disagrees is shrunk to the smallest program that still does
  and must be one of the known kinds; an unknown one fails with both
  screens and the command that shows it again.

pyghostty has a wheel for x86_64 Linux only (the test extra pins it there);
elsewhere this module skips.
"""

from __future__ import annotations

from itertools import islice

import pytest

pytest.importorskip("pyghostty")

from conftest import examples
from differential import Program, parse, programs
from ghostty_oracle import KINDS, Checker, Comparison, Kind, ghostty_view, kind_of

#: The grammar sample's seed (the xterm oracle's too).
SEED = 37
#: Programs per run: 600 with the "full" Hypothesis profile, 150 with "ci"
#: (about 3 s, shrinks included: a third of them disagree).
PROGRAMS = examples(600)
#: Tests the sample is cut into (one is ten seconds among eight workers).
CHUNKS = 3


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker()


def _program(example: tuple[int, int, bytes]) -> Program:
    return parse(*example)


def test_ghostty_view_reads_every_aspect() -> None:
    """Text, a wide character, a cluster, colours (palette, RGB, a blank
    erased in a colour), attributes, the cursor and the modes."""
    view = ghostty_view(_program((6, 3, "\x1b[1;31ma\x1b[0m\u4e2d\U0001F1EB\U0001F1F7\r\n"
                                        "\x1b[38;2;1;2;3;7mb\x1b[0;44m\x1b[K\x1b[0m\x1b[?25l"
                                        "\x1b[4h\x1b[?7l".encode())))
    assert view.lines == ("a\u4e2d\U0001F1EB\U0001F1F7", "b", "")
    assert view.cursor == (1, 1)
    assert dict(view.modes) == {"cursor visible": False, "insert": True, "autowrap": False,
                                "origin": False, "alternate screen": False}
    (a, a_look), (wide, _), (flag, _) = view.cells[0]
    assert (a, a_look.fg, a_look.bold) == ("a", "cd0000", True)
    assert (wide, flag) == ("\u4e2d", "\U0001F1EB\U0001F1F7")
    (b, b_look), *blanks = view.cells[1]
    assert (b, b_look.fg, b_look.reverse) == ("b", "010203", True)
    assert len(blanks) == 5 and all(c == " " and look.bg == "0000ee" for c, look in blanks)


# -- the known kinds ----------------------------------------------------------------------


def test_kinds_are_well_formed() -> None:
    names = [k.name for k in KINDS]
    assert len(names) == len(set(names))
    for kind in KINDS:
        assert kind.what and kind.ghostty and "\n" not in kind.what
        assert kind.bug == kind.what.startswith("termsim bug"), kind.name
        assert ".zig" in kind.ghostty, kind.name  # names the Ghostty source
        # Its example matches it (and no kind checked before it, for the
        # kinds that need no screens to decide).
        program = _program(kind.example)
        assert kind.matches(program), kind.name
        if kind.confirm is None:
            assert kind_of(program) is kind, kind.name


@pytest.mark.parametrize("kind", [pytest.param(k, id=k.name) for k in KINDS if not k.bug])
def test_each_kind_still_shows(kind: Kind, checker: Checker) -> None:
    """Ghostty's choice still shows on its example (else the kind is stale:
    remove it)."""
    comparison = checker.compare(_program(kind.example))
    assert comparison.aspects, f"{kind.name} no longer shows: remove it from KINDS"
    assert comparison.kind is kind, comparison.report()


@pytest.mark.parametrize("kind", [
    pytest.param(k, id=k.name, marks=pytest.mark.xfail(
        strict=True, reason="termsim bug, not fixed yet (ghostty_oracle.KINDS): remove "
        "the kind when the fix lands"))
    for k in KINDS if k.bug])
def test_termsim_draws_each_bug_example_as_ghostty_does(kind: Kind, checker: Checker) -> None:
    comparison = checker.compare(_program(kind.example))
    assert not comparison.aspects, comparison.report()


# -- the grammar ----------------------------------------------------------------------


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_termsim_draws_generated_programs_as_ghostty_does(chunk: int, checker: Checker) -> None:
    """Every disagreement on the grammar sample, shrunk, is a known kind
    (the sample in ``CHUNKS`` tests, each a slice of the same programs)."""
    unknown: dict[tuple[str, ...], Comparison] = {}
    size = -(-PROGRAMS // CHUNKS)
    for program in islice(programs(SEED, PROGRAMS), chunk * size, (chunk + 1) * size):
        if not checker.compare(program).aspects:
            continue
        minimal = checker.minimal(program)
        if minimal.aspects and minimal.kind is None:
            best = unknown.get(minimal.program.labels)
            if best is None or minimal.program.size < best.program.size:
                unknown[minimal.program.labels] = minimal
    assert not unknown, (f"{len(unknown)} kind(s) of disagreement with Ghostty that "
                         "ghostty_oracle.KINDS does not list (fix termsim, or add the kind "
                         "with Ghostty's source):\n\n"
                         + "\n\n".join(c.report() for c in unknown.values()))
