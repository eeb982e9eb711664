"""The pytest plugin draws the PNG of each failed test's screen beside its
recording and names it in the failure report (under xdist too), from the
outside: pytest running pytest against tests that drive real programs in
PTYs. The picture is checked pixel by pixel, not only for being there;
``--termsim-pictures=no`` (or the ini setting) turns it off, a bad value is
one usage error, and without Pillow no test fails for it and the run says
once how to install it."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from termsim.recording.format import Recording
from termsim.report import picture
from termsim.report.draw import DEFAULT_BG, DEFAULT_FG
from termsim.report.picture import CAPTION_BG, FAILED, INSTALL, Geometry, snapshot_png
from termsim.report.picture_moments import failure_moment

Image = pytest.importorskip("PIL.Image", reason="pictures need Pillow (the test extra has it)")

# A red word, then a wait for what never comes: the picture shows the
# screen the wait timed out on, outlined in red, with the wait in its caption.
FAILING = '''
import pytest, termsim
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_waits_for_ever():
    async with termsim.spawn(["sh", "-c", "printf '\\\\033[31mbooting\\\\033[0m\\\\n'; read x"],
                             cols=30, rows=5) as term:
        await term.wait_for(Text("booting"), timeout=10)
        await term.wait_for(Text("ready"), timeout=0.3)
'''

# A fixture whose own wait fails (the setup's report), a program that never
# starts (no picture: its screen is empty, the report says why), and a test
# that passes (no picture, its recording deleted).
OTHERS = '''
import pytest, termsim
from termsim import Text

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.fixture
async def never_ready():
    async with termsim.spawn(["sh", "-c", "echo booting; read x"], cols=30, rows=5) as term:
        await term.wait_for(Text("ready"), timeout=0.3)
        yield term

@pytest.mark.anyio
async def test_setup_fails(never_ready):
    pass

@pytest.mark.anyio
async def test_typo():
    async with termsim.spawn(["termsim-no-such-program"]):
        pass

@pytest.mark.anyio
async def test_passes():
    async with termsim.spawn(["sh", "-c", "echo hello"], cols=30, rows=5) as term:
        await term.wait_for(Text("hello"), timeout=10)
'''

G = Geometry.at(1.0)
RED = picture.rgb("#cd0000")


def pngs(where: Path) -> list[str]:
    return sorted(p.name for p in where.glob("*.png"))


def picture_lines(text: str) -> dict[str, str]:
    """Each ``recording:`` line's path, and what the line after it says of
    its picture ("" for none)."""
    lines = text.splitlines()
    out = {}
    for k, line in enumerate(lines):
        if line.startswith("recording: "):
            after = lines[k + 1] if k + 1 < len(lines) else ""
            out[line.removeprefix("recording: ")] = after.removeprefix("  picture: ") \
                if after.startswith("  picture: ") else ""
    return out


def cell_ink(image: Any, col: int, row: int, colour: tuple[int, int, int]) -> int:
    """Pixels of a cell of the screen inked in ``colour``: more than half
    of it over the background, and of its hue (a glyph's edges are blends)."""
    bg = picture.rgb(DEFAULT_BG)
    ink = [c - b for c, b in zip(colour, bg, strict=True)]
    norm = sum(i * i for i in ink)
    x0, y0 = G.padding + col * G.cell_width, G.padding + row * G.cell_height
    count = 0
    for x in range(x0, x0 + G.cell_width):
        for y in range(y0, y0 + G.cell_height):
            off = [c - b for c, b in zip(image.getpixel((x, y)), bg, strict=True)]
            a = sum(o * i for o, i in zip(off, ink, strict=True)) / norm
            residual = sum((o - a * i) ** 2 for o, i in zip(off, ink, strict=True))
            count += a > 0.5 and residual < 0.05 * norm
    return count


def check_failed_screen(png: Path, recording: Path, word: str, colour: tuple[int, int, int],
                        awaited: str) -> None:
    """``png`` is the picture of ``recording``'s failed wait: the bytes
    termsim draws of that screen, and, pixel by pixel, ``word`` in
    ``colour`` on the first row, the rest of the screen blank, the region
    (the whole screen) outlined in red, and the wait in the caption."""
    moment = failure_moment(Recording.open(recording))
    assert png.read_bytes() == snapshot_png(moment.screen, caption=moment.caption,
                                            outlines=moment.outlines)
    assert re.fullmatch(rf"[\d.]+ s  wait \d+ timed out after [\d.]+ s: text '{awaited}' in the "
                        "screen", moment.caption), moment.caption
    with Image.open(png) as opened:
        assert opened.format == "PNG"
        image = opened.convert("RGB")
    band = 5 * G.cell_height + 2 * G.padding
    assert image.size == (30 * G.cell_width + 2 * G.padding, band + G.cell_height + G.padding)
    # The word's letters in their colour (not another's), nothing after it,
    # the rows below blank.
    assert all(cell_ink(image, col, 0, colour) > 10 for col in range(len(word)))
    others = [c for c in (RED, picture.rgb("#00cd00"), picture.rgb(DEFAULT_FG)) if c != colour]
    assert not any(cell_ink(image, col, 0, other) for col in range(len(word)) for other in others)
    assert cell_ink(image, len(word) + 1, 0, colour) == 0
    for row in (2, 3, 4):
        assert all(image.getpixel((x, G.padding + row * G.cell_height + 9)) == picture.rgb(
            DEFAULT_BG) for x in range(G.padding, G.padding + 30 * G.cell_width, 3)), row
    # The cursor waits at the start of row 1, in reverse video.
    assert image.getpixel((G.padding + 4, G.padding + G.cell_height + 9)) == picture.rgb(
        DEFAULT_FG)
    # "In the screen": the whole screen outlined, round its cells, in red.
    right = G.padding + 30 * G.cell_width
    for x, y in ((G.padding - 1, 40), (right, 40), (100, G.padding - 1),
                 (100, G.padding + 5 * G.cell_height)):
        assert image.getpixel((x, y)) == picture.rgb(FAILED), (x, y)
    # The caption: the wait, in the outline's red, on its own band.
    assert image.getpixel((2, band + 2)) == picture.rgb(CAPTION_BG)
    caption = [image.getpixel((x, y)) for x in range(G.padding, right)
               for y in range(band, image.size[1])]
    assert caption.count(picture.rgb(FAILED)) > 100


def test_a_failed_tests_report_names_the_png_of_its_failed_screen(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=FAILING, test_others=OTHERS)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=2, errors=1)
    where = pytester.path / ".termsim"
    app, setup = "test_app.py__test_waits_for_ever", "test_others.py__test_setup_fails"
    assert pngs(where) == [f"{app}.png", f"{setup}.png"]
    shown = picture_lines(result.stdout.str())
    assert shown == {f".termsim/{app}.tsr": f".termsim/{app}.png",
                     f".termsim/{setup}.tsr": f".termsim/{setup}.png",
                     ".termsim/test_others.py__test_typo.tsr": ""}
    check_failed_screen(where / f"{app}.png", where / f"{app}.tsr", "booting", RED, "ready")
    check_failed_screen(where / f"{setup}.png", where / f"{setup}.tsr", "booting",
                        picture.rgb(DEFAULT_FG), "ready")
    assert "termsim pictures" not in result.stdout.str()  # Pillow is there: nothing to say


def test_a_tests_old_picture_goes_with_its_old_recording(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=FAILING)
    where = pytester.path / ".termsim"
    pytester.runpytest().assert_outcomes(failed=1)
    assert pngs(where) == ["test_app.py__test_waits_for_ever.png"]
    (where / "test_app.py__test_waits_for_ever-2.png").write_bytes(b"an earlier attempt's")
    other = where / "test_app.py__test_waits_for_ever_too.png"  # another test's
    other.write_bytes(b"")
    pytester.makepyfile(test_app=FAILING.replace("Text(\"ready\")", "Text(\"booted\")")
                        .replace("read x", "echo booted"))
    pytester.runpytest().assert_outcomes(passed=1)  # it passes now: its old failure is gone
    assert pngs(where) == [other.name]


@pytest.mark.parametrize("how", ["option", "ini"])
def test_pictures_can_be_turned_off(how: str, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=FAILING)
    if how == "ini":
        pytester.makeini("[pytest]\ntermsim_pictures = no\n")
        result = pytester.runpytest()
    else:
        pytester.makeini("[pytest]\ntermsim_pictures = yes\n")  # the option wins
        result = pytester.runpytest("--termsim-pictures=no")
    result.assert_outcomes(failed=1)
    where = pytester.path / ".termsim"
    assert pngs(where) == [] and len(list(where.glob("*.tsr"))) == 1  # the recording stays
    assert "picture:" not in result.stdout.str()
    assert picture_lines(result.stdout.str()) == {
        ".termsim/test_app.py__test_waits_for_ever.tsr": ""}


@pytest.mark.parametrize(("ini", "argv", "named"), [
    ("", ["--termsim-pictures=maybe"], "--termsim-pictures=maybe"),
    ("", ["--termsim-pictures="], "--termsim-pictures=:"),
    ("termsim_pictures = sometimes", [], "the ini setting termsim_pictures = sometimes"),
])
def test_a_bad_pictures_value_is_one_usage_error_at_start_up(
        ini: str, argv: list[str], named: str, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_app=FAILING)
    pytester.makeini(f"[pytest]\n{ini}\n")
    result = pytester.runpytest(*argv)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.outlines
    errors = [line for line in result.errlines if "termsim" in line]
    assert len(errors) == 1, result.errlines
    assert named in errors[0] and "say yes" in errors[0] and "or no" in errors[0]
    text = "\n".join(result.outlines + result.errlines)
    assert "Traceback" not in text and not re.search(r"\d+ (passed|failed)", text)
    assert not (pytester.path / ".termsim").exists()  # no test ran


# (Hypothesis' plugin, which these tests do not use, is a sixth of each
# process's start-up; a run of pytest-xdist costs three processes.)
ONE_PROCESS = ("-p", "no:hypothesispytest", "-p", "no:randomly")
XDIST = ("-n", "2", *ONE_PROCESS)


def test_under_xdist_each_workers_report_names_its_picture(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(test_a=FAILING, test_b=FAILING.replace("test_waits", "test_b_waits")
                        .replace("31m", "32m"), test_others=OTHERS)
    result = pytester.runpytest_subprocess(*XDIST)
    assert result.parseoutcomes().get("failed") == 3, result.outlines
    where = pytester.path / ".termsim"
    a, b = "test_a.py__test_waits_for_ever", "test_b.py__test_b_waits_for_ever"
    setup = "test_others.py__test_setup_fails"
    assert pngs(where) == [f"{a}.png", f"{b}.png", f"{setup}.png"]
    shown = picture_lines(result.stdout.str())
    for name in (a, b, setup):
        assert shown[f".termsim/{name}.tsr"] == f".termsim/{name}.png"
    check_failed_screen(where / f"{a}.png", where / f"{a}.tsr", "booting", RED, "ready")
    check_failed_screen(where / f"{b}.png", where / f"{b}.tsr", "booting",
                        picture.rgb("#00cd00"), "ready")


# Pillow "uninstalled": importing it fails, in the controller and every worker.
NO_PILLOW = '''
import sys
sys.modules["PIL"] = None
'''


# The run that says nothing (pictures turned off) under xdist needs one
# worker, not two: a worker that missed --termsim-pictures=no would flag
# its failures for the summary, and one runs them all; "once across
# workers" is the other run's to prove. One worker costs two processes.
QUIET_XDIST = ("-n", "1", *ONE_PROCESS)


def _without_pillow(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(NO_PILLOW)
    pytester.makepyfile(test_a=FAILING, test_b=FAILING.replace("test_waits", "test_b_waits"),
                        test_others=OTHERS)


@pytest.mark.parametrize("argv", [ONE_PROCESS, XDIST], ids=["one process", "xdist"])
def test_without_pillow_no_test_fails_for_it_and_the_run_says_once_how_to_install(
        argv: tuple[str, ...], pytester: pytest.Pytester) -> None:
    xdist = argv == XDIST
    if xdist:
        pytest.importorskip("xdist")
    _without_pillow(pytester)
    result = pytester.runpytest_subprocess(*argv, "-v")
    outcomes = result.parseoutcomes()
    assert (outcomes.get("failed"), outcomes.get("passed"), outcomes.get("errors")) == (3, 1, 1)
    if xdist:
        # Each of the two workers had a failure without its picture: said
        # once is once across workers, not once per worker.
        failing = {line.split()[0] for line in result.outlines
                   if re.match(r"\[gw\d+\] .* (FAILED|ERROR) ", line)}
        assert failing == {"[gw0]", "[gw1]"}, result.outlines
    where = pytester.path / ".termsim"
    assert pngs(where) == [] and len(list(where.glob("*.tsr"))) == 4  # every recording kept
    text = result.stdout.str()
    assert "picture:" not in text
    said = [line for line in result.outlines if "Pillow" in line]
    assert said == [
        "termsim pictures: no PNG of the failed screens was drawn beside their recordings: "
        f"Pillow is not installed; install it with: {INSTALL} (or give --termsim-pictures=no)"]
    assert "Traceback" not in text and "ImportError" not in text
    assert sys.modules.get("PIL") is not None  # (this process's Pillow is untouched)


@pytest.mark.parametrize("argv", [ONE_PROCESS, QUIET_XDIST], ids=["one process", "xdist"])
def test_without_pillow_and_pictures_turned_off_the_run_says_nothing(
        argv: tuple[str, ...], pytester: pytest.Pytester) -> None:
    if argv == QUIET_XDIST:
        pytest.importorskip("xdist")
    _without_pillow(pytester)
    quiet = pytester.runpytest_subprocess(*argv, "--termsim-pictures=no")
    assert quiet.parseoutcomes().get("failed") == 3, quiet.outlines
    assert not [line for line in quiet.outlines if "Pillow" in line]
