"""A seed corpus for ``fuzz/fuzz_feed.py``: slices of the recorded streams.

    python benchmarks/fuzz_corpus.py DIR [--size 4096]

Writes every ``--size``-byte slice (the last one shorter) of each workload in
``benchmarks/data/`` (real prompt_toolkit output, logs, colour, a full-screen
app, ``seq``) into ``DIR``, one file each. ``docs/reliability.md``'s fuzzing
figures come from a run on such a corpus:

    python benchmarks/fuzz_corpus.py /tmp/corpus
    python fuzz/fuzz_feed.py -max_total_time=150 -max_len=4096 /tmp/corpus

atheris prints its executions (``#N``) and coverage edges (``cov: N``) as it
goes, and a summary at the end; a failure stops it with the input.
"""

from __future__ import annotations

import argparse
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    count = 0
    for stream in sorted(DATA.glob("*.bin")):
        data = stream.read_bytes()
        for start in range(0, len(data), args.size):
            (args.dir / f"{stream.stem}-{start:08d}").write_bytes(data[start:start + args.size])
            count += 1
    print(f"{count} inputs in {args.dir}")


if __name__ == "__main__":
    main()
