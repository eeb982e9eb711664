"""Replaying a 10-minute interactive recording to its end: target <= 1 s.

    python benchmarks/bench_replay.py [--minutes 10] [--repeats 5] [--profile]
                                      [--template PATH] [--keep PATH]

1. A template, recorded live. ``examples/agent_repl.py`` (prompt_toolkit)
   runs under ``termsim.spawn(..., record=template)`` at 80x24 with a fresh
   ``HOME`` (theme already chosen) and ``AGENT_REPL_BOOT_SECONDS=0.3``; after
   the first prompt, seven turns each type ``tell me about xxxx`` one key at
   a time (each key once its echo is on the screen), press Enter, wait for
   ``state: working`` and then for the prompt and ``state: sleeping``; then
   Ctrl-D. So every byte of output is real prompt_toolkit output: one echo
   per key, the accepted line, the four streamed reply lines each followed
   by a CPR and a redraw, and the spinner redrawing the toolbar every 0.1 s
   while it works. (About 10 s; ``--template PATH`` reuses or keeps one.)
2. The 10-minute recording, built with ``termsim.recording.format.RecordingWriter`` and
   ``make_header``: the template's boot, then turns until t = 600 s. Turns
   1-7 are the template's (the screen fills up); later turns repeat the
   seventh, which starts with the prompt on the bottom row and so is what
   every later turn looks like. Each turn types ``tell me about NNNN`` (its
   number: each ``x`` key and its echo, and ``xxxx`` in the accepted line
   and the reply, are replaced by the digits), keys 0.08-0.22 s apart
   (seeded), Enter, the reply with its recorded timing (about 1.1 s: reply
   lines every 0.25 s, spinner frames every 0.1 s), then 1-3 s before the
   next turn's first key. One ``i`` event per key, the ``o``, ``q`` (CPR
   replies) and ``y`` (tty mode) events as recorded, a ``w``/``W`` pair per
   turn for the wait below, and at the end Ctrl-D, the exit and the end
   event at t = 600 s.
3. Replays, each inside ``async with termsim.replay(path) as term:`` (so
   including ``Recording.open``), alternating, ``--repeats`` each:

   * interactive: wait for the first prompt; for each turn, ``term.send``
     each key's recorded bytes, ``mark = await term.send(b"\\r")``, then
     ``await term.wait_for(Text("assistant: thinking about 'tell me about
     NNNN'") & Text("assistant: done (18 chars)") & PROMPT & Text("state:
     sleeping", region=Region.row(-1)), since=mark)`` (the first part is what
     tells this turn's reply from the ones still on the screen); then
     Ctrl-D and ``await term.wait_exit()``, which must be 0;
   * exit only: ``await term.wait_exit(timeout=700)``.

   ``Recording.open`` alone, and a bare ``Terminal`` fed every output event
   (no engine, no snapshots), are timed too, to split the total.
   ``--profile`` runs one interactive replay under cProfile and prints the
   functions with the most own time.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import gc
import itertools
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import anyio

import termsim
from termsim import CursorAfter, InputReady, Region, Text
from termsim import events as ev
from termsim.recording.format import RecordingWriter, make_header

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "examples" / "agent_repl.py"
TOOLBAR = Region.row(-1)
PROMPT = CursorAfter("❯ ") & InputReady()
SLEEPING = PROMPT & Text("state: sleeping", region=TOOLBAR)
TEXT = "tell me about xxxx"
TEMPLATE_TURNS = 7
LAST_LINE = f"assistant: done ({len(TEXT)} chars)"


# -- 1. the template ---------------------------------------------------------------


async def template_body(term: termsim.Driver) -> int | None:
    """The template's test, as a function of its session (bench_shake shakes it)."""
    await term.wait_for(SLEEPING, timeout=60)
    for _ in range(TEMPLATE_TURNS):
        for i, char in enumerate(TEXT):
            await term.type(char)
            await term.wait_for(CursorAfter("❯ " + TEXT[: i + 1]), timeout=30)
        mark = await term.press("enter")
        await term.wait_for(Text("state: working", region=TOOLBAR), since=mark, timeout=30)
        await term.wait_for(SLEEPING & Text(LAST_LINE), since=mark, timeout=30)
    await term.press("ctrl+d")
    return await term.wait_exit(timeout=30)


async def record_template(path: str) -> None:
    with tempfile.TemporaryDirectory(prefix="bench_replay_") as home:
        config = Path(home) / ".config" / "agent-repl"
        config.mkdir(parents=True)
        (config / "config.json").write_text('{"theme": "dark"}\n')
        env = {k: v for k, v in os.environ.items()
               if k not in ("TERM", "COLUMNS", "LINES") and not k.startswith(
                   ("XDG_", "AGENT_REPL_", "PROMPT_TOOLKIT_"))}
        env.update(HOME=home, AGENT_REPL_BOOT_SECONDS="0.3")
        async with termsim.spawn([sys.executable, str(APP)], env=env, record=path,
                                 cwd=ROOT) as term:
            status = await template_body(term)
    if status != 0:
        raise SystemExit(f"the template session exited with status {status}")


# -- 2. the synthetic recording ---------------------------------------------------------


@dataclass
class Turn:
    keys: list[bytes]  # every key but the Enter
    text: str  # what the turn typed

    def done(self) -> termsim.Predicate:
        """The reply to this turn is complete and the prompt is back."""
        return Text(f"assistant: thinking about '{self.text}'") & Text(LAST_LINE) & SLEEPING


def split_template(recording: termsim.files.Recording) -> tuple[
        list[ev.Event], list[list[ev.Event]], list[ev.Event]]:
    """Boot events, each turn's events (its first key up to the next turn's), the end."""
    events = [e for e in recording.events
              if not isinstance(e, ev.WaitStarted | ev.WaitEnded | ev.End)]
    # A turn starts at its first key: the first input, or the first after an Enter.
    inputs = [i for i, e in enumerate(events) if isinstance(e, ev.Input)]

    def data(i: int) -> bytes:
        event = events[i]
        assert isinstance(event, ev.Input)
        return event.data

    starts = [inputs[0]] + [b for a, b in itertools.pairwise(inputs) if data(a) == b"\r"]
    ctrl_d = starts.pop()  # the input after the last Enter is Ctrl-D
    assert data(ctrl_d) == b"\x04", events[ctrl_d]
    turns = [events[a:b] for a, b in zip(starts, [*starts[1:], ctrl_d], strict=True)]
    if len(turns) != TEMPLATE_TURNS:
        raise SystemExit(f"the template has {len(turns)} turns, not {TEMPLATE_TURNS}")
    return events[: starts[0]], turns, events[ctrl_d:]


def build(template: str, out: str, minutes: float, seed: int = 1) -> list[Turn]:
    """Write the long recording; return the turns a replay must type."""
    recording = termsim.files.Recording.open(template)
    boot, turns, end = split_template(recording)
    turn_first = [first_input_index(recording.events, turn) for turn in turns]
    rng = random.Random(seed)
    header = make_header(
        argv=["python", "examples/agent_repl.py"], cwd=".", cols=80, rows=24,
        env={"TERM": "xterm-256color", "LANG": "C.UTF-8"}, policy={},
    )
    header["note"] = "synthetic: benchmarks/bench_replay.py"
    writer = RecordingWriter(out, header)
    emit = writer.write
    wait_id = 1
    emit(ev.WaitStarted(0.0, wait_id, SLEEPING.describe(), None, 60.0))
    for e in boot:
        emit(e)
    now = boot[-1].t
    emit(ev.WaitEnded(now, wait_id, "matched"))

    # The end: Ctrl-D, "bye", the exit; its length, to stop the turns in time.
    end_length = end[-1].t - end[0].t
    duration = minutes * 60
    done: list[Turn] = []
    inputs = 0
    while True:
        source = turns[min(len(done), TEMPLATE_TURNS - 1)]
        number = f"{len(done) % 10000:04d}"
        text = TEXT.replace("xxxx", number)
        start = now + rng.uniform(1.0, 3.0)
        events, length = retime(source, start, number, rng)
        events = renumber(events, turn_first[min(len(done), TEMPLATE_TURNS - 1)], inputs + 1)
        if start + length + 1.0 + end_length > duration:
            break
        keys: list[bytes] = []
        for e in events:
            if isinstance(e, ev.Input):
                inputs += 1
                if e.data == b"\r":
                    wait_id += 1
                    emit(e)
                    emit(ev.WaitStarted(e.t, wait_id, Turn(keys, text).done().describe(),
                                        f"input #{inputs} (key enter) at {e.t:.3f} s", 30.0))
                    continue
                keys.append(e.data)
            emit(e)
        emit(ev.WaitEnded(start + length, wait_id, "matched"))
        done.append(Turn(keys, text))
        now = start + length
    # Ctrl-D at the time that puts the end at exactly `duration`.
    shift = duration - end[-1].t
    for e in renumber(end, first_input_index(recording.events, end), inputs + 1):
        emit(dataclasses.replace(e, t=e.t + shift))
        if isinstance(e, ev.Input):
            wait_id += 1
            emit(ev.WaitStarted(e.t + shift, wait_id, "the program to exit", None, 30.0))
    emit(ev.WaitEnded(duration, wait_id, "matched"))
    writer.close(duration, "closed")
    return done


def renumber(events: list[ev.Event], template_first: int, new_first: int) -> list[ev.Event]:
    """Events of a template segment whose first input was the template's input
    number ``template_first``, with their input-read indexes moved so that it
    is input number ``new_first`` of the new recording."""
    return [dataclasses.replace(e, index=e.index - template_first + new_first)
            if isinstance(e, ev.InputRead) else e for e in events]


def first_input_index(template: list[ev.Event], segment: list[ev.Event]) -> int:
    """The input number (from 1, as marks count) of a segment's first input."""
    first = next(e for e in segment if isinstance(e, ev.Input))
    return 1 + sum(1 for e in template[:template.index(first)] if isinstance(e, ev.Input))


def retime(source: list[ev.Event], start: float, number: str, rng: random.Random,
           ) -> tuple[list[ev.Event], float]:
    """One turn at a person's typing speed, typing ``number`` for ``xxxx``."""
    out: list[ev.Event] = []
    src_input = source[0].t
    new_input = start
    typing = True
    x_seen = 0
    digit = b""
    for e in source:
        if isinstance(e, ev.Input):
            if e is not source[0]:
                new_input += rng.uniform(0.08, 0.22)
            src_input = e.t
            if e.data == b"\r":
                typing = False
            digit = b""
            if e.data == b"x":
                digit = number[x_seen].encode()
                x_seen += 1
                e = dataclasses.replace(e, data=digit, label=f"typed {digit.decode()!r}")
            out.append(dataclasses.replace(e, t=new_input))
            continue
        t = new_input + (e.t - src_input)
        if isinstance(e, ev.Output):
            chunk = e.data
            if typing and digit:
                if chunk.count(b"x") != 1:
                    raise SystemExit(f"unexpected echo of an x key: {chunk!r}")
                chunk = chunk.replace(b"x", digit)
            else:
                chunk = chunk.replace(b"xxxx", number.encode())
            e = ev.Output(e.t, chunk)
        out.append(dataclasses.replace(e, t=t))
    return out, max(e.t for e in out) - start


# -- 3. replays -------------------------------------------------------------------------


async def replay_interactive(path: str, turns: list[Turn]) -> None:
    async with termsim.replay(path) as term:
        await term.wait_for(SLEEPING, timeout=60)
        for turn in turns:
            for key in turn.keys:
                await term.send(key)
            mark = await term.send(b"\r")
            await term.wait_for(turn.done(), since=mark, timeout=30)
        await term.send(b"\x04")
        status = await term.wait_exit(timeout=30)
    if status != 0:
        raise SystemExit(f"the interactive replay ended with status {status}")


async def replay_exit_only(path: str) -> None:
    # Lenient: the recorded inputs go to the program as recorded.
    async with termsim.replay(path, strict=False) as term:
        status = await term.wait_exit(timeout=700)
    if status != 0:
        raise SystemExit(f"the exit-only replay ended with status {status}")


def feed_only(path: str) -> None:
    recording = termsim.files.Recording.open(path)
    terminal = termsim.emulator.Terminal(recording.cols, recording.rows)
    for e in recording.of_type(ev.Output):
        terminal.feed(e.data)


def timed(fn: object, *args: object) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn(*args)  # type: ignore[operator]
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--template", help="reuse this template recording if it exists, "
                        "else record it there")
    parser.add_argument("--keep", help="write the long recording here (default: a temp dir)")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench_replay_") as tmp:
        template = args.template or os.path.join(tmp, "template.tsr")
        if not os.path.exists(template):
            t0 = time.perf_counter()
            anyio.run(record_template, template)
            print(f"template recorded live in {time.perf_counter() - t0:.1f} s")
        path = args.keep or os.path.join(tmp, "ten-minutes.tsr")
        turns = build(template, path, args.minutes)
        recording = termsim.files.Recording.open(path)
        kinds: dict[str, int] = {}
        for e in recording.events:
            kinds[type(e).__name__] = kinds.get(type(e).__name__, 0) + 1
        out_bytes = sum(len(e.data) for e in recording.of_type(ev.Output))
        print(f"recording: {recording.size / 1e6:.2f} MB, {len(recording.events):,} events "
              f"({', '.join(f'{k} {n:,}' for k, n in sorted(kinds.items()))}), "
              f"{recording.duration:.1f} s virtual, {len(turns)} turns, "
              f"{out_bytes / 1e6:.2f} MB of output")
        del recording

        results: dict[str, list[float]] = {"interactive": [], "exit only": [],
                                           "Recording.open": [], "feed only": []}
        for rep in range(args.repeats):
            jobs = [
                ("interactive", lambda: anyio.run(replay_interactive, path, turns)),
                ("exit only", lambda: anyio.run(replay_exit_only, path)),
                ("Recording.open", lambda: termsim.files.Recording.open(path)),
                ("feed only", lambda: feed_only(path)),
            ]
            if rep % 2:
                jobs.reverse()
            for name, job in jobs:
                results[name].append(timed(job))

        print(f"\nwall time, median of {args.repeats} alternating runs (target <= 1 s)")
        print(f"  {'':42} {'median':>8} {'min':>8} {'max':>8} {'/ 1 s':>7}")
        labels = {
            "interactive": f"interactive replay ({len(turns)} turns, waits)",
            "exit only": "replay with only wait_exit()",
            "Recording.open": "  of which Recording.open()",
            "feed only": "bare Terminal fed every output event",
        }
        for name, values in results.items():
            m = statistics.median(values)
            print(f"  {labels[name]:42} {m:8.3f} {min(values):8.3f} {max(values):8.3f} "
                  f"{m:6.2f}x")

        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            anyio.run(replay_interactive, path, turns)
            profiler.disable()
            print("\ncProfile of one interactive replay (most own time):")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
