"""Adversarial streams: throughput and peak memory, beside the SGR-dense stream.

A program under test prints whatever it likes, and a recording may come
from a stranger; termsim promises time linear in the bytes and memory
bounded by the screen. Each case below is a stream built to break that
promise (marks piled on one cell, floods of bells, of shell marks, of
titles, of distinct palette indexes and unknown sequences, endless strings,
random bytes...), ``--mb`` megabytes long (default 10). Each is fed in a
new process (so that its peak RSS is its own) into a fresh
``termsim.emulator.Terminal(80, 24)``, in 4096-byte chunks read from a file, with a
snapshot (``terminal.screen``) after every chunk, as a session with a
pending wait takes one; the text cases run again with
``Emulation(graphemes=True)``. Printed per case: MB/s (the feed's CPU
time, ``time.process_time()``, which a loaded machine inflates less than
wall time), the ratio to the SGR-dense stream (``make_streams.sgr_change``
text, the same size, measured the same way first and last in the run: the
ratio uses the mean of the two), peak RSS (``VmHWM``) and its growth
over a process that only imported termsim and made the terminal, and
whether the case meets the floor (1 MB/s, 200 MB peak RSS).

``--previous CHECKOUT`` runs each case against that checkout too (its
termsim first on ``PYTHONPATH``), with ``--timeout`` seconds each (default
60): a case it does not finish in time shows as "> Ns".

Usage: ``python benchmarks/bench_adversarial.py [--mb 10] [--only NAME ...]
[--previous CHECKOUT] [--timeout 60]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from make_streams import WORDS, sgr_change

HERE = Path(__file__).resolve().parent
ROOT = str(HERE.parent)
CHUNK = 4096
FLOOR_MBS = 1.0
CEILING_RSS_MB = 200
SEED = 20261201

ACUTE = "\u0301".encode()
ZWJ = "\u200d"
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"


def _fill(size: int, pieces: Iterator[bytes]) -> bytes:
    """Pieces joined until ``size`` bytes (the last one cut)."""
    out: list[bytes] = []
    total = 0
    for piece in pieces:
        out.append(piece)
        total += len(piece)
        if total >= size:
            break
    return b"".join(out)[:size]


def _numbered(template: str) -> Iterator[bytes]:
    n = 0
    while True:
        yield template.format(n=n).encode()
        n += 1


def sgr_dense(size: int) -> bytes:
    """The reference: ``make_streams.py``'s SGR-dense colour, ``size`` bytes."""
    rng = random.Random(SEED)

    def lines() -> Iterator[bytes]:
        while True:
            parts = [sgr_change(rng) + rng.choice(WORDS)[:rng.randint(1, 5)]
                     for _ in range(rng.randint(4, 30))]
            yield ("".join(parts) + "\x1b[0m\r\n").encode()
    return _fill(size, lines())


def marks_one_cell(size: int) -> bytes:
    return b"a" + ACUTE * (size // 2)


def marks_spread(size: int) -> bytes:
    rng = random.Random(SEED)

    def letters() -> Iterator[bytes]:
        while True:
            marks = "".join(chr(rng.randrange(0x300, 0x370)) for _ in range(rng.randint(1, 40)))
            yield (rng.choice("aeiouxyz ") + marks).encode()
    return _fill(size, letters())


def zwj_emoji(size: int) -> bytes:
    return _fill(size, iter(lambda: FAMILY.encode(), b""))


def zwj_chain(size: int) -> bytes:
    """One cluster that never ends: a person, then ZWJ and a person for ever."""
    return "\U0001f468".encode() + (ZWJ + "\U0001f469").encode() * (size // 7)


def bells(size: int) -> bytes:
    return b"\x07" * size


def shell_marks(size: int) -> bytes:
    return _fill(size, _numbered(
        "\x1b]133;A\x07$ \x1b]133;B\x07echo {n}\r\n\x1b]133;C\x07{n}\r\n\x1b]133;D;0\x07"))


def titles(size: int) -> bytes:
    return _fill(size, _numbered("\x1b]2;title {n}\x07\x1b[22t\x1b]1;icon {n}\x07"))


def palette(size: int) -> bytes:
    return _fill(size, _numbered("\x1b]4;{n};rgb:12/34/56\x07"))


def unknown_osc(size: int) -> bytes:
    return _fill(size, _numbered("\x1b]{n}0000;x\x07"))


def unknown_csi(size: int) -> bytes:
    return _fill(size, _numbered("\x1b[{n}t\x1b[?{n}h\x1b[{n};{n}~\x1b[>{n}x"))


def dcs_many(size: int) -> bytes:
    return _fill(size, _numbered("\x1bP{n}$zsome payload {n}\x1b\\\x1bP+p{n}\x1b\\"))


def dcs_endless(size: int) -> bytes:
    """A DCS string that is never terminated."""
    return b"\x1bP1p" + b"x" * (size - 4)


def random_bytes(size: int) -> bytes:
    return random.Random(SEED).randbytes(size)


def hyperlinks(size: int) -> bytes:
    """A new long link for every cell."""
    return _fill(size, _numbered("\x1b]8;id={n};https://example.com/" + "p" * 3000
                                 + "/{n}\x1b\\x"))


def csi_runs(size: int) -> bytes:
    """Reads of nothing but cursor moves, each a new run of sequences."""
    rng = random.Random(SEED)

    def moves() -> Iterator[bytes]:
        while True:
            yield f"\x1b[{rng.randrange(1, 30)}{rng.choice('ABCD')}".encode()
    return _fill(size, moves())


def long_sgr(size: int) -> bytes:
    """SGR sequences of 5,000 parameters each, each different."""
    return _fill(size, _numbered("\x1b[" + "1;" * 5000 + "{n}mx"))


def insert_mode(size: int) -> bytes:
    """Text in insert mode (IRM): every character moves the rest of the row."""
    return b"\x1b[4h" + _fill(size - 4, _numbered("word {n} "))


def notifications(size: int) -> bytes:
    """Kitty notifications in chunks that never end, under new ids."""
    return _fill(size, _numbered("\x1b]99;i={n}:d=0;chunk {n}\x1b\\\x1b]99;i=x:d=0;more\x1b\\"))


def clipboard(size: int) -> bytes:
    payload = "aGVsbG8g" * 1000
    return _fill(size, _numbered("\x1b]52;c;" + payload + "\x07{n}"))


def queries(size: int) -> bytes:
    """Queries, each answered: cursor position, device attributes, a mode."""
    return _fill(size, iter(lambda: b"\x1b[6n\x1b[c\x1b[?2004$p\x1b[5n", b""))


def escapes(size: int) -> bytes:
    """Cursor saves and restores, index and reverse index, without end."""
    return _fill(size, iter(lambda: b"\x1b7\x1bD\x1b8\x1bM", b""))


CASES: dict[str, Callable[[int], bytes]] = {
    "marks on one cell": marks_one_cell,
    "marks spread": marks_spread,
    "ZWJ emoji": zwj_emoji,
    "one ZWJ chain": zwj_chain,
    "random bytes": random_bytes,
    "BEL": bells,
    "shell marks (OSC 133)": shell_marks,
    "titles and pushes": titles,
    "OSC 4 distinct indexes": palette,
    "unknown OSC numbers": unknown_osc,
    "distinct unknown CSI": unknown_csi,
    "DCS flood": dcs_many,
    "endless DCS": dcs_endless,
    "hyperlinks (OSC 8)": hyperlinks,
    "runs of cursor moves": csi_runs,
    "long SGR": long_sgr,
    "insert mode text": insert_mode,
    "chunked notifications": notifications,
    "clipboard (OSC 52)": clipboard,
    "queries": queries,
    "ESC 7 / ESC 8": escapes,
}
#: Cases run again with grapheme clusters drawn in one cell.
TEXT_CASES = ("marks on one cell", "marks spread", "ZWJ emoji", "one ZWJ chain",
              "random bytes")

#: What each child runs: feed the file, a snapshot after each chunk; print
#: CPU seconds, peak RSS (kB) and the RSS before feeding.
_CHILD = """
import json, sys, time
import termsim
def hwm():
    # The peak RSS of this process since its exec, in kB (``ru_maxrss``
    # would count the parent's from before the fork).
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
from termsim.emulator import Emulation, Terminal
path, graphemes = sys.argv[1], sys.argv[2] == "1"
terminal = Terminal(80, 24, emulation=Emulation(graphemes=True) if graphemes else None)
terminal.screen
base = hwm()
fed = 0
with open(path, "rb") as f:
    t0 = time.process_time()
    while True:
        chunk = f.read(CHUNK)
        if not chunk:
            break
        terminal.feed(chunk)
        terminal.screen
        fed += len(chunk)
    cpu = time.process_time() - t0
peak = hwm()
print(json.dumps({"cpu": cpu, "bytes": fed, "peak": peak, "base": base}))
""".replace("CHUNK", str(CHUNK))


def measure(path: str, graphemes: bool, checkout: str,
            timeout: float | None) -> dict[str, float] | None:
    """One case in a new process importing termsim from ``checkout``;
    None if it did not finish within ``timeout`` seconds (None: no limit)."""
    env = dict(os.environ, PYTHONPATH=checkout)
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, path, "1" if graphemes else "0"],
                              env=env, capture_output=True, text=True, timeout=timeout,
                              cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return None
    if done.returncode:
        sys.exit(f"the case failed in {checkout}'s termsim:\n{done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def mbs(result: dict[str, float]) -> float:
    return result["bytes"] / 1e6 / max(result["cpu"], 1e-9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=10.0, help="megabytes a case (default 10)")
    parser.add_argument("--only", nargs="*", help="cases whose name contains one of these")
    parser.add_argument("--previous", help="a checkout of termsim to measure beside this one")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds a case of --previous may take (default 60)")
    args = parser.parse_args()
    size = int(args.mb * 1e6)
    names = [name for name in CASES
             if not args.only or any(part.lower() in name.lower() for part in args.only)]
    runs = [(name, False) for name in names] + [(name, True) for name in names
                                                if name in TEXT_CASES]
    with tempfile.TemporaryDirectory(prefix="termsim-adversarial-") as tmp:
        reference = os.path.join(tmp, "sgr.bin")
        Path(reference).write_bytes(sgr_dense(size))
        before = measure(reference, False, ROOT, None)
        assert before is not None
        rows = []
        for name, graphemes in runs:
            path = os.path.join(tmp, "case.bin")
            Path(path).write_bytes(CASES[name](size))
            now = measure(path, graphemes, ROOT, None)
            assert now is not None
            old = measure(path, graphemes, args.previous, args.timeout) if args.previous else None
            rows.append((name, graphemes, now, old))
        after = measure(reference, False, ROOT, None)
        assert after is not None
    ref = (mbs(before) + mbs(after)) / 2
    print(f"{args.mb:g} MB a case, 80x24, {CHUNK}-byte chunks, a snapshot after each; "
          f"MB/s of CPU time; RSS in MB")
    print(f"SGR-dense reference: {mbs(before):.2f} MB/s first, {mbs(after):.2f} last "
          f"(peak RSS {before['peak'] / 1024:.0f})")
    head = f"{'case':<28} {'graphemes':>9} {'MB/s':>7} {'/ SGR':>6} {'peak RSS':>9} " \
           f"{'growth':>7} {'floor':>5}"
    if args.previous:
        head += f" {'previous MB/s':>14} {'previous RSS':>13}"
    print(head)
    failed = 0
    for name, graphemes, now, old in rows:
        speed = mbs(now)
        peak, growth = now["peak"] / 1024, (now["peak"] - now["base"]) / 1024
        ok = speed >= FLOOR_MBS and peak <= CEILING_RSS_MB
        failed += not ok
        line = (f"{name:<28} {'on' if graphemes else 'off':>9} {speed:7.2f} {speed / ref:6.2f} "
                f"{peak:9.0f} {growth:7.0f} {'yes' if ok else 'NO':>5}")
        if args.previous:
            line += (f" {mbs(old):14.2f} {old['peak'] / 1024:13.0f}" if old is not None
                     else f" {'> ' + format(args.timeout, 'g') + ' s':>14} {'':>13}")
        print(line)
    print(f"{len(rows) - failed} of {len(rows)} cases meet the floor "
          f"({FLOOR_MBS:g} MB/s, {CEILING_RSS_MB} MB peak RSS)")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
