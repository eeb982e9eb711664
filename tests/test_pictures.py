"""Screens as PNG pictures: every attribute drawn at its cells (checked pixel by
pixel), the same bytes on every run and from a replay as from the live session,
a wait's screen outlined and captioned, the command, and what happens without
Pillow."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from functools import partial
from pathlib import Path

import helpers
import pytest
from conftest import program

import termsim
from termsim import Text
from termsim.cli import main
from termsim.engine.playback import Playback
from termsim.errors import RecordingError
from termsim.recording.format import Recording
from termsim.report import picture
from termsim.report.draw import DEFAULT_BG, DEFAULT_FG, blend
from termsim.report.picture import (
    CAPTION_BG,
    FAILED,
    MATCHED,
    Geometry,
    PicturesUnavailable,
    snapshot_png,
)
from termsim.report.picture_moments import (
    failure_moment,
    time_moment,
    wait_moment,
    write_failure_picture,
)
from termsim.report.steps import Outline

Image = pytest.importorskip("PIL.Image", reason="pictures need Pillow (the test extra has it)")

ROOT = Path(__file__).resolve().parent.parent
CPR = ROOT / "recordings" / "cpr-starvation.tsr"
PASSING = ROOT / "recordings" / "passing.tsr"
BOOT_HANG = ROOT / "recordings" / "boot-hang.tsr"
#: The picture the README shows, made from boot-hang.tsr by the test below.
README_PICTURE = ROOT / "docs" / "boot-hang-failed.png"
G = Geometry.at(1.0)


screen = partial(helpers.screen, cols=24, rows=8)


def pixels(png: bytes) -> object:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.mode == "RGB"
    return image


def images_made(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The size of every picture Pillow makes from now on (a cap holds
    before anything that large is allocated)."""
    made: list[tuple[int, int]] = []
    new = Image.new
    monkeypatch.setattr(Image, "new", lambda mode, size, *a: made.append(size) or new(
        mode, size, *a))
    return made


def rgb(colour: str) -> tuple[int, int, int]:
    return picture.rgb(colour)


def cell(col: int, row: int) -> tuple[int, int]:
    """The top left pixel of a cell."""
    return G.padding + col * G.cell_width, G.padding + row * G.cell_height


def centre(col: int, row: int) -> tuple[int, int]:
    x, y = cell(col, row)
    return x + G.cell_width // 2, y + G.cell_height // 2


def ink(image: object, col: int, row: int, colour: tuple[int, int, int]) -> int:
    """Pixels of exactly ``colour`` in a cell."""
    x0, y0 = cell(col, row)
    return sum(1 for x in range(x0, x0 + G.cell_width) for y in range(y0, y0 + G.cell_height)
               if image.getpixel((x, y)) == colour)  # type: ignore[attr-defined]


# -- every attribute, at its cells ---------------------------------------------------------

ATTRIBUTES = (
    b"\x1b[31m\xe2\x96\x88"  # (0, 0) a red full block
    b"\x1b[0;38;2;255;128;0m\xe2\x96\x88"  # (1, 0) a 24-bit colour
    b"\x1b[0;2m\xe2\x96\x88"  # (2, 0) dim
    b"\x1b[0;8m\xe2\x96\x88"  # (3, 0) invisible
    b"\x1b[0;44m "  # (4, 0) a blue background
    b"\x1b[0;7m "  # (5, 0) reverse video of a blank
    b"\x1b[0;7;31m "  # (6, 0) reverse video of red
    b"\x1b[0m\r\n"
    b"\x1b[4m    \x1b[0m "  # (0-3, 1) underline
    b"\x1b[4:2m    \x1b[0m "  # (5-8, 1) double
    b"\x1b[4:3m    \x1b[0m "  # (10-13, 1) curly
    b"\x1b[4:4m    \x1b[0m "  # (15-18, 1) dotted
    b"\x1b[4:5m    \x1b[0m\r\n"  # (20-23, 1) dashed
    b"\x1b[4;58;2;0;128;255m    \x1b[0m "  # (0-3, 2) an underline's own colour
    b"\x1b[9m    \x1b[0m\r\n"  # (5-8, 2) strikethrough
    b"M M \x1b[1mM\x1b[0m I \x1b[3mI\x1b[0m\r\n"  # (0, 2, 4, 6, 8; 3) plain, bold, italic
    b"\xe4\xb8\xad e\xcc\x81\r\n"  # (0-1, 4) a wide character; (3, 4) e and a mark
    b"\x1b[6;4H"  # the cursor at (3, 5)
)


def test_every_attribute_is_drawn_at_its_cells() -> None:
    snap = screen(ATTRIBUTES)
    assert (G.cell_width, G.cell_height, G.baseline, G.line) == (9, 18, 14, 1)  # as the SVG
    image = pixels(snapshot_png(snap, caption="a caption",
                                outlines=[Outline(6, 10, 7, 14, "a region")]))
    width, height = image.size
    assert width == 24 * 9 + 16 and height == 8 * 18 + 16 + 18 + 8
    get = image.getpixel
    # Colours inside a glyph's box, and backgrounds.
    assert get(centre(0, 0)) == rgb("#cd0000")
    assert get(centre(1, 0)) == (255, 128, 0)
    assert get(centre(2, 0)) == rgb(blend(DEFAULT_FG, DEFAULT_BG))
    assert get(centre(3, 0)) == rgb(DEFAULT_BG)  # invisible: the background only
    assert get(cell(4, 0)) == get(centre(4, 0)) == rgb("#0000ee")
    assert get(centre(5, 0)) == rgb(DEFAULT_FG)  # reversed: the foreground as background
    assert get(centre(6, 0)) == rgb("#cd0000")
    assert get(centre(7, 0)) == get(centre(20, 7)) == get((1, 1)) == rgb(DEFAULT_BG)
    # Underlines: the row under the baseline, in the style's pattern and colour.
    x, top = cell(0, 1)
    under = top + G.baseline + G.line
    assert [get((x + i, under)) for i in range(4 * 9)] == [rgb(DEFAULT_FG)] * 36
    assert get((x + 4, under - 1)) == get((x + 4, under + 1)) == rgb(DEFAULT_BG)
    x = cell(5, 1)[0]
    assert [get((x + 4, y)) for y in range(top + 14, top + 18)] == [
        rgb(DEFAULT_BG), rgb(DEFAULT_FG), rgb(DEFAULT_BG), rgb(DEFAULT_FG)]  # double
    x = cell(10, 1)[0]
    curly = [next((y for y in range(top + 12, top + 18) if get((x + i, y)) == rgb(DEFAULT_FG)),
                  None) for i in range(0, 36, 2)]
    assert None not in curly and len(set(curly)) == 2  # a wave: two heights in turn
    x = cell(15, 1)[0]
    assert [get((x + i, under)) == rgb(DEFAULT_FG) for i in range(6)] == [
        True, False, True, False, True, False]  # dotted
    x = cell(20, 1)[0]
    assert [get((x + i, under)) == rgb(DEFAULT_FG) for i in range(10)] == [
        True, True, True, False, False] * 2  # dashed
    x, top = cell(0, 2)
    assert get((x + 3, top + G.baseline + G.line)) == (0, 128, 255)  # SGR 58
    x = cell(5, 2)[0]
    strike = top + G.baseline - round(G.baseline * 0.3)
    assert get((x + 3, strike)) == rgb(DEFAULT_FG) != get((x + 3, strike + 2))
    # Bold has more ink than plain; italic leans right (its top right of its foot).
    plain, bold = (ink(image, col, 3, rgb(DEFAULT_FG)) for col in (2, 4))
    assert ink(image, 0, 3, rgb(DEFAULT_FG)) == plain and bold > plain * 1.2
    assert _lean(image, 6, 3) == 0 and _lean(image, 8, 3) >= 2
    # A wide character the font lacks: one box over both its cells; the mark on its base.
    x, top = cell(0, 4)
    mid = top + G.cell_height // 2
    assert get((x + 1, mid)) == get((x + 2 * 9 - 2, mid)) == rgb(DEFAULT_FG)
    assert get((x + 9, mid)) == rgb(DEFAULT_BG)  # a box, not two
    assert ink(image, 2, 4, rgb(DEFAULT_FG)) == 0
    assert _rows_with_ink(image, 3, 4) > _rows_with_ink(image, 3, 0, text_row=3)
    # The cursor: its cell in reverse video, outlined; the next cell untouched.
    assert get(centre(3, 5)) == rgb(DEFAULT_FG) and get(centre(4, 5)) == rgb(DEFAULT_BG)
    # The outline, around the cells (not over them), and the caption under the screen.
    x, top = cell(10, 6)
    assert get((x - 1, top + 9)) == get((x - 2, top + 9)) == rgb(FAILED)
    assert get((x - 3, top + 9)) == get((x, top + 9)) == rgb(DEFAULT_BG)
    assert get((x + 4, top - 1)) == get((x + 4, top + 18)) == rgb(FAILED)
    assert get((x + 4, top)) == get((x + 4, top + 17)) == rgb(DEFAULT_BG)
    assert get((cell(14, 6)[0], top + 9)) == rgb(FAILED)
    band = 8 * 18 + 16
    assert get((1, band + 1)) == get((width - 2, height - 2)) == rgb(CAPTION_BG)
    caption_ink = [get((x, y)) for x in range(8, 80) for y in range(band, height)]
    assert rgb(FAILED) in caption_ink  # the caption is in the outline's colour


def _lean(image: object, col: int, row: int) -> int:
    """How far right the ink of a glyph's top row sits from its bottom row's."""
    x0, y0 = cell(col, row)
    rows = [[x for x in range(x0 - 4, x0 + 13)
             if sum(image.getpixel((x, y))) > 300]  # type: ignore[attr-defined]
            for y in range(y0, y0 + G.cell_height)]
    inked = [r for r in rows if r]
    return round(sum(inked[0]) / len(inked[0]) - sum(inked[-1]) / len(inked[-1]))


def _rows_with_ink(image: object, col: int, row: int, text_row: int | None = None) -> int:
    """Pixel rows of a cell with any light pixel (an e with an accent is taller than an M)."""
    x0, y0 = cell(col, row if text_row is None else text_row)
    return sum(1 for y in range(y0, y0 + G.cell_height)
               if any(sum(image.getpixel((x, y))) > 300  # type: ignore[attr-defined]
                      for x in range(x0, x0 + G.cell_width)))


def test_a_hidden_cursor_is_not_drawn_and_one_past_the_last_column_is() -> None:
    hidden = pixels(snapshot_png(screen(b"\x1b[?25l\x1b[2;3H")))
    assert hidden.getpixel(centre(2, 1)) == rgb(DEFAULT_BG)
    wrapped = pixels(snapshot_png(screen(b"x" * 24)))  # the cursor waits past column 23
    assert wrapped.getpixel(cell(23, 0)) == rgb(DEFAULT_FG)


def test_scale_makes_cells_larger_and_is_bounded() -> None:
    double = pixels(snapshot_png(screen(b"\x1b[41m  "), scale=2))
    g = Geometry.at(2)
    assert double.size == (24 * g.cell_width + 2 * g.padding, 8 * g.cell_height + 2 * g.padding)
    assert g.cell_width == 18 and g.cell_height > 2 * 18 - 3
    assert double.getpixel((g.padding + g.cell_width + 5, g.padding + 5)) == rgb("#cd0000")
    for bad in (0.1, 5, float("nan")):
        with pytest.raises(termsim.ArgumentError, match="scale"):
            snapshot_png(screen(b""), scale=bad)


def test_the_text_of_a_caption_is_made_visible_and_cut_to_the_width() -> None:
    cells = picture.caption_cells("a\x1b[31mb\u202ec", 40)
    assert "".join(c for _, c, _ in cells) == "aESC[31mb\\u202ec"
    cut = picture.caption_cells("x" * 50, 10)
    assert [c for _, c, _ in cut] == ["x"] * 9 + ["…"] and cut[-1][0] == 9
    wide = picture.caption_cells("中文中文中文", 5)
    assert [(col, c) for col, c, _ in wide] == [(0, "中"), (2, "文"), (4, "…")]
    assert picture.caption_cells("e\u0301", 5) == [(0, "e\u0301", 1)]


def test_the_glyphs_a_painter_keeps_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(picture, "MAX_GLYPHS", 4)
    painter = picture.Painter(24, 8)
    painter.paint(screen("".join(map(chr, range(0x41, 0x41 + 20))).encode()))
    assert 0 < len(painter._glyphs) <= 4


# -- the font --------------------------------------------------------------------------------


def test_the_font_is_shipped_with_its_licence() -> None:
    """The pictures' font is package data (found with importlib.resources, as
    an installed wheel has it), each face what its name says, its licence beside."""
    import tomllib
    from importlib import resources

    fonts = resources.files("termsim.report").joinpath("fonts")
    names = {(bold, italic): picture.font(bold, italic, 15).getname()
             for bold, italic in picture.FONT_FILES}
    assert names == {(False, False): ("DejaVu Sans Mono", "Book"),
                     (True, False): ("DejaVu Sans Mono", "Bold"),
                     (False, True): ("DejaVu Sans Mono", "Oblique"),
                     (True, True): ("DejaVu Sans Mono", "Bold Oblique")}
    assert all(fonts.joinpath(name).is_file() for name in picture.FONT_FILES.values())
    licence = fonts.joinpath("LICENSE").read_text()
    assert "Bitstream Vera Fonts Copyright" in licence and "DejaVu changes are in public domain" \
        in licence
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license-files"] == ["termsim/report/fonts/LICENSE"]
    assert project["license"] == "MIT AND Bitstream-Vera"
    assert project["optional-dependencies"]["pictures"] == ["pillow>=10.1"]
    assert "pillow>=10.1" in project["optional-dependencies"]["test"]


# -- the same bytes --------------------------------------------------------------------------


def test_the_same_screen_gives_the_same_bytes_in_every_process() -> None:
    snap = Playback(Recording.open(PASSING)).screen_at(1.2)
    png = snapshot_png(snap)
    assert png == snapshot_png(snap)
    assert png != snapshot_png(Playback(Recording.open(PASSING)).screen_at(0.19))
    code = ("import sys; from termsim.engine.playback import Playback; "
            "from termsim.report.picture import snapshot_png; "
            f"sys.stdout.buffer.write(snapshot_png(Playback({str(PASSING)!r}).screen_at(1.2)))")
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60,
                           check=True).stdout
    assert again == png
    assert b"tIME" not in png and b"tEXt" not in png  # no date, no metadata


@pytest.mark.anyio
async def test_a_replay_gives_the_live_sessions_pictures(tmp_path: Path) -> None:
    """The screens a live session's waits returned, and its final screen, give
    the same PNG bytes as the recording's replayed screens."""
    path = tmp_path / "styled.tsr"
    async with termsim.spawn(program("styled_echo.py"), cols=30, rows=6, record=path) as term:
        ready = await term.wait_for(Text("READY>"))
        await term.type("hello")
        typed = await term.wait_for(Text("hello"))
        await term.press("enter")
        await term.type("x")
        last = await term.wait_for(Text("> x"))
    recording = Recording.open(path)
    assert [w.outcome for w in recording.waits()] == ["matched"] * 3
    for n, live in enumerate((ready, typed, last), start=1):
        replayed = wait_moment(recording, n)
        assert snapshot_png(replayed.screen) == snapshot_png(live), n
        assert replayed.caption.endswith(f"wait {n} matched after "
                                         f"{replayed.t - recording.waits()[n - 1].start:.3f} "
                                         f"s: {recording.waits()[n - 1].predicate}")
    colours = {pixels(snapshot_png(typed)).getpixel(centre(col, 0)) for col in range(7, 12)}
    assert len(colours) > 1  # each key in a colour of its own, as the program drew it


# -- a wait's screen ------------------------------------------------------------------------


def test_the_failed_waits_screen_is_outlined_and_captioned() -> None:
    recording = Recording.open(CPR)
    moment = wait_moment(recording)
    failed = recording.waits()[1]
    assert moment.colour == FAILED and moment.t == failed.end
    assert moment.caption == (f"{failed.end:.3f} s  wait 2 timed out after "
                              f"{failed.end - failed.start:.3f} s: text 'state:' in the "
                              "bottom row")
    assert moment.outlines == (Outline(23, 0, 24, 80, "the bottom row"),)
    assert "WARNING" in moment.screen.text  # the screen it ended on, not the final one
    image = pixels(snapshot_png(moment.screen, caption=moment.caption, outlines=moment.outlines))
    x, y = cell(0, 23)
    assert image.getpixel((x - 1, y + 9)) == rgb(FAILED)
    assert image.getpixel((cell(80, 23)[0], y + 9)) == rgb(FAILED)
    matched = wait_moment(recording, 1)
    assert matched.colour == MATCHED and matched.outlines == (Outline(0, 0, 24, 80,
                                                                      "the screen"),)
    assert "matched" in matched.caption and "WARNING" not in matched.screen.text


def test_a_failed_tests_picture_is_written_beside_its_recording(tmp_path: Path) -> None:
    path = tmp_path / "test_x.tsr"
    shutil.copy(CPR, path)
    written = write_failure_picture(path)
    assert written == tmp_path / "test_x.png"
    moment = wait_moment(Recording.open(CPR))
    assert written.read_bytes() == snapshot_png(moment.screen, caption=moment.caption,
                                                outlines=moment.outlines)
    # No wait failed (an assert after the session): the final screen, with its time.
    shutil.copy(PASSING, path)
    final = failure_moment(Recording.open(path))
    assert final.caption.endswith("s  the final screen") and not final.outlines
    assert write_failure_picture(path) == written
    assert written.read_bytes() == snapshot_png(final.screen, caption=final.caption)
    path.write_bytes(b"not a recording")
    with pytest.raises(RecordingError):
        write_failure_picture(path)


# -- the command ------------------------------------------------------------------------------


@pytest.mark.parametrize("when", [[], ["--end"], ["--at", "0.6"], ["--wait", "2"], ["--failed"]])
def test_export_writes_the_png_of_a_moment(when: list[str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "screen.png"
    assert main(["export", str(CPR), *when, "-o", str(out)]) == 0
    recording = Recording.open(CPR)
    if when and when[0] in ("--wait", "--failed"):
        moment = wait_moment(recording, 2 if when[0] == "--wait" else None)
        assert capsys.readouterr().err.strip() == f"wrote {out}: {moment.caption}"
    else:
        moment = time_moment(recording, float(when[1]) if when[:1] == ["--at"] else None)
        assert "wrote" in capsys.readouterr().err
    assert out.read_bytes() == snapshot_png(moment.screen, caption=moment.caption,
                                            outlines=moment.outlines)


@pytest.mark.parametrize(("name", "argv", "says"), [
    ("s.png", ["--wait", "3"], "--wait takes 1 to 2"),
    ("s.png", ["--wait", "0"], "--wait takes 1 to 2"),
    ("s.png", ["--scale", "9"], "--scale takes a number from 0.5 to 4"),
    ("s.png", ["--max-frames", "9"], "are for .gif"),
    ("s.png", ["--at", "99"], "past the end"),
    ("s.gif", ["--at", "1"], "--at is for .svg and .png"),
    ("s.gif", ["--failed"], "a .gif ends on the failed wait's screen by itself"),
    ("s.gif", ["--max-seconds", "0.5"], "--max-seconds takes a number from 1 to 600"),
    ("s.gif", ["--max-frames", "1"], "--max-frames takes a number from 2 to 2000"),
    ("s.gif", ["--idle-limit", "inf"], "--idle-limit takes a number"),
])
def test_export_picture_usage_errors(name: str, argv: list[str], says: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / name
    assert main(["export", str(CPR), *argv, "-o", str(out)]) == 2
    assert says in capsys.readouterr().err
    assert not out.exists()


def test_failed_on_a_recording_without_a_failed_wait_says_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(PASSING), "--failed", "-o", str(tmp_path / "s.png")]) == 2
    err = capsys.readouterr().err
    assert "no wait of this recording failed" in err and "--wait N" in err
    assert main(["export", str(PASSING), "--wait", "1", "-o", str(tmp_path / "s.svg")]) == 2
    assert "--wait and --failed are for .png" in capsys.readouterr().err


# -- without Pillow --------------------------------------------------------------------------


def test_without_pillow_every_picture_says_how_to_install_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)  # `import PIL...` now fails, as uninstalled
    for name in ("s.png", "s.gif"):
        assert main(["export", str(CPR), "-o", str(tmp_path / name)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("termsim export: PNG and GIF pictures are drawn with Pillow")
        assert err.rstrip().endswith("install it with: pip install 'termsim[pictures]'")
        assert len(err.strip().splitlines()) == 1 and not (tmp_path / name).exists()
    with pytest.raises(PicturesUnavailable, match=r"pip install 'termsim\[pictures\]'"):
        snapshot_png(screen(b"x"))
    path = tmp_path / "t.tsr"
    shutil.copy(CPR, path)
    assert write_failure_picture(path) is None and not path.with_suffix(".png").exists()
    assert main(["export", str(CPR), "-o", str(tmp_path / "s.svg")]) == 0  # the rest works


# -- a stranger's recording -------------------------------------------------------------------


def test_a_screen_too_large_for_a_picture_is_refused_before_it_is_drawn(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from termsim.events import End, Output
    from termsim.recording.format import RecordingWriter, make_header

    path = tmp_path / "huge.tsr"
    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=1000, rows=1000,
                                               env={}))
    writer.write(Output(0.1, b"\x1b#8"))  # DECALN: every cell an E
    writer.write(End(0.2, "closed"))
    assert picture.MAX_PICTURE_CELLS < 1000 * 1000
    made = images_made(monkeypatch)
    for name in ("s.png", "s.gif"):
        assert main(["export", str(path), "-o", str(tmp_path / name)]) == 1
        err = capsys.readouterr().err
        assert "1000x1000 screen would draw 1,000,000 cells" in err and ".svg or .html" in err
    assert all(w * h <= picture.MAX_PICTURE_PIXELS for w, h in made)
    assert not made  # refused before any picture was made
    # Within the cells, past the pixels: the scale that fits is named, and fits.
    big = screen(b"", cols=200, rows=100)
    with pytest.raises(picture.PictureTooLarge, match=r"give --scale ([\d.]+) or less") as raised:
        snapshot_png(big, scale=3)
    fits = float(re.search(r"--scale ([\d.]+)", str(raised.value))[1])  # type: ignore[index]
    assert 1 < fits < 3 and snapshot_png(big, scale=fits)


def test_a_crafted_recordings_words_reach_the_terminal_as_one_visible_line(
        tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The caption quotes a wait's words (a stranger's); the line that says
    what was written shows them made visible, on one line, whatever they hold."""
    from test_cli_untrusted import EVIL_NAME, controls, craft

    path = os.path.join(os.fsdecode(bytes(tmp_path)), os.fsdecode(EVIL_NAME))
    craft(path)
    assert "\n" in Recording.open(path).waits()[-1].predicate
    for argv in (["-o", path + ".png"], ["--failed", "-o", path + ".png"],
                 ["-o", path + ".gif"]):
        assert main(["export", path, *argv]) == 0, argv
        out, err = capsysbinary.readouterr()
        assert controls(out + err) == [] and len(err.strip().splitlines()) == 1, err


def test_the_readme_picture_is_what_termsim_draws(tmp_path: Path) -> None:
    """docs/boot-hang-failed.png, which the README shows, is the failed wait
    of recordings/boot-hang.tsr as the plugin and ``export --failed`` draw
    it. Missing, it is drawn here (and the test fails: commit it); after a
    change to the drawing (or the recording), regenerate it:
    termsim export recordings/boot-hang.tsr --failed -o docs/boot-hang-failed.png"""
    regenerate = ("termsim export recordings/boot-hang.tsr --failed -o "
                  "docs/boot-hang-failed.png")
    if not README_PICTURE.exists():
        assert main(["export", str(BOOT_HANG), "--failed", "-o", str(README_PICTURE)]) == 0
        pytest.fail(f"docs/boot-hang-failed.png was missing: drawn now ({regenerate}); "
                    "commit it, the README shows it")
    out = tmp_path / "now.png"
    assert main(["export", str(BOOT_HANG), "--failed", "-o", str(out)]) == 0
    with Image.open(README_PICTURE) as shown_file, Image.open(out) as now_file:
        shown, now = shown_file.convert("RGB"), now_file.convert("RGB")
    assert shown.size == now.size and shown.tobytes() == now.tobytes(), (
        f"docs/boot-hang-failed.png is not what termsim draws now; regenerate it with: "
        f"{regenerate}")
    # What a reader sees: the failed wait's caption, in red, under the screen.
    moment = wait_moment(Recording.open(BOOT_HANG))
    assert "timed out" in moment.caption and moment.colour == FAILED and moment.outlines


#: The pictures tests draw (each checked against what termsim draws now).
DRAWN_BY_TESTS = {README_PICTURE}


def test_the_readme_shows_only_pictures_a_test_draws_and_the_failure_picture() -> None:
    """Every picture the README shows is a file of the checkout that a test
    draws (so none goes stale), and its section on a failed test shows the
    one the plugin draws beside a failed recording."""
    readme = (ROOT / "README.md").read_text()
    shown = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", readme) + re.findall(
        r"<img[^>]*\ssrc=\"([^\"]+)\"", readme)
    assert {ROOT / path for path in shown} <= DRAWN_BY_TESTS, shown
    section = readme[readme.index("## In a pytest suite"):]
    section = section[:section.index("\n## ", 1)]
    assert "docs/boot-hang-failed.png" in section, (
        "README.md's pytest section should show docs/boot-hang-failed.png, the picture of "
        "a failed test's screen")
