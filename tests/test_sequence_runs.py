"""Runs of escape sequences: the tokenizer takes a run of CSI sequences, CR
and LF as one token and, the next time the same run comes, replays the
actions its parts had (issue "Speed, round two": prompt_toolkit starts and
ends every frame with the same run). A run must do exactly what its parts do
one by one, whatever it holds: queries answered at their own byte, REP
seeing whether text came just before, a failure skipping one part only.

``feed_split`` (``tests/helpers.py``) compares feeding whole (runs, and the
second time cached runs) with feeding a byte at a time (no runs at all).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import examples
from helpers import feed_chunks, feed_split, query_log
from hypothesis import example, given, settings
from hypothesis import strategies as st

from termsim.emulator import Terminal
from termsim.emulator.parsing.handlers import Part
from termsim.emulator.parsing.tokenizer import Parser
from termsim.emulator.signals.log import SignalLog

PTK = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "ptk.bin"


def test_a_run_seen_again_answers_its_query_at_its_own_offset() -> None:
    frame = b"\x1b[?25l\x1b[6n\x1b[?7l\x1b[0;7mab\r\n"
    term, replies = feed_split(frame * 3)
    offsets = [6, 6 + len(frame), 6 + 2 * len(frame)]
    assert [(kind, offset) for kind, _, offset, _, _ in query_log(term)] == [
        ("cpr", offset) for offset in offsets
    ]
    # Each CPR answers from where the cursor was at that query: row 1, 2, 3.
    assert replies == b"\x1b[1;1R\x1b[2;1R\x1b[3;1R"
    assert term.screen.cursor.visible is False


def test_a_long_run_answers_its_query_at_its_own_offset_every_time() -> None:
    # A frame's end going down rows, a query among its parts: kept when first
    # met, replayed from what was kept twice; the CPR answers from where the
    # cursor is at its own byte each time.
    run = (b"\x1b[?25l\x1b[?7l\x1b[0m\x1b[?12l\x1b[?2004h\r\r\n\r\r\n\x1b[3C\x1b[6n"
           b"\x1b[?7h\x1b[0m\x1b[?25h\x1b[?2004l\x1b[5A")
    frame = b"ab" + run
    term, replies = feed_split(frame * 3)
    offsets = [k * len(frame) + frame.index(b"\x1b[6n") for k in range(3)]
    assert [offset for _, _, offset, _, _ in query_log(term)] == offsets
    assert replies == b"\x1b[3;4R" * 3
    assert term.screen.lines[0].rstrip() == "ab ab"  # back to column 3 each time


def test_REP_first_in_a_run_repeats_the_text_before_it_every_time() -> None:
    term, _ = feed_split(b"a\x1b[2b\x1b[0m\r\nb\x1b[2b\x1b[0m\r\n")
    assert term.screen.lines[0].rstrip() == "aaa"
    assert term.screen.lines[1].rstrip() == "bbb"


def test_REP_after_another_sequence_of_the_run_repeats_nothing_every_time() -> None:
    # Not right after a print: xterm and termsim repeat nothing.
    term, _ = feed_split(b"a\x1b[0m\x1b[2b\r\nb\x1b[0m\x1b[2b\r\n")
    assert term.screen.lines[0].rstrip() == "a"
    assert term.screen.lines[1].rstrip() == "b"


def test_a_cached_run_counts_what_it_does_not_understand_each_time() -> None:
    term, _ = feed_split(b"\x1b[?25l\x1b[99y\x1b[0m" * 3)
    assert sum(term.unknown.values()) == 3


def test_a_run_of_24_bit_colours_colours_each_time() -> None:
    term, _ = feed_split(b"\x1b[38;2;1;2;3m\x1b[1mx\x1b[0m" * 2 + b"\x1b[38;2;1;2;3m\x1b[1my")
    styles = [term.screen.cell(0, col).style for col in range(3)]
    assert [(s.fg, s.bold) for s in styles] == [("010203", True)] * 3


def test_a_recorded_prompt_toolkit_stream_gives_the_same_terminal_in_any_chunks() -> None:
    data = PTK.read_bytes()
    whole, replies = feed_chunks([data])
    for size in (1, 7, 4096):
        term, got = feed_chunks([data[i:i + size] for i in range(0, len(data), size)])
        assert term.screen == whole.screen, size
        assert got == replies, size
        assert list(term.queries) == list(whole.queries), size


def test_rows_gone_down_at_once_scroll_at_the_bottom_margin_every_time() -> None:
    # CR LF five times is one part: from above a scroll region, the cursor
    # goes down to its bottom margin and the region scrolls from there.
    frame = b"\x1b[1;1Hx\r\n\r\r\n\r\n\r\n\r\n"
    term, _ = feed_split(b"\x1b[2;4r1\r\n2\r\n3\r\n4" + frame + b"a" + frame + b"b")
    assert [line.rstrip() for line in term.screen.lines[:5]] == ["x", "a", "", "b", ""]
    assert (term.screen.cursor.row, term.screen.cursor.col) == (3, 1)


def test_a_frames_mode_switches_fused_end_as_one_by_one() -> None:
    # prompt_toolkit's frame: the switches around SGR are fused into one.
    frame = b"\x1b[?25l\x1b[?7l\x1b[0mab\x1b[?7h\x1b[0m\x1b[?12l\x1b[?25h\x1b[?25l\x1b[?7l\x1b[0m"
    term, _ = feed_split(frame * 2 + b"\x1b[?7h\x1b[1m\x1b[?25h")
    assert term.screen.cursor.visible
    assert term.screen.modes.autowrap


PARTS = [
    "\x1b[?25l", "\x1b[?25h", "\x1b[?7l", "\x1b[?7h", "\x1b[?12l", "\x1b[?25;7l",
    "\x1b[?2004h", "\x1b[?2004l", "\x1b[?1h", "\x1b[?1000h", "\x1b[?1003h", "\x1b[?1002l",
    "\x1b[?1006h", "\x1b[?1006l", "\x1b[?1004h", "\x1b[0m", "\x1b[1;31m", "\x1b[7m",
    "\x1b[38;2;1;2;3m", "\x1b[C", "\x1b[2D", "\x1b[A", "\x1b[6n", "\x1b[2b", "\x1b[99y",
    "\r", "\n", "ab", "xyz", "\x1b[5;1H", "\x1b[?25$p", "\x1b[?7$p", "\x1b[?1000$p",
    # SGR that a later SGR 0 overrides, or not: a background that LF and
    # erasures fill with, a reset with more after it, a code counted as not
    # understood, one that changes nothing.
    "\x1b[41m", "\x1b[0;7m", "\x1b[;1m", "\x1b[2m", "\x1b[58:2::1:2:3m", "\x1b[K", "\x1b[J",
    "\x1b[E", "\x1b[3G", "\x1b[?5h", "\x1b[?5l",
    # Rows gone down as one part, scrolling or not, inside margins or not.
    "\r\r\n", "\r\n\r\n\r\n", "\x1b[2;4r", "\x1b[r", "\x1b[9;1H",
]


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.sampled_from(PARTS), min_size=1, max_size=14))
@example(["\x1b[?25l", "\x1b[?25$p", "\x1b[?25h"])  # a query between two switches
@example(["\x1b[?25h", "\x1b[0m", "\x1b[?25l", "\x1b[1;31m", "\x1b[?25h"])
def test_any_run_seen_twice_ends_as_its_parts_one_by_one(parts: list[str]) -> None:
    # Text between the copies: each copy's runs are the same strings, and
    # the second time come from the kept runs.
    data = ("".join(parts) + "|").encode() * 3
    whole, replies = feed_chunks([data], 10, 5)
    one_by_one, got = feed_chunks([data[i:i + 1] for i in range(len(data))], 10, 5)
    assert whole.screen == one_by_one.screen
    assert replies == got
    assert list(whole.queries) == list(one_by_one.queries)
    assert whole.unknown == one_by_one.unknown


# -- a failure inside a cached run --------------------------------------------------


class _Handler:
    """Logs what the tokenizer asks for; ``ESC[9x`` fails when ``fail`` is set.

    A fake: a real screen action that raises on demand would need a bug to
    find. The tokenizer's contract is what is checked: a failing part is
    reported and skipped, the parts after it still run.
    """

    def __init__(self) -> None:
        self.log: list[str] = []
        self.fail = False
        self.controls: dict[str, Callable[[], None]] = {
            "\r": lambda: self.log.append("CR"), "\n": lambda: self.log.append("LF"),
        }
        self.repeated: dict[str, Callable[[int], None]] = {}
        self.sequences: dict[str, Callable[[], None]] = {}
        self.queries: dict[str, Callable[[int], None]] = {}

    def _action(self, name: str) -> Callable[[], None]:
        def action() -> None:
            if name == "9x" and self.fail:
                raise RuntimeError("boom")
            self.log.append(name)
        return action

    fuse_fails = False

    def fuse(self, parts: list[Part]) -> list[Part]:
        if self.fuse_fails:
            raise RuntimeError("fuse")
        return parts

    def draw(self, text: str) -> None:
        self.log.append(f"draw {text}")

    def control(self, char: str) -> None:
        self.log.append(f"control {char!r}")

    def csi(self, private: str, params: str, inter: str, final: str, index: int) -> None:
        self.prepare(private, params, inter, final)()

    def newlines(self, count: int) -> Callable[[], None]:
        return lambda: self.log.extend(["CR", "LF"] * count)

    def prepare(self, private: str, params: str, inter: str, final: str) -> Callable[[], None]:
        name = f"{private}{params}{inter}{final}"
        action = self.sequences[f"\x1b[{name}"] = self._action(name)
        return action

    def prepare_esc(self, final: str) -> None:
        return None

    def esc(self, inter: str, final: str, index: int) -> None:
        self.log.append(f"esc {inter}{final}")

    def string(self, kind: str, body: str, terminator: str, index: int) -> None:
        self.log.append(f"{kind} {body}")

    def garbage(self, kind: str) -> None:
        self.log.append(f"garbage {kind}")

    def failed(self, exc: Exception) -> None:
        self.log.append(f"failed {exc}")


def test_a_failing_part_of_a_cached_run_skips_that_part_only() -> None:
    handler = _Handler()
    parser = Parser(handler)
    run = "\x1b[1x\x1b[9x\x1b[2x\r\n"
    parser.feed(run + "a")
    assert handler.log == ["1x", "9x", "2x", "CR", "LF", "draw a"]
    handler.log.clear()
    handler.fail = True
    parser.feed(run + "b")  # the cached run this time
    assert handler.log == ["1x", "failed boom", "2x", "CR", "LF", "draw b"]


def test_a_run_the_handler_fails_to_fuse_runs_its_parts_as_they_are() -> None:
    handler = _Handler()
    handler.fuse_fails = True
    parser = Parser(handler)
    for text in "ab":
        parser.feed("\x1b[1x\x1b[2x\r\n" + text)
    # Kept unfused: the second time replays the same parts.
    assert handler.log == ["1x", "2x", "CR", "LF", "draw a", "1x", "2x", "CR", "LF", "draw b"]


def test_a_failing_part_of_a_new_run_skips_that_part_only() -> None:
    handler = _Handler()
    handler.fail = True
    Parser(handler).feed("\x1b[1x\x1b[9x\x1b[2x\r\na")
    assert handler.log == ["1x", "failed boom", "2x", "CR", "LF", "draw a"]


def test_a_part_too_long_to_read_fails_alone_in_a_new_run_and_a_kept_one() -> None:
    # Python reads no integer of over 4,300 digits: that SGR fails, the
    # cursor moves around it still happen, the first time and the next.
    run = b"\x1b[3C\x1b[" + b"9" * 4301 + b"m\x1b[5C"
    term = Terminal(40, 2)
    for col in (8, 16):
        term.feed(run)
        assert term.screen.cursor.col == col
    assert sum(term.unknown.values()) == 2
    # Something came between the text and the REP: it repeats nothing.
    term = Terminal(5, 2)
    term.feed(b"a\x1b[" + b"9" * 4301 + b"C\x1b[b")
    assert term.screen.lines[0].rstrip() == "a"


def test_the_fused_switches_are_bounded() -> None:
    # Every order of twelve switches fuses into new switches, each from the
    # one before: they must not pile up as orders keep coming.
    term = Terminal(80, 24)
    switches = [f"\x1b[?{mode}{on}" for mode in (1, 7, 12, 25, 2004) for on in "hl"]
    for n in range(3000):
        order = [switches[(n >> (k % 12) ^ k * 7) % len(switches)] for k in range(12)]
        term.feed(("".join(order) + f"\x1b[{n % 70 + 1}Gx").encode())
    assert 0 < len(term._dispatch._switches) <= 4096


def test_the_kept_runs_are_bounded() -> None:
    term = Terminal(80, 24)
    for n in range(10_000):
        term.feed(f"\x1b[{n + 1};{n % 80 + 1}H\x1b[?25l".encode())  # 10,000 runs
    assert 0 < len(term._parser._runs) <= 4096
    assert (term.screen.cursor.row, term.screen.cursor.col) == (23, 9_999 % 80)


# -- tokens found at once ---------------------------------------------------------
#
# One ``findall`` finds a chunk's tokens, as if every character that is neither
# text nor part of a run stood alone; the sequence or string that starts there
# is then read whole, and the tokens found inside it are passed over.


def test_text_right_after_an_escape_sequence_is_drawn_from_where_it_ends() -> None:
    # ``ESC ( B`` ends inside the text token ``(Bxyz`` found around it.
    term, _ = feed_split(b"\x1b(0q\x1b(Bxyz\x1b(0q")
    assert term.screen.lines[0].rstrip() == "─xyz─"


def test_a_run_cut_by_a_sequence_that_ends_inside_it_goes_on_from_there() -> None:
    # CR LF inside a CSI run as it comes (xterm does so), then ESC aborts the
    # CSI: it ends inside the run ``\r\n\x1b[2C`` that was found around it.
    term, _ = feed_split(b"ab\x1b[\r\n\x1b[2Cx\x1b[\r\n\x1b[2Cy")
    assert [line.rstrip() for line in term.screen.lines[:3]] == ["ab", "  x", "  y"]


def test_a_string_holding_text_and_a_run_is_passed_over_whole() -> None:
    term, _ = feed_split(b"\x1bPq\r\n#0;2\x1b\\x\x1b]0;a\r\nb\x07y\x1b]0;t\xc2\x9cz")  # C1 ST
    assert term.screen.lines[0].rstrip() == "xyz"
    assert term.screen.cursor.col == 3


def test_controls_among_the_tokens_run_where_they_stand() -> None:
    term, _ = feed_split(b"a\tb\x08c\x07\x1b7\x1b[2;5Hd\x1b8e\x1b)0\x0eq\x0fq")
    assert term.screen.lines[0].rstrip() == "a       ce─q"
    assert term.screen.lines[1].rstrip() == "    d"


def test_a_long_segment_drawn_again_has_the_attributes_of_each_time() -> None:
    # A status bar redrawn in place keeps its cells from the second time on:
    # in another pen, or after DECSCNM made new glyph tables, it must not
    # come back with the cells kept before.
    bar = b"\r state: working ............................."
    data = (bar + b"\x1b[7m" + bar + bar + b"\x1b[0m" + bar + b"\x1b[7m" + bar
            + b"\x1b[?5h" + bar + b"\x1b[?5l" + bar)
    term, _ = feed_split(data, cols=80)
    assert term.screen.lines[0].rstrip() == bar[1:].decode()
    assert {term.screen.cell(0, col).style.reverse for col in range(len(bar) - 1)} == {True}
    term.feed(b"\x1b[0m" + bar)
    assert term.screen.lines[0].rstrip() == bar[1:].decode()
    assert {term.screen.cell(0, col).style.reverse for col in range(len(bar) - 1)} == {False}


def test_REP_after_a_string_cut_at_its_ESC_repeats_nothing() -> None:
    # A read ending on the ESC of the string's ST holds that ESC back, but
    # the string has come between the text and the REP all the same.
    term, _ = feed_split(b"a\x1b]0;t\x1b\\\x1b[2b")
    assert term.screen.lines[0].rstrip() == "a"
    assert term.screen.title == "t"


def _scanned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many characters each ``findall`` of the tokenizer is given."""
    spans: list[int] = []
    tokens = Parser._tokens

    def counting(self: Parser, data: str, i: int, end: int) -> int:
        spans.append(end - i)
        return tokens(self, data, i, end)

    monkeypatch.setattr(Parser, "_tokens", counting)
    return spans


def test_runs_cut_by_sequences_are_not_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every few characters a string without its terminator, or a CSI cut short
    # by ESC, ends inside a run found around it: what follows is taken from
    # there, not found again by scanning the rest of the read each time.
    spans = _scanned(monkeypatch)
    data = b"\x1b]0;t\r\n\x1b[K" * 2000 + b"\x1b[1\r\x1b[A" * 2000 + b"end"
    term = Terminal(80, 24)
    term.feed(data)
    assert sum(spans) <= 2 * len(data)
    assert term.screen.lines[0].rstrip() == "end"


def test_failures_skip_one_token_without_scanning_again(monkeypatch: pytest.MonkeyPatch) -> None:
    def bell(self: object, at: int) -> None:
        raise RuntimeError("bell")

    spans = _scanned(monkeypatch)
    monkeypatch.setattr(SignalLog, "bell", bell)
    term = Terminal(80, 24)
    term.feed(b"ab\x07" * 500)
    assert sum(spans) <= 2 * 3 * 500
    assert term.unknown == {"error in RuntimeError": 500}
    assert "".join(line.rstrip() for line in term.screen.lines) == "ab" * 500


def test_a_long_read_is_tokenized_a_window_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # ``findall`` makes a tuple per token: a read of 200,000 NULs must not
    # hold 200,000 of them at once.
    spans = _scanned(monkeypatch)
    term = Terminal(80, 24)
    term.feed(b"\x00" * 200_000 + b"x\x1b[31my" * 20_000)
    assert max(spans) <= 1 << 15
    assert term.screen.lines[-1].rstrip().endswith("xyxy")


def test_a_sequence_read_whole_ending_inside_a_part_leaves_the_rest_to_be_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No real sequence ends inside a CSI that ``findall`` found whole (it ends
    # at an ESC or a final byte), so a fake says where the BEL's token ends:
    # what is left of the run is found again on its own.
    parser = Parser(_Handler())
    monkeypatch.setattr(Parser, "_other", lambda self, data, i: data.index(";"))
    parser.feed("\x07\x1b[12;5H\x1b[3Cx")
    assert parser.handler.log == ["draw ;5H", "3C", "draw x"]  # type: ignore[attr-defined]
