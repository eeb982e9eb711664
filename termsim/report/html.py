"""A recording as one self-contained HTML page: a timeline of the session's screens.

The page needs nothing but itself when opened: no network, no external
scripts, fonts or images (its Content-Security-Policy forbids them, and allows
only its own inline script, by hash). It shows the header (command, size,
TERM, versions, start time), a scrubber over the screens, the waits as marks
on a timeline with their outcome and duration, and the inputs, notes,
warnings, resizes and exit in a list; clicking a mark or a line moves the
scrubber there. What the program said outside the cells (bells, titles,
clipboard writes, notifications, shell marks, images:
:mod:`termsim.emulator.signals.signals`) is on the timeline and in the list too, in
words at its time: no screen would show it otherwise. The signals come from
the last screen of the replay, not from the recording's events: the
recorded output is their one source, as it is for a replay.
``page.html?t=2.5`` (or ``#t=2.5``) opens at 2.5 s; the default is the end.

Everything from the recording is data. Text in the page's markup is
HTML-escaped; the screens travel as JSON in a ``<script type="application/json">``
block with ``<``, ``>``, ``&``, U+2028 and U+2029 written as ``\\u003c``...,
so no byte sequence can close that block; the page's script builds the screen
with ``textContent`` and class names it chose itself, never ``innerHTML``.
Cells in an OSC 8 hyperlink become ``<a href>`` elements (made by the
script, ``rel="noopener noreferrer"``) only for http, https, mailto and
file URLs (:func:`~termsim.report.draw.safe_link`), which the script checks
again, as written and as the browser parsed them; any other URL, say
``javascript:``, never reaches the page and its cells stay text. Following
a link is a navigation, which the Content-Security-Policy does not govern,
so the page still loads nothing.

The screens are computed by walking the events once through one
:class:`~termsim.emulator.Terminal`, taking a snapshot after each output or resize
event (at most ``max_frames``, evenly spaced, always keeping the last); rows
shared between frames are stored once, and each screen is let go once it
is encoded. The page is written to a stream piece by piece
(:func:`write_recording_html`; :func:`recording_html` is that into a
string), never held as one string (``tests/test_html_memory.py`` bounds
an export's peak memory by the page). This module assembles the page and
writes its markup (header, player, timeline, event list); encoding the
screens as the page's data is :mod:`termsim.report.html_screens`'s, and the
page's inline style sheet and script are :mod:`termsim.report.html_assets`'s.
"""

from __future__ import annotations

import base64
import hashlib
import io
from typing import Any, TextIO

from ..emulator.signals.signals import (
    BellRung,
    ClipboardWrite,
    DirectoryChange,
    ImageSent,
    NotificationSent,
    ShellMark,
    Signal,
    TitleChange,
)
from ..emulator.terminal.terminal import printable
from ..errors import describe_status
from ..events import (
    End,
    Event,
    Exit,
    Input,
    InputRead,
    Note,
    Resize,
    ScreenCompared,
    TtyMode,
    WaitStarted,
    Warned,
)
from ..recording.format import Recording
from .draw import escape
from .html_assets import CSS, SCRIPT
from .html_screens import FrameEncoder, write_json_for_script
from .html_trace import trace_data, trace_html

#: The script and the screen encoder under the names tests/test_html.py
#: imports them by (they were this module's own before it was split).
_SCRIPT = SCRIPT
_Encoder = FrameEncoder

#: At most this many screens go into a page.
MAX_FRAMES = 2000


def recording_html(recording: Recording, *, max_frames: int = MAX_FRAMES) -> str:
    """The recording as a standalone HTML page (see the module's description)."""
    out = io.StringIO()
    write_recording_html(recording, out, max_frames=max_frames)
    return out.getvalue()


def write_recording_html(recording: Recording, out: TextIO, *,
                         max_frames: int = MAX_FRAMES) -> None:
    """Write the page :func:`recording_html` returns to ``out``, piece by piece.

    What this holds at once is the page's data (the distinct rows, the
    frames' indexes into them), one screen, and one piece of text: never
    the page as one string, which building it from parts and escaping its
    JSON made several copies of. ``termsim export`` writes through this
    to its file."""
    if max_frames < 2:
        raise ValueError("max_frames must be at least 2")
    encoder = FrameEncoder()
    trace, told, last = trace_data(recording, encoder, max_frames)
    frames = trace["frames"]
    data = {"duration": recording.duration, "rows": encoder.rows, "links": encoder.links,
            **trace}
    # The last screen comes after the last output, so it holds every signal.
    signals = [s for s in last.signals.all() if s.t is not None]
    del last
    script = SCRIPT
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    csp = (
        "default-src 'none'; "
        f"script-src 'sha256-{digest}'; "
        "style-src 'unsafe-inline'; "
        "img-src 'none'; font-src 'none'; connect-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )
    title = "termsim: " + " ".join(str(a) for a in recording.header.get("argv") or [])
    write = out.write
    for part in (
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>\n{CSS}{encoder.css()}</style>",
        "</head>",
        "<body>",
        f"<h1>{escape(title)}</h1>",
        _header_html(recording, len(frames)),
        trace_html(told),
        _player_html(recording),
        _timeline_html(recording, signals),
        _events_html(recording, signals),
    ):
        write(part + "\n")
    write('<script type="application/json" id="termsim-data">')
    write_json_for_script(data, write)
    write("</script>\n")
    write(f"<script>{script}</script>\n</body>\n</html>\n")


# -- the page's markup -----------------------------------------------------------------


def _t(seconds: float) -> str:
    return f"{seconds:.6f}"


def _status(event: Exit) -> str:
    return describe_status(event.status)


def _bytes_text(data: object) -> str:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return printable(bytes(data).decode("utf-8", "backslashreplace"))
    return printable(str(data))


def _header_html(recording: Recording, frames: int) -> str:
    h = recording.header
    versions = h.get("versions") or {}
    state = "complete" if recording.complete else (
        f"incomplete (readable up to byte {recording.stopped_at})")
    exits = list(recording.of_type(Exit))
    rows = [
        ("command", " ".join(str(a) for a in h.get("argv") or [])),
        ("cwd", h.get("cwd", "")),
        ("size", f"{recording.cols}x{recording.rows}"),
        ("TERM", h.get("term", "")),
        ("started", h.get("started", "?")),
        ("versions", ", ".join(f"{k} {v}" for k, v in versions.items())
         if isinstance(versions, dict) else str(versions)),
        ("platform", h.get("platform", "")),
        ("duration", f"{recording.duration:.3f} s"),
        ("exit", _status(exits[-1]) if exits else "the program had not exited"),
        ("file", f"{recording.path} ({recording.size} bytes, {state})"),
        ("screens", f"{frames} in this page"),
    ]
    policy = h.get("policy")
    if policy and isinstance(policy, dict):
        rows.append(("policy", ", ".join(f"{k}={v}" for k, v in policy.items())))
    cells = "\n".join(
        f'<tr><th scope="row">{escape(k)}</th><td data-key="{escape(k)}">{escape(v)}</td></tr>'
        for k, v in rows
    )
    return f'<table id="header">\n{cells}\n</table>'


def _player_html(recording: Recording) -> str:
    duration = recording.duration
    return "\n".join([
        '<div id="player">',
        '<div id="controls">',
        '<button type="button" id="prev" title="previous screen">&#9664;</button>',
        '<button type="button" id="play" title="play from here">play</button>',
        '<button type="button" id="next" title="next screen">&#9654;</button>',
        f'<input type="range" id="scrubber" min="0" max="{_t(duration)}" step="any" '
        f'value="{_t(duration)}" aria-label="time">',
        f'<span id="time">{duration:.3f} s</span>',
        "</div>",
        '<div id="screen-title"></div>',
        '<div id="screen" role="img" aria-label="the terminal screen"></div>',
        "</div>",
    ])


def _waits(recording: Recording) -> list[dict[str, Any]]:
    return [
        {"id": w.id, "start": w.start, "end": w.end if w.end is not None else recording.duration,
         "outcome": w.outcome, "predicate": w.predicate, "since": w.since,
         "timeout": w.timeout}
        for w in recording.waits()
    ]


def _outcome_class(outcome: str) -> str:
    return {"matched": "ok", "timed out": "bad", "unfinished": "bad"}.get(outcome, "warn")


def _pct(t: float, duration: float) -> str:
    return f"{(100 * t / duration if duration > 0 else 0):.4f}"


#: Longest description of a signal shown (a clipboard write or a
#: notification may carry kilobytes).
_SIGNAL_TEXT = 200


def _signal_kind(signal: Signal) -> str:
    """The class of a signal's tick and line: ``signal`` and its kind."""
    kind = {BellRung: "bell", TitleChange: "title", DirectoryChange: "directory",
            ClipboardWrite: "clipboard", NotificationSent: "notification", ShellMark: "mark",
            ImageSent: "image"}.get(type(signal), "other")
    return f"signal {kind}"


def _signal_text(signal: Signal) -> str:
    text = signal.describe()
    if len(text) > _SIGNAL_TEXT:
        text = text[:_SIGNAL_TEXT - 1] + "…"
    return f"said: {text}"


def _signal_time(signal: Signal) -> float:
    return signal.t if signal.t is not None else 0.0


def _timeline_html(recording: Recording, signals: list[Signal]) -> str:
    duration = recording.duration
    marks = []
    for w in _waits(recording):
        width = max(0.0, w["end"] - w["start"])
        label = (f"wait #{w['id']}: {w['predicate']}: {w['outcome']} after {width:.3f} s"
                 f" (timeout {w['timeout']} s)")
        marks.append(
            f'<div class="mark wait {_outcome_class(w["outcome"])}" '
            f'style="left:{_pct(w["start"], duration)}%;'
            f'width:{_pct(width, duration)}%" data-t="{_t(w["end"])}" '
            f'title="{escape(label)}"></div>'
        )
    for event in recording.events:
        kind = _tick_class(event)
        if kind is None:
            continue
        marks.append(
            f'<div class="tick {kind}" style="left:{_pct(event.t, duration)}%" '
            f'data-t="{_t(event.t)}" title="{escape(_event_text(event))}"></div>'
        )
    for signal in signals:
        t = _signal_time(signal)
        marks.append(
            f'<div class="tick {_signal_kind(signal)}" style="left:{_pct(t, duration)}%" '
            f'data-t="{_t(t)}" title="{escape(_signal_text(signal))}"></div>'
        )
    return "\n".join([
        '<div id="timeline">',
        '<div class="lane" id="wait-lane">',
        *[m for m in marks if m.startswith('<div class="mark')],
        "</div>",
        '<div class="lane" id="event-lane">',
        *[m for m in marks if m.startswith('<div class="tick')],
        '<div id="playhead"></div>',
        "</div>",
        "</div>",
    ])


def _tick_class(event: Event) -> str | None:
    """The timeline lane's class for events that get a tick (None: no tick)."""
    match event:
        case Input():
            return "input"
        case Note():
            return "note"
        case Warned():
            return "warning"
        case Exit():
            return "exit"
        case Resize():
            return "resize"
        case _:
            return None


def _event_text(event: Event) -> str | None:
    """An event as one line of the list (None: not listed)."""
    match event:
        case Input(data=data, label=label):
            return f"{label}: {_bytes_text(data)}"
        case Note(label=label):
            return f"note: {label}"
        case Warned(message=message):
            return f"warning: {message}"
        case Exit():
            return f"exit: {_status(event)}"
        case Resize(cols=cols, rows=rows):
            return f"resize to {cols}x{rows}"
        case TtyMode(raw=raw):
            return "tty raw (reading keys)" if raw else "tty cooked"
        case InputRead(index=index, answered=answered):
            return f"the program read input #{index}" + (
                " and drew its answer" if answered else "")
        case End(how=how):
            return f"session {how}"
        case _:
            return None


def _events_html(recording: Recording, signals: list[Signal]) -> str:
    """The list of events, with the signals the output carried merged in
    by time (a signal after the events of its own moment: it came with
    output, which the list does not show)."""
    waits = {w["id"]: w for w in _waits(recording)}
    items = []
    pending = iter(signals)
    signal = next(pending, None)
    for event in recording.events:
        while signal is not None and _signal_time(signal) < event.t:
            items.append(_signal_html(signal))
            signal = next(pending, None)
        if isinstance(event, ScreenCompared):
            items.append(_compared_html(event, waits.get(event.wait)))
            continue
        if isinstance(event, WaitStarted):
            w = waits.get(event.id)
            if w is None:
                continue
            since = f" since {w['since']}" if w["since"] else ""
            text = (f"wait #{w['id']} for {w['predicate']}{since} (timeout {w['timeout']} s): "
                    f"{w['outcome']} after {w['end'] - w['start']:.3f} s")
            kind = f"wait {_outcome_class(w['outcome'])}"
        else:
            line = _event_text(event)
            if line is None:
                continue
            text = line
            kind = _tick_class(event) or {TtyMode: "tty", InputRead: "read"}.get(
                type(event), type(event).__name__.lower())
        items.append(
            f'<li class="ev {kind}" data-t="{_t(event.t)}"><span class="at">'
            f"{event.t:9.3f} s</span> {escape(text)}</li>"
        )
    while signal is not None:
        items.append(_signal_html(signal))
        signal = next(pending, None)
    return '<ol id="events">\n' + "\n".join(items) + "\n</ol>"


def _signal_html(signal: Signal) -> str:
    t = _signal_time(signal)
    return (f'<li class="ev {_signal_kind(signal)}" data-t="{_t(t)}"><span class="at">'
            f"{t:9.3f} s</span> {escape(_signal_text(signal))}</li>")


def _compared_html(event: ScreenCompared, wait: dict[str, Any] | None) -> str:
    """An expect_screen() comparison: one line when it matched; expected and
    actual side by side, the differing rows marked, when it did not."""
    matched = wait is not None and wait["outcome"] == "matched"
    source = f"golden {event.golden}" if event.golden else "the expected screen"
    head = (f'<li class="ev compare {"ok" if matched else "bad"}" data-t="{_t(event.t)}">'
            f'<span class="at">{event.t:9.3f} s</span> ')
    if matched:
        return f"{head}{escape(f'screen matched {source}')}</li>"
    expected, actual = event.expected.splitlines(), event.actual.splitlines()
    rows = max(len(expected), len(actual))
    expected += [""] * (rows - len(expected))
    actual += [""] * (rows - len(actual))

    def column(lines: list[str], other: list[str]) -> str:
        return "\n".join(f"<mark>{escape(a)}</mark>" if a != b else escape(a)
                         for a, b in zip(lines, other, strict=True))

    return (f"{head}{escape(f'screen did not match {source}')}"
            '<div class="compare"><figure><figcaption>expected</figcaption>'
            f"<pre>{column(expected, actual)}</pre></figure>"
            '<figure><figcaption>actual</figcaption>'
            f"<pre>{column(actual, expected)}</pre></figure></div></li>")
