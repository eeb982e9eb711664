"""Drawing text: wide characters, combining marks, grapheme clusters.

Why a module of its own: ``draw`` is the hot path of every workload
(``benchmarks/bench_feed.py``) and the place pyte loses text (it stops at
the first zero-width character that is not a combining mark,
selectel/pyte#190; lets a wide character straddle the margin; leaves half a
wide character behind, #75, #207). The fast way (printable ASCII, a line
segment at a time with shared ``Char`` values, long segments kept by
``KeptSegments``) and the slow way (one character at a time, clusters and
marks) are kept side by side so that they can be checked against each
other.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

from pyte import modes as mo
from pyte.screens import Char
from wcwidth import wcwidth

from ..parsing.decoding import replaced_xterm
from .cells import (
    MAX_GLYPH_CACHES,
    NARROW_OR_UNDECODED,
    NARROW_STRETCH,
    NO_CELL,
    UNDECODED,
    Glyphs,
    TextRow,
    forget,
    is_narrow,
    is_regional,
    new_tuple,
    replaced,
)
from .charsets import LAT1
from .marks import EXTENDS_ALONE, MARKS, ZWJ, MarkOps
from .segments import KEPT_SEGMENT

#: A row's text (``TextRow``) is updated as a run this long or longer is
#: drawn; after a shorter one it is rebuilt from the cells if a snapshot asks.
_SHORT_RUN = 8



class DrawOps(MarkOps):
    """Printable text at the cursor, and REP."""

    #: The pen ``draw`` last drew with from a glyph table, and that table
    #: (one of ``_glyphs``, or one emptied from it: still that pen's).
    _pen: Char | None = None
    _pen_glyphs: Mapping[str, Char] = MappingProxyType({})

    def _undecoded(self, data: str) -> str:
        """``data`` with the bytes that were not UTF-8 as U+FFFD, as many as
        the emulation's terminal draws (``Emulation.invalid_utf8``)."""
        return replaced_xterm(data) if self.xterm_utf8 else replaced(data)

    def _glyph_table(self, attrs: Char) -> Glyphs:
        table = self._glyphs.get(attrs)
        if table is None:
            if len(self._glyphs) > MAX_GLYPH_CACHES:
                self._glyphs.clear()
            table = self._glyphs[attrs] = Glyphs(attrs)
        return table

    def _drawable(self, data: str) -> str:
        """Text ``draw`` cannot put in cells as it stands, made ready: passed
        through the character set in GL (or a single shift), then drawn here
        the slow way (``""`` returned: insert mode, wide characters, marks)
        or returned for ``draw`` to go on with (characters one column wide
        each: ``is_narrow``)."""
        if not data:
            return ""
        if self.single_shift:
            first = data[0].translate(self.g2_charset if self.single_shift == 2
                                      else self.g3_charset)
            self.single_shift = 0
            data = first + self._in_gl(data[1:])
        elif self.charset or self.g0_charset is not LAT1:
            data = self._in_gl(data)
        if data.isascii():
            narrow = True
        elif NARROW_OR_UNDECODED.fullmatch(data) is not None:
            # Narrow text, with bytes that were not UTF-8 perhaps, drawn as
            # U+FFFD, one column each (one match where random bytes took
            # three: whether there are such bytes, then whether the text
            # with them replaced is all narrow).
            if not data.isprintable():
                # (A lone surrogate never is; a no-break space neither, and
                # text with one only costs a pass that changes nothing.)
                data = self._undecoded(data)
            narrow = True
        else:
            if UNDECODED.search(data):
                # Bytes that were not UTF-8 are drawn as U+FFFD, one column
                # each: then the rest may still be drawn the fast way.
                data = self._undecoded(data)
            # With clusters too: none of those blocks' characters extends a
            # cluster on its own (a skin tone, a regional indicator, a
            # variation selector), so they draw as ASCII does.
            narrow = not self.graphemes and is_narrow(data)
        if narrow:  # no mark in it; otherwise the slow path says (REP)
            self.last_char = data[-1]
        if narrow and self.lr_margins is None:
            if mo.IRM not in self.mode:
                return data
            self._insert_narrow(data)
        elif (self.graphemes or self.lr_margins is not None or mo.IRM in self.mode
              or self._gl_table() is not LAT1):
            self._draw_slow(data)
        else:
            self._draw_mixed(data)
        return ""

    def _draw_mixed(self, data: str) -> None:
        """Text ready to be drawn (``_drawable``), not all of it one column
        wide each (a wide character, a mark): its stretches of four or more
        narrow characters are drawn the fast way (``draw`` again: the
        character set in GL is ASCII, nothing is passed through it twice),
        the rest one at a time (``_draw_slow``), which is what drawing it all
        one at a time does (a mark after a stretch joins its last cell, as it
        would). Random bytes decode to such text every few characters: drawn
        all one at a time it cost the random-bytes stream a sixth of its
        time. Without clusters, margins and insert mode only."""
        at = 0
        for stretch in NARROW_STRETCH.finditer(data):
            start = stretch.start()
            if start > at:
                self._draw_slow(data[at:start])
            self.draw(stretch.group())
            at = stretch.end()
        if at < len(data):
            self._draw_slow(data[at:])

    def _insert_narrow(self, data: str) -> None:
        """Insert mode (IRM), characters one column wide, no left and right
        margins: each stretch up to the edge is one ICH of its length, then
        its cells, which is what inserting its characters one at a time does
        (each pushes the rest of the row right, off the edge), at the cost
        of one insertion a stretch rather than one a character (a row's
        worth each)."""
        columns = self.columns
        cursor = self.cursor
        glyphs = self._glyphs.get(cursor.attrs)
        if glyphs is None:
            glyphs = Glyphs(cursor.attrs)
        self._backed = None  # as in ``draw``
        while data:
            if cursor.x >= columns:
                if mo.DECAWM in self.mode:
                    self.dirty.add(cursor.y)
                    self.buffer[cursor.y].wrapped = True  # type: ignore[attr-defined]
                    cursor.x = 0
                    self.index()
                else:  # each would be inserted in the last column: the last stays
                    cursor.x = columns - 1
                    data = data[-1]
            x = cursor.x
            segment, data = data[:columns - x], data[columns - x:]
            self.insert_characters(len(segment))
            line = self.buffer[cursor.y]
            for col, ch in enumerate(segment, x):
                line[col] = glyphs[ch]
            forget(line)
            cursor.x = x + len(segment)
            self.dirty.add(cursor.y)

    def draw(self, data: str) -> None:
        """Draw printable text at the cursor.

        The parser never passes C0/C1 controls here. Hot path, guarded by
        ``benchmarks/bench_feed.py``, every workload: the colour stream draws
        runs of one to five characters, the logs whole lines. Printable ASCII
        in the ASCII set is drawn at once; other text is made ready by
        ``_drawable`` first (each character left takes one column and joins
        no cluster). Either way a line segment at a time, with shared
        ``Char`` values.
        """
        if (not data.isascii() or not data or self.single_shift or self.charset
                or self.g0_charset is not LAT1 or mo.IRM in self.mode
                or self.lr_margins is not None):
            data = self._drawable(data)
            if not data:
                return
        else:
            self.last_char = data[-1]
        columns = self.columns
        cursor = self.cursor
        attrs = cursor.attrs
        glyphs: Mapping[str, Char] | None
        if attrs is self._pen:
            # The pen of the table drawn with last: no pen hashed (a tuple's
            # hash is not kept, and a pen has ten fields).
            glyphs = self._pen_glyphs
        else:
            glyphs = self._glyphs.get(attrs)
            if glyphs is None:
                if attrs is not self._single:
                    # Attributes not drawn with just before: true-colour output
                    # draws each run in its own colour, most never seen again, so
                    # the table is only made when they come a second time.
                    self._single = attrs
                    cls, style = type(attrs), attrs[1:]
                    glyphs = {ch: new_tuple(cls, (ch, *style)) for ch in data}
                else:
                    glyphs = self._pen_glyphs = self._glyph_table(attrs)
                    self._pen = attrs
            else:
                self._pen, self._pen_glyphs = attrs, glyphs
        buffer = self.buffer
        dirty = self.dirty
        segments = self._segments
        set_cells = dict.update
        # A character written: a mark after it joins it, not the cell a BS
        # left the cursor on (xterm's dotext sets ``char_was_written``).
        self._backed = None
        while data:
            x = cursor.x
            if x >= columns:
                if mo.DECAWM in self.mode:
                    dirty.add(cursor.y)
                    buffer[cursor.y].wrapped = True  # type: ignore[attr-defined]
                    cursor.x = x = 0
                    self.index()
                else:
                    # Without autowrap the last column is overwritten; only the
                    # final character of what remains can survive there.
                    x = columns - 1
                    data = data[-1]
            end = x + len(data)
            if end > columns:
                end = columns
                segment, data = data[:columns - x], data[columns - x:]
            else:
                segment, data = data, ""
            line = buffer[cursor.y]
            # Overwriting half of a wide character blanks its other half, in
            # the current colours (``_unsplit``).
            if x and line.get(x, NO_CELL).data == "":
                line[x - 1] = self._blank() or self.default_char
                forget(line)
            if end < columns and line.get(end, NO_CELL).data == "":
                line[end] = self._blank() or self.default_char
                forget(line)
            # A TextRow's text is updated below, by slicing (setting a cell
            # leaves it as it was; ``update`` would forget it).
            if end - x == 1:
                line[x] = glyphs[segment]
            elif end - x < KEPT_SEGMENT:
                # Each cell with its column, set in one ``dict.update`` in C:
                # from three cells on cheaper than a loop setting them one by
                # one, and than ``zip`` with ``range`` (whose ``strict``
                # keyword alone costs what setting five cells does).
                set_cells(line, enumerate(map(glyphs.__getitem__, segment), x))
            else:
                # A long segment: its cells kept if drawn here before in this
                # pen (a status bar redrawn in place): the one primitive of
                # that fast path (``segments.py``).
                set_cells(line, segments.cells(x, segment, glyphs))
            if type(line) is TextRow and line.text is not None:
                # A long run is cheaper to splice in than to rebuild later; a
                # short one (a colour stream's) is not: the text is rebuilt
                # from the cells if a snapshot asks.
                line.text = (line.text[:x] + segment + line.text[end:]
                             if end - x >= _SHORT_RUN else None)
            cursor.x = end
            dirty.add(cursor.y)

    def _draw_slow(self, data: str) -> None:
        """Text one character at a time: wide characters, marks, clusters,
        insert mode, margins, undecodable bytes.

        A run of marks joins its cell at once (``_combine``): they do not
        move the cursor, so each would join the same cell, and one join of
        the run costs what one mark did. Cells come from the pen's glyph
        table, as in ``draw``."""
        columns = self.columns
        cursor = self.cursor
        if UNDECODED.search(data):
            data = self._undecoded(data)
        graphemes = self.graphemes
        attrs = cursor.attrs
        glyphs = self._glyphs.get(attrs)
        if glyphs is None:
            glyphs = Glyphs(attrs)  # not kept: as ``draw``'s single pen
        # Neither changes while text is drawn.
        lr = self.lr_margins
        irm = mo.IRM in self.mode
        dirty = self.dirty
        marks: list[str] = []  # zero-width characters not joined to their cell yet
        # With clusters: whether the cell before the cursor may end with a
        # ZWJ, which joins whatever comes next (``_extends_cluster`` looks).
        after_zwj = True
        for char in data:
            if marks:
                if (MARKS[char] and not (graphemes and (marks[-1] == ZWJ
                                                           or char in EXTENDS_ALONE))):
                    marks.append(char)
                    continue
                self._combine("".join(marks))
                marks.clear()
            if (graphemes and (after_zwj or char in EXTENDS_ALONE)
                    and self._extends_cluster(char)):
                after_zwj = char == ZWJ
                continue
            # A regional indicator alone is one column, as the system's
            # wcwidth has it and xterm draws it (a flag is two); with
            # clusters on, the pair is one cell two columns wide.
            width = 1 if not graphemes and is_regional(char) else wcwidth(char)
            if width <= 0:
                if unicodedata.combining(char) or width == 0:
                    marks.append(char)
                    after_zwj = char == ZWJ
                # Other unprintables (width -1) are dropped, and only them:
                # pyte drops the rest of the run here.
                continue
            # REP repeats the last character that started a cell, without the
            # marks or cluster code points joined to it, as xterm
            # (``lastchar``) and Ghostty (``previous_char``) do.
            self.last_char = char
            after_zwj = False
            # Text stops at the right margin from inside it, at the edge from
            # right of it (xterm's ``dotext``); without margins, the edge.
            edge = columns if lr is None or cursor.x > lr[1] else lr[1] + 1
            if (cursor.x >= columns or (width == 2 and cursor.x == edge - 1)
                    or (self._margin_wrap is not None
                        and self._margin_wrap == (cursor.x, cursor.y))):
                self._margin_wrap = None
                if mo.DECAWM in self.mode:
                    dirty.add(cursor.y)
                    self.buffer[cursor.y].wrapped = True  # type: ignore[attr-defined]
                    if lr is None:
                        cursor.x = 0
                        self.index()
                    else:
                        # Index from the column the text reached (inside the
                        # margins or not), then to the left margin (xterm's
                        # ``WrapLine``).
                        self.index()
                        cursor.x = lr[0]
                        edge = lr[1] + 1
                else:
                    cursor.x = edge - width
            if irm:
                self.insert_characters(width)
            line = self.buffer[cursor.y]
            if type(line) is TextRow:
                line.text = None  # rebuilt from the cells when asked
            x = cursor.x
            if x in line:
                self._unsplit(line, x)
            line[x] = glyphs[char]
            self._backed = None  # as in ``draw``
            if width == 2 and x + 1 < columns:
                if x + 1 in line:
                    self._unsplit(line, x + 1, left=False)
                line[x + 1] = glyphs[""]
            if x + width < edge or edge == columns:
                cursor.x = min(x + width, columns)
            else:
                # At the right margin: the wrap is pending there (without
                # autowrap the margin column is written over).
                cursor.x = edge - 1
                if mo.DECAWM in self.mode:
                    self._margin_wrap = (cursor.x, cursor.y)
            dirty.add(cursor.y)
        if marks:
            self._combine("".join(marks))

    def repeat_last(self, count: int | None = None) -> None:
        """REP (``CSI n b``): repeat the last drawn graphic character."""
        if self.last_char:
            self.draw(self.last_char * min(count or 1, self.columns * self.lines))
