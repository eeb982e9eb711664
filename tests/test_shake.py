"""Shake: variants of a recording that could have happened, and the tests they catch."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import termsim
from termsim.events import Event, Input, InputRead, Output, WaitEnded, WaitStarted
from termsim.files import Recording
from termsim.offline.perturb import (
    Delay,
    Merge,
    Perturbation,
    Split,
    Stretch,
    output_offsets,
    parse,
    random_variant,
)

ROOT = Path(__file__).resolve().parent.parent
RECORDINGS = sorted((ROOT / "recordings").glob("*.tsr"))


def stream(events: list[Event]) -> bytes:
    return b"".join(e.data for e in events if isinstance(e, Output))


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_every_variant_keeps_the_bytes_their_order_and_causality(path: Path) -> None:
    events = Recording.open(path).events
    for seed in range(40):
        variant = random_variant(events, random.Random(seed))
        shaken = variant.apply(events)
        assert stream(shaken) == stream(events)  # the same bytes, in the same order
        times = [e.t for e in shaken]
        assert times == sorted(times)
        # Everything but output keeps its order, and no output crosses an
        # input-read event or a wait's end: causality and what the test saw.
        others = [e for e in events if not isinstance(e, Output)]
        assert [type(e) for e in shaken if not isinstance(e, Output)] == \
            [type(e) for e in others]
        for kind in (InputRead, WaitEnded):
            before = [len(stream(events[:i])) for i, e in enumerate(events) if isinstance(e, kind)]
            after = [len(stream(shaken[:i])) for i, e in enumerate(shaken) if isinstance(e, kind)]
            assert before == after, (seed, kind)
        assert parse(str(variant)) == variant


def synthetic() -> list[Event]:
    return [
        Output(0.0, b"> "),
        WaitStarted(0.01, 1, "prompt", None, 1.0), WaitEnded(0.02, 1, "matched"),
        Input(0.03, b"hello", "typed 'hello'"),
        Output(0.04, b"hello"),  # the echo, not waited for
        Input(0.05, b"\r", "key enter", tracked=True),
        InputRead(0.06, 2),
        Output(0.5, b"\r\nanswer\r\n> "),
    ]


def test_split_merge_delay_and_stretch_do_what_they_say() -> None:
    events = synthetic()
    split = Perturbation((Split(6),)).apply(events)  # "> " + "hell" | "o"
    assert [e.data for e in split if isinstance(e, Output)][1:3] == [b"hell", b"o"]
    delayed = Perturbation((Delay(5),)).apply(events)
    assert [type(e).__name__ for e in delayed[3:7]] == ["Input", "Input", "Output", "InputRead"]
    assert delayed[5] == Output(0.05, b"hello")  # arrives after Enter, before the read
    # A delay never moves output the test waited for.
    assert Perturbation((Delay(3, 3),)).apply(events) == events
    stretched = Perturbation((Stretch(7, 2.0),)).apply(events)
    assert stretched[7].t == pytest.approx(0.06 + 2 * 0.44)
    merged = Perturbation((Merge(0),)).apply([Output(0.0, b"a"), Output(0.1, b"b")])
    assert merged == [Output(0.1, b"ab")]


def test_variants_are_described_in_words() -> None:
    events = [Output(0.0, b"step 1 of 2\r\nstep 2 of 2: done\r\n"), Output(1.0, b"\x1b[?25lx")]
    words = Perturbation((Split(13), Split(33))).describe(events)
    assert words[0] == "output split at byte 13, between 'step 1 of 2' and 'step 2 of 2: done x'"
    assert words[1] == ("output split at byte 33, inside ESC[?25l, between "
                        "'…1 of 2 step 2 of 2: done' and 'x'")
    assert "written before the program read key enter, arrives after key enter was sent" \
        in Perturbation((Delay(5),)).describe(synthetic())[0]


@given(st.lists(st.binary(min_size=1, max_size=20), min_size=1, max_size=8), st.integers())
@settings(max_examples=examples(200), deadline=None)
def test_any_variant_of_any_output_keeps_the_bytes(chunks: list[bytes], seed: int) -> None:
    events: list[Event] = [Output(i * 0.05, c) for i, c in enumerate(chunks)]
    shaken = random_variant(events, random.Random(seed)).apply(events)
    assert stream(shaken) == stream(events)


def test_a_bad_variant_text_says_what_it_takes() -> None:
    with pytest.raises(ValueError, match=r"split N; merge N; delay NxK; stretch N\*F"):
        parse("shuffle 3")


@pytest.mark.anyio
async def test_replay_with_a_seed_or_a_text_plays_that_variant() -> None:
    path = ROOT / "recordings" / "passing.tsr"
    events = Recording.open(path).events
    offsets = output_offsets(events)
    at = offsets[-1] // 2
    async with termsim.replay(path, perturb=f"split {at}") as term:
        assert term.perturbation == Perturbation((Split(at),))
    async with termsim.replay(path, perturb=7) as term:
        assert term.perturbation == random_variant(events, random.Random(7))


STEPS = '''
import sys
import pytest
import termsim
from termsim import Text

# Each run of the program leaves a line in ./runs (pytester's directory).
PROGRAM = ("import sys, time; open('runs', 'a').write('run\\\\n');"
           "sys.stdout.write('step 1 of 2\\\\r\\\\nstep 2 of 2: done\\\\r\\\\n');"
           "sys.stdout.flush(); time.sleep(60)")  # sync-ok: a program that idles

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_done_is_there_once_step_one_is():
    async with termsim.spawn([sys.executable, "-c", PROGRAM]) as term:
        screen = await term.wait_for(Text("step 1 of 2"))
        assert "done" in screen.text  # racy: one write, but not always one read
'''


def test_shake_finds_a_race_that_passes_live_and_names_the_split(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_steps=STEPS)
    runs = pytester.path / "runs"
    for _ in range(5):  # one write() arrives in one read: the test passes live
        assert pytester.runpytest("-p", "no:cacheprovider").ret == 0
    assert runs.read_text().count("run") == 5
    result = pytester.runpytest("-p", "no:cacheprovider", "--termsim-shake=50")
    assert result.ret == 1
    # One live run; the 50 variants (and the shrinking) replay its recording,
    # on the replay's virtual clock: the program never runs again.
    assert runs.read_text().count("run") == 6
    text = result.stdout.str()
    assert "passed live, but fails on variant" in text
    # Shrunk to one split, anywhere between the end of "step 1 of 2" and the
    # end of "done", described with the text on each side.
    split = re.search(r"- output split at byte (\d+), between '([^']*)' and '([^']*)'", text)
    assert split is not None, text
    assert 11 <= int(split[1]) < 32 and "1 of 2" in split[2]
    assert "assert 'done' in" in text
    line = re.search(r"or run the test on it: .* --termsim-shake-variant='([^']*)'", text)
    assert line is not None
    variant = line[1]
    assert variant == f"split {split[1]}"
    # The line it prints replays that variant, and fails the same way.
    again = pytester.runpytest("-p", "no:cacheprovider", f"--termsim-shake-variant={variant}")
    assert again.ret == 1 and f"output split at byte {split[1]}" in again.stdout.str()


def test_shake_does_not_fail_a_correct_test(pytester: pytest.Pytester) -> None:
    correct = STEPS.replace('Text("step 1 of 2")', 'Text("step 1 of 2") & Text("done")')
    pytester.makepyfile(test_steps=correct)
    result = pytester.runpytest("-p", "no:cacheprovider", "--termsim-shake=50")
    assert result.ret == 0
    assert "1 passing tests ran 50 variants" in result.stdout.str()


def test_the_example_tests_survive_shaking(pytester: pytest.Pytester) -> None:
    """No false alarms on a correct test of a real prompt_toolkit app (the
    full 200 variants are run by benchmarks/stress_readme.py --shake)."""
    source = (ROOT / "examples" / "test_agent_repl.py").read_text().replace(
        'Path(__file__).with_name("agent_repl.py")',
        f'Path({str(ROOT / "examples" / "agent_repl.py")!r})')
    pytester.makepyfile(test_agent=source)
    variants = examples(20)  # 20 with the "full" Hypothesis profile, 10 with "ci"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--termsim-shake={variants}",
                                "-k", "two_turns")
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert f"2 passing tests ran {2 * variants} variants" in result.stdout.str()


def test_spawn_fails_under_shake_as_it_failed_live(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_missing='''
import pytest, termsim

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_missing():
    with pytest.raises(termsim.TermsimError, match="no-such-program"):
        async with termsim.spawn(["no-such-program"]):
            pass
''')
    result = pytester.runpytest("-p", "no:cacheprovider", "--termsim-shake=5")
    assert result.ret == 0, result.stdout.str()
