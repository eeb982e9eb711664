"""Events to recording records and back: the one table of kinds and fields.

A record is a msgpack array ``[kind, t_us, *fields]``: a kind of one or two
letters (recordings are mostly output events, so the tag stays small), the
time in whole microseconds, then the event's fields in a fixed order.
Optional trailing fields are left out when they have their default, so a
1.0 reader (which ignores extra fields and skips unknown kinds) still reads
what a 1.1 writer wrote, and a 1.1 reader fills in the defaults of a 1.0
file. ``docs/recording-format.md`` describes every kind.

:func:`decode` validates: a record whose CRC checks out but whose fields
have the wrong types or values no writer makes (a buggy writer, a crafted
file) is a :class:`ValueError` naming the field, which the reader turns into
a :class:`~termsim.RecordingError` with the byte offset. The values are
bounded where a reader would act on them (sizes, times, statuses; the caps
are in :mod:`termsim.recording.fields`), so what a file holds cannot make a
replay allocate or sleep beyond them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..events import (
    End,
    Event,
    Exit,
    Hangup,
    Input,
    InputRead,
    Note,
    Output,
    Reply,
    Resize,
    ScreenCompared,
    TtyMode,
    UnknownSequences,
    Unrecognized,
    WaitEnded,
    WaitStarted,
    Warned,
    end_how,
    wait_outcome,
)
from .fields import MAX_SIZE, MAX_STATUS, MAX_T_US, seconds, shown, whole, whole_text

#: The kind tag of each event type in a file.
KIND: dict[type[Any], str] = {
    Output: "o", Input: "i", Reply: "q", Resize: "r", TtyMode: "y", InputRead: "c",
    WaitStarted: "w", WaitEnded: "W", ScreenCompared: "s", Note: "n", Warned: "!", Exit: "x",
    Hangup: "h", UnknownSequences: "u", End: "e",
}


def encode(event: Event) -> list[Any]:
    """The record for ``event`` (without its CRC)."""
    us = round(event.t * 1_000_000)
    match event:
        case Output(data=data) | Reply(data=data):
            return [KIND[type(event)], us, data]
        case Input(data=data, label=label, secret=secret, tracked=tracked):
            extra = [secret, tracked] if (secret or tracked) else []
            return ["i", us, data, label, *extra]
        case Resize(cols=cols, rows=rows):
            return ["r", us, cols, rows]
        case TtyMode(raw=raw):
            return ["y", us, raw]
        case InputRead(index=index, answered=answered):
            return ["c", us, index, answered]
        case WaitStarted(id=id_, predicate=predicate, since=since, timeout=timeout):
            details: dict[str, Any] = {"id": id_, "predicate": predicate, "timeout": timeout}
            if since is not None:
                details["since"] = since
            return ["w", us, details]
        case WaitEnded(id=id_, outcome=outcome):
            return ["W", us, {"id": id_, "outcome": outcome}]
        case ScreenCompared(wait=wait, expected=expected, actual=actual, golden=golden):
            compared: dict[str, Any] = {"wait": wait, "expected": expected, "actual": actual}
            if golden is not None:
                compared["golden"] = golden
            return ["s", us, compared]
        case Note(label=text) | Warned(message=text) | End(how=text):
            return [KIND[type(event)], us, text]
        case Exit(status=status):
            return ["x", us, status]
        case Hangup():
            return ["h", us]
        case UnknownSequences(counts=counts):
            return ["u", us, dict(counts)]
        case Unrecognized(kind=kind, data=data):
            return [kind, us, *data]


def _field(fields: list[Any], i: int, name: str, kinds: type | tuple[type, ...],
           default: Any = ...) -> Any:
    if i >= len(fields):
        if default is ...:
            raise ValueError(f"no {name}")
        return default
    value = fields[i]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
        raise ValueError(f"{name} is {type(value).__name__}, not {_names(kinds)}")
    return value


def _whole(fields: list[Any], i: int, name: str, low: int, high: int | None) -> int:
    """An int field from ``low`` to ``high`` (None: no top)."""
    value: int = _field(fields, i, name, int)
    if not whole(value, low, high):
        raise ValueError(f"{name} is {value}, not {whole_text(low, high)}")
    return value


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _names(kinds: type | tuple[type, ...]) -> str:
    return " or ".join("None" if k is type(None) else k.__name__ for k in _tuple(kinds))


def _details(fields: list[Any], keys: dict[str, type | tuple[type, ...]]) -> dict[str, Any]:
    details = _field(fields, 0, "details", dict)
    out = {}
    for key, kinds in keys.items():
        value = details.get(key)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
            raise ValueError(f"{key} is {type(value).__name__}, not {_names(kinds)}")
        out[key] = value
    return out


_NUMBER = (int, float)
_OPT_STR = (str, type(None))


def _wait_started(t: float, f: list[Any]) -> Event:
    d = _details(f, {"id": int, "predicate": str, "timeout": _NUMBER, "since": _OPT_STR})
    # inf is a wait without a limit, which a test may ask for; NaN is no time.
    if not seconds(d["timeout"], infinite=True):
        raise ValueError(f"timeout is {shown(d['timeout'])}, not a number of seconds >= 0")
    return WaitStarted(t, d["id"], d["predicate"], d["since"], float(d["timeout"]))


def _wait_ended(t: float, f: list[Any]) -> Event:
    d = _details(f, {"id": int, "outcome": str})
    return WaitEnded(t, d["id"], wait_outcome(d["outcome"]))


def _screen_compared(t: float, f: list[Any]) -> Event:
    d = _details(f, {"wait": int, "expected": str, "actual": str, "golden": _OPT_STR})
    return ScreenCompared(t, d["wait"], d["expected"], d["actual"], d["golden"])


def _unknown(t: float, f: list[Any]) -> Event:
    counts = _field(f, 0, "counts", dict)
    if not all(isinstance(k, str) and whole(v, 0, None) for k, v in counts.items()):
        raise ValueError("counts are not names and whole numbers >= 0")
    return UnknownSequences(t, counts)


def _status(f: list[Any]) -> int | None:
    status: int | None = _field(f, 0, "status", (int, type(None)))
    if status is not None and not whole(status, -MAX_STATUS, MAX_STATUS):
        raise ValueError(f"status is {status}, not {whole_text(-MAX_STATUS, MAX_STATUS)} "
                         "(an exit status, or minus a signal number)")
    return status


_DECODERS: dict[str, Callable[[float, list[Any]], Event]] = {
    "o": lambda t, f: Output(t, _field(f, 0, "data", bytes)),
    "q": lambda t, f: Reply(t, _field(f, 0, "data", bytes)),
    "i": lambda t, f: Input(t, _field(f, 0, "data", bytes), _field(f, 1, "label", str, "input"),
                            _field(f, 2, "secret", bool, False),
                            _field(f, 3, "tracked", bool, False)),
    "r": lambda t, f: Resize(t, _whole(f, 0, "cols", 1, MAX_SIZE),
                             _whole(f, 1, "rows", 1, MAX_SIZE)),
    "y": lambda t, f: TtyMode(t, _field(f, 0, "raw", (bool, type(None)))),
    "c": lambda t, f: InputRead(t, _whole(f, 0, "index", 1, None),
                                _field(f, 1, "answered", bool, False)),
    "w": _wait_started,
    "W": _wait_ended,
    "s": _screen_compared,
    "n": lambda t, f: Note(t, _field(f, 0, "label", str)),
    "!": lambda t, f: Warned(t, _field(f, 0, "message", str)),
    "x": lambda t, f: Exit(t, _status(f)),
    "h": lambda t, f: Hangup(t),
    "u": _unknown,
    "e": lambda t, f: End(t, end_how(_field(f, 0, "how", str, "closed"))),
}


def decode(record: list[Any]) -> Event:
    """The event a record holds; :class:`ValueError` saying what is wrong.

    ``record`` has been checked to start with a string kind and an integer
    time. Kinds this termsim does not know become :class:`Unrecognized`.
    """
    kind, us, fields = record[0], record[1], record[2:]
    if not whole(us, 0, MAX_T_US):
        raise ValueError(f"damaged {shown(kind)} event: its time is {us} microseconds, not "
                         f"{whole_text(0, MAX_T_US)} (285 years)")
    t = us / 1_000_000
    decoder = _DECODERS.get(kind)
    if decoder is None:
        return Unrecognized(t, kind, tuple(fields))
    try:
        return decoder(t, fields)
    except ValueError as exc:
        raise ValueError(f"damaged {shown(kind)} event: {exc}") from None
