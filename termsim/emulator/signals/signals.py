"""What a program says outside the cells: the bell, titles, the clipboard,
notifications, the working directory, shell-integration marks, images.

Why a module of its own: none of these changes a cell, so the screen has no
place for them, yet tests ask about each ("the title says `working`", "no
image was sent", "the last command exited 0"). The dispatcher turns each
sequence into one value here (gathered by ``log.SignalLog``), in the
order the program sent them, each with the output byte it began at and, when
whoever feeds the terminal gives a clock, the session's time. A snapshot carries the log as it
stood (:class:`Signals`, immutable), so a wait sees these like text, and a
replay, which feeds the same bytes, gets the same values.

The sequences, and where they are specified:

* BEL (0x07), outside a string: :class:`BellRung`.
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
  and ``i=``): :class:`NotificationSent`.
* OSC 133 ``A``/``B``/``C``/``D;status`` (FinalTerm's shell integration, as
  iTerm2, kitty, WezTerm, VS Code and Windows Terminal read it) and OSC 633
  (VS Code's, ``E;command`` included): :class:`ShellMark`, and the commands
  they delimit (:class:`Command`).
* Images: sixel (``DCS Pa;Pb;Ph q``, size from its raster attributes ``"``),
  the kitty graphics protocol (``APC G key=value,...;payload``, chunked with
  ``m=1``; kitty's ``graphics-protocol`` doc), iTerm2's inline images (OSC
  1337 ``File=...:base64``): :class:`ImageSent`, counted and sized, never
  decoded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: Values kept per kind (the oldest go; counts go on): what a snapshot
#: shows of titles, bells, marks, commands... is their last thousand, so
#: memory and the cost of a snapshot stay bounded however long a program
#: rings or marks (``Signals.bell_count`` counts every bell).
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
class BellRung(Signal):
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
class NotificationSent(Signal):
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
class ImageSent(Signal):
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
    bells: tuple[BellRung, ...] = ()
    bell_count: int = 0
    clipboard: tuple[ClipboardWrite, ...] = ()
    notifications: tuple[NotificationSent, ...] = ()
    marks: tuple[ShellMark, ...] = ()
    graphics: tuple[ImageSent, ...] = ()
    commands: tuple[Command, ...] = ()

    def all(self) -> list[Signal]:
        """Every kept signal, in the order the program sent them."""
        kinds: tuple[tuple[Signal, ...], ...] = (
            self.titles, self.directories, self.bells, self.clipboard, self.notifications,
            self.marks, self.graphics)
        return sorted((s for kind in kinds for s in kind), key=lambda s: s.at)


EMPTY = Signals()
