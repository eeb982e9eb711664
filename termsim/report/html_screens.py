"""The screens of the HTML timeline page, as the data its script draws.

:func:`~termsim.report.html.recording_html` takes the screens of a
recording (:func:`page_frames`), encodes each as a frame of row indexes
into a table of distinct rows (:class:`FrameEncoder`, which also writes one
CSS class per look), drops frames that look like the one before
(:func:`dedupe`), and writes it all into the page's JSON block
(:func:`json_for_script`, or :func:`write_json_for_script` to a stream,
piece by piece). This module is that encoding, apart from the page's
markup (:mod:`termsim.report.html`) and its static assets
(:mod:`termsim.report.html_assets`). How a row is drawn (colours, the
cursor, characters markup cannot hold) is :mod:`termsim.report.draw`'s,
shared with the SVG screenshot; this module only encodes it.

What the encoder keeps is the page's own data, the distinct rows and the
frames' indexes into them, and nothing of the screens it was handed: a
page of 2,000 screens of 450 x 450 cells would otherwise hold every
screen's runs at once (gigabytes, for a page of a few megabytes).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from typing import Any

from ..emulator.snapshot.snapshot import Run, Snapshot
from ..engine.playback import Playback
from ..recording.format import Recording
from .draw import (
    DEFAULT_FG,
    DEFAULT_LOOK,
    Look,
    clean,
    cursor_cell,
    decoration,
    drawn_runs,
    safe_link,
)


def page_frames(recording: Recording, max_frames: int) -> list[tuple[float, Snapshot]]:
    """``(time, screen)``: the first screen, then one after each output or resize
    event (evenly chosen, the last always kept, when there are too many)."""
    return Playback(recording).frames(max_frames)


class FrameEncoder:
    """Rows as runs of ``[text, look]`` (or a plain string when the whole row is
    in the default look), each distinct row stored once. A run of cells in
    an OSC 8 hyperlink whose URL :func:`~termsim.report.draw.safe_link`
    allows is ``[text, look, link]``, ``link`` an index into :attr:`links`;
    any other URL (``javascript:``...) never enters the page: its cells
    are text like any other.

    A page holds up to thousands of screens that share most of their rows,
    so a row the frame before showed is not encoded again: it is found by
    its runs tuple (``Snapshot.runs`` hands the same tuple to every
    snapshot that shares the row) and cursor column; any other row is
    encoded and found in the table by content. Only the last two frames'
    runs are kept for that: keeping every runs tuple ever seen, as this
    class once did, held every screen's rows alive when the snapshot's
    runs cache (a few hundred rows) cannot hold a tall screen, and a new
    tuple comes for every row of every frame. Looks are numbered by
    identity first (``_draw`` hands out one ``Look`` per style).
    """

    def __init__(self) -> None:
        self.rows: list[Any] = []
        self._row_ids: dict[Any, int] = {}
        self.looks: list[Look] = [DEFAULT_LOOK]
        #: The URLs the page links to, each once (only safe ones).
        self.links: list[str] = []
        self._link_ids: dict[str, int] = {}
        self._look_ids: dict[Look, int] = {DEFAULT_LOOK: 0}
        # id(look) -> (look, index): the looks are kept, so their ids stay theirs.
        self._looks_seen: dict[int, tuple[Look, int]] = {}
        # (id(runs), cursor column) -> (the runs, kept so that their id stays
        # theirs; row index), for the rows of this frame and of the one
        # before: a row left unchanged is found again by identity, and runs
        # no frame shows any more are let go (a row that comes back is
        # encoded again and found in the table by its content).
        self._now: dict[tuple[int, int], tuple[tuple[Run, ...], int]] = {}
        self._before: dict[tuple[int, int], tuple[tuple[Run, ...], int]] = {}

    def frame(self, t: float, snap: Snapshot) -> dict[str, Any]:
        """``snap`` as a frame of the page at ``t``; nothing of ``snap`` is kept."""
        self._before, self._now = self._now, {}
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
        known = self._now.get(key) or self._before.get(key)
        if known is not None and known[0] is runs:
            index = known[1]
        else:
            index = self._intern(self._encode(runs, cursor_col))
        self._now[key] = (runs, index)
        return index

    def _encode(self, runs: tuple[Run, ...], cursor_col: int) -> Any:
        out: list[tuple[Any, ...]] = []
        for drawn in drawn_runs(runs, cursor_col if cursor_col >= 0 else None):
            look = self._look(drawn.look)
            link = self._link(drawn.link)
            if out and out[-1][1] == look and _link_of(out[-1]) == link:
                out[-1] = (out[-1][0] + drawn.text, *out[-1][1:])
            else:
                out.append((drawn.text, look) if link < 0 else (drawn.text, look, link))
        if not out:
            return ""
        if len(out) == 1 and out[0][1] == 0 and len(out[0]) == 2:
            return out[0][0]
        return tuple(out)

    def _link(self, url: str) -> int:
        """The index of ``url`` in :attr:`links`; -1 for no link, or for a
        URL that must not become one."""
        if not url:
            return -1
        index = self._link_ids.get(url)
        if index is None:
            index = -1 if safe_link(url) is None else len(self.links)
            if index >= 0:
                self.links.append(url)
            self._link_ids[url] = index
        return index

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
            out.append(f".term .s{i},#screen .s{i}{{{';'.join(rules)}}}\n")
        if blink:
            out.append("@keyframes termsim-blink{50%{color:transparent}}\n")
        return "".join(out)


def _link_of(run: tuple[Any, ...]) -> int:
    return int(run[2]) if len(run) > 2 else -1


def dedupe(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop frames that look exactly like the one before them."""
    out: list[dict[str, Any]] = []
    for frame in frames:
        if out and {k: v for k, v in frame.items() if k != "t"} == {
                k: v for k, v in out[-1].items() if k != "t"}:
            continue
        out.append(frame)
    return out


#: The page's JSON, as ``json.dumps`` would write it with these options
#: (one encoder, made once, for every piece of every page).
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
#: Items of a list that :func:`write_json_for_script` encodes in one piece.
_BATCH = 64


def _for_script(text: str) -> str:
    """JSON text that cannot end its ``<script>`` block or start markup
    inside it. Each replacement is of one character, so pieces of a text
    made safe one by one join into the whole text made safe."""
    return (
        text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    )


def json_for_script(data: Any) -> str:
    """JSON that cannot end its ``<script>`` block or start markup inside it."""
    return _for_script(_JSON.encode(data))


def write_json_for_script(data: Mapping[str, Any], write: Callable[[str], object]) -> None:
    """``json_for_script(data)``, the same characters, handed to ``write`` in
    pieces: each value of ``data`` that is a list or an iterator is written
    :data:`_BATCH` items at a time, so the page's biggest data (its rows,
    frames and steps) never becomes one more string the size of the page,
    let alone the several that ``replace`` and joining would make. An
    iterator's items are made only as they are written, and values after
    it are read after it has run: a value may be filled in by the items
    before it (the steps fill the page's ``names``)."""
    write("{")
    for n, (key, value) in enumerate(data.items()):
        write(("," if n else "") + json_for_script(key) + ":")
        if isinstance(value, list | tuple | Iterator):
            _write_list(iter(value), write)
        else:
            write(json_for_script(value))
    write("}")


def _write_list(items: Iterator[Any], write: Callable[[str], object]) -> None:
    write("[")
    first = True
    while batch := list(islice(items, _BATCH)):
        text = json_for_script(batch)[1:-1]  # the items, comma-separated
        write(text if first else "," + text)
        first = False
    write("]")
