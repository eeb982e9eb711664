"""What changed between two runs of one test: the green recording against the red.

Two recordings of the same test rarely match byte for byte: timing,
spinners and chunking differ even when nothing is wrong. What matters is
where the *sessions* part ways, so the diff aligns them on what the test did
and saw: its inputs, its notes and its waits (``difflib`` over those
anchors), and reports, in this order:

* the first divergence: the first wait whose outcome differs (or an input,
  a note or a wait that only one run has), with the two screens at that
  moment side by side, row by row;
* the first output bytes that differ, with the text around them (and, where
  the text is the same and the difference below it, in a colour, an
  attribute, a cursor move, the bytes of both around that point);
* how long each aligned wait took in each run ("the prompt came 0.480 s later");
* lines one run printed and the other never did ("server banner never printed");
* queries answered differently and tty mode changes.

``termsim diff PASS.tsr FAIL.tsr`` prints it; ``--html`` writes a page.
Both quote the recordings (labels, predicates, screens, file names): the
text shows each line with :func:`~termsim.emulator.terminals.xterm.printable`, the
page escapes it.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from dataclasses import dataclass, field

from ..emulator.parsing.grammar import PLAIN, sequences
from ..emulator.snapshot.snapshot import Snapshot
from ..emulator.terminals.xterm import printable
from ..engine.playback import Playback
from ..events import Input, Note, Output, TtyMode
from ..recording.format import Recording, WaitRecord
from ..report.draw import escape
from .perturb import text_before, visible

#: Rows of each screen shown around a divergence.
SCREEN_ROWS = 40
#: Bytes of each run's output shown past the first difference, when the
#: difference is below the text (to the end of the sequence there).
BYTES_SHOWN = 24


@dataclass(frozen=True, slots=True)
class Anchor:
    """Something the test did or saw, by which two runs are aligned."""

    kind: str  # "input", "note" or "wait"
    key: str  # what it was, in words (its label, or the predicate)
    t: float
    wait: WaitRecord | None = None

    def __str__(self) -> str:
        if self.wait is not None:
            return f"wait for {self.key} ({self.wait.outcome})"
        return f"{self.kind} {self.key}"


def anchors(recording: Recording) -> list[Anchor]:
    out = [Anchor("input", e.label, e.t) for e in recording.of_type(Input)]
    out += [Anchor("note", e.label, e.t) for e in recording.of_type(Note)]
    out += [Anchor("wait", w.predicate, w.start, w) for w in recording.waits()]
    return sorted(out, key=lambda a: a.t)


@dataclass
class Divergence:
    """Where the two runs part ways."""

    what: str
    at_a: float | None
    at_b: float | None
    screen_a: Snapshot | None = None
    screen_b: Snapshot | None = None


@dataclass
class SessionDiff:
    """Two recorded runs of one test, compared (see the module's description)."""

    a: Recording
    b: Recording
    pairs: list[tuple[Anchor | None, Anchor | None]]
    first: Divergence | None
    output: str | None
    timings: list[str] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    tty: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        """No difference at all: the two runs drew the same screens."""
        return self.first is None and self.output is None

    def summary(self) -> str:
        """One line (the pytest plugin prints it under a flaky test): the
        first divergence and the biggest timing change."""
        if self.first is None:
            head = "no wait, input or note differs"
        else:
            head = f"first divergence: {self.first.what}"
        lines = [head]
        if self.only_b:
            lines.append(f"only B printed {self.only_b[0]!r}")
        if self.only_a:
            lines.append(f"B never printed {self.only_a[0]!r}")
        if self.timings:
            lines.append(self.timings[0])
        return printable("; ".join(lines))

    def text(self) -> str:
        """The whole report, as ``termsim diff`` prints it."""
        a, b = _name(self.a), _name(self.b)
        out = [f"termsim diff: {a} (A) against {b} (B)"]
        if self.first is None:
            out.append("  the waits, inputs and notes line up, with the same outcomes")
        else:
            out.append(f"  first divergence: {self.first.what}")
            if self.first.screen_a is not None or self.first.screen_b is not None:
                out.append("  the rows that differ then (A left, B right):")
                out += ["    " + line for line in _side_by_side(
                    self.first.screen_a, self.first.screen_b)]
        if self.output:
            out.append(f"  first output that differs: {self.output}")
        for title, items in (("waits, A against B", self.timings),
                             (f"printed in A, never in B ({len(self.only_a)})", self.only_a),
                             (f"printed in B, never in A ({len(self.only_b)})", self.only_b),
                             ("queries", self.queries), ("tty mode", self.tty)):
            if items:
                out.append(f"  {title}:")
                out += [f"    {item}" for item in items[:12]]
                if len(items) > 12:
                    out.append(f"    … {len(items) - 12} more")
        return "\n".join(map(printable, out))

    def html(self) -> str:
        """The diff as one self-contained page (no script, nothing loaded)."""
        a, b = _name(self.a), _name(self.b)
        parts = [
            "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            'style-src \'unsafe-inline\'">',
            f"<title>termsim diff: {escape(a)} / {escape(b)}</title>",
            f"<style>{_CSS}</style>", "</head>", "<body>",
            f"<h1>termsim diff</h1><p>A: {escape(a)}<br>B: {escape(b)}</p>",
        ]
        if self.first is None:
            parts.append("<p>The waits, inputs and notes line up, with the same outcomes.</p>")
        else:
            parts.append(f'<p class="bad">First divergence: {escape(self.first.what)}</p>')
            parts.append('<div class="pair">')
            for label, screen in (("A", self.first.screen_a), ("B", self.first.screen_b)):
                text = screen.render() if screen is not None else "(no screen)"
                # Line by line: escaping cleans control characters, newlines too.
                shown = "\n".join(escape(line) for line in text.split("\n"))
                parts.append(f"<div><h2>{label}</h2><pre>{shown}</pre></div>")
            parts.append("</div>")
        if self.output:
            parts.append(f"<p>First output that differs: {escape(self.output)}</p>")
        parts.append("<table><tr><th>A</th><th>B</th></tr>")
        for left, right in self.pairs:
            cls = "" if left is not None and right is not None and (
                left.wait is None or right.wait is None
                or left.wait.outcome == right.wait.outcome) else ' class="bad"'
            parts.append(f"<tr{cls}><td>{_cell(left)}</td><td>{_cell(right)}</td></tr>")
        parts.append("</table>")
        for title, items in (("Printed in A, never in B", self.only_a),
                             ("Printed in B, never in A", self.only_b),
                             ("Queries", self.queries), ("Tty mode", self.tty)):
            if items:
                parts.append(f"<h2>{escape(title)}</h2><ul>")
                parts += [f"<li>{escape(item)}</li>" for item in items]
                parts.append("</ul>")
        parts += ["</body>", "</html>"]
        return "\n".join(parts) + "\n"


_CSS = ("body{font:14px/1.4 system-ui,sans-serif;margin:1em}pre{background:#1c1c1c;"
        "color:#d0d0d0;padding:8px;overflow-x:auto}.pair{display:flex;gap:1em}"
        ".pair>div{flex:1;min-width:0}.bad{color:#b00}td{font-family:monospace;"
        "padding:0 1em;vertical-align:top}")


def _cell(anchor: Anchor | None) -> str:
    if anchor is None:
        return "—"
    text = f"{anchor.t:8.3f} s  {anchor}"
    if anchor.wait is not None and anchor.wait.end is not None:
        text += f" after {anchor.wait.end - anchor.wait.start:.3f} s"
    return escape(text)


def _name(recording: Recording) -> str:
    return os.path.basename(recording.path) or recording.path


def diff(a: Recording | str | os.PathLike[str],
         b: Recording | str | os.PathLike[str]) -> SessionDiff:
    """Compare two recordings of one test (say, a passing and a failing run)."""
    ra = a if isinstance(a, Recording) else Recording.open(a)
    rb = b if isinstance(b, Recording) else Recording.open(b)
    xa, xb = anchors(ra), anchors(rb)
    keys = difflib.SequenceMatcher(None, [(x.kind, x.key) for x in xa],
                                   [(x.kind, x.key) for x in xb], autojunk=False)
    pairs: list[tuple[Anchor | None, Anchor | None]] = []
    for tag, i1, i2, j1, j2 in keys.get_opcodes():
        if tag == "equal":
            pairs += list(zip(xa[i1:i2], xb[j1:j2], strict=True))
        else:
            pairs += [(x, None) for x in xa[i1:i2]] + [(None, y) for y in xb[j1:j2]]
    pa, pb = Playback(ra), Playback(rb)
    result = SessionDiff(ra, rb, pairs, _first(pairs, pa, pb), _first_output(ra, rb))
    result.timings = _timings(pairs)
    lines_a, lines_b = _lines(pa), _lines(pb)
    result.only_a = [line for line in lines_a if line not in lines_b]
    result.only_b = [line for line in lines_b if line not in lines_a]
    result.queries = _queries(pa, pb)
    result.tty = _tty(ra, rb)
    return result


def _end(anchor: Anchor) -> float:
    wait = anchor.wait
    return wait.end if wait is not None and wait.end is not None else anchor.t


def _first(pairs: list[tuple[Anchor | None, Anchor | None]], pa: Playback,
           pb: Playback) -> Divergence | None:
    for k, (left, right) in enumerate(pairs):
        if left is None or right is None:
            only = left or right
            assert only is not None
            run = "A" if left is not None else "B"
            what = f"only {run} has {only} at {only.t:.3f} s"
            # The run without it is shown where it was then: at the end of
            # its last step before (its screen did not stop existing).
            at_a = _end(left) if left else _before(pairs, k, 0)
            at_b = _end(right) if right else _before(pairs, k, 1)
            return Divergence(what, at_a, at_b, _screen_at(pa, at_a), _screen_at(pb, at_b))
        if left.wait is not None and right.wait is not None \
                and left.wait.outcome != right.wait.outcome:
            what = (f"wait for {left.key}: {left.wait.outcome} in A, "
                    f"{right.wait.outcome} in B")
            return Divergence(what, _end(left), _end(right), _screen_at(pa, _end(left)),
                              _screen_at(pb, _end(right)))
    return None


def _before(pairs: list[tuple[Anchor | None, Anchor | None]], k: int, side: int) -> float:
    """When one run (``side`` 0: A, 1: B) finished its last step before
    ``pairs[k]`` (0.0: it had none)."""
    return max((_end(anchor) for pair in pairs[:k] if (anchor := pair[side]) is not None),
               default=0.0)


def _screen_at(playback: Playback, t: float | None) -> Snapshot | None:
    return None if t is None else playback.screen_at(t)


def _first_output(a: Recording, b: Recording) -> str | None:
    """Where the two runs' output first differs: what each goes on with, in
    text; in bytes where the text is the same (a colour, a cursor move), for
    two equal texts would name a difference without showing it."""
    sa = b"".join(e.data for e in a.of_type(Output))
    sb = b"".join(e.data for e in b.of_type(Output))
    if sa == sb:
        return None
    at = next((i for i, (x, y) in enumerate(zip(sa, sb, strict=False)) if x != y),
              min(len(sa), len(sb)))
    # From the start of what differs: the escape sequence (or the character)
    # the first differing byte is part of, in either run.
    shown = min(_token(sa, at)[0], _token(sb, at)[0])
    where = f"byte {at}, after {text_before(sa, shown)!r}"
    ta, tb = visible(sa[shown:shown + 200]), visible(sb[shown:shown + 200])
    if ta != tb:
        return f"{where}: A goes on {ta!r}, B goes on {tb!r}"
    text = f"the same text {ta!r}" if ta else "no text"
    return (f"{where}: {text}, in other bytes: A has {_bytes(sa, shown, at)}, "
            f"B has {_bytes(sb, shown, at)}")


def _token(stream: bytes, at: int) -> tuple[int, int]:
    """Where the escape sequence or string holding byte ``at`` begins and
    ends (the terminal's own grammar, ``grammar.sequences``); for a byte of
    text, its UTF-8 character."""
    base = max(0, at - 256)
    for span in sequences(stream[base:at + 256]):
        start, end = span.start + base, span.end + base
        if span.kind not in PLAIN and start <= at < end:
            return start, end
    start, end = at, min(at + 1, len(stream))
    while start > 0 and start < len(stream) and 0x80 <= stream[start] < 0xC0:
        start -= 1
    while end < len(stream) and 0x80 <= stream[end] < 0xC0:
        end += 1
    return start, end


def _bytes(stream: bytes, start: int, at: int) -> str:
    """``stream`` from ``start`` to :data:`BYTES_SHOWN` bytes past ``at``
    (and the end of the sequence or character there), made printable."""
    if start >= len(stream):
        return "nothing more (its output ends there)"
    end = _token(stream, min(at + BYTES_SHOWN, len(stream) - 1))[1]
    more = "…" if end < len(stream) else ""
    return f"'{printable(stream[start:end].decode('utf-8', 'surrogateescape'))}{more}'"


def _timings(pairs: list[tuple[Anchor | None, Anchor | None]]) -> list[str]:
    out = []
    for left, right in pairs:
        if left is None or right is None or left.wait is None or right.wait is None:
            continue
        da = (left.wait.end or left.wait.start) - left.wait.start
        db = (right.wait.end or right.wait.start) - right.wait.start
        delta = db - da
        how = "the same" if abs(delta) < 0.0005 else (
            f"{abs(delta):.3f} s {'later' if delta > 0 else 'sooner'} in B")
        out.append(f"{left.key}: {da:.3f} s in A, {db:.3f} s in B ({how})")
    return sorted(out, key=lambda line: "the same" in line)


def _lines(playback: Playback) -> list[str]:
    """The distinct non-blank lines a run ever had on its screen, in order."""
    seen: dict[str, None] = {}
    for _, snap in playback.walk():
        for line in snap.lines:
            text = line.strip()
            if text:
                seen.setdefault(text, None)
    return list(seen)


def _queries(pa: Playback, pb: Playback) -> list[str]:
    ca = Counter((q.kind, q.status) for q in pa.terminal_at().queries)
    cb = Counter((q.kind, q.status) for q in pb.terminal_at().queries)
    return [f"{key[0]} {key[1]}: {ca[key]} in A, {cb[key]} in B"
            for key in sorted(set(ca) | set(cb)) if ca[key] != cb[key]]


def _tty(a: Recording, b: Recording) -> list[str]:
    ma = [e.raw for e in a.of_type(TtyMode)]
    mb = [e.raw for e in b.of_type(TtyMode)]
    if ma == mb:
        return []
    return [f"A: {_modes(ma)}", f"B: {_modes(mb)}"]


def _modes(modes: list[bool | None]) -> str:
    return " → ".join({True: "raw", False: "cooked", None: "unknown"}[m] for m in modes) or "none"


def _side_by_side(a: Snapshot | None, b: Snapshot | None) -> list[str]:
    """The rows that differ, A's beside B's; the rest counted, not shown."""
    rows_a = [line.rstrip() for line in a.lines] if a is not None else []
    rows_b = [line.rstrip() for line in b.lines] if b is not None else []
    count = max(len(rows_a), len(rows_b))
    pairs = [(r, (rows_a[r:r + 1] or [""])[0], (rows_b[r:r + 1] or [""])[0])
             for r in range(count)]
    differing = [(r, left, right) for r, left, right in pairs if left != right]
    if not differing:
        return ["(no row differs: the two screens are the same)"]
    width = min(max([len(left) for _, left, _ in differing] + [10]), 60)
    out = [f"row {r:3}  {left[:width]:<{width}} │ {right[:width]}"
           for r, left, right in differing[:SCREEN_ROWS]]
    same = count - len(differing)
    if same:
        out.append(f"({same} other rows are the same)")
    return out
