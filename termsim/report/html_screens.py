"""The screens of the HTML timeline page, as the data its script draws.

:func:`~termsim.report.html.recording_html` takes the screens of a
recording (:func:`page_frames`), encodes each as a frame of row indexes
into a table of distinct rows (:class:`FrameEncoder`, which also writes one
CSS class per look), drops frames that look like the one before
(:func:`dedupe`), and writes it all into the page's JSON block
(:func:`json_for_script`). This module is that encoding, apart from the
page's markup (:mod:`termsim.report.html`) and its static assets
(:mod:`termsim.report.html_assets`). How a row is drawn (colours, the
cursor, characters markup cannot hold) is :mod:`termsim.report.draw`'s,
shared with the SVG screenshot; this module only encodes it.
"""

from __future__ import annotations

import json
from typing import Any

from ..emulator.snapshot import Run, Snapshot
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
    so a row is encoded once per runs tuple (``Snapshot.runs`` hands the same
    tuple to every snapshot that shares the row) and cursor column, and
    looks are numbered by identity first (``_draw`` hands out one ``Look``
    per style).
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


def json_for_script(data: Any) -> str:
    """JSON that cannot end its ``<script>`` block or start markup inside it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    )
