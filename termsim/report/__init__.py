"""What a person reads: a session drawn for a bug report.

``draw`` holds what every renderer shares (colours, escaping, a row as it is
drawn); ``html`` writes the self-contained timeline page, ``svg`` a
screenshot, ``asciicast`` exports to and imports from asciinema's format,
and ``play`` (with ``play_allowlist``) plays a recording into the user's own
terminal: only what draws, every mode undone on every way out. All of them read recordings through
:class:`~termsim.files.Playback`, so they show the screens the engine saw.
``names`` and ``profile_differences`` put things into words: what an escape
sequence does, and what a terminal profile does differently from xterm.
This package is internal: the supported API is ``termsim``'s top level.
"""
