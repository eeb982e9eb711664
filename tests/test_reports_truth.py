"""Reports that tell the truth: what a failed wait, a replay and a diff say
is what happened, in the order it happened, with everything they leave out
counted.

* The film strip is in time order (a title change at its own time, never
  after a later screen) and counts the screens and signals it leaves out,
  with an input before the wait or not (``tests/programs/truth_frames.py``).
* A replay of a recording cut short says so, in ``term.warnings`` and in
  every failed wait's error.
* ``termsim diff`` shows the bytes of a difference that is below the text
  (``tests/programs/truth_styled.py``).
* A wait's error lists neither modes termsim ignores on purpose as "not
  understood", nor, as "still unanswered", a query this terminal has no
  answer for or one the program moved past (``tests/programs/truth_probe.py``).
* The trace page fits a 1280-pixel window for a 120 x 40 session.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import CHROMIUM, program, trace_bench

import termsim
from termsim import Text, WaitTimeout
from termsim.engine.failures import owed
from termsim.events import Event, Input, Output, WaitStarted
from termsim.files import Recording
from termsim.offline.diff import diff
from termsim.report.html import recording_html

pytestmark = pytest.mark.anyio

STALL = 2.0
#: What the wait that fails waits for (its start starts a paced ``auto`` run).
NEVER = Text("never")


# -- the film strip ----------------------------------------------------------------------


def timeline(film: str) -> list[float]:
    """The times of the strip's lines, in the order it prints them."""
    return [float(t) for t in re.findall(r"^\s+([+-]\d+\.\d{3}) s  ", film, re.M)]


def left_out(film: str) -> int:
    """How many screens the strip says it leaves out."""
    return sum(int(n) for n in re.findall(r"… (\d+) earlier screens? not shown", film))


def signals_said(film: str) -> tuple[list[str], int]:
    """The signal lines of the strip, and how many more it says it left out."""
    lines = re.findall(r"^\s+[+-]\d+\.\d{3} s  ((?:title|bell).*)$", film, re.M)
    more = sum(int(n) for n in re.findall(r"… (\d+) more signals", film))
    return lines, more


class Pacer:
    """Paces ``truth_frames.py ... ack=FIFO`` from the session's events.

    Left to its own pace, the program's frames merge into however many reads
    a loaded machine makes of them (36 screens of 100, once), and an ``auto``
    run may be half drawn before the wait begins: the strip's counts would
    say how busy the machine was. Paced, the program draws a frame only once
    the session has read the one before (each is acknowledged as it is
    read), and an ``auto`` run starts when the wait on :data:`NEVER` begins,
    so each frame is a screen of its own, every one during the wait, and a
    test can assert the counts exactly.
    """

    def __init__(self, fifo: Path) -> None:
        os.mkfifo(fifo)
        self.fifo = fifo
        # Read and write: the open does not wait for the program, and the
        # program's open finds a writer at once.
        self.fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        self._tail = b""  # the end of the last read: a frame may span two

    def heard(self, event: Event) -> None:
        """A session listener: tell the program what it has been read to."""
        if isinstance(event, WaitStarted) and event.predicate == NEVER.describe():
            self._say(0)
        elif isinstance(event, Output):
            joined = self._tail + event.data
            self._tail = joined[-16:]
            numbers = re.findall(rb"frame (\d{3}) ", joined)
            if numbers:
                self._say(int(numbers[-1]))

    def _say(self, k: int) -> None:
        os.write(self.fd, b"%d\n" % k)


@asynccontextmanager
async def paced_frames(tmp_path: Path, *args: str, record: Path) -> AsyncIterator[termsim.Driver]:
    """``truth_frames.py *args`` recorded to ``record``, paced by a
    :class:`Pacer` (not with ``fill``: the pacer acknowledges a frame by its
    number, which comes before a filled row's end)."""
    pacer = Pacer(tmp_path / "acks")
    try:
        async with termsim.spawn(program("truth_frames.py", *args, f"ack={pacer.fifo}"),
                                 record=record) as term:
            term.listeners.append(pacer.heard)
            yield term
    finally:
        os.close(pacer.fd)


async def frames_then_fail(term: termsim.Driver, *, auto: bool) -> WaitTimeout:
    """``truth_frames.py``'s run, then a wait that fails once it is idle: after
    the ``g`` that started it, or (``auto``) with no input at all."""
    await term.wait_for(Text("ready> "), timeout=10)
    mark = None if auto else await term.press("g")
    with pytest.raises(WaitTimeout) as failure:
        await term.wait_for(NEVER, since=mark, timeout=30, stall=STALL)
    return failure.value


def outputs_of(path: Path, start: float, end: float) -> list[Output]:
    """The output a wait from ``start`` to ``end`` drew, from the strip's
    start on (the last input before the wait, or the wait's start)."""
    recording = Recording.open(path)
    inputs = [e.t for e in recording.of_type(Input) if e.t < start]
    begin = inputs[-1] if inputs else start
    return [e for e in recording.of_type(Output) if begin < e.t <= end]


def recorded_span(path: Path) -> list[Output]:
    """The output the live session's failed wait drew (its times as recorded)."""
    wait = Recording.open(path).waits()[-1]
    assert wait.outcome != "matched" and wait.end is not None
    return outputs_of(path, wait.start, wait.end)


async def replayed_fail(path: Path, *, auto: bool) -> tuple[WaitTimeout, list[Output]]:
    """The same run replayed (on its virtual clock, where the wait begins
    and ends at known times), and the output drawn during its wait."""
    async with termsim.replay(path) as term:
        await term.wait_for(Text("ready> "), timeout=10)
        mark = None if auto else await term.press("g")
        start = term.now()
        with pytest.raises(WaitTimeout) as failure:
            await term.wait_for(NEVER, since=mark, timeout=30, stall=STALL)
        return failure.value, outputs_of(path, start, term.now())


def titles_in(outputs: list[Output]) -> list[str]:
    # Over the bytes joined: a read may end inside a title.
    joined = b"".join(e.data for e in outputs)
    return [f"title '{m.decode()}'" for m in re.findall(rb"\x1b]2;([^\x07]*)\x07", joined)]


async def test_after_an_input_the_strip_is_in_time_order_and_counts_every_screen(
        tmp_path: Path) -> None:
    path = tmp_path / "frames.tsr"
    async with paced_frames(tmp_path, "100", record=path) as term:
        live = await frames_then_fail(term, auto=False)
        await term.press("q")
    replayed, outputs = await replayed_fail(path, auto=False)
    assert len(outputs) == 101  # paced: each frame a read, and idle> one more
    for failure in live, replayed:
        film = failure.film
        assert timeline(film) == sorted(timeline(film)), film
        # The titles set while the screens left out were drawn come before the
        # next screen shown, at their own times.
        for title in ("title 'step 20'", "title 'step 40'", "title 'step 60'"):
            assert film.index(title) < film.index("earlier screens not shown"), film
        assert "bell" in film and "at least" not in film
        # Every screen after the input is shown or counted: one per read.
        assert film.count(" screen (") + left_out(film) == len(outputs), film


async def test_with_no_input_before_the_wait_the_strip_counts_what_it_leaves_out(
        tmp_path: Path) -> None:
    path = tmp_path / "auto.tsr"
    async with paced_frames(tmp_path, "100", "auto", record=path) as term:
        live = await frames_then_fail(term, auto=True)
        await term.press("q")
    # Paced, the whole run is drawn during the wait, a read a frame (and
    # idle> one more): what the strip counts is what the recording holds.
    during = recorded_span(path)
    assert len(during) == 101
    titles = titles_in(during)
    assert titles == [f"title 'step {k}'" for k in range(20, 101, 20)]
    replayed, outputs = await replayed_fail(path, auto=True)
    assert len(outputs) == len(during)
    for failure in live, replayed:
        film = failure.film
        assert timeline(film) == sorted(timeline(film)), film
        # Every screen since the wait began is shown or counted, and most are counted.
        assert film.count(" screen (") + left_out(film) == len(during), film
        assert left_out(film) > 50, film
        for title in titles:
            assert title in film, film


async def test_signals_between_shown_screens_come_at_their_own_times(tmp_path: Path) -> None:
    # Three frames, every one shown: the bell with the second, a title with
    # the third (paced, so that each is a read of its own).
    path = tmp_path / "few.tsr"
    async with paced_frames(tmp_path, "3", "bell=2", "every=3", record=path) as term:
        live = await frames_then_fail(term, auto=False)
        await term.press("q")
    replayed, _ = await replayed_fail(path, auto=False)
    for failure in live, replayed:
        film = failure.film
        assert timeline(film) == sorted(timeline(film)), film
        assert "not shown" not in film
        order = [film.index(s) for s in ("sent key g", "│frame 001", "  bell", "│frame 003",
                                         "title 'step 3'", "│idle>")]
        assert order == sorted(order), film


async def test_many_screens_and_signals_left_out_are_each_counted(tmp_path: Path) -> None:
    # 300 frames, 15 titles and a bell during a wait with no input before it:
    # more signals than the strip shows before one screen.
    path = tmp_path / "many.tsr"
    async with paced_frames(tmp_path, "300", "auto", record=path) as term:
        live = await frames_then_fail(term, auto=True)
        await term.press("q")
    replayed, outputs = await replayed_fail(path, auto=True)
    assert len(outputs) == 301  # paced: each frame a read, all of them during the wait
    for failure, during in (live, recorded_span(path)), (replayed, outputs):
        titles = titles_in(during)
        # Every BEL but those that end a title.
        bells = sum(e.data.count(b"\x07") for e in during) - len(titles)
        assert (len(titles), bells) == (15, 1)
        said = titles + ["bell"] * bells
        film = failure.film
        assert timeline(film) == sorted(timeline(film)), film
        lines, more = signals_said(film)
        assert more > 0, film
        # Exact, live too: paced, no frame is drawn before the wait begins.
        assert len(lines) + more == len(said), film
        assert film.count(" screen (") + left_out(film) == len(during), film


# -- a recording cut short ------------------------------------------------------------------


def cut_short(path: Path, into: Path) -> Recording:
    """``path`` cut in the middle of a record of its last output (a crash)."""
    recording = Recording.open(path)
    last = max(i for i, e in enumerate(recording.events) if isinstance(e, Output))
    data = path.read_bytes()
    into.write_bytes(data[:recording.offsets[last] + 3])
    cut = Recording.open(into)
    assert not cut.complete
    return cut


async def test_a_replay_of_a_truncated_recording_says_so_in_its_warnings(tmp_path: Path) -> None:
    path = tmp_path / "whole.tsr"
    async with termsim.spawn(program("truth_frames.py", "40"), record=path) as term:
        await frames_then_fail(term, auto=False)
        await term.press("q")
    cut = cut_short(path, tmp_path / "cut.tsr")
    async with termsim.replay(tmp_path / "cut.tsr") as term:
        assert len(term.warnings) == 1
        warning = term.warnings[0]
        assert "incomplete" in warning and f"byte {cut.stopped_at} of {cut.size}" in warning
    async with termsim.replay(path) as term:
        assert term.warnings == []


async def test_every_failed_wait_on_a_truncated_recording_says_it_is_incomplete(
        tmp_path: Path) -> None:
    path = tmp_path / "whole.tsr"
    async with termsim.spawn(program("truth_frames.py", "40"), record=path) as term:
        await frames_then_fail(term, auto=False)
        await term.press("q")
    cut_short(path, tmp_path / "cut.tsr")
    async with termsim.replay(tmp_path / "cut.tsr") as term:
        await term.wait_for(Text("ready> "), timeout=10)
        mark = await term.press("g")
        with pytest.raises(WaitTimeout) as early:  # a timeout inside the recording
            await term.wait_for(Text("never"), since=mark, timeout=0.01)
        with pytest.raises(WaitTimeout) as late:  # one past its end
            await term.wait_for(Text("never"), since=mark, timeout=300)
        for failure in early.value, late.value:
            assert "warning: the recording is incomplete" in str(failure), failure
            assert failure.caveats == term.warnings


# -- diff --------------------------------------------------------------------------------------


async def styled_run(path: Path, **env: str) -> Path:
    environ = {**os.environ, **env}
    async with termsim.spawn(program("truth_styled.py"), env=environ, record=path) as term:
        await term.wait_for(Text("working on: "), timeout=10)
        await term.press("q")
        assert await term.wait_exit(timeout=10) == 0
    return path


@pytest.mark.parametrize(("env", "a_has", "b_has"), [
    ({"TRUTH_STYLE": "1"}, "ESC[2m· working on: hello", "ESC[1m· working on: hello"),
    ({"TRUTH_COLUMN": "3"}, "ESC[1GESC[2m", "ESC[3GESC[2m"),
])
async def test_diff_shows_the_bytes_of_a_difference_below_the_text(
        tmp_path: Path, env: dict[str, str], a_has: str, b_has: str) -> None:
    a = await styled_run(tmp_path / "a.tsr")
    b = await styled_run(tmp_path / "b.tsr", **env)
    output = diff(a, b).output
    assert output is not None
    said = re.search(r"A goes on '(.*)', B goes on '(.*)'$", output)
    assert said is None or said[1] != said[2], output  # never the same text twice
    assert "the same text '· working on: hello', in other bytes" in output
    assert f"A has '{a_has}" in output and f"B has '{b_has}" in output, output
    assert output in diff(a, b).text()


async def test_diff_of_different_text_still_names_the_text(tmp_path: Path) -> None:
    a = await styled_run(tmp_path / "a.tsr")
    b = await styled_run(tmp_path / "b.tsr", TRUTH_WORD="there")
    output = diff(a, b).output
    assert output is not None and output.endswith("A goes on 'hello', B goes on 'there'"), output


# -- what a wait's error lists -------------------------------------------------------------


async def probe_then_fail(term: termsim.Driver) -> WaitTimeout:
    await term.wait_for(Text("ready> "), timeout=10)
    with pytest.raises(WaitTimeout) as failure:
        await term.wait_for(Text("never"), timeout=0.5)
    await term.press("q")
    return failure.value


async def test_a_probe_the_terminal_cannot_answer_and_ignored_modes_are_not_listed() -> None:
    # Codex and Gemini CLI ask ESC[?u and DA1 in one write, and take DA1's
    # answer for "no kitty keyboard"; xterm ignores mode 2031, so does the profile.
    async with termsim.spawn(program("truth_probe.py", "kitty", "2031", "9999")) as term:
        failure = await probe_then_fail(term)
        assert [q.status for q in term.queries] == ["unsupported", "answered"]
        assert "CSI ?2031h" in term.unknown  # counted, as termsim info shows it
    message = str(failure)
    assert "queries still unanswered" not in message and "ESC[?u" not in message, message
    assert failure.unanswered == []
    # A mode termsim really does not know is still named.
    assert "sequences termsim did not understand: CSI ?9999h x1" in message, message
    assert failure.unknown == {"CSI ?9999h": 1}


async def test_an_ignored_query_is_owed_until_the_program_moves_past_it() -> None:
    # The policy withholds the CPR; DA1 after it is answered, and the program draws.
    async with termsim.spawn(program("truth_probe.py", "cpr"), cpr="ignore") as term:
        await probe_then_fail(term)
        assert [q.status for q in term.queries] == ["ignored", "answered"]
        assert owed(term.queries) == []
    # Asked alone, nothing answered after it: the program may still wait for it.
    async with termsim.spawn(program("truth_probe.py", "cpr", "alone"), cpr="ignore") as term:
        failure = await probe_then_fail(term)
        assert [q.describe() for q in owed(term.queries)] == [
            "ESC[6n (cursor position report) at output byte 0: ignored"]
    assert "queries still unanswered:\n    ESC[6n (cursor position report)" in str(failure)


async def test_a_query_the_program_moved_past_is_not_in_the_error() -> None:
    async with termsim.spawn(program("truth_probe.py", "cpr"), cpr="ignore") as term:
        failure = await probe_then_fail(term)
    assert "queries still unanswered" not in str(failure), failure


# -- the trace page's width -------------------------------------------------------------------

bench = trace_bench()



@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_trace_page_of_a_120x40_session_fits_1280_pixels(
        tmp_path: Path, browser: Any) -> None:
    path = tmp_path / "wide.tsr"
    async with termsim.spawn(program("truth_frames.py", "130", "fill"), cols=120, rows=40,
                             record=path) as term:
        await frames_then_fail(term, auto=False)  # the page opens on this failed wait
        await term.press("q")
    page = tmp_path / "wide.html"
    page.write_text(recording_html(Recording.open(path)), encoding="utf-8")
    browser.page("Emulation.setDeviceMetricsOverride", width=1280, height=900,
                 deviceScaleFactor=1, mobile=False)
    bench.load(browser, page.as_uri())
    sizes = browser.js("""(function () {
      var root = document.documentElement;
      return [root.scrollWidth, root.clientWidth].concat(
        ['screen-before', 'screen-after'].map(function (id) {
          var term = document.getElementById(id);
          var widest = Math.max.apply(null, term.textContent.split('\\n').map(
            function (row) { return row.length; }));
          return [term.scrollWidth, term.clientWidth, widest];
        }));
    })()""")
    width, window, before, after = sizes
    assert window <= 1280 and width <= window, sizes  # no scrolling sideways
    # Each screen is as wide as its 120 columns and shows them all (nothing
    # hidden in a scroller): the last frame fills its row.
    assert after[2] == 120 and before[1] == after[1], sizes
    assert before[0] <= before[1] and after[0] <= after[1], sizes
