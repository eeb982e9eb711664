"""Hostile output costs time linear in its bytes and memory bounded by the screen.

A program under test prints what it likes, and a recording may come from a
stranger. Each cap the terminal keeps (``docs/security.md`` lists them) is
fed past here, and the test checks both that the bound holds and what the
terminal shows at it. Nothing is timed: where the defect was time (a mark
that renormalized the whole cell, a bell that copied a thousand values),
the test counts the work that grew with the input (characters normalized,
values made) instead. ``benchmarks/bench_adversarial.py`` measures the
speed and the peak memory of ten-megabyte streams of each kind.
"""

from __future__ import annotations

import random
import re
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import inherited_env
from helpers import feed_split
from wcwidth import wcwidth

import termsim
from termsim import Text
from termsim.cli import main
from termsim.emulator import Emulation, Terminal
from termsim.emulator.parsing.decoding import replaced_xterm, xterm_sequences
from termsim.emulator.parsing.tokenizer import MAX_RUN_CHARS
from termsim.emulator.parsing.unknown import MAX_UNKNOWN_KINDS, OTHER
from termsim.emulator.screen import cells as screen_cells
from termsim.emulator.screen import draw as screen_draw
from termsim.emulator.screen.cells import MAX_GLYPHS
from termsim.emulator.screen.marks import MAX_CLUSTER, MAX_MARKS
from termsim.emulator.screen.palette import PALETTE_SIZE
from termsim.emulator.screen.screen import TITLE_STACK
from termsim.emulator.signals import signals
from termsim.emulator.signals.log import MAX_NOTE, MAX_PENDING_NOTES
from termsim.emulator.signals.signals import KEPT
from termsim.emulator.terminal.dispatch import MAX_LINK, MAX_LINK_ID
from termsim.emulator.terminal.dispatch_memo import MAX_KEPT_KEY
from termsim.events import End, Input, Output, UnknownSequences
from termsim.recording.format import RecordingWriter, make_header
from termsim.report.names import named

ACUTE = "\u0301"
ZWJ = "\u200d"
MAN, WOMAN = "\U0001f468", "\U0001f469"


def fed(data: bytes, cols: int = 80, rows: int = 24, *, graphemes: bool = False,
        chunk: int = 4096) -> Terminal:
    """A terminal fed ``data`` in reads of ``chunk`` bytes, as a PTY gives them."""
    term = Terminal(cols, rows, emulation=Emulation(graphemes=True) if graphemes else None)
    for i in range(0, len(data), chunk):
        term.feed(data[i:i + chunk])
    return term


@pytest.fixture
def normalized(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text ``unicodedata.normalize`` is asked for."""
    sizes: list[int] = []
    real = unicodedata.normalize

    def counting(form: str, text: str) -> str:
        sizes.append(len(text))
        return real(form, text)  # type: ignore[arg-type]

    monkeypatch.setattr(unicodedata, "normalize", counting)
    return sizes


# -- combining marks and clusters ----------------------------------------------------


def test_a_cell_keeps_MAX_MARKS_marks_and_drops_the_rest() -> None:
    term = fed(("e" + ACUTE * 5_000 + "x").encode())
    snap = term.screen
    assert snap.cell(0, 0).char == unicodedata.normalize("NFC", "e" + ACUTE * MAX_MARKS)
    assert len(unicodedata.normalize("NFD", snap.cell(0, 0).char)) == MAX_MARKS + 1
    assert snap.cell(0, 1).char == "x"  # the marks moved nothing
    assert snap.cursor.col == 2


def test_marks_past_the_cap_cost_nothing_that_grows_with_them(normalized: list[int]) -> None:
    # One mark at a time, as a program writing them one per write() does:
    # each once cost a normalization of the whole cell (quadratic).
    term = Terminal(80, 24)
    term.feed(b"a")
    for _ in range(3_000):
        term.feed(ACUTE.encode())
    assert len(term.screen.cell(0, 0).char) <= MAX_MARKS + 1
    assert sum(normalized) <= 4 * (MAX_MARKS + 2) * 3_000


def test_marks_of_one_run_join_their_cell_at_once(normalized: list[int]) -> None:
    term = fed(b"a" + ACUTE.encode() * 100_000, chunk=1 << 20)
    assert term.screen.cell(0, 0).char == unicodedata.normalize("NFC", "a" + ACUTE * MAX_MARKS)
    assert sum(normalized) <= 20 * (MAX_MARKS + 2)


def test_marks_split_across_reads_keep_the_same_cap() -> None:
    # The same marks in one read and a mark per read: the same cell.
    data = ("o" + "\u0308\u0323\u0301\u0300" * 3 + "|").encode()
    term, _ = feed_split(data)
    assert len(unicodedata.normalize("NFD", term.screen.cell(0, 0).char)) == MAX_MARKS + 1
    assert term.screen.cell(0, 1).char == "|"


def test_a_cluster_stops_growing_at_MAX_CLUSTER() -> None:
    term = fed((MAN + (ZWJ + WOMAN) * 3_000 + "|").encode(), graphemes=True)
    cell = term.screen.cell(0, 0).char
    assert cell.startswith(MAN + ZWJ + WOMAN)
    assert len(cell) == MAX_CLUSTER + 1
    assert term.screen.cell(0, 2).char == "|"  # one wide cell, then the bar


def test_a_real_cluster_with_skin_tones_is_kept_whole() -> None:
    # Kiss: woman, man, skin tones (ten code points), and a subdivision flag.
    kiss = "\U0001f469\U0001f3fb\u200d\u2764\ufe0f\u200d\U0001f48b\u200d\U0001f468\U0001f3fc"
    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    term = fed((kiss + england + "|").encode(), graphemes=True)
    assert term.screen.cell(0, 0).char == kiss
    assert term.screen.cell(0, 2).char == england
    assert term.screen.cell(0, 4).char == "|"


def test_graphemes_drop_marks_past_the_cap_too(normalized: list[int]) -> None:
    term = fed(b"a" + ACUTE.encode() * 50_000, graphemes=True)
    assert len(unicodedata.normalize("NFD", term.screen.cell(0, 0).char)) == MAX_CLUSTER + 1
    assert sum(normalized) <= 20 * 13 * (MAX_CLUSTER + 2)


def test_zwj_emoji_without_clusters_keep_a_cell_each() -> None:
    family = MAN + ZWJ + WOMAN + ZWJ + "\U0001f467"
    term = fed((family * 1_000).encode(), cols=30, rows=5)
    snap = term.screen
    assert [snap.cell(4, col).char for col in (0, 2, 4)] == [MAN + ZWJ, WOMAN + ZWJ, "\U0001f467"]
    assert all(len(snap.cell(row, col).char) <= 2 for row in range(5) for col in range(30))


# -- what a cell's text is made of ------------------------------------------------------


def _narrow_characters() -> Iterator[str]:
    for start in range(0x100, 0x30000):
        ch = chr(start)
        if wcwidth(ch) == 1 and not unicodedata.combining(ch):
            yield ch


def test_a_glyph_table_keeps_at_most_MAX_GLYPHS_characters() -> None:
    chars = [ch for ch, _ in zip(_narrow_characters(), range(MAX_GLYPHS + 2_000), strict=False)]
    term = Terminal(80, 24)
    for i in range(0, len(chars), 40):
        term.feed(("".join(chars[i:i + 40]) + "\r\n").encode())
    tables = term._screen._glyphs.values()
    assert tables and max(map(len, tables)) <= MAX_GLYPHS
    assert term.screen.lines[-2].rstrip() == "".join(chars[(len(chars) - 1) // 40 * 40:])


def test_the_blocks_drawn_at_once_are_one_column_wide_in_wcwidth() -> None:
    pattern = screen_cells._NARROW_TEXT.pattern
    members = [ch for ch in map(chr, range(0x10000)) if screen_cells._NARROW_TEXT.fullmatch(ch)]
    assert members, pattern
    assert [ch for ch in members if wcwidth(ch) != 1] == []


def test_undecodable_bytes_are_one_replacement_per_maximal_subpart_the_unicode_way() -> None:
    # The whole text decoded again gives what each run alone gave.
    rng = random.Random(7)
    pieces = [b"\xe2", b"\x82", b"\xac", b"\xf0", b"\x9f", b"\x98", b"\x80", b"a", b"\xc3",
              b"\xa9", b"\xed", b"\xa0", b"\xff", b"\xc0"]
    for _ in range(3_000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        text = data.decode("utf-8", "surrogateescape")
        assert screen_cells.replaced(text) == data.decode("utf-8", "replace"), data


# -- signals: bells, marks, titles, notifications --------------------------------------


@pytest.fixture
def snapshots_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per ``Signals`` value made (what a snapshot holds)."""
    real_init = signals.Signals.__init__
    made: list[int] = []

    def counting(self: object, *args: object, **kwargs: object) -> None:
        made.append(1)
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(signals.Signals, "__init__", counting)
    return made


def test_a_flood_of_bells_keeps_the_last_KEPT_and_counts_them_all(
    snapshots_made: list[int],
) -> None:
    # Each bell once made a new value of every signal kept (a thousand
    # bells copied): now it is made when a snapshot asks, once.
    term = fed(b"x" + b"\x07" * 20_000 + b"y\x07")
    snap = term.screen
    assert len(snapshots_made) <= 2
    assert snap.signals.bell_count == 20_001
    assert len(snap.bells) == KEPT
    assert [b.at for b in snap.bells[-3:]] == [19_999, 20_000, 20_002]
    assert snap.bells[0].at == 20_002 - KEPT
    assert snap.bells[-1] == signals.BellRung(20_002, None, snap.bells[-1].generation)
    assert snap.lines[0].rstrip() == "xy"


def test_each_signal_costs_the_same_however_many_came_before(
    snapshots_made: list[int],
) -> None:
    # The snapshot's value is made when a snapshot is asked for, not at
    # each of the 20,000 marks (each once copied a thousand values).
    cycle = b"\x1b]133;A\x07$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07out\r\n\x1b]133;D;0\x07"
    term = fed(cycle * 5_000)
    snap = term.screen
    assert len(snapshots_made) <= 2
    assert len(snap.marks) == KEPT and len(snap.commands) == KEPT
    last = snap.commands[-1]
    assert last.finished and last.status == 0 and last.output == "out"


def test_titles_keep_the_last_KEPT_and_the_stack_TITLE_STACK() -> None:
    pushes = b"".join(b"\x1b]2;t%d\x07\x1b[22t" % n for n in range(50))
    term = fed(pushes + b"\x1b[23t" * 60)
    snap = term.screen
    titles = [c.text for c in snap.signals.titles if not c.icon]
    assert titles[:50] == [f"t{n}" for n in range(50)]
    # The ten pushed last come back, newest first, then nothing more.
    assert titles[50:] == [f"t{n}" for n in range(48, 49 - TITLE_STACK, -1)]
    assert snap.title == f"t{50 - TITLE_STACK}"
    many = fed(b"".join(b"\x1b]2;%d\x07" % n for n in range(3 * KEPT)))
    assert len(many.screen.signals.titles) == KEPT


def test_chunked_notifications_are_bounded_in_number_and_length() -> None:
    opened = b"".join(b"\x1b]99;i=%d:d=0;open\x1b\\" % n for n in range(100))
    chunks = b"\x1b]99;i=long:d=0:p=body;" + b"x" * 1_000 + b"\x1b\\"
    term = fed(opened + chunks * 200 + b"\x1b]99;i=long:p=body;end\x1b\\")
    assert len(term._signals._kitty_notes) <= MAX_PENDING_NOTES
    (note,) = term.screen.notifications
    assert len(note.body) == MAX_NOTE and note.body.startswith("x" * 1_000)


# -- what the terminal keeps of sequences -------------------------------------------------


def test_unknown_names_are_capped_and_the_rest_counted_as_other() -> None:
    term = fed(b"".join(b"\x1b]%d;x\x07" % (10_000 + n) for n in range(2_000)))
    unknown = term.unknown
    assert len(unknown) == MAX_UNKNOWN_KINDS + 1
    assert unknown[OTHER] == 2_000 - MAX_UNKNOWN_KINDS
    assert sum(unknown.values()) == 2_000
    assert unknown["OSC 10000"] == 1  # the first ones kept, by name
    assert all(isinstance(k, str) and isinstance(v, int) for k, v in dict(unknown).items())


def test_palette_keeps_the_256_entries_and_reads_no_huge_index() -> None:
    term = fed(b"".join(b"\x1b]4;%d;rgb:12/34/56\x07" % n for n in range(300))
               + b"\x1b]4;" + b"9" * 10_000 + b";rgb:ff/ff/ff\x07")
    assert sorted(term._screen.palette) == list(range(PALETTE_SIZE))
    assert not term.unknown  # no ValueError from reading 10,000 digits


def test_modes_the_terminal_does_not_know_are_not_kept() -> None:
    every = ";".join(map(str, range(1, 65_536)))
    term = fed(f"\x1b[?{every}h\x1b[?{every}s\x1b[{every}h".encode(), chunk=1 << 22)
    screen = term._screen
    assert len(screen.mode) < 200 and len(screen.saved_modes) < 200
    assert term.screen.alternate  # 1049, among them, did what it does
    assert term.screen.modes.bracketed_paste


def test_overlong_links_are_no_links_as_in_vte() -> None:
    long_uri = "https://example.com/" + "p" * MAX_LINK
    kept_uri = "https://example.com/" + "p" * (MAX_LINK - 20)
    data = (f"\x1b]8;;{long_uri}\x1b\\a\x1b]8;;{kept_uri}\x1b\\b"
            f"\x1b]8;id={'i' * (MAX_LINK_ID + 1)};https://x\x1b\\c").encode()
    term = fed(data)
    links = [getattr(term._screen.buffer[0][x], "link", "") for x in range(3)]
    assert links == ["", kept_uri, "https://x"]


def test_runs_kept_are_bounded_in_characters_and_long_sequences_not_kept() -> None:
    # Reads of nothing but cursor moves, each a new run as long as the read.
    rng = random.Random(3)
    moves = "".join(f"\x1b[{rng.randrange(1, 9)}{rng.choice('ABCD')}" for _ in range(120_000))
    sgr = "\x1b[" + "1;" * 1_000 + "31mx"
    term = fed((moves + "\x1b[1;1H" + sgr + "\r\n" + moves).encode(), chunk=1 << 16)
    assert sum(map(len, term._parser._runs)) <= MAX_RUN_CHARS
    assert max(map(len, term._dispatch.sequences), default=0) <= MAX_KEPT_KEY
    cell = term.screen.cell(0, 0)
    assert (cell.char, cell.style.fg, cell.style.bold) == ("x", "red", True)


def test_insert_mode_inserts_a_stretch_of_text_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int | None] = []
    real = screen_draw.DrawOps.insert_characters  # type: ignore[attr-defined]

    def counting(self: object, count: int | None = None) -> None:
        calls.append(count)
        real(self, count)

    monkeypatch.setattr(screen_draw.DrawOps, "insert_characters", counting, raising=False)
    term = fed(b"tail\r\x1b[4h" + b"x" * 70 + b"\x1b[4l", cols=80)
    assert term.screen.lines[0].rstrip() == "x" * 70 + "tail"
    assert len(calls) <= 2


# -- random bytes ------------------------------------------------------------------------


@pytest.mark.parametrize("graphemes", [False, True])
def test_random_bytes_leave_every_cell_bounded(graphemes: bool) -> None:
    data = random.Random(11).randbytes(300_000)
    term = fed(data, graphemes=graphemes)
    snap = term.screen
    cap = (MAX_CLUSTER if graphemes else MAX_MARKS) + 4  # a mark decomposes into four at most
    assert all(len(snap.cell(row, col).char) <= cap
               for row in range(snap.rows) for col in range(snap.cols))
    assert not [k for k in term.unknown if k.startswith("internal")], dict(term.unknown)
    assert len(term.unknown) <= MAX_UNKNOWN_KINDS + 1


# -- a real program -----------------------------------------------------------------------

FLOOD = """
import sys
out = sys.stdout
out.write("\\a" * 100_000)
for n in range(3_000):
    out.write(f"\\x1b]133;A\\a$ \\x1b]133;B\\aecho {n}\\r\\n")
    out.write(f"\\x1b]133;C\\a{n}\\r\\n\\x1b]133;D;0\\a")
out.write("a" + "\\u0301" * 100_000 + "\\r\\n")
out.write("ready\\r\\n")
out.flush()
print("got", input())
"""


@pytest.mark.anyio
async def test_a_program_flooding_marks_and_bells_leaves_a_usable_session() -> None:
    async with termsim.spawn([sys.executable, "-c", FLOOD], env=inherited_env(),
                             record=False) as term:
        await term.wait_for(Text("ready"), timeout=30)
        snap = term.screen
        assert snap.signals.bell_count == 100_000
        assert len(snap.commands) == KEPT and snap.commands[-1].output == "2999"
        row = snap.lines.index(next(line for line in snap.lines if line.startswith("ready")))
        assert snap.cell(row - 1, 0).char == unicodedata.normalize("NFC", "a" + ACUTE * MAX_MARKS)
        mark = await term.type("hi\n")
        await term.wait_for(Text("got hi"), since=mark)


def test_unknown_names_are_printable_whatever_bytes_named_them() -> None:
    term = fed(b"\x1b\xa1\x1b\x85x\x1b]\xff\xfe;x\x07\x1bP\xe2\x80\xae\x1b\\")
    names = list(term.unknown)
    assert names and all(name.isprintable() and name.isascii() for name in names), names


#: Sequences whose names carry what the program wrote: an escape's final
#: byte that is not UTF-8, OSC codes that are a stray byte, a bidirectional
#: control and a C1 control, a shell mark that is a bidirectional control.
NAMED_BY_BYTES = (b"\x1b\xe2x\x1b]\xff;x\x07\x1b]\xe2\x80\xae;x\x07"
                  b"\x1b]133;\xe2\x80\xae\x07\x1b]1\xc2\x85;x\x07")


def test_the_reports_names_are_printable_whatever_bytes_named_them() -> None:
    names = [t.name for tokens in named([NAMED_BY_BYTES]) for t in tokens if t.name]
    assert len(names) == 5 and all(n.isprintable() and n.isascii() for n in names), names


def test_a_recording_of_such_names_exports_its_page(tmp_path: Path) -> None:
    """The page names the output each step spans: its export failed (a lone
    surrogate cannot be written as UTF-8), and a bidirectional control
    reached the page as it came."""
    path = tmp_path / "names.tsr"
    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=40, rows=5, env={}))
    writer.write(Input(0.05, b"x", label="key x", secret=False, tracked=False))
    writer.write(Output(0.1, NAMED_BY_BYTES + b"done\r\n"))
    writer.write(End(0.2, "closed"))
    assert main(["export", str(path), "-o", str(tmp_path / "page.html")]) == 0
    page = (tmp_path / "page.html").read_text("utf-8")
    assert "OSC \\\\u202e (not named)" in page and "\u202e" not in page  # (in JSON)


@pytest.mark.anyio
async def test_a_recording_of_a_program_that_sends_ESC_and_a_stray_byte_closes(
    tmp_path: Path,
) -> None:
    # The name counted once held the undecodable byte as a lone surrogate,
    # which the recording's writer could not encode: the session's end failed.
    path = tmp_path / "stray.tsr"
    program = [sys.executable, "-c", "import os; os.write(1, b'\\x1b\\xa1done\\r\\n')"]
    async with termsim.spawn(program, env=inherited_env(), record=path) as term:
        await term.wait_for(Text("done"))
    (counts,) = [e.counts for e in termsim.files.Recording.open(path).events
                 if isinstance(e, UnknownSequences)]
    assert counts == {"ESC \\xa1": 1}


def test_a_parameter_of_thousands_of_digits_in_a_read_of_coloured_lines_is_capped() -> None:
    """A read made only of lines, CR LF and SGR takes the coloured-lines
    fast path, which once read an SGR parameter with ``int()`` whole: past
    4,300 digits Python refuses, and ``feed`` raised ValueError. The same
    parameter read as a name for a report (``termsim show --steps``) too."""
    huge = b"9" * 4_301
    # (In one read: a sequence cut across reads past its cap is "overlong".)
    term = fed(b"line\r\n" * 30 + b"\x1b[" + huge + b"mx\x1b[0m\r\n", chunk=1 << 20)
    assert term.screen.lines[-2].rstrip() == "x"
    term = fed(b"\x1b[" + b"0" * 6_000 + b"1;" + huge + b"mz", chunk=1 << 20)
    assert term.screen.lines[0].rstrip() == "z"
    ((token,),) = named([b"\x1b[1;" + huge + b"m"])
    assert token.name.startswith("style:"), token


def test_undecodable_bytes_are_one_replacement_a_sequence_the_xterm_way() -> None:
    """The one pattern ``replaced_xterm`` uses and the rule written out
    (``xterm_sequences``) count the same sequences in any mix."""
    rng = random.Random(7)
    pieces = [b"\xe2", b"\x82", b"\xac", b"\xf0", b"\x9f", b"\x98", b"\x80", b"a", b"\xc3",
              b"\xa9", b"\xed", b"\xa0", b"\xff", b"\xc0", b"\xf8", b"\xfc", b"\xfe"]
    for _ in range(3_000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        text = data.decode("utf-8", "surrogateescape")
        expected = "".join(
            chunk if not chunk or not "\udc80" <= chunk[0] <= "\udcff" else
            "\ufffd" * len(xterm_sequences(chunk.encode("utf-8", "surrogateescape")))
            for chunk in re.split("([\udc80-\udcff]+)", text))
        assert replaced_xterm(text) == expected, data
