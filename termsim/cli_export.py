"""``termsim export``: a recording as asciicast, text, a page, an SVG, a PNG
or an animated GIF, the format from the output's extension.

Beside :mod:`termsim.cli`, whose parser declares the options; the one
writer (:func:`~termsim.cli_common.say`) prints what the command says, made
visible: a recording is a stranger's file.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
from pathlib import Path

from .cli_common import UsageError, check_at, open_recording, say, time_asked
from .emulator.terminals.xterm import printable
from .engine.playback import Playback


def export(args: argparse.Namespace) -> int:
    """``termsim export REC -o OUT`` (the format from OUT's extension)."""
    from .report.asciicast import export_asciicast, export_text

    suffix = Path(args.output).suffix.lower()
    if suffix not in (".cast", ".txt", ".html", ".svg", ".png", ".gif"):
        raise UsageError(f"cannot tell the format of {args.output!r}: use .html, .svg, .png, "
                         ".gif, .cast or .txt")
    if args.at is not None and suffix not in (".svg", ".png"):
        raise UsageError("--at is for .svg and .png (one screen)")
    if (args.wait is not None or args.failed) and suffix != ".png":
        raise UsageError("--wait and --failed are for .png (one screen; a .gif ends on "
                         "the failed wait's screen by itself)")
    if args.scale is not None and suffix not in (".png", ".gif"):
        raise UsageError("--scale is for .png and .gif")
    if suffix != ".gif" and any(v is not None for v in (
            args.max_seconds, args.max_frames, args.idle_limit)):
        raise UsageError("--max-seconds, --max-frames and --idle-limit are for .gif")
    check_at(args)
    if suffix in (".png", ".gif"):
        return _picture(args, suffix)
    recording = open_recording(args.file)
    if suffix == ".html":
        from .report.html import write_recording_html

        with open(args.output, "w", encoding="utf-8") as out:
            write_recording_html(recording, out)
        say(f"wrote the session ({recording.duration:.3f} s) to {args.output}", err=True)
        return 0
    if suffix == ".svg":
        from .report.svg import snapshot_svg

        picture = snapshot_svg(Playback(recording).screen_at(time_asked(args, recording)))
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(picture)
        when = "the final screen" if args.at is None else f"the screen at {args.at:g} s"
        say(f"wrote {when} to {args.output}", err=True)
        return 0
    with open(args.output, "w", encoding="utf-8") as out:
        if suffix == ".txt":
            export_text(recording, out)
            say(f"wrote the final screen to {args.output}", err=True)
            return 0
        report = export_asciicast(recording, out, version=3 if args.v3 else 2)
    say(f"wrote {report.events} events ({report.duration:.3f} s) to {args.output} "
        f"as asciicast v{3 if args.v3 else 2}", err=True)
    if report.replaced_bytes:
        say(f"termsim export: {report.replaced_bytes} bytes were not UTF-8 and were "
            "replaced by U+FFFD (asciicast holds text, not bytes)", err=True)
    return 0


def _picture(args: argparse.Namespace, suffix: str) -> int:
    """``export -o OUT.png`` and ``-o OUT.gif`` (Pillow's: said first, if missing)."""
    from .errors import ArgumentError
    from .report.picture import require_pillow

    require_pillow()  # before anything else: the one line that says how to get it
    from .report import gif, picture

    scale = 1.0 if args.scale is None else args.scale
    checks = [("--scale", scale, picture.MIN_SCALE, picture.MAX_SCALE)]
    if suffix == ".gif":  # the ranges write_session_gif checks, said as flags
        checks += [("--" + name.replace("_", "-"), getattr(args, name), low, high)
                   for name, (low, high, _, _) in gif.OPTION_RANGES.items()]
    for flag, value, low, high in checks:
        if value is not None and not (math.isfinite(value) and low <= value <= high):
            raise UsageError(f"{flag} takes a number from {low:g} to {high:g}, not {value:g}")
    recording = open_recording(args.file)
    try:
        if suffix == ".gif":
            out = open(args.output, "wb")  # noqa: SIM115 (removed below if not written whole)
            try:
                with out:
                    report = gif.write_session_gif(
                        recording, out, scale=scale,
                        max_seconds=gif.DEFAULT_MAX_SECONDS if args.max_seconds is None
                        else args.max_seconds,
                        max_frames=gif.DEFAULT_MAX_FRAMES if args.max_frames is None
                        else args.max_frames,
                        idle_limit=gif.DEFAULT_IDLE_LIMIT if args.idle_limit is None
                        else args.idle_limit)
            except BaseException:
                # Refused (too large), or stopped: no empty or half GIF is left to attach.
                with contextlib.suppress(OSError):
                    os.unlink(args.output)
                raise
            left = (f"; {report.screens - report.kept} screens left out"
                    if report.kept < report.screens else "")
            cut = f"; the first {report.cut:.3f} s left out" if report.cut else ""
            # The caption quotes the recording (a wait's words): one line, made visible.
            say(f"wrote {report.frames} frames ({report.seconds:.2f} s, {report.width}x"
                f"{report.height}) to {args.output}{left}{cut}; it ends on: "
                f"{printable(report.ending)}", err=True)
            return 0
        from .events import Resize
        from .report.picture import snapshot_png
        from .report.picture_moments import time_moment, wait_moment

        if next(recording.of_type(Resize), None) is None:  # one size: refused before replaying
            picture.check_size(recording.cols, recording.rows, scale)
        if args.wait is not None or args.failed:
            moment = wait_moment(recording, args.wait)
        else:
            moment = time_moment(recording, time_asked(args, recording))
        png = snapshot_png(moment.screen, caption=moment.caption, outlines=moment.outlines,
                           outline_colour=moment.colour, scale=scale)
    except ArgumentError as exc:
        raise UsageError(str(exc)) from None
    with open(args.output, "wb") as out:
        out.write(png)
    if moment.caption:
        say(f"wrote {args.output}: {printable(moment.caption)}", err=True)  # one line
    else:
        when = "the final screen" if args.at is None else f"the screen at {args.at:g} s"
        say(f"wrote {when} to {args.output}", err=True)
    return 0
