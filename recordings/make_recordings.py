"""Regenerate the recordings in this folder from the example REPL.

    python recordings/make_recordings.py [NAME ...]

Each scenario in ``scenarios.py`` runs live with ``record=``; the boot hang
takes ``HANG_TIMEOUT`` seconds of real time, which is the point: its replay
takes milliseconds.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scenarios import SCENARIOS, scenario_env

import termsim
from termsim.events import End
from termsim.recording.format import RecordingWriter

HERE = Path(__file__).resolve().parent


async def record(name: str) -> None:
    setup = SCENARIOS[name]
    path = HERE / f"{name}.tsr"
    cols, rows = setup.size
    with tempfile.TemporaryDirectory() as home:
        env = scenario_env(Path(home), setup.env, setup.configured)
        async with termsim.spawn(setup.argv(), env=env, cpr=setup.cpr, record=path,  # type: ignore[arg-type]
                                 cols=cols, rows=rows, cwd=HERE.parent) as term:
            try:
                outcome = f"exit status {await setup.scenario(term)}"
            except termsim.TermsimError as exc:
                outcome = f"{type(exc).__name__}"
    relocate(path, ["python", *setup.args])
    print(f"{path.name}: {outcome}, {path.stat().st_size} bytes")


def relocate(path: Path, argv: list[str]) -> None:
    """Rewrite the header so the committed file names no path on this machine."""
    recording = termsim.files.Recording.open(path)
    header = dict(recording.header)
    header["argv"] = argv
    header["cwd"] = "."
    writer = RecordingWriter(path, header)
    for event in recording.events[:-1]:
        writer.write(event)
    last = recording.events[-1]
    assert isinstance(last, End)
    writer.close(last.t, last.how)


async def main(names: list[str]) -> None:
    for name in names or list(SCENARIOS):
        await record(name)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
