"""The ``termsim`` command: record, play, show, info, diff, export, import, codegen,
profiles.

Every command prints one clear line and exits non-zero on a missing,
truncated or corrupt file; none shows a traceback. Exit statuses: 0 success,
1 a bad or unreadable file, 2 bad usage, 130 interrupted (``play`` also 143 on
SIGTERM, 129 on SIGHUP, 141 when its output's reader is gone); ``record``
exits with the recorded program's status.

What the commands print for people goes through one function, :func:`say`:
a recording is a stranger's file and a program prints what it likes, so
every line is shown with :func:`~termsim.emulator.terminals.xterm.printable` (an
escape sequence in a note or a title reads ``ESC]52;...`` instead of
writing the reader's clipboard). The reports apply it to their own lines
already (so that a field cannot forge a line either); this is the net under
them and under the command's own messages, which name files and quote
errors. ``play`` writes the recording's bytes on purpose, and ``codegen``
writes Python source: neither goes through it.
"""

from __future__ import annotations

import argparse
import functools
import io
import math
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from .cli_common import UsageError, check_at, open_recording, say, time_asked
from .errors import RecordingError, TermsimError, describe_status


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


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """Built once a process: ``main`` is also a function programs call many
    times (a test suite calls it for each file it checks), and building the
    twenty subcommands costs 2.4 ms, mostly argparse's gettext lookups.
    Parsing does not change a parser, so one serves every call."""
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


def _show(args: argparse.Namespace) -> int:
    check_at(args)
    recording = open_recording(args.file)
    if args.steps:
        if args.at is not None or args.end or args.frame:
            raise UsageError("--steps tells the whole session: no --at, --end or --frame")
        from .report.steps_text import steps_json, steps_markdown, steps_text

        write = {"text": steps_text, "md": steps_markdown, "json": steps_json}[args.format]
        say(write(recording).removesuffix("\n"))
        return 0
    if args.format != "text":
        raise UsageError("--format goes with --steps")
    from .engine.playback import Playback  # (each command imports what it needs)

    screen = Playback(recording).screen_at(time_asked(args, recording))
    say(screen.render() if args.frame else screen.text.rstrip("\n"))
    return 0


def _info(args: argparse.Namespace) -> int:
    from .report.info import write_info

    recording = open_recording(args.file)
    report = io.StringIO()
    write_info(recording, report)
    say(report.getvalue().removesuffix("\n"))
    return 0


def _diff(args: argparse.Namespace) -> int:
    from .offline.diff import diff

    result = diff(open_recording(args.a), open_recording(args.b))
    say(result.text())
    if args.html:
        with open(args.html, "w", encoding="utf-8") as out:
            out.write(result.html())
        say(f"wrote the diff to {args.html}", err=True)
    return 0


# -- export / import -------------------------------------------------------------------------


def _export(args: argparse.Namespace) -> int:
    from .cli_export import export

    return export(args)


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
    recording = open_recording(args.file)
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
    from .emulator.input.keys import key_bytes
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
    from .emulator.terminals.profiles import PROFILES
    from .report.profile_differences import differences

    for profile in PROFILES.values():
        say(f"{profile.name}: {profile.description}")
        for difference in differences(profile) or ["(termsim's answers: the default)"]:
            say(f"  - {difference}")
    return 0


def _codegen(args: argparse.Namespace) -> int:
    for path in (args.file, args.other):
        if path is not None:
            open_recording(path)  # a missing or damaged file: one line, exit 1
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
