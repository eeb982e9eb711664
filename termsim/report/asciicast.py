"""asciicast (asciinema's format) out of and into termsim recordings.

asciicast is what people already share and play (asciinema, asciinema-player,
agg), so a termsim recording should travel as one, and a cast someone attached
to a bug report should replay under termsim. The two formats do not hold the
same things, which is why export returns a report:

* asciicast events hold **text** (JSON strings), a termsim recording holds the
  **bytes** read from the PTY. Export decodes them as UTF-8 with one
  incremental decoder for the whole output stream (a character split between
  two reads comes out whole) and counts the bytes it had to replace with
  U+FFFD; asciinema itself does the same replacement.
* Query replies, tty mode changes, waits and warnings have no asciicast code
  and are left out; notes become markers (``m``), the exit status becomes the
  v3 ``x`` event (v2 has no exit event).
* v2 stores absolute times, v3 intervals since the previous event. Both are
  written in whole microseconds, computed from the rounded absolute times, so
  v3 intervals add up to the real elapsed time (the error diffusion the v3
  spec asks for) and no interval is ever negative.

Specs: https://docs.asciinema.org/manual/asciicast/v1/, .../v2/, .../v3/.

Why this module is long: it reads three versions of asciicast and writes
two, each with its own errors, line numbers and edge cases.
"""

from __future__ import annotations

import codecs
import json
import math
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from ..emulator.terminals.xterm import printable
from ..engine.playback import Playback
from ..errors import RecordingError
from ..events import Exit, Input, Note, Output, Resize
from ..recording.fields import MAX_SIZE, MAX_STATUS, MAX_T_US
from ..recording.format import Recording, RecordingWriter, make_header

__all__ = [
    "Cast",
    "ExportReport",
    "export_asciicast",
    "export_text",
    "import_asciicast",
    "read_asciicast",
]

#: Origin written on input events imported from a cast (termsim records who typed what).
IMPORTED_INPUT = "asciicast input"
_SIZE = re.compile(r"(\d+)x(\d+)")
_STATUS = re.compile(r"[+-]?\d+")


# -- export ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export wrote, and what it had to change to write it."""

    #: Event lines written (the header not counted).
    events: int
    #: Bytes of output or input that were not UTF-8 and became U+FFFD.
    replaced_bytes: int
    #: Time of the last event written, in seconds.
    duration: float


class _Utf8Decoder:
    """An incremental UTF-8 decoder that counts the bytes it replaces.

    Same output as ``codecs.getincrementaldecoder("utf-8")(errors="replace")``
    (one U+FFFD per maximal invalid sequence), but the stock decoder cannot say
    how many bytes it replaced, and the report needs that number. Decoding
    strictly and stepping over each error keeps the count exact without a
    global codec error handler.
    """

    def __init__(self) -> None:
        self._pending = b""
        self.replaced = 0

    def decode(self, data: bytes, *, final: bool = False) -> str:
        view = memoryview(self._pending + data)
        parts: list[str] = []
        while True:
            try:
                text, used = codecs.utf_8_decode(view, "strict", final)
            except UnicodeDecodeError as exc:
                parts.append(bytes(view[:exc.start]).decode("utf-8"))
                parts.append("\ufffd")
                self.replaced += exc.end - exc.start
                view = view[exc.end:]  # a memoryview slice: linear however many errors
                continue
            parts.append(text)
            # An incomplete character at the end waits for the next chunk.
            self._pending = bytes(view[used:])
            return "".join(parts)


def _format_us(us: int) -> str:
    """Seconds with at most 6 decimals, never in exponent notation (``1e-06``)."""
    seconds, micro = divmod(us, 1_000_000)
    fraction = f"{micro:06d}".rstrip("0") or "0"
    return f"{seconds}.{fraction}"


class _EventWriter:
    """Writes event lines with times that never go back, in whole microseconds."""

    def __init__(self, out: TextIO, *, relative: bool) -> None:
        self._out = out
        self._relative = relative
        self.last_us = 0
        self.count = 0

    def write(self, t: float, code: str, data: str) -> None:
        if code in ("o", "i") and not data:
            return  # only part of a character so far: its bytes go out with the next event
        us = max(round(t * 1_000_000), self.last_us)
        stamp = _format_us(us - self.last_us if self._relative else us)
        self.last_us = us
        self._out.write(f"[{stamp}, {json.dumps(code)}, {json.dumps(data, ensure_ascii=False)}]\n")
        self.count += 1


def _unix_time(started: Any) -> int | None:
    if not isinstance(started, str):
        return None
    try:
        when = datetime.fromisoformat(started)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)  # termsim writes UTC
    return int(when.timestamp())


def _export_header(recording: Recording, version: int) -> dict[str, Any]:
    header = recording.header
    env_in: dict[str, Any] = header["env"] if isinstance(header.get("env"), dict) else {}
    term = env_in.get("TERM") or header.get("term") or ""
    # asciinema captures TERM and SHELL by default; nothing else leaves the machine.
    env = {"TERM": term} if term else {}
    if isinstance(env_in.get("SHELL"), str):
        env["SHELL"] = env_in["SHELL"]
    out: dict[str, Any] = {"version": version}
    if version == 2:
        out["width"], out["height"] = recording.cols, recording.rows
    else:
        out["term"] = {"cols": recording.cols, "rows": recording.rows}
        if header.get("term"):
            out["term"]["type"] = str(header["term"])
    timestamp = _unix_time(header.get("started"))
    if timestamp is not None:
        out["timestamp"] = timestamp
    argv = header.get("argv")
    if isinstance(argv, list) and argv:
        out["command"] = shlex.join(str(a) for a in argv)
    if env:
        out["env"] = env
    return out


def export_asciicast(recording: Recording, out: TextIO, *, version: int = 2) -> ExportReport:
    """Write ``recording`` to ``out`` as asciicast v2 (default) or v3.

    Output events become ``o``, input ``i``, resizes ``r`` (``"COLSxROWS"``),
    notes ``m`` and, in v3, the exit status ``x``. The ``x`` event is written
    last (asciinema expects it there), at the later of the exit time and the
    last event, because a PTY is still drained after the program exits. A
    partial character left at the very end is flushed as U+FFFD at the last
    event's time.
    """
    if version not in (2, 3):
        raise ValueError(f"asciicast version must be 2 or 3, not {version!r}")
    out.write(json.dumps(_export_header(recording, version), ensure_ascii=False) + "\n")
    writer = _EventWriter(out, relative=version == 3)
    output, typed = _Utf8Decoder(), _Utf8Decoder()
    exit_at: tuple[float, int] | None = None
    for event in recording.events:
        match event:
            case Output(t=t, data=data):
                writer.write(t, "o", output.decode(data))
            case Input(t=t, data=data):
                writer.write(t, "i", typed.decode(data))
            case Resize(t=t, cols=cols, rows=rows):
                writer.write(t, "r", f"{cols}x{rows}")
            case Note(t=t, label=label):
                writer.write(t, "m", label)
            case Exit(t=t, status=int(status)):
                exit_at = (t, status)
            case _:
                pass  # replies, tty modes, waits...: asciicast has no code for them
    end = writer.last_us / 1_000_000
    writer.write(end, "o", output.decode(b"", final=True))
    writer.write(end, "i", typed.decode(b"", final=True))
    if exit_at is not None and version == 3:
        writer.write(exit_at[0], "x", str(exit_at[1]))
    return ExportReport(
        events=writer.count,
        replaced_bytes=output.replaced + typed.replaced,
        duration=writer.last_us / 1_000_000,
    )


def export_text(recording: Recording, out: TextIO) -> None:
    """Write the final screen as plain text, one line per row, newline-terminated.

    The last screen is usually what a bug report needs to quote; it is what
    ``termsim export FILE -o out.txt`` writes. Trailing spaces of each row go,
    blank rows stay, so a bottom toolbar is still at the bottom.
    """
    text = Playback(recording).screen_at().text
    # A person will ``cat`` it: bidi controls and separators a program drew, made visible.
    text = "\n".join(map(printable, text.split("\n")))
    out.write(text + "\n" if text else "")


# -- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cast:
    """An asciicast read back, whatever its version, with absolute times."""

    version: int
    #: The initial terminal size.
    cols: int
    rows: int
    #: The header as written (for v1, the document without its ``stdout``).
    header: dict[str, Any]
    #: ``(seconds since the start, code, data)``, in file order; times never decrease.
    events: list[tuple[float, str, str]]

    @property
    def duration(self) -> float:
        return self.events[-1][0] if self.events else 0.0


def _load(source: str | bytes | os.PathLike[str]) -> tuple[str, str | None]:
    """The text of a cast and the path it came from (None for text given directly)."""
    path: str | None = None
    if isinstance(source, bytes):
        data = source
    elif isinstance(source, str) and (
            "\n" in source or source.lstrip("\ufeff \t\r")[:1] in ("{", "")):
        return source.removeprefix("\ufeff"), None
    else:
        path = os.fspath(source)
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise RecordingError(f"cannot read: {exc.strerror}", path=path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RecordingError(f"line {line}: not UTF-8 (byte {exc.start})", path=path) from None
    return text.removeprefix("\ufeff"), path


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _size(
    header: dict[str, Any], version: int, fail: Callable[[str], RecordingError],
) -> tuple[int, int]:
    if version == 3:
        term = header.get("term")
        if not isinstance(term, dict):
            raise fail("the v3 header has no term object (with cols and rows)")
        cols, rows, names = term.get("cols"), term.get("rows"), ("term.cols", "term.rows")
    else:
        cols, rows, names = header.get("width"), header.get("height"), ("width", "height")
    size: list[int] = []
    for name, value in zip(names, (cols, rows), strict=True):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            problem = "has no" if value is None else f"has an invalid ({value!r})"
            raise fail(f"the header {problem} {name}: a positive integer is required")
        size.append(value)
    return size[0], size[1]


def _check_data(code: str, data: str, version: int) -> str | None:
    """Why the data of a known event code is malformed, or None."""
    if code == "r" and not ((size := _SIZE.fullmatch(data)) and int(size[1]) and int(size[2])):
        return f"resize data {data!r} is not COLSxROWS (two positive integers)"
    if code == "x" and version == 3 and not _STATUS.fullmatch(data):
        return f"exit data {data!r} is not a status number"
    return None


def read_asciicast(path_or_text: str | bytes | os.PathLike[str]) -> Cast:
    """Parse an asciicast v1, v2 or v3 file.

    ``path_or_text`` is a path, or the cast itself: a ``str`` that contains a
    newline or starts with ``{`` (every cast does), or ``bytes``. Blank lines
    and ``#`` comment lines between events are skipped in v2 as in v3 (a
    stray blank line should not make a recording unreadable). Anything else
    wrong raises :class:`~termsim.RecordingError` naming the 1-based line and
    why: bad JSON, a missing or invalid header or size, an unknown version, an
    event that is not ``[time, code, data]``, a negative v3 interval, or a v2
    time earlier than the one before (players assume times never go back, so
    such a file would not play as recorded). v1 is a single JSON document, so
    its errors name the ``stdout`` frame instead.
    """
    text, path = _load(path_or_text)
    lines = text.split("\n")  # not splitlines(): U+2028 and friends may sit raw inside strings

    def fail_at(number: int) -> Callable[[str], RecordingError]:
        return lambda why: RecordingError(f"line {number}: {why}", path=path)

    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None:
        raise RecordingError("line 1: the file is empty (no header)", path=path)
    fail = fail_at(start + 1)
    try:
        header = json.loads(lines[start])
    except json.JSONDecodeError as first:
        return _read_v1_document(text, first, start + 1, path)
    if not isinstance(header, dict):
        raise fail("the header is not a JSON object")
    raw = header.get("version")
    # true == 1 and 2.0 == 2 in Python, not in a cast
    version = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
    if version == 1:
        extra = next((i for i in range(start + 1, len(lines)) if lines[i].strip()), None)
        if extra is not None:
            raise fail_at(extra + 1)("data after the v1 document")
        return _v1(header, path)
    if version not in (2, 3):
        raise fail(f"unknown asciicast version {raw!r} (termsim reads 1, 2 and 3)")
    cols, rows = _size(header, version, fail)
    events: list[tuple[float, str, str]] = []
    t = 0.0
    for number, line in enumerate(lines[start + 1:], start=start + 2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        fail = fail_at(number)
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise fail(f"not JSON ({exc.msg} at column {exc.colno})") from None
        if not (isinstance(value, list) and len(value) == 3):
            raise fail(f"an event must be [time, code, data], not {_short(value)}")
        when, code, data = value
        if not _number(when):
            raise fail(f"the event time {when!r} is not a number")
        if not (isinstance(code, str) and code):
            raise fail(f"the event code {code!r} is not a string")
        if not isinstance(data, str):
            raise fail(f"the event data {_short(data)} is not a string")
        if version == 3:
            if when < 0:
                raise fail(f"negative interval {when!r}")
            t += when
        else:
            if when < t:
                raise fail(f"time {when!r} is earlier than the event before ({t!r})")
            t = float(when)
        problem = _check_data(code, data, version)
        if problem:
            raise fail(problem)
        events.append((t, code, data))
    return Cast(version, cols, rows, header, events)


def _read_v1_document(
    text: str, first: json.JSONDecodeError, line: int, path: str | None,
) -> Cast:
    """The first line is not JSON by itself: a v1 document over several lines, or garbage."""
    bad_header = RecordingError(
        f"line {line}: the header is not JSON ({first.msg} at column {first.colno})", path=path)
    if first.pos < len(first.doc.rstrip()):
        raise bad_header  # wrong before the line even ends: not a document cut by a newline
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":  # several JSON values: a line format with a bad header
            raise bad_header from None
        raise RecordingError(f"line {exc.lineno}: not JSON ({exc.msg} at column {exc.colno})",
                             path=path) from None
    if not (isinstance(document, dict) and document.get("version") == 1):
        raise RecordingError(f"line {line}: the header must be one JSON object on one line",
                             path=path)
    return _v1(document, path)


def _v1(document: dict[str, Any], path: str | None) -> Cast:
    def fail(why: str) -> RecordingError:
        return RecordingError(f"asciicast v1: {why}", path=path)

    cols, rows = _size(document, 1, fail)
    frames = document.get("stdout")
    if not isinstance(frames, list):
        raise fail("no stdout list of [delay, data] frames")
    events: list[tuple[float, str, str]] = []
    t = 0.0
    for index, frame in enumerate(frames):
        if not (isinstance(frame, list) and len(frame) == 2 and _number(frame[0])
                and frame[0] >= 0 and isinstance(frame[1], str)):
            raise fail(f"stdout[{index}] is not [delay >= 0, data], but {_short(frame)}")
        t += frame[0]
        events.append((t, "o", frame[1]))
    header = {k: v for k, v in document.items() if k != "stdout"}
    return Cast(1, cols, rows, header, events)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) < 60 else text[:56] + "..."


# -- import ----------------------------------------------------------------------------------


def _to_bytes(text: str) -> bytes:
    """UTF-8, with lone surrogates (legal as JSON escapes, not as UTF-8) made U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


def _argv(command: Any) -> list[str]:
    if not isinstance(command, str) or not command:
        return []
    try:
        return shlex.split(command)
    except ValueError:
        return ["sh", "-c", command]  # how asciinema ran it; unbalanced quotes stay intact


def _check_fits(cast: Cast, path: str) -> None:
    """Refuse what a recording cannot hold (its reader would refuse the
    file written): a screen past termsim's largest, a time past its latest."""
    sizes = [(cast.cols, cast.rows)] + [
        (int(m[1]), int(m[2])) for _, code, data in cast.events
        if code == "r" and (m := _SIZE.fullmatch(data))]
    for cols, rows in sizes:
        if not (1 <= cols <= MAX_SIZE and 1 <= rows <= MAX_SIZE):
            raise RecordingError(f"the cast's screen is {cols}x{rows}; termsim's largest is "
                                 f"{MAX_SIZE}x{MAX_SIZE}", path=path)
    last = max([cast.duration, *(t for t, _, _ in cast.events)])
    if not last * 1_000_000 <= MAX_T_US:
        raise RecordingError(f"the cast has an event at {last:g} s, later than a recording "
                             "can hold (2^53 microseconds)", path=path)


def import_asciicast(
    src: Cast | str | bytes | os.PathLike[str], dest_path: str | os.PathLike[str],
) -> Recording:
    """Convert a cast (a :class:`Cast`, a path or the text) into a termsim recording.

    ``o`` becomes output (UTF-8 bytes), ``i`` input (origin ``"asciicast
    input"``), ``r`` a resize, ``m`` a note and ``x`` the exit status; unknown
    codes are skipped, as the spec asks. The header keeps the command (split
    with :func:`shlex.split`), size, the allowlisted environment, the start
    time, and ``imported_from`` so nobody mistakes it for a termsim capture.
    Returns the recording read back from ``dest_path``.
    """
    cast = src if isinstance(src, Cast) else read_asciicast(src)
    _check_fits(cast, os.fspath(src) if isinstance(src, str | os.PathLike) else "<cast>")
    header_env = cast.header.get("env")
    env = {k: v for k, v in header_env.items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(header_env, dict) else {}
    header = make_header(argv=_argv(cast.header.get("command")), cwd="", cols=cast.cols,
                         rows=cast.rows, env=env)
    term = cast.header.get("term")
    if isinstance(term, dict) and isinstance(term.get("type"), str) and term["type"]:
        header["term"] = term["type"]  # v3 keeps TERM here, env may not have it
    timestamp = cast.header.get("timestamp")
    if isinstance(timestamp, int | float) and _number(timestamp):
        try:
            started = datetime.fromtimestamp(timestamp, UTC)
            header["started"] = started.isoformat(timespec="milliseconds")
        except (OverflowError, OSError, ValueError):
            pass  # an absurd timestamp: keep the import time
    header["imported_from"] = {"format": "asciicast", "version": cast.version}
    writer = RecordingWriter(dest_path, header)
    for t, code, data in cast.events:
        if code == "o":
            writer.write(Output(t, _to_bytes(data)))
        elif code == "i":
            writer.write(Input(t, _to_bytes(data), IMPORTED_INPUT))
        elif code == "r" and (size := _SIZE.fullmatch(data)):
            writer.write(Resize(t, int(size[1]), int(size[2])))
        elif code == "m":
            writer.write(Note(t, data))
        elif code == "x" and _STATUS.fullmatch(data) and abs(int(data)) <= MAX_STATUS:
            writer.write(Exit(t, int(data)))
    writer.close(cast.duration, "imported")
    if writer.failed:
        raise RecordingError(writer.failed, path=writer.path)
    return Recording.open(dest_path)
