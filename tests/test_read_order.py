"""A program that reads a key and draws several frames in one write: a
``Sequence`` since that key sees every frame, whichever task runs first.

The frames reach termsim in one read, possibly before the read watch has
placed the program's read, and possibly before the test has started its
wait. The kernel's events say the write came after the read, so the read
is placed before that output, and the screens drawn after an input are
kept until the next wait starts, so a wait that starts late still sees
them in order.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from conftest import program

import termsim
from termsim import InputReady, Sequence, Text
from termsim.live.readprobe import ReadProbe

pytestmark = pytest.mark.anyio

STATES = Sequence(Text("state: queued"), Text("state: running"), Text("state: finished"))


async def _session(record: Path | None = None) -> termsim.Session:
    return termsim.spawn(program("three_frames.py"), rows=6, record=record or False)


@pytest.mark.parametrize("run", range(25))
async def test_the_wait_right_after_the_key_sees_every_frame(run: int, tmp_path: Path) -> None:
    # 25 runs on each backend; each replayed too.
    path = tmp_path / "three.tsr"
    async with await _session(path) as term:
        await term.wait_for(Text("state: ready") & InputReady(), timeout=8)
        mark = await term.press("x")
        await term.wait_for(STATES, since=mark, timeout=8)
    async with termsim.replay(path) as replayed:
        await replayed.wait_for(Text("state: ready") & InputReady(), timeout=8)
        mark = await replayed.press("x")
        await replayed.wait_for(STATES, since=mark, timeout=8)


@pytest.mark.parametrize("run", range(5))
async def test_a_wait_that_starts_after_the_frames_arrived_sees_them(run: int) -> None:
    # The other order, forced: the test lets the program draw all three
    # frames (their output read and applied, no wait pending) before it
    # starts the wait.
    async with await _session() as term:
        await term.wait_for(Text("state: ready") & InputReady(), timeout=8)
        drawn = anyio.Event()

        def on_event(event: termsim.events.Event) -> None:
            if isinstance(event, termsim.events.Output) and b"finished" in event.data:
                drawn.set()

        term.listeners.append(on_event)
        mark = await term.press("x")
        with anyio.fail_after(20):
            # The reader sets it, then applies the read in the same pass,
            # before this task runs again.
            await drawn.wait()
        assert "state: finished" in term.screen.text
        await term.wait_for(STATES, since=mark, timeout=8)


async def _pairs(term: termsim.Session, look: Callable[[], None] = lambda: None) -> None:
    await term.wait_for(Text("ready") & InputReady(), timeout=8)
    for n in range(2, 201, 2):
        await term.type("a")
        mark = await term.press("b")
        look()
        await term.wait_for(Text(f"got b {n}") & InputReady(), since=mark, timeout=8)
    await term.press("ctrl+d")
    assert await term.wait_exit() == 0


async def test_an_answer_that_asks_a_query_counts_though_the_reply_is_read_after_it() -> None:
    """Two keys back to back; the program answers the second with a query
    and reads termsim's reply, then is silent. When the first key's answer
    made termsim look while the second was still queued, and the program
    read it and answered just after, that look could not place the read;
    looked at again only after the answer was fed, the reply was written and
    read, and that read, after the answer, was taken for the key's: the key
    stayed unanswered, and the wait saw the answer but never counted it (vim
    under load, a codegen test, timed out). A hundred pairs, one session:
    the race is a narrow one."""
    async with termsim.spawn(program("query_answer.py"), rows=4) as term:
        await _pairs(term)


def _until_read_and_answered(probe: ReadProbe, within: float) -> None:
    """Block until the program's next read and a write after it are in
    the kernel's events (kept by ``peek`` for the next look)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        kept = [what for _, what in probe._kept]  # (what peek took, not yet told)
        if "read" in kept and "write" in kept[kept.index("read"):]:
            return
        select.select([probe.events_fd], [], [], deadline - time.monotonic())
        probe.peek()


async def test_the_same_with_the_read_and_answer_forced_between_a_look_and_its_drain(
        tmp_path: Path) -> None:
    """The interleaving the test above meets now and then, made every time.
    The program waits on a FIFO once it has answered 'a'. A look made once
    'b' is queued too lets it go, after that look's events and before its
    drain: it reads 'b' and answers with its query. The drain takes that
    answer and feeds it, and the reply goes out, read by the program in
    silence. Without the look before a reply, the first pair failed here."""
    fifo = tmp_path / "hold"
    os.mkfifo(fifo)
    release = os.open(fifo, os.O_RDWR)  # (opens at once, and so does the program's end)
    try:
        async with termsim.spawn(program("query_answer.py", "hold", str(fifo)),
                                 rows=4) as term:
            pty = term._pty
            probe = pty.probe
            assert probe is not None and probe.events_fd is not None
            events = probe.events
            sent = released = 0  # pairs whose 'b' was sent, and whose program was let go

            def then_the_program_acts() -> list[str] | None:
                nonlocal released
                found = events()
                if released < sent and probe.queued()[0] == 1:  # 'a' read, 'b' queued
                    released = sent
                    os.write(release, b".")
                    _until_read_and_answered(probe, within=5.0)
                return found

            def b_sent() -> None:
                nonlocal sent
                sent += 1
                pty.probe_reads()  # the program may be waiting already: no event comes

            probe.events = then_the_program_acts  # type: ignore[method-assign]
            await _pairs(term, look=b_sent)
        assert released == 100  # each pair
    finally:
        os.close(release)
