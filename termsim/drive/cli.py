"""``termsim drive``: drive a program from the shell, one step a command.

Each subcommand is one process that returns when its step is done: ``start``
(starting the daemon if none runs), ``type``, ``press``, ``paste``,
``resize``, ``wait``, ``screen``, ``status``, ``stop``, and ``daemon`` (one
in the foreground). :func:`add_parsers` registers ``drive`` and ``mcp`` on
the ``termsim`` command's subparsers; ``python -m termsim.drive`` runs the
same commands (:func:`main`), so both ways give the same help and answers.

What it prints for people goes through :func:`say`, every line shown with
:func:`~termsim.emulator.terminals.xterm.printable`: a program's screen and title are
a stranger's text, and reach the terminal as text, never as control
sequences. ``--json`` prints the daemon's answer instead, one ASCII-only
JSON object, on success and failure alike. (``say`` is the ``termsim``
command's own, repeated here: this package sits below ``termsim.cli``,
which imports it, and may not import it back.)

Exit statuses: 0 the step was done; 1 it failed (a wait timed out, the
program exited, no such session, no daemon, a refused socket); 2 it was
asked wrongly (bad usage, an unknown key, a bad region); 3 an internal
error.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..emulator.terminals.xterm import printable
from .paths import RECORD_DIR, DriveError

DESCRIPTION = """\
Drive a program in a terminal of its own from the shell, one step a command:
start it, wait for what it draws, type and press keys, look at the screen,
stop it. A daemon (started by the first start, stopped once its last session
has ended and a grace period passed) holds the sessions; each is recorded,
and stop prints the recording, from which termsim codegen writes a test with
the waits that were run.

A wait counts, by default, only what the program drew after it read the
session's last input (as since=mark does in a test): a prompt left from the
previous turn does not satisfy it.
"""


def say(text: str, *, err: bool = False) -> None:
    """Print ``text`` for a person (stderr if ``err``), each line through
    :func:`printable`."""
    stream = sys.stderr if err else sys.stdout
    shown = "\n".join(map(printable, text.split("\n"))) + "\n"
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        stream.write(shown)
    except UnicodeEncodeError:
        stream.write(shown.encode(encoding, "backslashreplace").decode(encoding))
    stream.flush()


class UsageError(Exception):
    """Wrong arguments: exit status 2."""


# -- the parsers ----------------------------------------------------------------------------


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"seconds are a number >= 0, not {text!r}")
    return value


def _size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"a size is from 1 to 1000, not {value}")
    return value


def _since(text: str) -> str | int:
    if text in ("last", "none"):
        return text
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise argparse.ArgumentTypeError(f"--since is last, none or an input's number, not {text!r}")


def start_options(p: argparse.ArgumentParser) -> None:
    """``start``'s options (also read from between NAME and ``--``)."""
    p.add_argument("--cols", type=_size, default=80, help="columns (default 80)")
    p.add_argument("--rows", type=_size, default=24, help="rows (default 24)")
    p.add_argument("--profile", metavar="NAME",
                   help="the terminal to answer as (termsim profiles lists them; "
                   "default xterm)")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="set a variable over this command's environment (repeatable)")
    p.add_argument("--cwd", metavar="DIR", help="the directory to run it in (default: this one)")
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                   help="the default timeout of its waits "
                   "(seconds, default 10)")
    p.add_argument("--stall", type=_seconds, metavar="SECONDS",
                   help="the default stall= of its waits: fail "
                   "once the program sits reading keys, printing nothing, this long")
    p.add_argument("--record", metavar="FILE", help=f"the recording to write (default "
                   f"{RECORD_DIR}/NAME.tsr, numbered if taken)")


def _start_rest(args: argparse.Namespace) -> list[str]:
    """The command after ``--``, the options before it read into ``args``
    (argparse gives a positional's REMAINDER everything after NAME)."""
    rest = list(args.cmd)
    cut = rest.index("--") if "--" in rest else None
    if cut is None:
        options, cmd = [], rest
        if rest and rest[0].startswith("-"):
            raise UsageError("put -- before the command: termsim drive start NAME [OPTIONS] "
                             "-- COMMAND ARGS...")
    else:
        options, cmd = rest[:cut], rest[cut + 1:]
    if options:
        inner = argparse.ArgumentParser(prog="termsim drive start", add_help=False)
        start_options(inner)
        inner.add_argument("--json", action="store_true")
        inner.parse_args(options, namespace=args)
    return cmd


def fill_parser(parser: argparse.ArgumentParser) -> None:
    """The subcommands of ``termsim drive``, on ``parser``."""
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    sub = parser.add_subparsers(dest="verb", metavar="STEP")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true",
                        help="print the answer as one JSON object (also when the step fails)")
    named = argparse.ArgumentParser(add_help=False, parents=[common])
    named.add_argument("name", metavar="NAME", help="the session's name")

    def add(name: str, helps: str, parents: list[argparse.ArgumentParser]) -> \
            argparse.ArgumentParser:
        return sub.add_parser(name, help=helps, description=helps[0].upper() + helps[1:] + ".",
                              parents=parents)

    p = add("start", "start a program in a new named session (and the daemon, if none runs)",
            [named])
    start_options(p)
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                   help="the program and its arguments, after -- (the options above may "
                   "stand before or after NAME)")

    p = add("type", "type text into the session, in one write (a paste where the program "
            "asked for bracketed paste and the text has newlines)", [named])
    p.add_argument("text", metavar="TEXT", help="the text (put -- before text that starts with -)")
    p.add_argument("--enter", action="store_true", help="press Enter after it")

    p = add("press", "press keys by name, each in one write", [named])
    p.add_argument("keys", nargs="+", metavar="KEY",
                   help="enter, tab, escape, up, down, ctrl+d, alt+x, f1, a single character...")

    p = add("paste", "paste text as a terminal does (bracketed when the program asked for it)",
            [named])
    p.add_argument("text", metavar="TEXT",
                   help="the text (put -- before text that starts with -)")

    p = add("resize", "resize the terminal (the program gets SIGWINCH)", [named])
    p.add_argument("cols", type=_size, metavar="COLS", help="columns")
    p.add_argument("rows", type=_size, metavar="ROWS", help="rows")

    p = add("wait", "wait until the screen shows what is asked (every part at once), "
            "counting only what the program drew after it read the last input", [named])
    p.add_argument("--text", action="append", default=[], help="this text is on the screen "
                   "(or in --region); repeatable")
    p.add_argument("--regex", action="append", default=[], help="this regular expression "
                   "matches (multi-line: ^ and $ match at each row); repeatable")
    p.add_argument("--gone", action="append", default=[], metavar="TEXT",
                   help="this text is not on the screen (or in --region); repeatable")
    p.add_argument("--region", help="where --text, --regex and --gone look: row:N, "
                   "rows:START:STOP, rect:TOP:LEFT:BOTTOM:RIGHT, transcript, output:N "
                   "(from 0; negative from the bottom: row:-1 is the last row)")
    p.add_argument("--cursor-after", metavar="TEXT",
                   help="the visible cursor sits right after this text (a prompt)")
    p.add_argument("--cursor-at", metavar="ROW,COL", help="the visible cursor is there")
    p.add_argument("--input-ready", action="store_true",
                   help="the program reads keys in raw mode (ready for a key)")
    p.add_argument("--quiet", type=_seconds, metavar="SECONDS",
                   help="the program has printed nothing for this long")
    p.add_argument("--title", help="the window title holds this text")
    p.add_argument("--exit", action="store_true",
                   help="wait for the program to exit instead (prints its status)")
    p.add_argument("--since", type=_since, default="last", metavar="last|none|N",
                   help="count screens drawn after the program read: the last input "
                   "(last, the default), any screen (none), or input N")
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                   help="seconds (default: the session's, 10)")
    p.add_argument("--stall", type=_seconds, metavar="SECONDS",
                   help="fail early once the program sits reading "
                   "keys, printing nothing, this long")

    p = add("screen", "print the screen now", [named])
    p.add_argument("--frame", action="store_true",
                   help="with row numbers, a frame and the cursor")

    p = add("status", "the sessions (or one), their programs and recordings", [common])
    p.add_argument("name", nargs="?", metavar="NAME", help="one session (default: all)")

    p = add("stop", "end the session (hanging up its program if it runs) and print its "
            "recording", [named])
    p.add_argument("--test", metavar="FILE", help="also write a pytest test of the session "
                   "to FILE (as termsim codegen does)")

    p = add("daemon", "run the daemon in the foreground (start runs one when needed)",
            [common])
    p.add_argument("--grace", type=_seconds, metavar="SECONDS",
                   help="seconds to stay once no session is "
                   "left (default 30, or TERMSIM_DRIVE_GRACE)")
    p.add_argument("--ready-fd", type=int, help=argparse.SUPPRESS)


def add_parsers(sub: Any) -> None:
    """Register ``drive`` and ``mcp`` on the ``termsim`` command's subparsers."""
    p = sub.add_parser("drive", help="drive a program from the shell, one step a command: "
                       "start, wait, type, press, screen, stop (every session recorded)")
    fill_parser(p)
    p.set_defaults(run=run)
    from .mcp import add_parser as add_mcp

    add_mcp(sub)


def build_parser() -> argparse.ArgumentParser:
    """``termsim drive`` as a parser of its own (``python -m termsim.drive``)."""
    parser = argparse.ArgumentParser(prog="termsim drive")
    fill_parser(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m termsim.drive ARGS``: the same as ``termsim drive ARGS``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    return run(args)


# -- running a step -------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """Do the step ``args`` asks; the exit status (errors are told here, as
    one line or a test's message, never a traceback)."""
    verb = getattr(args, "verb", None)
    if not verb:
        build_parser().print_help(sys.stderr)
        return 2
    as_json = bool(getattr(args, "json", False))
    try:
        if verb == "daemon":
            return _daemon(args)
        request = _request(args)
        as_json = bool(getattr(args, "json", False))  # also given after NAME, for start
        from .client import send

        answer = send(request, start_daemon=verb == "start")
    except UsageError as exc:
        return _failed(verb, {"type": "UsageError", "message": str(exc)}, 2, as_json)
    except DriveError as exc:
        return _failed(verb, {"type": exc.kind, "message": str(exc)}, exc.status, as_json)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return _failed(verb, {"type": "OSError", "message": f"{where}{exc.strerror or exc}"},
                       1, as_json)
    except Exception as exc:  # pragma: no cover - a bug: said, not a traceback
        return _failed(verb, {"type": "InternalError",
                              "message": f"internal error: {type(exc).__name__}: {exc} "
                              "(please report it)"}, 3, as_json)
    if not answer.get("ok"):
        error = answer.get("error") or {}
        status = answer.get("status")
        code = status if isinstance(status, int) and status in (1, 2, 3) else 1
        if as_json:
            _print_json(answer)
        else:
            _tell_warnings(answer)
            _failed(verb, error, code, False)
        return code
    if verb == "stop" and args.test:
        try:
            answer["test"] = _write_test(str(answer["recording"]), args.test, as_json)
        except Exception as exc:  # a test could not be written: the session is stopped
            answer["test_error"] = f"{type(exc).__name__}: {exc}"
    if as_json:
        _print_json(answer)
    else:
        _tell_warnings(answer)
        say(describe(answer))
    return 0 if "test_error" not in answer else 1


def _failed(verb: str, error: dict[str, Any], status: int, as_json: bool) -> int:
    kind = str(error.get("type", "Error"))
    message = str(error.get("message", ""))
    if as_json:
        _print_json({"ok": False, "verb": verb, "error": {"type": kind, "message": message},
                     "status": status})
    elif kind.startswith("termsim."):
        # As a test shows it: the error's type, its message whole (the film
        # strip, the near misses, the screen).
        say(f"{kind}: {message}", err=True)
    else:
        say(f"termsim drive {verb}: {message}", err=True)
    return status


def _print_json(answer: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(answer, ensure_ascii=True) + "\n")
    sys.stdout.flush()


def _tell_warnings(answer: dict[str, Any]) -> None:
    for warning in answer.get("warnings") or []:
        say(f"termsim drive: warning: {warning}", err=True)


def _env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--env takes NAME=VALUE, not {pair!r}")
        env[name] = value
    return env


def _request(args: argparse.Namespace) -> dict[str, Any]:
    """The request for the daemon, paths made absolute here (the daemon
    runs elsewhere)."""
    verb = args.verb
    request: dict[str, Any] = {"verb": verb, "session": getattr(args, "name", None)}
    if verb == "start":
        cmd = _start_rest(args)
        if not cmd:
            raise UsageError("give the command after --, e.g. termsim drive start repl -- "
                             "python app.py")
        cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
        request.update(
            argv=cmd, cols=args.cols, rows=args.rows, profile=args.profile,
            env=_env(args.env), base_env=dict(os.environ), cwd=cwd,
            cwd_given=args.cwd is not None, timeout=args.timeout, stall=args.stall,
            record=os.path.abspath(args.record) if args.record else None,
            record_dir=os.path.abspath(RECORD_DIR))
        if args.timeout == 0 or args.stall == 0:
            raise UsageError("--timeout and --stall are seconds > 0")
    elif verb == "type":
        request["text"] = args.text + ("\n" if args.enter else "")
    elif verb == "press":
        request["keys"] = list(args.keys)
    elif verb == "paste":
        request["text"] = args.text
    elif verb == "resize":
        request.update(cols=args.cols, rows=args.rows)
    elif verb == "wait":
        request.update(_wait(args))
    elif verb == "screen":
        request["frame"] = args.frame
    return request


def _wait(args: argparse.Namespace) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    for name in ("text", "regex", "gone"):
        if getattr(args, name):
            spec[name] = list(getattr(args, name))
    for name in ("region", "cursor_after", "title", "quiet"):
        if getattr(args, name) is not None:
            spec[name] = getattr(args, name)
    if args.input_ready:
        spec["input_ready"] = True
    if args.cursor_at is not None:
        row, sep, col = args.cursor_at.partition(",")
        try:
            spec["cursor_at"] = [int(row), int(col)]
        except ValueError:
            raise UsageError(f"--cursor-at takes ROW,COL, not {args.cursor_at!r}") from None
        if not sep:
            raise UsageError(f"--cursor-at takes ROW,COL, not {args.cursor_at!r}")
    if args.exit and spec:
        raise UsageError("--exit waits for the exit: give no screen condition with it")
    if not args.exit and not spec:
        raise UsageError("say what to wait for: --text, --regex, --gone, --cursor-after, "
                         "--cursor-at, --input-ready, --quiet, --title or --exit")
    if args.stall == 0:
        raise UsageError("--stall is seconds > 0")
    return {"spec": spec, "exit": args.exit, "since": args.since, "timeout": args.timeout,
            "stall": args.stall}


def _daemon(args: argparse.Namespace) -> int:
    from .daemon import default_grace, run_daemon
    from .paths import runtime_dir

    grace = default_grace() if args.grace is None else args.grace
    return run_daemon(runtime_dir(create=True), grace=grace, ready_fd=args.ready_fd)


def _write_test(recording: str, test: str, quiet: bool) -> str:
    from ..codegen.driven import generate_files

    for path, text in generate_files(recording, test).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if not quiet:
            say(f"termsim: wrote {path}", err=True)
    return test


# -- answers for people -----------------------------------------------------------------------


def _described_input(answer: dict[str, Any]) -> str:
    return f"input #{answer.get('input')}: {answer.get('label')}"


def _shown(path: object) -> str:
    """A path as the person gave it: relative to here when it is under here."""
    text = str(path)
    try:
        return os.path.relpath(text) if Path(text).is_relative_to(Path.cwd()) else text
    except ValueError:
        return text


def describe(answer: dict[str, Any]) -> str:
    """The answer as a person reads it: one line for a step, the screen for
    ``screen``, a line a session for ``status``."""
    verb = answer.get("verb")
    name = answer.get("session")
    if verb == "start":
        return (f"started {name}: pid {answer.get('pid')}, {answer.get('cols')}x"
                f"{answer.get('rows')}, recording to {_shown(answer.get('recording'))}")
    if verb in ("type", "press", "paste", "resize"):
        return _described_input(answer)
    if verb == "wait":
        if "exit_status" in answer:
            return f"the program exited: {answer.get('described')}"
        since = answer.get("since")
        counted = (f", counting from input #{since.get('input')} ({since.get('label')})"
                   if isinstance(since, dict) else "")
        return f"matched{counted}: {answer.get('matched')}"
    if verb == "screen":
        return str(answer.get("frame") or answer.get("text", "")).rstrip("\n")
    if verb == "status":
        if "sessions" in answer:
            sessions = answer["sessions"]
            return "\n".join(_status_line(s) for s in sessions) or "no sessions"
        return _status_line(answer)
    if verb == "stop":
        recording = _shown(answer.get("recording"))
        how = ("the program was hung up" if answer.get("hung_up")
               else f"the program had exited: {answer.get('described')}")
        lines = [f"stopped {name} ({how})", f"recording: {recording}"]
        if answer.get("closing_error"):
            error = answer["closing_error"]
            lines.append(f"while closing: {error.get('type')}: {error.get('message')}")
        if answer.get("test"):
            lines.append(f"test: {answer['test']} (run it with: python -m pytest "
                         f"{answer['test']})")
        elif answer.get("test_error"):
            lines.append(f"no test written: {answer['test_error']}")
        else:
            stem = Path(str(answer.get("recording"))).stem.replace("-", "_")
            lines.append(f"a test from it: termsim codegen {recording} -o test_{stem}.py")
        return "\n".join(lines)
    return json.dumps(answer, ensure_ascii=True)


def _status_line(s: dict[str, Any]) -> str:
    state = (f"running, pid {s.get('pid')}" if s.get("state") == "running"
             else f"exited ({s.get('described')})")
    ready = {True: ", reading keys", False: ", in line mode", None: ""}[s.get("input_ready")]
    silent = s.get("silent_for")
    quiet = f", silent for {silent:.1f} s" if isinstance(silent, int | float) else ""
    return (f"{s.get('name')}: {state}, {s.get('cols')}x{s.get('rows')}, "
            f"{s.get('inputs')} inputs{quiet}{ready}; recording {_shown(s.get('recording'))}")
