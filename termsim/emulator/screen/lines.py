"""The kept text rows: whole lines drawn without cells.

Why a module of its own: it is a fast path (logs, ``seq``, test runners),
and a fast path must be easy to hold equal to the plain one. Its one
primitive is ``feed_lines``: rows a read of lines produces are kept as text
(plain, or ``StyledText``), rows that scroll off within the read go to the
history as text, and ``settle`` makes the cells of the rest only when
something else is about to read or change them. ``Terminal`` decides when it
may run (``terminal/lines.py``); ``tests/test_fast_paths.py`` and
``tests/test_fast_lines.py`` hold it equal to drawing the same bytes the
plain way.
"""

from __future__ import annotations

from typing import cast

from pyte import modes as mo
from pyte.screens import Char, StaticDefaultDict

from .cells import (
    BLANK,
    TextRow,
    WrappedText,
    kept,
    plain_rows,
)
from .charsets import LAT1
from .draw import DrawOps
from .styled import Step, StyledText, styled_cells, styled_row

#: A row of the screen's buffer.
Row = StaticDefaultDict[int, Char]


class KeptRows(DrawOps):
    """``feed_lines`` and ``settle``: rows kept as text until asked."""

    def plain_lines_ok(self) -> bool:
        """Whether ``feed_lines`` may run: the state where printable ASCII,
        CR and LF do nothing but draw in the default style and scroll the
        whole screen."""
        return (self.margins is None and self.lr_margins is None
                and self.cursor.attrs == BLANK
                and mo.DECAWM in self.mode and mo.IRM not in self.mode
                and mo.LNM not in self.mode and not self.charset
                and self.g0_charset is LAT1 and not self.single_shift)

    def colour_lines_ok(self) -> bool:
        """Whether ``feed_lines`` may run with SGR sequences in the lines:
        as ``plain_lines_ok``, but with any pen of the screen's own (no
        DECSCA protection, no DECSCNM, under which SGR 0 differs)."""
        return (self.margins is None and self.lr_margins is None
                and type(self.cursor.attrs) is Char
                and mo.DECAWM in self.mode and mo.IRM not in self.mode
                and mo.LNM not in self.mode and not self.charset
                and self.g0_charset is LAT1 and not self.single_shift
                and mo.DECSCNM not in self.mode)

    def feed_lines(self, lines: list[str],
                   styled: tuple[list[str], list[Char], Char, Step] | None = None) -> None:
        """Draw whole lines (printable ASCII, each ended by CR LF) from the
        start of an empty bottom row, as ``draw``, CR and LF would, without
        drawing the rows that scroll off within the call cell by cell: they
        go to the history as text. ``plain_lines_ok()`` must hold, and the
        cursor be at column 0 of the bottom row, which is empty.

        ``styled``: the lines hold SGR sequences (``lines`` is their visible
        text), given as (each line as written, the pen at each line's start,
        the pen after the last, the SGR step); ``colour_lines_ok()`` must
        hold, and the pen at every CR LF have default colours (no
        background colour erase). Such rows are kept as ``StyledText``.

        Hot path for logs, ``seq``-like floods and coloured test runners: a
        row that scrolls off at once costs a slice, not a dict of cells and
        a shift of every row.

        A way into the screen beside the tokenizer's, for that reason only;
        ``tests/test_fast_paths.py`` (``test_kept_text_rows_...``) and
        ``tests/test_fast_lines.py`` hold it equal to the plain path.
        """
        columns, bottom = self.columns, self.lines - 1
        rows: list[str] = []  # every row the lines make, wrapped ones as WrappedText
        if styled is None:
            for text in lines:
                if len(text) <= columns:
                    rows.append(text)
                else:
                    rows.extend(plain_rows(text, columns))
        else:
            sources, pens, end_pen, step = styled
            for text, source, pen in zip(lines, sources, pens, strict=True):
                if len(source) == len(text) and pen is BLANK:
                    rows.extend(plain_rows(text, columns))
                elif len(text) <= columns:
                    rows.append(styled_row(text, source, pen, 0, step, columns, False))
                else:
                    last = (len(text) - 1) // columns * columns
                    rows.extend(styled_row(text[i:i + columns], source, pen, i, step, columns,
                                           i < last)
                                for i in range(0, last + 1, columns))
            self.cursor.attrs = end_pen
        if not rows:
            return
        buffer = self.buffer
        produced = len(rows)
        # Before: the old rows 0..bottom-1, then the produced rows (the first
        # in the empty bottom row), then a blank bottom row for the last LF.
        # The screen keeps the last `lines` of them; the rest scrolled off.
        # (A buffer holds rows of cells, never text: None is a row never written.)
        old: list[Row | None] = list(map(buffer.get, range(bottom)))
        if not self.alternate:
            gone = produced  # len(old) + produced + 1 - self.lines
            self.scrolled += gone
            keep = self.history.maxlen or 0
            if gone > keep:
                self.history.clear()
            self.history.extend(map(kept, old[:min(gone, bottom)][-keep:]))
            if gone > bottom:
                self.history.extend(rows[max(0, gone - bottom - keep):gone - bottom])
        # The old rows that stay move up (rows never written have no entry),
        # the produced ones follow them.
        if produced < bottom:
            moved, new, first = old[produced:], rows, bottom - produced
        else:
            moved, new, first = [], rows[produced - bottom:], 0
        buffer.clear()
        if None in moved:
            buffer.update((y, row) for y, row in enumerate(moved) if row is not None)
        else:
            # (Hot: a few lines on a full screen.)
            buffer.update(zip(range(first), cast("list[Row]", moved), strict=True))
        default = self.default_char
        for y, row in enumerate(new, first):
            if row:
                # Its cells are made only if something asks for them
                # (``settle``): in a flood, the next read scrolls it off.
                line = TextRow(default, row + " " * (columns - len(row)))
                line.raw = row
                if isinstance(row, WrappedText) or (type(row) is StyledText and row.wrapped):
                    line.wrapped = True  # type: ignore[attr-defined]
                buffer[y] = line
                self.unbuilt = True
        self.cursor.x, self.cursor.y = 0, bottom
        self._backed = None  # characters written (``draw``)
        text = next((t for t in reversed(lines) if t), "")
        if text:
            self.last_char = text[-1]
        # The old rows moved up ``produced``; the produced rows and the empty
        # bottom row below them are new.
        self._shift_rows(produced, produced + 1)

    def settle(self) -> None:
        """Make the cells of the rows ``feed_lines`` left as text only.

        Such rows are the cursor's row never, and only plain lines (printable
        ASCII, CR, LF: ``draw`` on the cursor's row, ``index``) may come
        while they wait; ``Terminal`` calls this before anything else reads
        or changes the screen, and a snapshot reads their text instead.
        """
        if not self.unbuilt:
            return
        self.unbuilt = False
        glyphs = self._glyph_table(BLANK)
        for line in self.buffer.values():
            if type(line) is TextRow and line.raw is not None:
                raw, line.raw = line.raw, None
                if type(raw) is StyledText:
                    dict.update(line, styled_cells(raw))
                else:
                    dict.update(line, zip(range(len(raw)), map(glyphs.__getitem__, raw),
                                          strict=False))
