"""What a picture is made of before it is painted: the font termsim ships,
the cell geometry at a scale, the colours of outlines and captions, and the
caps on a picture's size, checked before anything is allocated.

Split from :mod:`termsim.report.picture` (the painter and the PNG), which
re-exports every name here; :mod:`termsim.report.gif` sizes its canvas with
the same checks.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Final

from ..errors import ArgumentError, TermsimError
from .draw import DEFAULT_FG

if TYPE_CHECKING:
    from PIL.ImageFont import FreeTypeFont

#: What to run to get Pillow, said wherever a picture cannot be drawn without it.
INSTALL: Final = "pip install 'termsim[pictures]'"

#: The font's files, by (bold, italic).
FONT_FILES: Final = {
    (False, False): "DejaVuSansMono.ttf",
    (True, False): "DejaVuSansMono-Bold.ttf",
    (False, True): "DejaVuSansMono-Oblique.ttf",
    (True, True): "DejaVuSansMono-BoldOblique.ttf",
}
#: Pixels of the font at scale 1 (cells of 9 x 18 pixels, as in the SVG).
FONT_SIZE: Final = 15
#: Pixels around the screen at scale 1.
PADDING: Final = 8
#: The smallest and largest ``scale``: below, text is unreadable; above, a
#: picture of a common screen is larger than any page shows.
MIN_SCALE: Final = 0.5
MAX_SCALE: Final = 4.0

#: The most pixels of one picture (about 50 MB while it is drawn, in RGB): a
#: 400x120 screen at scale 1 is 13 million; a 1000x1000 one, 162 million.
MAX_PICTURE_PIXELS: Final = 16_000_000
#: The most cells of one picture: each costs some microseconds to draw, so
#: a screen of a million cells of changing colours would take a minute.
MAX_PICTURE_CELLS: Final = 200_000
#: Glyphs kept drawn, by character and face (cleared when full).
MAX_GLYPHS: Final = 4096

#: The outline of a failed wait's region, and of one that matched.
FAILED: Final = "#ff5f5f"
MATCHED: Final = "#5fd75f"
#: The caption's band and text.
CAPTION_BG: Final = "#303030"
CAPTION_FG: Final = DEFAULT_FG
#: What a frame of a GIF shows outside a screen smaller than its largest.
OUTSIDE: Final = "#121212"
#: A character the font has no glyph for: the reference it is compared with
#: (a code point no font of termsim's has).
NOTDEF: Final = "\U0010fffd"


class PicturesUnavailable(TermsimError):
    """Pillow, which draws PNG and GIF pictures, is not installed: the message
    says how to install it (``pip install 'termsim[pictures]'``)."""


class PictureTooLarge(TermsimError):
    """A picture past :data:`MAX_PICTURE_PIXELS` or :data:`MAX_PICTURE_CELLS`
    (or a GIF frame past its own cap): the message says what would fit."""


def require_pillow() -> None:
    """Raise :class:`PicturesUnavailable` unless Pillow can be imported."""
    try:
        import PIL.Image
        import PIL.ImageDraw
        import PIL.ImageFont  # noqa: F401
    except ImportError as exc:
        raise PicturesUnavailable(
            f"PNG and GIF pictures are drawn with Pillow, which is not installed ({exc}); "
            f"install it with: {INSTALL}") from None


def pictures_available() -> bool:
    """Whether Pillow is installed (pictures can be drawn)."""
    try:
        require_pillow()
    except PicturesUnavailable:
        return False
    return True


@cache
def _font_bytes(name: str) -> bytes:
    return resources.files(__package__ or "termsim.report").joinpath("fonts", name).read_bytes()


#: Fonts made, by (Pillow's font class, bold, italic, size). A font is made
#: from the ``ImageFont`` that ``ImageDraw`` itself uses, and kept by that
#: class: after pytest's in-process runs restore ``sys.modules``, a Pillow
#: module may be imported again beside the one before, and ``ImageDraw``
#: draws a font of another ``ImageFont`` as a bitmap font (its baseline
#: anchor ignored: the text drawn a line too low).
_FONTS: dict[tuple[int, bool, bool, int], FreeTypeFont] = {}


def font(bold: bool, italic: bool, size: int) -> FreeTypeFont:
    """The shipped font in a face and a size, laid out by Pillow's basic
    layout (the same on every machine)."""
    from PIL import ImageDraw

    # The module ImageDraw takes fonts of (see _FONTS).
    ImageFont = ImageDraw.ImageFont  # type: ignore[attr-defined]
    key = (id(ImageFont.FreeTypeFont), bold, italic, size)
    made = _FONTS.get(key)
    if made is None:
        if len(_FONTS) >= 32:
            _FONTS.clear()
        made = _FONTS[key] = ImageFont.truetype(
            io.BytesIO(_font_bytes(FONT_FILES[bold, italic])), size,
            layout_engine=ImageFont.Layout.BASIC)
    return made


@dataclass(frozen=True)
class Geometry:
    """Pixels of a cell and of what is around the screen, at one scale."""

    scale: float
    size: int
    cell_width: int
    cell_height: int
    #: From the top of a cell to the text's baseline.
    baseline: int
    padding: int
    #: The thickness of a line (underline, strikethrough, the cursor's outline).
    line: int

    @classmethod
    def at(cls, scale: float) -> Geometry:
        """The geometry at ``scale`` (1: cells of 9 x 18 pixels)."""
        check_scale(scale)
        require_pillow()
        size = round(FONT_SIZE * scale)
        face = font(False, False, size)
        ascent, descent = face.getmetrics()
        return cls(scale, size, round(face.getlength("M")), ascent + descent, ascent,
                   round(PADDING * scale), max(1, round(scale)))


def check_scale(scale: float) -> None:
    """Raise :class:`~termsim.ArgumentError` unless ``scale`` is from
    :data:`MIN_SCALE` to :data:`MAX_SCALE` (said before Pillow is asked
    for: a wrong number is the caller's to fix either way)."""
    if not (isinstance(scale, int | float) and MIN_SCALE <= scale <= MAX_SCALE):
        raise ArgumentError(f"a picture's scale is a number from {MIN_SCALE:g} to "
                            f"{MAX_SCALE:g}, not {scale!r}")


@lru_cache(maxsize=1024)
def rgb(colour: str) -> tuple[int, int, int]:
    """``#rrggbb`` as a tuple (the colours ``draw`` resolves are always that)."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def size_problem(cols: int, rows: int, geometry: Geometry, caption_lines: int,
                 max_pixels: int = MAX_PICTURE_PIXELS) -> str | None:
    """Why a picture of a ``cols`` x ``rows`` screen cannot be drawn, or None."""
    width, height = picture_size(cols, rows, geometry, caption_lines)
    if cols * rows > MAX_PICTURE_CELLS:
        return (f"a picture of a {cols}x{rows} screen would draw {cols * rows:,} cells, more "
                f"than {MAX_PICTURE_CELLS:,}; export it as .svg or .html instead")
    if width * height > max_pixels:
        fits = geometry.scale * (max_pixels / (width * height)) ** 0.5
        hint = (f"give --scale {max(MIN_SCALE, int(fits * 10) / 10):g} or less"
                if fits >= MIN_SCALE else "export it as .svg or .html")
        return (f"a picture of a {cols}x{rows} screen at scale {geometry.scale:g} would be "
                f"{width}x{height} pixels, more than {max_pixels:,}; {hint}")
    return None


def check_size(cols: int, rows: int, scale: float = 1.0, caption_lines: int = 1,
               max_pixels: int = MAX_PICTURE_PIXELS) -> Geometry:
    """Raise :class:`PictureTooLarge` unless a picture of a ``cols`` x
    ``rows`` screen can be drawn, and give its geometry: a reader asks
    before it replays a recording whose screen is that size (replaying a
    huge screen costs time too), and the painter before it allocates."""
    geometry = Geometry.at(scale)
    problem = size_problem(cols, rows, geometry, caption_lines, max_pixels)
    if problem is not None:
        raise PictureTooLarge(problem)
    return geometry


def picture_size(cols: int, rows: int, geometry: Geometry,
                 caption_lines: int) -> tuple[int, int]:
    """The picture's width and height in pixels."""
    g = geometry
    band = caption_lines * g.cell_height + g.padding if caption_lines else 0
    return cols * g.cell_width + 2 * g.padding, rows * g.cell_height + 2 * g.padding + band
