"""A real program in a pseudo-terminal: the thin I/O edge.

``spawn`` starts the program the way :mod:`subprocess` does (errors between
fork and exec raised in the parent, ``PATH`` from the given environment);
``pty`` is the source that reads the PTY into events, writes input and
replies back, watches the exit and tears the process group down for sure;
``tty`` reads the tty's modes; ``process`` finds and ends what a session started; ``readprobe`` and
``readtrack`` tell when the program read its input (inotify, then the
kernel's queue). ``session`` is the :class:`~termsim.Session`,
``spawning`` is :func:`termsim.spawn`, which settles its options (and
hands out a replay under shake), and ``interactive`` lets a person drive one.
This package is internal: the supported API is ``termsim``'s top level.
"""
