"""The terminal's running log of what a program says outside the cells.

Why a module of its own: ``signals.py`` holds the values (a bell, a title,
a mark...) that snapshots carry and tests read; this is how they are
gathered, as the dispatcher meets their sequences, with the bounds that
keep a flood cheap: each kind a ring of its last ``KEPT`` values, the
snapshot's value made only when one is asked for, chunked notifications
capped in number and length.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import deque
from dataclasses import replace
from itertools import islice
from typing import Any
from urllib.parse import unquote, urlsplit

from ..parsing.tokenizer import MAX_STRING
from .signals import (
    EMPTY,
    KEPT,
    MARK_KINDS,
    BellRung,
    ClipboardWrite,
    Command,
    DirectoryChange,
    ImageSent,
    NotificationSent,
    OutputReader,
    ShellMark,
    Signal,
    Signals,
    TitleChange,
)

#: Kitty notifications (OSC 99 ``d=0``) waiting for their last chunk, by id,
#: at most: a program may open ids without end (the oldest goes).
MAX_PENDING_NOTES = 16
#: Characters a notification's title or body gathers from its chunks, at
#: most: one string's worth, however many chunks.
MAX_NOTE = MAX_STRING
#: An exit status as OSC 133 D gives it.
_STATUS = re.compile(r"-?\d{1,9}")
#: The kinds a ``SignalLog`` keeps a ring of (bells apart).
_KINDS = ("titles", "directories", "clipboard", "notifications", "marks", "graphics",
          "commands")


class SignalLog:
    """The terminal's running log (mutable); :attr:`signals` is what a
    snapshot holds, made again only after something new was said.

    Each kind is a ring of its last :data:`KEPT` values, so a signal costs
    the same however many came before (a flood of bells, of marks); the
    tuples a snapshot shows are made when one is asked for, and only for
    the kinds that changed. A bell is kept as its three numbers until then:
    ten million of them cost ten million appends, not ten million objects.
    """

    __slots__ = (
        "_bell_count",
        "_bells",
        "_command_line",
        "_commands",
        "_cwd",
        "_frozen",
        "_icon_title",
        "_kept",
        "_kitty",
        "_kitty_notes",
        "_made",
        "_marks",
        "_new_bells",
        "clock",
        "count",
        "generation",
    )

    def __init__(self) -> None:
        #: Bumped by every signal: part of the terminal's state, so a signal
        #: alone (a bell) makes a new screen generation that waits look at.
        self.count = 0
        #: The session's clock, as whoever feeds the terminal last gave it.
        self.clock: float | None = None
        #: The generation the screen will have once the output being fed is in.
        self.generation = 0
        self._kept: dict[str, deque[Any]] = {kind: deque(maxlen=KEPT) for kind in _KINDS}
        # Two of those rings, at hand: every shell mark adds to them.
        self._marks: deque[ShellMark] = self._kept["marks"]
        self._commands: deque[Command] = self._kept["commands"]
        # Bells not made into ``BellRung`` values yet: (at, t, generation).
        self._bells: deque[tuple[int, float | None, int]] = deque(maxlen=KEPT)
        self._new_bells = 0
        self._bell_count = 0
        self._icon_title = ""
        self._cwd: str | None = None
        # The tuples the last ``signals`` showed, by kind (a changed kind is
        # missing), and that value itself (None: something changed since).
        self._made: dict[str, tuple[Any, ...]] = {}
        self._frozen: Signals | None = EMPTY
        # The kitty image being received in chunks: its first chunk's
        # signal, and the bytes so far.
        self._kitty: ImageSent | None = None
        # Kitty notifications being received in chunks (``d=0``), by id.
        self._kitty_notes: dict[str, NotificationSent] = {}
        # The command line OSC 633 E gave, for the next command.
        self._command_line: str | None = None

    @property
    def signals(self) -> Signals:
        """Everything said so far, as an immutable value (made once per
        change, however many signals came in between)."""
        frozen = self._frozen
        if frozen is None:
            made = self._made
            if self._new_bells:
                fresh = list(map(_bell, islice(reversed(self._bells),
                                              min(self._new_bells, KEPT))))
                made["bells"] = (*made.get("bells", ()), *reversed(fresh))[-KEPT:]
                self._new_bells = 0
            for kind, kept in self._kept.items():
                if kind not in made:
                    made[kind] = tuple(kept)
            frozen = self._frozen = Signals(
                icon_title=self._icon_title, cwd=self._cwd, bell_count=self._bell_count,
                **made)
        return frozen

    def _when(self, at: int) -> tuple[int, float | None, int]:
        """A new signal's ``at``, ``t`` and ``generation``."""
        return at, self.clock, self.generation

    def _add(self, kind: str, value: Signal) -> None:
        self._kept[kind].append(value)
        self._made.pop(kind, None)
        self._frozen = None
        self.count += 1

    def bell(self, at: int, times: int = 1) -> None:
        """``times`` bells, one a byte from ``at`` on (a run of BEL)."""
        when = self.clock, self.generation
        bells = self._bells
        for n in range(max(times - KEPT, 0), times):
            bells.append((at + n, *when))
        self._new_bells += times
        self._bell_count += times
        self._frozen = None
        self.count += 1

    def title(self, at: int, text: str, *, icon: bool) -> None:
        if icon:
            if text == self._icon_title:
                return
            self._icon_title = text
            self._add("titles", TitleChange(*self._when(at), text, icon=True))
        else:
            self._add("titles", TitleChange(*self._when(at), text))

    def osc(self, at: int, code: str, text: str) -> bool:
        """An OSC this log understands (False: not one of these)."""
        if code == "7":
            url = urlsplit(text)
            path = unquote(url.path) if url.scheme == "file" else text
            self._cwd = path
            self._add("directories", DirectoryChange(*self._when(at), text, path))
        elif code == "52":
            selection, _, data = text.partition(";")
            self._add("clipboard", ClipboardWrite(*self._when(at), selection or "s0",
                                                  _decoded(data), data))
        elif code == "9":
            if re.match(r"\d+;", text):  # ConEmu's 9;n; subcommands (progress...)
                return False
            self._add("notifications", NotificationSent(*self._when(at), "", text, "OSC 9"))
        elif code == "777":
            what, _, rest = text.partition(";")
            if what != "notify":
                return False
            title, _, body = rest.partition(";")
            self._add("notifications", NotificationSent(*self._when(at), title, body, "OSC 777"))
        elif code == "99":
            self._kitty_notification(at, text)
        elif code == "1337":
            return self._iterm2_image(at, text)
        else:
            return False
        return True

    def mark(self, at: int, letter: str, rest: str, line: int, col: int,
             output_between: OutputReader) -> None:
        """OSC 133 / 633 ``letter`` (``rest``: what follows it), and the
        command it starts or ends: each C (output starts) up to the D after
        it; a D with no C before it (an empty command line) ends none. The
        command line is the 633 E before the C."""
        kind = MARK_KINDS[letter]
        status: int | None = None
        text: str | None = None
        made = self._made
        if kind == "output":
            self._commands.append(_command((line, col), None, None, self._command_line, ""))
            made.pop("commands", None)
            self._command_line = None
        elif kind == "finished":
            first = rest.partition(";")[0]
            status = int(first) if _STATUS.fullmatch(first) else None
            commands = self._commands
            if commands and commands[-1].end is None:  # ``finished``, inlined
                running = commands[-1]
                output = output_between(running.start, (line, col))
                # (Made directly: ``dataclasses.replace`` reads the fields each time.)
                commands[-1] = _command(running.start, (line, col), status, running.command,
                                        output)
                made.pop("commands", None)
        elif kind == "command":
            text = self._command_line = _unescape_633(rest.partition(";")[0])
        # ``_add``, inlined.
        self._marks.append(_shell_mark(at, self.clock, self.generation, kind, line, col, status,
                                       text))
        made.pop("marks", None)
        self._frozen = None
        self.count += 1

    @property
    def running_command(self) -> Command | None:
        """The command that has started and not finished, if any."""
        commands = self._kept["commands"]
        return commands[-1] if commands and not commands[-1].finished else None

    def running(self, output_between: OutputReader) -> None:
        """The running command's output so far: its text changes with the
        screen, not with its marks (called as a snapshot is made)."""
        last = self.running_command
        if last is not None:
            output = output_between(last.start, None)
            if output != last.output:
                self._kept["commands"][-1] = _command(last.start, last.end, last.status,
                                                      last.command, output)
                self._made.pop("commands", None)
                self._frozen = None

    def sixel(self, at: int, body: str) -> None:
        """A sixel image (``body``: the DCS after ``P``)."""
        data = body.split("q", 1)[1] if "q" in body else ""
        width = height = None
        raster = re.match(r'"\d*;\d*;(\d+);(\d+)', data)
        if raster:
            width, height = int(raster[1]), int(raster[2])
        self._add("graphics", ImageSent(*self._when(at), "sixel", len(data), width, height))

    def kitty_graphics(self, at: int, body: str) -> None:
        """One APC ``G`` chunk of the kitty graphics protocol; an image
        counts once its last chunk came (``m=0`` or no ``m``)."""
        control, _, payload = body[1:].partition(";")
        keys = dict(part.partition("=")[::2] for part in control.split(",") if part)
        pending = self._kitty
        if pending is None:
            if keys.get("a", "t") not in ("t", "T", "q", "f"):
                return  # delete, place, animate...: no image sent
            width = _int(keys.get("s")) or None
            height = _int(keys.get("v")) or None
            pending = ImageSent(*self._when(at), "kitty", 0, width, height)
        pending = replace(pending, size=pending.size + len(payload))
        if keys.get("m") == "1":
            self._kitty = pending
            return
        self._kitty = None
        # Sent from its first chunk's byte; there once its last came.
        self._add("graphics", replace(pending, t=self.clock, generation=self.generation))

    def _iterm2_image(self, at: int, text: str) -> bool:
        if not text.startswith("File="):
            return False
        arguments, _, payload = text[5:].partition(":")
        keys = dict(part.partition("=")[::2] for part in arguments.split(";") if part)
        if keys.get("inline") != "1":
            return False  # a download, not an image on the screen
        self._add("graphics", ImageSent(*self._when(at), "iterm2", len(payload),
                                      keys.get("width"), keys.get("height")))
        return True

    def _kitty_notification(self, at: int, text: str) -> None:
        """OSC 99 ``metadata;payload``: ``p=title`` or ``p=body``
        (default title), ``e=1`` base64, ``d=0`` more chunks follow for
        the same ``i=`` id (kitty's desktop-notifications doc). At most
        :data:`MAX_PENDING_NOTES` wait for their last chunk (the oldest
        goes), each at most :data:`MAX_NOTE` characters long."""
        metadata, _, payload = text.partition(";")
        keys = dict(part.partition("=")[::2] for part in metadata.split(":") if part)
        if keys.get("e") == "1":
            payload = _decoded(payload) or ""
        ident = keys.get("i", "0")
        notes = self._kitty_notes
        note = notes.pop(ident, None) or NotificationSent(*self._when(at), "", "", "OSC 99")
        part = keys.get("p", "title")
        if part == "title":
            note = replace(note, title=(note.title + payload)[:MAX_NOTE])
        elif part == "body":
            note = replace(note, body=(note.body + payload)[:MAX_NOTE])
        if keys.get("d") == "0":
            if len(notes) >= MAX_PENDING_NOTES:
                del notes[next(iter(notes))]
            notes[ident] = note
            return
        self._add("notifications", replace(note, t=self.clock, generation=self.generation))


_new = object.__new__
_set_at, _set_t, _set_generation = (Signal.__dict__[name].__set__
                                    for name in ("at", "t", "generation"))


def _bell(when: tuple[int, float | None, int]) -> BellRung:
    """``BellRung(*when)``, made with its slots' own setters: what the frozen
    dataclass's ``__init__`` does (it has no other code), at a third of the
    cost, for a snapshot after a flood makes a thousand at once."""
    bell: BellRung = _new(BellRung)
    _set_at(bell, when[0])
    _set_t(bell, when[1])
    _set_generation(bell, when[2])
    return bell


_mark_setters = tuple(ShellMark.__dict__[name].__set__
                      for name in ("kind", "line", "col", "status", "text"))
_command_setters = tuple(Command.__dict__[name].__set__
                         for name in ("start", "end", "status", "command", "output"))


def _shell_mark(at: int, t: float | None, generation: int, kind: str, line: int, col: int,
                status: int | None, text: str | None) -> ShellMark:
    """``ShellMark(...)`` made as ``_bell`` makes a bell, at half the cost:
    a flood of marks makes one for each."""
    mark: ShellMark = _new(ShellMark)
    set_kind, set_line, set_col, set_status, set_text = _mark_setters
    _set_at(mark, at)
    _set_t(mark, t)
    _set_generation(mark, generation)
    set_kind(mark, kind)
    set_line(mark, line)
    set_col(mark, col)
    set_status(mark, status)
    set_text(mark, text)
    return mark


def _command(start: tuple[int, int], end: tuple[int, int] | None, status: int | None,
             command: str | None, output: str) -> Command:
    """``Command(...)`` made the same way: two for each command of a flood."""
    made: Command = _new(Command)
    set_start, set_end, set_status, set_command, set_output = _command_setters
    set_start(made, start)
    set_end(made, end)
    set_status(made, status)
    set_command(made, command)
    set_output(made, output)
    return made


def _decoded(data: str) -> str | None:
    """Base64 of UTF-8 text, decoded; None for anything else."""
    try:
        return base64.b64decode(data, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _int(text: str | None) -> int:
    return int(text) if text and text.isdigit() else 0


def _unescape_633(text: str) -> str:
    r"""VS Code escapes ``\`` and ``;`` in 633 E as ``\\`` and ``\x3b``."""
    return re.sub(r"\\x([0-9a-fA-F]{2})|\\\\", lambda m: chr(int(m[1], 16)) if m[1] else "\\",
                  text)
