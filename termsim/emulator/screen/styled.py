"""Rows kept as coloured text: what a flood of coloured lines leaves behind.

Theory of operation
-------------------

A coloured test runner or ``ls --color`` writes lines of short runs of text,
each after an SGR sequence. Drawn cell by cell, every printed character of
such output costs a ``Char`` tuple and a dict entry, and on a flood nearly
every row scrolls off before anything reads it. So a read of such lines
(``Terminal._feed_lines``) keeps each row as a :class:`StyledText`: its
visible text (the string itself: what transcripts, text predicates and
snapshot lines read) and how to draw it: the line as the program wrote it,
SGR sequences included, the pen at the line's start, and where the row
starts in the line's visible text (a long line wraps into several rows).
The cells are made by :func:`styled_cells` only when something asks for
them (a style predicate, the next read that is not plain lines, a resize,
the history's rewrap), and are exactly the cells drawing would have made.

The SGR codes of a kept row that termsim does not keep (superscript...)
were counted in
``Terminal.unknown`` when it was kept, as the parser counts them
(``Terminal._feed_lines``), so making the cells later (``Sgr.after``) counts
nothing and depends on nothing but the row. This module imports nothing
of the emulator but the grammar's SGR pattern (``escapes.py``, which
imports nothing): a snapshot builds rows with it too.
"""

from __future__ import annotations

from collections.abc import Callable

from pyte.screens import Char

#: An SGR sequence and its parameters, as ``Terminal._feed_lines`` accepts
#: them: the tokenizer's pattern, re-exported here.
from ..parsing.escapes import SGR as SGR

#: What an SGR sequence does to a pen: (pen, parameters) -> pen.
Step = Callable[[Char, str], Char]

_new_tuple = tuple.__new__
#: The fields of a blank cell after its colours (``TermScreen._blank``).
_DEFAULT_TAIL = Char(" ")[3:]


class StyledText(str):
    """A row kept as coloured text (see the module's theory of operation).

    The string is the row's text, one character per column from column 0;
    ``how`` is (the whole line as written, the pen at its start, where this
    row starts in the line's visible text, the SGR step, the screen's
    width). ``str`` subclasses take no ``__slots__``: the attributes live in
    the instance dict.
    """

    #: A wrap continued this row onto the next (reflow reads it).
    wrapped = False
    how: tuple[str, Char, int, Step, int]


def styled_row(text: str, source: str, pen: Char, start: int, step: Step,
               columns: int, wrapped: bool) -> StyledText:
    """One row of a coloured line (``text`` is its visible part)."""
    row = StyledText(text)
    row.how = (source, pen, start, step, columns)
    if wrapped:
        row.wrapped = True
    return row


def styled_cells(row: StyledText) -> dict[int, Char]:
    """The cells ``row`` stands for, as drawing its line would have made
    them: column -> ``Char``, for the columns it covers.

    A row a wrap began was scrolled in under the pen of its first
    character: with a colour, every cell of it starts as a blank in that
    colour (``TermScreen.index``, background colour erase)."""
    source, pen, start, step, columns = row.how
    end = start + len(row)
    cells: dict[int, Char] = {}
    glyphs: dict[tuple[Char, str], Char] = {}
    x = 0  # the index in the line's visible text of the piece below
    for i, piece in enumerate(SGR.split(source)):
        if i & 1:
            pen = step(pen, piece)
            continue
        n = len(piece)
        if x + n > start and n:
            if start and x <= start and (pen.fg != "default" or pen.bg != "default"):
                cells.update(dict.fromkeys(range(columns), _new_tuple(
                    Char, (" ", pen.fg, pen.bg, *_DEFAULT_TAIL))))
            style, cls = pen[1:], type(pen)
            for k in range(max(start - x, 0), min(end - x, n)):
                ch = piece[k]
                glyph = glyphs.get((pen, ch))
                if glyph is None:
                    glyph = glyphs[pen, ch] = _new_tuple(cls, (ch, *style))
                cells[x + k - start] = glyph
        x += n
        if x >= end:
            break
    return cells


def line_end_pen(source: str, pen: Char, blank: Char, step: Step) -> Char:
    """The pen after a line's SGR sequences, from ``pen`` at its start:
    only the sequences after its last plain reset (``ESC[0m``, ``ESC[m``,
    which give ``blank``) count."""
    reset = max(source.rfind("\x1b[0m"), source.rfind("\x1b[m"))
    if reset >= 0:
        pen = blank
        source = source[source.index("m", reset) + 1:]
        if "\x1b" not in source:
            return pen
    for params in SGR.findall(source):
        pen = step(pen, params)
    return pen
