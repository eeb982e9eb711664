"""``termsim show REC --steps``: a session's steps as text, Markdown or JSON.

The same steps as the trace viewer (:func:`~termsim.report.steps.story`),
for a CI log or a coding agent: one line a step (its number, its time, what
happened), a failed wait told in full (what the screen showed instead, its
parts, the near misses, the final screen with the outlined cells marked
under it), and the session's end. Markdown makes it a short story with the
screen in a fenced block; JSON is the steps as data.

A step's words quote the recording (a note, a predicate, an input's label,
the command line) and its screens the program: text and Markdown show each
line with :func:`~termsim.emulator.terminals.xterm.printable`, and JSON is ASCII (every
other character a ``\\u`` escape), so none of it reaches a terminal as a
control, and a newline in a note cannot forge a step.
"""

from __future__ import annotations

import json
from typing import Any

from ..emulator.terminals.xterm import printable
from ..recording.format import Recording
from .steps import Failure, Step, Story, story


def _screen_lines(told: Story, step: Step) -> list[str]:
    """The step's after screen, numbered rows, the outlined cells marked under them."""
    snap = told.screens[step.after][1]
    lines = [line.rstrip() for line in snap.lines]
    while lines and not lines[-1]:
        lines.pop()
    boxes = step.failure.outline if step.failure else []
    out: list[str] = []
    width = len(str(max(len(lines) - 1, 0)))
    blank = [r for r, line in enumerate(lines) if not line
             and not any(b.top <= r < b.bottom for b in boxes)]
    for r, line in enumerate(lines):
        if r in blank and r - 1 in blank and r + 1 in blank:
            if r - 2 not in blank:
                run = r
                while run + 1 in blank:
                    run += 1
                out.append(f"{'':>{width}} ⋮ rows {r} to {run - 1} blank")
            continue
        out.append(f"{r:>{width}} │{line}")
        marks = [b for b in boxes if b.top <= r < b.bottom]
        if marks:
            under = [" "] * max(b.right for b in marks)
            for b in marks:
                for c in range(b.left, b.right):
                    under[c] = "^"
            out.append(" " * (width + 2) + "".join(under) + f" {marks[0].label}")
    return out


def _failure_lines(f: Failure) -> list[str]:
    out = []
    if f.explanation is not None:
        out.append(f"instead: {f.explanation}")
    if f.since:
        out.append(f.since)
    out += [f"part: {p}" for p in f.parts]
    out += [f"near miss: {n}" for n in f.near]
    return out


def steps_text(recording: Recording) -> str:
    """The steps as plain text."""
    told = story(recording)
    out = [f"{len(told.steps)} steps of {' '.join(map(str, recording.header.get('argv') or []))}"
           f" ({recording.duration:.3f} s)"]
    for step in told.steps:
        flag = "!" if step.bad else " "
        out.append(f"{flag}{step.n:>3}  {step.t:9.3f} s  {step.title}")
        if step.failure is not None:
            out += [f"{'':18}{line}" for line in _failure_lines(step.failure)]
            out.append(f"{'':18}the final screen:")
            out += [f"{'':20}{line}" for line in _screen_lines(told, step)]
    return _lines(out)


def _lines(lines: list[str]) -> str:
    """The report's lines, each one shown with :func:`printable`."""
    return "\n".join(map(printable, lines)) + "\n"


def _md_step(told: Story, step: Step) -> list[str]:
    line = f"{step.n}. `{step.t:.3f} s` {_md(step.title)}"
    if step.bad:
        line = f"{step.n}. `{step.t:.3f} s` **{_md(step.title)}**"
    out = [line]
    if step.failure is not None:
        out += [f"   - {_md(x)}" for x in _failure_lines(step.failure)]
        out += ["", "   The final screen:", "", "   ~~~"]
        out += [f"   {x}" for x in _screen_lines(told, step)]
        out += ["   ~~~", ""]
    return out


def _md(text: str) -> str:
    """Text safe in a Markdown line: backticks and markup characters escaped."""
    return "".join("\\" + c if c in "\\`*<>" else c for c in text)


def steps_markdown(recording: Recording) -> str:
    """The steps as Markdown: a heading, what failed, a numbered story."""
    told = story(recording)
    argv = " ".join(map(str, recording.header.get("argv") or []))
    failed = [s for s in told.steps if s.kind == "wait" and s.bad]
    head = [f"### `{_md(argv)}`, {recording.duration:.3f} s", ""]
    if failed:
        first = failed[0]
        head += [f"**Failed at step {first.n}:** {_md(first.title)}.", ""]
    else:
        head += ["Every wait matched.", ""]
    body: list[str] = []
    for step in told.steps:
        body += _md_step(told, step)
    while body and not body[-1]:
        body.pop()
    return _lines(head + body)


def steps_json(recording: Recording) -> str:
    """The steps as JSON: ``{"command", "duration", "focus", "steps": [...]}``."""
    told = story(recording)
    steps: list[dict[str, Any]] = []
    for step in told.steps:
        item: dict[str, Any] = {"n": step.n, "kind": step.kind, "t": step.t, "end": step.end,
                                "title": step.title, "details": step.details,
                                "failed": step.bad}
        if step.outcome:
            item["outcome"] = step.outcome
        if step.read:
            item["read"] = step.read
        if step.failure is not None:
            f = step.failure
            item["failure"] = {
                "explanation": f.explanation, "parts": f.parts, "near_misses": f.near,
                "since": f.since, "since_t": f.since_t,
                "outline": [{"top": o.top, "left": o.left, "bottom": o.bottom,
                             "right": o.right, "label": o.label} for o in f.outline],
                "final_screen": [line.rstrip() for line in told.screens[step.after][1].lines],
            }
        steps.append(item)
    data = {"command": recording.header.get("argv") or [], "duration": recording.duration,
            "focus": told.steps[told.focus].n if told.steps else None, "steps": steps}
    return json.dumps(data, indent=2, ensure_ascii=True) + "\n"
