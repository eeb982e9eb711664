"""A session as an animated GIF: a frame per screen change at its recorded time,
inputs and shortened pauses in the caption, the failed wait's screen held at the
end, and bounds no recording can push past (read back with Pillow)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from conftest import program
from helpers import cli_under_a_memory_limit
from test_pictures import images_made

import termsim
from termsim import Text, WaitTimeout
from termsim.cli import main
from termsim.events import End, Output, Resize
from termsim.recording.format import Recording, RecordingWriter, make_header
from termsim.report import gif, picture
from termsim.report.draw import cursor_cell
from termsim.report.gif import input_caption, write_session_gif, xterm_palette
from termsim.report.picture import FAILED, Geometry, Painter, PictureTooLarge
from termsim.report.picture_moments import wait_moment
from termsim.report.steps import walk_screens

Image = pytest.importorskip("PIL.Image", reason="pictures need Pillow (the test extra has it)")
ImageSequence = pytest.importorskip("PIL.ImageSequence")

ROOT = Path(__file__).resolve().parent.parent
CPR = ROOT / "recordings" / "cpr-starvation.tsr"
PASSING = ROOT / "recordings" / "passing.tsr"
G = Geometry.at(1.0)


def encode(recording: Recording, **options: Any) -> bytes:
    out = io.BytesIO()
    write_session_gif(recording, out, **options)
    return out.getvalue()


def frames(data: bytes) -> list[tuple[Any, int]]:
    """Each frame as Pillow composes it (RGB), with its duration in ms."""
    image = Image.open(io.BytesIO(data))
    assert image.format == "GIF" and image.info.get("loop") == 0
    return [(f.convert("RGB"), f.info["duration"]) for f in ImageSequence.Iterator(image)]


def drawn(snap: Any) -> tuple[Any, ...]:
    """What a picture of ``snap`` shows: its runs and the cursor's cell."""
    return tuple(snap.runs(r) for r in range(snap.rows)), cursor_cell(snap)


def screen_area(image: Any, rows: int, upto: int | None = None) -> bytes:
    """The pixels of the screen (not the caption), down to row ``upto``."""
    bottom = G.padding + (rows if upto is None else upto) * G.cell_height
    return bytes(image.crop((0, 0, image.size[0], bottom)).tobytes())


def as_gif_draws(snap: Any, cols: int, rows: int) -> Any:
    """``snap`` painted and mapped to the GIF's palette, as RGB."""
    painter = Painter(cols, rows, caption_lines=2)
    painter.paint(snap)
    palette = Image.new("P", (1, 1))
    palette.putpalette(xterm_palette())
    return painter.image.quantize(palette=palette, dither=Image.Dither.NONE).convert("RGB")


class Captions:
    """The caption lines each frame was given (the painter's caption, spied on)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines: list[list[str]] = []
        real = Painter.caption

        def caption(painter: Painter, lines: Any) -> Any:
            self.lines.append([text for text, _ in lines])
            return real(painter, lines)

        monkeypatch.setattr(Painter, "caption", caption)


def test_a_gif_of_cpr_starvation_has_a_frame_per_screen_change_and_ends_on_the_failed_wait(
        monkeypatch: pytest.MonkeyPatch) -> None:
    recording = Recording.open(CPR)
    captions = Captions(monkeypatch)
    data = encode(recording)
    assert len(data) < 2_000_000
    got = frames(data)
    # The screens before the failed wait ended, one per change in what is drawn.
    ending = wait_moment(recording)
    changes = [0] + [i + 1 for i, e in enumerate(recording.events[:ending.position])
                     if isinstance(e, Output | Resize)]
    expected: list[tuple[float, Any]] = []
    for _, t, snap in walk_screens(recording, changes):
        if not expected or drawn(snap) != drawn(expected[-1][1]):
            expected.append((t, snap))
    assert len(expected) == 4  # empty, "Starting...", the prompt, the warning
    assert len(got) == len(expected) + 1
    for (image, _), (t, snap) in zip(got, expected, strict=False):
        assert screen_area(image, 24) == screen_area(as_gif_draws(snap, 80, 24), 24), t
    # In time order, each at its recorded time: shown until the next, pauses
    # over 2 s shown 2 s; the ending held 3 s.
    times = [t for t, _ in expected]
    assert [float(lines[0].split(" s")[0]) for lines in captions.lines[:-1]] == [
        round(t, 3) for t in times]
    until = [*times[1:], ending.t]
    for (_, ms), t, end in zip(got, times, until, strict=False):
        assert abs(ms / 1000 - min(end - t, 2.0)) <= 0.02, (t, ms)
    assert got[-1][1] == 3000
    assert "this screen stayed 3.000 s, shown 2 s" in captions.lines[-2][1]
    # The last frame: the screen the wait ended on, its region outlined, its outcome.
    last = got[-1][0]
    assert screen_area(last, 24, upto=22) == screen_area(as_gif_draws(ending.screen, 80, 24),
                                                         24, upto=22)
    bottom = G.padding + 23 * G.cell_height
    assert last.getpixel((G.padding - 1, bottom + 9)) == picture.rgb(FAILED)
    assert last.getpixel((G.padding + 80 * G.cell_width, bottom + 9)) == picture.rgb(FAILED)
    assert captions.lines[-1][0] == ending.caption and "timed out" in ending.caption
    assert captions.lines[-1][1] == "1 pause over 2 s shown 2 s"


def test_the_same_recording_gives_the_same_gif_bytes() -> None:
    assert encode(Recording.open(CPR)) == encode(Recording.open(CPR))
    assert encode(Recording.open(CPR)) != encode(Recording.open(CPR), scale=0.5)


@pytest.mark.anyio
async def test_inputs_are_captioned_as_they_happened(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "typed.tsr"
    async with termsim.spawn(program("styled_echo.py"), cols=40, rows=6, record=path) as term:
        await term.wait_for(Text("READY>"))
        await term.type("hello")
        await term.wait_for(Text("hello"))
        await term.press("enter")
        await term.wait_for(Text("\n>"))
        with pytest.raises(WaitTimeout):
            await term.wait_for(Text("never drawn"), timeout=0.5)
    captions = Captions(monkeypatch)
    got = frames(encode(Recording.open(path), idle_limit=0.2))
    firsts = [lines[0] for lines in captions.lines]
    typed = next(k for k, line in enumerate(firsts) if "typed 'hello'" in line)
    pressed = next(k for k, line in enumerate(firsts) if line.endswith("pressed enter"))
    assert typed < pressed < len(firsts) - 1
    assert "wait 4 timed out after" in firsts[-1] and "'never drawn'" in firsts[-1]
    # The half second the test waited in vain is shown 0.2 s, and said so.
    assert "shown 0.2 s" in captions.lines[-2][1]
    assert "pause" in captions.lines[-1][1]
    assert len(got) == len(captions.lines)


def test_input_captions_are_in_the_past_tense() -> None:
    assert input_caption("typed 'hello'") == "typed 'hello'"
    assert input_caption("typed 'ls' + enter") == "typed 'ls', pressed enter"
    assert input_caption("pasted 'a\\nb'") == "pasted 'a\\nb'"
    assert input_caption("key enter") == "pressed enter"
    assert input_caption("key ctrl+c (press)") == "pressed ctrl+c (press)"
    assert input_caption("click left at row 3, col 10") == "clicked at row 3, col 10"
    assert input_caption("click right x2 at row 1, col 2") == "double-clicked right at row 1, col 2"
    assert input_caption("scroll down 3 at row 0, col 0") == "scrolled down 3 at row 0, col 0"
    assert input_caption("bytes b'\\x03'") == "sent b'\\x03'"


# -- bounds ----------------------------------------------------------------------------------


def test_max_frames_keeps_that_many_evenly_and_the_ending(monkeypatch: pytest.MonkeyPatch) -> None:
    captions = Captions(monkeypatch)
    out = io.BytesIO()
    report = write_session_gif(Recording.open(PASSING), out, max_frames=10)
    got = frames(out.getvalue())
    assert report.kept == 10 < report.screens and len(got) <= 10 == report.frames
    assert f"10 of {report.screens} screens" in captions.lines[-1][1]
    assert captions.lines[0][0].startswith("0.000 s")  # the first screen is kept


def test_max_seconds_shows_the_last_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    captions = Captions(monkeypatch)
    out = io.BytesIO()
    report = write_session_gif(Recording.open(PASSING), out, max_seconds=1.5)
    got = frames(out.getvalue())
    assert report.cut > 0 and f"from {report.cut:.3f} s" in captions.lines[0][1]
    assert sum(ms for _, ms in got) <= 1500 + 20 * len(got)
    assert got[-1][1] == 500  # the ending, held a third of it


@pytest.mark.parametrize("options", [
    {"max_frames": gif.MOST_FRAMES + 1}, {"max_frames": 1},
    {"max_seconds": gif.MOST_SECONDS + 1}, {"max_seconds": float("inf")},
    {"idle_limit": gif.MOST_SECONDS + 1}, {"idle_limit": 0.0}, {"scale": 8},
])
def test_options_past_their_bounds_are_refused(options: dict[str, Any]) -> None:
    out = io.BytesIO()
    with pytest.raises(termsim.ArgumentError, match=next(iter(options))):
        write_session_gif(Recording.open(CPR), out, **options)
    assert out.getvalue() == b""  # nothing written, nothing replayed


def _bomb(path: Path, cols: int, rows: int, redraws: int, gap: float = 0.001) -> None:
    """Every cell an E, then the whole screen reversed and back, ``redraws`` times."""
    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=cols, rows=rows,
                                               env={}))
    writer.write(Output(0.0, b"\x1b#8"))
    for k in range(redraws):
        writer.write(Output(gap * (k + 1), b"\x1b[?5h" if k % 2 == 0 else b"\x1b[?5l"))
    writer.write(End(gap * (redraws + 1), "closed"))


def test_a_screen_redrawn_whole_gets_fewer_frames_within_the_cells_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cells painted are bounded whatever the frames ask: here a budget of
    ten whole screens (the real one is MAX_GIF_CELLS) against 60 redraws."""
    path = tmp_path / "redraws.tsr"
    _bomb(path, 100, 50, 60)
    monkeypatch.setattr(gif, "MAX_GIF_CELLS", 10 * 100 * 50)
    painted = []
    real = Painter._row

    def row(painter: Painter, snapshot: Any, r: int, cursor: Any, top: int) -> None:
        painted.append(painter.cols)
        real(painter, snapshot, r, cursor, top)

    monkeypatch.setattr(Painter, "_row", row)
    data = encode(Recording.open(path))
    # At most nine of the 62 screens (fewer: two chosen alike are one frame), the ending.
    assert 3 <= len(frames(data)) <= 10
    assert sum(painted) <= gif.MAX_GIF_CELLS + 100 * 50
    assert len(painted) >= 50 * (len(frames(data)) - 1)  # each new frame redrawn whole


def test_a_forged_time_cannot_make_a_gif_long(tmp_path: Path) -> None:
    path = tmp_path / "years.tsr"
    _bomb(path, 20, 5, 6, gap=3e7)  # about a year between screens
    got = frames(encode(Recording.open(path)))
    assert len(got) == 1 + 7 + 1  # the empty screen, each output, the ending
    # Each pause shown 2 s; the first screen (drawn over at once) its 20 ms, which the
    # next gives back: the GIF keeps the recorded (shortened) timeline.
    assert [ms for _, ms in got] == [20, 1980] + [2000] * 6 + [3000]


def test_a_frame_past_its_pixels_is_refused_before_it_is_drawn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tall.tsr"
    _bomb(path, 300, 200, 2)  # 2716x3660 pixels at scale 1
    assert gif.MAX_GIF_FRAME_PIXELS < 2716 * 3660
    out = tmp_path / "s.gif"
    assert main(["export", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "a GIF frame is at most 4,000,000 pixels" in err and len(err.splitlines()) == 1
    with pytest.raises(PictureTooLarge):
        encode(Recording.open(path))
    assert main(["export", str(path), "-o", str(tmp_path / "s.png")]) == 0  # one screen fits


@pytest.mark.timeout(120)
def test_exports_of_a_hostile_recording_stay_within_a_memory_limit(tmp_path: Path) -> None:
    """A screen redrawn whole, and a 1000x1000 one, exported to PNG and GIF
    under a 1.5 GiB address-space limit: each ends, in one line.

    The redrawn screen is 200x100, a GIF frame of 1816x1860 pixels (near
    MAX_GIF_FRAME_PIXELS), reversed and back twice: every frame is painted
    whole. More redraws add only more of the same frames (a buggy export that
    held every frame would need over a hundred of them to pass the limit, more
    than MAX_GIF_CELLS allows at this size). The 1000x1000 screen is refused
    before it is drawn. The four exports run in one process, under the one
    limit, each with its own status and stderr."""
    redraws, huge = tmp_path / "redraws.tsr", tmp_path / "huge.tsr"
    _bomb(redraws, 200, 100, 4)
    _bomb(huge, 1000, 1000, 4)
    exports = ((redraws, "r.gif", 0), (redraws, "r.png", 0), (huge, "h.gif", 1),
               (huge, "h.png", 1))
    got = cli_under_a_memory_limit(
        [["export", str(source), "-o", str(tmp_path / name)] for source, name, _ in exports],
        limit=3 << 29)
    for (_, name, status), (code, err) in zip(exports, got, strict=True):
        assert code == status, (name, err)
        assert len(err.strip().splitlines()) == 1, (name, err)
    assert (tmp_path / "r.gif").stat().st_size and (tmp_path / "r.png").stat().st_size
    assert not (tmp_path / "h.gif").exists() and not (tmp_path / "h.png").exists()


# -- the command ------------------------------------------------------------------------------


def test_export_writes_the_gif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "session.gif"
    assert main(["export", str(CPR), "-o", str(out), "--scale", "0.5", "--idle-limit", "1"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"wrote 5 frames (5.43 s, 408x272) to {out}; it ends on: ")
    assert out.read_bytes() == encode(Recording.open(CPR), scale=0.5, idle_limit=1.0)


# -- a stranger's recording, past the caps ---------------------------------------------------


def test_a_resize_past_the_caps_is_refused_before_any_picture_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A small first screen (which passes the check made before replaying)
    resized to 1000x1000: the GIF's canvas is the largest screen, refused
    before any picture is made (MAX_GIF_FRAME_PIXELS, MAX_PICTURE_CELLS), and
    so is a PNG of the huge screen; one of the screen before the resize is drawn."""
    path = tmp_path / "grows.tsr"
    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=20, rows=5, env={}))
    writer.write(Output(0.1, b"small"))
    writer.write(Resize(0.2, 1000, 1000))
    writer.write(Output(0.3, b"\x1b#8"))  # DECALN: every cell an E
    writer.write(End(0.4, "closed"))
    made = images_made(monkeypatch)
    for name in ("s.gif", "s.png"):
        assert main(["export", str(path), "-o", str(tmp_path / name)]) == 1
        err = capsys.readouterr().err
        assert "1000x1000 screen would draw 1,000,000 cells" in err, err
        assert len(err.strip().splitlines()) == 1 and not (tmp_path / name).exists()
    assert all(w * h <= gif.MAX_GIF_FRAME_PIXELS for w, h in made)
    assert not [size for size in made if size[0] > 200]  # nothing the huge screen's size
    assert main(["export", str(path), "--at", "0.15", "-o", str(tmp_path / "small.png")]) == 0
    with Image.open(tmp_path / "small.png") as small:
        assert small.size == (20 * G.cell_width + 2 * G.padding, 5 * G.cell_height + 2 * G.padding)
    assert picture.MAX_PICTURE_CELLS < 1000 * 1000


def test_a_flood_of_outputs_gets_at_most_MOST_FRAMES_frames(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three times MOST_FRAMES screen changes in six seconds, asked for with
    the most frames allowed: that many frames at most, each painted once
    (work and file bounded by the cap, not by the recording), the last
    screen kept; and with a short max_seconds, no more frames than play
    in it (each is shown at least 20 ms), so the GIF does not play longer."""
    path = tmp_path / "flood.tsr"
    writer = RecordingWriter(path, make_header(argv=["prog"], cwd="/", cols=10, rows=2, env={}))
    changes = 3 * gif.MOST_FRAMES
    for k in range(changes):
        writer.write(Output(0.001 * (k + 1), f"\r{k:9d}".encode()))
    writer.write(End(0.001 * (changes + 1), "closed"))
    painted = []
    real = Painter.paint

    def paint(painter: Painter, snapshot: Any) -> Any:
        painted.append(snapshot.text)
        return real(painter, snapshot)

    monkeypatch.setattr(Painter, "paint", paint)
    out = io.BytesIO()
    report = write_session_gif(Recording.open(path), out, max_frames=gif.MOST_FRAMES,
                               max_seconds=gif.MOST_SECONDS)
    got = frames(out.getvalue())
    # The screens: the first, one per change, the ending.
    assert report.screens == changes + 2 and report.kept == gif.MOST_FRAMES
    assert len(got) == report.frames <= gif.MOST_FRAMES
    assert len(painted) <= gif.MOST_FRAMES + 1  # the frames kept, and the ending
    assert painted[-1].split()[0] == str(changes - 1)
    # Six seconds of changes in at most five seconds of GIF.
    painted.clear()
    out = io.BytesIO()
    report = write_session_gif(Recording.open(path), out, max_frames=gif.MOST_FRAMES,
                               max_seconds=5)
    got = frames(out.getvalue())
    assert len(got) <= 5 * 100 // gif.MIN_DELAY and len(painted) <= len(got) + 1
    # (within the shortest frame: a frame's time is rounded to a GIF's hundredths)
    assert sum(ms for _, ms in got) <= 5000 + 10 * gif.MIN_DELAY and report.seconds <= 5.02
    assert painted[-1].split()[0] == str(changes - 1)
    with pytest.raises(termsim.ArgumentError, match="max_frames"):
        write_session_gif(Recording.open(path), io.BytesIO(), max_frames=gif.MOST_FRAMES + 1)
