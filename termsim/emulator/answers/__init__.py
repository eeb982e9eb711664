"""The answers to a program's queries: one table of what is asked and
what the terminal replies (``queries``), and XTGETTCAP's terminfo names
(``tcap``).
"""
