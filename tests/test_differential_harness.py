"""The differential harness itself: ``tests/differential.py`` (the program
grammar, the shrinker, the comparison) and ``tests/tmux_pane.py`` (reading
tmux's screen back).

``test_differential.py`` trusts them: a grammar that changed with the
machine would make its seeds mean nothing, a shrinker that lost the failure
would report a program that shows nothing, a comparison blind to an aspect
would pass anything, a capture read wrongly would blame termsim for tmux's
format. So their pure parts are checked here on real data: programs the
grammar makes, disagreements termsim itself shows between its xterm and its
tmux ways, and captures a real tmux 3.3a wrote (``SAMPLES``; the tests
that need tmux check that it still writes them, and skip without it).
"""

from __future__ import annotations

import itertools
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from differential import (
    KNOWN_DIFFERENCES,
    SUSPECTED_BUGS,
    TMUX_WAY,
    Csi,
    Differ,
    Finding,
    Outcome,
    Program,
    Raw,
    Text,
    View,
    differences,
    parse,
    programs,
    shrink,
    side_by_side,
    termsim_view,
    tmux_view,
)
from tmux_pane import (
    CLOSE,
    DEFAULT_STYLE,
    PaneScreen,
    PaneStyle,
    TmuxError,
    parse_capture,
    tmux_available,
    tmux_env,
    tmux_screen,
    tmux_server,
)

from termsim.emulator import Emulation, Terminal

ROOT = Path(__file__).resolve().parent.parent
needs_tmux = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")

#: termsim's own way (xterm's), against which TMUX_WAY is a real disagreement.
XTERM = Emulation()


def xterm_and_tmux_ways_differ(candidate: Program, best: Program | None = None) -> bool:
    """A failure with no tmux in it: termsim's xterm way and its tmux way
    (``TMUX_WAY``) draw the program differently."""
    return bool(differences(termsim_view(candidate, XTERM), termsim_view(candidate, TMUX_WAY)))


# -- the grammar: the same programs from a seed, on every machine ---------------------------


def test_a_seed_gives_the_same_programs_the_first_ones_first() -> None:
    first = list(programs(3, 40))
    assert first == list(programs(3, 40))
    assert list(programs(3, 10)) == first[:10]  # a shorter run is a prefix of a longer one
    assert first != list(programs(4, 40))
    assert len(set(first)) == len(first)


def test_the_first_program_of_seed_0_is_the_one_it_always_was() -> None:
    """The grammar draws from ``random.Random(seed)`` only: the programs do
    not depend on the machine, the process or the hash seed. A change to
    the grammar changes this on purpose; anything else that does is a bug
    (a seed named in a report would no longer show the same program)."""
    program = next(programs(0, 1))
    assert (program.cols, program.rows) == (98, 2)
    assert program.data.hex() == (
        "1b5b36334a006d5b471b5b32304af88880e29aa1e697a5f09f91a8e2808df09f91a9"
        "e2808df09f91a71b5b34376d0ded959c")


def test_the_seed_alone_decides_in_a_fresh_process() -> None:
    script = ("import sys; sys.path.insert(0, 'tests'); from differential import programs; "
              "print([p.data.hex() for p in programs(11, 5)])")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout.strip() == str([p.data.hex() for p in programs(11, 5)])


def test_generated_programs_stay_within_the_grammar_s_bounds() -> None:
    seen: set[type] = set()
    for program in programs(5, 300):
        assert 1 <= program.cols <= 100 and 1 <= program.rows <= 30
        assert 1 <= len(program.tokens) <= 24
        for token in program.tokens:
            seen.add(type(token))
            assert token.data
            if isinstance(token, Text):
                assert token.text and all(c >= " " for c in token.text)
            if isinstance(token, Csi):
                assert all(p is None or 0 <= p <= 65535 for p in token.params)
                assert token.data.startswith(b"\x1b[") and token.data.endswith(token.final.encode())
    assert seen == {Text, Raw, Csi}


def test_every_simpler_token_costs_less() -> None:
    """What the shrinker's second criterion relies on: simplifying a token
    never makes it cost as much or more."""
    checked = 0
    for program in programs(6, 100):
        for token in program.tokens:
            for simpler in token.simpler():
                assert simpler.cost < token.cost, (token, simpler)
                checked += 1
    assert checked > 500


def test_a_parameter_that_names_something_is_dropped_never_changed() -> None:
    mode = Csi("h", (1049, 25), "?")
    assert list(mode.simpler()) == [Csi("h", (1049,), "?"), Csi("h", (25,), "?")]
    move = Csi("C", (9,))
    assert list(move.simpler()) == [Csi("C"), Csi("C", (None,)), Csi("C", (0,)), Csi("C", (1,)),
                                    Csi("C", (2,)), Csi("C", (4,)), Csi("C", (8,))]
    assert list(Raw(b"\x1b7", "ESC 7").simpler()) == []


def test_tokens_write_their_bytes_and_are_grouped_by_label() -> None:
    assert Csi("H", (None, 5)).data == b"\x1b[;5H"
    assert Csi("l", (25,), "?").data == b"\x1b[?25l"
    assert Csi("q", (2,), inter=" ").data == b"\x1b[2 q"
    # A mode's number is its label (which mode it is); a move's count is not.
    assert Csi("h", (25,), "?").label == "CSI ?25h"
    assert Csi("H", (1, 2)).label == Csi("H", (9, 9)).label == "CSI H"
    assert Text("a中\u0301").label == "text(ascii+mark+wide)"
    program = Program(3, 2, (Text("ab"), Csi("K")))
    assert program.labels == ("text(ascii)", "CSI K")
    assert program.size == (2, 1 + 2 + 0, 5, 5)  # tokens, cost ("a" is cheapest), bytes, size


# -- parse and command: a program given back as bytes is the same program -------------------


def test_parse_splits_bytes_into_the_grammar_s_tokens() -> None:
    assert parse(5, 1, b"a\xffb\x1b7\x08\x1b[?25l\x1b[ q\x1b[;5H").tokens == (
        Text("a"), Raw(b"\xff", "invalid UTF-8 ff"), Text("b"), Raw(b"\x1b7", "ESC 7"),
        Raw(b"\x08", "BS"), Csi("l", (25,), "?"), Csi("q", (), inter=" "), Csi("H", (None, 5)))
    # Bytes a token would write differently stay as they are.
    assert parse(5, 1, b"\x1b[05A").tokens == (Raw(b"\x1b[05A", "CSI b'05A'"),)
    assert parse(5, 1, b"\x1b[38:5:1mx").data == b"\x1b[38:5:1mx"
    assert parse(5, 1, "中\u0301".encode()).tokens == (Text("中\u0301"),)


def test_generated_programs_parse_back_to_their_bytes_and_parse_is_stable() -> None:
    for program in programs(8, 200):
        parsed = parse(program.cols, program.rows, program.data)
        assert (parsed.cols, parsed.rows, parsed.data) == (program.cols, program.rows,
                                                           program.data)
        assert parse(parsed.cols, parsed.rows, parsed.data) == parsed
        assert not any(t.name == "program" for t in parsed.tokens if isinstance(t, Raw))


def test_a_program_s_command_gives_the_program_back() -> None:
    for program in programs(9, 50):
        argv = shlex.split(program.command(["--budget", "9"]))
        assert argv[:2] == ["python", "fuzz/tmux_differential.py"]
        options = dict(zip(argv[2::2], argv[3::2], strict=True))
        assert options["--budget"] == "9"
        cols, rows = map(int, options["--size"].split("x"))
        again = parse(cols, rows, bytes.fromhex(options["--hex"]))
        assert again == parse(program.cols, program.rows, program.data)


# -- the shrinker: keeps the failure, gets smaller ---------------------------------------


def test_a_disagreement_shrinks_to_the_smallest_program_that_still_shows_it() -> None:
    """IL/DL: xterm homes the cursor, tmux keeps its column; drowned in
    noise, shrunk to one character and the sequence on a 2x1 screen."""
    noisy = Program(20, 6, (Text("hello"), Csi("m", (1, 31)), Raw(b"\n", "LF"), Text("abc"),
                            Csi("M", (3,)), Raw(b"\x07", "BEL"), Text("xyz"), Csi("H", (2, 9))))
    assert xterm_and_tmux_ways_differ(noisy)
    minimal = shrink(noisy, xterm_and_tmux_ways_differ)
    assert minimal == Program(2, 1, (Text("a"), Csi("M")))
    assert xterm_and_tmux_ways_differ(minimal)
    assert shrink(noisy, xterm_and_tmux_ways_differ) == minimal  # deterministic


def test_shrinking_real_disagreements_keeps_each_and_only_ever_improves() -> None:
    shrunk = 0
    for program in programs(0, 60):
        if not xterm_and_tmux_ways_differ(program):
            continue
        bests: list[Program] = []

        def fails(candidate: Program, best: Program, bests: list[Program] = bests) -> bool:
            bests.append(best)
            return xterm_and_tmux_ways_differ(candidate)

        minimal = shrink(program, fails)
        assert xterm_and_tmux_ways_differ(minimal), program
        assert minimal.size < program.size
        # Every candidate is judged against a best that only ever got smaller.
        assert bests[0] == program
        assert all(b.size >= a.size for b, a in itertools.pairwise(bests))
        shrunk += 1
    assert shrunk >= 5


def test_the_shrinker_keeps_to_its_budget_and_never_returns_a_passing_program() -> None:
    program = next(p for p in programs(0, 60) if xterm_and_tmux_ways_differ(p))
    for budget in (0, 1, 5, 20):
        calls = 0

        def counted(candidate: Program, best: Program) -> bool:
            nonlocal calls
            calls += 1
            return xterm_and_tmux_ways_differ(candidate)

        got = shrink(program, counted, budget)
        assert calls <= budget
        assert got == program or xterm_and_tmux_ways_differ(got)
    assert shrink(program, lambda c, b: True, 0) == program
    # Only the program itself fails: nothing smaller is taken.
    assert shrink(program, lambda c, b: c == program) == program


# -- the comparison: each aspect seen, nothing else ------------------------------------------


def _view(data: bytes, cols: int = 10, rows: int = 2) -> View:
    return termsim_view(parse(cols, rows, data))


@pytest.mark.parametrize(("ours", "theirs", "aspects"), [
    (b"ab", b"ac", ("text",)),
    (b"a\x1b[5G", b"a\x1b[4G", ("cursor",)),
    (b"\x1b[?25l", b"", ("modes",)),
    (b"\x1b[4h", b"", ("modes",)),
    (b"\x1b[?1049h", b"", ("modes",)),
    (b"\x1b[31ma", b"\x1b[32ma", ("attributes",)),
    (b"\x1b[7m \x1b[mx", b" x", ("attributes",)),  # a reversed blank shows its foreground
    (b"\x1b[4m \x1b[mx", b" x", ("attributes",)),
    (b"\x1b[1ma", b"a", ("attributes",)),
    (b"\x1b[31ma", b"b", ("text",)),  # looks are compared only where the text is the same
    (b"ab", b"a", ("text", "cursor")),
])
def test_the_comparison_names_exactly_the_aspects_that_differ(
    ours: bytes, theirs: bytes, aspects: tuple[str, ...],
) -> None:
    assert differences(_view(ours), _view(theirs)) == aspects
    assert differences(_view(theirs), _view(ours)) == aspects
    assert differences(_view(ours), _view(ours)) == ()


@pytest.mark.parametrize(("one", "other"), [
    (b"\x1b[31ma", b"\x1b[38;5;1ma"),  # one red, named three ways
    (b"\x1b[31ma", b"\x1b[38;2;205;0;0ma"),
    (b"\x1b[95ma", b"\x1b[38;5;13ma"),
    (b"\x1b[31m \x1b[m", b" "),  # the foreground of a blank cannot be seen
    (b"\x1b[2ma", b"a"),  # dim, hidden and overline are not compared
    (b"\x1b[8ma", b"a"),
    (b"e\xcc\x81", b"\xc3\xa9"),  # composed or not, the same character
])
def test_what_looks_the_same_compares_the_same(one: bytes, other: bytes) -> None:
    assert differences(_view(one), _view(other)) == ()


def test_a_capture_that_stops_before_coloured_blanks_still_compares_the_same() -> None:
    """tmux captures a row up to the last cell it stored: blanks erased in a
    colour after it are on its screen, not in the capture. Blanks it does
    capture must be default ones, though."""
    ours = _view(b"Z\x1b[44m\x1b[K")
    capture = parse_capture("Z\n", 2)
    theirs = tmux_view(_pane_screen(10, 2, capture, 1, 0))
    assert differences(ours, theirs) == ()
    coloured = parse_capture("Z\x1b[44m   \n", 2)
    assert differences(_view(b"Z"), tmux_view(_pane_screen(10, 2, coloured, 1, 0))) == (
        "attributes",)
    assert differences(_view(b"Z"), tmux_view(_pane_screen(10, 2, parse_capture("Z   \n", 2),
                                                             1, 0))) == ()


def test_tmux_s_cursor_past_the_last_column_is_a_pending_wrap_clamped() -> None:
    screen = _pane_screen(4, 2, parse_capture("abcd\n", 2), 4, 0)
    assert screen.pending_wrap
    view = tmux_view(screen)
    assert view.cursor == (0, 3) and view.note.startswith("wrap pending")
    assert differences(_view(b"abcd", 4, 2), view) == ()
    assert not _pane_screen(4, 2, parse_capture("abc\n", 2), 3, 0).pending_wrap


def test_side_by_side_marks_the_rows_and_names_the_rest_that_differ() -> None:
    ours, theirs = _view(b"ab\r\nsame\x1b[?25l"), _view(b"ac\r\nsame\x1b[1G")
    lines = side_by_side(ours, theirs)
    assert lines[0].split() == ["termsim", "tmux"]
    assert lines[1].startswith("   0* |ab") and lines[2].startswith("   1  |same")
    assert "cursor (row, col): termsim (1, 4), tmux (1, 0)" in lines[3]
    assert lines[4].startswith("  modes: termsim {'cursor visible': False")
    assert lines[5:] == ["  cell 0,1: termsim 'b' fg=fg bg=bg; tmux 'c' fg=fg bg=bg"]
    cells = side_by_side(_view(b"\x1b[31mabcdefgh"), _view(b"abcdefgh"), name="xterm")
    assert cells[0].split() == ["termsim", "xterm"]
    listed = [line for line in cells if line.startswith("  cell ")]
    assert len(listed) == 6 and listed[0].startswith("  cell 0,0: termsim 'a' fg=cd0000")


# -- findings: a report a person can act on, a command that shows it again -------------------


def _finding(program: Program, emulation: Emulation | None = None) -> Finding:
    ours, theirs = termsim_view(program, XTERM), termsim_view(program, TMUX_WAY)
    outcome = Outcome(program, ours, theirs, differences(ours, theirs))
    return Finding(program, outcome, None, emulation, 3)


def test_a_finding_reports_the_program_both_screens_and_the_command() -> None:
    report = _finding(Program(2, 1, (Text("a"), Csi("M")))).report()
    assert report.startswith("UNDOCUMENTED disagreement (not in docs/differences.md): "
                             "cursor differ")
    assert "minimal program (2x1): b'a\\x1b[M'" in report
    assert "tokens: 'a', CSI M" in report
    assert "reproduce: python fuzz/tmux_differential.py --size 2x1 --hex 611b5b4d" in report
    assert "(shrunk from 2x1 b'a\\x1b[M' in 3 runs)" in report


def test_a_finding_made_with_other_options_names_them_in_its_command() -> None:
    emulation = replace(TMUX_WAY, backspace_at_wrap="tmux")
    argv = shlex.split(_finding(Program(3, 1, (Text("abc"),)), emulation).command())
    options = argv[argv.index("--emulation") + 1]
    given = dict(item.split("=") for item in options.split(","))
    assert given == {k: str(v) for k, v in emulation.to_header().items()}
    assert "--emulation" not in _finding(Program(3, 1, (Text("abc"),))).command()


# -- the documented differences: each example is what its entry matches ------------------------


def test_each_documented_difference_s_example_is_one_it_matches() -> None:
    names = [k.name for k in (*KNOWN_DIFFERENCES, *SUSPECTED_BUGS)]
    assert len(names) == len(set(names))
    for known in (*KNOWN_DIFFERENCES, *SUSPECTED_BUGS):
        assert known.example is not None, known.name
        program = parse(*known.example)
        assert program.data == known.example[2]
        assert known.matches(program), f"{known.name} does not match its own example"
        assert known.reason and known.xterm, known.name


# -- Differ: each program run once, a tmux that fails is no verdict --------------------------


@dataclass
class FakeServer:
    started: int = 0
    panes: int = 0
    up: bool = False

    def alive(self) -> bool:
        return self.up

    def start(self) -> None:
        self.started += 1
        self.up = True

    def pane(self) -> FakePane:
        self.panes += 1
        return FakePane(self)


@dataclass
class FakePane:
    """A pane that shows one captured screen for every program, or fails."""

    server: FakeServer
    fail: bool = False
    runs: int = 0
    closed: bool = False

    def run(self, data: bytes, cols: int, rows: int) -> PaneScreen:
        self.runs += 1
        if self.fail:
            raise TmuxError("tmux crashed")
        return _pane_screen(cols, rows, parse_capture("ab\n", rows), 2, 0)

    def close(self) -> None:
        self.closed = True


def test_the_differ_runs_each_program_through_tmux_once() -> None:
    pane = FakePane(FakeServer())
    differ = Differ(pane)  # type: ignore[arg-type]
    same, other = parse(10, 2, b"ab"), parse(10, 2, b"ac")
    assert differ.check(same).aspects == ()
    assert differ.check(same).aspects == ()
    assert differ.check(other).aspects == ("text",)
    assert (pane.runs, differ.runs, differ.crashes) == (2, 2, [])


def test_a_program_tmux_fails_on_agrees_and_a_new_pane_takes_over() -> None:
    server = FakeServer()
    broken = FakePane(server, fail=True)
    differ = Differ(broken)  # type: ignore[arg-type]
    program = parse(10, 2, b"zz")
    outcome = differ.check(program)
    assert outcome.aspects == () and outcome.ours == outcome.theirs
    assert differ.crashes == [program] and broken.closed
    assert server.started == 1 and server.panes == 1 and differ.pane is not broken
    assert differ.check(program).aspects == ()  # remembered: not run again
    assert broken.runs == 1 and differ.pane.runs == 0  # type: ignore[attr-defined]


# -- tmux_pane: reading tmux's screen back ---------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """A program, and what a real tmux 3.3a pane showed after it:
    ``capture-pane -p -e -N`` and its cursor (``#{cursor_x} #{cursor_y}``)."""

    cols: int
    rows: int
    data: bytes
    capture: str
    cursor: tuple[int, int]


SAMPLES = [
    Sample(10, 3, b"\x1b[1;31mred\x1b[0m plain\r\n\x1b[7;38;5;200mrev\x1b[48;2;1;2;3m bg",
           "\x1b[1m\x1b[31mred\x1b[0m\x1b[39m\x1b[49m plain\n"
           "\x1b[7m\x1b[38;5;200mrev\x1b[48;2;1;2;3m bg\n\n", (6, 1)),
    Sample(8, 2, b"\x1b[4;9mab\r\n\x1b(0lqk\x1b(Bx", "\x1b[4;9mab\n\x0elqk\x0fx\n", (4, 1)),
    Sample(6, 2, b"e\xcc\x81\xe4\xb8\xad\x1b[32m\r\nZ\x1b[44m\x1b[K", "e\u0301中\n\x1b[32mZ\n",
           (1, 1)),
    Sample(4, 2, b"abcd", "abcd\n\n", (4, 0)),
    Sample(6, 2, b"\x1b[58;5;3m\x1b[1;3;5mx\x1b[22;23;25;95my\x1b[105mz",
           "\x1b[1;3;5m\x1b[58;5;3mx\x1b[0m\x1b[95m\x1b[49m\x1b[58;5;3my\x1b[105mz\n\n", (3, 0)),
    Sample(6, 1, b"\x1b[58:2::1:2:3m\x1b[9mx", "\x1b[9m\x1b[58;2;1;2;3mx\n", (1, 0)),
]


def _pane_screen(cols: int, rows: int, cells: tuple[tuple[tuple[str, PaneStyle], ...], ...],
                 x: int, y: int) -> PaneScreen:
    """A pane's screen with the default modes, as ``TmuxPane._read`` builds one."""
    lines = tuple("".join(text for text, _ in row).rstrip() for row in cells)
    return PaneScreen(cols, rows, cells, lines, x, y, True, False, True, False, False)


def _sample_screen(sample: Sample) -> PaneScreen:
    return _pane_screen(sample.cols, sample.rows, parse_capture(sample.capture, sample.rows),
                        *sample.cursor)


def test_a_capture_s_attributes_carry_across_rows_as_tmux_writes_them() -> None:
    rows = parse_capture(SAMPLES[0].capture, 3)
    bold_red = PaneStyle("p1", "default", frozenset({"bold"}))
    assert rows[0][:4] == (("r", bold_red), ("e", bold_red), ("d", bold_red),
                           (" ", DEFAULT_STYLE))
    # Row 1 is written without a reset: its attributes are row 0's last ones plus its own.
    reverse_200 = PaneStyle("p200", "default", frozenset({"reverse"}))
    assert rows[1][0] == ("r", reverse_200)
    assert rows[1][3] == (" ", replace(reverse_200, bg="#010203"))
    assert rows[2] == ()
    underlined = parse_capture(SAMPLES[1].capture, 2)
    assert underlined[1][3] == ("x", PaneStyle(attrs=frozenset({"underline", "strikethrough"})))


def test_a_capture_s_line_drawing_marks_and_colour_forms_are_read() -> None:
    graphics = parse_capture(SAMPLES[1].capture, 2)
    assert "".join(text for text, _ in graphics[1]) == "┌─┐x"  # SO ... SI: tmux's glyphs
    marked = parse_capture(SAMPLES[2].capture, 2)
    assert [text for text, _ in marked[0]] == ["e\u0301", "中"]  # a mark joins its base
    colours = parse_capture(SAMPLES[4].capture, 2)[0]
    assert colours == (
        ("x", PaneStyle(attrs=frozenset({"bold", "italic", "blink"}))),  # 58;5;3 skipped
        ("y", PaneStyle("p13")),  # 95: bright magenta, entry 13
        ("z", PaneStyle("p13", "p13")))
    underline_rgb = parse_capture(SAMPLES[5].capture, 1)[0]
    assert underline_rgb == (("x", PaneStyle(attrs=frozenset({"strikethrough"}))),)


@pytest.mark.parametrize(("capture", "style"), [
    ("\x1b[31;42m", PaneStyle("p1", "p2")),
    ("\x1b[90;107m", PaneStyle("p8", "p15")),
    ("\x1b[38;5;7;48;2;255;0;16m", PaneStyle("p7", "#ff0010")),
    ("\x1b[31m\x1b[39m", DEFAULT_STYLE),
    ("\x1b[1;4m\x1b[m", DEFAULT_STYLE),  # an empty SGR is a reset
    ("\x1b[2;7;8;53m", PaneStyle(attrs=frozenset({"dim", "reverse", "hidden", "overline"}))),
    # The underline colour is skipped, whatever follows it.
    ("\x1b[58;2;1;2;3;9m", PaneStyle(attrs=frozenset({"strikethrough"}))),
    ("\x1b[58;5;3;9m", PaneStyle(attrs=frozenset({"strikethrough"}))),
    ("\x1b[4:3m", PaneStyle(attrs=frozenset({"underline"}))),  # a sub-parameter's first part
])
def test_each_sgr_form_tmux_writes_reads_as_its_style(capture: str, style: PaneStyle) -> None:
    assert parse_capture(capture + "x", 1) == ((("x", style),),)


def test_a_capture_is_cut_or_padded_to_the_pane_s_rows() -> None:
    assert parse_capture("a\nb\nc\n", 2) == ((("a", DEFAULT_STYLE),), (("b", DEFAULT_STYLE),))
    assert parse_capture("a", 3) == ((("a", DEFAULT_STYLE),), (), ())


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.data.decode(errors="replace")[:12])
def test_where_termsim_and_tmux_agree_the_views_of_a_real_capture_are_the_same(
    sample: Sample,
) -> None:
    ours = termsim_view(parse(sample.cols, sample.rows, sample.data))
    assert differences(ours, tmux_view(_sample_screen(sample))) == ()


def test_tmux_runs_pinned_to_one_outer_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMUX", "outer-tmux-socket,1,0")
    monkeypatch.setenv("TMUX_PANE", "%1")
    monkeypatch.setenv("LC_CTYPE", "POSIX")
    monkeypatch.setenv("TERM", "dumb")
    env = tmux_env()
    assert "TMUX" not in env and "TMUX_PANE" not in env
    assert (env["TERM"], env["LANG"], env["LC_ALL"]) == ("xterm-256color", "C.UTF-8", "C.UTF-8")
    assert not [k for k in env if k.startswith("LC_") and k != "LC_ALL"]


@pytest.mark.parametrize("left_open", [b"\x1b[1", b"\x1b]2;title", b"\x1bP1$r", b"\x1b", b"\x1b["])
def test_close_ends_whatever_a_program_left_open(left_open: bytes) -> None:
    term = Terminal(10, 1)
    term.feed(b"a" + left_open + CLOSE + b"b")
    assert term.screen.lines[0].rstrip() == "ab"


# -- against tmux: the samples are still what it writes -------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[object]:
    with tmux_server() as running:
        yield running


@needs_tmux
def test_the_samples_are_what_tmux_writes(server: object) -> None:
    with server.pane() as pane:  # type: ignore[attr-defined]
        for sample in SAMPLES:
            shown = pane.run(sample.data, sample.cols, sample.rows)
            capture = server.run(  # type: ignore[attr-defined]
                "capture-pane", "-p", "-e", "-N", "-t", pane.target).stdout.decode()
            assert capture == sample.capture, sample
            assert shown == _sample_screen(sample), sample


@needs_tmux
def test_tmux_screen_reads_a_fresh_pane_s_rows(server: object) -> None:
    assert tmux_screen(server, b"one\r\n\x1b[2Ctwo", 8, 3) == ["one", "  two", ""]  # type: ignore[arg-type]


@needs_tmux
def test_a_finding_s_command_shows_it_again_with_its_options() -> None:
    """The reproducer a report prints runs, with the options the finding
    was made with: under them termsim and tmux agree on this program."""
    known = next(k for k in KNOWN_DIFFERENCES if k.name == "backspace-at-pending-wrap")
    assert known.example is not None and known.emulation is not None
    finding = _finding(parse(*known.example), known.emulation)
    argv = shlex.split(finding.command())
    done = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"with {known.emulation}" in done.stdout
    assert "termsim and tmux agree" in done.stdout
