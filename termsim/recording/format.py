"""The recording file: a streaming, crash-safe msgpack file, its writer and its reader.

Layout (``docs/recording-format.md`` is the full description)::

    MAGIC (13 bytes: b"\\x89TERMSIM\\r\\n\\x1a\\n\\x00")
    header   msgpack map: format, version [major, minor], argv, cwd, cols, rows,
             term, env (allowlisted), policy, versions, started (ISO 8601 UTC),
             then its CRC-32 (a msgpack unsigned integer)
    event*   msgpack array: [kind, t_us, *fields] (see ``codec.py``), then its CRC-32

The CRC after each record is what tells a damaged file from a valid one: a
flipped byte inside an output payload is still valid msgpack.

Every event is written with one ``os.write`` as it happens, so a process
killed with SIGKILL leaves a file that reads back up to its last event. A
reader that meets a truncated last event stops there and reports the file as
incomplete, with the byte offset; one that meets garbage in the middle raises
:class:`~termsim.RecordingError` naming the offset. Unknown header keys and
unknown event kinds are kept, so minor versions can add them.

A recording may come from a stranger: every header field a reader uses is
checked as the file is read (:mod:`termsim.recording.fields`, which also
caps sizes and times), and every event field (:mod:`termsim.recording.codec`),
so a file that opens is one every reader can take as it is.

This module knows the file, not the emulator: it reads back the same
:mod:`termsim.events` values that were written, and turning them into screens
is :mod:`termsim.engine.playback`'s job.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import sys
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

import msgpack

from ..errors import ArgumentError, RecordingError
from ..events import End, Event, Exit, How, WaitEnded, WaitOutcome, WaitStarted
from .codec import decode, encode
from .fields import MAX_SIZE, check_header, shown, whole, whole_text

MAGIC = b"\x89TERMSIM\r\n\x1a\n\x00"
#: Where the header starts (errors about a header field name this offset).
HEADER_OFFSET = len(MAGIC)
FORMAT = "termsim-recording"
#: 1.1 added ``secret`` and ``tracked`` to input events and the ``c`` event
#: (the program read an input); 1.0 files read back with their defaults.
VERSION = (1, 1)
#: Environment variables worth knowing when reading a failure, and safe to keep.
ENV_ALLOWLIST = (
    "TERM", "LANG", "LC_ALL", "LC_CTYPE", "COLORTERM", "NO_COLOR", "PROMPT_TOOLKIT_NO_CPR",
    "PROMPT_TOOLKIT_COLOR_DEPTH", "PYTHONIOENCODING", "CI",
)

E = TypeVar("E", bound=Event)


@dataclass(frozen=True, slots=True)
class WaitRecord:
    """One wait of a recorded session: its start event paired with its end."""

    id: int
    predicate: str
    since: str | None
    timeout: float | None
    start: float
    #: When it ended (``None``: the file ends before the wait did).
    end: float | None
    #: ``"matched"``, ``"timed out"``, ``"program exited"``... or ``"unfinished"``.
    outcome: WaitOutcome | Literal["unfinished"]

    @property
    def failed(self) -> bool:
        """Whether the wait ended badly: it timed out, stalled, saw the program
        exit or the session close, its predicate raised, or the file ends
        before it did. Matched is not, nor cancelled: the test (a
        ``move_on_after``, a task group) stopped waiting by its own choice."""
        return self.outcome not in ("matched", "cancelled")


@functools.cache
def _versions() -> dict[str, str]:
    """Asked once per process: ``importlib.metadata`` reads and parses each
    package's metadata file on every call (2 ms a recording otherwise)."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in ("termsim", "pyte"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "unknown"
    return out


#: Names of variables whose values a recording does not keep.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH|COOKIE|SESSION", re.I)
#: Nor a value holding a URL's password (``postgres://user:pw@host``).
SECRET_VALUE = re.compile(r"://[^/@\s]*:[^/@\s]*@")


def make_header(
    *, argv: Sequence[str], cwd: str | None, cols: int, rows: int, env: Mapping[str, str],
    policy: Mapping[str, object] | None = None, cell_size: tuple[int, int] | None = None,
    emulation: Mapping[str, object] | None = None, profile: str | None = None,
    spawn_env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The header of a new recording. ``spawn_env``: the variables the test
    gave ``spawn(env=...)`` that differ from its own environment, kept (a
    value only where the name does not look like a secret's: nil then) so
    that codegen can write them into the test it makes.

    A size the reader would refuse (above :data:`~termsim.recording.fields.MAX_SIZE`)
    is an :class:`~termsim.ArgumentError` here, before any program runs,
    rather than a recording nobody can open.
    """
    for name, value in (("cols", cols), ("rows", rows)):
        if not whole(value, 1, MAX_SIZE):
            raise ArgumentError(
                f"a recorded session's {name} is {whole_text(1, MAX_SIZE)}, not "
                f"{shown(value)} (a recording reader builds screens of that size)")
    return {
        "format": FORMAT,
        "version": list(VERSION),
        "argv": list(argv),
        "cwd": cwd if cwd is not None else os.getcwd(),
        "cols": cols,
        "rows": rows,
        "term": env.get("TERM", ""),
        "env": {k: env[k] for k in ENV_ALLOWLIST if k in env},
        # How the terminal answered queries (e.g. {"cpr": "ignore"}), so a
        # replay answers, or does not, the same way.
        "policy": dict(policy or {}),
        **({"cell_size": list(cell_size)} if cell_size is not None else {}),
        # Where terminals disagree, the choices that differ from xterm's.
        **({"emulation": dict(emulation)} if emulation else {}),
        # The terminal it answered as, where not xterm (a replay answers alike).
        **({"profile": profile} if profile and profile != "xterm" else {}),
        **({"spawn_env": {k: None if SECRET_NAME.search(k) or SECRET_VALUE.search(v) else v
                          for k, v in sorted(spawn_env.items())}} if spawn_env else {}),
        "versions": dict(_versions()),
        "platform": sys.platform,
        "started": datetime.now(UTC).isoformat(timespec="milliseconds"),
    }


class RecordingWriter:
    """Appends events to a recording file, one ``write(2)`` per event.

    It writes what it is given: redaction happens before (the session's
    :class:`~termsim.recording.recorder.Recorder`), so this also serves converters
    (asciicast import) and tools that build recordings.
    """

    def __init__(
        self, path: str | os.PathLike[str], header: Mapping[str, Any],
        on_failure: Callable[[str], None] | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self._on_failure: Callable[[str], None] | None = None
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError as exc:
            raise RecordingError(f"cannot write the recording: {exc.strerror}",
                                 path=self.path) from None
        self._packer = msgpack.Packer(use_bin_type=True)
        #: Why writing stopped (a full disk...), or None.
        self.failed: str | None = None
        self._write(MAGIC + self._record(dict(header)))
        if self.failed:
            # Decided: a recording that cannot even start is an error at
            # spawn, before any program runs; one that fails later (a disk
            # filling up) only warns, and the file reads back as incomplete.
            os.close(self._fd)
            raise RecordingError(f"cannot write the recording: {self.failed}", path=self.path)
        self._on_failure = on_failure

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def _write(self, data: bytes) -> None:
        if self._fd < 0 or self.failed:
            return
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as exc:
            # A full disk must not break the test; the error says the
            # recording is short, and the reader will call it incomplete.
            self.failed = exc.strerror or str(exc)
            if self._on_failure is not None:
                self._on_failure(f"recording stopped: {self.failed}")

    def _record(self, obj: Any) -> bytes:
        packed: bytes = self._packer.pack(obj)
        crc: bytes = self._packer.pack(zlib.crc32(packed))
        return packed + crc

    def write(self, event: Event) -> None:
        """Append one event. Hot path: ``benchmarks/bench_recording.py``."""
        self._write(self._record(encode(event)))

    def close(self, t: float, how: How) -> None:
        """Write the end event (the file is then complete) and close."""
        if self._fd < 0:
            return
        self.write(End(t, how))
        os.close(self._fd)
        self._fd = -1


class Recording:
    """A recording read back: its header and the events, as :mod:`termsim.events` values.

    For the screens they make, see :class:`termsim.files.Playback`.
    """

    def __init__(
        self, path: str, header: dict[str, Any], events: list[Event], offsets: list[int],
        complete: bool, stopped_at: int | None, size: int,
    ) -> None:
        self.path = path
        self.header = header
        self.events = events
        #: The byte offset of each event in the file (for messages that say where).
        self.offsets = offsets
        #: False when the file ends without its end event (a crash, a kill).
        self.complete = complete
        #: Where an incomplete file stops being readable (byte offset).
        self.stopped_at = stopped_at
        #: The file's size in bytes.
        self.size = size

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Recording:
        """Read a recording; raise :class:`RecordingError` saying where and why."""
        name = os.fspath(path)
        try:
            data = Path(name).read_bytes()
        except OSError as exc:
            raise RecordingError(f"cannot read: {exc.strerror}", path=name) from None
        return cls.from_bytes(data, path=name)

    @classmethod
    def from_bytes(cls, data: bytes, *, path: str = "<bytes>") -> Recording:
        """Read a recording held in memory (``path`` only names it in errors)."""
        if not data.startswith(MAGIC):
            if MAGIC.startswith(data):
                raise RecordingError("the file is empty or cut inside its signature",
                                     path=path, offset=len(data))
            hint = ""
            if data.lstrip()[:1] == b"{" and b'"version"' in data[:200]:
                # An asciinema file, renamed: asciicast v1 is one JSON object,
                # v2 and v3 a JSON header line.
                hint = (": it looks like an asciicast (asciinema's format); convert it with "
                        "`termsim import CAST.cast -o REC.tsr`")
            raise RecordingError(f"not a termsim recording (bad signature){hint}", path=path,
                                 offset=0)
        reader = _RecordReader(data, len(MAGIC), path)
        records = iter(reader)
        first = next(records, None)
        if first is None:
            raise RecordingError("the header is missing or cut short", path=path,
                                 offset=len(MAGIC))
        header = first[0]
        check_header(header, format_name=FORMAT, major=VERSION[0], fail=lambda why:
                     RecordingError(why, path=path, offset=HEADER_OFFSET))
        events: list[Event] = []
        offsets: list[int] = []
        complete = False
        for obj, offset in records:
            if complete:
                raise RecordingError("data after the end of the recording", path=path,
                                     offset=offset)
            if not isinstance(obj, list) or len(obj) < 2 or not isinstance(obj[0], str) \
                    or not isinstance(obj[1], int) or isinstance(obj[1], bool):
                raise RecordingError(f"damaged event {shown(obj)}", path=path, offset=offset)
            try:
                event = decode(obj)
            except ValueError as exc:
                raise RecordingError(str(exc), path=path, offset=offset) from None
            events.append(event)
            offsets.append(offset)
            complete = isinstance(event, End)
        stopped_at = None if complete else reader.readable_end
        return cls(path, header, events, offsets, complete, stopped_at, len(data))

    # -- summaries ---------------------------------------------------------------------

    @property
    def duration(self) -> float:
        """Seconds from the start to the last event."""
        return self.events[-1].t if self.events else 0.0

    @property
    def cols(self) -> int:
        """The width the session started with (a resize is an event); the
        reader checked it (80 when the header has none)."""
        cols: int = self.header.get("cols", 80)
        return cols

    @property
    def rows(self) -> int:
        """The height the session started with (a resize is an event)."""
        rows: int = self.header.get("rows", 24)
        return rows

    @property
    def version(self) -> tuple[int, int]:
        """The format version the file was written in (the reader checked it)."""
        major, minor = self.header.get("version", VERSION)[:2]
        return int(major), int(minor)

    @property
    def exit_status(self) -> int | None:
        """The program's exit status (negative for a signal); None if it had not exited."""
        exits = list(self.of_type(Exit))
        return exits[-1].status if exits else None

    @property
    def end(self) -> End | None:
        """The end event (how the session closed), or None for an incomplete file."""
        last = self.events[-1] if self.events else None
        return last if isinstance(last, End) else None

    def of_type(self, kind: type[E]) -> Iterator[E]:
        """The events of one type, in order: ``recording.of_type(events.Output)``."""
        return (e for e in self.events if isinstance(e, kind))

    def waits(self) -> list[WaitRecord]:
        """Every wait, in the order they started, paired by id with its end."""
        ends: dict[int, WaitEnded] = {}
        for end in self.of_type(WaitEnded):
            ends.setdefault(end.id, end)
        out = []
        for start in self.of_type(WaitStarted):
            finished = ends.pop(start.id, None)
            out.append(WaitRecord(
                start.id, start.predicate, start.since, start.timeout, start.t,
                finished.t if finished is not None else None,
                finished.outcome if finished is not None else "unfinished",
            ))
        for key, finished in ends.items():  # an end without its start: a damaged file
            out.append(WaitRecord(key, "?", None, None, finished.t, finished.t,
                                  finished.outcome))
        return out

    def __repr__(self) -> str:
        state = "complete" if self.complete else f"incomplete, stops at byte {self.stopped_at}"
        summary = f"{len(self.events)} events, {self.duration:.3f} s"
        return f"<Recording {self.path!r} {summary}, {state}>"


class _RecordReader:
    """Yields ``(object, offset)`` for each record whose CRC-32 checks out.

    Stops quietly at a record cut short (a crash), leaving ``readable_end``
    at its first byte; raises :class:`RecordingError` for anything else.
    """

    def __init__(self, data: bytes, base: int, path: str) -> None:
        self.data = data
        self.base = base
        self.path = path
        self.readable_end = base
        self._unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=0)
        self._unpacker.feed(data[base:])

    def _next(self, offset: int) -> Any:
        try:
            return self._unpacker.unpack()
        except msgpack.OutOfData:
            raise
        except Exception as exc:
            # (ValueError, FormatError, StackError, and TypeError when a
            # damaged map key is a list.)
            raise RecordingError(f"damaged data ({type(exc).__name__}: {exc})",
                                 path=self.path, offset=offset) from None

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        unpacker = self._unpacker
        while True:
            offset = self.base + unpacker.tell()
            try:
                obj = self._next(offset)
                end = self.base + unpacker.tell()
                crc = self._next(end)
            except msgpack.OutOfData:
                return  # the end, or a record cut short: the file is incomplete
            if not isinstance(crc, int) or crc != zlib.crc32(self.data[offset:end]):
                raise RecordingError(
                    "damaged record (its CRC-32 does not match its bytes)",
                    path=self.path, offset=offset,
                )
            self.readable_end = self.base + unpacker.tell()
            yield obj, offset
