"""Coverage-guided fuzzing of Terminal.feed with atheris (not part of the tests).

    pip install atheris
    python fuzz/fuzz_feed.py -atheris_runs=2000000 [-max_total_time=600] [corpus_dir]

Invariants checked for every input, split into chunks at fuzzer-chosen
points: feed() never raises, the parser never stays stuck (after the input
and a reset of any open sequence, plain text is drawn), and replies are the
same however the input is split.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    import termsim

MARKER = "END-OF-FUZZ"
RESET = b"\x18\x1b\\\x0f\r\n" + MARKER.encode()


def test_one_input(data: bytes) -> None:
    if len(data) < 2:
        return
    cut = data[0] % len(data)
    body = data[1:]
    whole = termsim.emulator.Terminal(40, 10)
    split = termsim.emulator.Terminal(40, 10)
    replies_whole = whole.feed(body)
    replies_split = split.feed(body[:cut]) + split.feed(body[cut:])
    if replies_whole != replies_split:
        raise AssertionError(f"replies depend on the split: {replies_whole!r} != {replies_split!r}")
    whole.feed(RESET)
    if MARKER not in whole.screen.text:
        raise AssertionError(f"parser stuck after {body!r}: {whole.screen.text!r}")


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
