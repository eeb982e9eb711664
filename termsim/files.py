"""For tools that read, convert and show recordings: the file format, the
asciicast bridge, the HTML and SVG reports, PNG and GIF pictures (with
Pillow, the ``termsim[pictures]`` extra), stepping through a recording and
comparing two of them.

These are what ``termsim show``, ``export``, ``import`` and ``diff`` are made
of, for a tool of your own (a CI step that attaches an HTML report, a
converter). A recording is untrusted input: everything here bounds what it
reads (see ``docs/security.md``). Test code needs none of it: it imports
from :mod:`termsim`, and :func:`termsim.replay` opens a recording for a
test.
"""

from __future__ import annotations

from .engine.playback import Playback
from .events import Event
from .naming import publish
from .offline.diff import SessionDiff, diff
from .recording.format import Recording, WaitRecord
from .report.asciicast import Cast, ExportReport, export_asciicast, import_asciicast, read_asciicast
from .report.gif import GifReport, write_session_gif
from .report.html import recording_html
from .report.picture import PicturesUnavailable, PictureTooLarge, snapshot_png
from .report.svg import snapshot_svg

__all__ = [
    "Cast",
    "Event",
    "ExportReport",
    "GifReport",
    "PictureTooLarge",
    "PicturesUnavailable",
    "Playback",
    "Recording",
    "SessionDiff",
    "WaitRecord",
    "diff",
    "export_asciicast",
    "import_asciicast",
    "read_asciicast",
    "recording_html",
    "snapshot_png",
    "snapshot_svg",
    "write_session_gif",
]

publish(globals(), __all__, __name__)
del publish
