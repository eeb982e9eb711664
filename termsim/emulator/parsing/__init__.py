"""Reading the program's bytes: the escape grammar's patterns
(``escapes``), the tokenizer that is the only code to decide where a
sequence begins and ends (``tokenizer``) and what it hands a handler
(``handlers``), the grammar's names for people
and tools (``grammar``), bytes that are not UTF-8 read as xterm reads them
(``decoding``), and the bounded count of sequences not understood
(``unknown``).

Nothing here knows a screen: above it, the screen and the terminal act on
what the tokenizer reports.
"""
