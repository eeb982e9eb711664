"""Cells carry every attribute xterm keeps, from SGR to snapshot, golden, HTML and SVG.

pyte's ``Char`` has no field for dim (SGR 2), invisible (8), the double
underline (21), underline styles (``4:x``) or the underline colour (58), so
termsim keeps them in a wider pen (``termsim.emulator.screen.sgr.StyledChar``)
while one is on. These tests follow such a pen through every way the screen
draws (the fast path for ASCII, the slow one for wide characters and marks,
REP, insert mode, the fast path for coloured lines), through what changes
cells (DECSCNM, erase, DECSC/DECRC, DECSCA) and out to every view of a
screen.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from xml.etree import ElementTree

import helpers
import pytest
from conftest import examples
from helpers import feed_split
from hypothesis import given, settings
from hypothesis import strategies as st

from termsim import Style
from termsim.emulator import Terminal
from termsim.emulator.screen.screen import Protected
from termsim.emulator.screen.sgr import ProtectedStyledChar, StyledChar
from termsim.emulator.snapshot.snapshot import Run
from termsim.engine.screentext import Options, render
from termsim.events import Output
from termsim.files import Recording
from termsim.recording.format import RecordingWriter, make_header
from termsim.report.draw import DEFAULT_BG, DEFAULT_FG, PALETTE, blend, look
from termsim.report.html import recording_html
from termsim.report.svg import snapshot_svg

ACCEPTANCE = b"\x1b[2mdim\x1b[4:3;58;2;255;0;0mcurly"
DIM = Style(dim=True)
DIM_CURLY = Style(dim=True, underline=True, underline_style="curly", underline_colour="ff0000")
#: Dim text in the default colours, as SVG and HTML draw it.
DIM_FG = blend(DEFAULT_FG, DEFAULT_BG)


fed = partial(helpers.fed, cols=20, rows=3)


# -- the acceptance test: one sequence, every view ---------------------------------------


def test_dim_and_a_coloured_curly_underline_reach_the_snapshot() -> None:
    snap = fed(ACCEPTANCE).screen
    assert snap.cell(0, 0).style == DIM
    assert snap.cell(0, 3).style == DIM_CURLY
    assert snap.runs(0) == (Run(0, "dim", DIM, 3), Run(3, "curly", DIM_CURLY, 5))


def test_dim_and_a_coloured_curly_underline_reach_the_golden_text() -> None:
    text = render(fed(ACCEPTANCE, rows=2).screen, Options(styles=True)).text()
    assert text == (
        "screen 20x2, cursor at row 0, col 8, styles\n"
        "|{1:dim}{2:curly}            |\n"
        "|                    |\n"
        "{1}: dim\n"
        "{2}: dim, underline=curly, underline-colour=#ff0000\n"
    )


def test_dim_and_a_coloured_curly_underline_reach_the_html(tmp_path: Path) -> None:
    path = tmp_path / "r.tsr"
    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=20, rows=2,
                                               env={"TERM": "xterm-256color"}))
    writer.write(Output(0.1, ACCEPTANCE + b"\x1b[?25l"))
    writer.close(0.2, "closed")
    page = recording_html(Recording.open(path))
    rules = dict(re.findall(r"#screen \.(s\d+)\{([^}]*)\}", page))
    dim = [name for name, rule in rules.items() if f"color:{DIM_FG}" in rule]
    assert len(dim) == 2, rules
    curly = [name for name in dim if "text-decoration" in rules[name]]
    assert len(curly) == 1
    assert rules[curly[0]].split(";")[2:] == [
        "text-decoration:underline", "text-decoration-style:wavy",
        "text-decoration-color:#ff0000"]
    # The screen's row is the two runs, in those two looks.
    plain = next(name for name in dim if name not in curly)
    assert f'[["dim",{plain[1:]}],["curly",{curly[0][1:]}]]' in page.replace(" ", "")


def test_dim_and_a_coloured_curly_underline_reach_the_svg() -> None:
    svg = snapshot_svg(fed(ACCEPTANCE + b"\x1b[?25l", rows=2).screen)
    ElementTree.fromstring(svg)  # well formed
    texts = re.findall(r"<text ([^>]*)>([^<]*)<", svg)
    assert texts == [
        (f'x="0" y="14" fill="{DIM_FG}" textLength="27" class="dim"', "dim"),
        (f'x="27" y="14" fill="{DIM_FG}" textLength="45" text-decoration="underline" '
         'style="text-decoration-style:wavy;text-decoration-color:#ff0000" class="dim"',
         "curly"),
    ]


# -- SGR: what each code sets, as xterm ------------------------------------------------


@pytest.mark.parametrize(
    ("sgr", "style"),
    [
        (b"2", DIM),
        (b"1;2", Style(bold=True, dim=True)),
        (b"1;2;22", Style()),  # 22 ends bold and faint alike (xterm)
        (b"2;1;0", Style()),
        (b"6", Style(blink=True)),  # rapid blink, as xterm
        (b"6;25", Style()),
        (b"8", Style(invisible=True)),
        (b"8;28", Style()),
        (b"21", Style(underline=True, underline_style="double")),  # xterm's double underline
        (b"4:2", Style(underline=True, underline_style="double")),
        (b"4;21", Style(underline=True, underline_style="double")),
        (b"21;4", Style(underline=True)),  # the later style wins
        (b"4:1", Style(underline=True)),
        (b"4:3", Style(underline=True, underline_style="curly")),
        (b"4:4", Style(underline=True, underline_style="dotted")),
        (b"4:5", Style(underline=True, underline_style="dashed")),
        (b"4:3;4:0", Style()),
        (b"21;24", Style()),  # 24 ends every underline
        (b"4:3;24;4", Style(underline=True)),
        (b"58;2;1;2;3", Style()),  # a colour for an underline there is not
        (b"4;58;5;196", Style(underline=True, underline_colour="ff0000")),
        (b"4;58:2::1:2:3;24;4", Style(underline=True, underline_colour="010203")),  # 24 keeps it
        (b"4;58;5;196;59", Style(underline=True)),
        (b"58;2;1;2;3;4:3;0", Style()),
        (b"31;2;4:3;58;5;2", Style(fg="red", dim=True, underline=True, underline_style="curly",
                                   underline_colour="00cd00")),
        (b"1;2;3;4:5;5;7;8;9", Style(bold=True, dim=True, italic=True, underline=True,
                                     underline_style="dashed", blink=True, reverse=True,
                                     invisible=True, strikethrough=True)),
    ],
)
def test_SGR_sets_every_attribute_xterm_keeps(sgr: bytes, style: Style) -> None:
    term, _ = feed_split(b"\x1b[" + sgr + b"mX\x1b[mY", cols=10, rows=2)
    assert term.screen.cell(0, 0).style == style
    assert term.screen.cell(0, 1).style == Style()  # SGR 0 ends them all
    assert not term.unknown


def test_a_pen_with_no_extra_attribute_on_is_a_plain_char() -> None:
    # The plain Char stays the common case: turning the extras off gives it back.
    term = fed(b"\x1b[2;21;8;58;5;1m\x1b[22;24;28;59mX")
    assert type(term._screen.buffer[0][0]) is not StyledChar
    assert term._screen.buffer[0][0] == fed(b"X")._screen.buffer[0][0]


# -- the screen's drawing paths ----------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "col", "char"),
    [
        (b"abc", 1, "b"),  # ASCII, a segment at a time
        (b"a" * 30, 25, "a"),  # a long segment, wrapped
        ("中x".encode(), 0, "中"),  # a wide character: the slow path
        ("e\u0301".encode(), 0, "\u00e9"),  # a combining mark joins the cell
        (b"a\x1b[3b", 3, "a"),  # REP
        (b"\x1b[4hab\x1b[1;1Hc", 0, "c"),  # insert mode
        ("\u00e9t\u00e9".encode(), 2, "\u00e9"),  # Latin-1 text, narrow
    ],
)
def test_every_drawing_path_keeps_the_attributes(data: bytes, col: int, char: str) -> None:
    term, _ = feed_split(b"\x1b[2;4:3;58;2;255;0;0;8m" + data, cols=20, rows=4)
    row, at = divmod(col, 20)
    cell = term.screen.cell(row, at)
    assert cell.char == char
    assert cell.style == Style(dim=True, invisible=True, underline=True,
                               underline_style="curly", underline_colour="ff0000")


def test_coloured_lines_taken_the_fast_way_keep_the_attributes() -> None:
    term = Terminal(20, 4)
    term.feed(b"".join(b"\x1b[2mfaint\x1b[0m %d \x1b[21;2mdbl\x1b[0m\r\n" % i
                       for i in range(40)))
    assert term._screen.unbuilt  # kept as coloured text, cells made when asked
    snap = term.screen
    assert snap.lines[2].rstrip() == "faint 39 dbl"
    assert snap.cell(2, 0).style == DIM
    assert snap.cell(2, 6).style == Style()
    assert snap.cell(2, 9).style == Style(dim=True, underline=True, underline_style="double")
    assert not term.unknown


def test_screen_reverse_video_round_trip_gives_the_cells_back() -> None:
    term = fed(b"\x1b[2;4:3mx\x1b[?5h")
    assert term.screen.cell(0, 0).style == Style(dim=True, underline=True,
                                                 underline_style="curly", reverse=True)
    term.feed(b"\x1b[?5lY")
    assert term.screen.cell(0, 0).style == Style(dim=True, underline=True,
                                                 underline_style="curly")
    assert term.screen.cell(0, 1).style == term.screen.cell(0, 0).style


def test_an_erase_leaves_the_colours_only_as_xterm() -> None:
    # xterm's ClearCells: blanks in the current colours, no other attribute.
    term = fed(b"\x1b[2;8;21;58;5;1;41mab\x1b[1;1H\x1b[X\x1b[2;1H\x1b[K")
    assert term.screen.cell(0, 0).style == Style(bg="red")
    assert term.screen.cell(0, 1).style == Style(bg="red", dim=True, invisible=True,
                                                 underline=True, underline_style="double",
                                                 underline_colour="cd0000")
    assert term.screen.cell(1, 5).style == Style(bg="red")


def test_DECSC_DECRC_save_and_restore_the_attributes() -> None:
    term = fed(b"\x1b[2;4:4m\x1b7\x1b[m\x1b[1;5HA\x1b8B")
    assert term.screen.cell(0, 4).style == Style()
    assert term.screen.cell(0, 0).style == Style(dim=True, underline=True,
                                                 underline_style="dotted")


def test_the_pen_under_DECSCA_keeps_the_attributes_and_the_protection() -> None:
    term, replies = feed_split(b'\x1b[1"q\x1b[2mA\x1bP$q"q\x1b\\\x1bP$qm\x1b\\')
    assert type(term._screen.buffer[0][0]) is ProtectedStyledChar
    assert term.screen.cell(0, 0).style == DIM
    assert replies == b'\x1bP1$r1"q\x1b\\\x1bP1$r0;2m\x1b\\'
    term.feed(b"\x1b[0mB")
    assert type(term._screen.buffer[0][1]) is Protected  # plain again, still protected


def test_selective_erase_leaves_protected_cells_with_extra_attributes() -> None:
    term = fed(b'\x1b[1"q\x1b[2mA\x1b[0"q\x1b[mB\x1b[?2K')
    assert term.screen.lines[0].rstrip() == "A"


def test_DECSCA_after_dim_keeps_dim_on_wide_characters() -> None:
    term = fed('\x1b[2m\x1b[1"q中\x1b[0"q中'.encode())
    assert term.screen.cell(0, 0).style == DIM
    assert term.screen.cell(0, 2).style == DIM


# -- DECRQSS: the pen as the SGR that sets it ------------------------------------------


@pytest.mark.parametrize(
    ("sgr", "reply"),
    [
        (b"2", b"0;2"),
        (b"1;2;8", b"0;1;2;8"),
        (b"21", b"0;21"),  # xterm's double underline
        (b"4:3;58;2;1;2;3", b"0;4:3;58;2;1;2;3"),
        (b"4:3;58;2;255;0;0", b"0;4:3;58;5;196"),  # a palette colour, as for 38 and 48
        (b"4:4;58;5;100", b"0;4:4;58;5;100"),
        (b"4:5;31", b"0;4:5;31"),
        (b"58;5;1", b"0;58;5;1"),  # kept for the next underline, so reported
    ],
)
def test_DECRQSS_reports_the_attributes(sgr: bytes, reply: bytes) -> None:
    _, replies = feed_split(b"\x1b[" + sgr + b"m\x1bP$qm\x1b\\")
    assert replies == b"\x1bP1$r" + reply + b"m\x1b\\"


_CODES = st.sampled_from(
    ["0", "1", "2", "3", "4", "4:0", "4:2", "4:3", "4:4", "4:5", "5", "7", "8", "9", "21",
     "22", "23", "24", "25", "27", "28", "29", "31", "42", "38;5;100", "48;2;1;2;3",
     "58;5;9", "58;2;7;8;9", "58:2::4:5:6", "59"],
)


@given(st.lists(_CODES, min_size=1, max_size=10))
@settings(max_examples=examples(200), deadline=None, database=None)
def test_DECRQSS_reply_sets_the_pen_it_reports(codes: list[str]) -> None:
    # A program that saves the pen with DECRQSS and sets it back gets every
    # attribute back (an underline colour with no underline draws nothing).
    term = Terminal(10, 2)
    term.feed(f"\x1b[{';'.join(codes)}mX".encode())
    reply = term.feed(b"\x1bP$qm\x1b\\")
    params = re.fullmatch(rb"\x1bP1\$r(.*)m\x1b\\", reply)
    assert params is not None, reply
    again = Terminal(10, 2)
    again.feed(b"\x1b[" + params.group(1) + b"mX")
    assert again.screen.cell(0, 0) == term.screen.cell(0, 0), reply


# -- snapshots, goldens and renderers --------------------------------------------------------


def test_snapshots_hand_out_one_style_object_per_set_of_attributes() -> None:
    # The renderers memoise looks by style identity.
    one = fed(b"\x1b[2;4:3mab\x1b[mc\x1b[2;4:3md").screen
    other = fed(b"x\x1b[2;4:3mab").screen
    styles = {id(run.style) for snap in (one, other) for run in snap.runs(0)
              if run.style.dim}
    assert len(styles) == 1
    assert len({Style(dim=True), Style(dim=True), Style()}) == 2


def test_legends_name_every_attribute_in_a_fixed_order() -> None:
    term = fed(b"\x1b[1;2;3;21;5;7;8;9;31;44;58;5;196mA\x1b[m \x1b[4mB")
    legend = render(term.screen, Options(styles=True)).legend
    assert legend == [
        "{1}: bold, dim, italic, underline=double, reverse, strikethrough, blink, invisible, "
        "fg=red, bg=blue, underline-colour=#ff0000",
        "{2}: underline",  # as before underline styles existed
    ]


def test_renderers_draw_invisible_text_as_its_background() -> None:
    snap = fed(b"\x1b[8;31;44msecret\x1b[m\x1b[?25l").screen
    hidden = look(snap.cell(0, 0).style)
    assert (hidden.fg, hidden.bg, hidden.invisible) == (PALETTE["blue"], PALETTE["blue"], True)
    svg = snapshot_svg(snap)
    assert "secret" not in svg
    assert f'fill="{PALETTE["blue"]}"' in svg  # the background is drawn


def test_renderers_dim_the_colour_that_is_shown() -> None:
    # Dim applies to the text as drawn, after reverse video.
    assert look(Style(fg="red", dim=True)).fg == blend(PALETTE["red"], DEFAULT_BG)
    assert look(Style(fg="red", dim=True, reverse=True)).fg == blend(DEFAULT_BG, PALETTE["red"])
    assert look(Style(fg="red", dim=True), cursor=True).bg == blend(PALETTE["red"], DEFAULT_BG)
    assert blend("#ffffff", "#000000") == "#7f7f7f"


def test_svg_underline_styles_and_blink() -> None:
    snap = fed(b"\x1b[21ma\x1b[4:4mb\x1b[4:5mc\x1b[24;5md\x1b[?25l").screen
    svg = snapshot_svg(snap)
    ElementTree.fromstring(svg)  # well formed, the animation included
    assert 'style="text-decoration-style:double"' in svg
    assert 'style="text-decoration-style:dotted"' in svg
    assert 'style="text-decoration-style:dashed"' in svg
    assert re.search(r">d<animate attributeName=\"opacity\"[^>]*/></text>", svg)
