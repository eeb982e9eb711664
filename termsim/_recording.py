"""Session recordings: a streaming, crash-safe msgpack file, and its reader.

Layout (``docs/recording-format.md`` is the full description)::

    MAGIC (13 bytes: b"\\x89TERMSIM\\r\\n\\x1a\\n\\x00")
    header   msgpack map: format, version [major, minor], argv, cwd, cols, rows,
             term, env (allowlisted), versions, started (ISO 8601 UTC),
             then its CRC-32 (a msgpack unsigned integer)
    event*   msgpack array: [kind, t_us, *data], then its CRC-32

The CRC after each record is what tells a damaged file from a valid one: a
flipped byte inside an output payload is still valid msgpack.

Every event is written with one ``os.write`` as it happens, so a process
killed with SIGKILL leaves a file that reads back up to its last event. A
reader that meets a truncated last event stops there and reports the file as
incomplete, with the byte offset; one that meets garbage in the middle raises
:class:`~termsim.RecordingError` naming the offset. Unknown header keys and
unknown event kinds are kept and skipped, so minor versions can add them.
"""

from __future__ import annotations

import os
import platform
import sys
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgpack

from ._errors import RecordingError
from ._snapshot import Snapshot
from ._terminal import QUERY_KINDS, Terminal

MAGIC = b"\x89TERMSIM\r\n\x1a\n\x00"
FORMAT = "termsim-recording"
VERSION = (1, 0)
#: Environment variables worth knowing when reading a failure, and safe to keep.
ENV_ALLOWLIST = (
    "TERM", "LANG", "LC_ALL", "LC_CTYPE", "COLORTERM", "NO_COLOR", "PROMPT_TOOLKIT_NO_CPR",
    "PROMPT_TOOLKIT_COLOR_DEPTH", "PYTHONIOENCODING", "CI",
)

# Event kinds. One or two letters each: recordings are mostly output events.
OUTPUT = "o"       # [t, bytes]: output exactly as read, chunk boundaries kept
INPUT = "i"        # [t, bytes, origin]: typed text, key, raw bytes
REPLY = "q"        # [t, bytes]: a query reply the terminal wrote
RESIZE = "r"       # [t, cols, rows]
TTY = "y"          # [t, raw]: the tty went raw (True) or cooked (False)
WAIT_START = "w"   # [t, {id, predicate, since, timeout}]
WAIT_END = "W"     # [t, {id, outcome}]
NOTE = "n"         # [t, label]
WARNING = "!"      # [t, message]
EXIT = "x"         # [t, status]
UNKNOWN = "u"      # [t, {kind: count}]: sequences the terminal did not understand
END = "e"          # [t, how]: the session closed; the file is complete


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    #: Seconds since the session started.
    t: float
    data: tuple[Any, ...]
    #: Byte offset of the event in the file.
    offset: int


@dataclass(frozen=True, slots=True)
class WaitRecord:
    """One wait of a recorded session: its start event paired with its end."""

    id: Any
    predicate: str
    since: str | None
    timeout: float | None
    start: float
    #: When it ended (``None``: the file ends before the wait did).
    end: float | None
    #: ``"matched"``, ``"timed out"``, ``"program exited"``... or ``"unfinished"``.
    outcome: str


def _details(event: Event | None) -> dict[str, Any]:
    if event is None or not event.data or not isinstance(event.data[0], dict):
        return {}
    return event.data[0]


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in ("termsim", "pyte"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "unknown"
    return out


def make_header(
    *, argv: Sequence[str], cwd: str | None, cols: int, rows: int, env: Mapping[str, str],
    policy: Mapping[str, str] | None = None,
) -> dict[str, Any]:
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
        "versions": _versions(),
        "platform": sys.platform,
        "started": datetime.now(UTC).isoformat(timespec="milliseconds"),
    }


class Recorder:
    """Appends events to a recording file, one write per event."""

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
        self.failed: str | None = None
        self._write(MAGIC + self._record(dict(header)))
        if self.failed:
            # Decided: a recording that cannot even start is an error at
            # spawn, before any program runs; one that fails later (a disk
            # filling up) only warns, and the file reads back as incomplete.
            os.close(self._fd)
            raise RecordingError(f"cannot write the recording: {self.failed}", path=self.path)
        self._on_failure = on_failure

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

    def event(self, kind: str, t: float, *data: Any) -> None:
        self._write(self._record([kind, round(t * 1_000_000), *data]))

    def close(self, t: float, how: str) -> None:
        if self._fd < 0:
            return
        self.event(END, t, how)
        os.close(self._fd)
        self._fd = -1


class Recording:
    """A recording read back: header, events, and the screens they make."""

    def __init__(
        self, path: str, header: dict[str, Any], events: list[Event], complete: bool,
        stopped_at: int | None, size: int,
    ) -> None:
        self.path = path
        self.header = header
        self.events = events
        #: False when the file ends without its end event (a crash, a kill).
        self.complete = complete
        #: Where an incomplete file stops being readable (byte offset).
        self.stopped_at = stopped_at
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
        if not data.startswith(MAGIC):
            if MAGIC.startswith(data):
                raise RecordingError("the file is empty or cut inside its signature",
                                     path=path, offset=len(data))
            raise RecordingError("not a termsim recording (bad signature)", path=path, offset=0)
        reader = _RecordReader(data, len(MAGIC), path)
        records = iter(reader)
        first = next(records, None)
        if first is None:
            raise RecordingError("the header is missing or cut short", path=path,
                                 offset=len(MAGIC))
        header = first[0]
        _check_header(header, path)
        events: list[Event] = []
        complete = False
        for obj, offset in records:
            if complete:
                raise RecordingError("data after the end of the recording", path=path,
                                     offset=offset)
            if not isinstance(obj, list) or len(obj) < 2 or not isinstance(obj[0], str) \
                    or not isinstance(obj[1], int):
                raise RecordingError(f"damaged event {_short(obj)}", path=path, offset=offset)
            event = Event(obj[0], obj[1] / 1_000_000, tuple(obj[2:]), offset)
            events.append(event)
            complete = event.kind == END
        stopped_at = None if complete else reader.readable_end
        return cls(path, header, events, complete, stopped_at, len(data))

    # -- summaries ---------------------------------------------------------------------

    @property
    def duration(self) -> float:
        return self.events[-1].t if self.events else 0.0

    @property
    def cols(self) -> int:
        return int(self.header.get("cols", 80))

    @property
    def rows(self) -> int:
        return int(self.header.get("rows", 24))

    @property
    def exit_status(self) -> int | None:
        for event in reversed(self.events):
            if event.kind == EXIT:
                return int(event.data[0]) if event.data[0] is not None else None
        return None

    def of_kind(self, kind: str) -> Iterator[Event]:
        return (e for e in self.events if e.kind == kind)

    def waits(self) -> list[WaitRecord]:
        """Every wait, in the order they started, paired by id with its end."""
        ends: dict[Any, Event] = {}
        for event in self.of_kind(WAIT_END):
            ends.setdefault(_details(event).get("id"), event)
        out = []
        for event in self.of_kind(WAIT_START):
            d = _details(event)
            end = ends.pop(d.get("id"), None)
            timeout = d.get("timeout")
            out.append(WaitRecord(
                d.get("id"), str(d.get("predicate", "?")), d.get("since"),
                float(timeout) if isinstance(timeout, (int, float)) else None, event.t,
                end.t if end is not None else None,
                str(_details(end).get("outcome", "?")) if end is not None else "unfinished",
            ))
        for key, end in ends.items():  # an end without its start: a damaged file
            out.append(WaitRecord(key, "?", None, None, end.t, end.t,
                                  str(_details(end).get("outcome", "?"))))
        return out

    def terminal_at(self, seconds: float | None = None) -> Terminal:
        """A terminal fed every event up to ``seconds`` (the end if None).

        It answers queries under the recorded policy, so its ``queries`` and
        ``unknown`` say what the live terminal answered and did not understand.
        """
        policy = self.header.get("policy") or {}
        terminal = Terminal(
            self.cols, self.rows, policy={k: v for k, v in policy.items() if k in QUERY_KINDS},
        )
        for event in self.events:
            if seconds is not None and event.t > seconds:
                break
            apply_to_terminal(terminal, event)
        return terminal

    def screen_at(self, seconds: float | None = None) -> Snapshot:
        """The screen after every output event up to ``seconds`` (the end if None)."""
        return self.terminal_at(seconds).screen

    def __repr__(self) -> str:
        state = "complete" if self.complete else f"incomplete, stops at byte {self.stopped_at}"
        summary = f"{len(self.events)} events, {self.duration:.3f} s"
        return f"<Recording {self.path!r} {summary}, {state}>"


def apply_to_terminal(terminal: Terminal, event: Event) -> bool:
    """Apply an event that changes the screen; True if it was one.

    A reply event marks the oldest deferred query answered: that is when the
    live session sent it.
    """
    if event.kind == OUTPUT:
        terminal.feed(bytes(event.data[0]))
        return True
    if event.kind == RESIZE:
        terminal.resize(int(event.data[0]), int(event.data[1]))
        return True
    if event.kind == REPLY:
        terminal.take_deferred()
        waiting = next((q for q in terminal.queries if q.status == "deferred"), None)
        if waiting is not None:
            waiting.status = "answered"
    return False


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


def _check_header(header: Any, path: str) -> None:
    offset = len(MAGIC)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise RecordingError("damaged header", path=path, offset=offset)
    version = header.get("version")
    if not (isinstance(version, list) and version and isinstance(version[0], int)):
        raise RecordingError("the header has no format version", path=path, offset=offset)
    if version[0] != VERSION[0]:
        raise RecordingError(
            f"format version {version[0]}.x is not readable by this termsim "
            f"(it reads {VERSION[0]}.x)", path=path, offset=offset,
        )


def _short(obj: Any) -> str:
    text = repr(obj)
    return text if len(text) < 60 else text[:56] + "..."
