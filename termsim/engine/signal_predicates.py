"""Waiting for what a program says outside the cells: the title, the bell,
links, notifications, the clipboard, finished commands, images.

Two kinds, as the things they look at:

* **states** the screen has now, like text: :class:`Title` (the window
  title), :class:`Link` (an OSC 8 hyperlink on the screen);
* **events** that happened once: :class:`Bell`, :class:`Notification`,
  :class:`Clipboard`, :class:`CommandFinished`, :class:`Image`. In a wait
  with ``since=`` they count only when sent after the program read that
  input (the same causal rule as screens: a signal carries the first
  screen generation that holds it); without ``since=``, any the session
  has seen. Called on a bare snapshot, any it holds.

Text arguments match as substrings; a compiled regular expression is
searched. Every predicate says in words what was awaited and, when a wait
fails, what the program said instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..emulator.signals.signals import (
    ClipboardWrite,
    ImageSent,
    NotificationSent,
    ShellMark,
    Signal,
)
from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.snapshot.values import LinkRun
from .predicates import Context, Predicate

Pattern = str | re.Pattern[str]


def _found(pattern: Pattern | None, text: str | None) -> bool:
    if pattern is None:
        return True
    if text is None:
        return False
    if isinstance(pattern, re.Pattern):
        return pattern.search(text) is not None
    return pattern in text


def _words(pattern: Pattern) -> str:
    return f"/{pattern.pattern}/" if isinstance(pattern, re.Pattern) else repr(pattern)


def _listed(items: Sequence[str], none: str) -> str:
    if not items:
        return none
    shown = ", ".join(items[-3:])
    return f"{len(items)}: … {shown}" if len(items) > 3 else shown


class Title(Predicate):
    """The window title (OSC 0 or 2) holds ``text`` (a substring, or a
    regex searched); ``exact=True``: is ``text``. Agent CLIs put their
    state there.

    In a wait, a title the program set and replaced within one read (a
    "working" title followed, in the same read, by "idle") still holds for
    the screen that read made, as a state drawn and erased within one read
    is still seen: the wait's copy (:meth:`fresh`) remembers the last screen
    it checked and also looks at the titles set since."""

    #: The generation of the last screen this wait's copy checked (None:
    #: none yet); titles set after it count for the next screen.
    _last: int | None = None
    _own = False

    def __init__(self, text: Pattern, *, exact: bool = False) -> None:
        self.text = text
        self.exact = exact

    def _holds(self, title: str) -> bool:
        if self.exact and isinstance(self.text, str):
            return title == self.text
        return _found(self.text, title)

    def __call__(self, snap: Snapshot) -> bool:
        return self._holds(snap.title)

    def fresh(self) -> Predicate:
        copy = Title(self.text, exact=self.exact)
        copy._own = True
        return copy

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if not self._own:
            return self(snap)
        last = max(snap.generation - 1, ctx.after) if self._last is None else self._last
        self._last = snap.generation
        shown = [c.text for c in snap.signals.titles if not c.icon and c.generation > last]
        return any(map(self._holds, [*shown, snap.title]))

    def describe(self) -> str:
        how = "is" if self.exact else "holds"
        return f"the title {how} {_words(self.text)}"

    def explain(self, snap: Snapshot) -> str:
        changes = [c.text for c in snap.signals.titles if not c.icon]
        before = f" (it was {_listed([repr(t) for t in changes[:-1]], '')})" if (
            len(changes) > 1) else ""
        return f"the title is {snap.title!r}{before}"


class Link(Predicate):
    """An OSC 8 hyperlink on the screen whose text holds ``text`` and, if
    given, whose URL holds ``url`` (a substring or a regex searched; the
    label is all most programs show, the URL is what a test checks)."""

    def __init__(self, text: Pattern | None = None, *, url: Pattern | None = None) -> None:
        self.text = text
        self.url = url

    def _matching(self, snap: Snapshot) -> list[LinkRun]:
        return [link for link in snap.links
                if _found(self.text, link.text) and _found(self.url, link.url)]

    def __call__(self, snap: Snapshot) -> bool:
        return bool(self._matching(snap))

    def describe(self) -> str:
        parts = [f"text {_words(self.text)}"] if self.text is not None else []
        if self.url is not None:
            parts.append(f"URL {_words(self.url)}")
        return "a link" + (" with " + " and ".join(parts) if parts else "")

    def explain(self, snap: Snapshot) -> str:
        links = [f"{link.text!r} -> {link.url} (row {link.row})" for link in snap.links]
        return "links on the screen: " + _listed(links, "none")


class _Happened(Predicate):
    """An event predicate: some signal of the right kind, sent after the
    wait's mark, matches.

    A wait evaluates a :meth:`fresh` copy, which remembers the cut of the
    last screen it checked (``Context.after``), so that the wait's own
    diagnostics (which part failed, what almost matched) ask the same
    question; before its first check the copy holds for nothing, so a
    signal sent before the mark is never reported as a match."""

    #: What the event is called in messages.
    noun = ""
    #: Signals of a later generation than this count (None: not known yet).
    _after: int | None = -1
    #: A wait's own copy (:meth:`fresh`), which may remember.
    _own = False

    def _signals(self, snap: Snapshot) -> Sequence[Signal]:
        raise NotImplementedError

    def _matches(self, signal: Signal) -> bool:
        return True

    def _since(self, snap: Snapshot, after: int) -> list[Signal]:
        return [s for s in self._signals(snap) if s.generation > after]

    def fresh(self) -> Predicate:
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy._after, copy._own = None, True
        return copy

    def __call__(self, snap: Snapshot) -> bool:
        if self._after is None:
            return False
        return any(map(self._matches, self._since(snap, self._after)))

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if self._own:
            self._after = ctx.after
        return any(map(self._matches, self._since(snap, ctx.after)))

    def _seen(self, signals: Sequence[Signal]) -> str:
        return _listed([s.describe() for s in signals], "none")

    def explain(self, snap: Snapshot) -> str:
        after = -1 if self._after is None else self._after
        before = [s for s in self._signals(snap) if s.generation <= after]
        since = self._since(snap, after)
        if after < 0 or not before:
            return f"{self.noun} so far: {self._seen(since)}"
        return f"{self.noun} since the mark: {self._seen(since)}; before it: {self._seen(before)}"


class Bell(_Happened):
    """The bell rang (BEL outside a string)."""

    noun = "bells"

    def _signals(self, snap: Snapshot) -> Sequence[Signal]:
        return snap.bells

    def describe(self) -> str:
        return "a bell"

    def _seen(self, signals: Sequence[Signal]) -> str:
        times = [f"{b.t:.3f} s" for b in signals if b.t is not None]
        if not signals:
            return "none"
        return f"{len(signals)}" + (f", the last at {times[-1]}" if times else "")


class Notification(_Happened):
    """A desktop notification (OSC 9, 777 or 99) whose title or body holds ``text``."""

    noun = "notifications"

    def __init__(self, text: Pattern | None = None) -> None:
        self.text = text

    def _signals(self, snap: Snapshot) -> Sequence[Signal]:
        return snap.notifications

    def _matches(self, signal: Signal) -> bool:
        assert isinstance(signal, NotificationSent)
        return _found(self.text, signal.title) or _found(self.text, signal.body)

    def describe(self) -> str:
        return "a notification" + (f" holding {_words(self.text)}" if self.text is not None
                                   else "")


class Clipboard(_Happened):
    """The program wrote text holding ``text`` to the clipboard (OSC 52;
    ``selection``: ``c`` the clipboard, ``p`` the primary selection, None any)."""

    noun = "clipboard writes"

    def __init__(self, text: Pattern | None = None, *, selection: str | None = None) -> None:
        self.text = text
        self.selection = selection

    def _signals(self, snap: Snapshot) -> Sequence[Signal]:
        return snap.clipboard

    def _matches(self, signal: Signal) -> bool:
        assert isinstance(signal, ClipboardWrite)
        if self.selection is not None and self.selection not in signal.selection:
            return False
        return signal.data != "?" and _found(self.text, signal.text)

    def describe(self) -> str:
        what = f" of {_words(self.text)}" if self.text is not None else ""
        return f"a clipboard write{what}"


class CommandFinished(_Happened):
    """The shell says a command finished (OSC 133 or 633 ``D``), with exit
    ``status`` if given."""

    noun = "commands finished"

    def __init__(self, status: int | None = None) -> None:
        self.status = status

    def _signals(self, snap: Snapshot) -> Sequence[Signal]:
        return [m for m in snap.marks if m.kind == "finished"]

    def _matches(self, signal: Signal) -> bool:
        assert isinstance(signal, ShellMark)
        return self.status is None or signal.status == self.status

    def describe(self) -> str:
        return "a command to finish" + (f" with status {self.status}"
                                        if self.status is not None else "")

    def explain(self, snap: Snapshot) -> str:
        if not snap.marks:
            return ("the program sent no shell-integration marks (OSC 133): "
                    "a shell prints them only when its prompt is set up to")
        return super().explain(snap)


class Image(_Happened):
    """An image was sent (sixel, the kitty graphics protocol, iTerm2's
    inline images; ``protocol`` narrows it). ``~Image()`` in a wait with
    ``since=`` and a text that ends it asserts none was."""

    noun = "images"

    def __init__(self, protocol: str | None = None) -> None:
        if protocol not in (None, "sixel", "kitty", "iterm2"):
            raise ValueError(f"Image(protocol=) is 'sixel', 'kitty' or 'iterm2', not "
                             f"{protocol!r}")
        self.protocol = protocol

    def _signals(self, snap: Snapshot) -> Sequence[Signal]:
        return snap.graphics

    def _matches(self, signal: Signal) -> bool:
        assert isinstance(signal, ImageSent)
        return self.protocol is None or signal.protocol == self.protocol

    def describe(self) -> str:
        return f"a {self.protocol} image" if self.protocol else "an image"
