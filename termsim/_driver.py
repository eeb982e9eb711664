"""The API a test drives, shared by live sessions and replays.

Waiting, typing, pressing and sending read the same in both: only how input
reaches the program (a PTY write, or a check against the recorded input) and
where time comes from differ, and those are the subclass's ``_send_input`` and
the engine's source.
"""

from __future__ import annotations

from ._engine import Engine, Mark
from ._keys import key_bytes
from ._predicates import PredicateLike
from ._snapshot import Snapshot
from ._terminal import Terminal


class Driver:
    """What ``spawn()`` and ``replay()`` give a test."""

    terminal: Terminal
    engine: Engine

    async def _send_input(self, data: bytes, label: str, *, keys: bool) -> Mark:
        raise NotImplementedError

    def note(self, label: str) -> None:
        """Put a labelled marker in the recording (a no-op without one)."""

    # -- waiting --------------------------------------------------------------------------

    @property
    def screen(self) -> Snapshot:
        """The screen now."""
        return self.engine.snapshot()

    async def wait_for(
        self, predicate: PredicateLike, *, timeout: float, since: Mark | None = None,
    ) -> Snapshot:
        """Wait until the screen matches; return the snapshot that matched.

        ``since=mark`` counts only screens drawn from output read after the
        input that returned ``mark`` was written. Raises :class:`WaitTimeout`
        (showing the screen), or :class:`ProcessExited` at once if the program
        exits first.
        """
        return await self.engine.wait_for(predicate, timeout=timeout, since=since)

    async def wait_exit(self, timeout: float) -> int | None:
        """Wait for the program to exit; its status, negative for a signal."""
        return await self.engine.wait_exit(timeout=timeout)

    @property
    def exit_status(self) -> int | None:
        return self.engine.exit_status

    # -- input ------------------------------------------------------------------------------

    async def type(self, text: str) -> Mark:
        """Type text. Multi-line text goes as one bracketed paste when the
        program enabled it (mode 2004); otherwise each newline is an Enter."""
        if self.terminal.modes.bracketed_paste and "\n" in text:
            data = b"\x1b[200~" + text.encode() + b"\x1b[201~"
        else:
            data = text.replace("\r\n", "\n").replace("\n", "\r").encode()
        return await self._send_input(data, f"typed {_short(text)}", keys=True)

    async def press(self, *keys: str) -> Mark:
        """Press keys by name (``"enter"``, ``"ctrl+d"``, ``"down"``...), each in
        one write. After Escape the next key waits ``escape_delay`` so the
        program reads two keys, not Alt+key (prompt_toolkit waits 0.5 s)."""
        if not keys:
            raise ValueError("press() needs at least one key")
        cursor_mode = self.terminal.modes.application_cursor
        encoded = [key_bytes(k, application_cursor=cursor_mode) for k in keys]
        mark: Mark | None = None
        for name, data in zip(keys, encoded, strict=True):
            mark = await self._send_input(data, f"key {name}", keys=True)
        assert mark is not None
        return mark

    async def send(self, data: bytes) -> Mark:
        """Send raw bytes, exactly as given."""
        return await self._send_input(bytes(data), f"bytes {_short(data)}", keys=False)



def _short(value: str | bytes, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"
