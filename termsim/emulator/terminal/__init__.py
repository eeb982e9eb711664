"""The terminal: the one way in (``terminal``). It feeds bytes through
the tokenizer to the dispatcher (``dispatch``, with its memo of repeated
sequences and its mode switches), to the screen; keeps the order of
answers (``answers``), the signals (``signals``), the fast path for plain
lines (``lines``), and what a program left on when it ended
(``hygiene``).
"""
