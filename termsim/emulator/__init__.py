"""The sans-IO terminal: bytes in, replies and screens out.

:class:`~termsim.Terminal` (``terminal``) is the one way in: it feeds the
program's bytes through the tokenizer (``tokenizer``, the only code that knows
where an escape sequence begins and ends) to the screen (``screen``, pyte's
``Screen`` extended by concern), answers the program's queries at the byte
where they were asked (``queries``, one table; ``terminal_answers``, the
bookkeeping of when and in what order; ``tcap``, XTGETTCAP's terminfo
names), as the terminal it plays answers them (``profiles``), and hands out immutable
:class:`~termsim.Snapshot` values (``snapshot``) that regions (``region``)
look into. SGR (``sgr``, ``styled``), keys (``keys``) and mouse reports
(``mouse``) are the encodings both directions need; ``emulation`` holds the
choices where real terminals disagree.

Nothing here touches a file descriptor, a clock or an event loop, so all of
it is tested with plain byte strings (``tests/test_layers.py`` holds that).
This package is internal: the supported API is ``termsim``'s top level.
"""
