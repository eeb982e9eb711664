"""The small immutable values a screen is read as: styles, cells, runs, the
cursor and the terminal's modes.

They are what :class:`~termsim.emulator.snapshot.snapshot.Snapshot` hands out and what
renderers, predicates and key encoders take in. They live apart from the
snapshot because they know nothing of how a screen is stored (no pyte in
here), so the code that reads stored rows (:mod:`.rows`) and the
modules that need only a mode or a style can import them without the
snapshot. :mod:`termsim.emulator.snapshot.snapshot` re-exports them all.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Style:
    """How a cell is drawn: every attribute xterm keeps for a cell, and the
    underline styles and colour of kitty and VTE. Colours are pyte's names
    (``"red"``, ``"brightblue"``, ``"default"``) or ``"rrggbb"`` hex for
    256/24-bit ones.

    ``underline`` is any underline; ``underline_style`` is ``""`` for a plain
    single one (so that ``Style(underline=True)`` is what ``ESC[4m`` draws)
    and ``"double"``, ``"curly"``, ``"dotted"`` or ``"dashed"`` otherwise.
    ``underline_colour`` is ``"default"`` (the text's colour) for cells that
    are not underlined, whatever SGR 58 said: it draws nothing there.
    ``invisible`` is SGR 8 (conceal). ``link`` is the URI of the OSC 8
    hyperlink the cell belongs to ("" for none) and ``link_id`` the id the
    program gave it (cells of one id are one link, even apart). The fields
    added after ``blink`` come last, so that styles written positionally
    keep their meaning.
    """

    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False
    strikethrough: bool = False
    blink: bool = False
    dim: bool = False
    invisible: bool = False
    underline_style: str = ""
    underline_colour: str = "default"
    link: str = ""
    link_id: str = ""


@dataclass(frozen=True, slots=True)
class LinkRun:
    """An OSC 8 hyperlink on the screen: a run of linked cells in one row
    (columns ``start`` to ``stop``, exclusive), its text, URL and id ("" if
    the program gave none)."""

    text: str
    url: str
    id: str
    row: int
    start: int
    stop: int


@dataclass(frozen=True, slots=True)
class Cell:
    """One screen cell. ``char`` is ``""`` for the right half of a wide character."""

    char: str
    style: Style


@dataclass(frozen=True, slots=True)
class Run:
    """Cells of one style side by side, from :meth:`Snapshot.runs`.

    The run covers columns ``col`` to ``col + width - 1``. A wide character
    is a run of its own (``wide``, two columns, its text the character
    once), and so is a cell holding several code points (a character with
    combining marks, a ZWJ sequence); so every other run has exactly one
    code point per column, and a renderer can cut it at any column
    (``text[i]`` is column ``col + i``) or place each character on the grid
    without knowing about Unicode widths.
    """

    col: int
    text: str
    style: Style
    width: int
    wide: bool = False


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the cursor is (0-based row and column) and whether it is shown:
    a prompt is ready when the cursor sits after it, visible."""
    row: int
    col: int
    visible: bool


@dataclass(frozen=True, slots=True)
class Modes:
    """Terminal modes a test may want to check or that change what keys send."""

    bracketed_paste: bool = False
    application_cursor: bool = False
    application_keypad: bool = False
    autowrap: bool = True
    insert: bool = False
    origin: bool = False
    #: ``None``, ``"x10"`` (9), ``"normal"`` (1000), ``"button"`` (1002) or ``"any"`` (1003).
    mouse: str | None = None
    #: ``None`` (X10 bytes), ``"utf8"`` (1005), ``"sgr"`` (1006), ``"urxvt"``
    #: (1015), or ``"sgr-pixels"`` (1016, where the profile's terminal has it).
    mouse_encoding: str | None = None
    focus_events: bool = False
    #: DECSCUSR value: 0 default, 1/2 block, 3/4 underline, 5/6 bar.
    cursor_shape: int = 0
    #: The kitty keyboard protocol flags in force on the screen in use (the
    #: top of its stack; 0: legacy keys): 1 disambiguate, 2 event types,
    #: 4 alternate keys, 8 all keys as escape codes, 16 associated text.
    kitty_keyboard: int = 0
    #: xterm's modifyOtherKeys level (``CSI > 4 ; n m``): 0, 1 or 2.
    modify_other_keys: int = 0
