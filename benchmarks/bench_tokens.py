"""Streams made of the tokens the tokenizer's fast path does not take.

    python benchmarks/bench_tokens.py [--reps 5] [--previous CHECKOUT]

The tokenizer finds a read's tokens with one ``findall``: text, and runs of
CSI sequences, CR and LF. Any other character (a control, an escape sequence
other than CSI, a string, a CSI with a control inside) stands alone there, and
the token it starts is read whole the slow way; the tokens found inside it are
passed over, and a run it ends inside is found again on its own. These streams
are nothing but such tokens, every few characters, so that what that costs
shows; ``ptk.bin`` is the stream the fast path is for, beside them.

Each stream is fed in 4096-byte chunks to a fresh ``termsim.emulator.Terminal(80,
24)``; the median of ``--reps`` runs, in milliseconds. With ``--previous``,
the same runs of another termsim checkout (a git worktree of an older
commit), in its own process, alternating with this one's.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from _previous import in_checkout

DATA = Path(__file__).resolve().parent / "data"
CHUNK = 4096

STREAMS: dict[str, bytes] = {
    "TAB between letters": b"a\tb\tc\td\t" * 4000,
    "ESC ( B before each letter": b"\x1b(Bx" * 6000,
    "OSC 8 hyperlinks": b"\x1b]8;;http://e/x\x1b\\link\x1b]8;;\x1b\\ " * 1000,
    "BS overstrike": b"x\x08_" * 6000,
    "CSI with LF inside": b"\x1b[1\n;2H\x1b[0mab" * 2000,
    "8-bit CSI": "\x9b1mx\x9b0m".encode() * 3000,
    "DECSC/DECRC around CUP": b"\x1b7\x1b[5;5Hxyz\x1b8" * 2000,
    "OSC cut short by a run": b"\x1b]0;t\r\n\x1b[K" * 6000,
    "CSI cut short by ESC": b"\x1b[1\r\x1b[A" * 16000,
}


def one_pass() -> dict[str, float]:
    """Milliseconds for each stream, once: run in this process or, for
    ``--previous``, in one that imports the other checkout."""
    import termsim

    streams = dict(STREAMS)
    ptk = DATA / "ptk.bin"
    if ptk.exists():
        streams["ptk.bin (the fast path's own)"] = ptk.read_bytes()
    out = {}
    for name, data in streams.items():
        chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)]
        terminal = termsim.emulator.Terminal(80, 24)
        t0 = time.perf_counter()
        for chunk in chunks:
            terminal.feed(chunk)
        out[name] = (time.perf_counter() - t0) * 1e3
    return out


def pass_in(checkout: str) -> dict[str, float]:
    """``one_pass`` in its own process, with termsim from ``checkout``."""
    result: dict[str, float] = in_checkout(checkout, "bench_tokens", "one_pass()", cwd=checkout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--previous", help="another termsim checkout to compare with")
    args = parser.parse_args()
    results: dict[str, dict[str, list[float]]] = {}
    here = str(Path(__file__).resolve().parent.parent)
    for _ in range(args.reps):
        passes = {"termsim": pass_in(here)}
        if args.previous:
            passes["previous"] = pass_in(args.previous)
        for who, values in passes.items():
            for name, ms in values.items():
                results.setdefault(name, {}).setdefault(who, []).append(ms)
    who = ["termsim"] + (["previous"] if args.previous else [])
    print(f"4096-byte chunks, 80x24, median of {args.reps} alternating runs, ms")
    print(f"{'stream':<32}" + "".join(f"{w:>10}" for w in who)
          + (f"{'termsim/previous':>18}" if args.previous else ""))
    for name, by in results.items():
        cells = "".join(f"{statistics.median(by[w]):>10.2f}" for w in who)
        ratio = (f"{statistics.median(by['termsim']) / statistics.median(by['previous']):>17.2f}x"
                 if args.previous else "")
        print(f"{name:<32}{cells}{ratio}")


if __name__ == "__main__":
    main()
