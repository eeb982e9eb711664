"""``termsim mcp``: the drive verbs as the tools of an MCP server, for coding agents.

An agent that speaks the Model Context Protocol drives a program with these
tools as a person does with ``termsim drive``: ``start``, ``wait``,
``press``, ``type``, ``paste``, ``resize``, ``screen``, ``status``,
``stop``. The server holds its sessions itself (an MCP server is a
long-lived process already: no daemon), through the same
:class:`~termsim.drive.service.Sessions`, so each tool's answer is the JSON
object ``termsim drive --json`` prints, a failed step is a tool error whose
text is that JSON (``error.message`` is the message a test would get), and
every session is recorded the same way: ``stop`` gives the recording, and
``termsim codegen`` the test.

The SDK is an optional extra (``pip install 'termsim[mcp]'``): it is
imported only when the server runs, and its absence is said in one line.
Both its lines of releases are served: ``MCPServer`` (mcp 2) and
``FastMCP`` (mcp 1), which register tools alike.
"""

import importlib
import json
import os
import signal
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import TermsimWarning
from .paths import RECORD_DIR
from .reaper import MARKER

if TYPE_CHECKING:  # (loaded when the server runs: ``termsim --help`` needs only ``add_parser``)
    from .daemon import Reaper
    from .service import Sessions

INSTALL = "pip install 'termsim[mcp]'"

INSTRUCTIONS = """\
termsim runs terminal programs in a real pseudo-terminal and shows you the
screen a person would see. Start a program with `start`, then alternate
inputs (`press`, `type`, `paste`, `resize`) and `wait`s, and look with
`screen`. Always wait after an input before reading the screen: a `wait`
counts only screens the program drew after it read your last input, so it
cannot be satisfied by what was there before (a prompt left over from the
previous turn); reading the screen right after an input shows a screen the
program has not answered yet. Wait for the answer itself (`text`, in a
`region` if needed) and for the program to be ready for the next key
(`cursor_after` the prompt, `input_ready`). `stop` ends the session and
gives its recording; `termsim codegen RECORDING -o test_x.py` turns it into
a pytest test with the waits you ran.
"""

WAIT = """\
Wait until the screen shows everything asked at once: `text` (each present),
`regex`, `gone` (each absent), looked for in `region` (row:N, rows:A:B,
rect:T:L:B:R, transcript, output:N; row:-1 is the bottom row) or the whole
screen; `cursor_after` (the visible cursor right after this text: a prompt),
`cursor_at` [row, col], `input_ready` (the program reads keys in raw mode),
`quiet` (seconds with no output), `title`; or `exit` (the program's exit).
By default (`since` "last") only screens drawn after the program READ the
session's last input count: the kernel says when it read it, so a stale
screen never satisfies the wait and no polling or sleeping is needed; use
"none" to accept any screen (the first wait after start needs none), or an
input's number. Fails (timeout, default 10 s; `stall`: fail early once the
program sits idle reading keys) with the message a test would get: what was
awaited, what the screen went through, near misses, the final screen."""


class MissingSDK(Exception):
    """The ``mcp`` package is not installed."""


def _server_class() -> Any:
    """The SDK's server class: mcp 2's ``MCPServer``, else mcp 1's ``FastMCP``."""
    for module, name in (("mcp.server.mcpserver", "MCPServer"),
                         ("mcp.server.fastmcp", "FastMCP")):
        try:
            return getattr(importlib.import_module(module), name)
        except ImportError:
            continue
    raise MissingSDK(f"termsim mcp needs the MCP SDK: {INSTALL}")


def _absolute(path: str) -> str:
    """A path given to a tool, from the server's directory (where the
    agent works): the sessions may run elsewhere."""
    return os.path.abspath(path)


def _result(answer: dict[str, Any]) -> Any:
    """The tool's result: the answer as JSON text, an error when it failed."""
    types = importlib.import_module("mcp.types")
    return types.CallToolResult.model_validate({
        "content": [{"type": "text", "text": json.dumps(answer, ensure_ascii=True)}],
        "isError": not answer.get("ok"),
    })


def _register(app: Any, sessions: "Sessions") -> None:
    """The tools, each a verb of :class:`Sessions` (the same JSON answers)."""
    result_type = importlib.import_module("mcp.types").CallToolResult

    async def ask(request: dict[str, Any]) -> Any:
        answer = await sessions.handle(request)
        if answer.get("ok") and request["verb"] == "stop" and request.get("test"):
            from ..codegen.driven import generate_files

            try:
                for path, text in generate_files(str(answer["recording"]),
                                                 str(request["test"])).items():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text)
                answer["test"] = request["test"]
            except Exception as exc:
                answer["test_error"] = f"{type(exc).__name__}: {exc}"
        return _result(answer)

    def tool(name: str, description: str) -> Callable[[Any], Any]:
        def register(fn: Any) -> Any:
            fn.__annotations__["return"] = result_type
            return app.tool(name=name, description=description)(fn)
        return register

    @tool("start", "Start a program (command: argv list) in a new terminal session called "
          "`name`, cols x rows, recorded from its first byte. env is set over this server's "
          "environment; cwd defaults to the server's; timeout and stall are the defaults of "
          "its waits. Then `wait` for its first screen (since \"none\" is implied: no input "
          "yet).")
    async def start(name: str, command: list[str], cols: int = 80, rows: int = 24,
                    env: dict[str, str] | None = None, cwd: str | None = None,
                    profile: str | None = None, timeout: float | None = None,
                    stall: float | None = None, record: str | None = None) -> Any:
        return await ask({
            "verb": "start", "session": name, "argv": command, "cols": cols, "rows": rows,
            "env": env or {}, "base_env": dict(os.environ),
            "cwd": _absolute(cwd or "."), "cwd_given": cwd is not None,
            "profile": profile, "timeout": timeout, "stall": stall,
            "record": _absolute(record) if record else None,
            "record_dir": _absolute(str(RECORD_DIR))})

    @tool("type", "Type text into session `name` in one write (enter: press Enter after "
          "it). Returns the input's number; then `wait` for the program's answer.")
    async def type_(name: str, text: str, enter: bool = False) -> Any:
        return await ask({"verb": "type", "session": name,
                          "text": text + ("\n" if enter else "")})

    @tool("press", "Press keys by name in session `name`, each in one write: enter, tab, "
          "escape, backspace, up, down, left, right, home, end, pageup, pagedown, f1..f12, "
          "ctrl+c, alt+x, or a single character. Then `wait` for the program's answer.")
    async def press(name: str, keys: list[str]) -> Any:
        return await ask({"verb": "press", "session": name, "keys": keys})

    @tool("paste", "Paste text into session `name` as a terminal does: bracketed when the "
          "program asked for bracketed paste (newlines stay text), else typed.")
    async def paste(name: str, text: str) -> Any:
        return await ask({"verb": "paste", "session": name, "text": text})

    @tool("resize", "Resize session `name`'s terminal to cols x rows (the program gets "
          "SIGWINCH); counts as an input for the next wait.")
    async def resize(name: str, cols: int, rows: int) -> Any:
        return await ask({"verb": "resize", "session": name, "cols": cols, "rows": rows})

    @tool("wait", WAIT)
    async def wait(name: str, text: list[str] | None = None, regex: list[str] | None = None,
                   gone: list[str] | None = None, region: str | None = None,
                   cursor_after: str | None = None, cursor_at: list[int] | None = None,
                   input_ready: bool = False, quiet: float | None = None,
                   title: str | None = None, exit: bool = False, since: str | int = "last",
                   timeout: float | None = None, stall: float | None = None) -> Any:
        spec: dict[str, Any] = {}
        for key, value in (("text", text), ("regex", regex), ("gone", gone),
                           ("region", region), ("cursor_after", cursor_after),
                           ("cursor_at", cursor_at), ("quiet", quiet), ("title", title)):
            if value is not None:
                spec[key] = value
        if input_ready:
            spec["input_ready"] = True
        if isinstance(since, str) and since.isdigit():
            since = int(since)
        return await ask({"verb": "wait", "session": name, "spec": spec, "exit": exit,
                          "since": since, "timeout": timeout, "stall": stall})

    @tool("screen", "The screen of session `name` now: its rows, cursor, title, modes, "
          "whether the program reads keys, the queries it still waits for (frame: also a "
          "numbered picture). Wait first after an input: this does not wait.")
    async def screen(name: str, frame: bool = False) -> Any:
        return await ask({"verb": "screen", "session": name, "frame": frame})

    @tool("status", "The sessions (or session `name`): program, state, exit status, inputs, "
          "recording.")
    async def status(name: str | None = None) -> Any:
        return await ask({"verb": "status", "session": name})

    @tool("stop", "End session `name` (hanging up its program if it still runs) and give its "
          "recording's path; `termsim codegen PATH -o test_x.py` writes a test with the waits "
          "that were run (or give test: a path, and it is written now).")
    async def stop(name: str, test: str | None = None) -> Any:
        return await ask({"verb": "stop", "session": name,
                          "test": _absolute(test) if test else None})


async def serve(reaper: "Reaper | None" = None, token: str = "") -> None:
    """Serve the tools over stdio until the client closes it (or a SIGTERM,
    SIGHUP or SIGINT comes), then end the sessions (their recordings close).
    ``reaper``: told of each program, as the daemon's is, so that a server
    killed with SIGKILL leaves no program behind either."""
    import anyio

    from .service import Sessions

    server = _server_class()
    warnings.simplefilter("ignore", TermsimWarning)  # in the answers instead
    app = server(name="termsim", instructions=INSTRUCTIONS)
    async with anyio.create_task_group() as group:
        sessions = Sessions(group, marker={MARKER: token} if reaper else None,
                            on_start=reaper.tell if reaper else None,
                            about=lambda: {"pid": os.getpid(), "server": "mcp",
                                           "cwd": str(Path.cwd())})
        _register(app, sessions)

        async def until_signalled() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP,
                                            signal.SIGINT) as got:
                async for _ in got:
                    group.cancel_scope.cancel()  # then the sessions end, below
                    return

        group.start_soon(until_signalled)
        try:
            await app.run_stdio_async()
        finally:
            with anyio.CancelScope(shield=True):
                await sessions.stop_all()
            group.cancel_scope.cancel()


def run(args: Any = None) -> int:
    """``termsim mcp`` (and ``python -m termsim.drive.mcp``)."""
    import anyio

    from .daemon import REAPER_WAIT, Reaper

    try:
        _server_class()
    except MissingSDK as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    token = os.urandom(8).hex()
    reaper = Reaper(f"{MARKER}={token}")
    try:
        anyio.run(serve, reaper, token)
    except KeyboardInterrupt:
        return 130
    finally:
        reaper.close()
        try:
            reaper.proc.wait(timeout=REAPER_WAIT)  # its check that nothing is left
        except subprocess.TimeoutExpired:
            pass
    return 0


def add_parser(sub: Any) -> None:
    """Register ``mcp`` on the ``termsim`` command's subparsers."""
    p = sub.add_parser("mcp", help="serve the drive verbs (start, wait, press, type, screen, "
                       "stop...) as the tools of an MCP server on stdio, for coding agents "
                       f"(needs {INSTALL})",
                       description="Serve termsim's drive verbs as MCP tools over stdio: an "
                       "agent starts a program, waits causally for what it draws, presses "
                       "keys, reads the screen and stops it; every session is recorded, and "
                       f"termsim codegen makes a test of it. Needs the MCP SDK: {INSTALL}.")
    p.set_defaults(run=run)


if __name__ == "__main__":
    sys.exit(run())
