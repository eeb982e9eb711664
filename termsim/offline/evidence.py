"""What a test's recordings say to the person whose test failed or flaked.

The pytest plugin's reports are made of plain functions of recordings and
dates: the "termsim recordings" section of a failure (each recording, the
PNG of its failed screen drawn beside it, the wait that failed, the final
screen and the commands that replay it), and
what the "termsim flaky" section says of a test that passed only on a rerun
(the failed attempt's error and recordings, and whether its
``termsim_flaky`` marker allows it). They live here, apart from the plugin
(at its 500-line limit), because none of them needs pytest: they read
recordings and markers' arguments, as plain values.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..emulator.terminals.xterm import printable
from ..engine.playback import Playback
from ..errors import RecordingError, TermsimError, describe_status
from ..events import Exit, Warned
from ..recording.format import Recording

#: How to write the marker, in every error about it.
MARKER_USAGE = "@pytest.mark.termsim_flaky(reason='why it may need a rerun', until='YYYY-MM-DD')"

#: How many lines of the failed attempt's error the flaky section shows.
ERROR_LINES = 16


def flaky_marker(args: Sequence[object], kwargs: Mapping[str, object]) -> dict[str, str | None]:
    """A ``termsim_flaky`` marker's ``{"reason": ..., "until": ...}``
    (``until`` None: no end date), from its arguments as the test wrote them.

    Raises ValueError, saying how to write it, for a marker that could not
    allow anything: no reason (the summary prints it each time the test
    needs a rerun, so that whoever reads a green run knows why), an
    ``until`` that is not a date, or an argument it does not take. The
    plugin fails the test's setup with it, the day the marker is written,
    rather than the day the test flakes.
    """
    unknown = sorted(set(kwargs) - {"reason", "until"})
    if unknown or len(args) > 2:
        extra = ", ".join(unknown) if unknown else f"{len(args)} positional arguments"
        raise ValueError(f"termsim_flaky takes reason= and until=, not {extra}: {MARKER_USAGE}")
    reason = kwargs.get("reason", args[0] if args else None)
    until = kwargs.get("until", args[1] if len(args) > 1 else None)
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError("termsim_flaky needs a reason (the summary prints it each time the "
                         f"test passes only on a rerun): {MARKER_USAGE}")
    if until is None:
        return {"reason": reason, "until": None}
    if isinstance(until, datetime.datetime):
        until = until.date()
    if isinstance(until, datetime.date):
        return {"reason": reason, "until": until.isoformat()}
    try:
        day = datetime.date.fromisoformat(str(until))
    except ValueError:
        raise ValueError(f"termsim_flaky until={until!r} is not a date: give the last day a "
                         f"rerun is allowed as 'YYYY-MM-DD': {MARKER_USAGE}") from None
    return {"reason": reason, "until": day.isoformat()}


def expired(allowed: dict[str, Any] | None) -> str | None:
    """Why a flaky test is not allowed (None: it is); ``allowed`` is its
    ``termsim_flaky`` marker's ``{"reason": ..., "until": ...}`` (as
    :func:`flaky_marker` reads it). ``until`` is the last day allowed."""
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
        return (f"termsim_flaky expired on {until}: a rerun is no longer allowed; fix the "
                "flake, or move until= if it is still known and tracked")
    return None


def flaky_lines(info: Mapping[str, Any]) -> list[str]:
    """The "termsim flaky" section's lines for one test that failed, then
    passed on a rerun: whether that is allowed, the failed attempt's error
    (pytest prints none for an attempt it reran) and where its recordings
    are kept, the passing attempt's, and their diff."""
    why = expired(info["allowed"])
    if why is None:
        until = info["allowed"]["until"]
        why = f"allowed: {info['allowed']['reason']} " + (
            f"(until {until})" if until else "(with no end date)")
    lines = [f"{info['nodeid']}: failed, then passed on a rerun ({why})"]
    error = str(info.get("error") or "").strip("\n").split("\n")
    if error != [""]:
        lines.append(f"  the failed attempt's error: {error[0]}")
        lines += ["    " + line for line in error[1:ERROR_LINES]]
        if len(error) > ERROR_LINES:
            lines.append(f"    … {len(error) - ERROR_LINES} more lines (the recording has "
                         "the whole session)")
    lines += [f"  failed attempt: {path}" for path in info["failed"]]
    lines += [f"  passing attempt: {path}" for path in info["passed"]]
    if info["diff"]:
        lines.append(f"  diff (A: passing, B: failed): {info['diff']}")
    if info["failed"] and info["passed"]:
        lines.append(f"  look: termsim diff {info['passed'][0]} {info['failed'][0]}")
    # What pytest prints into a terminal or a CI log: made visible.
    return [printable(line) for line in lines]


def failure_pictures(paths: Sequence[Path],
                     shown_as: Callable[[Path], Path]) -> dict[Path, str] | None:
    """Draw the PNG of each recording's failed screen beside it (``x.tsr``
    -> ``x.png``: a CI artifact of the folder carries a picture anyone can
    open) and give, for each drawn, what its report line says: the path a
    person types, or why it was not drawn. None when Pillow is not
    installed (nothing drawn: the caller says once how to install it).

    A recording that cannot be read, or whose program never started, gets
    no picture (its report says why); nothing here fails the report that
    calls it: a picture is evidence beside the recording, never instead."""
    from ..report.picture import pictures_available
    from ..report.picture_moments import write_failure_picture

    if not pictures_available():
        return None
    shown: dict[Path, str] = {}
    for path in paths:
        try:
            made = write_failure_picture(path)
        except RecordingError:
            continue  # the report says it is unreadable
        except (TermsimError, OSError) as exc:  # too large to draw; a folder turned read-only
            shown[path] = f"not drawn: {exc}"
            continue
        except Exception as exc:  # a bug of termsim's must not cost the failure its report
            shown[path] = f"not drawn: {type(exc).__name__}: {exc} (please report it)"
            continue
        if made is not None:
            shown[path] = str(shown_as(made))
    return shown


def describe_recordings(paths: Sequence[Path], shown_as: Callable[[Path], Path],
                        pictures: Mapping[Path, str] | None = None) -> str:
    """The report of a failed test's recordings; ``shown_as`` gives the
    path a person types for each, ``pictures`` what to say of the picture
    drawn beside it (:func:`failure_pictures`), on a ``picture:`` line."""
    out: list[str] = []
    for path in paths:
        shown = shown_as(path)
        out.append(f"recording: {shown}")
        if pictures and path in pictures:
            out.append(f"  picture: {pictures[path]}")
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
