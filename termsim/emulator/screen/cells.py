"""The cells and rows every part of the screen shares.

Why a module of its own: each concern of ``TermScreen`` (drawing, erasing,
scrolling, the kept text rows) writes the same kinds of rows and cells, and
they must agree on them: a ``TextRow`` knows its text only while every
writer keeps it (or forgets it: ``forget``), a ``Protected`` cell must
survive selective erase whoever drew it, and the history holds rows kept as
text (``HistoryRow``) that only ``history_cells`` turns back into cells.
Keeping these types and their invariants in one place, below every concern,
is what lets the concerns live in separate modules.
"""

from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple

from pyte.screens import Char, StaticDefaultDict
from wcwidth import wcwidth

from .styled import StyledText, styled_cells

#: Glyph tables and blanks kept per pen, at most (emptied when full).
MAX_GLYPH_CACHES = 512
#: Characters one glyph table keeps, at most (emptied when full): a program
#: may draw every code point there is, and the cells keep their own.
MAX_GLYPHS = 4096
#: Rows kept after they scroll off the top, for transcripts (the oldest go).
HISTORY_ROWS = 1_000
#: Undecodable bytes, as ``surrogateescape`` hands them over (one per byte).
UNDECODED = re.compile("[\udc80-\udcff]+")
BLANK = Char(" ", "default", "default", reverse=False)
REVERSE_BLANK = Char(" ", "default", "default", reverse=True)
new_tuple = tuple.__new__
#: What a cell never written reads as in ``draw``'s checks: not the
#: right half of a wide character.
NO_CELL = Char(" ")


def replaced(data: str) -> str:
    """``data`` with its undecodable bytes as U+FFFD: one per maximal invalid
    subpart (Unicode's "U+FFFD substitution of maximal subparts", as WHATWG
    and Ghostty do: ``Emulation(invalid_utf8="unicode")``; xterm's way is
    ``decoding.replaced_xterm``), not one per byte: ``E2 82`` cut short is one. The decoder
    only gives up on a subpart once the byte after it is known, so a run
    never splits one, whatever the chunks, and the characters around a run
    are whole: decoding all of ``data`` again with CPython's ``replace``
    handler, which applies the same rule, changes the runs alone (in C, in
    one pass)."""
    return data.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class Glyphs(dict[str, Char]):
    """Character -> the ``Char`` drawing it in one set of attributes, made
    on first use. ``Char`` values are immutable, so cells share them."""

    def __init__(self, attrs: Char) -> None:
        super().__init__()
        self._style = attrs[1:]  # every field after ``data``
        self._type = type(attrs)  # Char, or Protected (DECSCA)

    def __missing__(self, ch: str) -> Char:
        if len(self) >= MAX_GLYPHS:
            self.clear()
        # ``attrs._replace(data=ch)``, without its keyword handling.
        glyph = self[ch] = new_tuple(self._type, (ch, *self._style))
        return glyph


class Protected(Char):
    """A cell (or pen) drawn after DECSCA 1 (``CSI 1 " q``): selective erase
    (DECSED ``CSI ? J``, DECSEL ``CSI ? K``) leaves it. A subclass rather
    than a field, so that pyte's ``Char`` keeps its shape for everything
    else; it compares unequal to the same unprotected cell, so caches keyed
    by attributes keep the two apart."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is Protected and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((Protected, tuple(self)))


class _StyledFields(NamedTuple):
    data: str
    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    italics: bool = False
    underscore: bool = False
    strikethrough: bool = False
    reverse: bool = False
    blink: bool = False
    dim: bool = False
    invisible: bool = False
    #: "" for none or a single underline (``underscore`` says which), else
    #: "double", "curly", "dotted" or "dashed" (``underscore`` is then set).
    underline_style: str = ""
    #: As ``fg``; "default" draws the underline in the text's colour.
    underline_colour: str = "default"
    #: The OSC 8 hyperlink the cell belongs to: its URI, or ``id`` U+001F
    #: URI when the program named it; "" for none. Not an SGR attribute:
    #: SGR 0 leaves it (``sgr._SGR_RESET``), OSC 8 alone sets it.
    link: str = ""


class StyledChar(_StyledFields, Char):  # type: ignore[misc]
    """A pen (and the cells drawn with it) with an attribute pyte's ``Char``
    has no field for. A subclass, so that everything typed for ``Char``
    takes it and the screen copies it whole (``pen[1:]``,
    ``tuple.__new__(type(pen), ...)``); used only while such an attribute is
    on (:func:`_rebuilt`), so a plain ``Char`` never equals a ``StyledChar``
    and caches keyed by attributes keep them apart."""

    __slots__ = ()


class ProtectedStyledChar(StyledChar, Protected):  # type: ignore[misc]
    """:class:`StyledChar` drawn after DECSCA 1 (see ``Protected``)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is ProtectedStyledChar and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((ProtectedStyledChar, tuple(self)))


class TextRow(StaticDefaultDict[int, Char]):
    """A row that knows its text (one character per column) while it holds
    single-width characters only: a snapshot reads it instead of rebuilding
    it cell by cell. New rows start blank and known; ``draw``,
    ``_erase_cells`` and ``feed_lines`` keep the text up to date as they
    write. Setting one cell (``row[x] = cell``, the hot path) leaves the
    text alone, so every other place in the screen modules that sets a cell calls
    ``forget`` (the property test in ``tests/test_fast_lines.py`` checks
    every row's text against its cells after each step of random streams);
    the other ways to change a row, below, forget it themselves."""

    #: Not ``None``: the row has no cells yet, only this text, in the
    #: default style or as ``StyledText`` (``TermScreen.feed_lines``,
    #: ``TermScreen.settle``).
    raw: str | None = None

    def __init__(self, default: Char, text: str) -> None:
        # StaticDefaultDict.__init__ only sets ``default``: set both here.
        self.default = default
        self.text: str | None = text

    def __delitem__(self, key: int) -> None:
        self.text = None
        super().__delitem__(key)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.text = None
        super().update(*args, **kwargs)

    def clear(self) -> None:
        self.text = None
        super().clear()

    def pop(self, *args: Any) -> Any:
        self.text = None
        return super().pop(*args)

    def setdefault(self, *args: Any) -> Any:
        self.text = None
        return super().setdefault(*args)

    def popitem(self) -> tuple[int, Char]:
        self.text = None
        return super().popitem()

    def __ior__(self, other: Any) -> TextRow:  # type: ignore[override,misc]
        self.text = None
        return super().__ior__(other)


class WrappedText(str):
    """A history row kept as text (``feed_lines``) that a wrap continued
    onto the next row: the type is the flag reflow reads."""

    __slots__ = ()


def plain_rows(text: str, columns: int) -> list[str]:
    """The rows a line of plain text makes, wrapped ones as WrappedText."""
    if len(text) <= columns:
        return [text]
    last = (len(text) - 1) // columns * columns
    rows: list[str] = [WrappedText(text[i:i + columns]) for i in range(0, last, columns)]
    rows.append(text[last:])
    return rows


#: A row of the history: ``None`` (blank), a row of cells, or a row kept as
#: text because it scrolled off within one read (``TermScreen.feed_lines``):
#: plain text in the default style, or ``StyledText``.
HistoryRow = StaticDefaultDict[int, Char] | str | None


def kept(row: HistoryRow) -> HistoryRow:
    """A row going to the history as it is kept there: a row without cells
    yet as its text."""
    if type(row) is TextRow and row.raw is not None:
        raw = row.raw
        if type(raw) is not StyledText and getattr(row, "wrapped", False):
            return WrappedText(raw)
        return raw
    return row


def history_cells(row: HistoryRow) -> StaticDefaultDict[int, Char] | None:
    """A history row as cells (a text row in the default style)."""
    if not isinstance(row, str):
        return row
    line: StaticDefaultDict[int, Char] = StaticDefaultDict(BLANK)
    if type(row) is StyledText:
        line.update(styled_cells(row))
    else:
        line.update((x, new_tuple(Char, (ch, *BLANK[1:]))) for x, ch in enumerate(row))
    if isinstance(row, WrappedText) or (type(row) is StyledText and row.wrapped):
        line.wrapped = True  # type: ignore[attr-defined]
    return line if row else None


def forget(line: StaticDefaultDict[int, Char]) -> None:
    """A cell of ``line`` was set other than by ``draw``: its text
    (``TextRow``) is rebuilt from the cells when a snapshot asks."""
    if type(line) is TextRow:
        line.text = None


#: Text made only of characters one column wide (in blocks where every
#: character is: printable ASCII, Latin, Greek, Cyrillic, punctuation,
#: arrows, box drawing, U+FFFD; ``tests/test_adversarial_input.py`` holds
#: each to ``wcwidth``): ``_all_narrow`` decides it in one match, where a
#: text of any other characters asks ``wcwidth`` a character at a time.
_NARROW_CHARS = ("[\x20-\x7e\xa0-\u02ff\u0370-\u0482\u048a-\u0590\u1e00-\u200a\u2010-\u2027"
                 "\u2030-\u205e\u20f1-\u2319\u23f4-\u25fc\ufffd]")
_NARROW_TEXT = re.compile(_NARROW_CHARS + "*+")
#: Text of those characters and bytes that were not UTF-8 (which are drawn
#: as U+FFFD, one of them), in one match: random bytes decode to it.
NARROW_OR_UNDECODED = re.compile(_NARROW_CHARS[:-1] + "\udc80-\udcff]*+")
#: Four or more of those in a row: in text that is not all of them (a wide
#: character or a mark among them), what ``_drawable`` still draws the fast
#: way (shorter stretches cost less one character at a time).
NARROW_STRETCH = re.compile(_NARROW_CHARS + "{4,}+")


def _all_narrow(data: str) -> bool:
    return UNDECODED.search(data) is None and all(wcwidth(ch) == 1 for ch in data)


_narrow_short = functools.lru_cache(maxsize=4096)(_all_narrow)


def is_narrow(data: str) -> bool:
    """Whether every character of ``data`` takes one column: then it draws
    as ASCII does (no wide halves, no marks to combine, and no undecodable
    bytes, which become U+FFFD). A prompt's ``❯`` or a box's ``─`` comes
    again and again, so short strings are remembered (after the blocks
    known narrow, which settle most text in one match)."""
    if _NARROW_TEXT.fullmatch(data) is not None:
        return True
    return _narrow_short(data) if len(data) <= 16 else _all_narrow(data)


def is_regional(char: str) -> bool:
    """Whether ``char`` is a regional indicator (two make a flag)."""
    return "\U0001f1e6" <= char <= "\U0001f1ff"


def is_stub(cell: Char | None) -> bool:
    """Whether a cell is the right half of a wide character."""
    return cell is not None and cell.data == ""
