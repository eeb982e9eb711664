"""What each field of a recording may hold: the caps, and the header's checks.

A recording is attached to a bug report and opened by someone who did not
make it, so nothing in it is trusted: every field a reader uses is checked
here, once, when the file is read, and everything downstream (replay, the
reports, codegen, ``play``) can take the values as they are. A field of the
wrong type, a size no screen has or a delay that is NaN is a
:class:`~termsim.RecordingError` naming the field and the byte offset of its
record, not a ``TypeError`` deep inside a report; a size is capped before
anything is allocated for it, so a 250-byte file cannot make a reader build
a screen of a million by a million cells.

Header keys this termsim does not know are left alone (a minor version may
add them); so is a header without an optional key (its reader's default
applies). The event fields are checked by :mod:`termsim.recording.codec`,
with the caps defined here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..errors import RecordingError

MAX_SIZE = 1000
"""The most columns, and the most rows, a recorded screen may have (the
header's ``cols`` and ``rows``, and every resize).

A reader builds a screen of that size, and every frame of a report copies
it: a million by a million cells, which a 250-byte file can ask for, is
more memory than any machine has. A thousand is more than any real window
(a 4K display in a 6-pixel font is 640 columns) and keeps a full screen
near a million cells (tens of MB with every cell drawn)."""

MAX_CELL_PIXELS = 1000
"""The most pixels a side of a cell may have (the header's ``cell_size``):
the terminal multiplies it by the size in its pixel reports."""

MAX_T_US = 2**53
"""The latest time an event may have, in microseconds (about 285 years).

Every count of microseconds up to it is a float without loss (the largest
whole number a double holds exactly), and the longest gap between two
events, played at speed 1, still fits ``time.sleep`` (which refuses more
than 2^63 nanoseconds); a later time can only come from a damaged or
crafted file. (Live sessions are far below it, where seconds and
microseconds convert back and forth exactly.) Times are not required to be in
order: nothing downstream breaks on one out of order, and a reader skips
nothing for it."""

MAX_STATUS = 255
"""The largest exit status (and, negated, signal number) an exit event may
hold: a POSIX exit status is a byte, a signal number smaller still."""

#: Makes the error for a reason: the reader's, which knows the file and the offset.
_Fail = Callable[[str], RecordingError]


def shown(value: object) -> str:
    """``value`` as a message quotes it: its ``repr`` (so control characters
    are escapes, never bytes for a terminal), cut short."""
    try:
        text = repr(value)
    except RecursionError:  # msgpack nests deeper than repr goes
        return f"a deeply nested {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def whole(value: object, low: int, high: int | None) -> bool:
    """Whether ``value`` is an int (not a bool) from ``low`` to ``high`` (None: no top)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= low \
        and (high is None or value <= high)


def whole_text(low: int, high: int | None) -> str:
    """How a message says what :func:`whole` accepts."""
    return f"a whole number from {low} to {high}" if high is not None \
        else f"a whole number >= {low}"


def seconds(value: object, *, infinite: bool) -> bool:
    """Whether ``value`` is a number of seconds >= 0 (not NaN; inf only if ``infinite``)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 \
        and (infinite or value < math.inf)


#: What a query kind's policy may be: as :data:`termsim.emulator.Policy` has it, and
#: 1.0's ``"defer"`` (a delay the recorded replies tell).
POLICY_TEXT = ('"answer", "ignore", "defer" or a delay in seconds '
               "(a finite number >= 0)")


def _policy_value(value: object) -> bool:
    return (isinstance(value, str) and value in ("answer", "ignore", "defer")) \
        or seconds(value, infinite=False)


def _text(value: object) -> bool:
    return isinstance(value, str)


def _strings(fail: _Fail, key: str, value: object) -> None:
    if not isinstance(value, list):
        raise fail(f"the header's {key} is {shown(value)}, not a list of strings")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise fail(f"the header's {key}[{i}] is {shown(item)}, not a string")


def _mapping(fail: _Fail, key: str, value: object, ok: Callable[[object], bool],
             expected: str) -> None:
    """A map of strings to values ``ok`` accepts (``expected`` says which)."""
    if not isinstance(value, dict):
        raise fail(f"the header's {key} is {shown(value)}, not a map of strings to {expected}")
    for name, item in value.items():
        if not isinstance(name, str):
            raise fail(f"the header's {key} has the key {shown(name)}, not a string")
        if not ok(item):
            raise fail(f"the header's {key}[{shown(name)}] is {shown(item)}, not {expected}")


def _size(fail: _Fail, key: str, value: object) -> None:
    if not whole(value, 1, MAX_SIZE):
        raise fail(f"the header's {key} is {shown(value)}, not {whole_text(1, MAX_SIZE)} "
                   f"(termsim's largest screen is {MAX_SIZE}x{MAX_SIZE})")


def _cell_size(fail: _Fail, key: str, value: object) -> None:
    if not (isinstance(value, list) and len(value) == 2
            and all(whole(side, 1, MAX_CELL_PIXELS) for side in value)):
        raise fail(f"the header's {key} is {shown(value)}, not [width, height] in pixels "
                   f"(two whole numbers from 1 to {MAX_CELL_PIXELS})")


def _string(fail: _Fail, key: str, value: object) -> None:
    if not isinstance(value, str):
        raise fail(f"the header's {key} is {shown(value)}, not a string")


#: Each header key a reader uses, and its check. ``emulation`` and
#: ``profile`` name things of the emulator, which this layer does not
#: know: their shape is checked here, their values where a terminal is
#: made for the recording (``termsim.engine.playback.terminal_for``).
_CHECKS: dict[str, Callable[[_Fail, str, object], None]] = {
    "argv": _strings,
    "cwd": _string,
    "cols": _size,
    "rows": _size,
    "term": _string,
    "env": lambda fail, key, value: _mapping(fail, key, value, _text, "strings"),
    "policy": lambda fail, key, value: _mapping(fail, key, value, _policy_value, POLICY_TEXT),
    "versions": lambda fail, key, value: _mapping(fail, key, value, _text, "strings"),
    "platform": _string,
    "started": _string,
    "cell_size": _cell_size,
    "emulation": lambda fail, key, value: _mapping(fail, key, value, lambda _: True, "options"),
    "profile": _string,
    "spawn_env": lambda fail, key, value: _mapping(
        fail, key, value, lambda v: v is None or _text(v), "strings or nil"),
}


def check_header(header: Any, *, format_name: str, major: int, fail: _Fail) -> None:
    """Raise ``fail(why)`` unless ``header`` is a header this termsim reads."""
    if not isinstance(header, dict):
        raise fail(f"damaged header (a {type(header).__name__}, not a map)")
    if header.get("format") != format_name:
        raise fail(f"damaged header (its format is {shown(header.get('format'))}, "
                   f"not {format_name!r})")
    version = header.get("version")
    if not (isinstance(version, list) and len(version) >= 2
            and whole(version[0], 0, None) and whole(version[1], 0, None)):
        raise fail(f"the header has no format version: its version is {shown(version)}, "
                   "not [major, minor] (two whole numbers)")
    if version[0] != major:
        raise fail(f"format version {version[0]}.x is not readable by this termsim "
                   f"(it reads {major}.x)")
    for key, check in _CHECKS.items():
        if key in header:
            check(fail, key, header[key])
