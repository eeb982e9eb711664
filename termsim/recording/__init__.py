"""The recording format: a session's events, written as they happen and read back.

``format`` is the file (msgpack records after a header, readable when
truncated, with a clear error that says where a damaged file went wrong);
``codec`` is the one table from :mod:`termsim.events` types to records;
``recorder`` is the listener that writes a live session's events, through
``redact``, the only place that decides what reaches the disk.

It imports nothing of the emulator: a recording holds bytes and times, and
what they draw is decided when it is played back (``termsim.engine``).
This package is internal: the supported API is ``termsim``'s top level.
"""
