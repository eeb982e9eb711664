"""The trace viewer's style sheet and script, as data (see :mod:`termsim.report.html_assets`).

The script runs inside the page's one script (the Content-Security-Policy
allows that one by hash): it reads the steps from the page's JSON, draws
the selected step's two screens (and nothing else: a screen is built when
it comes into view, never all of them up front; hyperlinks are the
player's screen's, these draw their text), its failure, and its
bytes, and answers the keyboard: left and right move between steps, up and
down between the settled screens of a step, ``/`` searches the text of
every screen of the session; ``#step=12`` opens step 12. It builds every
element with DOM calls and ``textContent``, never ``innerHTML``.
"""

from __future__ import annotations

from .draw import DEFAULT_BG, DEFAULT_FG

TRACE_CSS = f"""\
#trace {{ display: flex; gap: 1em; align-items: flex-start; margin: 1em 0; }}
#side {{ width: 26em; flex: none; }}
#steps {{ list-style: none; padding: 0; margin: 0; max-height: 70vh; overflow-y: auto;
  font: 13px/1.35 monospace; background: #fff; border: 1px solid #ccc; }}
#steps li {{ cursor: pointer; padding: 1px 4px; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }}
#steps li .num {{ display: inline-block; min-width: 3em; color: #888; }}
#steps li .at {{ color: #666; margin-right: .3em; }}
#steps li.failed {{ color: #b00; font-weight: 600; }} #steps li.passed {{ color: #161; }}
#steps li.signal {{ color: #607; }} #steps li.query {{ color: #046; }}
#steps li.current {{ background: #dde4ff; outline: 1px solid #88a; }}
#find {{ display: flex; gap: .5em; margin-bottom: .3em; }}
#search {{ flex: 1; }}
#search-results {{ list-style: none; padding: 0; margin: 0 0 .5em; max-height: 12em;
  overflow-y: auto; font: 12px/1.3 monospace; }}
#search-results li {{ cursor: pointer; white-space: pre; overflow: hidden; }}
#search-results li:focus, #search-results li:hover {{ background: #ffe9a8; }}
.keys {{ color: #666; font-size: 12px; margin: .2em 0; }}
#view {{ flex: 1; min-width: 0; }}
#step-title {{ font: 600 15px/1.4 monospace; }}
#step-details {{ font: 12px/1.4 monospace; color: #444; white-space: pre-wrap; }}
#failure {{ font: 13px/1.4 monospace; white-space: pre-wrap; }}
#failure:not(:empty) {{ border-left: 4px solid #d33; background: #fff3f3; padding: .3em .6em;
  margin: .4em 0; }}
#failure .h {{ font-weight: 600; }}
#pair {{ display: flex; flex-wrap: wrap; gap: .6em; margin: .5em 0; }}
.pane {{ flex: 1 1 auto; min-width: 0; }}
.cap {{ font: 12px monospace; color: #444; }}
.term {{ position: relative; white-space: pre; font: 11px/14px 'DejaVu Sans Mono',
  'Liberation Mono', Menlo, Consolas, monospace; background: {DEFAULT_BG};
  color: {DEFAULT_FG}; padding: 6px; overflow-x: auto; box-sizing: border-box;
  max-width: 100%; }}
.term .chg {{ background-color: #5a4a00; box-shadow: inset 0 -2px #ffd000; }}
.term .outline {{ position: absolute; border: 2px solid #ff4040; box-sizing: border-box;
  pointer-events: none; min-width: 4px; }}
#bytes-head {{ font: 600 13px monospace; margin-top: .6em; }}
#bytes {{ font: 12px/1.6 monospace; background: #fff; border: 1px solid #ccc; padding: 4px;
  max-height: 40vh; overflow-y: auto; word-break: break-all; }}
#bytes .chunk {{ margin: 2px 0; }}
#bytes .when {{ color: #888; margin-right: .5em; }}
#bytes .sq {{ background: #eef; border-radius: 2px; padding: 0 2px; color: #225; }}
#bytes .sq.control {{ background: #eee; color: #555; }}
#bytes .sq.osc, #bytes .sq.dcs, #bytes .sq.apc {{ background: #f3e8ff; }}
#bytes .sq.dropped {{ background: #fdd; }}
#bytes .nm {{ color: #777; font-style: italic; margin: 0 .4em 0 .15em; }}
#bytes .tx {{ color: #000; background: #fffbe0; }}
#bytes .read {{ color: #060; font-weight: 600; }}
#bytes .read.since {{ background: #e4ffe4; }}
#bytes .gap {{ color: #a60; }}
"""

#: Appended inside the page's script, after the player: it shares ``data``,
#: ``frames``, ``rows``, ``link`` and ``seek``.
TRACE_SCRIPT = """
  // -- the trace viewer: steps, their screens, their bytes ---------------------------
  var steps = data.steps || [], names = data.names || [], kinds = data.kinds || [];
  var stepList = document.getElementById("steps");
  var beforeEl = document.getElementById("screen-before");
  var afterEl = document.getElementById("screen-after");
  var searchEl = document.getElementById("search");
  var resultsEl = document.getElementById("search-results");
  var cur = -1, scr = -1, texts = {};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function rowText(index) {
    var text = texts[index];
    if (text === undefined) {
      var row = rows[index];
      text = typeof row === "string" ? row : row.map(function (run) { return run[0]; }).join("");
      texts[index] = text;
    }
    return text;
  }

  function changed(a, b) {
    var x = Array.from(a), y = Array.from(b), n = Math.max(x.length, y.length), out = [];
    for (var i = 0; i < n; i++) { out.push((x[i] || " ") !== (y[i] || " ")); }
    return out;
  }

  function paint(target, index, against, boxes) {
    var frame = frames[index], other = against >= 0 ? frames[against] : null;
    var part = document.createDocumentFragment();
    frame.r.forEach(function (rowIndex, y) {
      if (y > 0) { part.appendChild(document.createTextNode("\\n")); }
      var row = rows[rowIndex];
      var diff = null;
      if (other && other.r[y] !== rowIndex) {
        diff = changed(rowText(rowIndex), y < other.r.length ? rowText(other.r[y]) : "");
      }
      var runs = typeof row === "string" ? [[row, 0]] : row;
      var col = 0;
      runs.forEach(function (run) {
        var chars = Array.from(run[0]), start = 0;
        while (start < chars.length) {
          var flag = diff ? diff[col + start] : false, end = start + 1;
          while (end < chars.length && (diff ? diff[col + end] : false) === flag) { end++; }
          var text = chars.slice(start, end).join("");
          // Links are followed from the player's screen; here they are text.
          if (run[1] === 0 && !flag) {
            part.appendChild(document.createTextNode(text));
          } else {
            var s = document.createElement("span");
            var cls = run[1] !== 0 ? "s" + String(run[1] | 0) : "";
            if (flag) { cls += (cls ? " " : "") + "chg"; }
            if (cls) { s.className = cls; }
            s.textContent = text;
            part.appendChild(s);
          }
          start = end;
        }
        col += chars.length;
      });
      if (diff && diff.length > col) {
        var gone = el("span", "chg", " ".repeat(diff.length - col));
        part.appendChild(gone);
      }
    });
    (boxes || []).forEach(function (box) {
      var o = el("div", "outline");
      o.style.left = "calc(6px + " + String(box[1] | 0) + "ch)";
      o.style.top = String(6 + 14 * (box[0] | 0)) + "px";
      o.style.width = String(Math.max((box[3] | 0) - (box[1] | 0), 1)) + "ch";
      o.style.height = String(14 * Math.max((box[2] | 0) - (box[0] | 0), 1)) + "px";
      o.title = String(box[4]);
      o.setAttribute("data-box", String(box[4]));
      part.appendChild(o);
    });
    target.replaceChildren(part);
    // As big as the terminal, padding and all (border-box), blank last rows
    // too: an outline never pushes a scroller into the screen.
    target.style.width = "calc(" + String(frame.w | 0) + "ch + 12px)";
    target.style.minHeight = String(14 * frame.r.length + 12) + "px";
    target.setAttribute("data-frame", String(index));
    target.setAttribute("data-t", String(frame.t));
  }

  function list(title, items, cls) {
    var box = el("div", cls);
    box.appendChild(el("div", "h", title));
    items.forEach(function (item) { box.appendChild(el("div", "", "  " + item)); });
    return box;
  }

  function showFailure(s) {
    var box = document.getElementById("failure");
    box.replaceChildren();
    var f = s.f;
    if (!f) { return; }
    box.appendChild(el("div", "h", "why it did not match (on the final screen, right):"));
    box.appendChild(el("div", "explain", f.x === null ? "(the predicate cannot be checked " +
      "again from the recording)" : "instead: " + f.x));
    if (f.since) { box.appendChild(el("div", "since", f.since)); }
    box.appendChild(list("its parts:", f.parts, "parts"));
    box.appendChild(list("near misses:", f.near, "near"));
    if (f.box.length) {
      box.appendChild(list("outlined:", f.box.map(function (b) {
        return b[4] + " (rows " + b[0] + ":" + b[2] + ", cols " + b[1] + ":" + b[3] + ")";
      }), "boxes"));
    }
  }

  function showBytes(s) {
    var box = document.getElementById("bytes");
    var head = document.getElementById("bytes-head");
    var part = document.createDocumentFragment();
    var total = 0, reads = 0;
    s.y.forEach(function (item) {
      if (item[0] === "o") {
        total += item[2];
        var line = el("div", "chunk");
        line.setAttribute("data-t", String(item[1]));
        line.appendChild(el("span", "when", item[1].toFixed(3) + " s, " + item[2] + " bytes:"));
        item[3].forEach(function (token) {
          var kind = kinds[token[2]] || "text";
          if (kind === "text") { line.appendChild(el("span", "tx", token[0])); return; }
          var sq = el("span", "sq " + kind, token[0]);
          if (token[1] >= 0) {
            sq.title = names[token[1]];
            line.appendChild(sq);
            line.appendChild(el("span", "nm", names[token[1]]));
          } else {
            line.appendChild(sq);
          }
        });
        part.appendChild(line);
      } else if (item[0] === "r") {
        reads++;
        var since = s.f && s.f.st !== null && Math.abs(item[1] - s.f.st) < 1e-7;
        var r = el("div", since ? "read since" : "read", "\\u25b6 " + item[1].toFixed(3) +
          " s: " + item[2] + (since ? " (the wait's screens count from here)" : ""));
        part.appendChild(r);
      } else {
        part.appendChild(el("div", "gap", "\\u2026 " + item[1] + " \\u2026"));
      }
    });
    if (!s.y.length) { part.appendChild(el("div", "", "(no output in this step)")); }
    box.replaceChildren(part);
    head.textContent = "bytes: the program's output in this step (" + total + " bytes shown" +
      (reads ? ", " + reads + " reads of input marked" : "") + ")";
  }

  function showAfter() {
    var s = steps[cur];
    var final = scr === s.a;
    paint(afterEl, scr, s.b, final && s.f ? s.f.box : []);
    var cap = document.getElementById("after-cap");
    if (final) {
      cap.textContent = (s.f ? "after: the final screen of the wait, at " + s.e.toFixed(3) +
        " s (drawn at " + frames[scr].t.toFixed(3) + " s)" : "after, " +
        frames[scr].t.toFixed(3) + " s") + (s.a > s.b ? " (changed cells marked; " +
        String(s.a - s.b) + " screens since before, \\u2191 \\u2193)" : "");
    } else {
      cap.textContent = "in between: screen " + String(scr - s.b) + " of " +
        String(s.a - s.b) + ", " + frames[scr].t.toFixed(3) + " s (changed cells marked)";
    }
    afterEl.setAttribute("data-final", final ? "1" : "0");
  }

  function select(k, keepScreen) {
    if (!steps.length) { return; }
    k = Math.max(0, Math.min(steps.length - 1, k));
    var s = steps[k];
    if (cur >= 0) { stepList.children[cur].classList.remove("current"); }
    cur = k;
    var li = stepList.children[k];
    li.classList.add("current");
    li.scrollIntoView({block: "nearest"});
    document.getElementById("step-title").textContent = "step " + s.n + " of " + steps.length +
      ", " + s.t.toFixed(3) + " s: " + s.title;
    var details = s.d.slice();
    if (s.read) { details.push("causal mark: by then " + s.read); }
    document.getElementById("step-details").textContent = details.join("\\n");
    showFailure(s);
    paint(beforeEl, s.b, -1, []);
    document.getElementById("before-cap").textContent = "before, " +
      frames[s.b].t.toFixed(3) + " s";
    if (!keepScreen) { scr = s.a; }
    showAfter();
    showBytes(s);
    document.body.setAttribute("data-step", String(s.n));
    if (history.replaceState) { history.replaceState(null, "", "#step=" + s.n); }
  }

  function screenStep(direction) {
    var s = steps[cur];
    if (!s || s.a === s.b) { return; }
    scr = Math.max(s.b + 1, Math.min(s.a, scr + direction));
    showAfter();
  }

  function stepOfFrame(f) {
    var best = -1;
    for (var k = 0; k < steps.length; k++) {
      var s = steps[k];
      if (s.b < f && f <= s.a && (best < 0 || s.a - s.b < steps[best].a - steps[best].b)) {
        best = k;
      }
    }
    if (best < 0) {
      for (k = 0; k < steps.length; k++) { if (steps[k].b <= f) { best = k; } }
    }
    return Math.max(best, 0);
  }

  function goFrame(f) {
    var k = stepOfFrame(f);
    scr = f;
    select(k, true);
    if (!(steps[k].b < f && f <= steps[k].a)) { paint(afterEl, f, -1, []); }
  }

  function runSearch() {
    var q = searchEl.value.toLowerCase();
    resultsEl.replaceChildren();
    var count = document.getElementById("search-count");
    if (!q) { count.textContent = ""; return; }
    var hits = {}, found = 0, shown = 0, last = -2;
    for (var f = 0; f < frames.length; f++) {
      var r = frames[f].r;
      for (var y = 0; y < r.length; y++) {
        var hit = hits[r[y]];
        if (hit === undefined) { hit = hits[r[y]] = rowText(r[y]).toLowerCase().indexOf(q) >= 0; }
        if (hit) {
          found++;
          if (shown < 200 && f !== last + 1) {
            var li = el("li", "", frames[f].t.toFixed(3) + " s, row " + y + ": " +
              rowText(r[y]).trim().slice(0, 60));
            li.tabIndex = 0;
            li.setAttribute("data-frame", String(f));
            resultsEl.appendChild(li);
            shown++;
          }
          last = f;
          break;
        }
      }
    }
    count.textContent = found + " screens";
    resultsEl.setAttribute("data-found", String(found));
  }

  function requestedStep() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (!params.has("step")) { return -1; }
    var n = parseInt(params.get("step"), 10);
    for (var k = 0; k < steps.length; k++) { if (steps[k].n === n) { return k; } }
    return -1;
  }

  if (steps.length) {
    stepList.addEventListener("click", function (event) {
      var li = event.target.closest ? event.target.closest("li[data-step]") : null;
      if (li) { select(parseInt(li.getAttribute("data-step"), 10)); }
    });
    resultsEl.addEventListener("click", function (event) {
      var li = event.target.closest ? event.target.closest("li[data-frame]") : null;
      if (li) { goFrame(parseInt(li.getAttribute("data-frame"), 10)); }
    });
    var timer = 0;
    searchEl.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(runSearch, 150);
    });
    document.addEventListener("keydown", function (event) {
      var target = event.target, key = event.key;
      if (target === searchEl) {
        if (key === "Enter") { clearTimeout(timer); runSearch(); if (resultsEl.firstChild) {
          resultsEl.firstChild.focus(); } event.preventDefault(); }
        if (key === "Escape") { searchEl.blur(); }
        return;
      }
      if (target && target.tagName === "INPUT") { return; }
      if (target && target.parentNode === resultsEl) {
        if (key === "Enter") {
          goFrame(parseInt(target.getAttribute("data-frame"), 10));
          event.preventDefault();
          return;
        }
        if (key === "ArrowDown" && target.nextSibling) {
          target.nextSibling.focus(); event.preventDefault(); return;
        }
        if (key === "ArrowUp" && target.previousSibling) {
          target.previousSibling.focus(); event.preventDefault(); return;
        }
      }
      if (event.altKey || event.ctrlKey || event.metaKey) { return; }
      if (key === "ArrowRight") { select(cur + 1); } else if (key === "ArrowLeft") {
        select(cur - 1);
      } else if (key === "ArrowDown") { screenStep(1); } else if (key === "ArrowUp") {
        screenStep(-1);
      } else if (key === "Home") { select(0); } else if (key === "End") {
        select(steps.length - 1);
      } else if (key === "/") { searchEl.focus(); } else { return; }
      event.preventDefault();
    });
    window.addEventListener("hashchange", function () {
      var k = requestedStep();
      if (k >= 0 && k !== cur) { select(k); }
    });
    var first = requestedStep();
    select(first >= 0 ? first : (data.focus | 0));
  }
"""
