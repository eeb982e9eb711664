"""What a program says outside the cells: the bell, titles, the clipboard,
notifications, the working directory, shell-integration marks, images.

Why a module of its own: none of these changes a cell, so the screen has no
place for them, yet tests ask about each ("the title says `working`", "no
image was sent", "the last command exited 0"). The dispatcher turns each
sequence into one value here (:class:`SignalLog`), in the order the program
sent them, each with the output byte it began at and, when whoever feeds the
terminal gives a clock, the session's time. A snapshot carries the log as it
stood (:class:`Signals`, immutable), so a wait sees these like text, and a
replay, which feeds the same bytes, gets the same values.

The sequences, and where they are specified:

* BEL (0x07), outside a string: :class:`Bell`.
* OSC 0/1/2 (icon name and title; xterm's ``ctlseqs``): :class:`TitleChange`,
  once per change.
* OSC 7 ``file://host/path`` (the working directory; VTE, kitty, WezTerm,
  iTerm2): :class:`DirectoryChange`.
* OSC 52 ``Pc ; base64`` (xterm's ``ctlseqs``, "Manipulate Selection Data"):
  :class:`ClipboardWrite`; ``?`` is a read, which termsim, as most terminals
  by default, does not answer.
* OSC 9 ``text`` (iTerm2, Windows Terminal, ConEmu's ``9;`` subcommands are
  not notifications), OSC 777 ``notify;title;body`` (urxvt, VTE, foot), OSC
  99 ``params;payload`` (kitty's desktop notifications, chunked with ``d=0``
  and ``i=``): :class:`Notification`.
* OSC 133 ``A``/``B``/``C``/``D;status`` (FinalTerm's shell integration, as
  iTerm2, kitty, WezTerm, VS Code and Windows Terminal read it) and OSC 633
  (VS Code's, ``E;command`` included): :class:`ShellMark`, and the commands
  they delimit (:class:`Command`).
* Images: sixel (``DCS Pa;Pb;Ph q``, size from its raster attributes ``"``),
  the kitty graphics protocol (``APC G key=value,...;payload``, chunked with
  ``m=1``; kitty's ``graphics-protocol`` doc), iTerm2's inline images (OSC
  1337 ``File=...:base64``): :class:`Graphic`, counted and sized, never
  decoded.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote, urlsplit

#: Values kept per kind (the oldest go; counts go on).
KEPT = 1_000

#: The text between two places of the session (a line counted from the
#: session's top, rows that scrolled off included, and a column); ``end``
#: None is the cursor. The terminal gives one (``Terminal._output_between``).
OutputReader = Callable[[tuple[int, int], "tuple[int, int] | None"], str]


@dataclass(frozen=True, slots=True)
class Signal:
    """One thing the program said outside the cells. ``at`` is the output
    byte where its sequence began; ``t`` the session's time then (None when the terminal was fed
    without a clock); ``generation`` the first screen generation that
    holds it, which is how a wait ``since=`` an input tells a signal sent
    in answer from one sent before."""

    at: int
    t: float | None
    generation: int

    def describe(self) -> str:
        """The signal in words, for timelines and failures."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Bell(Signal):
    def describe(self) -> str:
        return "bell"


@dataclass(frozen=True, slots=True)
class TitleChange(Signal):
    """The window title (``icon=False``) or the icon name changed to ``text``."""

    text: str
    icon: bool = False

    def describe(self) -> str:
        return f"{'icon name' if self.icon else 'title'} {self.text!r}"


@dataclass(frozen=True, slots=True)
class DirectoryChange(Signal):
    """OSC 7: the program's working directory, as a ``file://`` URL and its path."""

    url: str
    path: str

    def describe(self) -> str:
        return f"directory {self.path!r}"


@dataclass(frozen=True, slots=True)
class ClipboardWrite(Signal):
    """OSC 52: ``text`` written to ``selection`` (``c`` the clipboard, ``p``
    the primary selection...); ``text`` is None for a read request or for a
    payload that is not base64 of UTF-8 (``data`` keeps what was sent)."""

    selection: str
    text: str | None
    data: str

    def describe(self) -> str:
        if self.data == "?":
            return f"clipboard read asked ({self.selection})"
        shown = repr(self.text) if self.text is not None else f"{len(self.data)} bytes not text"
        return f"clipboard {self.selection} set to {shown}"


@dataclass(frozen=True, slots=True)
class Notification(Signal):
    """A desktop notification: ``via`` is the sequence (``OSC 9``,
    ``OSC 777``, ``OSC 99``)."""

    title: str
    body: str
    via: str

    def describe(self) -> str:
        text = f"{self.title}: {self.body}" if self.title and self.body else (
            self.title or self.body)
        return f"notification {text!r} ({self.via})"


#: OSC 133/633 letters, as names.
MARK_KINDS = {"A": "prompt", "B": "input", "C": "output", "D": "finished", "E": "command"}


@dataclass(frozen=True, slots=True)
class ShellMark(Signal):
    """A shell-integration mark: ``kind`` is ``prompt`` (A: a prompt
    starts), ``input`` (B: the command line starts), ``output`` (C: the
    command runs, its output starts), ``finished`` (D, with ``status`` when
    the shell gave one) or ``command`` (633 E: the command line's text, in
    ``text``). ``line`` counts rows from the top of the session (rows that
    scrolled off included) and ``col`` is the cursor's column then."""

    kind: str
    line: int
    col: int
    status: int | None = None
    text: str | None = None

    def describe(self) -> str:
        if self.kind == "finished":
            return "command finished" + (f", status {self.status}"
                                         if self.status is not None else "")
        if self.kind == "command":
            return f"command line {self.text!r}"
        return {"prompt": "prompt starts", "input": "command line starts",
                "output": "command output starts"}[self.kind]


@dataclass(frozen=True, slots=True)
class Graphic(Signal):
    """An image sent: ``protocol`` is ``sixel``, ``kitty`` or ``iterm2``;
    ``size`` the bytes of its payload as sent (all chunks); ``width`` and
    ``height`` what the sequence says (pixels for sixel and kitty, the
    iTerm2 argument as written), when it says."""

    protocol: str
    size: int
    width: int | str | None = None
    height: int | str | None = None

    def describe(self) -> str:
        box = f", {self.width}x{self.height}" if self.width is not None else ""
        return f"{self.protocol} image ({self.size} bytes{box})"


@dataclass(frozen=True, slots=True)
class Command:
    """A command the shell ran, from its marks: where its output starts
    (``start``, a line and column as in :class:`ShellMark`) and ends (None
    while it runs), its exit status, its command line if the shell said it
    (OSC 633 E), and its output's text (rows joined with newlines, trailing
    blanks removed; rows that scrolled past the kept history are missing)."""

    start: tuple[int, int]
    end: tuple[int, int] | None
    status: int | None
    command: str | None
    output: str

    @property
    def finished(self) -> bool:
        """The shell said it ended (OSC 133 D): its output and status are final."""
        return self.end is not None


@dataclass(frozen=True, slots=True)
class Signals:
    """Everything said outside the cells so far, as a snapshot shows it.
    Each tuple holds the last :data:`KEPT` values of its kind, oldest
    first; ``bell_count`` counts every bell."""

    icon_title: str = ""
    cwd: str | None = None
    titles: tuple[TitleChange, ...] = ()
    directories: tuple[DirectoryChange, ...] = ()
    bells: tuple[Bell, ...] = ()
    bell_count: int = 0
    clipboard: tuple[ClipboardWrite, ...] = ()
    notifications: tuple[Notification, ...] = ()
    marks: tuple[ShellMark, ...] = ()
    graphics: tuple[Graphic, ...] = ()
    commands: tuple[Command, ...] = ()

    def all(self) -> list[Signal]:
        """Every kept signal, in the order the program sent them."""
        kinds: tuple[tuple[Signal, ...], ...] = (
            self.titles, self.directories, self.bells, self.clipboard, self.notifications,
            self.marks, self.graphics)
        return sorted((s for kind in kinds for s in kind), key=lambda s: s.at)


EMPTY = Signals()


@dataclass
class SignalLog:
    """The terminal's running log (mutable); :meth:`frozen` is what a
    snapshot holds, made again only after something new was said."""

    signals: Signals = EMPTY
    #: Bumped by every signal: part of the terminal's state, so a signal
    #: alone (a bell) makes a new screen generation that waits look at.
    count: int = 0
    #: The session's clock, as whoever feeds the terminal last gave it.
    clock: float | None = None
    #: The generation the screen will have once the output being fed is in.
    generation: int = 0
    #: The kitty image being received in chunks: its first chunk's
    #: signal, and the bytes so far.
    _kitty: Graphic | None = field(default=None, repr=False)
    #: A kitty notification being received in chunks (``d=0``), by id.
    _kitty_notes: dict[str, Notification] = field(default_factory=dict, repr=False)
    #: The command line OSC 633 E gave, for the next command.
    _command_line: str | None = field(default=None, repr=False)

    def _when(self, at: int) -> tuple[int, float | None, int]:
        """A new signal's ``at``, ``t`` and ``generation``."""
        return at, self.clock, self.generation

    def _add(self, kind: str, value: Signal, **more: Any) -> None:
        kept: tuple[Signal, ...] = getattr(self.signals, kind)
        changes: dict[str, Any] = {kind: (*kept[-(KEPT - 1):], value), **more}
        self.signals = replace(self.signals, **changes)
        self.count += 1

    def bell(self, at: int) -> None:
        self._add("bells", Bell(*self._when(at)), bell_count=self.signals.bell_count + 1)

    def title(self, at: int, text: str, *, icon: bool) -> None:
        if icon:
            if text == self.signals.icon_title:
                return
            self._add("titles", TitleChange(*self._when(at), text, icon=True), icon_title=text)
        else:
            self._add("titles", TitleChange(*self._when(at), text))

    def osc(self, at: int, code: str, text: str) -> bool:
        """An OSC this log understands (False: not one of these)."""
        if code == "7":
            url = urlsplit(text)
            path = unquote(url.path) if url.scheme == "file" else text
            self._add("directories", DirectoryChange(*self._when(at), text, path), cwd=path)
        elif code == "52":
            selection, _, data = text.partition(";")
            self._add("clipboard", ClipboardWrite(*self._when(at), selection or "s0",
                                                  _decoded(data), data))
        elif code == "9":
            if re.match(r"\d+;", text):  # ConEmu's 9;n; subcommands (progress...)
                return False
            self._add("notifications", Notification(*self._when(at), "", text, "OSC 9"))
        elif code == "777":
            what, _, rest = text.partition(";")
            if what != "notify":
                return False
            title, _, body = rest.partition(";")
            self._add("notifications", Notification(*self._when(at), title, body, "OSC 777"))
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
        if kind == "finished":
            first = rest.split(";")[0]
            status = int(first) if re.fullmatch(r"-?\d{1,9}", first) else None
        elif kind == "command":
            text = _unescape_633(rest.split(";")[0])
        mark = ShellMark(*self._when(at), kind, line, col, status, text)
        commands = self.signals.commands
        running = commands[-1] if commands and not commands[-1].finished else None
        if kind == "command":
            self._command_line = text
        elif kind == "output":
            commands = (*commands[-(KEPT - 1):], Command((line, col), None, None,
                                                       self._command_line, ""))
            self._command_line = None
        elif kind == "finished" and running is not None:
            output = output_between(running.start, (line, col))
            commands = (*commands[:-1], replace(running, end=(line, col), status=status,
                                                output=output))
        self._add("marks", mark, commands=commands)

    def running(self, output_between: OutputReader) -> None:
        """The running command's output so far: its text changes with the
        screen, not with its marks (called as a snapshot is made)."""
        commands = self.signals.commands
        if commands and not commands[-1].finished:
            last = commands[-1]
            output = output_between(last.start, None)
            if output != last.output:
                self.signals = replace(self.signals,
                                       commands=(*commands[:-1], replace(last, output=output)))

    def sixel(self, at: int, body: str) -> None:
        """A sixel image (``body``: the DCS after ``P``)."""
        data = body.split("q", 1)[1] if "q" in body else ""
        width = height = None
        raster = re.match(r'"\d*;\d*;(\d+);(\d+)', data)
        if raster:
            width, height = int(raster[1]), int(raster[2])
        self._add("graphics", Graphic(*self._when(at), "sixel", len(data), width, height))

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
            pending = Graphic(*self._when(at), "kitty", 0, width, height)
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
        self._add("graphics", Graphic(*self._when(at), "iterm2", len(payload),
                                      keys.get("width"), keys.get("height")))
        return True

    def _kitty_notification(self, at: int, text: str) -> None:
        """OSC 99 ``metadata;payload``: ``p=title`` or ``p=body``
        (default title), ``e=1`` base64, ``d=0`` more chunks follow for
        the same ``i=`` id (kitty's desktop-notifications doc)."""
        metadata, _, payload = text.partition(";")
        keys = dict(part.partition("=")[::2] for part in metadata.split(":") if part)
        if keys.get("e") == "1":
            payload = _decoded(payload) or ""
        ident = keys.get("i", "0")
        note = self._kitty_notes.pop(ident, None) or Notification(*self._when(at), "", "",
                                                                   "OSC 99")
        part = keys.get("p", "title")
        if part == "title":
            note = replace(note, title=note.title + payload)
        elif part == "body":
            note = replace(note, body=note.body + payload)
        if keys.get("d") == "0":
            self._kitty_notes[ident] = note
            return
        self._add("notifications", replace(note, t=self.clock, generation=self.generation))


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
