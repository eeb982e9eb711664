"""The wait a generated test makes after a step: what the step changed on
the screen, said as a person would (``Text`` in a row, the cursor after the
prompt, the program reading keys), with what varies from run to run left
free (``masks.py``), and a ``Sequence`` where the toolbar showed a state on
the way (``working``) before the one the person saw at the end.

The rules, and why:

* The anchor is the last row the step changed that holds text the step
  drew (``fresh.py``: not on the screen before the input, there or
  elsewhere) and is not the cursor's row (the answer, not the echo of what
  was typed), in a row region: a prompt left from the previous turn lives
  in another row, and a ``since=`` mark makes the wait count only what the
  program drew after it read the input. A wait the screen before the input
  satisfies proves nothing where the program redraws its whole frame on
  every change (ink), so none is written: where the step drew nothing new,
  the anchor is a row that changed only in a counter (the count a key
  made), else the disappearance of what it took away, else a text it only
  moved.
* A changed bottom row is a toolbar or a status line: its text is a state,
  and is awaited too, when the step drew it (not a counter that ticked).
* Where the program was reading keys at the end (raw mode) and its cursor
  was visible after some text, ``CursorAfter(that text) & InputReady()``:
  the program is ready for the next step, not merely drawing it.
* A bottom row that showed another text for a while (two screens or
  50 ms) before the end is a transient state: ``Sequence(that, the end)``.
* A reply longer than the screen: the lines that scrolled off just above
  the final screen are awaited in ``Region.transcript()``.
* A screen split into panes (``panes.py``): text in a row that runs through
  more than one pane is awaited in its pane (``Region.rect``), not the row,
  whose other panes show what they show then; where the text showed in the
  pane before (the echo of the command that printed it), in the pane's part
  of the row. The pane that holds the cursor (the one typed into) comes
  first, and the text before the cursor is the pane's.
* A step that only took text away (a menu closed) waits for the last row it
  cleared, or else changed, to no longer show it (``~Text``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..emulator.snapshot.region import Region
from ..emulator.snapshot.snapshot import Snapshot
from .fresh import FRAME, Awaited, Novelty, awaited, novelty, words
from .fresh import said as _said  # noqa: F401  (what a row says, read by the tests)
from .literals import literal, raw_pattern
from .masks import variable_spans
from .panes import Layout, Pane
from .steps import Screen

#: Characters left of the cursor, at most, that ``CursorAfter`` names (and
#: up to :data:`CURSOR_WORD` more, to start at a word rather than inside it).
CURSOR_TEXT = 12
CURSOR_WORD = 8
#: A bottom row's other text counts as a state shown on the way when it
#: stayed this long (seconds) or this many screens.
TRANSIENT_SECONDS = 0.05
TRANSIENT_SCREENS = 2


@dataclass
class Wait:
    """A wait's predicate as source code, and the names it needs imported."""

    source: str
    names: set[str]


def region_of(row: int, rows: int) -> str:
    """A row's region as source: from the bottom for the last rows (toolbars)."""
    return f"Region.row({row - rows})" if row >= rows - 3 else f"Region.row({row})"


def _source(text: Awaited, region: str, names: set[str]) -> str:
    names.update((text.kind, "Region"))
    source = literal(text.value) if text.kind == "Text" else raw_pattern(text.value)
    return f"{text.kind}({source}, region={region})"


def awaited_text(line: str, other: str | None, region: str, names: set[str]) -> str | None:
    """``Text`` (or ``Regex`` if part of it varies) of what a row says; None
    when it says too little to wait for (a border, a lone character)."""
    text = awaited(line, other)
    return None if text is None else _source(text, region, names)


@dataclass
class _Found:
    """A text a wait may be on: what, in which region (as source and as a
    region), and where it stands (row, columns ``left:right``)."""

    text: Awaited
    source: str
    region: Region
    place: tuple[int, int, int]

    def novelty(self, before: Snapshot, final: Snapshot) -> Novelty:
        return novelty(self.text, self.region, self.place, before, final)

    def code(self, names: set[str]) -> str:
        return _source(self.text, self.source, names)


def _in_row(row: int, snap: Snapshot, other: str | None) -> _Found | None:
    text = awaited(snap.lines[row], other)
    if text is None:
        return None
    return _Found(text, region_of(row, snap.rows), Region.row(row), (row, 0, snap.cols))


def _rect(top: int, left: int, bottom: int, right: int) -> tuple[str, Region]:
    return (f"Region.rect({top}, {left}, {bottom}, {right})",
            Region.rect(top, left, bottom, right))


def _changed_rows(before: Snapshot, after: Snapshot) -> list[int]:
    if before.rows != after.rows:
        return [r for r in range(after.rows) if after.lines[r].strip()]
    return [r for r in range(after.rows)
            if after.lines[r].rstrip() != before.lines[r].rstrip() and after.lines[r].strip()]


def _cleared_rows(before: Snapshot, after: Snapshot) -> list[int]:
    """The rows that showed text before and are blank after."""
    if before.rows != after.rows:
        return []
    return [r for r in range(after.rows)
            if before.lines[r].strip() and not after.lines[r].strip()]


def _cursor_text(left: str) -> str:
    """The end of the text left of the cursor, blanks kept (a prompt's
    "❯ "): at most :data:`CURSOR_TEXT` characters, a few more to begin at
    a word's start, or fewer to begin after a blank."""
    if len(left) <= CURSOR_TEXT:
        return left
    cut = len(left) - CURSOR_TEXT
    if not left[cut - 1].isspace() and not left[cut].isspace():  # inside a word
        start = cut
        while start > 0 and not left[start - 1].isspace():
            start -= 1
        if cut - start <= CURSOR_WORD:
            cut = start
        else:
            blank = next((i for i in range(cut, len(left)) if left[i].isspace()), len(left))
            cut = blank
    return left[cut:].lstrip()


def _common_prefix(texts: list[str]) -> str:
    """The text every variant begins with (a spinner's frames differ in
    their last character)."""
    prefix = texts[0]
    for text in texts[1:]:
        while not text.startswith(prefix):
            prefix = prefix[:-1]
    prefix = prefix.strip()
    return prefix if len(prefix) >= 3 else ""


def _transient(screens: list[Screen], before: Snapshot, final: Snapshot) -> str | None:
    """A text the bottom row showed on the way, for a while, that it shows
    neither before nor at the end; it stops before anything in it that
    varies (a clock, an elapsed time), so none of that is written."""
    if final.rows != before.rows:
        return None
    end = final.lines[-1].strip()
    start = before.lines[-1].strip()
    shown: list[tuple[float, str]] = [(s.t, s.snap.lines[-1].strip()) for s in screens[:-1]
                                      if s.snap.rows == final.rows]
    other = [(t, text) for t, text in shown if text and text not in (end, start)]
    if not other:
        return None
    prefix = _common_prefix([text for _, text in other])
    for _, text in other:
        cut = min((a for a, _, _ in variable_spans(text)), default=len(prefix))
        prefix = prefix[:cut].strip()
    if len(prefix) < 3 or prefix in end or prefix in start:
        return None
    lasted = (screens[-1].t - other[0][0]) if len(other) == 1 else other[-1][0] - other[0][0]
    if len(other) < TRANSIENT_SCREENS and lasted < TRANSIENT_SECONDS:
        return None
    return prefix


def _long_reply(transcript: str, final: Snapshot, names: set[str]) -> str | None:
    """A wait on a reply that scrolled past the screen: the lines just above
    the final screen's top (up to three, that say something and do not
    vary), in the transcript, since they are on no screen at the end. Not
    the reply's first lines: whether the echo of what was typed comes
    before or after the key that sent it depends on the run."""
    lines = transcript.split("\n")
    top = next((line.rstrip() for line in final.lines if line.strip()), None)
    if top is None or top not in lines:
        return None
    at = len(lines) - 1 - lines[::-1].index(top)
    above: list[str] = []
    for line in reversed(lines[:at]):
        if not line.strip() or line.startswith("[… ") or variable_spans(line):
            break
        above.insert(0, line)
        if len(above) == 3:
            break
    if not above or words("".join(above)) < 2:
        return None
    names.update(("Text", "Region"))
    return f"Text({literal(chr(10).join(above))}, region=Region.transcript())"


@dataclass
class _Place:
    """Where a changed row's text is awaited: the row (``pane`` None), or
    columns ``left:right`` of it, in ``pane``."""

    row: int
    left: int
    right: int
    pane: Pane | None


def _places(rows: list[int], before: Snapshot, final: Snapshot, layout: Layout) -> list[_Place]:
    """The changed texts of ``rows``, last first: a row, or each pane's part
    of a split row that changed (the right one first)."""
    places: list[_Place] = []
    same_size = (before.rows, before.cols) == (final.rows, final.cols)
    for row in reversed(rows):
        if not layout.split(row):
            places.append(_Place(row, 0, final.cols, None))
            continue
        for left, right in reversed(layout.segments(row)):
            if same_size and before.span(row, left, right) == final.span(row, left, right):
                continue
            pane = layout.pane(row, left, right)
            if pane is not None:
                places.append(_Place(row, left, right, pane))
    return places


def _in_place(place: _Place, final: Snapshot, other_final: Snapshot | None,
              earlier: list[Snapshot]) -> _Found | None:
    """The text at ``place``, to wait for: in its row, or in its pane; in
    the pane's part of the row where a screen before the last (``earlier``)
    showed that text in the pane but not there (the echo of the command
    that prints it), which a wait in the whole pane would take for it."""
    same = other_final is not None and (other_final.rows, other_final.cols) == (
        final.rows, final.cols)
    if place.pane is None:
        other = other_final.lines[place.row] if same and other_final is not None else None
        return _in_row(place.row, final, other)
    other = other_final.span(place.row, place.left, place.right) \
        if same and other_final is not None else None
    text = awaited(final.span(place.row, place.left, place.right), other)
    if text is None:
        return None
    pane = place.pane
    where = (place.row, place.left, place.right)
    source, region = _rect(pane.top, pane.left, pane.bottom, pane.right)
    row_source, row = _rect(place.row, place.left, place.row + 1, place.right)
    if any(text.shown(region, snap) and not text.shown(row, snap) for snap in earlier):
        return _Found(text, row_source, row, where)  # the pane showed it elsewhere first
    return _Found(text, source, region, where)


def _gone(before: Snapshot, final: Snapshot, rows: list[int]) -> str | None:
    """A wait for the text that the last of ``rows`` that lost it showed
    before, in its row, to be gone (``~Text``)."""
    if (before.rows, before.cols) != (final.rows, final.cols):
        return None
    for row in reversed(rows):
        found = _in_row(row, before, None)
        if found is not None and not found.text.shown(found.region, final):
            return f"~{found.code(set())}"
    return None


def _cursor_part(left: str, names: set[str]) -> str | None:
    """``CursorAfter`` the text left of the cursor (its end), unless that
    end is blank, frame, or part of something that varies."""
    tail = _cursor_text(left)
    start = len(left) - len(tail)
    if not tail.strip(FRAME) or any(b > start for _, b, _ in variable_spans(left)):
        return None
    names.add("CursorAfter")
    return f"CursorAfter({literal(tail)})"


def choose(before: Snapshot, screens: list[Screen], *, typed: bool,
           other_final: Snapshot | None = None, transcript: str | None = None) -> Wait | None:
    """The wait after a step whose screens were ``screens`` (the last is
    where the person went on); None when it changed nothing worth a wait.
    ``typed``: the step typed text (its echo alone asks for no wait).
    ``other_final``: the same step's last screen in another recording.

    Never a wait the screen before the step satisfies: its text is one the
    step drew (``fresh.py``), preferably new; else the disappearance of
    one it took away; else one it only redrew or moved; else the cursor,
    where it moved."""
    if not screens:
        return None
    final = screens[-1].snap
    rows = final.rows
    changed = _changed_rows(before, final)
    cleared = _cleared_rows(before, final)
    cursor_row = final.cursor.row if final.cursor.visible else None
    answer = [r for r in changed if r != cursor_row]
    if typed and not answer:
        return None  # the echo of the typed text, nothing else
    if not changed and not cleared and final.cursor == before.cursor:
        return None
    names: set[str] = set()
    layout = Layout(final)
    cursor_pane = layout.pane_at(cursor_row, final.cursor.col) \
        if cursor_row is not None and final.cursor.col < final.cols else None

    # The bottom row is a state, below, unless it runs through panes.
    above = [r for r in answer if r != rows - 1 or layout.split(r)]
    places = _places(above, before, final, layout)
    if cursor_pane is not None:  # what the input changed is in the pane typed into
        places.sort(key=lambda place: place.pane != cursor_pane)
    earlier = [before, *(s.snap for s in screens[:-1])]
    found: dict[Novelty, list[_Found]] = {"new": [], "ticked": [], "moved": [], "stale": []}
    for place in places:  # the last changed text that is new, else the best there is
        text = _in_place(place, final, other_final, earlier)
        if text is not None:
            found[text.novelty(before, final)].append(text)
        if found["new"]:
            break
    parts = [found["new"][0].code(names)] if found["new"] else []
    if rows - 1 in changed and rows - 1 != cursor_row and not layout.split(rows - 1):
        other = other_final.lines[-1] if other_final is not None \
            and other_final.rows == rows else None
        state = _in_row(rows - 1, final, other)
        if state is not None:
            novel = state.novelty(before, final)
            if novel == "new":
                parts.append(state.code(names))
            else:
                found[novel].append(state)
    if not parts and found["ticked"]:
        parts.append(found["ticked"][0].code(names))
    if not parts:  # it took text away: the last row it cleared shows it no more
        gone = _gone(before, final, cleared) or _gone(before, final, answer)
        if gone is not None:
            names.update(("Text", "Region"))
            parts.append(gone)
    if not parts and found["moved"]:
        parts.append(found["moved"][0].code(names))
    raw = screens[-1].raw
    if cursor_row is not None and raw:
        start = cursor_pane.left if cursor_pane is not None else 0
        left = final.span(cursor_row, start, min(final.cursor.col, final.cols))
        if not parts and final.cursor == before.cursor and before.input_ready \
                and before.span(cursor_row, start, min(before.cursor.col, before.cols)) == left:
            return None  # the screen before says all this already
        cursor = _cursor_part(left, names)
        if cursor is not None:
            parts.append(cursor)
        parts.append("InputReady()")
        names.add("InputReady")
    if transcript is not None:
        reply = _long_reply(transcript, final, names)
        if reply is not None:
            parts.insert(0, reply)
    if not parts:
        return None
    source = " & ".join(parts)
    transient = _transient(screens, before, final)
    if transient is not None:
        names.update(("Sequence", "Text", "Region"))
        source = f"Sequence(Text({literal(transient)}, region=Region.row(-1)), {source})"
    return Wait(source, names)
