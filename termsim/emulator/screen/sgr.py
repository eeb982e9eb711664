"""SGR (``CSI ... m``): what a colour or style sequence does to the pen.

Theory of operation
-------------------

SGR is the commonest escape sequence there is: a test runner colours every
dot, a prompt every segment, ``ls`` every name. pyte's
``select_graphic_rendition`` rebuilds the cursor's ``Char`` code by code each
time; here the same result costs, from the commonest case to the rarest:

1. an identity check: the action the dispatcher caches for one whole
   sequence (:class:`SgrAction`, in ``_Dispatch.sequences``) remembers the
   attributes it last turned into others, so ``ESC[32m`` after ``ESC[0m``,
   as in a test runner's dots, needs no key built or hashed;
2. one lookup in a memo keyed by (attributes, parameters, DECSCNM);
3. for attributes not seen with those parameters, one tuple built in C from
   the fields the parameters set (:func:`_replaced`), which are memoised per
   (parameters, DECSCNM);
4. the first time parameters are seen, a parse (:func:`_sgr_params`, colon
   sub-parameters included) and the port of pyte's rules
   (:func:`_sgr_changes`).

The result is pyte's for the attributes pyte's ``Char`` holds, and xterm's
for those it does not (dim, invisible, the double underline of SGR 21) and
for what kitty, VTE and libvterm add (underline styles ``4:x``, underline
colour ``58``/``59``): those live in a wider pen, :class:`StyledChar`, used
only while one of them is on, so the plain ``Char`` stays the common case
and the screen copies a wider pen into cells as it copies any other (the
fields after pyte's are read by position: ``EXTRA``). The codes termsim
drops (overline, fonts...) are counted in ``Terminal.unknown`` on every
use, so a sequence holding one is never memoised; nor is a 24-bit colour,
which seldom comes twice. Both memos are bounded. The shortcuts are the
hot path of ``benchmarks/bench_feed.py``'s colour stream: keep them as
they are.

This module also reads CSI parameters as numbers (:func:`ints`), which SGR
needs first and the dispatcher shares.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from pyte import graphics as g
from pyte import modes as mo
from pyte.screens import Char

from .cells import ProtectedStyledChar, StyledChar
from .screen import BLANK, Protected, TermScreen

MAX_PARAM = 65535
#: Entries in each of the two memos.
_MAX_MEMO = 4096
#: The longest parameters memoised: SGR has no length limit of its own, and
#: 4,096 entries as long as a read each would hold what the reads held.
_MAX_MEMO_PARAMS = 256
#: Parameters that ``int`` reads as they are: no empty one, no colon, none
#: above ``MAX_PARAM``.
_PLAIN_PARAMS = re.compile(r"[0-9]{1,4}(?:;[0-9]{1,4})*")
#: One 24-bit colour and nothing else (``Sgr.apply_true_colour``).
_ONE_TRUE_COLOUR = re.compile(r"([34])8;2;([0-9]{1,4});([0-9]{1,4});([0-9]{1,4})")


#: Where the attributes pyte's ``Char`` lacks start in a cell, whatever its
#: class: readers index from here (``cell[EXTRA:]``) rather than by name, so
#: that a cell rebuilt as another ``Char`` class of the same length still
#: gives them up.
EXTRA = len(Char._fields)
#: Every field of a pen, and the values of the extra ones when all are off.
_FIELDS = StyledChar._fields
_EXTRA_OFF = StyledChar(" ")[EXTRA:]
#: ``_sgr_params`` turns ``4:3``..``4:5`` into these codes, which no CSI
#: parameter can be (21 stands for ``4:2``, as in xterm).
_CURLY, _DOTTED, _DASHED = -3, -4, -5


def capped(digits: str) -> int:
    """A parameter's digits as an integer, at most :data:`MAX_PARAM`. Never
    ``int()`` of the digits whole: past 4,300 digits Python refuses to
    convert them (a ``ValueError`` from ``feed``), and a program may send
    that many."""
    digits = digits.lstrip("0")
    return MAX_PARAM if len(digits) > 5 else min(int(digits or "0"), MAX_PARAM)


def ints(params: str) -> list[int]:
    """CSI parameters as integers; empty ones are 0, sub-parameters dropped."""
    if not params:
        return []
    if _PLAIN_PARAMS.fullmatch(params):
        return list(map(int, params.split(";")))
    out = []
    for p in params.split(";"):
        if ":" in p:
            p = p.split(":", 1)[0]
        out.append(capped(p) if p.isascii() and p.isdigit() else 0)
    return out


def _sgr_params(params: str) -> tuple[int, ...]:
    """SGR parameters, with colon sub-parameters (``38:2::r:g:b``) translated."""
    if ":" not in params:
        if _PLAIN_PARAMS.fullmatch(params):
            return tuple(map(int, params.split(";")))
        return tuple(ints(params))
    out: list[int] = []
    for p in params.split(";"):
        if ":" not in p:
            out.append(capped(p) if p.isascii() and p.isdigit() else 0)
            continue
        sub = [min(int(s), MAX_PARAM) if s.isdigit() else 0 for s in p.split(":")]
        head = sub[0]
        if head in (38, 48, 58) and len(sub) > 1:
            # (58:2::r:g:b is the underline colour: its numbers are no SGR codes.)
            if sub[1] == 5 and len(sub) >= 3:
                out += [head, 5, sub[2]]
            elif sub[1] == 2:
                rgb = sub[-3:] if len(sub) >= 5 else [*sub[2:], 0, 0, 0][:3]
                out += [head, 2, *rgb]
        elif head == 4:
            out.append(_UNDERLINE_CODES.get(sub[1], 4) if len(sub) > 1 else 4)
        elif head != 58:
            out.append(head)
    return tuple(out)


#: ``4:x`` as a code ``_sgr_changes`` reads: x = 0 is 24, 1 is 4, 2 is 21
#: (xterm's double underline); other styles have codes of their own, and
#: an unknown style is a single underline.
_UNDERLINE_CODES = {0: 24, 1: 4, 2: 21, 3: _CURLY, 4: _DOTTED, 5: _DASHED}


#: What one SGR code sets, as pyte's ``select_graphic_rendition`` does it:
#: code -> (field of ``Char``, value). 0, 38 and 48 are apart, as are the
#: codes of ``_SGR_EXTRA``; termsim counts every other code (overline...).
_SGR_FIELDS: dict[int, tuple[str, object]] = {
    **{code: ("fg", colour) for code, colour in g.FG_ANSI.items()},
    **{code: ("bg", colour) for code, colour in g.BG_ANSI.items()},
    **{code: ("fg", colour) for code, colour in g.FG_AIXTERM.items()},
    **{code: ("bg", colour) for code, colour in g.BG_AIXTERM.items()},
    **{code: (name[1:], name[0] == "+") for code, name in g.TEXT.items()},
    6: ("blink", True),  # rapid blink: blink, in xterm (charproc.c, SGR 6)
}
#: What the codes pyte drops set, as xterm (charproc.c, SGR): 1 and 2 are
#: two flags, 22 ends both, 24 ends every underline. The underline is one
#: style, as in kitty, VTE and libvterm, which also read ``4:x`` (xterm
#: ignores it) and 58/59, the underline colour that 24 keeps: so 4 after 21
#: is a single underline, where xterm keeps both flags and draws double.
_SGR_EXTRA: dict[int, dict[str, object]] = {
    2: {"dim": True},
    22: {"bold": False, "dim": False},
    8: {"invisible": True},
    28: {"invisible": False},
    4: {"underscore": True, "underline_style": ""},
    21: {"underscore": True, "underline_style": "double"},
    _CURLY: {"underscore": True, "underline_style": "curly"},
    _DOTTED: {"underscore": True, "underline_style": "dotted"},
    _DASHED: {"underscore": True, "underline_style": "dashed"},
    24: {"underscore": False, "underline_style": ""},
    59: {"underline_colour": "default"},
}
for _code in _SGR_EXTRA:
    _SGR_FIELDS.pop(_code, None)  # pyte's 4, 22 and 24 set less than xterm's
#: The field each colour introducer sets.
_COLOUR_FIELDS = {38: "fg", 48: "bg", 58: "underline_colour"}


#: What SGR 0 sets: pyte's ``Screen.default_char``, without and with
#: DECSCNM, and every extra attribute off but the hyperlink, which is no
#: rendition: a link's text may change colour (xterm.js, kitty, VTE).
_SGR_RESET = {
    reverse: {**dict(Char(" ", "default", "default", reverse=reverse)._asdict()),
              **{name: off for name, off in zip(_FIELDS[EXTRA:], _EXTRA_OFF, strict=True)
                 if name != "link"}}
    for reverse in (False, True)
}


def linked(attrs: Char, link: str) -> Char:
    """The pen ``attrs`` with the OSC 8 hyperlink ``link`` ("" ends it)."""
    return _rebuilt(attrs, {"link": link})


class _TurnsOn(dict[str, object]):
    """Changes that turn an extra attribute on: the pen they make is a
    :class:`StyledChar`, so :func:`_replaced` takes the slow way."""


def _sgr_changes(
    values: tuple[int, ...], reverse: bool,
) -> tuple[dict[str, object], tuple[int, ...]]:
    """The fields of :class:`StyledChar` that SGR ``values`` set, and their
    values: what pyte's ``select_graphic_rendition`` does (``reverse``: is
    DECSCNM set) and, for the codes it drops, what xterm does
    (``_SGR_EXTRA``), as a dict that can be memoised and applied to any
    attributes (a ``_TurnsOn`` if it turns an extra attribute on); and the
    codes termsim drops (overline...)."""
    if not values or values == (0,):
        return dict(_SGR_RESET[reverse]), ()
    changes: dict[str, object] = {}
    ignored: list[int] = []
    i, n = 0, len(values)
    while i < n:
        code = values[i]
        i += 1
        field = _SGR_FIELDS.get(code)
        if field is not None:
            # Under DECSCNM a cell holds what is shown (screen reverse XOR
            # SGR 7), so that leaving the mode gives every cell back.
            changes[field[0]] = field[1] != reverse if field[0] == "reverse" else field[1]
        elif code == 0:
            changes.update(_SGR_RESET[reverse])
        elif code in _SGR_EXTRA:
            changes.update(_SGR_EXTRA[code])
        elif code not in _COLOUR_FIELDS:
            ignored.append(code)
        elif i < n:
            key = _COLOUR_FIELDS[code]
            mode = values[i]
            i += 1
            if mode not in (2, 5):
                continue
            need = 1 if mode == 5 else 3
            if i + need > n:
                if code == 58:
                    break  # (an underline colour short of values is dropped)
                # xterm reads the values missing at the end as 0: palette
                # entry 0, or black's parts (charproc.c parse_extended_colors:
                # GetParam past the count, which init_params zeroed).
                values = (*values, *(0,) * (i + need - n))
                n = len(values)
            if mode == 5:
                if values[i] < len(g.FG_BG_256):  # pyte skips other indexes
                    changes[key] = g.FG_BG_256[values[i]]
            else:
                changes[key] = "{:02x}{:02x}{:02x}".format(*values[i:i + 3])
            i += need
    if any(changes.get(name, off) != off
           for name, off in zip(_FIELDS[EXTRA:], _EXTRA_OFF, strict=True)):
        return _TurnsOn(changes), tuple(ignored)
    return changes, tuple(ignored)


def true_colour(params: str) -> bool:
    """Whether SGR parameters set a 24-bit colour. Such sequences seldom come
    twice (gradients, images: 85% of them on the colour benchmark are
    unique), so they are not memoised: that would cost more than it saves."""
    return "8;2;" in params or "8:2:" in params


def _one_true_colour(pen: Char, params: str) -> Char | None:
    """The pen after ``CSI params m`` when the parameters are one 24-bit
    colour and nothing else (``38;2;r;g;b``), read by one regular expression;
    ``None`` for any other parameters."""
    m = _ONE_TRUE_COLOUR.fullmatch(params)
    if m is None:
        return None
    which, r, g, b = m.groups()
    colour = f"{int(r):02x}{int(g):02x}{int(b):02x}"
    return _replaced(pen, {"fg" if which == "3" else "bg": colour})


def _replaced(attrs: Char, changes: Mapping[str, object]) -> Char:
    """``attrs._replace(**changes)`` in one pass of C code (every new colour)
    for a plain pen that stays plain; :func:`_rebuilt` for any other."""
    if type(attrs) is Char and type(changes) is dict:
        # The extra fields in ``changes`` (SGR 0, 22, 24...) turn attributes
        # off that a plain pen does not have: nothing to do for them.
        return tuple.__new__(Char, map(changes.get, _CHAR_FIELDS, attrs))
    return _rebuilt(attrs, changes)


_CHAR_FIELDS = Char._fields


def _rebuilt(attrs: Char, changes: Mapping[str, object]) -> Char:
    """``attrs`` with ``changes``, in the class its attributes call for: a
    :class:`StyledChar` while an extra attribute is on, a plain ``Char``
    otherwise, protected (DECSCA) if ``attrs`` is. ``attrs`` may be any
    ``Char`` class of either length (``TermScreen.set_protection`` rebuilds
    a pen as ``Protected`` or ``Char`` keeping its length)."""
    old = tuple(attrs) if len(attrs) > EXTRA else (*attrs, *_EXTRA_OFF)
    values = tuple(map(changes.get, _FIELDS, old))
    protected = isinstance(attrs, Protected)
    if values[EXTRA:] == _EXTRA_OFF:
        return tuple.__new__(Protected if protected else Char, values[:EXTRA])
    return tuple.__new__(ProtectedStyledChar if protected else StyledChar, values)


class Sgr:
    """SGR for one screen, with its memos; the dispatcher owns one, and
    makes a :class:`SgrAction` of it for each SGR sequence.

    ``unknown`` is the terminal's count of what it did not understand: the
    codes termsim drops go there.
    """

    __slots__ = ("_memo", "_parsed", "_screen", "_unknown")

    def __init__(self, screen: TermScreen, unknown: Counter[str]) -> None:
        self._screen = screen
        self._unknown = unknown
        # (attributes, parameters, DECSCNM) -> new attributes.
        self._memo: dict[tuple[Char, str, bool], Char] = {}
        # (parameters, DECSCNM) -> (fields set, codes termsim drops).
        self._parsed: dict[tuple[str, bool], tuple[dict[str, object], tuple[int, ...]]] = {}

    def apply(self, params: str) -> bool:
        """Apply ``CSI params m``; return whether the result may be reused.

        Hot path: the new attributes are memoised per (attributes,
        parameters), and what the parameters set per parameters alone, so
        that a new colour costs one tuple built in C.
        """
        s = self._screen
        cursor = s.cursor
        cursor.attrs, ignored = self._next(cursor.attrs, params, mo.DECSCNM in s.mode)
        if ignored:
            unknown = self._unknown
            for code in ignored:
                unknown[f"SGR {code}"] += 1
            return False
        return not true_colour(params)

    def apply_true_colour(self, params: str) -> None:
        """Apply ``CSI params m`` for parameters that set a 24-bit colour.

        Hot path (``colour.bin``: a new colour for every character): the
        commonest form, one colour alone (``38;2;r;g;b``), is read by one
        regular expression, with neither memo (the same colour seldom comes
        twice) nor the general parse; anything else takes :meth:`apply`.
        """
        cursor = self._screen.cursor
        attrs = _one_true_colour(cursor.attrs, params)
        if attrs is None:
            self.apply(params)
        else:
            cursor.attrs = attrs

    def after(self, pen: Char, params: str) -> Char:
        """The pen ``CSI params m`` makes of ``pen``, outside DECSCNM,
        counting nothing (the caller counts :meth:`ignored`): a row kept as
        coloured text (``styled.py``) is drawn with it, later, without the
        screen."""
        if params in ("", "0") and type(pen) is Char:
            return BLANK  # as SgrAction
        attrs = _one_true_colour(pen, params)
        return self._next(pen, params, False)[0] if attrs is None else attrs

    def _next(self, pen: Char, params: str, reverse: bool) -> tuple[Char, tuple[int, ...]]:
        """The pen after ``CSI params m`` (``reverse``: DECSCNM is set), and
        the codes in it termsim drops. A result is memoised only when it holds
        no such code (``apply`` counts them at every use, on a miss) and no
        24-bit colour (seldom met twice)."""
        key = (pen, params, reverse)
        memo = self._memo
        attrs = memo.get(key)
        if attrs is not None:
            return attrs, ()
        changes, ignored = self._parse(params, reverse)
        attrs = _replaced(pen, changes)
        if not ignored and len(params) <= _MAX_MEMO_PARAMS and not true_colour(params):
            if len(memo) >= _MAX_MEMO:
                memo.clear()
            memo[key] = attrs
        return attrs, ignored

    def ignored(self, params: str) -> tuple[int, ...]:
        """The codes of ``CSI params m`` that termsim drops, which applying it
        counts in ``Terminal.unknown``."""
        if _ONE_TRUE_COLOUR.fullmatch(params):
            return ()
        return self._parse(params, False)[1]

    def _parse(self, params: str, reverse: bool) -> tuple[dict[str, object], tuple[int, ...]]:
        """What SGR ``params`` set, and the codes among them termsim drops."""
        key = (params, reverse)
        parsed = self._parsed.get(key)
        if parsed is None:
            values = _sgr_params(params)
            # Parameters that all were dropped (``58:2::1:2:3``) change
            # nothing; an empty ``CSI m`` is SGR 0.
            reset = values or not params
            parsed = _sgr_changes(values, reverse) if reset else ({}, ())
            if len(params) <= _MAX_MEMO_PARAMS and not true_colour(params):
                if len(self._parsed) >= _MAX_MEMO:
                    self._parsed.clear()
                self._parsed[key] = parsed
        return parsed


class SgrAction:
    """The action ``_Dispatch.sequences`` keeps for one SGR sequence.

    It remembers the attributes it last turned into others, so that the same
    sequence in the same context (``ESC[32m`` after ``ESC[0m``, as in a
    test runner's dots) costs an identity check: no key to build or hash.
    The dispatcher builds one directly, with no factory in between: a 24-bit
    colour, never cached, builds one each time. Hot path:
    ``benchmarks/bench_feed.py``, the colour stream.
    """

    __slots__ = ("_after", "_before", "_params", "_reset", "_screen", "_sgr")

    def __init__(self, sgr: Sgr, params: str) -> None:
        self._sgr = sgr
        self._screen = sgr._screen
        self._params = params
        self._before: Char | None = None
        self._after: Char | None = None
        #: SGR 0 gives the same pen whatever came before (an unprotected one
        #: outside DECSCNM), so it needs no memo entry per former pen.
        self._reset = params in ("", "0")

    def wipes(self) -> bool:
        """Whether this sequence begins with SGR 0, so that the SGR before
        it, if nothing reads the pen in between, changes nothing
        (``_Dispatch.fuse`` leaves that one out: prompt_toolkit ends a frame
        with ``ESC[0m`` and begins the next with it)."""
        values = _sgr_params(self._params)
        return values[0] == 0 if values else not self._params

    def counted(self) -> bool:
        """Whether applying it counts codes in ``Terminal.unknown``."""
        return bool(self._sgr.ignored(self._params))

    def __call__(self) -> None:
        s = self._screen
        cursor = s.cursor
        before = cursor.attrs
        if before is self._before and mo.DECSCNM not in s.mode:
            cursor.attrs = self._after  # type: ignore[assignment]
            return
        if self._reset and type(before) is Char and mo.DECSCNM not in s.mode:
            cursor.attrs = BLANK  # shared: its glyphs are found by identity
            return
        if self._sgr.apply(self._params) and mo.DECSCNM not in s.mode:
            self._before, self._after = before, cursor.attrs
        else:
            self._before = None
