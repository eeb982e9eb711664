"""Shake speed: 100 variants of a ~10-second interactive session, against replay.

The session is ``bench_replay.py``'s template, recorded live: the example
REPL booting, then seven turns typing ``tell me about xxxx`` a key at a time
(each key once its echo shows), Enter, the reply (about 1.1 s each), and
Ctrl-D. The body that is shaken is that same test, as a function of the
session: every key, every wait. ``Shaker.shake(100)`` runs it against 100
variants of the recording (output cut and merged differently, in-flight
output after inputs, pauses stretched), each a strict replay on a virtual
clock. Target (issue: "100 variants of a 10-second session in a few
seconds"): a few seconds. Printed: the session's length, the number of
events, the wall time of the 100 variants, and the time one live run took.

Usage: ``python benchmarks/bench_shake.py [--variants 100] [--template PATH]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import record_template, template_body

import termsim
from termsim.offline.shake import Shaker


async def body(term: termsim.Driver) -> None:
    """The template's test, as a function of its session."""
    status = await template_body(term)
    if status != 0:
        raise AssertionError(f"exit status {status}")


def run_body() -> None:
    async def main() -> None:
        async with termsim.spawn(["agent_repl"]) as term:  # a replay, under the shaker
            await body(term)

    anyio.run(main)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", type=int, default=100)
    parser.add_argument("--template", help="reuse this recording (else record one live)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_shake_") as tmp:
        template = args.template or os.path.join(tmp, "template.tsr")
        live = None
        if not os.path.exists(template):
            t0 = time.perf_counter()
            anyio.run(record_template, template)
            live = time.perf_counter() - t0
        recording = termsim.files.Recording.open(template)
        shaker = Shaker([template], run_body, name="the template's test")
        t0 = time.perf_counter()
        baseline = shaker.replayable()
        one = time.perf_counter() - t0
        if baseline is not None:
            raise SystemExit(f"the body fails on the plain replay: {baseline}")
        t0 = time.perf_counter()
        failure = shaker.shake(args.variants)
        wall = time.perf_counter() - t0
    print(f"session: {recording.duration:.1f} s recorded, {len(recording.events):,} events"
          + (f", recorded live in {live:.1f} s" if live else ""))
    print(f"one plain replay of the body: {one:.3f} s")
    print(f"{shaker.tried} variants: {wall:.2f} s wall ({wall / max(1, shaker.tried) * 1000:.0f} "
          f"ms each), {shaker.mismatched} mismatched, "
          f"{'a failure' if failure else 'no failure'}")
    if failure:
        print(failure)
    return 1 if failure else 0


if __name__ == "__main__":
    sys.exit(main())
