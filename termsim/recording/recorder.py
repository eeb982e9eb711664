"""The session recorder: every event of a session, redacted, to a file as it happens.

One recorder listens to a session's event stream (the PTY source's output,
replies, tty modes and exit; the driver's inputs, resizes, notes and
warnings; the engine's waits) and writes each event through a
:class:`~termsim.recording.format.RecordingWriter`. It owns redaction, so no
other part of termsim decides what may reach the disk:

* output is scrubbed as a stream (a secret split between two reads is still
  caught; the tail of the stream is held back until the next chunk, or the
  exit, or the end);
* input marked secret (typed at a prompt with echo off, or declared so by the
  test) is written as the mask, and any input is scrubbed;
* every text field (labels, notes, warnings, wait descriptions) is scrubbed.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence

from ..events import (
    End,
    Event,
    Exit,
    How,
    Input,
    Note,
    Output,
    ScreenCompared,
    UnknownSequences,
    WaitStarted,
    Warned,
)
from .format import RecordingWriter, make_header
from .redact import REDACTED, Redactor


class Recorder:
    """Writes a session's events to ``path``, redacted. Call it with each event."""

    def __init__(
        self, path: str | os.PathLike[str], *, redactor: Redactor, argv: Sequence[str],
        cwd: str | None, cols: int, rows: int, env: Mapping[str, str],
        policy: Mapping[str, object], on_failure: Callable[[str], None] | None = None,
        cell_size: tuple[int, int] | None = None, emulation: Mapping[str, object] | None = None,
        profile: str | None = None,
    ) -> None:
        self.redactor = redactor
        scrub = redactor.text
        header = make_header(
            argv=[scrub(a) for a in argv], cwd=None if cwd is None else scrub(cwd),
            cols=cols, rows=rows, env={k: scrub(v) for k, v in env.items()}, policy=policy,
            cell_size=cell_size, emulation=emulation, profile=profile,
        )
        self._writer = RecordingWriter(path, header, on_failure=on_failure)
        self.path = self._writer.path

    @property
    def closed(self) -> bool:
        return self._writer.closed

    def __call__(self, event: Event) -> None:
        writer = self._writer
        redactor = self.redactor
        match event:
            case Output(t=t, data=data):
                scrubbed = redactor.feed(data)
                if scrubbed:
                    writer.write(Output(t, scrubbed))
            case Input(data=data, label=label, secret=secret):
                # A secret input's label never holds the secret (the driver
                # builds it so); its bytes are replaced by the mask.
                writer.write(dataclasses.replace(
                    event, data=REDACTED.encode() if secret else redactor.data(data),
                    label=redactor.text(label)))
            case ScreenCompared(expected=expected, actual=actual):
                writer.write(dataclasses.replace(
                    event, expected=redactor.text(expected), actual=redactor.text(actual)))
            case Note(label=label):
                writer.write(Note(event.t, redactor.text(label)))
            case Warned(message=message):
                writer.write(Warned(event.t, redactor.text(message)))
            case WaitStarted(predicate=predicate, since=since):
                writer.write(dataclasses.replace(
                    event, predicate=redactor.text(predicate),
                    since=None if since is None else redactor.text(since)))
            case Exit():
                self._flush(event.t)  # the final screen is complete before the exit
                writer.write(event)
            case End(t=t, how=how):
                self.close(t, how)
            case _:
                writer.write(event)

    def _flush(self, t: float) -> None:
        rest = self.redactor.flush()
        if rest:
            self._writer.write(Output(t, rest))

    def close(self, t: float, how: How, unknown: Mapping[str, int] | None = None) -> None:
        """Flush what redaction held back, write the counts of sequences the
        terminal did not understand, and end the file (it is then complete)."""
        if self._writer.closed:
            return
        self._flush(t)
        if unknown:
            # So a reader knows the screens may be wrong, and where.
            self._writer.write(UnknownSequences(t, dict(unknown)))
        self._writer.close(t, how)

    def warn(self, t: float, message: str) -> None:
        """A warning outside the event stream (a session that could not start)."""
        self(Warned(t, message))

