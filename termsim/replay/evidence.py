"""What a test's recordings say to the person whose test failed or flaked.

The pytest plugin's reports are made of plain functions of recordings and
dates: the "termsim recordings" section of a failure (each recording, the
wait that failed, the final screen and the commands that replay it), and
whether a test that passed only on a rerun is allowed to. They live here,
apart from the plugin (at its 500-line limit), because none of them needs
pytest: they read recordings, as the rest of this layer does.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..emulator.xterm import printable
from ..engine.playback import Playback
from ..errors import RecordingError, describe_status
from ..events import Exit, Warned
from ..recording.format import Recording


def expired(allowed: dict[str, Any] | None) -> str | None:
    """Why a flaky test is not allowed (None: it is); ``allowed`` is its
    ``termsim_flaky`` marker's ``{"reason": ..., "until": ...}``."""
    if allowed is None:
        return "not marked termsim_flaky"
    until = allowed.get("until")
    if until is None:
        return None
    try:
        day = datetime.date.fromisoformat(until)
    except ValueError:
        return f"termsim_flaky until={until!r} is not a date (YYYY-MM-DD)"
    if datetime.date.today() > day:
        return f"termsim_flaky expired on {until}"
    return None


def describe_recordings(paths: Sequence[Path], shown_as: Callable[[Path], Path]) -> str:
    """The report of a failed test's recordings; ``shown_as`` gives the
    path a person types for each."""
    out: list[str] = []
    for path in paths:
        shown = shown_as(path)
        out.append(f"recording: {shown}")
        try:
            recording = Recording.open(path)
        except RecordingError as exc:
            out.append(f"  (unreadable: {exc})")
            continue
        if recording.end is not None and recording.end.how == "error: not started":
            reason = next((w.message for w in recording.of_type(Warned)), "")
            out.append(f"  the program did not start: {reason}")
            continue
        failed = failed_wait(recording)
        if failed:
            out.append(f"  failed wait: {failed}")
        exit_event = next(recording.of_type(Exit), None)
        if exit_event is not None:
            out.append(f"  program: {describe_status(exit_event.status)} "
                       f"at {exit_event.t:.3f} s")
        out.append(f"  look:   termsim show {shown} --frame   |   termsim info {shown}")
        out.append(f"  replay: termsim play {shown}   (in a test: termsim.replay({str(shown)!r}))")
        out.append("  final screen:")
        out.extend("    " + line for line in Playback(recording).screen_at().render().split("\n"))
    # What pytest prints into a terminal or a CI log: made visible, line by line.
    return "\n".join(map(printable, out))


def failed_wait(recording: Recording) -> str | None:
    """The last wait that ended badly, described."""
    failed = [w for w in recording.waits() if w.end is not None and w.failed]
    if not failed:
        return None
    w = max(failed, key=lambda w: w.end or 0.0)
    return f"{w.predicate} ({w.outcome} after {(w.end or w.start) - w.start:.3f} s)"
