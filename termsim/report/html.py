"""A recording as one self-contained HTML page: a timeline of the session's screens.

The page needs nothing but itself when opened: no network, no external
scripts, fonts or images (its Content-Security-Policy forbids them, and allows
only its own inline script, by hash). It shows the header (command, size,
TERM, versions, start time), a scrubber over the screens, the waits as marks
on a timeline with their outcome and duration, and the inputs, notes,
warnings, resizes and exit in a list; clicking a mark or a line moves the
scrubber there. ``page.html?t=2.5`` (or ``#t=2.5``) opens at 2.5 s; the default
is the end.

Everything from the recording is data. Text in the page's markup is
HTML-escaped; the screens travel as JSON in a ``<script type="application/json">``
block with ``<``, ``>``, ``&``, U+2028 and U+2029 written as ``\\u003c``...,
so no byte sequence can close that block; the page's script builds the screen
with ``textContent`` and class names it chose itself, never ``innerHTML``.

The screens are computed by walking the events once through one
:class:`~termsim.Terminal`, taking a snapshot after each output or resize
event (at most ``max_frames``, evenly spaced, always keeping the last); rows
shared between frames are stored once. How a row is drawn (colours, the
cursor, characters markup cannot hold) is :mod:`termsim.report.draw`'s, shared with
the SVG screenshot; this module only encodes it.

Why this module is long: the page's style and script are inline, because
the report must be one self-contained file that loads nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from ..emulator.snapshot import Run, Snapshot
from ..emulator.terminal import printable
from ..engine.playback import Playback
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
from .draw import (
    DEFAULT_BG,
    DEFAULT_FG,
    DEFAULT_LOOK,
    Look,
    clean,
    cursor_cell,
    decoration,
    drawn_runs,
    escape,
)

#: At most this many screens go into a page.
MAX_FRAMES = 2000


def recording_html(recording: Recording, *, max_frames: int = MAX_FRAMES) -> str:
    """The recording as a standalone HTML page (see the module's description)."""
    if max_frames < 2:
        raise ValueError("max_frames must be at least 2")
    encoder = _Encoder()
    frames = _dedupe([encoder.frame(t, snap) for t, snap in _frames(recording, max_frames)])
    data = {"duration": recording.duration, "frames": frames, "rows": encoder.rows}
    script = _SCRIPT
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    csp = (
        "default-src 'none'; "
        f"script-src 'sha256-{digest}'; "
        "style-src 'unsafe-inline'; "
        "img-src 'none'; font-src 'none'; connect-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )
    title = "termsim: " + " ".join(str(a) for a in recording.header.get("argv") or [])
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>\n{_CSS}{encoder.css()}</style>",
        "</head>",
        "<body>",
        f"<h1>{escape(title)}</h1>",
        _header_html(recording, len(frames)),
        _player_html(recording),
        _timeline_html(recording),
        _events_html(recording),
        f'<script type="application/json" id="termsim-data">{_json_for_script(data)}</script>',
        f"<script>{script}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


# -- screens -----------------------------------------------------------------------------


def _frames(recording: Recording, max_frames: int) -> list[tuple[float, Snapshot]]:
    """``(time, screen)``: the first screen, then one after each output or resize
    event (evenly chosen, the last always kept, when there are too many)."""
    return Playback(recording).frames(max_frames)


class _Encoder:
    """Rows as runs of ``[text, look]`` (or a plain string when the whole row is
    in the default look), each distinct row stored once.

    A page holds up to thousands of screens that share most of their rows,
    so a row is encoded once per runs tuple (``Snapshot.runs`` hands the same
    tuple to every snapshot that shares the row) and cursor column, and
    looks are numbered by identity first (``_draw`` hands out one ``Look``
    per style).
    """

    def __init__(self) -> None:
        self.rows: list[Any] = []
        self._row_ids: dict[Any, int] = {}
        self.looks: list[Look] = [DEFAULT_LOOK]
        self._look_ids: dict[Look, int] = {DEFAULT_LOOK: 0}
        # id(look) -> (look, index): the looks are kept, so their ids stay theirs.
        self._looks_seen: dict[int, tuple[Look, int]] = {}
        # (id(runs), cursor column) -> row index, and the runs by id, kept so
        # their ids stay theirs (two dicts: no object per row).
        self._by_runs: dict[tuple[int, int], int] = {}
        self._runs_kept: dict[int, tuple[Run, ...]] = {}

    def frame(self, t: float, snap: Snapshot) -> dict[str, Any]:
        cursor = cursor_cell(snap)
        rows = [
            self._row(snap.runs(r), cursor[1] if cursor is not None and cursor[0] == r else -1)
            for r in range(snap.rows)
        ]
        cur = snap.cursor
        frame: dict[str, Any] = {
            "t": t,
            "r": rows,
            "c": [cur.row, cur.col, cur.visible],
            "w": snap.cols,
        }
        if snap.title:
            frame["title"] = clean(snap.title)
        if snap.alternate:
            frame["alt"] = True
        return frame

    def _row(self, runs: tuple[Run, ...], cursor_col: int) -> int:
        key = (id(runs), cursor_col)
        if self._runs_kept.get(key[0]) is runs:
            known = self._by_runs.get(key)
            if known is not None:
                return known
        else:
            self._runs_kept[key[0]] = runs
        index = self._by_runs[key] = self._intern(self._encode(runs, cursor_col))
        return index

    def _encode(self, runs: tuple[Run, ...], cursor_col: int) -> Any:
        out: list[tuple[str, int]] = []
        for drawn in drawn_runs(runs, cursor_col if cursor_col >= 0 else None):
            look = self._look(drawn.look)
            if out and out[-1][1] == look:
                out[-1] = (out[-1][0] + drawn.text, look)
            else:
                out.append((drawn.text, look))
        if not out:
            return ""
        if len(out) == 1 and out[0][1] == 0:
            return out[0][0]
        return tuple(out)

    def _look(self, look: Look) -> int:
        seen = self._looks_seen.get(id(look))
        if seen is not None and seen[0] is look:
            return seen[1]
        index = self._look_ids.get(look)
        if index is None:
            index = self._look_ids[look] = len(self.looks)
            self.looks.append(look)
        self._looks_seen[id(look)] = (look, index)
        return index

    def _intern(self, row: Any) -> int:
        index = self._row_ids.get(row)
        if index is None:
            index = self._row_ids[row] = len(self.rows)
            self.rows.append(row if isinstance(row, str) else [list(run) for run in row])
        return index

    def css(self) -> str:
        """One class per look, ``.s1``...: colours are ``#rrggbb`` from the
        palette, dim and invisible text already in theirs (``draw.look``)."""
        out = []
        blink = False
        for i, look in enumerate(self.looks[1:], start=1):
            rules = [f"color:{look.fg}", f"background:{look.bg}"]
            if look.bold:
                rules.append("font-weight:bold")
            if look.italic:
                rules.append("font-style:italic")
            lines, styled = decoration(look)
            if lines:
                rules.append("text-decoration:" + lines)
                rules += styled
            if look.blink:
                rules.append("animation:termsim-blink 1s step-end infinite")
                blink = True
            if look.cursor:
                rules.append(f"outline:1px solid {DEFAULT_FG};outline-offset:-1px")
            out.append(f"#screen .s{i}{{{';'.join(rules)}}}\n")
        if blink:
            out.append("@keyframes termsim-blink{50%{color:transparent}}\n")
        return "".join(out)


def _dedupe(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop frames that look exactly like the one before them."""
    out: list[dict[str, Any]] = []
    for frame in frames:
        if out and {k: v for k, v in frame.items() if k != "t"} == {
                k: v for k, v in out[-1].items() if k != "t"}:
            continue
        out.append(frame)
    return out


def _json_for_script(data: Any) -> str:
    """JSON that cannot end its ``<script>`` block or start markup inside it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    )


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


def _timeline_html(recording: Recording) -> str:
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


def _events_html(recording: Recording) -> str:
    waits = {w["id"]: w for w in _waits(recording)}
    items = []
    for event in recording.events:
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
    return '<ol id="events">\n' + "\n".join(items) + "\n</ol>"


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


_CSS = f"""\
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 1em; background: #f4f4f4; color: #222; }}
h1 {{ font-size: 1.1em; font-family: monospace; word-break: break-all; }}
#header {{ border-collapse: collapse; margin-bottom: 1em; }}
#header th {{ text-align: left; padding: 0 1em 0 0; font-weight: 600; vertical-align: top; }}
#header td {{ font-family: monospace; white-space: pre-wrap; word-break: break-all; }}
#controls {{ display: flex; gap: .5em; align-items: center; margin: .5em 0; }}
#scrubber {{ flex: 1; }}
#time {{ font-family: monospace; min-width: 16em; }}
#screen-title {{ font-family: monospace; color: #555; min-height: 1.4em; }}
#screen {{ display: inline-block; white-space: pre; font: 15px/18px 'DejaVu Sans Mono',
  'Liberation Mono', Menlo, Consolas, monospace; background: {DEFAULT_BG};
  color: {DEFAULT_FG}; padding: 8px; min-width: 10ch; overflow-x: auto; }}
#timeline {{ margin: 1em 0; }}
.lane {{ position: relative; height: 14px; background: #ddd; margin: 2px 0; }}
.mark, .tick {{ position: absolute; top: 0; height: 14px; cursor: pointer; }}
.mark {{ min-width: 3px; opacity: .85; box-shadow: inset -1px 0 #fff; }}
.tick {{ width: 2px; background: #333; }}
.tick.warning {{ background: #c60; }} .tick.note {{ background: #06c; }}
.tick.exit {{ background: #a00; width: 3px; }}
.ok {{ background: #3a3; }} .bad {{ background: #d33; }} .warn {{ background: #e90; }}
#playhead {{ position: absolute; top: -2px; height: 18px; width: 2px; background: #000;
  pointer-events: none; }}
#events {{ list-style: none; padding: 0; font-family: monospace; }}
#events li {{ cursor: pointer; white-space: pre-wrap; word-break: break-all; }}
#events li:hover {{ background: #e4e4ff; }}
#events li.wait.ok {{ background: none; color: #161; }}
#events li.compare.ok {{ background: none; color: #161; }}
#events li.compare.bad {{ background: none; color: #b00; }}
.compare {{ display: flex; gap: 1em; flex-wrap: wrap; color: #222; }}
.compare figure {{ margin: .3em 0; }}
.compare figcaption {{ font-weight: 600; }}
.compare pre {{ margin: 0; padding: 4px; background: #fff; border: 1px solid #ccc;
  font: 13px/16px 'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace; }}
.compare mark {{ background: #fdd; }}
#events li.wait.bad {{ background: none; color: #b00; }}
#events li.wait.warn {{ background: none; color: #a60; }}
#events li.warning {{ color: #a50; }} #events li.note {{ color: #04a; }}
#events li.current {{ outline: 1px solid #888; }}
"""

# The page's own script: reads the JSON block, builds the screen with DOM calls
# and textContent only, and honours ?t=SECONDS / #t=SECONDS.
_SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("termsim-data").textContent);
  var frames = data.frames, rows = data.rows, duration = data.duration;
  var scrubber = document.getElementById("scrubber");
  var screen = document.getElementById("screen");
  var timeEl = document.getElementById("time");
  var titleEl = document.getElementById("screen-title");
  var playhead = document.getElementById("playhead");
  var playButton = document.getElementById("play");
  var shown = -1, now = duration, playing = false, last = 0;

  function frameAt(t) {
    var lo = 0, hi = frames.length - 1;
    if (t < frames[0].t) { return 0; }
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (frames[mid].t <= t) { lo = mid; } else { hi = mid - 1; }
    }
    return lo;
  }

  function draw(i) {
    var frame = frames[i];
    var part = document.createDocumentFragment();
    frame.r.forEach(function (index, y) {
      if (y > 0) { part.appendChild(document.createTextNode("\\n")); }
      var row = rows[index];
      if (typeof row === "string") {
        part.appendChild(document.createTextNode(row));
        return;
      }
      row.forEach(function (run) {
        if (run[1] === 0) {
          part.appendChild(document.createTextNode(run[0]));
        } else {
          var span = document.createElement("span");
          span.className = "s" + String(run[1] | 0);
          span.textContent = run[0];
          part.appendChild(span);
        }
      });
    });
    while (screen.firstChild) { screen.removeChild(screen.firstChild); }
    screen.appendChild(part);
    screen.style.minWidth = String(frame.w | 0) + "ch";
    screen.setAttribute("data-frame", String(i));
    screen.setAttribute("data-t", String(frame.t));
    titleEl.textContent = frame.title ? "title: " + frame.title : "";
    shown = i;
  }

  function show(t) {
    if (!(t >= 0)) { t = 0; }
    if (t > duration) { t = duration; }
    now = t;
    var i = frameAt(t);
    if (i !== shown) { draw(i); }
    timeEl.textContent = t.toFixed(3) + " s / " + duration.toFixed(3) + " s, screen " +
      String(i + 1) + " of " + String(frames.length);
    timeEl.setAttribute("data-t", String(t));
    var pct = duration > 0 ? 100 * t / duration : 0;
    playhead.style.left = pct.toFixed(4) + "%";
  }

  function seek(t) {
    show(t);
    scrubber.value = String(now);
  }

  function requested() {
    var sources = [location.search.replace(/^\\?/, ""), location.hash.replace(/^#/, "")];
    for (var k = 0; k < sources.length; k++) {
      var params = new URLSearchParams(sources[k]);
      if (params.has("t")) {
        var t = parseFloat(params.get("t"));
        if (isFinite(t)) { return t; }
      }
    }
    return duration;
  }

  function step(direction) {
    var i = frameAt(now);
    if (direction < 0) {
      seek(i > 0 ? frames[i - 1].t : 0);
    } else if (i + 1 < frames.length) {
      seek(frames[i + 1].t);
    }
  }

  function tick(stamp) {
    if (!playing) { return; }
    var next = now + (stamp - last) / 1000;
    last = stamp;
    if (next >= duration) { seek(duration); stop(); return; }
    seek(next);
    requestAnimationFrame(tick);
  }

  function stop() {
    playing = false;
    playButton.textContent = "play";
  }

  scrubber.addEventListener("input", function () { stop(); show(parseFloat(scrubber.value)); });
  document.getElementById("prev").addEventListener("click", function () { stop(); step(-1); });
  document.getElementById("next").addEventListener("click", function () { stop(); step(1); });
  playButton.addEventListener("click", function () {
    if (playing) { stop(); return; }
    if (now >= duration) { seek(0); }
    playing = true;
    playButton.textContent = "pause";
    last = performance.now();
    requestAnimationFrame(tick);
  });
  document.addEventListener("click", function (event) {
    var target = event.target;
    var el = target && target.closest ? target.closest("[data-t]") : null;
    if (!el || el === screen || el === timeEl) { return; }
    stop();
    seek(parseFloat(el.getAttribute("data-t")));
  });
  window.addEventListener("hashchange", function () { seek(requested()); });
  seek(requested());
})();
"""
