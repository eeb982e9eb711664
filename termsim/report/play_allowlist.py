"""What of a recording's output may reach the user's own terminal.

``termsim play`` writes a stranger's bytes to a real terminal, which does
far more than draw: it writes the clipboard (OSC 52), sets the title and
the working directory the next tab opens in (OSC 0/2, OSC 7), changes the
palette, pops notifications, passes strings through to the terminal
outside tmux (``DCS tmux;``), shows images, answers queries into the
shell's input, switches input modes (mouse, bracketed paste, keyboard
protocols) and even its own encoding (``ESC % @``, ``ESC SP G``). A
blocklist of the dangerous ones is always one sequence short, so this is
an allowlist: what passes is what draws cells, and everything else is
dropped and counted by :class:`Kind` for the line ``play`` ends with.

What passes
    Printable text (bytes that are not UTF-8 become U+FFFD, as the screen
    draws them, so that no terminal reads a stray 0x9b as CSI); the C0
    controls that move the cursor (BS, HT, LF, VT, FF, CR); SGR; cursor
    motion and save/restore; erase (ED 0-2, EL, ECH); insert and delete of
    characters and rows; scrolling (SU, SD, IND, RI, NEL) and the scrolling
    region (DECSTBM); and the modes a screen cannot be drawn faithfully
    without: the alternate screen (47, 1047, 1048, 1049), the cursor's
    visibility (25), autowrap (7), origin (6), insert (IRM); the G0 and
    G1 character sets ASCII, DEC line drawing and UK, with SO and SI. A
    combined mode switch (``CSI ? 1049 ; 1000 h``) keeps its allowed modes.
    The state these leave behind is what ``play`` undoes at the end
    (:mod:`termsim.report.play`): the modes from the screen they make
    (``hygiene``), the character sets from :attr:`Allowed.charsets`.

What does not, though it looks harmless
    The bell (a notification); titles, and the title stack (``CSI 22 t``,
    which would only matter if a title were ever written); erasing the
    scrollback (``CSI 3 J``: it is the user's, not the recording's); tab
    stops, reverse video, LNM, the cursor's shape and blinking, the
    keypad, mouse and keyboard modes (nothing of them is drawn, and each
    would outlive the playback); resets (RIS, DECSTR), window operations,
    G2/G3 and other character sets; every OSC, DCS, APC, PM and SOS.

Decided: each token is classified from its own bytes, as the grammar
(:mod:`termsim.emulator.parsing.grammar`, the tokenizer's own parser) splits them,
not by feeding a :class:`~termsim.emulator.Terminal` and asking it what happened
(how the queries used to be found): an allowlist must not depend on the
emulator recognising a sequence, since what it does not recognise is
exactly what must not pass. The names (:mod:`termsim.report.names`)
only say which dropped sequences were queries. Offsets are those of the
whole output stream, so a sequence cut across two output events is judged
once, whole, and written with the event that completes it; a control the
terminal executes inside a sequence (``ESC [ 1 LF A``) is judged on its
own, as the terminal executes it.

Like the emulator, this module does no I/O.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from ..emulator.parsing.grammar import Scanner, Span
from ..emulator.parsing.tokenizer import MAX_PENDING
from ..events import Output
from ..recording.format import Recording
from .names import name_of


class Kind(Enum):
    """What a dropped token was, in the words of the closing line: the
    value is (one, many)."""

    CLIPBOARD = ("clipboard write", "clipboard writes")
    TITLE = ("title", "titles")
    CWD = ("working directory", "working directories")
    PALETTE = ("palette change", "palette changes")
    NOTIFICATION = ("notification", "notifications")
    BELL = ("bell", "bells")
    LINK = ("hyperlink", "hyperlinks")
    SHELL = ("shell integration mark", "shell integration marks")
    PASSTHROUGH = ("passthrough", "passthroughs")
    IMAGE = ("image", "images")
    STRING = ("other control string", "other control strings")
    QUERY = ("query", "queries")
    MODE = ("mode change", "mode changes")
    CURSOR_SHAPE = ("cursor shape", "cursor shapes")
    WINDOW = ("window operation", "window operations")
    RESET = ("terminal reset", "terminal resets")
    CHARSET = ("character set switch", "character set switches")
    TABS = ("tab stop change", "tab stop changes")
    SCROLLBACK = ("scrollback erase", "scrollback erases")
    CONTROL = ("other control character", "other control characters")
    OTHER = ("other sequence", "other sequences")
    UNFINISHED = ("unfinished sequence", "unfinished sequences")

    def counted(self, n: int) -> str:
        """``"3 clipboard writes"``."""
        one, many = self.value
        return f"{n} {one if n == 1 else many}"


def summary(dropped: Counter[Kind]) -> str:
    """``"dropped 3 clipboard writes, 1 title, 12 queries"``, in the order
    of :class:`Kind`; ``""`` when nothing was dropped."""
    parts = [kind.counted(dropped[kind]) for kind in Kind if dropped[kind]]
    return "dropped " + ", ".join(parts) if parts else ""


#: BS, HT, LF, VT, FF, CR.
_MOVING_CONTROLS = frozenset("\x08\x09\x0a\x0b\x0c\x0d")
#: SO and SI: G1 or G0 into GL (undone at the end: ``Allowed.charsets``).
_SHIFTS = frozenset("\x0e\x0f")
#: ``CSI Pn final`` with no private marker or intermediates that only draw
#: or move: ICH, CUU, CUD, CUF, CUB, CNL, CPL, CHA, CUP, CHT, EL, IL, DL,
#: DCH, SU, ECH, CBT, HPA, HPR, REP, VPA, VPR, HVP, SGR, DECSTBM.
_DRAWING_CSI = frozenset("@ABCDEFGHIKLMPSXZ`abdefmr")
#: ED's kinds but 3 (the scrollback).
_ERASE_DISPLAY = frozenset({"", "0", "1", "2"})
#: Modes needed to draw: DECSET/DECRST ones, and the ANSI one (IRM).
_PRIVATE_MODES = frozenset({"6", "7", "25", "47", "1047", "1048", "1049"})
_ANSI_MODES = frozenset({"4"})
#: ``ESC final``: DECSC, DECRC, IND, NEL, RI.
_DRAWING_ESC = frozenset("78DEM")
#: G0 and G1 designations kept: ASCII, DEC line drawing, UK.
_CHARSETS = frozenset("B0A")
_DIGITS = "0123456789"
_SHIFT_BYTES = (b"\x0e", b"\x0f")
#: How many bytes of the stream a sequence spans at most (UTF-8: 4 a character).
_LONGEST = 4 * MAX_PENDING
#: How much of an event the scanner reads at once.
_SLICE = 1 << 16

_OSC_KINDS = {
    "0": Kind.TITLE, "1": Kind.TITLE, "2": Kind.TITLE, "7": Kind.CWD, "8": Kind.LINK,
    "9": Kind.NOTIFICATION, "99": Kind.NOTIFICATION, "777": Kind.NOTIFICATION,
    "52": Kind.CLIPBOARD, "133": Kind.SHELL, "633": Kind.SHELL, "697": Kind.SHELL,
    "1337": Kind.SHELL, "4": Kind.PALETTE, "5": Kind.PALETTE, "104": Kind.PALETTE,
    "105": Kind.PALETTE,
    **{str(n): Kind.PALETTE for n in (*range(10, 20), *range(110, 120))},
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """What becomes of one token: the bytes written for it (``b""``: none)
    and, if any of it was dropped, what."""

    data: bytes
    dropped: Kind | None = None


def _mode_switch(span: Span) -> Verdict:
    """SM/RM and DECSET/DECRST: the modes needed to draw pass, the others
    are dropped, a mixed switch is written again with the allowed ones only."""
    allowed = _PRIVATE_MODES if span.private == "?" else _ANSI_MODES
    modes = [m.lstrip("0") or "0" if m.isdigit() else m for m in span.params.split(";")]
    kept = [m for m in modes if m in allowed]
    dropped = Kind.MODE if len(kept) < len(modes) else None
    if not kept:
        return Verdict(b"", dropped)
    return Verdict(f"\x1b[{span.private}{';'.join(kept)}{span.final}".encode(), dropped)


def _csi(span: Span, raw: bytes) -> Verdict:
    private, params, inter, final = span.private, span.params, span.inter, span.final
    if final in "hl" and private in ("", "?") and not inter:
        return _mode_switch(span)
    plain = not params.strip(_DIGITS + (";:" if final == "m" else ";"))
    if not private and not inter and plain:
        if final in _DRAWING_CSI:
            return Verdict(raw)
        if final == "T":  # SD; with 5 parameters, xterm's mouse highlight tracking
            return Verdict(raw) if ";" not in params else Verdict(b"", Kind.MODE)
        if final == "J":
            return Verdict(raw) if params in _ERASE_DISPLAY else Verdict(b"", Kind.SCROLLBACK)
        if final in "su" and not params:  # SCOSC, SCORC (with parameters, DECSLRM)
            return Verdict(raw)
        if final == "g":
            return Verdict(b"", Kind.TABS)
        if final == "t":
            title = params.split(";")[0] in ("22", "23")
            return Verdict(b"", Kind.TITLE if title else Kind.WINDOW)
    if inter == " " and final == "q":
        return Verdict(b"", Kind.CURSOR_SHAPE)
    if inter == "!" and final == "p":
        return Verdict(b"", Kind.RESET)
    if private and private in "<=>" and final in "mu":
        return Verdict(b"", Kind.MODE)  # modifyOtherKeys, the kitty keyboard flags
    return Verdict(b"", Kind.OTHER)


def _esc(span: Span, raw: bytes) -> Verdict:
    inter, final = span.inter, span.final
    if not inter:
        if final in _DRAWING_ESC:
            return Verdict(raw)
        return Verdict(b"", {"=": Kind.MODE, ">": Kind.MODE, "c": Kind.RESET, "H": Kind.TABS,
                             "N": Kind.CHARSET, "O": Kind.CHARSET, "n": Kind.CHARSET,
                             "o": Kind.CHARSET, "|": Kind.CHARSET, "}": Kind.CHARSET,
                             "~": Kind.CHARSET}.get(final, Kind.OTHER))
    if inter in ("(", ")") and final in _CHARSETS:
        return Verdict(raw)
    return Verdict(b"", Kind.CHARSET if inter[0] in "()*+-./%" else Kind.OTHER)


def _string(span: Span, text: str) -> Kind:
    body = text[1:] if text[0] != "\x1b" else text[2:]
    if span.kind == "osc":
        return _OSC_KINDS.get(body.split(";", 1)[0], Kind.STRING)
    if span.kind == "dcs":
        if body.startswith("tmux;"):
            return Kind.PASSTHROUGH
        sixel = body.lstrip(_DIGITS + ";").startswith("q")  # DCS Pn ; Pn q: sixel data
        return Kind.IMAGE if sixel else Kind.STRING
    if span.kind == "apc" and body.startswith("G"):
        return Kind.IMAGE
    return Kind.STRING


def _control(char: str) -> Verdict:
    if char in _MOVING_CONTROLS or char in _SHIFTS:
        return Verdict(char.encode())
    if char == "\x07":
        return Verdict(b"", Kind.BELL)
    if char == "\x05":  # ENQ: xterm answers it with its answerback string
        return Verdict(b"", Kind.QUERY)
    if char in "\x00\x7f":  # ignored by every terminal: not worth a word
        return Verdict(b"")
    return Verdict(b"", Kind.CONTROL)


def _text(raw: bytes) -> bytes:
    """Printed text, as the screen draws it: bytes that are not UTF-8 as
    U+FFFD (a lone 0x9b is CSI to a terminal that is not in UTF-8)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace").encode("utf-8")
    return raw


def judge(span: Span, raw: bytes) -> Verdict:
    """The verdict on one token, ``raw`` its bytes (without the controls
    executed inside it: those are judged on their own)."""
    if not span.complete:
        return Verdict(b"", None if span.kind == "text" else Kind.UNFINISHED)
    if span.kind == "text":
        return Verdict(_text(raw))
    text = raw.decode("utf-8", "surrogateescape")
    if span.kind == "control":
        return _control(text[-1:])
    if span.kind in ("csi", "esc"):
        if text[0] != "\x1b":  # 8-bit C1 (UTF-8 C2 9B...): written as 7-bit
            seven = "\x1b" + ("[" + span.private + span.params + span.inter
                              if span.kind == "csi" else span.inter) + span.final
            raw = seven.encode()
        verdict = _csi(span, raw) if span.kind == "csi" else _esc(span, raw)
    else:
        verdict = Verdict(b"", _string(span, text))
    if verdict.dropped is not None and not verdict.data \
            and name_of(span, text).startswith("query"):
        return Verdict(b"", Kind.QUERY)
    return verdict


@dataclass(frozen=True, slots=True)
class Allowed:
    """One output event, as ``play`` writes it."""

    t: float
    data: bytes
    #: What was dropped from it (a sequence cut across events counts in the
    #: event that completes it).
    dropped: Counter[Kind]
    #: Whether it designates or shifts a character set (``play`` then sets
    #: G0 and G1 back to ASCII and shifts G0 in at the end).
    charsets: bool = False


class Allowlist:
    """The allowlist over one output stream, fed event by event
    (:func:`allowed_outputs`); a token cut across events is judged when it
    ends, and its bytes come from the whole stream (``stream``)."""

    def __init__(self, stream: bytes) -> None:
        self._stream = stream
        self._scanner = Scanner()
        #: Stream offsets of the controls judged since the last sequence:
        #: the next sequence may hold them (the terminal executes a control
        #: where it stands, and the parser reports it before the sequence).
        self._controls: deque[int] = deque()
        self._charsets = False

    def feed(self, t: float, chunk: bytes, *, last: bool = False) -> Allowed:
        """What to write for the next ``chunk`` of the stream (recorded at
        ``t``), and what of it was dropped; ``last``: the stream ends there
        (what it ends inside is dropped)."""
        out: list[bytes] = []
        dropped: Counter[Kind] = Counter()
        self._charsets = False
        # In slices: a crafted event of megabytes of BEL is millions of spans.
        for at in range(0, len(chunk), _SLICE):
            self._judge(self._scanner.feed(chunk[at:at + _SLICE]), out, dropped)
        if last:
            self._judge(self._scanner.close(), out, dropped)
        return Allowed(t, b"".join(out), dropped, self._charsets)

    def _judge(self, spans: list[Span], out: list[bytes], dropped: Counter[Kind]) -> None:
        for span in spans:
            verdict = judge(span, self._bytes(span))
            if verdict.dropped is not None:
                dropped[verdict.dropped] += 1
            data = verdict.data
            if span.kind in ("csi", "esc"):
                # NUL and DEL inside a sequence are ignored by the terminal
                # that read it; another might not: they go.
                data = data.translate(None, b"\x00\x7f")
            if data:
                out.append(data)
                if (span.kind == "esc" and span.inter) or data in _SHIFT_BYTES:
                    self._charsets = True

    def _bytes(self, span: Span) -> bytes:
        """The bytes of ``span`` but the controls executed inside it."""
        stream, controls = self._stream, self._controls
        if span.kind == "control":
            # A sequence is at most MAX_PENDING characters: an older control
            # is in none still to come.
            while controls and controls[0] < span.start - _LONGEST:
                controls.popleft()
            controls.append(span.start)
            return stream[span.start:span.end]
        inside = [at for at in controls if span.start <= at < span.end]
        controls.clear()
        if not inside:
            return stream[span.start:span.end]
        raw = bytearray(stream[span.start:span.end])
        for at in reversed(inside):
            del raw[at - span.start]
        return bytes(raw)


def allowed_outputs(recording: Recording) -> Iterator[Allowed]:
    """Each output event of ``recording``: its time, what ``play`` writes
    for it, and what it dropped. The second pass over the same recording
    gives the same bytes however the output was cut into events."""
    outputs = list(recording.of_type(Output))
    allowlist = Allowlist(b"".join(e.data for e in outputs))
    for i, event in enumerate(outputs):
        yield allowlist.feed(event.t, event.data, last=i == len(outputs) - 1)
