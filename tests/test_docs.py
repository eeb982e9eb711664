"""The pages of docs/ say what the code does: every fenced block is taken by a
test, every table of behaviours names the tests that produce its rows, and
every figure says how it was measured.

Blocks. A fenced block of ``docs/*.md`` sits right under a
``<!-- docs: NAME -->`` comment: the README's convention (``<!-- readme:
NAME -->``, ``tests/readme.py``) with another word, read by
``readme.fenced``. Names are unique across the four pages, and a test takes
a block by calling ``docs_fence`` with its name (not ``doc_block``:
``tests/test_readme_blocks.py`` takes any call ending in ``block(`` for the
README's);
``test_every_docs_block_is_named_once_and_taken_by_a_test`` fails for a
block without a name or without a test, and for a test whose block is gone.

Tables. The tables of ``docs/reliability.md`` and ``docs/shake.md`` end
with a column of tests (``file.py::test_name``, files under tests/): each
named test must exist, and hold the row's program and outcome (reliability)
or use the row's operation (shake). The shake table has one row per
operation the code has, and no other; its notation is what the code prints
and parses.

Figures. No test here times anything: a figure in docs/ names the script
that measures it (under ``benchmarks/`` or ``fuzz/``, which must exist) and
the machine it ran on; what the suite can check exactly (a count, a limit, a
constant) is checked against the code.

The long run ``fuzz/tmux_differential.py --programs 5000`` is not run here:
its printed options are parsed by the script's own ``main`` (with the run
itself replaced), and the same options with ``--programs 3`` run for real
against tmux. The tests that need tmux skip without it.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import random
import re
import shlex
import subprocess
import sys
import typing
import zlib
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import msgpack
import pytest
from conftest import inherited_env, program, stubborn_pids
from readme import ROOT, fenced, untaken
from tmux_pane import tmux_available

import termsim
from termsim import ProcessExited, RecordingError, Text
from termsim.events import Event, Input, Output, WaitEnded, WaitStarted
from termsim.files import Recording
from termsim.live.process import is_running

DOCS = ROOT / "docs"
TESTS = ROOT / "tests"
FUZZ = ROOT / "fuzz" / "tmux_differential.py"

needs_tmux = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")


# -- blocks -------------------------------------------------------------------------------


def _pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def docs_fence(name: str) -> str:
    """The text of the docs/ block called ``name``."""
    for page in _pages():
        for each in fenced(page.read_text(), "docs"):
            if each.name == name:
                return each.body
    raise KeyError(f"docs/ has no block marked <!-- docs: {name} -->")


def test_every_docs_block_is_named_once_and_taken_by_a_test() -> None:
    names = []
    for page in _pages():
        found = fenced(page.read_text(), "docs")
        unnamed = [b.line for b in found if b.name is None]
        assert not unnamed, f"{page.name}: blocks without <!-- docs: NAME --> at lines {unnamed}"
        names += [b.name for b in found]
    assert names, "no block in docs/ at all: the pattern below would pass vacuously"
    assert len(names) == len(set(names)), f"names used twice: {names}"
    missing, gone = untaken(names, "docs_fence")
    assert missing == set(), "docs/ blocks no test takes"
    assert gone == set(), "tests take blocks docs/ no longer has"


def test_a_docs_block_without_a_name_is_found() -> None:
    text = "x\n```\nls\n```\n<!-- docs: a -->\n```\none\n```\n<!-- readme: b -->\n```\n2\n```\n"
    assert [(b.name, b.line) for b in fenced(text, "docs")] == [(None, 2), ("a", 6), (None, 10)]
    unknown = "nope"
    with pytest.raises(KeyError, match="no block marked <!-- docs: nope -->"):
        docs_fence(unknown)


# -- tables -------------------------------------------------------------------------------


def _table(page: str, first: str) -> list[list[str]]:
    """The rows (cells, stripped) of every table in ``page`` whose header
    starts with the cell ``first``."""
    lines = (DOCS / page).read_text().splitlines()
    rows = []
    for start in (i for i, line in enumerate(lines) if line.startswith(f"| {first} |")):
        for line in lines[start + 2:]:
            if not line.startswith("|"):
                break
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    assert rows, f"{page}: no table '{first}', or no rows in it"
    return rows


def _spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _test_source(reference: str) -> str:
    """The source of the test ``file.py::name`` under tests/, its decorators
    (its parameters) included."""
    file, _, name = reference.partition("::")
    path = TESTS / file
    assert path.is_file(), f"{reference}: no {path}"
    lines = path.read_text().splitlines()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            assert name.startswith("test_"), f"{reference} is not a test"
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return "\n".join(lines[first - 1:node.end_lineno])
    raise AssertionError(f"{reference}: no such test")


def _linked(cell: str) -> str:
    refs = [s for s in _spans(cell) if "::" in s]
    assert refs, f"no test named in {cell!r}"
    return "\n".join(_test_source(ref) for ref in refs)


#: For each row of docs/reliability.md's tables (by its first cell): what the
#: tests it names must hold, the row's outcome as the tests write it.
RELIABILITY_OUTCOMES: dict[str, tuple[str, ...]] = {
    # Programs
    "ignores SIGHUP and SIGTERM, forks a grandchild, and one that calls `setsid()`":
        ("--setsid", "is_running", "len(pids) == 3", "exit_status == -9"),
    "exits at once (`true`)": ("ProcessExited", "status == 0", "timeout=3600"),
    "closes stdout and stderr early, keeps running": ("send(", "wait_exit", "== 7"),
    "never reads its input while the test types 10 MB":
        ("10_000_000", "WaitTimeout", "write_timeout=1.0", "still unread",
         'beats == ["during"]'),
    "changes its PTY size (`stty`), asks for a window resize (`CSI 8;50;200 t`), "
    "enters/leaves the alternate screen and mouse mode":
        ("stty cols 100 rows 30", "8;50;200t", "1049h", "1000h", "(80, 24)",
         'mouse == "normal"', "not snap.alternate"),
    "floods 3 MB of coloured lines": ("FLOOD-DONE", "bytes_read > 3_000_000"),
    "exit detected while a grandchild keeps the PTY open": ("wait_exit", "== 5"),
    # Files
    "SIGKILL of the recording process mid-session":
        ("proc.kill()", "== 49", "not recording.complete",
         "stopped_at == path.stat().st_size", "tick 49"),
    "every truncation of a real recording":
        ("passing.tsr", "len(data), 7)", "not recording.complete", '"header" in str(exc)'),
    "random corruption":
        ("range(2000)", "randint(1, 3)", "< 0.3", "RecordingError", r"byte \d+",
         "full.events[: len(recording.events)]"),
    "the CLI on damaged files":
        ('"show", "info", "export", "play"', "range(15)", "status in (0, 1)",
         'b"Traceback" not in err', r'rb"byte \d+"'),
    "unwritable recording":
        ('record="/dev/full"', '"missing-dir"', "RecordingError", "_pty.proc is None"),
    "disk fills up mid-session":
        ("RLIMIT_FSIZE, (4096", "recording stopped: File too large",
         "not recording.complete"),
}


def _reliability_rows() -> list[list[str]]:
    return _table("reliability.md", "case")


def test_every_row_of_the_reliability_tables_has_an_outcome_to_check() -> None:
    cases = [row[0] for row in _reliability_rows()]
    assert len(cases) == len(set(cases))
    assert set(cases) - set(RELIABILITY_OUTCOMES) == set(), "rows with nothing checked"
    assert set(RELIABILITY_OUTCOMES) - set(cases) == set(), "checks of rows that are gone"


@pytest.mark.parametrize("row", _reliability_rows(), ids=lambda row: row[0][:40])
def test_each_reliability_row_names_tests_that_run_its_program_and_check_its_outcome(
    row: list[str],
) -> None:
    case, how, held, tests = row
    assert held
    source = _linked(tests)
    # The program (or the figures) as the row prints them are in the tests,
    # or in the helper program the row names.
    for span in _spans(how):
        if span.startswith("tests/programs/"):
            source += (ROOT / span).read_text()
    for span in _spans(how) + _spans(case):
        if "/" in span and " " not in span:  # a file: the tests may build its path
            span = Path(span).name
        if span.startswith("CSI "):
            span = span.removeprefix("CSI ").replace(" ", "")
        assert span in source, f"{case}: {span!r} is in none of its tests"
    for fragment in RELIABILITY_OUTCOMES[case]:
        assert fragment in source, f"{case}: its tests do not hold {fragment!r}"


def test_the_reliability_prose_is_the_codes() -> None:
    import test_reliability

    from termsim.emulator.parsing import tokenizer
    from termsim.live import process, pty

    text = " ".join((DOCS / "reliability.md").read_text().split())
    steps = re.search(r"calls each of (.*?), on asyncio and on trio \((\d+) cases", text)
    assert steps is not None
    named = re.findall(r"`(\w+)`", steps[1])
    assert [n.replace("aclose", "close") for n in named] == list(test_reliability.STEPS)
    assert int(steps[2]) == 2 * len(test_reliability.STEPS)
    grace = re.search(r"with ([\d.]+) s, ([\d.]+) s and ([\d.]+) s of grace", text)
    assert grace is not None
    assert tuple(map(float, grace.groups())) == (
        process.HANGUP_GRACE, process.TERMINATE_GRACE, process.KILL_GRACE)
    assert "until 64 MB are read but not yet emulated" in text
    assert pty.MAX_BACKLOG == 64 << 20
    assert "capped at 64 K characters and an unfinished sequence at 256" in text
    assert (tokenizer.MAX_STRING, tokenizer.MAX_PENDING) == (64 << 10, 256)
    assert "(pytest-timeout, 120 s, is the backstop)" in text
    assert re.search(r"^timeout = 120$", (ROOT / "pyproject.toml").read_text(), re.M)
    # Hypothesis counts: what each property asks of ``examples``.
    terminal = (TESTS / "test_terminal.py").read_text()
    for name in ("test_Terminal_fuzz_never_raises_and_recovers",
                 "test_Terminal_fuzz_chunking_changes_nothing"):
        assert re.search(rf"max_examples=examples\(300\).*\n(?:@.*\n)*def {name}\(", terminal)
    assert "`examples(300)` each per run" in text and "75 under the default" in text
    redact = (TESTS / "test_redact.py").read_text()
    assert re.search(r"max_examples=examples\(200\).*\n(?:@.*\n)*def test_Redactor_catches_a_"
                     r"secret_split_anywhere\(", redact)
    assert "`examples(200)`: 200 under the \"full\" profile, 50 under \"ci\"" in text
    from hypothesis import settings

    assert settings.get_profile("full").max_examples == 100
    assert settings.get_profile("ci").max_examples == 25


@pytest.mark.anyio
async def test_a_stubborn_tree_is_gone_after_the_block_and_its_leader_killed() -> None:
    async with termsim.spawn(program("stubborn.py", "--setsid")) as term:
        pids = await stubborn_pids(term)
        assert len(pids) == 3
    assert not any(is_running(pid) for pid in pids), pids
    # It ignores SIGHUP and SIGTERM: only the SIGKILL ended it.
    assert term.exit_status == -9


@pytest.mark.anyio
async def test_a_wait_on_a_program_that_exits_at_once_ends_at_the_exit() -> None:
    # The wait's timeout (an hour) is past pytest-timeout's backstop (120 s):
    # this passes only if the exit ended the wait. No clock is read here.
    async with termsim.spawn(["true"]) as term:
        with pytest.raises(ProcessExited) as info:
            await term.wait_for(Text("never"), timeout=3600)
    assert info.value.status == 0


@pytest.mark.anyio
async def test_an_unwritable_recording_fails_before_any_program_runs(tmp_path: Path) -> None:
    for record in ("/dev/full", tmp_path / "missing-dir" / "x.tsr"):
        session = termsim.spawn(["sh", "-c", "touch ran"], cwd=tmp_path, record=record)
        with pytest.raises(RecordingError, match="cannot write the recording"):
            async with session:
                pytest.fail("the block should not run")  # pragma: no cover
        assert session._pty.proc is None  # nothing was forked
    assert not (tmp_path / "ran").exists()


# -- security.md --------------------------------------------------------------------------


def _security_rows() -> list[list[str]]:
    return _table("security.md", "promise")


@pytest.mark.parametrize("row", _security_rows(), ids=lambda row: row[0][:40])
def test_each_security_promise_names_tests_that_exist(row: list[str]) -> None:
    promise, how, tests = row
    assert promise and how
    assert _linked(tests)  # each named test exists (and is a test)


def test_every_untrusted_test_file_is_named_by_a_security_promise() -> None:
    """A file of tests for untrusted input that no row names is a promise
    the page does not make."""
    named = {ref.partition("::")[0] for row in _security_rows() for ref in _spans(row[2])}
    untrusted = {p.name for p in TESTS.glob("test_*untrusted*.py")} | {
        "test_redact_drawn.py", "test_replay_runs_nothing.py"}
    assert untrusted - named == set()


def _caps() -> list[list[str]]:
    return _table("security.md", "kept")


@pytest.mark.parametrize("row", _caps(), ids=lambda row: row[1].split("`")[1])
def test_each_cap_is_the_codes_and_its_tests_feed_past_it(row: list[str]) -> None:
    """The constant the row names holds the row's value in the module it
    names, and each test the row names uses the constant (or its value)."""
    import importlib

    kept, cap, where, tests = row
    assert kept
    match = re.fullmatch(r"`(\w+)` = ([\w.]+)", cap)
    assert match is not None, cap
    name, value = match.groups()
    (path,) = _spans(where)
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    assert str(getattr(module, name)) == value, f"{path}: {name} is {getattr(module, name)}"
    for ref in _spans(tests):
        source = _test_source(ref)
        assert name in source or value in source or f"{int(float(value)):_}" in source, \
            f"{ref} does not use {name}"


def test_the_readme_links_the_security_page() -> None:
    assert "docs/security.md" in (ROOT / "README.md").read_text()


# -- shake.md -----------------------------------------------------------------------------


def _shake_rows() -> list[list[str]]:
    return _table("shake.md", "operation")


def test_the_shake_table_has_every_operation_of_the_code_and_no_other() -> None:
    from termsim.offline.perturb import Op

    in_code = {cls.__name__ for cls in typing.get_args(Op)}
    in_doc = {re.fullmatch(r"`(\w+)\(.*\)`", row[0])[1] for row in _shake_rows()}  # type: ignore[index]
    assert in_doc - in_code == set(), "operations the code does not have"
    assert in_code - in_doc == set(), "operations docs/shake.md does not list"


@pytest.mark.parametrize("row", _shake_rows(), ids=lambda row: row[0])
def test_each_shake_operation_reads_and_prints_as_the_table_writes_it(row: list[str]) -> None:
    from dataclasses import fields

    from termsim.offline import perturb

    operation, text, _models, _kept, tests = row
    signature = re.fullmatch(r"`(\w+)\((.*)\)`", operation)
    assert signature is not None
    cls = getattr(perturb, signature[1])
    assert len(signature[2].split(", ")) == len(fields(cls))
    notation = _spans(text)
    assert len(notation) == 1
    variant = perturb.parse(notation[0])
    assert len(variant.ops) == 1 and type(variant.ops[0]) is cls
    assert str(variant.ops[0]) == notation[0] == str(variant)
    source = _linked(tests)
    assert re.search(rf"\b{cls.__name__}\(", source), f"its tests never make a {cls.__name__}"


def test_the_shake_limits_are_the_codes() -> None:
    from termsim.offline.perturb import MIN_GAP, PAUSE, STRETCH

    rows = {re.match(r"`(\w+)", row[0])[1]: " ".join(row) for row in _shake_rows()}  # type: ignore[index]
    assert f"(up to {PAUSE:g} s)" in rows["Pause"]
    assert f"(at least {MIN_GAP * 1000:g} ms)" in rows["Stretch"]
    assert f"({STRETCH[0]:g} to {STRETCH[1]:g})" in rows["Stretch"]


def test_a_merge_joins_only_two_reads_in_a_row() -> None:
    from termsim.offline.perturb import Merge, Perturbation

    three: list[Event] = [Output(0.0, b"a"), Output(0.1, b"b"), Output(0.2, b"c")]
    assert Perturbation((Merge(0),)).apply(three) == [Output(0.1, b"ab"), Output(0.2, b"c")]
    apart: list[Event] = [Output(0.0, b"a"), Input(0.1, b"x", "key x"), Output(0.2, b"b")]
    assert Perturbation((Merge(0),)).apply(apart) == apart


def _wait_span(events: list[Event]) -> float:
    start = next(e.t for e in events if isinstance(e, WaitStarted))
    return next(e.t for e in events if isinstance(e, WaitEnded)) - start


def test_a_random_stretch_alone_keeps_a_wait_within_half_its_timeout() -> None:
    from termsim.offline.perturb import Perturbation, Stretch, random_variant

    # A wait of 0.45 s (timeout 1 s) around three pauses of 0.1-0.2 s, then
    # pauses of a second and more that no wait spans.
    events: list[Event] = [
        WaitStarted(0.0, 1, "text 'x'", None, 1.0), Output(0.1, b"0123456789"),
        Output(0.3, b"abcdefghij"), Output(0.4, b"klmnop"), WaitEnded(0.45, 1, "matched"),
        Output(2.0, b"abcdefghij"), Output(3.0, b"zz")]
    inside = outside = 0
    for seed in range(300):
        for op in random_variant(events, random.Random(seed)).ops:
            if isinstance(op, Stretch):
                alone = Perturbation((op,)).apply(events)
                assert _wait_span(alone) <= 0.5 + 1e-9, (seed, op)
                if op.index <= 4:
                    inside += 1
                elif op.factor > 1.75:
                    outside += 1
    # Not vacuous: stretches inside the wait were drawn, and outside it
    # they go further than the wait's room would allow.
    assert inside and outside


def test_a_whole_random_variant_keeps_each_wait_within_half_its_timeout() -> None:
    from termsim.offline.perturb import Pause, Stretch, random_variant

    # A wait of 0.45 s (timeout 1 s) over many reads and pauses: each
    # operation alone fits in the 0.05 s of room, several together would not.
    events: list[Event] = [WaitStarted(0.0, 1, "text 'x'", None, 1.0)]
    events += [Output(0.02 + 0.04 * k, bytes(range(65, 91))) for k in range(11)]
    events += [WaitEnded(0.45, 1, "matched"), Output(2.0, b"zz")]
    busy = 0
    for seed in range(400):
        variant = random_variant(events, random.Random(seed))
        spent = [op for op in variant.ops if isinstance(op, Pause | Stretch)]
        busy += len(spent) > 1
        assert _wait_span(variant.apply(events)) <= 0.5 + 1e-9, seed
    assert busy  # variants with several such operations were drawn


#: What the paragraph on random variants says, by its words: the frequency
#: that docs/shake.md gives, and how often ``random_variant`` does it on a
#: fixed set of seeds (the code's draws, not a clock: never flaky).
def _frequencies() -> dict[str, float]:
    from termsim.offline.perturb import Delay, Merge, Pause, Split, Stretch, random_variant

    counts = dict.fromkeys(("split", "pause", "bytewise", "merge", "delay", "stretch"), 0)
    totals = dict.fromkeys(counts, 0)
    long_reads = [Output(i * 0.05, bytes(300)) for i in range(400)]
    short_reads = [Output(i * 0.05, bytes(10)) for i in range(400)]
    typed: list[Event] = []
    for i in range(200):
        typed += [Output(i * 0.1, b"ab"), Input(i * 0.1 + 0.05, b"x", "key x")]
    for seed in range(10):
        ops = random_variant(long_reads, random.Random(seed)).ops
        split_at = {op.at for op in ops if isinstance(op, Split)}
        counts["split"] += len(split_at)
        totals["split"] += len(long_reads)
        counts["pause"] += sum(isinstance(op, Pause) for op in ops)
        totals["pause"] += len(split_at)
        counts["merge"] += sum(isinstance(op, Merge) for op in ops)
        totals["merge"] += len(long_reads) - 1
        counts["stretch"] += sum(isinstance(op, Stretch) for op in ops)
        totals["stretch"] += len(long_reads) - 1
        ops = random_variant(short_reads, random.Random(seed)).ops
        cut = {op.at // 10 for op in ops if isinstance(op, Split)}
        counts["bytewise"] += sum(
            all(Split(10 * read + k) in ops for k in range(1, 10)) for read in cut)
        totals["bytewise"] += len(short_reads)
        ops = random_variant(typed, random.Random(seed)).ops
        counts["delay"] += sum(isinstance(op, Delay) for op in ops)
        totals["delay"] += len(typed) // 2
    return {key: counts[key] / totals[key] for key in counts}


def test_the_random_variants_do_each_thing_as_often_as_the_page_says() -> None:
    text = " ".join((DOCS / "shake.md").read_text().split())
    said = {
        "split": r"is split at a random byte with probability (\d[.\d]*)",
        "pause": r"that split is also a pause with probability (\d[.\d]*)",
        "bytewise": r"one in (twenty) short reads \(256 bytes or fewer\) is split at every byte",
        "merge": r"consecutive reads merge with probability (\d[.\d]*)",
        "delay": r"delayed past it with probability (\d[.\d]*)",
        "stretch": r"each pause is stretched or shrunk with probability (\d+(?:\.\d+)?)",
    }
    measured = _frequencies()
    for key, pattern in said.items():
        found = re.search(pattern, text)
        assert found is not None, f"docs/shake.md no longer says {pattern!r}"
        expected = 1 / 20 if found[1] == "twenty" else float(found[1])
        assert measured[key] == pytest.approx(expected, abs=0.03), (key, measured[key])


# -- recording-format.md ------------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Two recordings of a real program: one with spawn's defaults, one with
    every optional header key asked for (a profile, hence an emulation) and
    an environment holding every allowlisted name and others."""
    import anyio

    folder = tmp_path_factory.mktemp("recorded")
    env = {**inherited_env(), **{name: "x" for name in _allowlist_in_doc()},
           "LC_MESSAGES": "C", "SECRET_TOKEN": "hunter2"}
    env["LANG"] = env["LC_ALL"] = env["LC_CTYPE"] = "C.UTF-8"

    async def run(path: Path, **options: Any) -> None:
        async with termsim.spawn(["sh", "-c", "echo hi; read x; echo bye"], record=path,
                                 **options) as term:
            await term.wait_for(Text("hi"), timeout=10)
            term.note("a note")
            await term.send(b"\n")
            await term.wait_for(Text("bye"), timeout=10)
            assert await term.wait_exit(timeout=10) == 0

    paths = {"plain": folder / "plain.tsr", "full": folder / "full.tsr"}
    anyio.run(run, paths["plain"])
    anyio.run(lambda: run(paths["full"], profile="kitty", env=env))
    yield paths


def _header_rows() -> list[list[str]]:
    return _table("recording-format.md", "key")


def _allowlist_in_doc() -> list[str]:
    env = next(row for row in _header_rows() if row[0] == "`env`")[1]
    listed = env[env.index("(") + 1:env.index(";")]
    return _spans(listed)


def test_the_layout_block_is_the_bytes_the_writer_writes(recorded: dict[str, Path]) -> None:
    from termsim.recording.codec import KIND

    layout = [line.split(None, 1) for line in docs_fence("layout").splitlines()]
    assert [name for name, _ in layout] == ["signature", "header", "event*"]
    signature = re.fullmatch(r'(\d+) bytes: ((?:[0-9A-F]{2} )+) \("(.+)"\)', layout[0][1])
    assert signature is not None
    data = recorded["plain"].read_bytes()
    size, hexes, literal = int(signature[1]), signature[2], signature[3]
    assert bytes.fromhex(hexes) == data[:size]
    assert ast.literal_eval(f'b"{literal}"') == data[:size]
    assert layout[1][1] == "one msgpack map, then its CRC-32"
    assert layout[2][1] == "one msgpack array per event: [kind, t_us, data...], then its CRC-32"
    # The rest of the file: records, each followed by the CRC-32 of its bytes
    # as a msgpack unsigned integer; the first a map, every other an array.
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data[size:])
    records, offset = [], size
    for record in unpacker:
        end = size + unpacker.tell()
        crc = unpacker.unpack()
        assert isinstance(crc, int) and crc >= 0
        assert crc == zlib.crc32(data[offset:end]), f"the record at byte {offset}"
        records.append(record)
        offset = size + unpacker.tell()
    assert offset == len(data)
    header, *events = records
    assert isinstance(header, dict) and header == Recording.open(recorded["plain"]).header
    assert events and all(
        isinstance(e, list) and e[0] in KIND.values() and isinstance(e[1], int) for e in events)
    assert [e[1] for e in events] == sorted(e[1] for e in events)  # in time order
    assert len(events) == len(Recording.open(recorded["plain"]).events)


def test_the_header_table_has_the_keys_a_real_header_has(recorded: dict[str, Path]) -> None:
    documented: set[str] = set()
    optional: set[str] = set()
    for key, meaning in _header_rows():
        keys = set(_spans(key))
        documented |= keys
        if meaning.startswith("optional"):
            optional |= keys
    plain = Recording.open(recorded["plain"]).header
    full = Recording.open(recorded["full"]).header
    assert documented - set(full) == set(), "keys no header has"
    assert set(full) - documented == set(), "keys the table does not list"
    # Every key not marked optional is in every header; the optional ones
    # are left out when the session did not ask for them (cell_size is in
    # every live recording, not in one converted or made by 1.0).
    assert set(plain) == documented - (optional - {"cell_size"})
    assert full["profile"] == "kitty" and full["emulation"]


def test_the_header_values_are_what_the_table_says(recorded: dict[str, Path]) -> None:
    from termsim.engine.playback import terminal_for
    from termsim.recording.format import ENV_ALLOWLIST

    rows = {row[0]: row[1] for row in _header_rows()}
    full = Recording.open(recorded["full"])
    header = full.header
    assert f'always `"{header["format"]}"`' == rows["`format`"]
    assert header["version"] == [1, 1] and "version 1.1" in (DOCS / "recording-format.md") \
        .read_text().splitlines()[0]
    assert header["argv"] == ["sh", "-c", "echo hi; read x; echo bye"]
    # The environment: the allowlist and nothing else of a bigger one.
    assert sorted(header["env"]) == sorted(_allowlist_in_doc()) == sorted(ENV_ALLOWLIST)
    assert set(_spans(rows["`versions`"])) == set(header["versions"])
    assert header["platform"] == sys.platform
    assert datetime.fromisoformat(header["started"]).utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    # A replay answers as the profile the live session had.
    assert terminal_for(full).profile.name == header["profile"]


def test_the_event_table_is_the_codecs(recorded: dict[str, Path]) -> None:
    from termsim import events
    from termsim.recording.codec import KIND

    rows = _table("recording-format.md", "kind")
    table = {_spans(kind)[0]: _spans(event)[0] for kind, _, event, _ in rows}
    assert table == {kind: cls.__name__ for cls, kind in KIND.items()}
    meaning = {_spans(row[0])[0]: row[3] for row in rows}
    outcomes = set(_spans(meaning["W"].partition("`outcome`")[2]))
    assert outcomes == {*events.OUTCOMES, "error: <Exception>"}
    hows = set(_spans(meaning["e"]))
    assert hows == {*events.CLOSINGS, "error: <Exception>"}
    kinds = {event[0] for event in _records(recorded["plain"])}
    assert kinds <= set(table) and {"o", "i", "w", "W", "n", "x", "e"} <= kinds


def _records(path: Path) -> list[list[Any]]:
    data = path.read_bytes()
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data[13:])
    items = list(unpacker)
    return items[2::2]


# -- differences.md -----------------------------------------------------------------------


def _fuzz_command_lines() -> list[list[str]]:
    return [shlex.split(line, comments=True) for line in docs_fence("fuzz-commands").splitlines()]


def test_the_long_runs_printed_options_are_the_scripts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The long run's line, parsed by the script's own ``main``; the run is
    replaced (5,000 programs take long), so tmux is not needed."""
    long = _fuzz_command_lines()[0]
    assert long[:2] == ["python", "fuzz/tmux_differential.py"]
    module = _fuzz_script()
    asked: list[tuple[int, ...]] = []

    def fuzz(*args: int) -> int:
        asked.append(args)
        return 0

    monkeypatch.setattr(module, "tmux_available", lambda: True)
    monkeypatch.setattr(module, "fuzz", fuzz)
    monkeypatch.setattr(sys, "argv", long[1:])
    assert module.main() == 0
    options = dict(zip(long[2::2], long[3::2], strict=True))
    assert asked == [(int(options["--seed"]), int(options["--programs"]), 400)]


@functools.cache
def _fuzz_script() -> ModuleType:
    """``fuzz/tmux_differential.py``, loaded once a process (a script, not a
    package: by path)."""
    spec = importlib.util.spec_from_file_location("tmux_differential", FUZZ)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    assert argv[:2] == ["python", "fuzz/tmux_differential.py"]
    return subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, capture_output=True, text=True,
                          timeout=100, env=inherited_env())


@needs_tmux
def test_the_long_run_runs_short_with_its_printed_options() -> None:
    long = _fuzz_command_lines()[0]
    short = [*long]
    short[short.index("--programs") + 1] = "3"
    done = _run(short)
    assert done.returncode == 0, done.stdout + done.stderr
    seed = long[long.index("--seed") + 1]
    assert f"=== summary: seed {seed}, 3 programs," in done.stdout


@needs_tmux
def test_the_one_program_command_runs_as_printed_and_reports_what_the_page_says() -> None:
    done = _run(_fuzz_command_lines()[1])
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    # "the minimal program (as a Python bytes literal and as the command
    # above), both screens side by side (`*` marks rows that differ), the
    # cursor, ..., and the entry below that explains it"
    assert re.search(r"^minimal program \(\d+x\d+\): b'", out, re.M)
    assert re.search(r"^reproduce: python fuzz/tmux_differential\.py --size \d+x\d+ --hex ",
                     out, re.M)
    assert re.search(r"^ +\d+\* \|", out, re.M)
    assert "cursor (row, col): termsim" in out
    known = re.search(r"known difference '([\w-]+)'", out)
    assert known is not None and f"### `{known[1]}`" in (DOCS / "differences.md").read_text()


def _documented() -> dict[str, dict[str, str]]:
    """Each entry of docs/differences.md's "Documented differences": its
    reason, the xterm line and the example line."""
    text = (DOCS / "differences.md").read_text()
    section = text[text.index("## Documented differences"):text.index("## Suspected termsim")]
    entries = {}
    for chunk in section.split("\n### ")[1:]:
        name, _, body = chunk.partition("\n")
        paragraphs = [p.strip() for p in body.strip().split("\n\n")]
        reason, xterm, example = paragraphs
        entries[name.strip("`")] = {"reason": reason, "xterm": xterm, "example": example}
    return entries


def test_every_documented_difference_is_a_known_entry_with_its_words_and_command() -> None:
    from differential import KNOWN_DIFFERENCES, parse

    documented = _documented()
    assert list(documented) == [k.name for k in KNOWN_DIFFERENCES]  # both ways, in order
    for known in KNOWN_DIFFERENCES:
        entry = documented[known.name]
        assert entry["reason"] == known.reason, known.name
        assert entry["xterm"] == f"**xterm:** {known.xterm}", known.name
        assert known.example is not None
        cols, rows, data = known.example
        command = parse(cols, rows, data).command()
        assert entry["example"] == (f"**Example** ({cols}x{rows}): `{data!r}`, "
                                    f"shown by `{command}`"), known.name


def _examples() -> list[tuple[str, list[str]]]:
    found = []
    for name, entry in _documented().items():
        command = re.search(r"shown by `([^`]+)`", entry["example"])
        assert command is not None, name
        found.append((name, shlex.split(command[1])))
    return found


#: Examples whose command's report, once shrunk, names another entry (the
#: note at the top of "Documented differences" says so, and which).
SHRUNK_INTO_ANOTHER = {
    "wide-character-pushed-off-the-edge": "cursor-past-last-column",
    "ich-to-the-edge": "cursor-past-last-column",
}


def test_the_examples_shrunk_into_another_entry_are_the_ones_the_page_names() -> None:
    text = " ".join((DOCS / "differences.md").read_text().split())
    note = text[text.index("## Documented differences"):text.index("### `invalid-utf8`")]
    named = set(re.findall(r"`([a-z0-9-]+)`", note))  # entry names, not tests or files
    assert named == {*SHRUNK_INTO_ANOTHER, *SHRUNK_INTO_ANOTHER.values()}
    assert "except for two" in note and len(SHRUNK_INTO_ANOTHER) == 2


@needs_tmux
@pytest.mark.parametrize(("name", "argv"), _examples(), ids=[n for n, _ in _examples()])
def test_each_example_command_runs_as_printed_and_shows_its_difference(
    name: str, argv: list[str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The script's own main, given the printed arguments, in this process:
    # a new interpreter would spend most of its time importing (0.4 s of
    # CPU, 31 times). The command line as a whole runs in a process of its
    # own in the one-program test above.
    assert argv[:2] == ["python", "fuzz/tmux_differential.py"]
    monkeypatch.setattr(sys, "argv", argv[1:])
    status = _fuzz_script().main()
    out, err = capsys.readouterr()
    assert status == 0, out + err
    # The example's own screens first: they differ.
    assert "termsim and tmux agree" not in out
    reported = re.findall(r"^known difference '([\w-]+)'", out, re.M)
    assert reported, out
    assert SHRUNK_INTO_ANOTHER.get(name, name) in reported, out
    if name in SHRUNK_INTO_ANOTHER:
        assert name not in reported, f"{name}: the note in docs/differences.md is stale"


# -- figures ------------------------------------------------------------------------------


def test_every_script_the_docs_name_exists() -> None:
    named = set()
    for page in [*_pages()]:
        named |= set(re.findall(r"\b((?:benchmarks|fuzz)/[\w/]+\.py)\b", page.read_text()))
    assert named, "the docs name no script: the figures would say nothing of how"
    missing = {path for path in named if not (ROOT / path).is_file()}
    assert not missing, f"docs/ name scripts that do not exist: {missing}"


def test_every_figure_says_how_it_was_measured() -> None:
    """A measured figure (a time, a size in MB, a ratio) stands in a
    paragraph, or an item of a list, that names the script that measured it
    and the machine. Numbers with units that are settings of the code (a
    timeout, a grace period, a cap) are the phrases of ``_NOT_MEASURED``,
    taken out first; tables are checked above, row by row."""
    measured = re.compile(r"\b\d+(?:\.\d+)? ?(?:s|ms|min|MB|GiB)\b|\b\d+(?:\.\d+)?x\b")
    checked = 0
    for page in _pages():
        for paragraph in re.split(r"\n\s*\n|\n(?=\* )", page.read_text()):
            paragraph = " ".join(paragraph.split())
            if paragraph.startswith("|"):
                continue
            rest = paragraph
            for phrase in _NOT_MEASURED:
                rest = rest.replace(phrase, "")
            figures = measured.findall(rest)
            if not figures:
                continue
            checked += 1
            assert re.search(r"(?:benchmarks|fuzz)/\w+\.py", paragraph), (
                f"{page.name}: {figures} with no script:\n{paragraph}")
            assert re.search(r"machine", paragraph), (
                f"{page.name}: {figures} with no machine:\n{paragraph}")
    assert checked, "no figure found at all: the pattern is wrong"


#: Numbers with units that are the code's settings, not measurements (each
#: checked against the code in ``test_the_reliability_prose_is_the_codes``).
_NOT_MEASURED = (
    "(pytest-timeout, 120 s, is the backstop)",
    "with 0.5 s, 0.5 s and 2 s of grace",
    "until 64 MB are read but not yet emulated",
    "the 64 MB backlog",
    "The suite itself floods 3 MB",
)
