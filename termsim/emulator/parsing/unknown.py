"""The count of sequences termsim did not understand, bounded.

Why a module of its own: ``Terminal.unknown`` is written from the
dispatcher, the SGR module and the lines fast path, and read by waits'
errors, ``termsim info`` and the recorder (an ``UnknownSequences`` event at
the end of a session). Its names come from the program's bytes (``OSC
12345``, ``CSI 999t``), so a program that sends a new one each time would
grow it without end; the bound lives with the counter, so that no writer
can forget it.
"""

from __future__ import annotations

from collections import Counter

from ..terminals.xterm import printable

#: Distinct names ``Terminal.unknown`` counts, at most; what comes after
#: them is counted under :data:`OTHER`. A real program sends a handful of
#: kinds termsim does not understand; two million distinct OSC numbers
#: once grew the counter by 182 MB.
MAX_UNKNOWN_KINDS = 256
#: The name every kind past :data:`MAX_UNKNOWN_KINDS` is counted under.
OTHER = "other"


_set = dict.__setitem__


class UnknownCounts(Counter[str]):
    """A ``Counter`` of names that keeps at most ``MAX_UNKNOWN_KINDS`` of
    them (and :data:`OTHER`), each printable (``xterm.printable``): a new
    name past that adds to ``OTHER``. Its
    shape is a ``Counter``'s, so every reader (``dict(unknown)``,
    ``sorted(unknown.items())``) goes on as it did."""

    def __setitem__(self, key: str, value: int) -> None:
        if key not in self:
            # A name holds the program's characters (``ESC`` and whatever
            # came after it, an OSC's number): made printable, so that no
            # control reaches whoever reads it, and no lone surrogate (a
            # byte that was not UTF-8) fails the recording that writes it.
            # (Printable ASCII, the common name, is already: ``printable``
            # changes nothing there, and a program inventing sequences makes
            # a new name each time.)
            if not (key.isascii() and key.isprintable()):
                shown = printable(key)
                if shown != key:
                    key, value = shown, self.get(shown, 0) + value
            if (key not in self and key != OTHER
                    and len(self) - (OTHER in self) >= MAX_UNKNOWN_KINDS):
                # ``counts[key] += n`` of a new key sets it to ``n``: that is
                # what it adds.
                key, value = OTHER, self.get(OTHER, 0) + value
        _set(self, key, value)  # ``super().__setitem__``, without a super object (hot)
