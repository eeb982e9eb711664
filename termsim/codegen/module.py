"""The generated test, as a Python module a person would have written.

It imports only ``pytest`` and ``termsim`` (and ``os`` for the secrets and
the environment below), starts the recorded command at the recorded size, and runs the
steps in one ``drive(term)`` function, so the same steps run live
(``test_<name>``) and against the recording (``termsim.replay(path)`` with
``drive``), as ``recordings/scenarios.py`` does for this project's own
recordings. Each input that changed the screen returns its mark and is
followed by the wait it caused (``since=mark``). Nothing in it sleeps.

What the recording holds (its name, the time it was made, the command,
the comments typed into the marks menu, the screens, what was typed) is a
stranger's data: it goes into the source only as literals and comments
that no text can break out of (``literals.py``), so that importing or
collecting the test runs nothing a recording says.

An input the recording holds as a mask (typed where the terminal echoed
nothing, a password; or declared secret) is typed from an environment
variable, ``TERMSIM_SECRET_<n>``. The test fails, naming the variable,
when it is not set, rather than skipping: a test skipped for want of a
secret passes in a CI summary without having run, and a mask typed
instead of the secret would only fail later, at a wait, without saying
why. Replaying the recording needs none (a replay does not compare what
was typed where the recording holds a mask).

A pause the person made for the program to settle before an input is a
``Quiet()`` wait; the variables the recording says the program ran with
(``environment.py``) are ``ENV``, set over the test run's environment.

The text is the same for the same recording (no clock, no path of this
machine but what the recording holds, nothing from ``PATH``), and formatted
by ruff's formatter when the interpreter running termsim has it.
"""

from __future__ import annotations

import importlib.util
import math
import re
import subprocess
import sys
from pathlib import Path

from ..emulator.snapshot.region import Region
from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminal.terminal import Terminal
from ..engine.screentext import Options, render
from ..recording.format import Recording
from .environment import Environment, recorded
from .keys import Key
from .literals import (
    comment,
    docstring_words,
    identifier,
    literal,
    literal_list,
    screen_argument,
)
from .masks import variable_spans
from .steps import Screen, Session, Step, read
from .waits import Wait, awaited_text, choose, region_of

#: A wait's timeout when the recorded step took longer than the default
#: (10 s) allows: three times what it took.
SLOW = 3.0
DEFAULT_TIMEOUT = 10.0
#: The first wait's timeout, at least: the program's start.
FIRST_TIMEOUT = 30
#: A recorded pause this long (seconds), at least, between the program's
#: last output and the next input is the person waiting for it to settle
#: (Codex drops keys pressed while its first dialog is drawn): the test
#: waits for the same quiet, up to :data:`QUIET_MOST`, in tenths.
SETTLED = 0.3
QUIET_MOST = 1.0


def _call(key: Key, secrets: list[str]) -> str:
    """The driver's call that sends ``key``; a secret is named in
    ``secrets`` (``SECRET_1``, ``SECRET_2``... in the order they are typed)."""
    if key.kind == "secret":
        secrets.append(f"SECRET_{len(secrets) + 1}")
        return f"type({secrets[-1]}, secret=True)"
    if key.kind == "text":
        return f"type({literal(str(key.value))})"
    if key.kind == "paste":
        return f"type({literal(str(key.value))})"
    if key.kind == "key":
        return f"press({literal(str(key.value))})"
    if key.kind == "click":
        assert isinstance(key.value, tuple)
        row, col, button = key.value
        extra = f", button={button!r}" if button != "left" else ""
        return f"click({row}, {col}{extra})"
    return f"send({key.value!r})"


def _timeout(step_time: float, screens_end: float) -> str:
    took = screens_end - step_time
    if took * SLOW <= DEFAULT_TIMEOUT:
        return ""
    return f", timeout={round(took * SLOW)}"


def test_name(recording_path: str) -> str:
    """The test's name after the recording's file, as an identifier."""
    return identifier(Path(recording_path).stem, "session")


def generate(path: str, *, other: str | None = None, golden: bool = False) -> str:
    """The source of a pytest module that replays the session in
    ``path`` as a test (``other``: a second recording of the same
    session, whose differences are left free in the waits; ``golden``: the
    screens marked while recording are golden files, see
    :func:`generate_files`)."""
    return _generate(path, other, golden)[0]


def generate_files(path: str, test: str, *, other: str | None = None,
                   golden: bool = False) -> dict[Path, str]:
    """The test file ``test`` and, with ``golden``, the golden screens it
    reads (in ``<test>.screens/``, beside it), each with its text."""
    source, goldens = _generate(path, other, golden)
    screens = Path(test).with_suffix(".screens")
    # The names are codegen's own (``screen-<n>``), never a recording's:
    # no golden is written outside the test's .screens folder.
    assert all(re.fullmatch(r"screen-\d+", name) for name in goldens), goldens
    return {Path(test): source, **{screens / f"{name}.screen": text
                                   for name, text in goldens.items()}}


def _generate(path: str, other: str | None, golden: bool) -> tuple[str, dict[str, str]]:
    recording = Recording.open(path)
    session = read(recording)
    second = read(Recording.open(other)) if other is not None else None
    names: set[str] = set()
    #: The statements of ``drive``, one an item (a screen's string may hold
    #: newlines: its rows).
    body: list[str] = []
    secrets: list[str] = []
    goldens: dict[str, str] = {}
    marked = _Marks(names, goldens, golden)

    first = choose(_blank(session), session.start, typed=False,
                   other_final=second.start[-1].snap if second and second.start else None)
    if first is not None:
        names |= first.names
        end = session.start[-1].t if session.start else 0.0
        # A program starts slower on a busy CI machine than it did here.
        timeout = max(FIRST_TIMEOUT, round(end * SLOW))
        body.append(f"await term.wait_for({first.source}, timeout={timeout})")
        body += _quiet(session.start, session.steps[0].t if session.steps else None, names)
    body += marked.code(session.start_marks)
    steps = session.steps
    for index, step in enumerate(steps):
        other_step = second.steps[index] if second and index < len(second.steps) else None
        wait = _wait_after(step, other_step, session, index)
        call = f"resize(cols={step.resize[0]!r}, rows={step.resize[1]!r})" if step.resize \
            else _call(step.keys[0], secrets)
        if wait is None:
            body.append(f"await term.{call}")
            body += marked.code(step.marks)
            continue
        names |= wait.names
        end = step.screens[-1].t if step.screens else step.t
        if step.read:
            body.append(f"mark = await term.{call}")
            body.append(f"await term.wait_for({wait.source}, since=mark"
                        f"{_timeout(step.t, end)})")
        else:
            # The recording never saw the program read this input before the
            # next one went: a replay could not count from that read.
            body.append(f"await term.{call}")
            body.append(f"await term.wait_for({wait.source}{_timeout(step.t, end)})")
        body += _quiet(step.screens, steps[index + 1].t if index + 1 < len(steps) else None,
                       names)
        body += marked.code(step.marks)
    if golden and not goldens and steps:
        # No screen was marked: the golden is the last screen the person saw
        # (before the key that ended the program, if one did).
        if session.exited:
            body[-1:-1] = marked.code([("screen", steps[-1].before, "")])
        else:
            body += marked.code([("screen", steps[-1].final, "")])
    if session.exited:
        body.append(f"assert await term.wait_exit() == {session.exit_status!r}")
    return _module(path, recording, session, body, names, bool(goldens), secrets), goldens


def _quiet(screens: list[Screen], next_input: float | None, names: set[str]) -> list[str]:
    """A wait for the quiet the person waited for before the next input,
    when they did (:data:`SETTLED`), after what the program drew."""
    if not screens or next_input is None:
        return []
    pause = next_input - screens[-1].t
    if pause < SETTLED:
        return []
    seconds = math.floor(min(pause, QUIET_MOST) * 10) / 10
    names.add("Quiet")
    return [f"await term.wait_for(Quiet({seconds:g}))"]


class _Marks:
    """The code for what the person marked while recording: a screen
    (``expect_screen``, inline or a golden file), the cursor's row (a
    ``Text`` wait), a comment."""

    def __init__(self, names: set[str], goldens: dict[str, str], golden: bool) -> None:
        self.names = names
        self.goldens = goldens
        self.golden = golden

    def code(self, marks: list[tuple[str, Snapshot, str]]) -> list[str]:
        lines: list[str] = []
        for kind, snap, text in marks:
            if kind == "comment":
                lines.append(comment(text))
            elif kind == "row":
                row = snap.cursor.row
                wait = awaited_text(snap.lines[row], None, region_of(row, snap.rows), self.names)
                if wait is not None:
                    lines.append(f"await term.wait_for({wait})")
            else:
                lines += self._screen(snap)
        return lines

    def _screen(self, snap: Snapshot) -> list[str]:
        varying = [r for r in range(snap.rows) if variable_spans(snap.lines[r].strip())]
        mask = f", mask=[{', '.join(region_of(r, snap.rows) for r in varying)}]" if varying \
            else ""
        if varying:
            self.names.add("Region")
        options = Options(mask=tuple(Region.row(r) for r in varying), cursor=False)
        if self.golden:
            # Numbered here, never named by the recording: a golden's file
            # stays in the test's .screens folder.
            name = f"screen-{len(self.goldens) + 1}"
            self.goldens[name] = render(snap, options).text()
            return [f'await term.expect_screen(golden=SCREENS / "{name}.screen"{mask})']
        return [f"await term.expect_screen({screen_argument(render(snap, options).rows)}"
                f"{mask})"]


def _blank(session: Session) -> Snapshot:
    """The screen before the program drew anything."""
    return Terminal(session.cols, session.rows).screen


def _wait_after(step: Step, other: Step | None, session: Session, index: int) -> Wait | None:
    last = index == len(session.steps) - 1
    if last and session.exited:
        return None  # the program's exit is the answer: wait_exit says it
    return choose(step.before, step.screens, typed=step.text is not None,
                  other_final=other.final if other is not None and other.screens else None,
                  transcript=step.transcript)


def _module(path: str, recording: Recording, session: Session, body: list[str],
            names: set[str], goldens: bool, secrets: list[str]) -> str:
    imports = sorted(names)
    header = recording.header
    env = recorded(header)
    # Words in the docstring, not code: shown as printable() shows them,
    # their quotes and backslashes escaped.
    name = docstring_words(Path(path).name)
    started = docstring_words(str(header.get("started", ""))[:19])
    argv = session.argv
    spawn_env = ", env={**os.environ, **ENV}" if env else ""
    lines = [
        f'"""Generated by `termsim codegen` from {name} (recorded {started}).',
        "",
        "Each input is followed by the wait for what it made the program draw",
        "(since=mark: only what it drew after reading that input counts). Edit",
        "freely: the waits are plain termsim predicates.",
        *(["",
           "The recording holds masks where secrets were typed: the test types",
           "what the environment variables named below hold there (a newline at",
           "the end is Enter), and fails if one is not set."] if secrets else []),
        *env_docstring(env),
        *(["",
           "A Quiet() wait stands where the person waited for the program to settle",
           "before the next input (a program may drop keys pressed while it draws)."]
          if "Quiet" in names else []),
        '"""',
        "",
        *(["import os"] if secrets or env else []),
        *(["from pathlib import Path"] if goldens else []),
        *([""] if secrets or goldens or env else []),
        "import pytest",
        "",
        "import termsim",
    ]
    if imports:
        lines.append(f"from termsim import {', '.join(imports)}")
    lines += [
        "",
        "pytestmark = pytest.mark.anyio",
        "",
        f"COMMAND = {literal_list(argv)}",
        *environment(env),
        *(['SCREENS = Path(__file__).with_suffix(".screens")'] if goldens else []),
        *[f'{secret} = os.environ.get("TERMSIM_{secret}", "")' for secret in secrets],
        "",
        "",
        "async def drive(term: termsim.Driver) -> None:",
        *_indented(body or ["pass"]),
        "",
        "",
        f"async def test_{test_name(path)}() -> None:",
        *needed(secrets, env.needed),
        f"    async with termsim.spawn(COMMAND, cols={session.cols!r}, rows={session.rows!r}"
        f"{spawn_env}) as term:",
        "        await drive(term)",
    ]
    return formatted("\n".join(lines) + "\n")


def env_docstring(env: Environment) -> list[str]:
    """The module docstring's paragraph on ``ENV`` (none without one)."""
    if not env:
        return []
    return ["",
            "ENV is what the recorded program ran with (the variables the recording",
            "keeps), set over the environment the test runs in"
            + (": it fails if that does" if env.needed else "."),
            *(["not set those the recording holds no value of: "
               + docstring_words(", ".join(env.needed)) + "."] if env.needed else [])]


def environment(env: Environment) -> list[str]:
    """``ENV``: the variables the recorded program ran with, set over the
    environment the test runs in."""
    if not env:
        return []
    items = "".join(f"    {literal(name)}: {literal(value)},\n"
                    for name, value in env.values.items())
    return [f"ENV = {{\n{items}}}" if items else "ENV: dict[str, str] = {}"]


def needed(secrets: list[str], variables: list[str]) -> list[str]:
    """The test's first lines: it fails, saying what to set, without the
    secrets it types or the variables whose values the recording withheld."""
    out: list[str] = []
    if secrets:
        names = ", ".join(f'"TERMSIM_{secret}"' for secret in secrets)
        out += [
            f"    for name in ({names},):",
            "        if name not in os.environ:",
            '            pytest.fail(f"set {name} to what was typed there: the recording holds "',
            '                        "a mask, not the secret")',
        ]
    if variables:
        out += [
            f"    for name in ({''.join(f'{literal(v)}, ' for v in variables)}):",
            "        if name not in os.environ:",
            '            pytest.fail(f"set {name}: the recorded program ran with it, and the "',
            '                        "recording does not hold its value")',
        ]
    return out


def _indented(body: list[str]) -> list[str]:
    """The body's statements in the function: each one's first line
    indented; a screen's rows, the lines after it in its string, left as
    they are (their blanks are the screen's)."""
    return [f"    {statement}" for statement in body]


def _formatter() -> list[str] | None:
    """The command that runs ruff's formatter for this interpreter: the
    ``ruff`` installed beside it (a venv's ``bin``), or its ``ruff``
    module; None when it has neither. Never looked up in ``PATH``, so that
    ``termsim codegen`` writes the same file whether or not the venv is
    activated (another ruff, of another version, formats otherwise)."""
    beside = Path(sys.executable).parent / "ruff"
    if beside.is_file():
        return [str(beside)]
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    return None


def formatted(source: str) -> str:
    """``source`` through ruff's formatter, if this interpreter has it,
    with no configuration but its own (``--isolated``: the project the
    command runs in has no say), so the same recording always gives the
    same text on one installation."""
    ruff = _formatter()
    if ruff is None:
        return source
    try:
        done = subprocess.run([*ruff, "format", "--isolated", "--line-length", "99", "-"],
                              input=source, capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return source
    return done.stdout if done.returncode == 0 and done.stdout else source
