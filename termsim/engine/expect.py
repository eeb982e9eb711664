"""``expect_screen()``: wait until the screen looks like an expectation.

Like Playwright's ``expect``, the assertion is the wait: it is one more
predicate for the engine (:class:`ScreenIs`), evaluated on each settled
screen (drawn after ``since``), so it can neither race the program nor pass
on a stale screen, on a live session or a replay alike.

The expectation is a text (``screentext.py``) given in the test or kept in a
golden file. With goldens being updated (``--termsim-update``,
``TERMSIM_UPDATE=1``) a golden that still matches is left alone; otherwise
the screen is taken once it has stayed the same, as the golden would be
written (so with masks applied: a clock ticking under a mask does not
count), for :data:`UPDATE_QUIET` seconds after ``since``, on the session's
clock, so a replay of the same recording writes the same file, byte for
byte.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from ..emulator.snapshot.region import Region
from ..emulator.snapshot.snapshot import Snapshot
from ..errors import ArgumentError, GoldenMissing, shown_path
from . import settings as _hooks
from .engine import Engine
from .failures import ScreenMismatch, WaitTimeout
from .predicates import Context, Predicate
from .screentext import Mask, Options, ScreenText, diff, matches, options_for, parse, render
from .source import Mark

#: Updating a golden that no longer matches: how long the screen (as the
#: golden would be written) must stay the same before it is written.
UPDATE_QUIET = 0.5


class ScreenIs(Predicate):
    """The screen (or a region of it), written as text, equals ``expected``."""

    def __init__(self, expected: ScreenText, options: Options, name: str) -> None:
        self.expected = expected
        self.options = options
        self.name = name

    def __call__(self, snap: Snapshot) -> bool:
        return matches(self.expected, render(snap, self.options))

    def describe(self) -> str:
        return self.name

    def explain(self, snap: Snapshot) -> str:
        return ""  # the mismatch error shows the whole difference

    def misfit(self, cols: int, rows: int) -> str | None:
        region = self.options.region
        return None if region is None else region.misfit(cols, rows)


class Steady(Predicate):
    """The screen, written with ``options`` (masks applied), has not changed
    for ``seconds`` on the session's clock: what a golden is taken from."""

    def __init__(self, options: Options, seconds: float, path: str) -> None:
        self.options = options
        self.seconds = seconds
        self.path = path
        self._text: str | None = None
        self._since = 0.0
        #: The screen last written (a timer wakes the wait on the same one:
        #: it is not written again).
        self._snap: Snapshot | None = None

    def fresh(self) -> Predicate:
        return Steady(self.options, self.seconds, self.path)

    def __call__(self, snap: Snapshot) -> bool:
        raise TypeError("Steady() needs the session's clock: use it in wait_for()")

    def check(self, snap: Snapshot, ctx: Context) -> bool:
        if snap is not self._snap:
            self._snap = snap
            text = render(snap, self.options).text()
            if text != self._text:
                self._text, self._since = text, ctx.now
        return ctx.now >= self._since + self.seconds

    def wake_at(self, ctx: Context) -> float | None:
        # Before the first look, a time all the same: the engine only re-checks
        # an unchanged screen for predicates that have one.
        return (ctx.now if self._text is None else self._since) + self.seconds

    def describe(self) -> str:
        return f"a screen that stays the same for {self.seconds:g} s, to write {self.path}"


def _masks(mask: Mask | Sequence[Mask]) -> tuple[Mask, ...]:
    if isinstance(mask, Region | re.Pattern | str):
        return (mask,)
    return tuple(mask)


async def expect_screen(
    engine: Engine, expected: str | None, *, golden: str | os.PathLike[str] | None,
    since: Mark | None, timeout: float, stall: float | None, region: Region | None,
    mask: Mask | Sequence[Mask], styles: bool | None, cursor: bool | None,
    ignore: tuple[Region, ...] = (),
) -> Snapshot:
    """The engine and the session's defaults (``timeout``, ``stall``,
    ``ignore``) are all it takes: no driver, so the driver can import this
    module. The ``ignore`` regions are not activity for ``stall`` and are
    masked: a clock that ticks there matches any expectation."""
    __tracebackhide__ = True
    if (expected is None) == (golden is None):
        raise ArgumentError("expect_screen() takes the expected screen or golden=, one of them")
    masks = _masks(mask) + ignore
    path = None
    if golden is not None:
        path = _hooks.golden_path(golden)
        if path is None:
            raise ArgumentError(
                f"golden={os.fspath(golden)!r} is a name, and names are resolved by the pytest "
                "plugin (or termsim.runner.golden_screens()); outside them give a path")
        variant = _variant(path, golden)
        text = _read(variant) if variant is not None else None
        if variant is not None and text is not None:
            path, variant = variant, None  # this combination has a golden of its own
        else:
            text = _read(path)
        if _hooks.updating_goldens():
            return await _update(engine, path, text, since=since, timeout=timeout,
                                 stall=stall, region=region, mask=masks, styles=styles,
                                 cursor=cursor, write_to=variant, ignore=ignore)
        if text is None:
            options = Options(region, masks, bool(styles), cursor is not False)
            snap = await engine.wait_for(Steady(options, UPDATE_QUIET, path), since=since,
                                         timeout=timeout, stall=stall, ignore=ignore)
            _hooks.golden_used(path, "missing")
            raise GoldenMissing(path, engine.scrub(render(snap, options).text()))
    else:
        text = expected
    assert text is not None
    wanted = parse(text)
    if not wanted.rows and wanted.header is None:
        raise ArgumentError("the expected screen is empty")
    options = options_for(wanted, region, masks, styles, cursor)
    name = f"the screen in {shown_path(path)}" if path is not None else \
        f"the expected screen ({len(wanted.rows)} rows)"
    predicate = ScreenIs(wanted, options, name)
    wait_ids: list[int] = []
    try:
        snap = await engine.wait_for(predicate, since=since, timeout=timeout, stall=stall,
                                     started=wait_ids.append, ignore=ignore)
    except WaitTimeout as exc:
        if path is not None:
            _hooks.golden_used(path, "differs")
        actual = render(exc.snapshot, options)
        engine.compared(wait_ids[0], wanted.text(), actual.text(), path)
        raise ScreenMismatch(exc, expected=wanted.text(), actual=actual.text(),
                             diff=diff(wanted, actual), golden=path) from None
    engine.compared(wait_ids[0], wanted.text(), render(snap, options).text(), path)
    if path is not None:
        _hooks.golden_used(path, "matched")
    return snap


def _variant(path: str, golden: str | os.PathLike[str]) -> str | None:
    """The golden of this combination of a test matrix (``name@kitty-40x12``
    beside ``name``), for a golden given by name under a matrix; None
    otherwise. Screens may differ by profile and size: a combination reads
    its own golden where there is one, and ``--termsim-update`` writes it
    where the shared one does not match."""
    matrix = _hooks.matrix_defaults()
    if matrix is None or not matrix.label() or os.fspath(golden) == path:
        return None
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}@{matrix.label()}{dot}{suffix}"


async def _update(
    engine: Engine, path: str, text: str | None, *, since: Mark | None,
    timeout: float, stall: float | None, region: Region | None, mask: tuple[Mask, ...],
    styles: bool | None, cursor: bool | None, write_to: str | None = None,
    ignore: tuple[Region, ...] = (),
) -> Snapshot:
    """Keep a golden that still matches; else write the screen once steady
    (to ``write_to``, a matrix combination's own golden, if given)."""
    target: ScreenIs | None = None
    if text is not None:
        wanted = parse(text)
        target = ScreenIs(wanted, options_for(wanted, region, mask, styles, cursor), path)
        if styles is None:
            styles = wanted.styles
    options = Options(region, mask, bool(styles), cursor is not False)
    steady = Steady(options, UPDATE_QUIET, path)
    snap = await engine.wait_for(steady if target is None else target | steady, since=since,
                                 timeout=timeout, stall=stall, ignore=ignore)
    if target is not None and target(snap):
        _hooks.golden_used(path, "matched")
        return snap
    written = render(snap, options).text()
    target_path = write_to or path
    _write(target_path, engine.scrub(written))
    _hooks.golden_used(target_path, "written" if text is None or write_to else "updated")
    return snap


# Goldens are a few kilobytes: read and written in one go, like the recorder's writes.


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
