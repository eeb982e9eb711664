"""A driven wait, as it is asked (``termsim drive wait``'s options, the MCP
``wait`` tool's fields, a note in a recording) and as it is run and written:
one :class:`WaitSpec` makes both the predicate the session waits on and the
source the generated test holds, so the two cannot say different things.

Everything in a spec is checked when it is read (``from_json``): it comes
from a command line, an agent, or a stranger's recording, and an error
names the field and what it takes. Regions have a short form for the
shell (``row:-1``, ``rect:0:0:5:40``...), :func:`parse_region`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..emulator.snapshot.region import Region
from ..engine.cursor_predicates import CursorAfter, CursorAt, InputReady
from ..engine.predicates import Predicate, Quiet
from ..engine.signal_predicates import Title
from ..engine.text_predicates import Regex, Text
from ..errors import ArgumentError
from ..recording.fields import MAX_SIZE
from .literals import literal, raw_pattern

#: The largest number of seconds a timeout, stall or quiet may be given.
MOST_SECONDS = 86_400.0

_REGION = re.compile(
    r"(?P<kind>row|rows|rect|transcript|output|screen)(?::(?P<args>[-0-9:]*))?")


def parse_region(text: str) -> tuple[Region, str]:
    """A region from its short form (``row:-1``, ``rows:0:-1``,
    ``rect:T:L:B:R``, ``transcript``, ``output:-1``, ``screen``), with its
    source (``Region.row(-1)``). A bad one raises :class:`ArgumentError`
    listing the forms."""
    match = _REGION.fullmatch(text.strip())
    forms = ("row:N, rows:START:STOP (either may be empty), rect:TOP:LEFT:BOTTOM:RIGHT, "
             "transcript, output:N or screen (rows and columns from 0, negative from "
             "the bottom or right, ends exclusive)")
    if match is None:
        raise ArgumentError(f"cannot read the region {text!r}: use {forms}")
    kind, raw = match["kind"], match["args"]
    try:
        args = [None if a == "" else int(a) for a in raw.split(":")] if raw is not None else []
    except ValueError:
        raise ArgumentError(f"cannot read the region {text!r}: use {forms}") from None
    if any(a is not None and abs(a) > MAX_SIZE for a in args):
        raise ArgumentError(f"the region {text!r} is larger than any screen ({MAX_SIZE} rows)")
    shapes: dict[str, tuple[int, ...]] = {"row": (1,), "rows": (1, 2), "rect": (4,),
                                          "transcript": (0,), "output": (0, 1), "screen": (0,)}
    if len(args) not in shapes[kind] or (kind in ("row", "output") and None in args):
        raise ArgumentError(f"cannot read the region {text!r}: use {forms}")
    numbers = ", ".join("None" if a is None else str(a) for a in args)
    if kind == "row":
        return Region.row(_int(args[0])), f"Region.row({numbers})"
    if kind == "rows":
        return Region.rows(*args), f"Region.rows({numbers})"
    if kind == "rect":
        return Region.rect(*args), f"Region.rect({numbers})"
    if kind == "output":
        return Region.output(_int(args[0]) if args else -1), f"Region.output({numbers or -1})"
    if kind == "transcript":
        return Region.transcript(), "Region.transcript()"
    return Region.screen(), "Region.screen()"


def _int(value: int | None) -> int:
    assert value is not None
    return value


@dataclass
class WaitSpec:
    """What a driven wait waits for: every part given must hold at once
    (``&``). ``text`` and ``regex`` are looked for, and ``gone`` must not
    be there, in ``region`` (the screen if None)."""

    text: list[str] = field(default_factory=list)
    regex: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    region: str | None = None
    cursor_after: str | None = None
    cursor_at: tuple[int, int] | None = None
    input_ready: bool = False
    quiet: float | None = None
    title: str | None = None

    @classmethod
    def from_json(cls, data: object) -> WaitSpec:
        """The spec a request or a note holds; :class:`ArgumentError` naming
        the field that is wrong."""
        if not isinstance(data, Mapping):
            raise ArgumentError("a wait is a JSON object (text, regex, gone, region, "
                                "cursor_after, cursor_at, input_ready, quiet, title)")
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise ArgumentError(f"a wait has no field {', '.join(unknown)}: it takes "
                                f"{', '.join(sorted(known))}")
        spec = cls(text=strings_of(data, "text"), regex=strings_of(data, "regex"),
                   gone=strings_of(data, "gone"), region=string_of(data, "region"),
                   cursor_after=string_of(data, "cursor_after"),
                   input_ready=flag_of(data, "input_ready"),
                   quiet=seconds_of(data, "quiet"), title=string_of(data, "title"))
        at = data.get("cursor_at")
        if at is not None:
            if not (isinstance(at, list | tuple) and len(at) == 2
                    and all(isinstance(v, int) and not isinstance(v, bool)
                            and abs(v) <= MAX_SIZE for v in at)):
                raise ArgumentError("cursor_at is [row, column], two integers")
            spec.cursor_at = (at[0], at[1])
        spec.predicate()  # every part checked now: a bad pattern, an empty text
        return spec

    def to_json(self) -> dict[str, Any]:
        """Only what was given, as :meth:`from_json` reads it back."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            # By identity: ``0.0 == False``, and ``--quiet 0`` is asked for.
            if not (value is None or value is False or value == [] or value == ()):
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    def _region(self) -> tuple[Region | None, str | None]:
        if self.region is None:
            return None, None
        return parse_region(self.region)

    def predicate(self) -> Predicate:
        """The predicate to wait on; :class:`ArgumentError` when nothing is
        asked or a part cannot be built (an empty text, a bad pattern)."""
        region, _ = self._region()
        parts: list[Predicate] = []
        try:
            parts += [Text(t, region) for t in self.text]
            parts += [Regex(r, region) for r in self.regex]
            parts += [~Text(t, region) for t in self.gone]
            if self.cursor_after is not None:
                parts.append(CursorAfter(self.cursor_after))
            if self.cursor_at is not None:
                parts.append(CursorAt(*self.cursor_at))
            if self.input_ready:
                parts.append(InputReady())
            if self.quiet is not None:
                parts.append(Quiet(self.quiet))
            if self.title is not None:
                parts.append(Title(self.title))
        except (re.error, OverflowError, RecursionError) as exc:
            # (``a{99999999999}`` overflows, ``((((...`` recurses: both a pattern's fault.)
            raise ArgumentError(f"a regex does not compile: {exc}") from None
        except ValueError as exc:
            raise ArgumentError(str(exc)) from None
        if not parts:
            raise ArgumentError("say what to wait for: a text, a regex, a text gone, the "
                                "cursor, input-ready, quiet or a title (or the exit)")
        if self.region is not None and not (self.text or self.regex or self.gone):
            raise ArgumentError("a region is where a text, a regex or a gone text is looked "
                                "for: give one of those with it")
        whole = parts[0]
        for part in parts[1:]:
            whole = whole & part
        return whole

    def source(self, names: set[str]) -> str:
        """The predicate as a person writes it; adds the names it imports."""
        _, region = self._region()
        where = f", region={region}" if region is not None else ""
        if region is not None:
            names.add("Region")
        parts: list[str] = []
        for kind, values in (("Text", self.text), ("Regex", self.regex), ("~Text", self.gone)):
            for value in values:
                names.add(kind.lstrip("~"))
                shown = raw_pattern(value) if kind == "Regex" else literal(value)
                parts.append(f"{kind}({shown}{where})")
        if self.cursor_after is not None:
            names.add("CursorAfter")
            parts.append(f"CursorAfter({literal(self.cursor_after)})")
        if self.cursor_at is not None:
            names.add("CursorAt")
            parts.append(f"CursorAt({self.cursor_at[0]}, {self.cursor_at[1]})")
        if self.input_ready:
            names.add("InputReady")
            parts.append("InputReady()")
        if self.quiet is not None:
            names.add("Quiet")
            parts.append(f"Quiet({self.quiet!r})")
        if self.title is not None:
            names.add("Title")
            parts.append(f"Title({literal(self.title)})")
        return " & ".join(parts)


def strings_of(data: Mapping[str, object], name: str) -> list[str]:
    """A field of strings (one string given alone is a list of one); ArgumentError if not."""
    value = data.get(name)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not (isinstance(value, list) and all(isinstance(v, str) and v for v in value)):
        raise ArgumentError(f"{name} is a list of non-empty strings")
    return list(value)


def string_of(data: Mapping[str, object], name: str) -> str | None:
    """A field holding a non-empty string, or nothing."""
    value = data.get(name)
    if value is not None and not (isinstance(value, str) and value):
        raise ArgumentError(f"{name} is a non-empty string")
    return value


def flag_of(data: Mapping[str, object], name: str) -> bool:
    """A field holding true or false (false when absent)."""
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise ArgumentError(f"{name} is true or false")
    return value


def seconds_of(data: Mapping[str, object], name: str, *, positive: bool = False) -> float | None:
    """A field holding seconds (>= 0, or > 0 if ``positive``), or nothing."""
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            math.isfinite(value) and (value > 0 if positive else value >= 0)
            and value <= MOST_SECONDS):
        low = "> 0" if positive else ">= 0"
        raise ArgumentError(f"{name} is a number of seconds {low}, at most {MOST_SECONDS:g}")
    return float(value)
