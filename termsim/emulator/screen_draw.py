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

from pyte import modes as mo
from pyte.screens import Char, StaticDefaultDict
from wcwidth import wcwidth

from .screen_cells import (
    _MAX_GLYPH_CACHES,
    _NO_CELL,
    _UNDECODED,
    TextRow,
    _forget,
    _Glyphs,
    _is_regional,
    _is_stub,
    _narrow,
    _new_tuple,
    _replacement,
)
from .screen_charsets import _LAT1, CharsetOps
from .screen_segments import KEPT_SEGMENT

#: Runs shorter than this are written a cell at a time, longer ones with one
#: ``dict.update`` (cheaper per cell, dearer to set up).
_SHORT_RUN = 8


class DrawOps(CharsetOps):
    """Printable text at the cursor, and REP."""

    def _glyph_table(self, attrs: Char) -> _Glyphs:
        table = self._glyphs.get(attrs)
        if table is None:
            if len(self._glyphs) > _MAX_GLYPH_CACHES:
                self._glyphs.clear()
            table = self._glyphs[attrs] = _Glyphs(attrs)
        return table

    def _drawable(self, data: str) -> str:
        """Text ``draw`` cannot put in cells as it stands, made ready: passed
        through the character set in GL (or a single shift), then drawn here
        the slow way (``""`` returned: insert mode, wide characters, marks)
        or returned for ``draw`` to go on with (characters one column wide
        each: ``_narrow``)."""
        if not data:
            return ""
        if self.single_shift:
            first = data[0].translate(self.g2_charset if self.single_shift == 2
                                      else self.g3_charset)
            self.single_shift = 0
            data = first + self._in_gl(data[1:])
        elif self.charset or self.g0_charset is not _LAT1:
            data = self._in_gl(data)
        self.last_char = data[-1]
        if mo.IRM in self.mode or self.lr_margins is not None or not (
                data.isascii() or (not self.graphemes and _narrow(data))):
            self._draw_slow(data)
            return ""
        return data

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
                or self.g0_charset is not _LAT1 or mo.IRM in self.mode
                or self.lr_margins is not None):
            data = self._drawable(data)
            if not data:
                return
        else:
            self.last_char = data[-1]
        columns = self.columns
        cursor = self.cursor
        attrs = cursor.attrs
        glyphs: Mapping[str, Char] | None = self._glyphs.get(attrs)
        if glyphs is None:
            if attrs is not self._single:
                # Attributes not drawn with just before: true-colour output
                # draws each run in its own colour, most never seen again, so
                # the table is only made when they come a second time.
                self._single = attrs
                cls, style = type(attrs), attrs[1:]
                glyphs = {ch: _new_tuple(cls, (ch, *style)) for ch in data}
            else:
                glyphs = self._glyph_table(attrs)
        buffer = self.buffer
        dirty = self.dirty
        segments = self._segments
        set_cells = dict.update
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
            # Overwriting half of a wide character blanks its other half.
            if x and line.get(x, _NO_CELL).data == "":
                line[x - 1] = line[x - 1]._replace(data=" ")
                _forget(line)
            if end < columns and line.get(end, _NO_CELL).data == "":
                line[end] = line[end]._replace(data=" ")
                _forget(line)
            # A TextRow's text is updated below, by slicing (setting a cell
            # leaves it as it was; ``update`` would forget it).
            if end - x == 1:
                line[x] = glyphs[segment]
            elif end - x < _SHORT_RUN:
                for col, ch in enumerate(segment, x):
                    line[col] = glyphs[ch]
            elif end - x < KEPT_SEGMENT:  # range and segment: the same length
                set_cells(line, zip(range(x, end), map(glyphs.__getitem__, segment),
                                    strict=False))
            else:
                # A long segment: its cells kept if drawn here before in this
                # pen (a status bar redrawn in place): the one primitive of
                # that fast path (``screen_segments.py``).
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
        columns = self.columns
        cursor = self.cursor
        if _UNDECODED.search(data):
            data = _UNDECODED.sub(_replacement, data)
        graphemes = self.graphemes
        for char in data:
            # As if drawn one by one: a mark joined to the character before
            # makes the whole character what REP repeats, and only until the
            # next one is drawn.
            self.last_char = char
            if graphemes and self._extends_cluster(char):
                continue
            width = wcwidth(char)
            if width <= 0:
                if unicodedata.combining(char) or width == 0:
                    self._combine(char)
                # Other unprintables (width -1) are dropped, and only them:
                # pyte drops the rest of the run here.
                continue
            # Text stops at the right margin from inside it, at the edge from
            # right of it (xterm's ``dotext``); without margins, the edge.
            lr = self.lr_margins
            edge = columns if lr is None or cursor.x > lr[1] else lr[1] + 1
            if (cursor.x >= columns or (width == 2 and cursor.x == edge - 1)
                    or self._margin_wrap == (cursor.x, cursor.y)):
                self._margin_wrap = None
                if mo.DECAWM in self.mode:
                    self.dirty.add(cursor.y)
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
            if mo.IRM in self.mode:
                self.insert_characters(width)
            line = self.buffer[cursor.y]
            if type(line) is TextRow:
                line.text = None  # rebuilt from the cells when asked
            x = cursor.x
            self._unsplit(line, x)
            line[x] = cursor.attrs._replace(data=char)
            if width == 2 and x + 1 < columns:
                self._unsplit(line, x + 1, left=False)
                line[x + 1] = cursor.attrs._replace(data="")
            if x + width < edge or edge == columns:
                cursor.x = min(x + width, columns)
            else:
                # At the right margin: the wrap is pending there (without
                # autowrap the margin column is written over).
                cursor.x = edge - 1
                if mo.DECAWM in self.mode:
                    self._margin_wrap = (cursor.x, cursor.y)
            self.dirty.add(cursor.y)

    def _extends_cluster(self, char: str) -> bool:
        """With grapheme clustering: add ``char`` to the cell before the
        cursor when it continues that cell's cluster (after a ZWJ, a skin
        tone, the second regional indicator of a flag, a variation
        selector); VS16 makes a one-column character two columns wide when
        there is room. Returns whether ``char`` was used so."""
        before = self._cell_before_cursor()
        if before is None:
            return False
        line, x = before
        y = self.cursor.y
        cell = line.get(x)
        if cell is None or not cell.data:
            return False
        text = cell.data
        joins = (
            text[-1] == "\u200d"  # ZWJ: the next character joins the cluster
            or "\U0001f3fb" <= char <= "\U0001f3ff"  # skin tone
            or (_is_regional(char) and len(text) == 1 and _is_regional(text))
            or char in "\ufe0e\ufe0f"
        )
        if not joins:
            return False
        line[x] = cell._replace(data=text + char)
        _forget(line)
        self.last_char = text + char
        self.dirty.add(y)
        if char == "\ufe0f" and wcwidth(text[0]) == 1 and x + 1 < self.columns:
            # Emoji presentation: the character takes two columns.
            self._unsplit(line, x + 1, left=False)
            line[x + 1] = cell._replace(data="")
            self.cursor.x = min(x + 2, self.columns)
        return True

    def _unsplit(self, line: StaticDefaultDict[int, Char], x: int, left: bool = True) -> None:
        """Blank the orphaned half when a wide character is partly overwritten."""
        old = line.get(x)
        if old is None:
            return
        _forget(line)
        if old.data == "" and x > 0 and left:
            prev = line.get(x - 1)
            if prev is not None:
                line[x - 1] = prev._replace(data=" ")
        elif old.data and wcwidth(old.data[0]) == 2 and x + 1 < self.columns:
            nxt = line.get(x + 1)
            if nxt is not None and nxt.data == "":
                line[x + 1] = nxt._replace(data=" ")

    def _combine(self, char: str) -> None:
        """Attach a zero-width character to the cell before the cursor.

        At the first column there is none (the cursor was moved there), and
        the character is dropped; during a pending wrap it is the last column.
        """
        before = self._cell_before_cursor()
        if before is None:
            return
        line, x = before
        last = line[x]
        line[x] = last._replace(data=unicodedata.normalize("NFC", last.data + char))
        _forget(line)
        # REP repeats the whole character, marks included.
        self.last_char = line[x].data
        self.dirty.add(self.cursor.y)

    def _cell_before_cursor(self) -> tuple[StaticDefaultDict[int, Char], int] | None:
        """The row and column of the character before the cursor, which a
        mark or a cluster's next code point joins: the last column during a
        pending wrap, the left half of a wide character; None at column 0
        (the cursor was moved there: nothing to join).

        Right after BS or CUB (the cursor still where they left it), the
        cell the cursor is on, as in xterm: a move clears its
        ``char_was_written``, and a mark then joins the cursor's cell
        (``doparsing``: ``use_col = cur_col``); so ``abc`` BS U+0301 on
        three columns is ``ab́c`` (the BS from the pending wrap lands on
        column 1). tmux joins the cell before its cursor, which its BS
        leaves past the edge, and ``Emulation(backspace_at_wrap="tmux")``
        does so. After other moves termsim joins the cell before the cursor
        (tmux's rule; xterm's is the cursor's cell)."""
        x = self.cursor.x
        if self._margin_wrap == (x, self.cursor.y) or self._backed == (x, self.cursor.y):
            x += 1  # pending at the right margin, or after BS: the cursor's cell
        if x == 0:
            return None
        line = self.buffer[self.cursor.y]
        x = min(x, self.columns) - 1
        if x > 0 and _is_stub(line.get(x)):
            x -= 1
        return line, x

    def repeat_last(self, count: int | None = None) -> None:
        """REP (``CSI n b``): repeat the last drawn graphic character."""
        if self.last_char:
            self.draw(self.last_char * min(count or 1, self.columns * self.lines))
