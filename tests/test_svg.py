"""Screens as SVG: deterministic bytes, colours and reverse video, the cursor, wide
characters, and everything the program printed kept as text, never as markup; and
the drawing rules the SVG shares with the HTML report (``termsim.report.draw``)."""

from __future__ import annotations

import html
import inspect
import xml.etree.ElementTree as ET
from functools import partial
from pathlib import Path

import helpers
import pytest
from helpers import sampled_screens

from termsim import Snapshot, Style
from termsim.cli import main
from termsim.emulator import Terminal
from termsim.emulator.snapshot.snapshot import Run
from termsim.events import WaitEnded, WaitStarted
from termsim.files import Playback, Recording
from termsim.report import draw as _draw
from termsim.report import html as _html
from termsim.report import html_assets, html_screens
from termsim.report import svg as _svg
from termsim.report.draw import (
    DEFAULT_BG,
    DEFAULT_FG,
    DEFAULT_LOOK,
    PALETTE,
    DrawnRun,
    Look,
    clean,
    colour,
    cursor_cell,
    drawn_row,
    drawn_runs,
    escape,
    look,
)
from termsim.report.svg import BASELINE, CELL_HEIGHT, CELL_WIDTH, snapshot_svg

ROOT = Path(__file__).resolve().parent.parent
PASSING = ROOT / "recordings" / "passing.tsr"
RECORDINGS = sorted((ROOT / "recordings").glob("*.tsr"))
NS = "{http://www.w3.org/2000/svg}"


screen = partial(helpers.screen, cols=20, rows=3)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg.encode("utf-8"))
    assert root.tag == f"{NS}svg"
    return root


def texts(root: ET.Element) -> list[ET.Element]:
    return list(root.iter(f"{NS}text"))


def rects(root: ET.Element) -> list[ET.Element]:
    return list(root.iter(f"{NS}rect"))


def text_at(root: ET.Element, needle: str) -> ET.Element:
    found = [t for t in texts(root) if needle in (t.text or "")]
    assert len(found) == 1, [t.text for t in texts(root)]
    return found[0]


def sleeping_screen() -> Snapshot:
    """passing.tsr's screen when the last wait for 'state: sleeping' matched (the
    final screen has no toolbar: the program erased it when it exited)."""
    recording = Recording.open(PASSING)
    waits = {e.id: e for e in recording.of_type(WaitStarted)}
    matched = [e for e in recording.of_type(WaitEnded)
               if "state: sleeping" in waits[e.id].predicate]
    snap = Playback(recording).screen_at(matched[-1].t)
    assert snap.lines[-1].startswith(" state: sleeping")
    return snap


def test_the_same_screen_always_gives_the_same_bytes() -> None:
    recording = Recording.open(PASSING)
    again = Recording.open(PASSING)
    for t in (0.0, 0.19, 0.6, 1.2, None):
        svg = snapshot_svg(Playback(recording).screen_at(t))
        assert svg == snapshot_svg(Playback(again).screen_at(t))
        assert svg == snapshot_svg(Playback(recording).screen_at(t))
        assert svg.endswith("</svg>\n")
        parse(svg)
    playback = Playback(recording)
    assert snapshot_svg(playback.screen_at(0.19)) != snapshot_svg(playback.screen_at(1.2))
    # Nothing that changes from run to run: no ids, no dates.
    svg = snapshot_svg(Playback(recording).screen_at(None))
    assert " id=" not in svg and "2026" not in svg


def test_reverse_video_toolbar_is_a_light_rect_behind_dark_text() -> None:
    snap = sleeping_screen()
    root = parse(snapshot_svg(snap))
    text = text_at(root, "state: sleeping")
    assert text.text == "state: sleeping"
    assert text.get("fill") == DEFAULT_BG  # reversed: the background colour as ink
    y = int(text.get("y")) - BASELINE
    assert y == (snap.rows - 1) * CELL_HEIGHT
    x = int(text.get("x"))
    assert x == CELL_WIDTH  # the toolbar starts with a blank
    assert int(text.get("textLength")) == len("state: sleeping") * CELL_WIDTH
    behind = [
        r for r in rects(root)
        if r.get("y") == str(y) and r.get("fill") == DEFAULT_FG
        and int(r.get("x")) <= x
        and int(r.get("x")) + int(r.get("width")) >= x + int(text.get("textLength"))
    ]
    assert len(behind) == 1
    # The whole bottom row is reversed: one rect, the full width.
    assert behind[0].get("x") == "0" and behind[0].get("width") == str(snap.cols * CELL_WIDTH)
    # Other looks of that screen: the bold menu entry and the blue prompt.
    assert text_at(root, "2. Light").get("font-weight") == "bold"
    prompts = [t for t in texts(root) if t.text == "❯"]
    assert prompts and all(t.get("fill") == PALETTE["blue"] for t in prompts)


def test_adjacent_cells_of_one_look_are_one_run() -> None:
    root = parse(snapshot_svg(screen(b"hello world \x1b[31mred\x1b[0m!")))
    assert [(t.text, t.get("x"), t.get("fill")) for t in texts(root)] == [
        ("hello world", "0", DEFAULT_FG),
        ("red", str(12 * CELL_WIDTH), PALETTE["red"]),
        ("!", str(15 * CELL_WIDTH), DEFAULT_FG),
    ]
    # Default background everywhere: no rect but the page's and the cursor's.
    assert [r.get("class") for r in rects(root)[1:]] == [None, "cursor"]


def test_colours_and_attributes() -> None:
    data = (
        b"\x1b[91ma\x1b[0m\x1b[38;5;21mb\x1b[0m\x1b[38;2;1;2;3mc\x1b[0m"
        b"\x1b[44md\x1b[0m\x1b[1;3;4;9me\x1b[0m\x1b[7;32;43mf\x1b[0m\x1b[?25l"
    )
    root = parse(snapshot_svg(screen(data)))
    by_char = {t.text: t for t in texts(root)}
    assert by_char["a"].get("fill") == PALETTE["brightred"]
    assert by_char["b"].get("fill") == "#0000ff"
    assert by_char["c"].get("fill") == "#010203"
    assert by_char["d"].get("fill") == DEFAULT_FG
    e = by_char["e"]
    assert (e.get("font-weight"), e.get("font-style"), e.get("text-decoration")) == (
        "bold", "italic", "underline line-through")
    # Reverse video swaps the colours: yellow ink on green.
    assert by_char["f"].get("fill") == PALETTE["brown"]
    backgrounds = {(r.get("x"), r.get("fill")) for r in rects(root)[1:]}
    assert backgrounds == {(str(3 * CELL_WIDTH), PALETTE["blue"]),
                           (str(5 * CELL_WIDTH), PALETTE["green"])}


def test_colour_names() -> None:
    assert colour("default", "#123456") == "#123456"
    assert colour("red", "#000000") == "#cd0000"
    assert colour("brightblue", "#000000") == "#5c5cff"
    assert colour("bfightmagenta", "#000000") == "#ff00ff"  # pyte's own spelling
    assert colour("ABCDEF", "#000000") == "#abcdef"
    assert colour("nonsense", "#000000") == "#000000"
    assert colour('"/><script>', "#000000") == "#000000"


def test_cursor_is_a_block_at_its_cell_and_absent_when_hidden() -> None:
    root = parse(snapshot_svg(screen(b"ab")))
    (cursor,) = [r for r in rects(root) if r.get("class") == "cursor"]
    assert (cursor.get("x"), cursor.get("y")) == (str(2 * CELL_WIDTH), "0")
    block = [r for r in rects(root) if r.get("class") is None and r.get("x") == cursor.get("x")]
    assert block and block[0].get("fill") == DEFAULT_FG
    # Over a character, the character is drawn in reverse.
    root = parse(snapshot_svg(screen(b"second\r\nabc\x1b[D")))
    (cursor,) = [r for r in rects(root) if r.get("class") == "cursor"]
    assert (cursor.get("x"), cursor.get("y")) == (str(2 * CELL_WIDTH), str(CELL_HEIGHT))
    assert [(t.text, t.get("fill")) for t in texts(root)] == [
        ("second", DEFAULT_FG), ("ab", DEFAULT_FG), ("c", DEFAULT_BG)]
    root = parse(snapshot_svg(screen(b"ab\x1b[?25l")))
    assert not [r for r in rects(root) if r.get("class") == "cursor"]
    assert len(rects(root)) == 1


def test_cursor_in_the_pending_wrap_column_stays_on_the_screen() -> None:
    snap = screen(b"x" * 10, cols=10, rows=2)
    root = parse(snapshot_svg(snap))
    (cursor,) = [r for r in rects(root) if r.get("class") == "cursor"]
    assert int(cursor.get("x")) == 9 * CELL_WIDTH


def test_wide_characters_span_two_cells() -> None:
    snap = screen("a中b\x1b[7m文\x1b[0m\x1b[?25l".encode())
    assert snap.cell(0, 2).char == ""
    root = parse(snapshot_svg(snap))
    assert [(t.text, t.get("x"), t.get("textLength")) for t in texts(root)] == [
        ("a", "0", str(CELL_WIDTH)),
        ("中", str(CELL_WIDTH), str(2 * CELL_WIDTH)),
        ("b", str(3 * CELL_WIDTH), str(CELL_WIDTH)),
        ("文", str(4 * CELL_WIDTH), str(2 * CELL_WIDTH)),
    ]
    (reverse,) = rects(root)[1:]
    assert (reverse.get("x"), reverse.get("width")) == (str(4 * CELL_WIDTH), str(2 * CELL_WIDTH))


def test_program_text_is_escaped_never_markup() -> None:
    evil = [
        "<script>alert(1)</script>",
        "</svg><svg onload=alert(1)>",
        "\"'><img src=x onerror=alert(1)>",
        "a & b <!-- c ]]>",
    ]
    snap = screen("\r\n".join(evil).encode() + b"\x1b]2;</title><script>x</script>\x07",
                  cols=40, rows=5)
    svg = snapshot_svg(snap)
    root = parse(svg)
    shown = [t.text for t in texts(root)]
    for line in evil:
        assert line.split(" ")[0] in "".join(shown)
    assert "<script>alert(1)</script>" in shown
    assert root.find(f"{NS}title").text == "</title><script>x</script>"
    tags = {el.tag for el in root.iter()}
    assert tags <= {f"{NS}{t}" for t in ("svg", "title", "rect", "g", "text")}
    for el in root.iter():
        assert not [a for a in el.attrib if a.lower().startswith("on")]
    assert "<script" not in svg and "<img" not in svg and "<svg onload" not in svg


def test_characters_xml_cannot_hold_become_replacement_characters() -> None:
    svg = snapshot_svg(screen(b"ok"), title="a\x00b\x1bc\ud800d\ufffee<")
    svg.encode("utf-8")  # no lone surrogate left
    assert parse(svg).find(f"{NS}title").text == "a\ufffdb\ufffdc\ufffdd\ufffde<"
    assert clean("tab\there\x7f\x85") == "tab\ufffdhere\ufffd\ufffd"
    assert clean("ok ❯ 中 \U0001f600") == "ok ❯ 中 \U0001f600"


def test_title_defaults_to_the_terminals() -> None:
    snap = screen(b"\x1b]2;my title\x07x")
    assert parse(snapshot_svg(snap)).find(f"{NS}title").text == "my title"
    assert parse(snapshot_svg(snap, title="other")).find(f"{NS}title").text == "other"
    assert parse(snapshot_svg(screen(b"x"))).find(f"{NS}title") is None


@pytest.mark.parametrize("when", [[], ["--end"], ["--at", "0.6"]])
def test_cli_export_writes_the_svg_of_a_moment(
    when: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "screen.svg"
    assert main(["export", str(PASSING), *when, "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    recording = Recording.open(PASSING)
    t = float(when[1]) if when and when[0] == "--at" else None
    assert out.read_text(encoding="utf-8") == snapshot_svg(Playback(recording).screen_at(t))


def test_cli_export_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(PASSING), "--at", "-1", "-o", str(tmp_path / "s.svg")]) == 2
    assert "--at" in capsys.readouterr().err
    assert main(["export", str(PASSING), "--at", "1", "-o", str(tmp_path / "s.cast")]) == 2
    assert ".svg" in capsys.readouterr().err
    assert not (tmp_path / "s.cast").exists()


# -- the drawing rules shared with the HTML report -------------------------------------------


HOSTILE = [
    "<script>alert(1)</script>",
    "\"'><img src=x onerror=alert(1)>",
    "a & b &amp; &#60; <!-- c --> ]]> </title></svg>",
    "bell\x07 esc\x1b[31m nul\x00 del\x7f c1\x85 lone\ud800 \ufffe\uffff",
    "\u2028\u2029 ok ❯ 中 \U0001f600",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_escape_leaves_no_markup_and_only_characters_xml_can_hold(text: str) -> None:
    escaped = escape(text)
    assert not set(escaped) & set("<>\"'")
    assert "&" not in escaped.replace("&amp;", "").replace("&lt;", "").replace(
        "&gt;", "").replace("&quot;", "").replace("&#39;", "")
    escaped.encode("utf-8")  # no lone surrogate
    assert html.unescape(escaped) == clean(text)
    # As an attribute value and as element text, it reads back as it was.
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" a="{escaped}" b=\'{escaped}\'>{escaped}</svg>'
    root = ET.fromstring(svg.encode("utf-8"))
    assert root.get("a") == root.get("b") == root.text == clean(text)


def test_escape_and_clean_exactly() -> None:
    assert escape("<a href='x'>\"&\"</a>") == (
        "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;")
    assert escape(42) == "42"  # anything is written as its str()
    assert escape("\x1b[31m") == "\ufffd[31m"
    assert clean("tab\there\x7f\x85\ud800\ufffe") == "tab\ufffdhere" + "\ufffd" * 4
    text = "plain ascii, nothing to do"
    assert clean(text) is text
    assert len(clean(HOSTILE[3])) == len(HOSTILE[3])  # one for one: columns still count


@pytest.mark.parametrize(
    ("name", "expected"),
    [("default", "#123456"), ("red", "#cd0000"), ("brown", "#cdcd00"),
     ("brightblue", "#5c5cff"), ("bfightmagenta", "#ff00ff"), ("ABCDEF", "#abcdef"),
     ("0a0B0c", "#0a0b0c"), ("nonsense", "#123456"), ("abcdeg", "#123456"),
     ("abcdef0", "#123456"), ('"/><script>', "#123456"), ("", "#123456")],
)
def test_colour_resolution(name: str, expected: str) -> None:
    assert colour(name, "#123456") == expected


def test_look_resolves_colours_reverse_video_and_the_cursor() -> None:
    assert look(Style()) == DEFAULT_LOOK == Look(DEFAULT_FG, DEFAULT_BG)
    styled = Style(fg="red", bg="0000ff", bold=True, italic=True, underline=True,
                   strikethrough=True, blink=True)
    assert look(styled) == Look(PALETTE["red"], "#0000ff", True, True, True, True, blink=True)
    reverse = Style(fg="red", bg="0000ff", reverse=True)
    assert look(reverse) == Look("#0000ff", PALETTE["red"])
    # The cursor shows the cell in reverse, whatever it was.
    assert look(styled, True) == Look("#0000ff", PALETTE["red"], True, True, True, True, True,
                                      blink=True)
    assert look(reverse, True) == Look(PALETTE["red"], "#0000ff", cursor=True)
    assert look(Style(), True) == Look(DEFAULT_BG, DEFAULT_FG, cursor=True)
    # Memoised, by identity, without mixing up styles.
    assert look(styled) is look(styled)
    assert look(Style(fg="red", bg="0000ff", bold=True, italic=True, underline=True,
                      strikethrough=True, blink=True)) == look(styled)


def test_look_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_draw, "_LOOKS", {})
    monkeypatch.setattr(_draw, "_MAX_LOOKS", 3)
    styles = [Style(fg=f"{i:06x}") for i in range(10)]
    for _ in range(2):
        assert [look(s).fg for s in styles] == [f"#{i:06x}" for i in range(10)]
    assert len(_draw._LOOKS) <= 3


def test_cursor_cell_is_clamped_and_absent_when_hidden() -> None:
    assert cursor_cell(screen(b"ab")) == (0, 2)
    assert cursor_cell(screen(b"x" * 10, cols=10)) == (0, 9)  # the pending wrap
    assert cursor_cell(screen(b"ab\x1b[?25l")) is None


def test_drawn_runs_lay_the_cursor_over_the_row() -> None:
    red, plain = Style(fg="red"), Style()
    runs = (Run(0, "ab", plain, 2), Run(2, "cde", red, 3), Run(5, "中", red, 2, wide=True))
    assert drawn_runs(runs) == [
        DrawnRun(0, 2, "ab", DEFAULT_LOOK), DrawnRun(2, 3, "cde", look(red)),
        DrawnRun(5, 2, "中", look(red), True)]
    # Inside a run: the run is cut around the cursor's cell.
    assert drawn_runs(runs, 3) == [
        DrawnRun(0, 2, "ab", DEFAULT_LOOK), DrawnRun(2, 1, "c", look(red)),
        DrawnRun(3, 1, "d", look(red, True)), DrawnRun(4, 1, "e", look(red)),
        DrawnRun(5, 2, "中", look(red), True)]
    assert drawn_runs(runs, 0)[:2] == [
        DrawnRun(0, 1, "a", look(plain, True)), DrawnRun(1, 1, "b", DEFAULT_LOOK)]
    # On either half of a wide character: all of it.
    for col in (5, 6):
        assert drawn_runs(runs, col)[-1] == DrawnRun(5, 2, "中", look(red, True), True)
    # Past the end: the default blanks up to the cursor are drawn.
    assert drawn_runs(runs, 7)[-1] == DrawnRun(7, 1, " ", look(plain, True))
    assert drawn_runs(runs, 9)[-2:] == [
        DrawnRun(7, 2, "  ", DEFAULT_LOOK), DrawnRun(9, 1, " ", look(plain, True))]
    assert drawn_runs((), 2) == [
        DrawnRun(0, 2, "  ", DEFAULT_LOOK), DrawnRun(2, 1, " ", look(plain, True))]
    assert drawn_runs((), 0) == [DrawnRun(0, 1, " ", look(plain, True))]
    # Text is cleaned (one for one), never escaped.
    assert drawn_runs((Run(0, "<\x1b>", plain, 3),)) == [DrawnRun(0, 3, "<\ufffd>", DEFAULT_LOOK)]


def reference_row(snap: Snapshot, row: int, cursor: tuple[int, int] | None) -> list[
        tuple[int, int, str, Look]]:
    """A row drawn a cell at a time from ``Snapshot.cell``: how the SVG did it
    before rows came as runs (the rule ``drawn_row`` must keep)."""
    cells = [snap.cell(row, c) for c in range(snap.cols)]
    out = []
    c = 0
    while c < snap.cols:
        char = cells[c].char
        width = 2 if c + 1 < snap.cols and cells[c + 1].char == "" and char != "" else 1
        is_cursor = cursor is not None and cursor[0] == row and c <= cursor[1] < c + width
        out.append((c, width, clean(char or " "), look(cells[c].style, is_cursor)))
        c += width
    return out


def cells_of(runs: list[DrawnRun]) -> list[tuple[int, int, str, Look]]:
    out = []
    for run in runs:
        if run.wide or run.width == 1:
            out.append((run.col, run.width, run.text, run.look))
        else:
            assert len(run.text) == run.width
            out.extend((run.col + i, 1, ch, run.look) for i, ch in enumerate(run.text))
    return out


def check_drawn_rows(snap: Snapshot) -> None:
    cursor = cursor_cell(snap)
    for row in range(snap.rows):
        drawn = cells_of(drawn_row(snap, row, cursor))
        reference = reference_row(snap, row, cursor)
        assert reference[:len(drawn)] == drawn
        assert all(cell[2:] == (" ", DEFAULT_LOOK) for cell in reference[len(drawn):])


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_drawn_rows_match_the_cell_by_cell_rule_in_the_recordings(path: Path) -> None:
    for snap in sampled_screens(path):
        check_drawn_rows(snap)


def test_drawn_rows_match_the_cell_by_cell_rule_with_wide_characters() -> None:
    for moves in (b"", b"\x1b[1;3H", b"\x1b[1;4H", b"\x1b[1;12H", b"\x1b[2;1H", b"\x1b[3;8H"):
        term = Terminal(12, 3)
        term.feed("a中\x1b[4m文x\u0301\x1b[m\x1b[7m 字 \x1b[m\r\n\x1b[41m😀 \x1b[K\x1b[m".encode()
                  + moves)
        check_drawn_rows(term.screen)


def test_renderers_see_a_screen_only_through_its_public_reading() -> None:
    """No renderer reads a snapshot's storage or pyte's characters: rows come
    from ``Snapshot.runs``, and only ``_draw`` resolves how they look."""
    for module in (_draw, _svg, _html, html_screens, html_assets):
        source = inspect.getsource(module)
        assert "import pyte" not in source and "from pyte" not in source
        assert "._cells" not in source and "._default" not in source
    # One palette and one escaping function, _draw's.
    assert "def colour" not in inspect.getsource(_svg)
    assert "&amp;" not in inspect.getsource(_svg) + inspect.getsource(_html)
