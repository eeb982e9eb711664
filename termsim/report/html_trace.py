"""The trace viewer's part of the HTML page: steps, their screens, their bytes.

:func:`trace_data` turns a recording's :func:`~termsim.report.steps.story`
into what the page's script needs, and nothing more: the screens (each
step's before and after, a few settled screens in between, and evenly
spaced ones for the scrubber: at most ``max_frames`` of the last kind, all
encoded once by :class:`~termsim.report.html_screens.FrameEncoder`, rows
shared), the steps pointing at them by index, and for each step the output
it spans as named tokens (:func:`termsim.report.names.named`, the
terminal's own grammar) with the reads of input between them (the causal
marks), cut to :data:`STEP_BYTES` bytes a step (its first and last output,
the middle left out and said so). The script draws only the screens in
view, when they come into view.

:func:`trace_html` is the markup: the step list (every step a line, its
number and time), the panes the script fills, and the search box.
"""

from __future__ import annotations

from typing import Any

from ..emulator.snapshot.snapshot import Snapshot
from ..events import InputRead, Output
from ..recording.format import Recording
from .draw import escape
from .html_screens import FrameEncoder
from .names import named
from .steps import Failure, Step, Story, evenly, story, walk_screens

#: Output shown per step, at most (its first and last bytes).
STEP_BYTES = 6000
#: Output shown in the whole page, at most: past it, steps get less each.
PAGE_BYTES = 1_500_000
#: Settled screens kept between a step's before and after, at most.
BETWEEN = 24
#: The kinds of token, as the page's data numbers them.
TOKEN_KINDS = ["text", "control", "csi", "esc", "osc", "dcs", "sos", "pm", "apc", "dropped"]


def trace_data(recording: Recording, encoder: FrameEncoder,
               max_frames: int) -> tuple[dict[str, Any], Story, Snapshot]:
    """The page's data: ``frames`` (the screens, in time order), ``steps``,
    ``focus``, ``names``; the story it tells; the last screen.

    The story gives the positions of its screens, not the screens
    (``story(screens=False)``): they are walked here one at a time
    (:func:`~termsim.report.steps.walk_screens`), each let go as soon as it
    is encoded. A screen's cells are as big as the screen, and holding
    every screen of the page at once is what made the page of a tall
    session cost gigabytes. ``steps`` is an iterator, made as the page
    writes it (:func:`~termsim.report.html_screens.write_json_for_script`),
    so that only a batch of steps' bytes exist as Python objects at once;
    ``names`` is complete once it has run."""
    events = recording.events
    outputs = [i + 1 for i, e in enumerate(events) if isinstance(e, Output)]
    # Evenly spaced screens for the scrubber (the first and last always).
    fill = set(evenly(outputs, max(max_frames - 1, 1)))
    told = story(recording, extra=fill, between=BETWEEN, screens=False)
    frames: list[dict[str, Any]] = []
    frame_of: dict[int, int] = {}
    previous: dict[str, Any] | None = None
    last: Snapshot | None = None
    for position, t, snap in walk_screens(recording, told.positions):
        frame = encoder.frame(t, snap)
        same = previous is not None and {k: v for k, v in frame.items() if k != "t"} == {
            k: v for k, v in previous.items() if k != "t"}
        if not same:
            frames.append(frame)
            previous = frame
        frame_of[position] = len(frames) - 1
        if position == len(events):
            last = snap
    assert last is not None  # the position after the last event is always walked
    rows = _Rows(events)
    budget = STEP_BYTES if len(told.steps) * STEP_BYTES <= PAGE_BYTES else max(
        512, PAGE_BYTES // max(len(told.steps), 1))
    steps = (_step(step, frame_of, events, rows, budget) for step in told.steps)
    data = {"frames": frames, "steps": steps, "focus": told.focus, "names": rows.names,
            "kinds": TOKEN_KINDS}
    return data, told, last


def _step(step: Step, frame_of: dict[int, int], events: list[Any], rows: _Rows,
          budget: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "n": step.n, "k": step.kind, "t": step.t, "e": step.end, "title": step.title,
        "d": step.details, "b": frame_of[step.before], "a": frame_of[step.after],
    }
    if step.outcome:
        out["o"] = step.outcome
    if step.bad:
        out["bad"] = True
    if step.read:
        out["read"] = step.read
    if step.failure is not None:
        out["f"] = _failure(step.failure)
    out["y"] = _bytes(step, events, rows, budget)
    return out


def _failure(f: Failure) -> dict[str, Any]:
    return {"x": f.explanation, "parts": f.parts, "near": f.near,
            "box": [[o.top, o.left, o.bottom, o.right, o.label] for o in f.outline],
            "since": f.since, "st": f.since_t}


def _bytes(step: Step, events: list[Any], rows: _Rows, budget: int) -> list[Any]:
    """The output a step spans, as ``["o", t, size, tokens]`` per read of
    output (``tokens``: ``[text, name, kind]``, ``name`` an index into the
    page's ``names``, -1 for none), ``["r", t, words]`` for each read of
    input, ``["gap", words]`` where output was left out."""
    span = range(step.before, step.after) if step.after > step.before else range(
        step.before, step.before)
    chosen = [i for i in span if isinstance(events[i], Output | InputRead)]
    sizes = {i: len(events[i].data) for i in chosen if isinstance(events[i], Output)}
    total = sum(sizes.values())
    keep = set(chosen)
    gap: tuple[int, int] | None = None
    if total > budget:
        head, tail, used = [], [], 0
        for i in chosen:
            if used >= budget // 2:
                break
            head.append(i)
            used += sizes.get(i, 0)
        used = 0
        for i in reversed(chosen):
            if used >= budget // 2 or i in head:
                break
            tail.append(i)
            used += sizes.get(i, 0)
        keep = set(head) | set(tail)
        left_out = [i for i in chosen if i not in keep and i in sizes]
        gap = (len(left_out), sum(sizes[i] for i in left_out))
    outputs = [i for i in chosen if i in keep and i in sizes]
    tokens = iter(rows.of(outputs))
    items: list[Any] = []
    gap_at = next((k for k, i in enumerate(chosen) if i not in keep), None)
    for k, i in enumerate(chosen):
        if gap is not None and k == gap_at:
            items.append(["gap", f"{gap[0]} reads of output ({gap[1]} bytes) left out here"])
        if i not in keep:
            continue
        event = events[i]
        if isinstance(event, InputRead):
            words = f"the program read input #{event.index}" + (
                " and drew its answer" if event.answered else "")
            items.append(["r", event.t, words])
            continue
        items.append(["o", event.t, sizes[i], next(tokens)])
    return items


class _Rows:
    """The tokens of a step's reads of output as the page's data:
    ``[text, name, kind]``, ``name`` an index into :attr:`names`.

    A wait spans the reads of the input before it (the program's answer),
    often all of them, and naming reads is the biggest part of the page's
    cost: so a step that shows the very reads the step before it showed
    gets that step's rows, named once. Only the whole list can be taken
    over: a read's tokens depend on the reads before it in the step (a
    sequence cut across them), and the last read's on the step ending
    there. Keeping one step's rows keeps what the page holds at once as it
    was (the steps are written in batches of many)."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events
        #: Every name the rows point at, in the order first met.
        self.names: list[str] = []
        self._ids: dict[str, int] = {}
        self._outputs: list[int] = []
        self._rows: list[list[list[Any]]] = []

    def of(self, outputs: list[int]) -> list[list[list[Any]]]:
        """The rows of each read in ``outputs`` (event indexes), named as one stream."""
        if outputs != self._outputs:
            self._outputs = outputs
            self._rows = [[[token.text, self._id(token.name), TOKEN_KINDS.index(token.kind)]
                           for token in tokens]
                          for tokens in named([self.events[i].data for i in outputs])]
        return self._rows

    def _id(self, name: str) -> int:
        if not name:
            return -1
        n = self._ids.get(name, -1)
        if n < 0:
            n = self._ids[name] = len(self.names)
            self.names.append(name)
        return n


def trace_html(told: Story) -> str:
    """The trace viewer's markup: the step list and the panes the script fills."""
    items = []
    for k, step in enumerate(told.steps):
        classes = f"step {step.kind}" + (" failed" if step.bad else "") + (
            " passed" if step.outcome == "matched" else "")
        items.append(
            f'<li class="{classes}" id="step-{step.n}" data-step="{k}">'
            f'<span class="num">{step.n}</span><span class="at">{step.t:.3f} s</span> '
            f"{escape(step.title)}</li>")
    return "\n".join([
        '<div id="trace">',
        '<div id="side">',
        '<div id="find"><input type="search" id="search" placeholder="search the screens '
        '(press /)" aria-label="search the screens"><span id="search-count"></span></div>',
        '<ol id="search-results"></ol>',
        '<div class="keys">&#8592; &#8594; steps &#183; &#8593; &#8595; screens &#183; '
        '/ search</div>',
        '<ol id="steps">',
        *items,
        "</ol>",
        "</div>",
        '<div id="view">',
        '<div id="step-title"></div>',
        '<div id="step-details"></div>',
        '<div id="failure"></div>',
        '<div id="pair">',
        '<div class="pane"><div class="cap" id="before-cap">before</div>'
        '<div class="term" id="screen-before"></div></div>',
        '<div class="pane"><div class="cap" id="after-cap">after</div>'
        '<div class="term" id="screen-after"></div></div>',
        "</div>",
        '<div id="bytes-head"></div>',
        '<div id="bytes"></div>',
        "</div>",
        "</div>",
    ])
