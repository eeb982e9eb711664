"""The ``termsim`` command: record, play, show, info, diff, export, import, codegen,
profiles.

Every command prints one clear line and exits non-zero on a missing,
truncated or corrupt file; none shows a traceback. Exit statuses: 0 success,
1 a bad or unreadable file, 2 bad usage, 130 interrupted (``play`` also 143 on
SIGTERM, 129 on SIGHUP, 141 when its output's reader is gone); ``record``
exits with the recorded program's status.

What the commands print for people goes through one function, :func:`say`:
a recording is a stranger's file and a program prints what it likes, so
every line is shown with :func:`~termsim.emulator.xterm.printable` (an
escape sequence in a note or a title reads ``ESC]52;...`` instead of
writing the reader's clipboard). The reports apply it to their own lines
already (so that a field cannot forge a line either); this is the net under
them and under the command's own messages, which name files and quote
errors. ``play`` writes the recording's bytes on purpose, and ``codegen``
writes Python source: neither goes through it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from .emulator.xterm import printable
from .engine.playback import Playback
from .errors import RecordingError, TermsimError, describe_status
from .recording.format import Recording
from .report.info import write_info


class UsageError(Exception):
    """Wrong arguments: exit status 2."""


def say(text: str, *, err: bool = False) -> None:
    """Print ``text`` and a newline for a person (stderr if ``err``), every
    line through :func:`printable`: no control character from a file, a
    path or a program reaches the terminal as one."""
    stream = sys.stderr if err else sys.stdout
    shown = "\n".join(map(printable, text.split("\n"))) + "\n"
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        stream.write(shown)
    except UnicodeEncodeError:  # a terminal that is not UTF-8: what it cannot show, escaped
        stream.write(shown.encode(encoding, "backslashreplace").decode(encoding))


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args))
    except UsageError as exc:
        say(f"termsim {args.command}: {exc}", err=True)
        return 2
    except (RecordingError, TermsimError) as exc:
        say(f"termsim {args.command}: {exc}", err=True)
        return 1
    except BrokenPipeError:
        # The reader went away (`termsim profiles | head`): nothing more to
        # say, as any Unix tool; the exit status a shell gives one SIGPIPE ended.
        # (stdout points at nothing now, so that Python's own flush at exit
        # does not fail a second time.)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        say(f"termsim {args.command}: {where}{exc.strerror or exc}", err=True)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        say(f"termsim {args.command}: internal error: {type(exc).__name__}: {exc} "
            "(please report it)", err=True)
        return 3


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="termsim", description="Record, replay and inspect terminal sessions.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("record", help="run a command in a recorded terminal, interactively")
    p.add_argument("-o", "--output", help="the recording file to write (default with "
                   "--test: the test's name, .tsr)")
    p.add_argument("--test", metavar="FILE", help="when the program exits, write a pytest "
                   "test of the session to FILE (as termsim codegen does)")
    p.add_argument("--golden", action="store_true", help="with --test: golden files for "
                   "the screens marked (as termsim codegen --golden)")
    p.add_argument("--cols", type=int, help="columns (default: this terminal's)")
    p.add_argument("--rows", type=int, help="rows (default: this terminal's)")
    p.add_argument("--mark-key", default="ctrl+]", metavar="KEY",
                   help="the key (never sent to the program) that opens a menu to mark the "
                   "session for the test: assert the screen, assert a row, a comment "
                   "(default ctrl+]; 'none': no menu)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    p.set_defaults(run=_record)

    p = sub.add_parser("profiles", help="the terminals a session can answer as "
                       "(spawn(profile=...)), and how each differs from xterm")
    p.set_defaults(run=_profiles)

    p = sub.add_parser("codegen", help="write a pytest test of a recorded session: each "
                       "input, and a wait for what it made the program draw")
    p.add_argument("file", help="the recording")
    p.add_argument("other", nargs="?", help="another recording of the same session: what "
                   "differs between the two is left free in the waits")
    p.add_argument("-o", "--output", help="the test file to write (default: print it)")
    p.add_argument("--golden", action="store_true", help="assert the screens marked while "
                   "recording (or the last one) with golden files, written beside the test")
    p.set_defaults(run=_codegen)

    p = sub.add_parser("play", help="play a recording into this terminal: only what draws "
                       "(no query, clipboard, title...), the terminal restored after")
    p.add_argument("file")
    p.add_argument("--speed", type=float, default=1.0, help="playback speed (default 1.0)")
    p.add_argument("--idle-limit", type=float, default=None,
                   help="shorten pauses longer than this many seconds (a pause over an "
                   "hour is played as 1 s)")
    p.set_defaults(run=_play)

    p = sub.add_parser("show", help="print the screen at a moment, as text")
    p.add_argument("file")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--at", type=float, help="seconds from the start")
    when.add_argument("--end", action="store_true", help="the final screen (the default)")
    p.add_argument("--frame", action="store_true",
                   help="with row numbers, a frame and the cursor")
    p.add_argument("--steps", action="store_true",
                   help="the session as steps (inputs, waits, queries, signals, exit), "
                   "a failed wait told in full")
    p.add_argument("--format", choices=("text", "md", "json"), default="text",
                   help="with --steps: plain text (default), Markdown or JSON")
    p.set_defaults(run=_show)

    p = sub.add_parser("info", help="summarise a recording: waits, queries, silences, exit")
    p.add_argument("file")
    p.set_defaults(run=_info)

    p = sub.add_parser("diff", help="where two runs of a test part ways: waits, screens, "
                       "output, timings")
    p.add_argument("a", help="a recording (say, of the passing run)")
    p.add_argument("b", help="another recording of the same test (say, the failing run)")
    p.add_argument("--html", metavar="OUT.html", help="also write the diff as a page")
    p.set_defaults(run=_diff)

    p = sub.add_parser(
        "export", help="write a recording as asciicast (.cast), text (.txt), a page with "
        "a timeline (.html), a picture of one screen (.svg, .png) or an animation (.gif)")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True,
                   help="OUT.cast, OUT.txt, OUT.html, OUT.svg, OUT.png or OUT.gif")
    p.add_argument("--v3", action="store_true", help="asciicast v3 instead of v2")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--at", type=float, help=".svg, .png: the screen at this many seconds")
    when.add_argument("--end", action="store_true",
                      help=".svg, .png: the final screen (the default)")
    when.add_argument("--wait", type=int, metavar="N",
                      help=".png: the screen wait N ended on (from 1, as termsim info lists "
                      "them), its region outlined and a caption")
    when.add_argument("--failed", action="store_true",
                      help=".png: the screen the failed wait ended on (the last, if several), "
                      "its region outlined and a caption")
    p.add_argument("--scale", type=float, default=None,
                   help=".png, .gif: the picture's size (1: cells of 9x18 pixels; "
                   "0.5 to 4; default 1)")
    p.add_argument("--max-seconds", type=float, default=None,
                   help=".gif: show at most the last this many seconds, once pauses are "
                   "shortened (default 30)")
    p.add_argument("--max-frames", type=int, default=None,
                   help=".gif: at most this many frames, evenly chosen (default 300)")
    p.add_argument("--idle-limit", type=float, default=None,
                   help=".gif: show a pause longer than this many seconds this long "
                   "(default 2)")
    p.set_defaults(run=_export)

    p = sub.add_parser("import", help="convert an asciicast (v1, v2, v3) into a recording")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, help="the recording file to write")
    p.set_defaults(run=_import)

    from .drive.cli import add_parsers

    add_parsers(sub)  # drive, mcp
    return parser


# -- show / info -------------------------------------------------------------------------


def _open(path: str) -> Recording:
    recording = Recording.open(path)
    if not recording.complete:
        say(f"termsim: note: {path} is incomplete (the session did not close); "
            f"read up to byte {recording.stopped_at}", err=True)
    return recording


def _check_at(args: argparse.Namespace) -> None:
    """``--at`` is a moment of the recording: a finite number of seconds, >= 0
    (``nan`` would show the empty screen of no moment at all)."""
    if args.at is not None and not (math.isfinite(args.at) and args.at >= 0):
        raise UsageError("--at takes seconds from the start (a number >= 0)")


def _moment(args: argparse.Namespace, recording: Recording) -> float | None:
    """The ``--at`` time, checked against the recording (None: the end)."""
    if args.end or args.at is None:
        return None
    if args.at > recording.duration:
        raise UsageError(f"--at {args.at:g} is past the end of the recording "
                         f"({recording.duration:.3f} s); --end shows the final screen")
    return float(args.at)


def _show(args: argparse.Namespace) -> int:
    _check_at(args)
    recording = _open(args.file)
    if args.steps:
        if args.at is not None or args.end or args.frame:
            raise UsageError("--steps tells the whole session: no --at, --end or --frame")
        from .report.steps_text import steps_json, steps_markdown, steps_text

        write = {"text": steps_text, "md": steps_markdown, "json": steps_json}[args.format]
        say(write(recording).removesuffix("\n"))
        return 0
    if args.format != "text":
        raise UsageError("--format goes with --steps")
    screen = Playback(recording).screen_at(_moment(args, recording))
    say(screen.render() if args.frame else screen.text.rstrip("\n"))
    return 0


def _info(args: argparse.Namespace) -> int:
    recording = _open(args.file)
    report = io.StringIO()
    write_info(recording, report)
    say(report.getvalue().removesuffix("\n"))
    return 0


def _diff(args: argparse.Namespace) -> int:
    from .offline.diff import diff

    result = diff(_open(args.a), _open(args.b))
    say(result.text())
    if args.html:
        with open(args.html, "w", encoding="utf-8") as out:
            out.write(result.html())
        say(f"wrote the diff to {args.html}", err=True)
    return 0


# -- export / import -------------------------------------------------------------------------


def _export(args: argparse.Namespace) -> int:
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
    _check_at(args)
    if suffix in (".png", ".gif"):
        return _export_picture(args, suffix)
    recording = _open(args.file)
    if suffix == ".html":
        from .report.html import write_recording_html

        with open(args.output, "w", encoding="utf-8") as out:
            write_recording_html(recording, out)
        say(f"wrote the session ({recording.duration:.3f} s) to {args.output}", err=True)
        return 0
    if suffix == ".svg":
        from .report.svg import snapshot_svg

        picture = snapshot_svg(Playback(recording).screen_at(_moment(args, recording)))
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


def _export_picture(args: argparse.Namespace, suffix: str) -> int:
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
    recording = _open(args.file)
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
            moment = time_moment(recording, _moment(args, recording))
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


def _import(args: argparse.Namespace) -> int:
    from .report.asciicast import import_asciicast

    recording = import_asciicast(args.file, args.output)
    say(f"wrote {len(recording.events)} events ({recording.duration:.3f} s) to "
        f"{args.output}", err=True)
    return 0


# -- play -----------------------------------------------------------------------------------


def _play(args: argparse.Namespace) -> int:
    from .report.play import play

    if not (math.isfinite(args.speed) and args.speed > 0):
        raise UsageError(f"--speed is a number > 0, not {args.speed}")
    if args.idle_limit is not None and not (math.isfinite(args.idle_limit)
                                            and args.idle_limit >= 0):
        raise UsageError(f"--idle-limit is a number of seconds >= 0, not {args.idle_limit}")
    recording = _open(args.file)
    size = None
    if sys.stdout.isatty():
        # The tty's own size: COLUMNS and LINES in the environment may be
        # stale. A pty nobody sized says 0x0: then the recording's is used.
        cols, rows = os.get_terminal_size(sys.stdout.fileno())
        size = (cols, rows) if cols > 0 and rows > 0 else None
    return play(recording, sys.stdout.buffer, sys.stderr, speed=args.speed,
                idle_limit=args.idle_limit, size=size,
                encoding=sys.stdout.encoding or "utf-8")


# -- record ---------------------------------------------------------------------------------


def _record(args: argparse.Namespace) -> int:
    import anyio

    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError(
            "give the command to record after --, e.g. termsim record -o s.tsr -- bash")
    try:
        size = os.get_terminal_size(sys.stdout.fileno())
        cols, rows = size.columns, size.lines
    except OSError:
        cols, rows = 80, 24
    if cols < 1 or rows < 1:  # a pty nobody sized
        cols, rows = 80, 24
    cols, rows = args.cols or cols, args.rows or rows
    if cols < 1 or rows < 1:
        raise UsageError("--cols and --rows must be positive")
    output = args.output
    if output is None:
        if args.test is None:
            raise UsageError("give the recording to write with -o FILE (or a test with --test)")
        output = str(Path(args.test).with_suffix(".tsr"))
    from .emulator.keys import key_bytes
    from .errors import UnknownKey
    from .live.interactive import record_interactively

    try:
        mark_key = None if args.mark_key == "none" else key_bytes(args.mark_key)
    except UnknownKey as exc:
        raise UsageError(f"--mark-key: {exc}") from None
    status = anyio.run(record_interactively, cmd, output, cols, rows, mark_key)
    say(f"termsim: recorded to {output} ({describe_status(status)})", err=True)
    if args.test is not None:
        _write_test(output, None, args.test, golden=args.golden)
    if status is None:
        return 1
    return status if status >= 0 else 128 - status


def _profiles(args: argparse.Namespace) -> int:
    from .emulator.profiles import PROFILES, differences

    for profile in PROFILES.values():
        say(f"{profile.name}: {profile.description}")
        for difference in differences(profile) or ["(termsim's answers: the default)"]:
            say(f"  - {difference}")
    return 0


def _codegen(args: argparse.Namespace) -> int:
    for path in (args.file, args.other):
        if path is not None:
            _open(path)  # a missing or damaged file: one line, exit 1
    if args.output is None:
        if args.golden:
            raise UsageError("--golden writes files beside the test: give it with -o FILE")
        from .codegen import generate

        sys.stdout.write(generate(args.file, other=args.other))
        return 0
    _write_test(args.file, args.other, args.output, golden=args.golden)
    return 0


def _write_test(recording: str, other: str | None, output: str, *, golden: bool) -> None:
    from .codegen import generate_files

    for path, text in generate_files(recording, output, other=other, golden=golden).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        say(f"termsim: wrote {path}", err=True)
    say(f"termsim: from {recording}; run it with: python -m pytest {output}", err=True)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
