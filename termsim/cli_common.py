"""What the ``termsim`` commands share: the one writer that prints for a
person (every line made visible: a recording is a stranger's file), the
usage error, and opening a recording and reading ``--at`` against it.

Its own module so that the commands split from :mod:`termsim.cli`
(:mod:`termsim.cli_export`) share it without importing the CLI back.
"""

from __future__ import annotations

import argparse
import math
import sys

from .emulator.terminals.xterm import printable
from .recording.format import Recording


class UsageError(Exception):
    """Wrong arguments: exit status 2."""


def say(text: str, *, err: bool = False) -> None:
    """Print ``text`` and a newline for a person (stderr if ``err``), every
    line through :func:`printable`: no control character from a file, a
    path or a program reaches the terminal as one."""
    stream = sys.stderr if err else sys.stdout
    shown = "\n".join(map(printable, text.split("\n"))) + "\n"
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        stream.write(shown)
    except UnicodeEncodeError:  # a terminal that is not UTF-8: what it cannot show, escaped
        stream.write(shown.encode(encoding, "backslashreplace").decode(encoding))


def open_recording(path: str) -> Recording:
    recording = Recording.open(path)
    if not recording.complete:
        say(f"termsim: note: {path} is incomplete (the session did not close); "
            f"read up to byte {recording.stopped_at}", err=True)
    return recording


def check_at(args: argparse.Namespace) -> None:
    """``--at`` is a moment of the recording: a finite number of seconds, >= 0
    (``nan`` would show the empty screen of no moment at all)."""
    if args.at is not None and not (math.isfinite(args.at) and args.at >= 0):
        raise UsageError("--at takes seconds from the start (a number >= 0)")


def time_asked(args: argparse.Namespace, recording: Recording) -> float | None:
    """The ``--at`` time, checked against the recording (None: the end)."""
    if args.end or args.at is None:
        return None
    if args.at > recording.duration:
        raise UsageError(f"--at {args.at:g} is past the end of the recording "
                         f"({recording.duration:.3f} s); --end shows the final screen")
    return float(args.at)
