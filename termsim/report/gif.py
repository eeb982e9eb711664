"""A recorded session as an animated GIF, for a bug report.

``termsim export REC -o OUT.gif`` draws the session as it happened: a frame
for the first screen, then one for each screen change and each input, at
its recorded time, each frame drawn by the PNG's painter
(:class:`~termsim.report.picture.Painter`) with a caption of two lines under
the screen: the time and the inputs of the last moments ("typed 'hello'",
"pressed enter"), then what was shortened or left out. It ends on the
failed wait's screen (the last wait that ended badly, as the failure report
names it), its region outlined and its outcome in the caption, held
:data:`HOLD` seconds; a session without a failed wait ends on its final
screen. Then it starts again.

How long and how large
    A pause longer than ``idle_limit`` seconds is shown that long, and the
    frame says how long the screen really stayed (as ``termsim play
    --idle-limit`` plays it). A session longer than ``max_seconds`` once
    shortened shows its last ``max_seconds`` (the failure is at the end),
    and one with more than ``max_frames`` frames keeps that many, evenly
    spread, the last always: the caption says so. Each frame is shown at
    least 20 ms (browsers show no GIF frame shorter), so a GIF keeps no more
    frames than fit ``max_seconds`` at that: a flood of screen changes
    cannot make it play longer.

Bounded work and memory
    The defaults keep a typical failure well under 2 MB (tens of kilobytes
    for an 80x24 session). The frames are written as they are drawn: only
    the picture being drawn and the frame waiting for its duration are held,
    and each frame holds only the pixel rows that changed. A frame is at
    most :data:`MAX_GIF_FRAME_PIXELS`, and the cells painted over the whole
    GIF at most :data:`MAX_GIF_CELLS` (a session redrawn whole on a large
    screen gets fewer frames); screens are taken only for the frames kept.

Colours
    A GIF has 256 colours: every frame uses xterm's 256-colour palette, the
    one table of the file, each pixel the nearest (no dithering, so the same
    recording gives the same bytes). The 16 colours and the default colours
    are in it exactly; a 24-bit colour gets the nearest of the 256.

The file is written by Pillow's GIF encoder one frame at a time
(``GifImagePlugin.getdata``), and the header and trailer here: Pillow's own
``save(append_images=...)`` keeps every frame in memory until the end.
"""

from __future__ import annotations

import bisect
import math
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, Final

from ..emulator.snapshot.snapshot import Snapshot
from ..errors import ArgumentError
from ..events import Input, Output, Resize
from ..recording.format import Recording
from .picture import (
    CAPTION_FG,
    Painter,
    PictureTooLarge,
    check_scale,
    check_size,
    require_pillow,
)
from .picture_moments import Plan, failure_plan, moment
from .steps import evenly, walk_screens

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

#: Defaults: a session of up to half a minute, once pauses are shortened.
DEFAULT_MAX_SECONDS: Final = 30.0
DEFAULT_MAX_FRAMES: Final = 300
DEFAULT_IDLE_LIMIT: Final = 2.0
#: Seconds the last frame (the failed wait's) is shown before the GIF starts again.
HOLD: Final = 3.0
#: The shortest a frame is shown, in hundredths of a second (a GIF's unit):
#: browsers show a shorter one for 100 ms.
MIN_DELAY: Final = 2
#: Seconds of the recording an input stays in the caption.
INPUT_SHOWN: Final = 1.5
#: The most pixels of a frame (a screen of about 220x110 cells at scale 1).
MAX_GIF_FRAME_PIXELS: Final = 4_000_000
#: The most cells painted over the whole GIF: frames of a screen redrawn
#: whole cost their every cell, so a large screen gets fewer frames.
MAX_GIF_CELLS: Final = 1_000_000
#: The most ``max_frames`` and ``max_seconds`` may be.
MOST_FRAMES: Final = 2000
MOST_SECONDS: Final = 600.0
#: The colour of the caption's second line (what was shortened, left out).
NOTE_FG: Final = "#8a8a8a"


@dataclass(frozen=True)
class GifReport:
    """What :func:`write_session_gif` wrote."""

    frames: int
    #: Playing time, in seconds (once through).
    seconds: float
    width: int
    height: int
    #: Pauses shown shorter than they were.
    shortened: int
    #: Seconds of the recording left out at the start (0: none).
    cut: float
    #: The screens shown out of those there were (equal: none left out).
    kept: int
    screens: int
    #: The last frame's caption (what the GIF ends on).
    ending: str


def xterm_palette() -> bytes:
    """xterm's 256 colours as 768 bytes: the 16 (as ``draw.PALETTE`` has
    them), the 6x6x6 cube and the 24 greys."""
    base = (0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
            0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff)
    out = bytearray()
    for c in base:
        out += bytes((c >> 16, (c >> 8) & 255, c & 255))
    levels = (0, 95, 135, 175, 215, 255)
    for r in levels:
        for g in levels:
            for b in levels:
                out += bytes((r, g, b))
    for i in range(24):
        out += bytes((8 + 10 * i,) * 3)
    return bytes(out)


def input_caption(label: str) -> str:
    """An input as the caption says it, in the past: ``typed 'hello'``,
    ``pressed enter``, ``clicked at row 3, col 10``."""
    m = re.fullmatch(r"(typed|pasted) (.*?)( \+ enter)?", label, re.S)
    if m:
        return f"{m[1]} {m[2]}" + (", pressed enter" if m[3] else "")
    if label.startswith("key "):
        return "pressed " + label[4:]
    m = re.fullmatch(r"click (\w+)(?: x(\d+))? (at row .*)", label)
    if m:
        button = "" if m[1] == "left" else f" {m[1]}"
        return f"{'double-' if m[2] == '2' else ''}clicked{button} {m[3]}"
    if label.startswith("scroll "):
        return "scrolled " + label[7:]
    if label.startswith("drag "):
        return "dragged " + label[5:]
    if label.startswith("bytes "):
        return "sent " + label[6:]
    return label


@dataclass
class _Frame:
    """A frame to draw: the screen after ``position`` events, from ``t``."""

    t: float
    position: int
    #: Seconds it is shown (pauses shortened).
    shown: float
    #: Seconds the screen really stayed, if a pause was shortened (else 0).
    stayed: float = 0.0
    #: Whether an input happened at it (or at a frame merged into it).
    typed: bool = False


#: Each option's range: (lowest, highest, whether a whole number, its unit).
OPTION_RANGES: Final = {
    "max_seconds": (1.0, MOST_SECONDS, False, " of seconds"),
    "max_frames": (2, MOST_FRAMES, True, ""),
    "idle_limit": (0.02, MOST_SECONDS, False, " of seconds"),
}


def _check(scale: float, **options: float) -> None:
    """:class:`~termsim.ArgumentError` for an option out of its range
    (:data:`OPTION_RANGES`, and the picture's scale), before anything is replayed."""
    for name, value in options.items():
        low, high, whole, unit = OPTION_RANGES[name]
        kind = int if whole else (int, float)
        if isinstance(value, bool) or not (isinstance(value, kind) and math.isfinite(value)
                                           and low <= value <= high):
            number = "a whole number" if whole else "a number"
            raise ArgumentError(f"{name} is {number}{unit} from {low:g} to {high:g}, "
                                f"not {value!r}")
    check_scale(scale)


def write_session_gif(recording: Recording, out: BinaryIO, *,
                      max_seconds: float = DEFAULT_MAX_SECONDS,
                      max_frames: int = DEFAULT_MAX_FRAMES, scale: float = 1.0,
                      idle_limit: float = DEFAULT_IDLE_LIMIT) -> GifReport:
    """Write ``recording`` to ``out`` as an animated GIF of the session, at its
    recorded times, ending on its failed wait's screen, and say what was
    written (see ``termsim.report.gif`` for the bounds).

    Raises :class:`~termsim.report.picture.PicturesUnavailable` without
    Pillow, :class:`~termsim.report.picture.PictureTooLarge` when one frame
    would be past :data:`MAX_GIF_FRAME_PIXELS`, and
    :class:`~termsim.ArgumentError` for options out of their range.
    """
    _check(scale, max_seconds=max_seconds, max_frames=max_frames, idle_limit=idle_limit)
    require_pillow()
    _painter(recording.cols, recording.rows, scale, check=True)  # refused before replaying
    plan = failure_plan(recording)
    cols, rows = _largest(recording, plan.position)
    painter = _painter(cols, rows, scale)
    assert painter is not None
    frames, screens = _frames(recording, plan, idle_limit)
    hold = min(HOLD, max_seconds / 3)
    frames, cut = _window(frames, max_seconds - hold)
    # Frames kept: max_frames, fewer on a large screen (the cells painted),
    # and no more than can each be shown MIN_DELAY within max_seconds.
    room = min(max_frames, max(2, MAX_GIF_CELLS // (cols * rows)),
               max(2, math.floor((max_seconds - hold) * 100 / MIN_DELAY))) - 1
    frames = _thin(frames, room)
    inputs = [e for e in recording.events[:plan.position] if isinstance(e, Input)]
    times = [e.t for e in inputs]
    notes = []
    if cut:
        notes.append(f"the last {max_seconds - hold:g} s, from {cut:.3f} s")
    if len(frames) < screens:
        notes.append(f"{len(frames) + 1} of {screens + 1} screens")
    writer = _Writer(out, painter.width, painter.height)
    shortened = 0
    start = 0.0
    walk = _screens(recording, frames, plan.position)  # one replay, for every frame
    for frame, screen in zip(frames, walk, strict=False):
        changed = painter.paint(screen)
        if changed is None and not frame.typed and writer.started:
            start += frame.shown  # nothing new to see: the frame before stays on
            continue
        lately = inputs[bisect.bisect_right(times, frame.t - INPUT_SHOWN):
                        bisect.bisect_right(times, frame.t)]
        said = ", ".join(input_caption(e.label) for e in lately[-3:])
        line = f"{frame.t:.3f} s" + (f"  {said}" if said else "")
        note = list(notes)
        if frame.stayed:
            shortened += 1
            note.insert(0, f"this screen stayed {frame.stayed:.3f} s, shown {idle_limit:g} s")
        band = painter.caption([(line, CAPTION_FG), ("; ".join(note), NOTE_FG)])
        writer.frame(painter.image, _union(changed, band), start)
        start += frame.shown
    # The ending: the failed wait's screen, outlined, held.
    ending = moment(recording, plan, next(walk))
    changed = painter.paint(ending.screen)
    outlined = painter.outline(ending.outlines, ending.colour, cols=ending.screen.cols,
                               rows=ending.screen.rows)
    if shortened:
        notes.insert(0, f"{shortened} pause{'s' * (shortened > 1)} over {idle_limit:g} s "
                     f"shown {idle_limit:g} s")
    band = painter.caption([(ending.caption, ending.colour if ending.outlines else CAPTION_FG),
                            ("; ".join(notes), NOTE_FG)])
    writer.frame(painter.image, _union(_union(changed, outlined), band), start)
    writer.close(hold)
    return GifReport(writer.frames, writer.total / 100, painter.width, painter.height,
                     shortened, cut, len(frames) + 1, screens + 1, ending.caption)


def _largest(recording: Recording, until: int) -> tuple[int, int]:
    """The largest screen of the session up to event ``until`` (resizes
    included): the GIF's canvas, every frame drawn at its top left."""
    sizes = [(recording.cols, recording.rows)] + [
        (e.cols, e.rows) for e in recording.events[:until] if isinstance(e, Resize)]
    return max(c for c, _ in sizes), max(r for _, r in sizes)


def _painter(cols: int, rows: int, scale: float, *, check: bool = False) -> Painter | None:
    """The GIF's painter (``check``: only whether one that size could be
    made, before anything is replayed: the canvas is at least the size of
    the recording's first screen)."""
    try:
        if check:
            check_size(cols, rows, scale, 2, MAX_GIF_FRAME_PIXELS)
            return None
        return Painter(cols, rows, scale=scale, caption_lines=2,
                       max_pixels=MAX_GIF_FRAME_PIXELS)
    except PictureTooLarge as exc:
        raise PictureTooLarge(f"a GIF's frames: {exc} (a GIF frame is at most "
                              f"{MAX_GIF_FRAME_PIXELS:,} pixels; a PNG of one screen may be "
                              "larger)") from None


def _frames(recording: Recording, ending: Plan,
            idle_limit: float) -> tuple[list[_Frame], int]:
    """The first screen, then a frame after each output, resize and input
    before the ending, each shown until the next (or the ending), pauses
    shortened to ``idle_limit``; and how many there are."""
    events = recording.events
    frames = [_Frame(0.0, 0, 0.0)]
    for i in range(min(ending.position, len(events))):
        event = events[i]
        if isinstance(event, Output | Resize | Input):
            frames.append(_Frame(max(event.t, frames[-1].t), i + 1, 0.0,
                                 typed=isinstance(event, Input)))
    for frame, after in zip(frames, [*frames[1:], None], strict=True):
        until = ending.t if after is None else after.t
        gap = max(until - frame.t, 0.0)
        frame.shown = min(gap, idle_limit)
        frame.stayed = gap if gap > idle_limit else 0.0
    return frames, len(frames)


def _window(frames: list[_Frame], budget: float) -> tuple[list[_Frame], float]:
    """The frames of the last ``budget`` seconds shown (the first of them cut
    to fit), and the recording's time of the first (0: nothing left out)."""
    if sum(f.shown for f in frames) <= budget:
        return frames, 0.0
    total = 0.0
    for k in range(len(frames) - 1, -1, -1):
        total += frames[k].shown
        if total >= budget:
            first = frames[k]
            kept = [_Frame(first.t, first.position, first.shown - (total - budget),
                           first.stayed, first.typed), *frames[k + 1:]]
            return kept, first.t
    return frames, 0.0  # pragma: no cover (the sum is past the budget)


def _thin(frames: list[_Frame], room: int) -> list[_Frame]:
    """At most ``room`` frames, evenly spread, the first and the last kept;
    a frame left out adds its time to the one kept before it."""
    if len(frames) <= room:
        return frames
    keep = set(evenly(list(range(len(frames))), room))
    out: list[_Frame] = []
    for k, frame in enumerate(frames):
        if k in keep or not out:
            out.append(_Frame(frame.t, frame.position, frame.shown, frame.stayed, frame.typed))
        else:
            last = out[-1]
            last.shown += frame.shown
            last.stayed = max(last.stayed, frame.stayed)
    return out


def _screens(recording: Recording, frames: list[_Frame], end: int) -> Iterator[Snapshot]:
    """The screen of each frame, then the one after ``end`` events (the
    ending), in one walk (frames at one position share it)."""
    screens = walk_screens(recording, sorted({f.position for f in frames} | {end}))
    position, screen = -1, None
    for want in [*(f.position for f in frames), end]:
        while position < want:
            position, _, screen = next(screens)
        assert screen is not None
        yield screen


def _union(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a[0], b[0]), max(a[1], b[1])


class _Writer:
    """A GIF89a written a frame at a time: each frame waits for the next to
    know how long it is shown, then goes out as the pixel rows that changed."""

    def __init__(self, out: BinaryIO, width: int, height: int) -> None:
        from PIL import Image

        self._out = out
        self.width, self.height = width, height
        self._palette = Image.new("P", (1, 1))
        self._palette.putpalette(xterm_palette())
        #: The frame waiting for the next: its pixels, its top row.
        self._pending: tuple[Picture, int] | None = None
        #: Whether a frame was given (the first is the whole picture).
        self.started = False
        #: Hundredths of a second written so far.
        self.total = 0
        self.frames = 0
        out.write(b"GIF89a" + struct.pack("<HHBBB", width, height, 0xF7, 0, 0)
                  + xterm_palette()
                  # NETSCAPE2.0: loop for ever.
                  + b"!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00")

    def frame(self, image: Picture, rows: tuple[int, int] | None, start: float) -> None:
        """A frame showing ``image`` from ``start`` seconds, of which only
        pixel ``rows`` (first, last) changed; the frame before it is
        written, shown until ``start``."""
        from PIL import Image as PILImage

        top, bottom = (0, self.height - 1) if not self.started or rows is None else rows
        self.started = True
        crop = image.crop((0, top, self.width, bottom + 1))
        indexed = crop.quantize(palette=self._palette, dither=PILImage.Dither.NONE)
        self._flush(start)
        self._pending = (indexed, top)

    def _flush(self, until: float) -> None:
        if self._pending is None:
            return
        from PIL import GifImagePlugin

        image, top = self._pending
        delay = max(MIN_DELAY, round(until * 100) - self.total)
        for chunk in GifImagePlugin.getdata(image, offset=(0, top), duration=delay * 10,
                                            disposal=1):
            self._out.write(chunk)
        self.total += delay
        self.frames += 1
        self._pending = None

    def close(self, hold: float) -> None:
        """Write the frame waiting, shown ``hold`` seconds, and the trailer."""
        self._flush(self.total / 100 + hold)
        self._out.write(b";")
