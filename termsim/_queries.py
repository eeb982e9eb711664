"""The queries a program sends its terminal, and termsim's answer to each.

Theory of operation
-------------------

Programs ask their terminal questions and wait for the answer: where the
cursor is (CPR, which prompt_toolkit sends before every prompt), what
terminal this is (DA1, DA2), which colours it uses (OSC 10/11), whether a
mode is set (DECRQM). A terminal answers in the input stream, at once, from
the state that the output *before* the question produced.

Answering is split in two. The dispatcher (``_terminal.py``) only
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
``spawn(cpr=...)``. Both are defined here, and ``_terminal.py`` exports them.

Like the rest of the terminal, this module does no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from pyte import modes as mo

from ._screen import TermScreen


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


FOREGROUND = "rgb:ffff/ffff/ffff"
BACKGROUND = "rgb:0000/0000/0000"

#: DEC private modes termsim implements (DECRQM reports their state; the
#: dispatcher counts any other mode it is asked to set).
KNOWN_PRIVATE_MODES = frozenset(
    {1, 3, 4, 5, 6, 7, 9, 12, 25, 47, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 1047,
     1048, 1049, 2004, 2026}
)
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


def _decrqm(screen: TermScreen, request: Request) -> str:
    mode = request.args[0] if request.args else 0
    report = MODE_REPORTS.get((request.private == "?", mode))
    state = report(screen) if report is not None else 0
    return f"\x1b[{request.private}{mode};{state}$y"


def _always(reply: str) -> Answer:
    """An answer that does not depend on the screen."""
    return lambda screen, request: reply


def _colour(code: str, colour: str) -> Answer:
    """An OSC colour report, ended as the request was."""
    return lambda screen, request: f"\x1b]{code};{colour}{request.terminator}"


def _no_answer(screen: TermScreen, request: Request) -> None:
    """termsim does not answer this kind (yet): logged as ``"unsupported"``."""
    return None


#: Every kind of query termsim recognises: kind -> description and answer.
KINDS: Mapping[str, Kind] = {
    "cpr": Kind("cursor position report, ESC[6n -> ESC[row;colR", _cpr),
    "decxcpr": Kind("extended cursor position, ESC[?6n -> ESC[?row;col;1R", _decxcpr),
    "dsr": Kind("device status, ESC[5n -> ESC[0n (ready)", _always("\x1b[0n")),
    "da1": Kind(
        "primary device attributes, ESC[c -> ESC[?62;22c (VT220, ANSI colour)",
        _always("\x1b[?62;22c"),
    ),
    "da2": Kind(
        "secondary device attributes, ESC[>c -> ESC[>0;276;0c", _always("\x1b[>0;276;0c"),
    ),
    "window-size": Kind("text area size, ESC[18t -> ESC[8;rows;colst", _window_size),
    "osc-fg": Kind(
        "foreground colour, OSC 10;? -> OSC 10;rgb:ffff/ffff/ffff", _colour("10", FOREGROUND),
    ),
    "osc-bg": Kind(
        "background colour, OSC 11;? -> OSC 11;rgb:0000/0000/0000", _colour("11", BACKGROUND),
    ),
    "osc-cursor": Kind(
        "cursor colour, OSC 12;? -> OSC 12;rgb:ffff/ffff/ffff", _colour("12", FOREGROUND),
    ),
    "decrqm": Kind("mode report, ESC[?Ps$p -> ESC[?Ps;Pm$y", _decrqm),
    # Recognised and logged, not answered: a terminal that lacks the feature.
    "da3": Kind("tertiary device attributes, ESC[=c (DA3: the unit id)", _no_answer),
    "xtversion": Kind("terminal name and version, ESC[>q (XTVERSION)", _no_answer),
    "decrqss": Kind("setting report, DCS $q Pt ST (DECRQSS)", _no_answer),
    "xtgettcap": Kind("terminfo capability, DCS +q Pt ST (XTGETTCAP)", _no_answer),
    "kitty-keyboard": Kind("kitty keyboard protocol flags, ESC[?u", _no_answer),
    "xtqmodkeys": Kind("key modifier options, ESC[?Pp m (XTQMODKEYS)", _no_answer),
    "osc-palette": Kind("palette colour, OSC 4;c;?", _no_answer),
    "dsr-other": Kind("other device status report, ESC[Psn (Ps not 5 or 6)", _no_answer),
    "decdsr-other": Kind(
        "other DEC device status report, ESC[?Psn (printer, keyboard, locator...)", _no_answer,
    ),
    "xtwinops 11": Kind("window state, ESC[11t (iconified or not)", _no_answer),
    "xtwinops 13": Kind("window position, ESC[13t", _no_answer),
    "xtwinops 14": Kind("text area size in pixels, ESC[14t", _no_answer),
    "xtwinops 15": Kind("screen size in pixels, ESC[15t", _no_answer),
    "xtwinops 16": Kind("character cell size in pixels, ESC[16t", _no_answer),
    "xtwinops 19": Kind("screen size in characters, ESC[19t", _no_answer),
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


@dataclass
class Query:
    """A query the program sent, and what became of it."""

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


def printable(seq: str) -> str:
    """``"\\x1b[6n"`` -> ``"ESC[6n"``: escape sequences as people write them."""
    out = []
    for ch in seq:
        if ch == "\x1b":
            out.append("ESC")
        elif ch == "\x07":
            out.append("BEL")
        elif ch < " " or "\x7f" <= ch <= "\x9f":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


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
