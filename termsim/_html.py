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
shared between frames are stored once.

Why this module is long: the page's style and script are inline, because
the report must be one self-contained file that loads nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from itertools import groupby, repeat
from operator import itemgetter
from typing import Any

from pyte.screens import Char

from . import _recording as rec
from ._errors import describe_status
from ._recording import Recording, apply_to_terminal
from ._snapshot import Snapshot
from ._svg import DEFAULT_BG, DEFAULT_FG, Look, clean, colour, cursor_cell
from ._terminal import QUERY_KINDS, Terminal, printable

#: At most this many screens go into a page.
MAX_FRAMES = 2000

_DEFAULT_LOOK = Look(DEFAULT_FG, DEFAULT_BG)
#: A pyte character's attributes (all but its text), and those of a plain blank.
_ATTRS = itemgetter(slice(1, None))
_DATA = itemgetter(0)
_PLAIN = Char(" ")[1:]


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
        f'<meta http-equiv="Content-Security-Policy" content="{_esc(csp)}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(title)}</title>",
        f"<style>\n{_CSS}{encoder.css()}</style>",
        "</head>",
        "<body>",
        f"<h1>{_esc(title)}</h1>",
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
    events = recording.events
    changing = [i for i, e in enumerate(events) if e.kind in (rec.OUTPUT, rec.RESIZE)]
    room = max_frames - 1  # the first, empty screen is always a frame
    if len(changing) > room:
        last = len(changing) - 1
        keep = {changing[round(k * last / (room - 1))] for k in range(room)} if room > 1 \
            else {changing[-1]}
    else:
        keep = set(changing)
    policy = recording.header.get("policy") or {}
    terminal = Terminal(
        recording.cols, recording.rows,
        policy={k: v for k, v in policy.items() if k in QUERY_KINDS},
    )
    frames = [(0.0, terminal.screen)]
    for i, event in enumerate(events):
        if apply_to_terminal(terminal, event) and i in keep:
            frames.append((event.t, terminal.screen))
    return frames


class _Encoder:
    """Rows as runs of ``[text, look]`` (or a plain string when the whole row is
    in the default look), each distinct row stored once.

    This reads the snapshot's rows of pyte characters directly (a row is a
    mapping column -> character, shared between snapshots and never mutated),
    grouping cells by their attributes: a page holds up to thousands of
    screens, and going through ``Snapshot.cell`` for each cell is too slow.
    """

    def __init__(self) -> None:
        self.rows: list[Any] = []
        self._row_ids: dict[Any, int] = {}
        self.looks: list[Look] = [_DEFAULT_LOOK]
        self._look_ids: dict[Look, int] = {_DEFAULT_LOOK: 0}
        self._attr_looks: dict[tuple[Any, bool], int] = {}
        # Each row object is encoded once (per cursor column); the objects are
        # kept here, so their ids stay theirs.
        self._by_row: dict[tuple[int, int, int], tuple[object, object, int]] = {}

    def frame(self, t: float, snap: Snapshot) -> dict[str, Any]:
        cursor = cursor_cell(snap)
        rows = [
            self._row(snap, r, cursor[1] if cursor is not None and cursor[0] == r else -1)
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

    def _row(self, snap: Snapshot, r: int, cursor_col: int) -> int:
        # Snapshot's own storage (its rows are shared and never mutated).
        cells: Mapping[int, Char] = snap._cells[r]
        default: Char = snap._default
        key = (id(cells), id(default), cursor_col)
        known = self._by_row.get(key)
        if known is not None and known[0] is cells and known[1] is default:
            return known[2]
        index = self._intern(self._encode(cells, snap.cols, default, cursor_col))
        self._by_row[key] = (cells, default, index)
        return index

    def _encode(self, row: Mapping[int, Char], cols: int, default: Char,
                cursor_col: int) -> Any:
        chars = list(map(row.get, range(cols), repeat(default, cols)))
        n = cols
        while n and chars[n - 1][0] == " " and chars[n - 1][1:] == _PLAIN:
            n -= 1
        segments = [(0, n, False)]
        if cursor_col >= 0:
            c = cursor_col
            if chars[c][0] == "" and c > 0:
                c -= 1  # on the right half of a wide character: the whole of it
            width = 2 if c + 1 < cols and chars[c + 1][0] == "" and chars[c][0] != "" else 1
            n = max(n, c + width)
            segments = [(0, c, False), (c, c + width, True), (c + width, n, False)]
        runs: list[tuple[str, int]] = []
        for start, stop, is_cursor in segments:
            for attrs, group in groupby(chars[start:stop], key=_ATTRS):
                look = self._look(attrs, is_cursor)
                text = "".join(map(_DATA, group))
                if runs and runs[-1][1] == look:
                    runs[-1] = (runs[-1][0] + text, look)
                else:
                    runs.append((text, look))
        if not runs:
            return ""
        if len(runs) == 1 and runs[0][1] == 0:
            return clean(runs[0][0])
        return tuple((clean(text), look) for text, look in runs)

    def _look(self, attrs: Any, is_cursor: bool) -> int:
        key = (attrs, is_cursor)
        index = self._attr_looks.get(key)
        if index is not None:
            return index
        fg_name, bg_name, bold, italic, underline, strikethrough, reverse = attrs[:7]
        fg, bg = colour(str(fg_name), DEFAULT_FG), colour(str(bg_name), DEFAULT_BG)
        if reverse:
            fg, bg = bg, fg
        if is_cursor:
            fg, bg = bg, fg
        look = Look(fg, bg, bool(bold), bool(italic), bool(underline), bool(strikethrough),
                    is_cursor)
        index = self._look_ids.get(look)
        if index is None:
            index = self._look_ids[look] = len(self.looks)
            self.looks.append(look)
        self._attr_looks[key] = index
        return index

    def _intern(self, row: Any) -> int:
        index = self._row_ids.get(row)
        if index is None:
            index = self._row_ids[row] = len(self.rows)
            self.rows.append(row if isinstance(row, str) else [list(run) for run in row])
        return index

    def css(self) -> str:
        """One class per look, ``.s1``...: colours are ``#rrggbb`` from the palette."""
        out = []
        for i, look in enumerate(self.looks[1:], start=1):
            rules = [f"color:{look.fg}", f"background:{look.bg}"]
            if look.bold:
                rules.append("font-weight:bold")
            if look.italic:
                rules.append("font-style:italic")
            lines = [n for n, on in (("underline", look.underline),
                                     ("line-through", look.strikethrough)) if on]
            if lines:
                rules.append("text-decoration:" + " ".join(lines))
            if look.cursor:
                rules.append(f"outline:1px solid {DEFAULT_FG};outline-offset:-1px")
            out.append(f"#screen .s{i}{{{';'.join(rules)}}}\n")
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


def _esc(value: object) -> str:
    """HTML-escape text for an element or a quoted attribute."""
    text = clean(str(value))
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace('"', "&quot;").replace("'", "&#39;")
    )


def _t(seconds: float) -> str:
    return f"{seconds:.6f}"


def _details(event: rec.Event) -> dict[str, Any]:
    return event.data[0] if event.data and isinstance(event.data[0], dict) else {}


def _status(event: rec.Event) -> str:
    status = event.data[0] if event.data else None
    return describe_status(status if isinstance(status, int) else None)


def _bytes_text(data: object) -> str:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return printable(bytes(data).decode("utf-8", "backslashreplace"))
    return printable(str(data))


def _header_html(recording: Recording, frames: int) -> str:
    h = recording.header
    versions = h.get("versions") or {}
    state = "complete" if recording.complete else (
        f"incomplete (readable up to byte {recording.stopped_at})")
    exits = list(recording.of_kind(rec.EXIT))
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
        f'<tr><th scope="row">{_esc(k)}</th><td data-key="{_esc(k)}">{_esc(v)}</td></tr>'
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
            f'title="{_esc(label)}"></div>'
        )
    ticks = {rec.INPUT: "input", rec.NOTE: "note", rec.WARNING: "warning", rec.EXIT: "exit",
             rec.RESIZE: "resize"}
    for event in recording.events:
        kind = ticks.get(event.kind)
        if kind is None:
            continue
        marks.append(
            f'<div class="tick {kind}" style="left:{_pct(event.t, duration)}%" '
            f'data-t="{_t(event.t)}" title="{_esc(_event_text(event))}"></div>'
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


def _event_text(event: rec.Event) -> str:
    d = event.data
    if event.kind == rec.INPUT:
        origin = str(d[1]) if len(d) > 1 else "input"
        return f"{origin}: {_bytes_text(d[0]) if d else ''}"
    if event.kind == rec.NOTE:
        return f"note: {d[0] if d else ''}"
    if event.kind == rec.WARNING:
        return f"warning: {d[0] if d else ''}"
    if event.kind == rec.EXIT:
        return f"exit: {_status(event)}"
    if event.kind == rec.RESIZE:
        return f"resize to {d[0]}x{d[1]}" if len(d) > 1 else "resize"
    if event.kind == rec.TTY:
        return "tty raw (reading keys)" if d and d[0] else "tty cooked"
    if event.kind == rec.END:
        return f"session {d[0] if d else 'closed'}"
    return event.kind


def _events_html(recording: Recording) -> str:
    waits = {w["id"]: w for w in _waits(recording)}
    items = []
    for event in recording.events:
        if event.kind == rec.WAIT_START:
            w = waits.get(_details(event).get("id"))
            if w is None:
                continue
            since = f" since {w['since']}" if w["since"] else ""
            text = (f"wait #{w['id']} for {w['predicate']}{since} (timeout {w['timeout']} s): "
                    f"{w['outcome']} after {w['end'] - w['start']:.3f} s")
            kind = f"wait {_outcome_class(w['outcome'])}"
        elif event.kind in (rec.INPUT, rec.NOTE, rec.WARNING, rec.EXIT, rec.RESIZE, rec.TTY,
                            rec.END):
            text = _event_text(event)
            kind = {rec.INPUT: "input", rec.NOTE: "note", rec.WARNING: "warning",
                    rec.EXIT: "exit", rec.RESIZE: "resize", rec.TTY: "tty",
                    rec.END: "end"}[event.kind]
        else:
            continue
        items.append(
            f'<li class="ev {kind}" data-t="{_t(event.t)}"><span class="at">'
            f"{event.t:9.3f} s</span> {_esc(text)}</li>"
        )
    return '<ol id="events">\n' + "\n".join(items) + "\n</ol>"


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
