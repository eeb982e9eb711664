"""The queries a program sends its terminal, and termsim's answer to each.

Theory of operation
-------------------

Programs ask their terminal questions and wait for the answer: where the
cursor is (CPR, which prompt_toolkit sends before every prompt), what
terminal this is (DA1, DA2), which colours it uses (OSC 10/11), whether a
mode is set (DECRQM). A terminal answers in the input stream, at once, from
the state that the output *before* the question produced.

Answering is split in two. The dispatcher (``terminal/dispatch.py``) only
recognises *which* kind of query a sequence is: it builds a
:class:`Request` (the kind, the sequence as sent, its parameters) and hands
it, with the request's position, to the ``Terminal``. The ``Terminal`` looks
the kind up in :data:`KINDS`, this module's one table, and calls that entry's
``answer`` with the screen as it stands at that byte: the string returned is
the reply, which the terminal's policy sends now, later or never; ``None``
means termsim has no answer for that request, and the query is logged as
``"unsupported"``.

So this table is the only place that knows what termsim replies, and the
only list of the kinds it logs: ``QUERY_KINDS`` (kind -> description, the
vocabulary of a policy) is made from it, and a kind termsim cannot answer
yet has its entry too, with an answer that returns ``None``. Answering one
more (XTVERSION, XTGETTCAP, DECRQSS, a size in pixels) is changing that one
entry's ``answer``; reporting one more mode to DECRQM is one entry in
:data:`MODE_REPORTS`.

What becomes of each query is logged as a :class:`Query`, and how each kind
is answered is a :data:`Policy`: ``"answer"`` (at once), ``"ignore"`` (never)
or a delay in seconds (the reply is still computed at the query's byte, and
the caller sends it that much later), the same vocabulary as
``spawn(cpr=...)``. Both are defined here, and ``terminal/terminal.py`` exports them.

Like the rest of the terminal, this module does no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from pyte import graphics as g
from pyte import modes as mo
from pyte.screens import Char

from ..screen.screen import Protected, TermScreen
from ..screen.sgr import EXTRA
from ..terminals.xterm import BACKGROUND as BACKGROUND  # defined here first, still read from here
from ..terminals.xterm import FOREGROUND as FOREGROUND
from ..terminals.xterm import XTERM_PATCH
from ..terminals.xterm import printable as printable
from .tcap import tcap_value


class Request(NamedTuple):
    """A query as the dispatcher recognised it: what an answer may read."""

    kind: str
    #: The whole request as the program sent it (``"\\x1b[?2004$p"``); its
    #: printable form is what the log shows.
    text: str
    #: CSI parameters as numbers (empty ones are 0).
    args: tuple[int, ...] = ()
    #: The CSI private marker (``"?"``, ``">"``...), if any.
    private: str = ""
    #: The body of a string request (OSC, DCS), after its introducer.
    body: str = ""
    #: The string terminator (BEL or ``ESC \\``), which a reply repeats.
    terminator: str = ""


#: Computes a reply from the screen (as the bytes before the query left it)
#: and the request; ``None``: termsim has no answer for that request.
Answer = Callable[[TermScreen, Request], str | None]


@dataclass(frozen=True, slots=True)
class Kind:
    """One entry of the table: what the query is, and how it is answered."""

    #: What the query asks and what termsim replies; the part before the
    #: first comma names the query in messages (``Query.describe()``).
    description: str
    answer: Answer



#: DEC private modes termsim implements (DECRQM reports their state; the
#: dispatcher counts any other mode it is asked to set).
KNOWN_PRIVATE_MODES = frozenset(
    {1, 3, 4, 5, 6, 7, 9, 12, 25, 47, 69, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 1047,
     1048, 1049, 2004, 2026}
)
#: Modes termsim knows of and does not offer, reported "permanently reset"
#: (4) rather than "not recognised", so a program falls back at once:
#: grapheme clustering (2027) and in-band resize reports (2048).
UNOFFERED_PRIVATE_MODES = frozenset({2027, 2048})
#: Modes a profile's terminal may offer that change nothing termsim draws:
#: SGR-pixel mouse reports (1016), colour-scheme reports (2031), in-band
#: resize reports (2048). Where the profile offers one, DECRQM says whether
#: the program set it.
FLAG_ONLY_MODES = frozenset({1016, 2031, 2048})
#: ANSI modes pyte implements: IRM (4) and LNM (20).
KNOWN_ANSI_MODES = frozenset({mo.IRM, mo.LNM})


def _tracked(key: int) -> Callable[[TermScreen], int]:
    """DECRQM's state of a mode the screen keeps, by pyte's ``key`` for it
    (a DEC private mode shifted left by 5, an ANSI mode as it is)."""
    return lambda screen: 1 if key in screen.mode else 2


#: How DECRQM reports each mode termsim knows, by (private?, mode): a
#: function of the screen giving DECRQM's state (1 set, 2 reset, 3
#: permanently set, 4 permanently reset). Any other mode is 0, not recognised.
MODE_REPORTS: Mapping[tuple[bool, int], Callable[[TermScreen], int]] = {
    **{(True, mode): _tracked(mode << 5) for mode in KNOWN_PRIVATE_MODES},
    **{(True, mode): (lambda screen: 4) for mode in UNOFFERED_PRIVATE_MODES},
    # Emulation(graphemes=True): clustering is always on, "permanently set".
    (True, 2027): lambda screen: 3 if screen.graphemes else 4,
    **{(False, mode): _tracked(mode) for mode in KNOWN_ANSI_MODES},
}



def _cursor(screen: TermScreen) -> tuple[int, int]:
    """The cursor as CPR reports it: 1-based row and column."""
    # A pending wrap (cursor one past the last column) is reported as the
    # last column, as xterm does; pyte reports columns+1.
    x = min(screen.cursor.x, screen.columns - 1) + 1
    y = screen.cursor.y + 1
    if mo.DECOM in screen.mode and screen.margins is not None:
        y -= screen.margins.top
    if mo.DECOM in screen.mode and screen.lr_margins is not None:
        x -= screen.lr_margins[0]  # xterm's ``CursorCol``
    return y, x


def _cpr(screen: TermScreen, request: Request) -> str:
    y, x = _cursor(screen)
    return f"\x1b[{y};{x}R"


def _decxcpr(screen: TermScreen, request: Request) -> str:
    y, x = _cursor(screen)
    return f"\x1b[?{y};{x};1R"


def _window_size(screen: TermScreen, request: Request) -> str:
    rows, cols = screen.lines, screen.columns  # pyte's counts
    return f"\x1b[8;{rows};{cols}t"


def _decrqm(screen: TermScreen, request: Request) -> str | None:
    """A mode's state: live for the modes termsim keeps, and for those the
    profile's terminal can set that have no effect on the cells (1016,
    2031, 2048: set or reset as the program left them); the profile's for
    those it does not offer (not recognised, permanently set or reset); no
    answer where the profile's terminal has no DECRQM."""
    profile = screen.profile
    if profile.modes is None:
        return None
    mode = request.args[0] if request.args else 0
    private = request.private == "?"
    report = MODE_REPORTS.get((private, mode))
    state = report(screen) if report is not None else 0
    if private and mode in profile.modes and (
            report is None or profile.modes[mode] in (0, 3, 4) or mode in FLAG_ONLY_MODES):
        state = profile.modes[mode]
        if state in (1, 2) and mode in FLAG_ONLY_MODES:
            state = 1 if mode << 5 in screen.mode else 2
        if mode == 2027 and state == 4 and screen.graphemes:
            state = 3  # Emulation(graphemes=True) on a terminal that has no 2027
    return f"\x1b[{request.private}{mode};{state}$y"


def _pixels(code: int) -> Answer:
    """XTWINOPS pixel sizes from the cell size: the text area (``CSI 14 t`` ->
    4), the screen (15 -> 5, the same: a terminal in a test is all text
    area), a cell (16 -> 6); and the screen in characters (19 -> 9)."""

    def answer(screen: TermScreen, request: Request) -> str:
        width, height = screen.cell_size
        if code == 6:
            return f"\x1b[6;{height};{width}t"
        if code == 9:
            return f"\x1b[9;{screen.lines};{screen.columns}t"
        return f"\x1b[{code};{screen.lines * height};{screen.columns * width}t"

    return answer


def _xtversion(screen: TermScreen, request: Request) -> str | None:
    if request.args not in ((), (0,)):
        return None
    return screen.profile.xtversion


def _attributes(which: str) -> Answer:
    """DA1, DA2 or DA3 as the screen's profile answers (None: never)."""
    return lambda screen, request: getattr(screen.profile, which)


def _kitty_keyboard(screen: TermScreen, request: Request) -> str | None:
    """``CSI ? u``: the flags in force (the top of the stack), where the
    profile's terminal speaks the kitty keyboard protocol."""
    if not screen.profile.kitty_keyboard:
        return None
    stack = screen.kitty_keyboard
    return f"\x1b[?{stack[-1] if stack else 0}u"


#: SGR codes of the named colours pyte keeps, foreground (background: +10).
_COLOUR_CODES = {
    **{name: code for code, name in g.FG_ANSI.items() if name != "default"},
    **{name: code for code, name in g.FG_AIXTERM.items()},
}
_PALETTE = {colour: index for index, colour in enumerate(g.FG_BG_256)}


def _sgr_colour(colour: str, base: int) -> str | None:
    if colour == "default":
        return None
    if colour in _COLOUR_CODES:
        return str(_COLOUR_CODES[colour] + base - 30)
    if colour in _PALETTE:
        return f"{base + 8};5;{_PALETTE[colour]}"
    try:
        rgb = ";".join(str(int(colour[i:i + 2], 16)) for i in (0, 2, 4))
    except ValueError:
        return None
    return f"{base + 8};2;{rgb}"


#: The underline styles as DECRQSS reports them: 4 and 21 as xterm does,
#: the others as kitty does (``4:3``).
_UNDERLINE_SGR = {"": "4", "double": "21", "curly": "4:3", "dotted": "4:4", "dashed": "4:5"}


def sgr_of(attrs: Char) -> str:
    """The SGR parameters that set the pen ``attrs`` from a reset: what
    DECRQSS reports for ``m``. Every attribute the pen holds is reported,
    so that a program that saves the pen this way and sets it back loses
    nothing (dim, invisible and the underline's style and colour too)."""
    extra: tuple[bool, bool, str, str] = (
        attrs[EXTRA:EXTRA + 4] if len(attrs) > EXTRA  # type: ignore[assignment]
        else (False, False, "", "default"))
    dim, invisible, underline, underline_colour = extra
    codes = ["0"]
    for on, code in ((attrs.bold, "1"), (dim, "2"), (attrs.italics, "3"),
                     (attrs.underscore, _UNDERLINE_SGR.get(underline, "4")),
                     (attrs.blink, "5"), (attrs.reverse, "7"), (invisible, "8"),
                     (attrs.strikethrough, "9")):
        if on:
            codes.append(code)
    codes += [c for c in (_sgr_colour(attrs.fg, 30), _sgr_colour(attrs.bg, 40),
                          _sgr_colour(underline_colour, 50)) if c]
    return ";".join(codes)


def _decrqss(screen: TermScreen, request: Request) -> str:
    """DECRQSS: the setting asked for, as the control that would set it
    (``DCS 1 $ r <control> ST``), or ``DCS 0 $ r ST`` for one termsim does
    not report."""
    setting = request.body[2:]
    if setting == "m":
        value = f"{sgr_of(screen.cursor.attrs)}m"
    elif setting == "r":
        top, bottom = (screen.margins.top, screen.margins.bottom) if screen.margins \
            else (0, screen.lines - 1)
        value = f"{top + 1};{bottom + 1}r"
    elif setting == "s":  # DECSLRM, the whole width when not set
        left, right = screen.lr_margins or (0, screen.columns - 1)
        value = f"{left + 1};{right + 1}s"
    elif setting == " q":
        value = f"{screen.cursor_shape or 1} q"  # 0 is "the default": a blinking block
    elif setting == '"q':
        value = '1"q' if isinstance(screen.cursor.attrs, Protected) else '0"q'  # DECSCA
    else:
        return "\x1bP0$r\x1b\\"
    return f"\x1bP1$r{value}\x1b\\"


def _xtgettcap(screen: TermScreen, request: Request) -> str:
    """XTGETTCAP: ``DCS 1 + r name=value;... ST`` (hex-encoded) when termsim
    knows every name asked for, else ``DCS 0 + r name ST`` for the first it
    does not (xterm stops there too)."""
    pairs = []
    for hexname in request.body[2:].split(";"):
        try:
            name = bytes.fromhex(hexname).decode() if hexname.isascii() else ""
        except ValueError:
            name = ""
        value = tcap_value(name, screen) if name else None
        if value is None:
            return f"\x1bP0+r{hexname if name else ''}\x1b\\"
        pairs.append(f"{hexname}={value.encode().hex().upper()}")
    return f"\x1bP1+r{';'.join(pairs)}\x1b\\"


#: XTQMODKEYS: xterm's defaults for the key modifier resources termsim
#: follows (modifyCursorKeys and modifyFunctionKeys 2: ``ESC[1;2A``...).
_MODIFY_KEYS = {0: 0, 1: 2, 2: 2, 4: 0}


def _xtqmodkeys(screen: TermScreen, request: Request) -> str | None:
    resource = request.args[0] if request.args else 0
    value = _MODIFY_KEYS.get(resource)
    return None if value is None else f"\x1b[>{resource};{value}m"


def _always(reply: str) -> Answer:
    """An answer that does not depend on the screen."""
    return lambda screen, request: reply


def _colour(code: str, which: str) -> Answer:
    """An OSC colour report of the profile's ``which`` colour (foreground or
    background), ended as the request was; none where it has no such report."""

    def answer(screen: TermScreen, request: Request) -> str | None:
        colour = getattr(screen.profile, which)
        return None if colour is None else f"\x1b]{code};{colour}{request.terminator}"

    return answer


def _palette(screen: TermScreen, request: Request) -> str | None:
    """OSC 4's queries, each answered in an OSC of its own (``screen.palette``)."""
    return screen.palette_report(request.body[2:], request.terminator) or None


def _no_answer(screen: TermScreen, request: Request) -> None:
    """termsim does not answer this kind (yet): logged as ``"unsupported"``."""
    return None


#: Every kind of query termsim recognises: kind -> description and answer.
KINDS: Mapping[str, Kind] = {
    "cpr": Kind("cursor position report, ESC[6n -> ESC[row;colR", _cpr),
    "decxcpr": Kind("extended cursor position, ESC[?6n -> ESC[?row;col;1R", _decxcpr),
    "dsr": Kind("device status, ESC[5n -> ESC[0n (ready)", _always("\x1b[0n")),
    "da1": Kind(
        "primary device attributes, ESC[c -> ESC[?62;22c (VT220, ANSI colour; as the "
        "profile's terminal answers)", _attributes("da1"),
    ),
    "da2": Kind(
        f"secondary device attributes, ESC[>c -> ESC[>41;{XTERM_PATCH};0c (xterm, as a VT420)",
        _attributes("da2"),
    ),
    "window-size": Kind("text area size, ESC[18t -> ESC[8;rows;colst", _window_size),
    "osc-fg": Kind(
        "foreground colour, OSC 10;? -> OSC 10;rgb:ffff/ffff/ffff", _colour("10", "foreground"),
    ),
    "osc-bg": Kind(
        "background colour, OSC 11;? -> OSC 11;rgb:0000/0000/0000", _colour("11", "background"),
    ),
    "osc-cursor": Kind(
        "cursor colour, OSC 12;? -> OSC 12;rgb:ffff/ffff/ffff", _colour("12", "foreground"),
    ),
    "decrqm": Kind("mode report, ESC[?Ps$p -> ESC[?Ps;Pm$y", _decrqm),
    "xtversion": Kind(
        f"terminal name and version, ESC[>q -> DCS >|XTerm({XTERM_PATCH}) ST (XTVERSION)",
        _xtversion,
    ),
    "decrqss": Kind(
        "setting report, DCS $q Pt ST -> DCS 1$r <control> ST for SGR (m), margins (r, s), "
        "cursor style ( q), protection (\"q) (DECRQSS)", _decrqss,
    ),
    "xtgettcap": Kind(
        "terminfo capability, DCS +q <hex names> ST -> DCS 1+r name=value ST for the keys, "
        "TN and Co (XTGETTCAP)", _xtgettcap,
    ),
    "xtwinops 14": Kind("text area size in pixels, ESC[14t -> ESC[4;height;widtht", _pixels(4)),
    "xtwinops 15": Kind("screen size in pixels, ESC[15t -> ESC[5;height;widtht", _pixels(5)),
    "xtwinops 16": Kind("character cell size in pixels, ESC[16t -> ESC[6;height;widtht",
                        _pixels(6)),
    "xtwinops 19": Kind("screen size in characters, ESC[19t -> ESC[9;rows;colst", _pixels(9)),
    # Recognised and logged, not answered: a terminal that lacks the feature.
    "da3": Kind("tertiary device attributes, ESC[=c (DA3: the unit id; xterm does not "
                "answer it, some profiles do)", _attributes("da3")),
    "kitty-keyboard": Kind("kitty keyboard protocol flags, ESC[?u -> ESC[?flags u where the "
                           "profile's terminal speaks it", _kitty_keyboard),
    "xtqmodkeys": Kind(
        "key modifier options, ESC[?Pp m -> ESC[>Pp;Pv m, xterm's defaults (XTQMODKEYS)",
        _xtqmodkeys,
    ),
    "osc-palette": Kind(
        "palette colour, OSC 4;c;? -> OSC 4;c;rgb:rrrr/gggg/bbbb, xterm's palette or the "
        "colour set by OSC 4", _palette,
    ),
    "dsr-other": Kind("other device status report, ESC[Psn (Ps not 5 or 6)", _no_answer),
    "decdsr-other": Kind(
        "other DEC device status report, ESC[?Psn (printer, keyboard, locator...)", _no_answer,
    ),
    "xtwinops 11": Kind("window state, ESC[11t (iconified or not)", _no_answer),
    "xtwinops 13": Kind("window position, ESC[13t", _no_answer),
    "xtwinops 20": Kind("icon label, ESC[20t", _no_answer),
    "xtwinops 21": Kind("window title, ESC[21t", _no_answer),
}

#: The kinds of query termsim recognises, and what each asks and is answered.
QUERY_KINDS: Mapping[str, str] = {kind: entry.description for kind, entry in KINDS.items()}


#: How a kind of query is answered: ``"answer"`` (at once), ``"ignore"``
#: (never, like a terminal without the feature), or a delay in seconds (the
#: reply is computed at the query's offset and handed out by
#: ``Terminal.take_deferred()`` for the caller to send that much later).
Policy = Literal["answer", "ignore"] | float


@dataclass(slots=True)
class Query:
    """A query the program sent, and what became of it. (Slots: a program
    may ask a million times, and each is logged.)"""

    kind: str
    #: The request as printable text, e.g. ``"ESC[6n"``.
    request: str
    #: Byte offset of the request's first byte in the program's output.
    offset: int
    #: The reply computed at that offset (``None`` when termsim has none).
    reply: bytes | None
    #: ``"answered"``, ``"ignored"`` (policy), ``"deferred"`` (reply not sent
    #: yet), or ``"unsupported"`` (termsim has no answer for this kind).
    status: str = "answered"
    extra: dict[str, object] = field(default_factory=dict)
    #: For a deferred query, the policy's delay: send ``reply`` this many
    #: seconds after the query was read.
    delay: float | None = None

    @property
    def unanswered(self) -> bool:
        """The program is still owed (or was never given) an answer."""
        return self.status != "answered"

    def describe(self) -> str:
        """One line for error messages: the request, its kind, where, its fate."""
        what = QUERY_KINDS.get(self.kind, self.kind)
        return f"{self.request} ({what.split(',')[0]}) at output byte {self.offset}: {self.status}"




def check_policy(kind: str, value: object) -> None:
    """Raise ``ValueError`` unless ``value`` is a :data:`Policy` for a known ``kind``."""
    if kind not in QUERY_KINDS:
        raise ValueError(f"unknown query kind {kind!r}; known: {', '.join(QUERY_KINDS)}")
    if value in ("answer", "ignore"):
        return
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < math.inf:
        return
    raise ValueError(
        f'policy for query kind {kind!r} must be "answer", "ignore" or a delay in seconds '
        f"(a finite number >= 0), not {value!r}"
    )
