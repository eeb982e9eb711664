"""The HTML timeline page's style sheet and script, as data.

These are not Python logic but the page's static assets, kept as Python
strings rather than files beside the package so that
:func:`~termsim.report.html.recording_html` can inline them (the report
must be one self-contained file that loads nothing) without reading
package data at run time, and so that the script's hash, which the page's
Content-Security-Policy names, is computed from the very text inlined.
The style sheet is an f-string only for the screen's default colours,
which are :mod:`termsim.report.draw`'s.

Why this module is long: it is a data table, the page's whole CSS and
JavaScript.
"""

from __future__ import annotations

from .draw import DEFAULT_BG, DEFAULT_FG
from .html_trace_assets import TRACE_CSS, TRACE_SCRIPT

#: The page's style sheet (the screen's own classes, one per look, are
#: ``FrameEncoder.css``'s).
CSS = f"""\
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 1em; background: #f4f4f4; color: #222; }}
h1 {{ font-size: 1.1em; font-family: monospace; word-break: break-all; }}
#header {{ border-collapse: collapse; margin-bottom: 1em; }}
#header th {{ text-align: left; padding: 0 1em 0 0; font-weight: 600; vertical-align: top; }}
#header td {{ font-family: monospace; white-space: pre-wrap; word-break: break-all; }}
#controls {{ display: flex; gap: .5em; align-items: center; margin: .5em 0; }}
#scrubber {{ flex: 1; }}
#time {{ font-family: monospace; min-width: 16em; }}
#screen a {{ color: inherit; text-decoration: underline dotted; }}
#screen a:hover {{ text-decoration: underline; }}
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
.tick.signal {{ background: #80a; top: 7px; height: 7px; }}
.tick.signal.bell {{ background: #d0a000; }}
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
#events li.signal {{ color: #607; }}
#events li.current {{ outline: 1px solid #888; }}
""" + TRACE_CSS

#: The page's own script: reads the JSON block, builds the screen with DOM calls
#: and textContent only, and honours ?t=SECONDS / #t=SECONDS. The page's
#: Content-Security-Policy allows it by its hash.
SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("termsim-data").textContent);
  var frames = data.frames, rows = data.rows, duration = data.duration;
  var links = data.links || [];
  // The page's Python side lets only these through (draw.safe_link); the
  // script checks again, so a page whose data was edited links to nothing
  // else either: the URL as written, then as the browser parsed it.
  var LINK_SCHEMES = ["http", "https", "mailto", "file"];
  var SAFE_LINK = /^(?:https?:\\/\\/|file:|mailto:)[^\\u0000-\\u0020\\u007f-\\u009f\\\\]+$/i;

  function link(url) {
    if (typeof url !== "string" || url.length > 2083 || !SAFE_LINK.test(url)) { return null; }
    var a = document.createElement("a");
    a.href = url;
    if (LINK_SCHEMES.indexOf(a.protocol.replace(/:$/, "")) < 0) { return null; }
    a.rel = "noopener noreferrer";
    a.target = "_blank";
    a.title = url;
    return a;
  }
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
        var a = run.length > 2 ? link(links[run[2] | 0]) : null;
        if (run[1] === 0 && a === null) {
          part.appendChild(document.createTextNode(run[0]));
        } else {
          var el = a || document.createElement("span");
          if (run[1] !== 0) { el.className = "s" + String(run[1] | 0); }
          el.textContent = run[0];
          part.appendChild(el);
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
""" + TRACE_SCRIPT + """})();
"""
