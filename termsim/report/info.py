"""The story ``termsim info`` tells of a recording: what was run, the waits
and their outcomes, the queries, what was said outside the cells, the
longest silences, the exit.

Why in ``report``: it is one more way a recording is shown to a person,
like the HTML page and the SVG; the command only opens the file and prints
it. What a stranger's file or a program says (argv, notes, titles...) is
quoted as it is, and every line of the report goes through
:func:`~termsim.emulator.terminals.xterm.printable` as it is written.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import TextIO

from ..emulator.answers.queries import printable
from ..emulator.signals.signals import ImageSent, Signal, Signals
from ..emulator.snapshot.snapshot import Run
from ..emulator.terminal.terminal import QUERY_KINDS, Terminal
from ..engine.playback import apply_to_terminal, terminal_for
from ..errors import describe_status
from ..events import (
    End,
    Exit,
    Hangup,
    Input,
    InputRead,
    Note,
    Output,
    Reply,
    Resize,
    TtyMode,
    UnknownSequences,
    Unrecognized,
    WaitEnded,
    WaitStarted,
    Warned,
)
from ..recording.format import Recording


def write_info(recording: Recording, out: TextIO) -> None:
    """The ``termsim info`` report."""
    h = recording.header
    state = "complete" if recording.complete else (
        f"INCOMPLETE (stops at byte {recording.stopped_at})")
    end = recording.end
    lines = [
        f"file:      {recording.path} ({recording.size} bytes, {state})",
        f"command:   {' '.join(map(str, h.get('argv') or []))}",
        f"cwd:       {h.get('cwd', '')}",
        f"size:      {recording.cols}x{recording.rows}, TERM={h.get('term', '')}",
        f"started:   {h.get('started', '?')}",
        "versions:  " + ", ".join(f"{k} {v}" for k, v in (h.get("versions") or {}).items()),
        f"duration:  {recording.duration:.3f} s",
        f"exit:      {_exit_text(recording)}" + (f"; session {end.how}" if end else ""),
    ]
    if h.get("policy"):
        lines.append("policy:    " + policy_text(h["policy"]))
    counts: Counter[str] = Counter(_EVENT_NAMES.get(type(e), "other") for e in recording.events)
    for hidden in ("wait start", "end"):
        counts.pop(hidden, None)
    out_bytes = sum(len(e.data) for e in recording.of_type(Output))
    lines.append("events:    " + ", ".join(f"{k} {n}" for k, n in counts.items())
                 + f" ({out_bytes} output bytes)")

    lines.append("waits:")
    waits = [w for w in recording.waits() if w.end is not None]
    for w in sorted(waits, key=lambda w: w.end or 0.0):
        lines.append(f"  {w.start:9.3f} s  {w.outcome:<15} after "
                     f"{(w.end or w.start) - w.start:.3f} s: {w.predicate}")
    if not waits:
        lines.append("  (none)")

    terminal, links = _walk(recording)
    answered = [q for q in terminal.queries if not q.unanswered]
    unanswered = [q for q in terminal.queries if q.unanswered]
    lines.append(f"queries:   {len(answered)} answered, {len(unanswered)} unanswered")
    for query in unanswered[:10]:
        lines.append(f"  {query.describe()}")
    if terminal.unknown:
        lines.append("not understood: " + ", ".join(
            f"{k} x{v}" for k, v in sorted(terminal.unknown.items())))

    lines += said_outside_the_cells(terminal.screen.signals, links)
    lines.append("longest silences:")
    for begin, length in longest_silences(recording):
        lines.append(f"  {length:9.3f} s from {begin:.3f} s")
    notes = [(e.t, e.label if isinstance(e, Note) else e.message)
             for e in recording.events if isinstance(e, Note | Warned)]
    if notes:
        lines.append("notes and warnings:")
        for t, text in notes:
            lines.append(f"  {t:9.3f} s  {text}")
    # Every field above came from the file or the program: each line is
    # shown with printable (an ESC in a note, or a newline that would forge
    # a line of the report, reads as what it is).
    out.write("\n".join(map(printable, lines)) + "\n")


#: What may open an OSC 8 hyperlink: ESC ] 8 ; or the C1 OSC (alone, or
#: as UTF-8 encodes U+009D).
_LINK_OPENERS = (b"\x1b]8;", b"\x9d8;")
#: Entries listed per kind of signal (the count says how many there were).
_LISTED = 5


def _walk(recording: Recording) -> tuple[Terminal, dict[tuple[str, str], float]]:
    """The terminal after the whole recording (as ``Playback.terminal_at()``
    gives it), and the hyperlinks shown on the way: ``(text, url)`` -> the
    time of the output that first showed it.

    A link is in the cells, not in the signal log, so finding every one
    shown means reading the screen after each output. A snapshot per output
    costs ten times the replay, so screens are read only once the output
    held something that may open a link (the screen's ``links``, not these
    bytes, still say what was shown), and only rows whose runs changed
    since the screen before are looked at.
    """
    terminal = terminal_for(recording)
    links: dict[tuple[str, str], float] = {}
    maybe, tail = False, b""
    previous: dict[int, tuple[Run, ...]] = {}
    for event in recording.events:
        apply_to_terminal(terminal, event)
        if not isinstance(event, Output):
            continue
        if not maybe:
            data = tail + event.data
            maybe = any(opener in data for opener in _LINK_OPENERS)
            tail = data[-3:]
            if not maybe:
                continue
        snap = terminal.screen
        rows = {id(runs): runs for runs in map(snap.runs, range(snap.rows))}
        if any(run.style.link for key, runs in rows.items() if key not in previous
               for run in runs):
            for link in snap.links:
                links.setdefault((link.text, link.url), event.t)
        previous = rows
    return terminal, links


def said_outside_the_cells(signals: Signals, links: dict[tuple[str, str], float]) -> list[str]:
    """``termsim info``'s lines on what the program said outside the cells:
    none when it said nothing, so that the report of a session without
    any is what it always was."""
    out: list[str] = []

    def listed(values: Sequence[Signal]) -> None:
        for signal in values[-_LISTED:]:
            out.append(f"      {_when(signal)}  {_shortened(signal.describe())}")
        if len(values) > _LISTED:
            out.append(f"      (and {len(values) - _LISTED} earlier)")

    # A title set once is the program naming its window, as most
    # full-screen programs do (the example REPL does: the README's sample
    # of this report has no such line); titles that change say its state.
    titles = [t for t in signals.titles if not t.icon]
    if len(titles) > 1:
        out.append(f"  titles:        {len(titles)}, the last "
                   f"{_shortened(repr(titles[-1].text))}")
        listed(titles)
    icons = [t for t in signals.titles if t.icon]
    if len(icons) > 1:
        out.append(f"  icon names:    {len(icons)}, the last "
                   f"{_shortened(repr(icons[-1].text))}")
    if signals.bell_count:
        first, last = signals.bells[0], signals.bells[-1]
        kept = "" if len(signals.bells) == signals.bell_count else " kept"
        out.append(f"  bells:         {signals.bell_count}, the first{kept} at {_when(first)}"
                   + (f", the last at {_when(last)}" if signals.bell_count > 1 else ""))
    if links:
        out.append(f"  links:         {_count(len(links), 'link')} shown")
        for (text, url), t in list(links.items())[:_LISTED]:
            out.append(f"      {t:.3f} s  {_shortened(repr(text))} -> "
                       f"{_shortened(printable(url))}")
        if len(links) > _LISTED:
            out.append(f"      (and {len(links) - _LISTED} more)")
    if signals.clipboard:
        out.append(f"  clipboard:     {_count(len(signals.clipboard), 'write')}")
        listed(signals.clipboard)
    if signals.notifications:
        out.append(f"  notifications: {len(signals.notifications)}")
        listed(signals.notifications)
    if signals.directories:
        out.append(f"  directory:     {_shortened(repr(signals.cwd))} "
                   f"({_count(len(signals.directories), 'change')})")
    commands = signals.commands
    if commands:
        statuses = Counter(str(c.status) if c.status is not None else "none"
                           for c in commands if c.finished)
        said = ", ".join(f"{status} x{n}" for status, n in statuses.items())
        running = "; the last still running" if not commands[-1].finished else ""
        out.append(f"  commands:      {len(commands)}"
                   + (f", exit statuses {said}" if said else "") + running)
    elif signals.marks:
        out.append(f"  shell marks:   {len(signals.marks)}, no command run")
    if signals.graphics:
        kinds: dict[str, list[ImageSent]] = {}
        for graphic in signals.graphics:
            kinds.setdefault(graphic.protocol, []).append(graphic)
        out.append(f"  images:        {len(signals.graphics)}: " + ", ".join(
            f"{protocol} x{len(sent)} ({sum(g.size for g in sent)} bytes"
            + (f", {_sizes(sent)}" if _sizes(sent) else "") + ")"
            for protocol, sent in kinds.items()))
    return ["said outside the cells:", *out] if out else []


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _when(signal: Signal) -> str:
    return f"{signal.t:.3f} s" if signal.t is not None else "?"


def _shortened(text: str, limit: int = 100) -> str:
    """``text`` cut to ``limit`` characters (a clipboard write or a URL may
    be kilobytes; a summary line is not the place)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _sizes(graphics: list[ImageSent]) -> str:
    """The distinct sizes the images said they were, as ``4x6, 8x4``."""
    sizes = dict.fromkeys(f"{_side(g.width)}x{_side(g.height)}" for g in graphics
                          if g.width is not None or g.height is not None)
    shown = list(sizes)[:_LISTED]
    return ", ".join(shown) + (", ..." if len(sizes) > _LISTED else "")


def _side(side: int | str | None) -> str:
    return "?" if side is None else str(side)


def policy_text(policy: dict[str, object]) -> str:
    """A recorded query policy as what differs from the usual: from
    answering every query, or, when most kinds share another policy (as
    ``termsim record``'s, which leaves every query to the user's terminal),
    from that one: ``"ignore for every query kind"``."""
    full = {kind: policy.get(kind, "answer") for kind in QUERY_KINDS} | dict(policy)
    common, _ = Counter(map(str, full.values())).most_common(1)[0]
    others = ", ".join(f"{k}={v}" for k, v in full.items() if str(v) != common)
    if common == "answer":
        return others or "answer every query"
    return f"{common} for every query kind" + (f" but {others}" if others else "")


#: What ``termsim info`` calls each kind of event in its counts.
_EVENT_NAMES: dict[type, str] = {
    Output: "output", Input: "input", Reply: "reply", Resize: "resize", TtyMode: "tty mode",
    InputRead: "input read", WaitStarted: "wait start", WaitEnded: "wait", Note: "note",
    Warned: "warning", Exit: "exit", Hangup: "hangup",
    UnknownSequences: "not-understood summary", End: "end",
    Unrecognized: "unknown kind",
}


def _exit_text(recording: Recording) -> str:
    exits = list(recording.of_type(Exit))
    if not exits:
        return "the program had not exited"
    return describe_status(exits[-1].status)


def longest_silences(recording: Recording, count: int = 3) -> list[tuple[float, float]]:
    """``(start, length)`` of the longest gaps without output, longest first."""
    times = [e.t for e in recording.of_type(Output)]
    if not times:
        return [(0.0, recording.duration)]
    gaps = [(0.0, times[0])]
    gaps += [(a, b - a) for a, b in itertools.pairwise(times)]
    gaps.append((times[-1], recording.duration - times[-1]))
    return sorted(gaps, key=lambda g: -g[1])[:count]
