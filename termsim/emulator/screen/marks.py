"""Marks and clusters: what joins the cell before the cursor.

A combining mark, a ZWJ, a variation selector, a skin tone or the second
regional indicator of a flag draws no cell of its own: it joins the cell the
last character went to (the last column during a pending wrap; the cell the
cursor is on after BS or CUB, as in xterm). How much a cell keeps is capped
(:data:`MAX_MARKS`, :data:`MAX_CLUSTER`), so that a program pouring marks
onto one cell costs a bounded amount a mark (docs/security.md).
:class:`~termsim.emulator.screen.draw.DrawOps` builds on these.
"""

from __future__ import annotations

import unicodedata

import regex
from pyte.screens import Char, StaticDefaultDict
from wcwidth import wcwidth

from .cells import MAX_GLYPHS, forget, is_regional, new_tuple
from .charsets import CharsetOps

#: Code points a cell keeps after its base character (combining marks, ZWJ,
#: variation selectors, tags), counted decomposed (NFD) as they came; more
#: are dropped, each at once. A program can pour marks onto one cell for
#: ever, and a cell that grew with them would make every mark cost the whole
#: cell again (quadratic: 40,000 marks took 34 s) and hold memory that grows
#: with the input. Terminals bound it the same way: libvterm keeps 6 code
#: points a cell (``VTERM_MAX_CHARS_PER_CELL``; its ``t/10state_putglyph``
#: and ``t/61screen_unicode`` units, run by ``tests/test_libvterm.py``,
#: check exactly this number), alacritty kept 5 (``MAX_ZEROWIDTH_CHARS`` in
#: ``alacritty_terminal/src/term/cell.rs`` until 0.6, commit ec42b42c; it
#: now appends without a limit, at no cost per mark), xterm 2 by default
#: and 5 at most (its ``combiningChars`` resource, clamped in
#: ``charproc.c``). Five is more than any script's marks on one letter
#: (Vietnamese stacks two).
MAX_MARKS = 5
#: The same with grapheme clusters drawn in one cell (``Emulation(graphemes=
#: True)``): code points after the first. An emoji ZWJ sequence with skin
#: tones is up to ten (U+1F469 U+1F3FB ZWJ U+2764 U+FE0F ZWJ U+1F48B ZWJ
#: U+1F468 U+1F3FC), a subdivision flag seven; kitty keeps 24 code points a
#: cell (``MAX_NUM_CODEPOINTS_PER_CELL``, ``kitty/line.h``: "don't allow too
#: many combining chars to prevent DoS attacks", ``kitty/screen.c``), ghostty
#: 64 (``grapheme_max_len``, ``src/terminal/page.zig``). A cluster at the cap
#: stops growing: what would extend it is dropped.
MAX_CLUSTER = 23
assert MAX_MARKS >= 4 and MAX_CLUSTER >= 4  # ``_joined`` relies on it
ZWJ = "\u200d"


class MarkOps(CharsetOps):
    """Joining the cell before the cursor (the module says what joins)."""

    def _unsplit(self, line: StaticDefaultDict[int, Char], x: int, left: bool = True) -> None:
        """Blank the orphaned half when a wide character is partly
        overwritten, in the current colours, as an erase blanks (xterm's
        ``WriteText`` clears it with ``ClearInLine``)."""
        old = line.get(x)
        if old is None:
            return
        forget(line)
        if old.data == "" and x > 0 and left:
            if x - 1 in line:
                line[x - 1] = self._blank() or self.default_char
        elif old.data and wcwidth(old.data[0]) == 2 and x + 1 < self.columns:
            nxt = line.get(x + 1)
            if nxt is not None and nxt.data == "":
                line[x + 1] = self._blank() or self.default_char

    def _extends_cluster(self, char: str) -> bool:
        """With grapheme clustering: add ``char`` to the cell before the
        cursor when it continues that cell's cluster (after a ZWJ, a skin
        tone, the second regional indicator of a flag, a variation
        selector); VS16 makes a one-column character two columns wide when
        there is room. Returns whether ``char`` was used so; a cluster of
        ``MAX_CLUSTER`` code points after its first takes nothing more, and
        what would extend it is dropped."""
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
            # A ZWJ joins a pictograph to a pictograph (UAX #29 GB11:
            # ExtPict Extend* ZWJ x ExtPict), nothing else: "a", ZWJ, an
            # emoji are two cells, as in Ghostty.
            (text[-1] == ZWJ and PICTOGRAPH.match(char) is not None
             and PICTOGRAPH.match(text) is not None)
            or "\U0001f3fb" <= char <= "\U0001f3ff"  # skin tone
            or (is_regional(char) and len(text) == 1 and is_regional(text))
            or char in "\ufe0e\ufe0f"
        )
        if not joins:
            return False
        # REP keeps repeating the code point that started the cell, as in
        # Ghostty (``previous_char`` is set only for one that starts a cell).
        if len(text) > MAX_CLUSTER:
            return True
        line[x] = new_tuple(type(cell), (text + char, *cell[1:]))  # ``_replace``, faster
        forget(line)
        self.dirty.add(y)
        if char == "\ufe0f" and wcwidth(text[0]) == 1 and x + 1 < self.columns \
                and EMOJI.match(text) is not None:
            # Emoji presentation: the character takes two columns. Only a
            # character with an emoji variation sequence has one (a narrow
            # Emoji=Yes character: emoji-variation-sequences.txt lists those,
            # digits and # for keycaps included); after any other, VS16 is
            # kept in the cell and changes nothing, as Ghostty has it.
            self._unsplit(line, x + 1, left=False)
            line[x + 1] = new_tuple(type(cell), ("", *cell[1:]))
            self.cursor.x = min(x + 2, self.columns)
        return True

    def _combine(self, marks: str) -> None:
        """Attach zero-width characters to the cell before the cursor, up to
        ``MAX_MARKS`` code points after its base (``MAX_CLUSTER`` with
        clusters); the rest are dropped. The cell is normalized (NFC) as a
        whole, which costs at most a cell of the cap's length.

        At the first column there is none (the cursor was moved there), and
        the characters are dropped; during a pending wrap it is the last
        column.
        """
        before = self._cell_before_cursor()
        if before is None:
            self.last_char = marks[-1]
            return
        line, x = before
        last = line[x]
        data = _joined(last.data, marks, MAX_CLUSTER if self.graphemes else MAX_MARKS)
        if data is not last.data:
            line[x] = new_tuple(type(last), (data, *last[1:]))
            forget(line)
            self.dirty.add(self.cursor.y)
        # REP repeats the base character alone, as xterm (its ``lastchar``
        # is the last base character ``dotext`` wrote; marks go to
        # ``addXtermCombining``) and Ghostty do: ``last_char`` stays.

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
        cursor = self.cursor
        x, y = cursor.x, cursor.y
        if ((self._margin_wrap is not None or self._backed is not None)
                and (self._margin_wrap == (x, y) or self._backed == (x, y))):
            x += 1  # pending at the right margin, or after BS: the cursor's cell
        if x == 0:
            return None
        line = self.buffer[y]
        x = min(x, self.columns) - 1
        if x > 0:
            cell = line.get(x)
            if cell is not None and cell.data == "":  # ``_is_stub``, inlined
                x -= 1
        return line, x


def _is_mark(char: str) -> bool:
    """Whether ``char`` joins the cell before it (``_draw_slow``'s rule)."""
    width = wcwidth(char)
    return width == 0 or (width < 0 and unicodedata.combining(char) != 0)


class _MarkTable(dict[str, bool]):
    """Character -> ``_is_mark``, made on first use (a lookup, where
    ``_draw_slow`` asks for every character after a mark); emptied when
    full, as the glyph tables are."""

    def __missing__(self, char: str) -> bool:
        if len(self) >= MAX_GLYPHS:
            self.clear()
        mark = self[char] = _is_mark(char)
        return mark


MARKS = _MarkTable()


#: Extended_Pictographic (UAX #29), which ZWJ joins to one before it.
PICTOGRAPH = regex.compile(r"\p{Extended_Pictographic}")
#: Emoji=Yes: a narrow one has an emoji presentation VS16 asks for.
EMOJI = regex.compile(r"\p{Emoji}")

#: What may extend a cluster whatever the cluster ends with (a skin tone, a
#: regional indicator, a variation selector): the others only after a ZWJ
#: (``_extends_cluster``). A set, looked up for every character drawn the
#: slow way with clusters on.
EXTENDS_ALONE = frozenset(
    [chr(c) for c in range(0x1F3FB, 0x1F400)] + [chr(c) for c in range(0x1F1E6, 0x1F200)]
    + ["\ufe0e", "\ufe0f"])



def _joined(data: str, marks: str, cap: int) -> str:
    """A cell's text with ``marks`` after it, NFC, and at most ``cap`` code
    points after its base counted decomposed: the marks past that are
    dropped, as one by one (each joins while the cell holds ``cap`` or fewer
    after its base). ``data`` itself when none joins. Costs at most a cap's
    length, whatever the length of ``marks``."""
    if len(data) > cap:  # full: NFD never shortens a text
        return data
    if len(data) == 1 and len(marks) == 1:
        # A character decomposes into four code points at most: one mark
        # always joins (the common case, ``e`` and an accent).
        return unicodedata.normalize("NFC", data + marks)
    count = len(unicodedata.normalize("NFD", data))
    kept = 0
    for mark in marks:
        if count > cap:
            break
        count += len(unicodedata.normalize("NFD", mark))
        kept += 1
    if not kept:
        return data
    return unicodedata.normalize("NFC", data + marks[:kept])

