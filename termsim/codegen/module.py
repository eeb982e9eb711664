"""The generated test, as a Python module a person would have written.

It imports only ``pytest`` and ``termsim``, starts the recorded command at
the recorded size, and runs the steps in one ``drive(term)`` function, so
the same steps run live (``test_<name>``) and against the recording
(``termsim.replay(path)`` with ``drive``), as ``recordings/scenarios.py``
does for this project's own recordings. Each input that changed the
screen returns its mark and is followed by the wait it caused
(``since=mark``). Nothing in it sleeps.

The text is the same for the same recording (no clock, no path of this
machine but what the recording holds), and formatted by ruff's formatter
when it is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from ..emulator.region import Region
from ..emulator.snapshot import Snapshot
from ..emulator.terminal import Terminal
from ..engine.screentext import Options, render
from ..recording.format import Recording
from .keys import Key
from .masks import variable_spans
from .steps import Session, Step, read
from .waits import Wait, awaited_text, choose, region_of

#: A wait's timeout when the recorded step took longer than the default
#: (10 s) allows: three times what it took.
SLOW = 3.0
DEFAULT_TIMEOUT = 10.0
#: The first wait's timeout, at least: the program's start.
FIRST_TIMEOUT = 30


def _call(key: Key) -> str:
    if key.kind == "text":
        return f"type({key.value!r})"
    if key.kind == "paste":
        return f"type({key.value!r})"
    if key.kind == "key":
        return f"press({key.value!r})"
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
    stem = Path(recording_path).stem
    name = re.sub(r"\W+", "_", stem).strip("_").lower() or "session"
    return name if not name[0].isdigit() else f"session_{name}"


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
    return {Path(test): source, **{screens / f"{name}.screen": text
                                   for name, text in goldens.items()}}


def _generate(path: str, other: str | None, golden: bool) -> tuple[str, dict[str, str]]:
    recording = Recording.open(path)
    session = read(recording)
    second = read(Recording.open(other)) if other is not None else None
    names: set[str] = set()
    body: list[str] = []
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
    body += marked.code(session.start_marks)
    steps = session.steps
    for index, step in enumerate(steps):
        other_step = second.steps[index] if second and index < len(second.steps) else None
        wait = _wait_after(step, other_step, session, index)
        call = f"resize(cols={step.resize[0]}, rows={step.resize[1]})" if step.resize \
            else _call(step.keys[0])
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
    return _module(path, recording, session, body, names, bool(goldens)), goldens


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
                lines.append(f"# {text}")
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
            name = f"screen-{len(self.goldens) + 1}"
            self.goldens[name] = render(snap, options).text()
            return [f'await term.expect_screen(golden=SCREENS / "{name}.screen"{mask})']
        rows = [row.rstrip() for row in render(snap, options).rows]
        while rows and not rows[-1]:
            rows.pop()
        if all(row.startswith(" ") for row in rows if row):
            rows = [f"|{row}|" for row in render(snap, options).rows]  # blanks kept
        return ['await term.expect_screen("""', *rows, f'"""{mask})']


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
            names: set[str], goldens: bool) -> str:
    imports = sorted(names)
    header = recording.header
    started = str(header.get("started", ""))[:19]
    argv = session.argv
    lines = [
        f'"""Generated by `termsim codegen` from {Path(path).name} (recorded {started}).',
        "",
        "Each input is followed by the wait for what it made the program draw",
        "(since=mark: only what it drew after reading that input counts). Edit",
        "freely: the waits are plain termsim predicates.",
        '"""',
        "",
        *(["from pathlib import Path", ""] if goldens else []),
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
        f"COMMAND = {argv!r}",
        *(['SCREENS = Path(__file__).with_suffix(".screens")'] if goldens else []),
        "",
        "",
        "async def drive(term: termsim.Driver) -> None:",
        *_indented(body or ["pass"]),
        "",
        "",
        f"async def test_{test_name(path)}() -> None:",
        f"    async with termsim.spawn(COMMAND, cols={session.cols}, rows={session.rows})"
        " as term:",
        "        await drive(term)",
    ]
    return _formatted("\n".join(lines) + "\n")


def _indented(body: list[str]) -> list[str]:
    """The body's lines in the function, a screen's rows in its string left
    as they are (their blanks are the screen's)."""
    out, inside = [], False
    for line in body:
        out.append(line if inside else f"    {line}")
        if line.count('"""') == 1:
            inside = not inside
    return out


def _formatted(source: str) -> str:
    """``source`` through ruff's formatter, if it is installed (the same
    text either way for the same recording on one machine)."""
    ruff = shutil.which("ruff")
    if ruff is None:
        return source
    try:
        done = subprocess.run([ruff, "format", "--line-length", "99", "-"], input=source,
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return source
    return done.stdout if done.returncode == 0 and done.stdout else source
