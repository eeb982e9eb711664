"""Which screen of a recording a picture shows, what it outlines and what its caption says.

``termsim export REC -o OUT.png`` shows the final screen, the screen at
``--at T``, or a wait's: ``--wait N`` (the waits numbered from 1 in the order
they started, as ``termsim info`` lists them) or ``--failed`` (the last wait
that ended badly, the one a failure report names). A wait's screen is the
one it ended on, exactly (the screen after every event before its end, as
``show --steps`` tells it); its region is outlined, red if it failed and
green if it matched, and the caption says what was awaited, how it ended and
when. The GIF ends on the same screen, and the pytest plugin writes the
same picture beside a failed test's recording (:func:`write_failure_picture`).

The region comes from the wait's description read back into a predicate
(:func:`~termsim.report.predicate_text.parse`, bounded in length and time:
the words are a stranger's), and the cells each part looked at, as the
trace viewer outlines them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..emulator.snapshot.snapshot import Snapshot
from ..engine.playback import Playback
from ..errors import ArgumentError
from ..events import Resize, WaitEnded, errored
from ..recording.format import Recording, WaitRecord
from .picture import FAILED, MATCHED, check_size, pictures_available, snapshot_png
from .predicate_text import parse
from .steps import Outline, leaf_outlines, walk_screens


@dataclass(frozen=True)
class Moment:
    """A screen of a recording as a picture shows it."""

    #: When the screen was on, in seconds of the recording.
    t: float
    #: How many of the recording's events it is the screen after.
    position: int
    screen: Snapshot
    #: The caption under the screen ("" for none).
    caption: str
    #: The cells the wait looked at.
    outlines: tuple[Outline, ...]
    #: The outline's (and the caption's) colour.
    colour: str


def chosen_wait(recording: Recording, number: int | None) -> tuple[int, WaitRecord]:
    """Wait ``number`` (from 1, in the order the waits started) with its
    number; ``None``: the last one that ended badly. :class:`ArgumentError`
    naming what the recording has when there is no such wait."""
    waits = recording.waits()
    if number is None:
        failed = [(n, w) for n, w in enumerate(waits, start=1) if w.failed]
        if not failed:
            have = (f"its {len(waits)} wait{'s' * (len(waits) != 1)} all ended well"
                    if waits else "it has no wait")
            raise ArgumentError(
                f"no wait of this recording failed ({have}; termsim info lists them): "
                "picture a wait with --wait N, or a moment with --at T")
        return max(failed, key=lambda nw: (nw[1].end if nw[1].end is not None
                                           else recording.duration, nw[0]))
    if not waits:
        raise ArgumentError("this recording has no wait: picture a moment with --at T")
    if not 1 <= number <= len(waits):
        raise ArgumentError(f"this recording has {len(waits)} wait{'s' * (len(waits) != 1)}: "
                            f"--wait takes 1 to {len(waits)} (termsim info lists them)")
    return number, waits[number - 1]


@dataclass(frozen=True)
class Plan:
    """Which screen a picture shows, known without replaying anything: the
    screen after ``position`` events, on at ``t``; ``wait`` (numbered
    ``number``) the wait it ended, or None for the final screen."""

    position: int
    t: float
    number: int = 0
    wait: WaitRecord | None = None


def wait_plan(recording: Recording, number: int | None = None) -> Plan:
    """Where wait ``number`` ended (None: the last failed wait)."""
    n, wait = chosen_wait(recording, number)
    events = recording.events
    position = next((i for i, e in enumerate(events)
                     if isinstance(e, WaitEnded) and e.id == wait.id), len(events))
    return Plan(position, wait.end if wait.end is not None else recording.duration, n, wait)


def failure_plan(recording: Recording) -> Plan:
    """What a failed test's picture shows: the last failed wait's screen, or,
    when no wait failed (an assertion after the session, an exception), the
    final screen."""
    if any(w.failed for w in recording.waits()):
        return wait_plan(recording)
    return Plan(len(recording.events), recording.duration)


def moment(recording: Recording, plan: Plan, screen: Snapshot | None = None) -> Moment:
    """``plan``'s screen (given, or replayed up to it), its outlines and caption."""
    if screen is None:
        screen = next(walk_screens(recording, [plan.position]))[2]
    wait, t = plan.wait, plan.t
    if wait is None:
        return Moment(t, plan.position, screen, f"{t:.3f} s  the final screen", (), FAILED)
    # "5.131 s  wait 2 timed out after 5.004 s: text 'state:' in the bottom row":
    # how it ended first, so that a caption cut to a narrow screen keeps it.
    caption = (f"{t:.3f} s  wait {plan.number} {wait.outcome} after {t - wait.start:.3f} s: "
               f"{wait.predicate}")
    return Moment(t, plan.position, screen, caption, outlines_of(wait, screen),
                  FAILED if wait.failed else MATCHED)


def wait_moment(recording: Recording, number: int | None = None) -> Moment:
    """The screen wait ``number`` ended on (None: the last failed wait's),
    its region and its caption."""
    return moment(recording, wait_plan(recording, number))


def outlines_of(wait: WaitRecord, screen: Snapshot) -> tuple[Outline, ...]:
    """The cells each part of ``wait``'s predicate looked at on ``screen``
    (none when its words cannot be read back)."""
    predicate = parse(wait.predicate)
    if predicate is None:
        return ()
    leaves = dict.fromkeys(predicate.leaves())
    return tuple(o for leaf in leaves for o in leaf_outlines(leaf, screen))


def time_moment(recording: Recording, at: float | None) -> Moment:
    """The screen at ``at`` seconds (None: the final screen), without a caption."""
    playback = Playback(recording)
    screen = playback.screen_at(at)
    t = recording.duration if at is None else at
    return Moment(t, 0, screen, "", (), FAILED)


def failure_moment(recording: Recording) -> Moment:
    """:func:`failure_plan`'s screen, outlined and captioned (the final
    screen's caption is its time)."""
    return moment(recording, failure_plan(recording))


def write_failure_picture(recording_path: str | os.PathLike[str]) -> Path | None:
    """Write the PNG of a failed test's screen beside its recording
    (``test_x.tsr`` -> ``test_x.png``) and return its path; None, writing
    nothing, when Pillow is not installed (pictures are an extra: the caller
    says so once) or when the program never started (its screen is empty:
    the report says why instead).

    The screen is :func:`failure_moment`'s: the failed wait's, outlined and
    captioned. A recording that cannot be read raises
    :class:`~termsim.RecordingError`, a screen too large for a picture
    :class:`~termsim.report.picture.PictureTooLarge` (both before anything
    is drawn or written).
    """
    if not pictures_available():
        return None
    path = Path(recording_path)
    recording = Recording.open(path)
    if recording.end is not None and recording.end.how == errored("not started"):
        return None
    if next(recording.of_type(Resize), None) is None:  # one size: refused before replaying
        check_size(recording.cols, recording.rows)
    moment = failure_moment(recording)
    png = snapshot_png(moment.screen, caption=moment.caption, outlines=moment.outlines,
                       outline_colour=moment.colour)
    out = path.with_suffix(".png")
    out.write_bytes(png)
    return out
