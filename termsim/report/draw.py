"""What the renderers share: colours, escaping, and a row as it is drawn.

The SVG screenshot (:mod:`termsim.report.svg`) and the HTML report
(:mod:`termsim.report.html`) must draw a screen the same way, so the decisions live
here once: xterm's palette for pyte's colour names, reverse video and the
cursor as swapped colours (:class:`Look`), where a cursor that sits past the
last column is drawn, and which characters are replaced before they reach
markup. A row comes from :meth:`~termsim.Snapshot.runs` (the only view of a
screen this module uses) and leaves as :class:`DrawnRun` values, in looks,
with the cursor laid over it; each renderer then only writes its format.

Everything the program printed is data: :func:`clean` replaces the characters
XML cannot hold (and the invisible controls) with U+FFFD, and :func:`escape`
is the one escaping function of both renderers, for text and for quoted
attribute values alike.

Derived looks are memoised by style *identity*: a snapshot hands out one
``Style`` object per set of attributes, and a page of thousands of screens
asks for the same few looks tens of thousands of times (hashing a dataclass
each time would cost more than drawing the rest of the run).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..emulator.snapshot.snapshot import Run, Snapshot, Style

#: xterm's default 16 colours, under pyte's names (pyte says "brown" for yellow,
#: and "bfightmagenta" for the bright magenta background, a typo kept here).
PALETTE: dict[str, str] = {
    "black": "#000000",
    "red": "#cd0000",
    "green": "#00cd00",
    "brown": "#cdcd00",
    "yellow": "#cdcd00",
    "blue": "#0000ee",
    "magenta": "#cd00cd",
    "cyan": "#00cdcd",
    "white": "#e5e5e5",
    "brightblack": "#7f7f7f",
    "brightred": "#ff0000",
    "brightgreen": "#00ff00",
    "brightbrown": "#ffff00",
    "brightyellow": "#ffff00",
    "brightblue": "#5c5cff",
    "brightmagenta": "#ff00ff",
    "bfightmagenta": "#ff00ff",
    "brightcyan": "#00ffff",
    "brightwhite": "#ffffff",
}
#: The default foreground (light grey) and background (dark).
DEFAULT_FG = "#d0d0d0"
DEFAULT_BG = "#1c1c1c"

_HEX = re.compile(r"[0-9a-fA-F]{6}")
# Characters XML 1.0 cannot hold, plus the C0/C1 controls and DEL (legal in XML
# but invisible, and never meant to be on a screen).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def colour(name: str, default: str) -> str:
    """``#rrggbb`` for a pyte colour name or hex string; ``default`` for "default"
    and anything not understood, so that nothing but a colour reaches markup."""
    if name in PALETTE:
        return PALETTE[name]
    if len(name) == 6 and _HEX.fullmatch(name):
        return "#" + name.lower()
    return default


def clean(text: str) -> str:
    """``text`` with every character XML cannot hold replaced by U+FFFD (one
    for one, so columns still count)."""
    if text.isascii() and text.isprintable():
        return text  # the usual case, without the regex
    return _UNSAFE.sub("\ufffd", text)


def escape(value: object) -> str:
    """``str(value)``, cleaned, for XML/HTML text and for double- or
    single-quoted attribute values: the one escaping rule of both renderers,
    so neither can be looser than the other."""
    return (
        clean(str(value)).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace('"', "&quot;").replace("'", "&#39;")
    )


@dataclass(frozen=True, slots=True)
class Look:
    """How a cell is drawn, resolved: colours as ``#rrggbb``, reverse video,
    dim (``fg`` halfway to ``bg``), invisible (``fg`` is ``bg``) and the
    cursor already applied, so a renderer only writes it out. The flags
    ``dim`` and ``invisible`` stay for a renderer that wants to say more.

    ``underline_style`` is a CSS ``text-decoration-style`` (``""`` for the
    plain line), ``underline_colour`` ``#rrggbb`` or ``""`` for the text's
    colour. Fields after ``cursor`` come last, so that looks written
    positionally keep their meaning.
    """

    fg: str
    bg: str
    bold: bool = False
    italic: bool = False
    underline: bool = False
    strikethrough: bool = False
    cursor: bool = False
    dim: bool = False
    blink: bool = False
    invisible: bool = False
    underline_style: str = ""
    underline_colour: str = ""


#: Underline styles (``Style.underline_style``) as CSS ``text-decoration-style``.
_CSS_UNDERLINE = {"double": "double", "curly": "wavy", "dotted": "dotted", "dashed": "dashed"}


def blend(fg: str, bg: str) -> str:
    """The colour halfway between two ``#rrggbb`` colours: dim text (SGR 2),
    drawn as terminals that have no faint font draw it, so that it stays
    text of its own colour in SVG and HTML alike."""
    return "#" + "".join(f"{(int(fg[i:i + 2], 16) + int(bg[i:i + 2], 16)) // 2:02x}"
                         for i in (1, 3, 5))


def decoration(look: Look) -> tuple[str, list[str]]:
    """The text decoration of ``look`` as CSS: the lines (``"underline
    line-through"``, ``""`` for none), and the declarations that style them
    (``text-decoration-style:wavy``...), apart so that a renderer that only
    knows the lines (SVG 1.1 viewers) still draws them."""
    lines = " ".join(n for n, on in (("underline", look.underline),
                                     ("line-through", look.strikethrough)) if on)
    rules = []
    if look.underline and look.underline_style:
        rules.append(f"text-decoration-style:{look.underline_style}")
    if look.underline and look.underline_colour:
        rules.append(f"text-decoration-color:{look.underline_colour}")
    return lines, rules


DEFAULT_LOOK = Look(DEFAULT_FG, DEFAULT_BG)
_DEFAULT_STYLE = Style()

#: ``id(style)`` -> (the style, its look, its look under the cursor); the
#: style is kept so its id stays its own. Bounded like the styles themselves.
_LOOKS: dict[int, tuple[Style, Look, Look]] = {}
_MAX_LOOKS = 1 << 14


def look(style: Style, cursor: bool = False) -> Look:
    """The look of cells in ``style``; the cursor is drawn in reverse video
    (of whatever the cell shows, reverse video included)."""
    known = _LOOKS.get(id(style))
    if known is None or known[0] is not style:
        fg, bg = colour(style.fg, DEFAULT_FG), colour(style.bg, DEFAULT_BG)
        if style.reverse:
            fg, bg = bg, fg
        if style.dim:
            fg = blend(fg, bg)
        on = style.underline
        attrs = (bool(style.bold), bool(style.italic), bool(on), bool(style.strikethrough))
        dim, blink, invisible = bool(style.dim), bool(style.blink), bool(style.invisible)
        under = _CSS_UNDERLINE.get(style.underline_style, "") if on else ""
        under_colour = colour(style.underline_colour, "") if on else ""
        # Invisible text is drawn in its background colour, under the cursor too.
        shown, shown_under_cursor = (bg, fg) if invisible else (fg, bg)
        if len(_LOOKS) >= _MAX_LOOKS:
            _LOOKS.clear()
        known = _LOOKS[id(style)] = (
            style,
            Look(shown, bg, *attrs, False, dim, blink, invisible, under, under_colour),
            Look(shown_under_cursor, fg, *attrs, True, dim, blink, invisible, under, under_colour),
        )
    return known[2] if cursor else known[1]


class DrawnRun(NamedTuple):
    """A run as drawn. As in :class:`~termsim.Run`, a run that is not ``wide``
    and is more than one column wide has one code point per column. (A named
    tuple, not a dataclass: a page builds tens of thousands.)"""

    col: int
    width: int
    #: Cleaned (see :func:`clean`), not escaped: that is the format's business.
    text: str
    look: Look
    wide: bool = False
    #: The OSC 8 hyperlink of the run's cells, as the program sent it ("":
    #: none), unchecked: a renderer that makes links passes it through
    #: :func:`safe_link` first.
    link: str = ""


#: The URL schemes a report turns into links. http(s) and mailto are what
#: OSC 8 is for on the web; file is what ``ls --hyperlink``, compilers and
#: grep tools send, and opens nothing but a local file. Every other scheme,
#: ``javascript:`` and ``data:`` first, stays text.
LINK_SCHEMES = ("http", "https", "mailto", "file")
#: VTE's limit on an OSC 8 URI (a report has no use for a longer one).
MAX_LINK = 2083
_SAFE_LINK = re.compile(r"(?i)(?:https?://|file:|mailto:)[^\x00-\x20\x7f-\x9f\ud800-\udfff\\]+")


def safe_link(url: str) -> str | None:
    """``url`` if a report may make it a link, else None.

    What a browser would call the scheme is decided after it strips leading
    blanks and controls and drops tabs and newlines anywhere
    (``java\tscript:`` is ``javascript:``), so the rule here is stricter
    than any such reading: the URL must *start* with an allowed scheme and
    hold no blank, control, backslash or lone surrogate at all. Quoting it
    for markup is still the writer's job (:func:`escape`).
    """
    if len(url) > MAX_LINK or not _SAFE_LINK.fullmatch(url):
        return None
    return url


def cursor_cell(snapshot: Snapshot) -> tuple[int, int] | None:
    """Where a visible cursor is drawn, or None. Clamped into the screen: a
    cursor in the pending-wrap column (after the last one) still shows."""
    cur = snapshot.cursor
    if not cur.visible or snapshot.rows < 1 or snapshot.cols < 1:
        return None
    return min(max(cur.row, 0), snapshot.rows - 1), min(max(cur.col, 0), snapshot.cols - 1)


def drawn_runs(runs: Sequence[Run], cursor_col: int | None = None) -> list[DrawnRun]:
    """``runs`` (of one row) as drawn, with the cursor at ``cursor_col``.

    The cursor covers a whole wide character, even from its right half, and
    is a run of its own; past the end of the runs (the row's trailing
    default blanks, which the runs leave out) the blanks up to the cursor
    are drawn too, so the result ends at the cursor or the last run,
    whichever is further right.
    """
    out = [DrawnRun(r.col, r.width, clean(r.text), look(r.style), r.wide, r.style.link)
           for r in runs]
    if cursor_col is None:
        return out
    c = cursor_col
    i = next((i for i, r in enumerate(out) if r.col <= c < r.col + r.width), -1)
    if i < 0:
        end = out[-1].col + out[-1].width if out else 0
        if c > end:
            out.append(DrawnRun(end, c - end, " " * (c - end), DEFAULT_LOOK))
        out.append(DrawnRun(c, 1, " ", look(_DEFAULT_STYLE, True)))
        return out
    run = out[i]
    cursor = look(runs[i].style, True)
    if run.wide or run.width == 1:
        out[i] = run._replace(look=cursor)
        return out
    k = c - run.col
    parts = [DrawnRun(c, 1, run.text[k], cursor, False, run.link)]
    if k:
        parts.insert(0, DrawnRun(run.col, k, run.text[:k], run.look, False, run.link))
    if k + 1 < run.width:
        parts.append(DrawnRun(c + 1, run.width - k - 1, run.text[k + 1:], run.look, False,
                              run.link))
    out[i:i + 1] = parts
    return out


def drawn_row(snapshot: Snapshot, row: int, cursor: tuple[int, int] | None) -> list[DrawnRun]:
    """Row ``row`` of ``snapshot`` as drawn, given :func:`cursor_cell`'s answer."""
    if cursor is None or cursor[0] != row:
        return drawn_runs(snapshot.runs(row))
    return drawn_runs(snapshot.runs(row), cursor[1])
