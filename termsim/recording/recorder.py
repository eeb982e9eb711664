"""The session recorder: every event of a session, redacted, to a file as it happens.

One recorder listens to a session's event stream (the PTY source's output,
replies, tty modes and exit; the driver's inputs, resizes, notes and
warnings; the engine's waits) and writes each event through a
:class:`~termsim.recording.format.RecordingWriter`. It owns redaction, so no
other part of termsim decides what may reach the disk:

* output and input are each scrubbed as a stream of what a person reads
  (``redact.py``): a secret split between reads, styled character by
  character, or typed key by key is still caught;
* input marked secret (typed at a prompt with echo off, or declared so by the
  test) is written as the mask;
* every text field (labels, notes, warnings, wait descriptions) is scrubbed.

While a stream holds back bytes that may begin a secret, the events after
them wait too, so the file keeps the session's order (an input still comes
after the output the program drew before reading it): a held output event is
cut where the hold begins, and its rest, like every event after it, is
written as soon as the next read settles it, or at the exit, or the end. A
process killed outright loses only those.
"""

from __future__ import annotations

import dataclasses
import os
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..events import (
    End,
    Event,
    Exit,
    How,
    Input,
    Note,
    Output,
    Reply,
    Resize,
    ScreenCompared,
    UnknownSequences,
    WaitStarted,
    Warned,
)
from .format import RecordingWriter, make_header
from .redact import CONTINUED, REDACTED, Masking, Redactor, apply_edits, touching
from .redact_stream import Stream


@dataclass(slots=True)
class _Held:
    """An event not yet written; an output or input one stands at bytes
    ``start:end`` of its stream."""

    event: Event
    stream: Masking | None = None
    start: int = 0
    end: int = 0


class Recorder:
    """Writes a session's events to ``path``, redacted. Call it with each event."""

    def __init__(
        self, path: str | os.PathLike[str], *, redactor: Redactor, argv: Sequence[str],
        cwd: str | None, cols: int, rows: int, env: Mapping[str, str],
        policy: Mapping[str, object], on_failure: Callable[[str], None] | None = None,
        cell_size: tuple[int, int] | None = None, emulation: Mapping[str, object] | None = None,
        profile: str | None = None, output: Masking | None = None,
        input: Masking | None = None, spawn_env: Mapping[str, str] | None = None,
    ) -> None:
        self.redactor = redactor
        scrub = redactor.text
        header = make_header(
            argv=[scrub(a) for a in argv], cwd=None if cwd is None else scrub(cwd),
            cols=cols, rows=rows, env={k: scrub(v) for k, v in env.items()}, policy=policy,
            cell_size=cell_size, emulation=emulation, profile=profile,
            spawn_env={k: scrub(v) for k, v in (spawn_env or {}).items()},
        )
        self._writer = RecordingWriter(path, header, on_failure=on_failure)
        self.path = self._writer.path
        #: How the output and the input are scrubbed (``redact_stream.py``):
        #: a session passes streams that read the screen and the keys it
        #: sends (``termsim.engine.redaction``); by default, the characters.
        self._output: Masking = output if output is not None else Stream(redactor)
        self._input: Masking = input if input is not None \
            else Stream(redactor, whole_writes=True)
        self._held: deque[_Held] = deque()
        #: Nothing to redact: every event is written as it comes.
        self._direct = not redactor.patterns

    @property
    def closed(self) -> bool:
        return self._writer.closed

    def __call__(self, event: Event) -> None:
        if self._direct and not isinstance(event, End | Input):
            self._writer.write(event)
            return
        redactor = self.redactor
        match event:
            case Output(data=data):
                self._hold(event, self._output, data)
            case Input(data=data, label=label, secret=secret):
                if secret:
                    # A secret input's label never holds the secret (the
                    # driver builds it so); its bytes are replaced by the mask.
                    self._held.append(_Held(dataclasses.replace(
                        event, data=REDACTED.encode(), label=redactor.text(label))))
                else:
                    self._hold(dataclasses.replace(event, label=redactor.text(label)),
                               self._input, data)
            case ScreenCompared(expected=expected, actual=actual):
                self._held.append(_Held(dataclasses.replace(
                    event, expected=redactor.text(expected), actual=redactor.text(actual))))
            case Note(label=label):
                self._held.append(_Held(Note(event.t, redactor.text(label))))
            case Warned(message=message):
                self._held.append(_Held(Warned(event.t, redactor.text(message))))
            case WaitStarted(predicate=predicate, since=since):
                self._held.append(_Held(dataclasses.replace(
                    event, predicate=redactor.text(predicate),
                    since=None if since is None else redactor.text(since))))
            case Exit():
                # The final screen is complete before the exit.
                self._output.close()
                self._held.append(_Held(event))
            case End(t=t, how=how):
                self.close(t, how)
                return
            case Resize(cols=cols, rows=rows):
                self._output.resize(cols, rows)
                self._held.append(_Held(event))
            case Reply(data=data):
                # A report can quote the program (a title read back, OSC l).
                self._held.append(_Held(Reply(event.t, redactor.data(data))))
            case _:
                self._held.append(_Held(event))
        self._write_settled()

    def _hold(self, event: Event, stream: Masking, data: bytes) -> None:
        start = stream.fed
        stream.feed(data)
        self._held.append(_Held(event, stream, start, stream.fed))

    def _write_settled(self) -> None:
        """Write, in order, every held event whose bytes are settled; cut an
        output event where its stream's hold begins."""
        held, write = self._held, self._writer.write
        while held:
            first = held[0]
            stream = first.stream
            if stream is None:
                write(first.event)
            elif first.end <= stream.settled or first.start == first.end:
                write(self._scrubbed(first, first.end))
            elif isinstance(first.event, Output) and first.start < stream.settled:
                write(self._scrubbed(first, stream.settled))
                first.event = Output(first.event.t, first.event.data[stream.settled
                                                                      - first.start:])
                first.start = stream.settled
                break
            else:
                break
            held.popleft()
            if stream is not None:
                stream.forget(first.end)

    def _scrubbed(self, held: _Held, end: int) -> Event:
        """The part of a held output or input up to stream offset ``end``,
        with its stream's edits applied."""
        stream, event = held.stream, held.event
        assert stream is not None
        if isinstance(event, Output):
            data = event.data[:end - held.start]
            return Output(event.t, apply_edits(data, held.start, stream.edits))
        assert isinstance(event, Input)
        touched = touching(stream.edits, held.start, held.end)
        if not touched:
            return event
        # Part of a secret: the label (a key's name, the text) goes too, and
        # an input holding only the rest of one says so (a replay or codegen
        # joins it to the input that began it).
        kind = event.label.split(" ", 1)[0] or "input"
        rest = "" if any(e.first for e in touched) else CONTINUED
        return dataclasses.replace(event, data=apply_edits(event.data, held.start, stream.edits),
                                   label=f"{kind} {REDACTED}{rest}", secret=True)

    def close(self, t: float, how: How, unknown: Mapping[str, int] | None = None) -> None:
        """Write what redaction held back, the counts of sequences the
        terminal did not understand, and end the file (it is then complete)."""
        if self._writer.closed:
            return
        self._output.close()
        self._input.close()
        self._write_settled()
        if unknown:
            # So a reader knows the screens may be wrong, and where.
            self._writer.write(UnknownSequences(t, dict(unknown)))
        self._writer.close(t, how)

    def warn(self, t: float, message: str) -> None:
        """A warning outside the event stream (a session that could not start)."""
        self(Warned(t, message))
