"""An answer the kernel already told of is placed before the next input.

The test's task may send the next input before the read watch has run:
the session then asks the kernel itself (``Session._send_input``), so the
recording says the program answered an input before the next was sent,
as it did. Once, in a loaded run, the recording of bash's Tab completion
placed the answer after the next input instead, and the generated test's
replay, waiting ``since`` the Tab, never saw it. That interleaving is not
produced on demand here; this holds the order on every run.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

import termsim
from termsim import Text
from termsim.events import Input, InputRead
from termsim.files import Recording

pytestmark = pytest.mark.anyio

#: Raw mode; each key read is answered at once with a line naming it.
KEYS = ("import os, tty; tty.setraw(0); os.write(1, b'READY\\r\\n')\n"
        "while True:\n"
        "    key = os.read(0, 1)\n"
        "    os.write(1, b'GOT ' + key + b'\\r\\n')\n"
        "    if key == b'q': break\n")


async def test_a_read_answered_before_the_next_input_is_recorded_so(tmp_path: Path) -> None:
    path = tmp_path / "keys.tsr"
    async with termsim.spawn([sys.executable, "-c", KEYS], record=path) as term:
        await term.wait_for(Text("READY"))
        for key in "abcdefghij":
            await term.press(key)
            # Not since=: this wait may end on the answer before the read
            # watch has placed it.
            await term.wait_for(Text(f"GOT {key}"))
        await term.press("q")
        assert await term.wait_exit() == 0
    events = Recording.open(path).events
    inputs = [i for i, e in enumerate(events) if isinstance(e, Input)]
    for n, (at, nxt) in enumerate(itertools.pairwise(inputs)):
        between = [e for e in events[at:nxt] if isinstance(e, InputRead)]
        assert any(e.answered for e in between), (n, events[at:nxt])
