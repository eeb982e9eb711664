"""termsim against a real tmux pane, on generated programs (a bounded run).

``tests/differential.py`` generates byte programs (text, controls, ESC and
CSI sequences with edge parameters, at sizes from 1x1 up), runs each
through a termsim Terminal and a tmux pane (``tests/tmux_pane.py``), and
shrinks every disagreement to a minimal program. Here a fixed slice of that
runs in the suite: ``SEEDS`` x ``PROGRAMS`` programs, a few of one seed per
test so that pytest-xdist spreads them; ``fuzz/tmux_differential.py`` is the long
run. A disagreement fails the test unless it is a documented difference
(``KNOWN_DIFFERENCES``, ``docs/differences.md``) or a reported termsim bug
(``SUSPECTED_BUGS``, each also an xfail below until it is fixed); the
failure shows the minimal program, both screens and the command that shows
it again.

The rest checks the checker: each documented difference still shows (or
the documentation is stale), a pane reused for many programs draws as a
fresh one, every compared aspect can differ, and the shrinker finds the
minimal program. tmux is installed by .ci/run from the OS packages; without
it the tests that need it skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import examples
from differential import (
    KNOWN_DIFFERENCES,
    SUSPECTED_BUGS,
    Csi,
    Differ,
    Finding,
    Known,
    Program,
    Raw,
    Text,
    classify,
    differences,
    parse,
    programs,
    shrink,
    side_by_side,
    termsim_view,
    tmux_view,
)
from tmux_pane import tmux_available, tmux_server

#: ``SEEDS`` x ``PROGRAMS`` programs: 160 in all, shrinks included, with the
#: "full" Hypothesis profile; the "ci" profile (the default) runs half of
#: each seed's programs (``conftest.examples``), the same ones first. Each
#: seed's programs are dealt into ``PARTS`` tests (program i to part
#: i % PARTS), which xdist spreads: one seed's shrinks took 20 s on a
#: loaded machine as one test; a part is a few programs, a few seconds.
SEEDS = range(8)
PROGRAMS = examples(20)
PARTS = 5
#: Runs one shrink may take: enough for every program here, bounded anyway.
BUDGET = 300

needs_tmux = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")


@pytest.fixture(scope="module")
def differ() -> Iterator[Differ]:
    """One tmux server and pane for the module (per xdist worker)."""
    with tmux_server() as server, server.pane() as pane:
        yield Differ(pane)


def explain(findings: list[Finding]) -> str:
    """Each distinct finding once, the smallest program of its kind."""
    best: dict[tuple[str, tuple[str, ...]], Finding] = {}
    for f in findings:
        if f.key not in best or f.program.size < best[f.key].program.size:
            best[f.key] = f
    return "\n\n".join(f.report() for f in best.values())


@needs_tmux
@pytest.mark.parametrize("part", range(PARTS), ids=lambda n: f"part{n}")
@pytest.mark.parametrize("seed", SEEDS, ids=lambda n: f"seed{n}")
def test_termsim_draws_generated_programs_as_tmux_does(
    seed: int, part: int, differ: Differ,
) -> None:
    unexplained = [
        finding
        for program in list(programs(seed, PROGRAMS))[part::PARTS]
        for finding in differ.find(program, BUDGET)
        if finding.known is None and finding.bug is None
    ]
    if unexplained:
        pytest.fail(
            f"termsim and tmux disagree on {len(unexplained)} generated program(s) of seed "
            f"{seed} (part {part} of {PARTS}), and no documented difference explains it:"
            f"\n\n{explain(unexplained)}",
            pytrace=False)


def test_the_parts_deal_out_every_program_of_a_seed_once() -> None:
    dealt = [p for part in range(PARTS) for p in list(programs(0, PROGRAMS))[part::PARTS]]
    assert sorted(dealt, key=str) == sorted(programs(0, PROGRAMS), key=str)
    assert len(dealt) == PROGRAMS


def _example(entry: Known) -> Program:
    assert entry.example is not None, f"{entry.name} has no example"
    return parse(*entry.example)


@needs_tmux
@pytest.mark.parametrize("known", KNOWN_DIFFERENCES, ids=lambda k: k.name)
def test_each_documented_difference_still_shows(known: Known, differ: Differ) -> None:
    """Its example disagrees, and is classified as it: otherwise the entry
    (and docs/differences.md) is stale, or its classifier too narrow."""
    outcome = differ.check(_example(known))
    assert outcome.aspects, (
        f"{known.name}: termsim and tmux now agree on its example; remove it from "
        "KNOWN_DIFFERENCES and docs/differences.md")
    found = classify(outcome, differ, None)
    assert found is known, (
        f"{known.name}'s example is classified as {found and found.name}:\n"
        + "\n".join(side_by_side(outcome.ours, outcome.theirs)))


@needs_tmux
@pytest.mark.parametrize("bug", SUSPECTED_BUGS, ids=lambda b: b.name)
@pytest.mark.xfail(strict=True, reason="a reported termsim bug; once fixed, this passes: "
                   "remove it from SUSPECTED_BUGS")
def test_a_suspected_termsim_bug_is_fixed(bug: Known, differ: Differ) -> None:
    program = _example(bug)
    outcome = differ.check(program, bug.emulation)
    assert not outcome.aspects, explain(differ.find(program, BUDGET, bug.emulation))


def test_every_entry_is_in_the_documentation() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "differences.md").read_text()
    missing = [k.name for k in (*KNOWN_DIFFERENCES, *SUSPECTED_BUGS) if f"`{k.name}`" not in doc]
    assert not missing, f"not in docs/differences.md: {missing}"


@needs_tmux
def test_a_reused_pane_draws_each_program_as_a_fresh_pane_does() -> None:
    """The pane is reset between programs (RIS, the alternate screen left,
    DECSC, a new pane program after mode 1049): nothing a program did may
    show in the next one, whatever the sizes."""
    generated = list(programs(99, 24))
    with tmux_server() as server, server.pane() as reused, server.pane() as fresh:
        for before, program in zip(generated[::2], generated[1::2], strict=True):
            reused.run(before.data, before.cols, before.rows)
            fresh._respawn()
            alone = fresh.run(program.data, program.cols, program.rows)
            after = reused.run(program.data, program.cols, program.rows)
            assert after == alone, f"{program} drew differently after {before}"


@needs_tmux
@pytest.mark.parametrize(("ours", "theirs", "aspect"), [
    (b"ab", b"ac", "text"),
    (b"a\x1b[5G", b"a\x1b[4G", "cursor"),
    (b"\x1b[?25l", b"", "modes"),
    (b"\x1b[31ma", b"\x1b[32ma", "attributes"),
    (b"\x1b[7m ", b" ", "attributes"),
])
def test_the_comparison_sees_each_aspect(
    ours: bytes, theirs: bytes, aspect: str, differ: Differ,
) -> None:
    """Not vacuous: a screen unlike tmux's in each aspect is told apart."""
    view = tmux_view(differ.pane.run(theirs, 10, 2))
    assert aspect in differences(termsim_view(parse(10, 2, ours)), view)
    assert not differences(termsim_view(parse(10, 2, theirs)), view)


def test_the_shrinker_finds_a_minimal_program() -> None:
    """Fewest tokens, then smallest parameters, then the smallest screen,
    here for a made-up failure: a CUF of 3 or more followed by wide text."""
    def fails(candidate: Program, best: Program) -> bool:
        tokens = candidate.tokens
        return candidate.cols >= 4 and any(
            isinstance(t, Csi) and t.final == "C" and t.params and (t.params[0] or 0) >= 3
            and any(isinstance(u, Text) and "中" in u.text for u in tokens[i + 1:])
            for i, t in enumerate(tokens))
    noisy = Program(40, 10, (Text("hello"), Raw(b"\n", "LF"), Csi("C", (9999, 5)),
                             Csi("m", (1, 31)), Text("ab中cd"), Raw(b"\x08", "BS")))
    minimal = shrink(noisy, fails)
    assert minimal == Program(4, 1, (Csi("C", (3,)), Text("中")))


def test_programs_are_the_same_for_a_seed_and_parse_back() -> None:
    first = list(programs(7, 50))
    assert first == list(programs(7, 50))
    assert first != list(programs(8, 50))
    for program in first:
        assert parse(program.cols, program.rows, program.data).data == program.data
