"""Recorded events to screens: the one way an event changes a Terminal.

:func:`apply_to_terminal` is the single place that says what each event does
to a :class:`~termsim.emulator.Terminal`: output is fed, a resize resizes, a reply
marks the oldest deferred query answered (that is when the live session sent
it); nothing else touches the screen. The waiting engine (live and replayed
sessions), :class:`Playback` (the CLI, the HTML report, the pytest plugin)
all go through it, so they all see the same screens.

:class:`Playback` walks a recording once and answers "what was on the screen
at t": the screen at a time, a terminal at a time (for its query log and
unknown-sequence counts), or evenly spaced frames for a timeline.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import fields
from typing import Any

from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminal.terminal import QUERY_KINDS, Policy, Terminal
from ..emulator.terminals.emulation import Emulation
from ..emulator.terminals.profiles import PROFILES
from ..errors import ArgumentError, RecordingError
from ..events import Event, Output, Reply, Resize
from ..recording.fields import shown
from ..recording.format import HEADER_OFFSET, Recording


def apply_to_terminal(terminal: Terminal, event: Event) -> bytes:
    """Apply ``event`` to ``terminal``; return the replies the terminal owes.

    Only output, resizes and replies change a terminal; every other event
    leaves it alone.
    """
    match event:
        case Output(t=t, data=data):
            return terminal.feed(data, t)
        case Resize(cols=cols, rows=rows):
            return terminal.resize(cols, rows)
        case Reply(data=data):
            terminal.deferred_answered(data)
        case _:
            pass
    return b""


def recorded_policy(header: Mapping[str, Any]) -> dict[str, Policy]:
    """The query policy a recording's header says the live terminal had.

    1.0 files wrote ``"defer"`` for a delayed answer; its delay does not
    matter offline (the recorded reply events say when it was sent). Kinds
    this termsim does not know (a newer one's) are left out; the values
    were checked by the reader.
    """
    out: dict[str, Policy] = {}
    for kind, value in header.get("policy", {}).items():
        if kind not in QUERY_KINDS:
            continue
        if value in ("answer", "ignore"):
            out[kind] = value
        else:
            out[kind] = 0.0 if value == "defer" else float(value)
    return out


def terminal_for(recording: Recording) -> Terminal:
    """An empty terminal of the recording's size, answering as the live one did.

    :class:`~termsim.RecordingError` (at the header's offset) when the
    header names a profile this termsim does not have, or an emulation
    option with a value it does not know.
    """
    header = recording.header
    width, height = header.get("cell_size", (10, 20))
    return Terminal(recording.cols, recording.rows, policy=recorded_policy(header),
                    cell_size=(width, height), term=header.get("term") or "xterm-256color",
                    emulation=_emulation(recording), profile=_profile(recording))


def _header_error(recording: Recording, why: str) -> RecordingError:
    return RecordingError(why, path=recording.path, offset=HEADER_OFFSET)


def _profile(recording: Recording) -> str:
    name: str = recording.header.get("profile") or "xterm"
    if name not in PROFILES:
        raise _header_error(recording, (
            f"the header's profile is {shown(name)}, a terminal this termsim cannot answer "
            f"as; it has {', '.join(PROFILES)} (a newer termsim may have it)"))
    return name


def _emulation(recording: Recording) -> Emulation:
    """The header's emulation options. Unknown ones (a newer termsim's) are
    ignored, as the format says; a known one with a value it cannot have
    would draw other screens than the live session's, so it is an error."""
    options: dict[str, Any] = recording.header.get("emulation", {})
    known = {f.name for f in fields(Emulation)}
    for key, value in options.items():
        if key not in known:
            continue
        try:
            Emulation(**{key: value})
        except (ValueError, TypeError) as exc:
            raise _header_error(recording, f"the header's emulation[{key!r}] is "
                                f"{shown(value)}: {exc}") from None
    return Emulation.from_header(options)


#: The most cells of screens a reader of a recording keeps at once (``show
#: --steps``, codegen: a screen for every step), about 300 MB at worst.
#: Screens share the rows that did not change, so an honest session of a
#: thousand steps on a 200x60 screen, a few rows changed at each, holds about
#: a million; a file of a few kilobytes that fills a 1000x1000 screen at
#: every step would hold gigabytes (75 MB a step, measured).
MAX_HELD_CELLS = 4_000_000


class ScreenBudget:
    """Counts the cells of the screens a reader keeps, each counting the
    rows it does not share with the one kept before it, and stops the
    reader with a :class:`RecordingError` past :data:`MAX_HELD_CELLS`."""

    def __init__(self, recording: Recording, reader: str) -> None:
        self._recording = recording
        self._reader = reader
        self._last: tuple[str, ...] = ()
        self.cells = 0

    def keep(self, snap: Snapshot) -> Snapshot:
        last, lines = self._last, snap.lines
        if lines is not last:
            same = len(last) == len(lines)
            changed = sum(1 for r, line in enumerate(lines)
                          if not same or line is not last[r])
            self.cells += changed * snap.cols
            self._last = lines
        if self.cells > MAX_HELD_CELLS:
            raise RecordingError(
                f"{self._reader} keeps a screen for every step, and this recording's would "
                f"be more than {MAX_HELD_CELLS:,} cells at once (its screens are "
                f"{snap.cols}x{snap.rows}, redrawn whole at many steps); read it with "
                "termsim show --at, or export it to a page (.html)",
                path=self._recording.path)
        return snap


class Playback:
    """The screens of a recording.

    ``Playback("session.tsr").screen_at(2.5)`` is the screen 2.5 s into the
    session, exactly as the live session's terminal had it (the same
    :func:`apply_to_terminal`). Asking for increasing times walks the
    recording once.
    """

    def __init__(self, recording: Recording | str | os.PathLike[str]) -> None:
        self.recording = recording if isinstance(recording, Recording) \
            else Recording.open(recording)
        self._terminal = terminal_for(self.recording)
        self._next = 0
        self._at = -1.0

    def terminal_at(self, seconds: float | None = None) -> Terminal:
        """The terminal after every event up to ``seconds`` (the end if None).

        It answered queries under the recorded policy, so its ``queries``
        and ``unknown`` say what the live terminal answered and did not
        understand. The same terminal object moves forward on later calls;
        asking for an earlier time starts a new one.
        """
        if seconds is not None and not (isinstance(seconds, int | float)
                                        and not math.isnan(seconds)):
            raise ArgumentError(f"a moment in a recording is a number of seconds from its "
                                f"start, not {seconds!r}")
        until = float("inf") if seconds is None else seconds
        if until < self._at:
            self._terminal = terminal_for(self.recording)
            self._next = 0
        events = self.recording.events
        while self._next < len(events) and events[self._next].t <= until:
            apply_to_terminal(self._terminal, events[self._next])
            self._next += 1
        self._at = until
        return self._terminal

    def screen_at(self, seconds: float | None = None) -> Snapshot:
        """The screen after every event up to ``seconds`` (the end if None)."""
        return self.terminal_at(seconds).screen

    def frames(self, max_frames: int | None = None) -> list[tuple[float, Snapshot]]:
        """``(time, screen)``: the empty first screen, then one after each output or
        resize event (evenly chosen, the last always kept, beyond ``max_frames``)."""
        return list(self.walk(max_frames))

    def walk(self, max_frames: int | None = None) -> Iterator[tuple[float, Snapshot]]:
        """:meth:`frames` one at a time, none kept: a reader that looks at
        each screen once holds one screen, whatever the recording's length."""
        events = self.recording.events
        changing = [i for i, e in enumerate(events) if isinstance(e, Output | Resize)]
        keep = set(changing)
        if max_frames is not None:
            if max_frames < 2:
                raise ValueError("max_frames must be at least 2")
            room = max_frames - 1  # the first, empty screen is always a frame
            if len(changing) > room:
                last = len(changing) - 1
                keep = {changing[round(k * last / (room - 1))] for k in range(room)} \
                    if room > 1 else {changing[-1]}
        terminal = terminal_for(self.recording)
        yield 0.0, terminal.screen
        for i, event in enumerate(events):
            apply_to_terminal(terminal, event)
            if i in keep:
                yield event.t, terminal.screen
