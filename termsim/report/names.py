"""What an escape sequence does, in words: the grammar's tokens, named.

:mod:`termsim.emulator.parsing.grammar` says where each token of some output
begins and ends, as the terminal's own parser reads it; this module puts a
name on each (``ESC[?25l`` is "hide cursor", ``ESC[3;1H`` "cursor to row
2, col 0"), for people reading a program's output: the HTML trace viewer's
bytes view and ``termsim show --steps``. It never decides where a sequence
ends (that is the grammar's, so the viewer and the terminal cannot
disagree) and changes nothing on a screen; the names are one table per
kind of token, kept here beside the grammar they name.

Rows and columns in names are 0-based, like every row and column in
termsim (the screen's row numbers, ``CursorAt``, ``click``): ``ESC[3;1H``,
whose parameters count from 1, is "cursor to row 2, col 0". A sequence
without a name here is "CSI ... (not named)", still as the grammar split
it.

Like the rest of the emulator, this module does no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ..emulator.answers.queries import printable
from ..emulator.parsing.grammar import Scanner, Span
from ..emulator.screen.sgr import capped

__all__ = ["Named", "name_of", "named", "shown"]


class Named(NamedTuple):
    """One token of some output: where it stands (offsets as the grammar
    gives them), its kind (:data:`~termsim.emulator.parsing.grammar.KINDS`, or
    ``"dropped"`` for bytes the terminal ignores), its text as people
    write it (``ESC[?25l``) and its name ("" for text)."""

    start: int
    end: int
    kind: str
    text: str
    name: str


#: C0 controls by name (the others are "control 0xNN").
CONTROLS = {
    "\x00": "NUL", "\x07": "bell", "\x08": "backspace", "\x09": "tab", "\x0a": "line feed",
    "\x0b": "line feed (VT)", "\x0c": "line feed (FF)", "\x0d": "carriage return",
    "\x0e": "shift out (G1 charset)", "\x0f": "shift in (G0 charset)",
    "\x18": "cancel", "\x1a": "substitute", "\x7f": "DEL",
}

#: DEC private modes (``CSI ? Pm h`` / ``l``): the name, or (on, off) names.
PRIVATE_MODES: dict[str, str | tuple[str, str]] = {
    "1": "application cursor keys", "3": "132 columns", "5": "reverse video",
    "6": "origin mode", "7": "autowrap", "8": "autorepeat", "9": "mouse tracking (X10)",
    "12": "cursor blink", "25": ("show cursor", "hide cursor"),
    "47": ("alternate screen", "main screen"),
    "69": "left and right margins", "1000": "mouse tracking (clicks)",
    "1002": "mouse tracking (drags)", "1003": "mouse tracking (all motion)",
    "1004": "focus events", "1005": "UTF-8 mouse encoding", "1006": "SGR mouse encoding",
    "1015": "urxvt mouse encoding", "1034": "meta key sets the 8th bit",
    "1047": ("alternate screen", "main screen"), "1048": ("save cursor", "restore cursor"),
    "1049": ("alternate screen (cursor saved, cleared)", "main screen (cursor restored)"),
    "2004": "bracketed paste",
    "2026": ("begin synchronized update", "end synchronized update"),
}
#: ANSI modes (``CSI Pm h`` / ``l``).
ANSI_MODES = {"2": "keyboard lock", "4": "insert mode", "12": "local echo off",
              "20": "newline mode"}

_ERASE_DISPLAY = {"0": "erase below the cursor", "1": "erase above the cursor",
                  "2": "erase the screen", "3": "erase the scrollback"}
_ERASE_LINE = {"0": "erase to the end of the row", "1": "erase to the start of the row",
               "2": "erase the row"}

#: Plain ``CSI Pn <final>`` sequences: the name, with ``{n}`` the first
#: parameter (default 1).
_MOVES = {
    "A": "cursor up {n}", "B": "cursor down {n}", "C": "cursor right {n}",
    "D": "cursor left {n}", "E": "cursor down {n}, to col 0", "F": "cursor up {n}, to col 0",
    "L": "insert {n} rows", "M": "delete {n} rows", "P": "delete {n} chars",
    "@": "insert {n} blanks", "X": "erase {n} chars", "S": "scroll up {n}",
    "T": "scroll down {n}", "e": "cursor down {n}", "a": "cursor right {n}",
    "b": "repeat the last char {n} times", "I": "tab forward {n}", "Z": "tab back {n}",
}

_COLOURS = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

_SGR = {
    0: "reset", 1: "bold", 2: "dim", 3: "italic", 4: "underline", 5: "blink",
    6: "rapid blink", 7: "reverse", 8: "invisible", 9: "strike", 21: "double underline",
    22: "normal intensity", 23: "not italic", 24: "not underlined", 25: "not blinking",
    27: "not reversed", 28: "visible", 29: "not struck", 39: "default fg", 49: "default bg",
    53: "overline", 55: "not overlined", 59: "default underline colour",
}

_ESC = {
    "7": "save cursor", "8": "restore cursor", "D": "index (down, scrolling)",
    "E": "next line", "H": "set a tab stop", "M": "reverse index (up, scrolling)",
    "c": "full reset", "=": "application keypad", ">": "normal keypad",
    "\\": "string terminator", "N": "single shift G2", "O": "single shift G3",
    "n": "G2 charset", "o": "G3 charset", "Z": "query: terminal id (DECID)",
}
_CHARSETS = {"B": "ASCII", "0": "DEC line drawing", "A": "UK", "U": "IBM PC"}

_OSC = {
    "0": "set title and icon name", "1": "set icon name", "2": "set title",
    "7": "working directory", "9": "notification", "22": "pointer shape",
    "50": "font", "104": "reset palette", "110": "reset foreground colour",
    "111": "reset background colour", "112": "reset cursor colour",
    "777": "notification", "697": "shell integration (Warp)",
}
_OSC_COLOURS = {"10": "foreground colour", "11": "background colour", "12": "cursor colour"}
_SHELL_MARKS = {"A": "prompt starts", "B": "command line starts", "C": "command output starts",
                "D": "command finished", "E": "command line is", "P": "property"}

#: Longest text of a token shown (an OSC 52 write may be kilobytes).
SHOWN = 120


#: How a lone control is written.
MNEMONICS = {"\x07": "BEL", "\x08": "BS", "\x09": "HT", "\x0a": "LF", "\x0b": "VT",
             "\x0c": "FF", "\x0d": "CR", "\x0e": "SO", "\x0f": "SI", "\x18": "CAN",
             "\x1a": "SUB", "\x00": "NUL", "\x7f": "DEL"}


def shown(text: str) -> str:
    """A token's text as people write it: ``ESC[?25l``, ``CR``, ``BEL``,
    ``\\x01`` for other controls, shortened past :data:`SHOWN` characters."""
    if len(text) == 1 and text in MNEMONICS:
        return MNEMONICS[text]
    out = printable(text)
    return out if len(out) <= SHOWN else out[:SHOWN - 1] + "…"


def _int(text: str, default: int) -> int:
    head = text.split(":")[0]
    return capped(head) if head.isascii() and head.isdigit() else default


def _sgr(params: str) -> str:
    if not params:
        return "style: reset"
    parts = params.split(";")
    out: list[str] = []
    i = 0
    while i < len(parts):
        p = parts[i]
        if ":" in p:
            sub = p.split(":")
            head = _int(sub[0], -1)
            if head == 4 and len(sub) > 1:
                out.append({"0": "not underlined", "2": "double underline", "3": "curly underline",
                            "4": "dotted underline", "5": "dashed underline"}.get(
                                sub[1], "underline"))
            elif head in (38, 48, 58):
                out.append(f"{_layer(head)} colour {':'.join(sub[1:])}")
            else:
                out.append(p)
            i += 1
            continue
        n = _int(p, 0)
        if n in (38, 48, 58) and i + 1 < len(parts):
            layer = _layer(n)
            if parts[i + 1] == "5" and i + 2 < len(parts):
                out.append(f"{layer} colour {parts[i + 2]}")
                i += 3
                continue
            if parts[i + 1] == "2" and i + 4 < len(parts):
                rgb = [_int(x, 0) & 255 for x in parts[i + 2:i + 5]]
                out.append(f"{layer} #{rgb[0]:02x}{rgb[1]:02x}{rgb[2]:02x}")
                i += 5
                continue
        if 30 <= n <= 37:
            out.append(f"fg {_COLOURS[n - 30]}")
        elif 40 <= n <= 47:
            out.append(f"bg {_COLOURS[n - 40]}")
        elif 90 <= n <= 97:
            out.append(f"fg bright {_COLOURS[n - 90]}")
        elif 100 <= n <= 107:
            out.append(f"bg bright {_COLOURS[n - 100]}")
        else:
            out.append(_SGR.get(n, f"SGR {n}"))
        i += 1
    return "style: " + ", ".join(out)


def _layer(n: int) -> str:
    return {38: "fg", 48: "bg"}.get(n, "underline")


def _modes(private: str, params: str, final: str) -> str:
    on = final == "h"
    names = []
    for mode in params.split(";"):
        entry = (PRIVATE_MODES if private == "?" else ANSI_MODES).get(mode)
        if isinstance(entry, tuple):
            names.append(entry[0] if on else entry[1])
        elif entry is not None:
            names.append(f"{entry} {'on' if on else 'off'}")
        else:
            names.append(f"{'set' if on else 'reset'} {'private ' if private else ''}"
                         f"mode {mode}")
    return ", ".join(names)


def _csi(span: Span) -> str:
    private, params, inter, final = span.private, span.params, span.inter, span.final
    args = params.split(";") if params else []
    first = _int(args[0], 1) if args else 1
    if not private and not inter:
        if final in ("H", "f"):
            row = _int(args[0], 1) if args else 1
            col = _int(args[1], 1) if len(args) > 1 else 1
            return f"cursor to row {max(row, 1) - 1}, col {max(col, 1) - 1}"
        if final in _MOVES:
            return _MOVES[final].format(n=max(first, 1))
        if final == "G" or final == "`":
            return f"cursor to col {max(first, 1) - 1}"
        if final == "d":
            return f"cursor to row {max(first, 1) - 1}"
        if final == "J":
            return _ERASE_DISPLAY.get(args[0] if args else "0", "erase (ED)")
        if final == "K":
            return _ERASE_LINE.get(args[0] if args else "0", "erase (EL)")
        if final == "m":
            return _sgr(params)
        if final == "r":
            top = _int(args[0], 1) if args else 1
            bottom = args[1] if len(args) > 1 and args[1] else "the bottom"
            end = f"row {int(bottom) - 1}" if bottom.isdigit() else bottom
            return f"scroll region rows {top - 1} to {end}" if params else \
                "scroll region: the whole screen"
        if final == "s":
            return "save cursor" if not params else "left and right margins"
        if final == "u":
            return "restore cursor"
        if final == "n":
            return {"6": "query: cursor position", "5": "query: device status"}.get(
                params, f"query: device status report {params}")
        if final == "c":
            return "query: device attributes (DA1)"
        if final == "g":
            return "clear all tab stops" if params == "3" else "clear the tab stop here"
        if final in ("h", "l"):
            return _modes(private, params, final)
        if final == "t":
            return {"18": "query: text area size", "14": "query: text area size in pixels",
                    "16": "query: cell size in pixels", "19": "query: screen size",
                    "21": "query: window title", "22": "save the title",
                    "23": "restore the title", "8": "resize the window"}.get(
                        args[0] if args else "", f"window operation {params}")
    if private == "?" and final in ("h", "l") and not inter:
        return _modes(private, params, final)
    if private == "?" and final == "n" and not inter:
        return "query: cursor position (DEC)" if params == "6" else "query: DEC device status"
    if private == ">" and final == "c":
        return "query: terminal type and version (DA2)"
    if private == "=" and final == "c":
        return "query: terminal unit id (DA3)"
    if private == ">" and final == "q":
        return "query: terminal name and version (XTVERSION)"
    if private == ">" and final == "m":
        return "set key modifier options (modifyOtherKeys)" if params else \
            "reset key modifier options"
    if private == "?" and final == "m":
        return "query: key modifier options"
    if final == "u" and private in ("?", ">", "<", "="):
        return {"?": "query: kitty keyboard flags", ">": "push kitty keyboard flags",
                "<": "pop kitty keyboard flags", "=": "set kitty keyboard flags"}[private]
    if inter == "$" and final == "p":
        return f"query: is mode {'?' if private == '?' else ''}{params} set (DECRQM)"
    if inter == " " and final == "q":
        shapes = {"0": "blinking block", "1": "blinking block", "2": "block",
                  "3": "blinking underline", "4": "underline", "5": "blinking bar", "6": "bar"}
        return f"cursor shape: {shapes.get(params or '0', params)}"
    if inter == "!" and final == "p":
        return "soft reset"
    if inter == '"' and final == "q":
        return "character protection"
    return f"CSI {private}{params}{inter}{final} (not named)"


def _esc(span: Span) -> str:
    inter, final = span.inter, span.final
    if not inter:
        return _ESC.get(final, f"ESC {final} (not named)")
    if inter in "()*+" and len(inter) == 1:
        g = "()*+".index(inter)
        return f"G{g} charset: {_CHARSETS.get(final, final)}"
    if inter == "#" and final == "8":
        return "screen alignment test (fill with E)"
    if inter == "%":
        return "UTF-8 mode" if final == "G" else "character set mode"
    return f"ESC {inter}{final} (not named)"


def _body(text: str) -> str:
    """A string's body: its introducer and terminator taken off."""
    if text.startswith("\x1b"):
        text = text[2:]
    elif text[:1] in "\x90\x9d\x98\x9e\x9f":
        text = text[1:]
    for end in ("\x1b\\", "\x07", "\x9c", "\x1b"):
        if text.endswith(end):
            return text[:-len(end)]
    return text


def _quoted(text: str, limit: int = 60) -> str:
    text = printable(text)
    return repr(text if len(text) <= limit else text[:limit - 1] + "…")


def _osc(text: str) -> str:
    body = _body(text)
    code, _, rest = body.partition(";")
    if code in ("0", "1", "2"):
        return f"{_OSC[code]} {_quoted(rest)}"
    if code == "7":
        return f"working directory {_quoted(rest)}"
    if code == "8":
        url = rest.partition(";")[2]
        return f"link to {_quoted(url)}" if url else "end of link"
    if code in _OSC_COLOURS:
        what = _OSC_COLOURS[code]
        return f"query: {what}" if rest == "?" else f"set {what}"
    if code == "4":
        return "query: palette colour" if rest.endswith("?") else "set palette colours"
    if code == "52":
        data = rest.partition(";")[2]
        return "query: clipboard" if data == "?" else "clipboard write"
    if code in ("9", "777", "99"):
        return f"notification {_quoted(rest.split(';')[-1])}" if code != "99" \
            else "notification (kitty)"
    if code in ("133", "633"):
        mark = rest[:1]
        return f"shell mark: {_SHELL_MARKS.get(mark, mark)}"
    if code == "1337":
        return "image (iTerm2)" if rest.startswith("File=") else "iTerm2 command"
    return _OSC.get(code, f"OSC {code} (not named)")


def _string(kind: str, text: str) -> str:
    body = _body(text)
    if kind == "osc":
        return _osc(text)
    if kind == "dcs":
        if body.startswith("$q"):
            return f"query: setting {_quoted(body[2:])} (DECRQSS)"
        if body.startswith("+q"):
            return "query: terminfo capabilities (XTGETTCAP)"
        if body.rstrip("0123456789;").endswith("q"):
            return "image (sixel)"
        return "device control string"
    if kind == "apc":
        return "image (kitty graphics)" if body.startswith("G") else "application command"
    return {"sos": "start of string", "pm": "privacy message"}.get(kind, kind)


def name_of(span: Span, text: str) -> str:
    """The name of the token ``span``, whose text is ``text`` (the data
    between its start and end, decoded as the terminal decodes it).

    Made printable whole: a name may carry what the program wrote (an OSC's
    code, a shell mark, an escape's final byte), and the trace page shows it
    as it is (a byte that was not UTF-8 once made the page's export fail; a
    bidirectional control would reorder what a person reads)."""
    return printable(_name_of(span, text))


def _name_of(span: Span, text: str) -> str:
    if not span.complete:
        return f"{span.kind.upper()} cut short by the end of the data"
    if span.kind == "text":
        return ""
    if span.kind == "control":
        ch = text[-1:] if text else ""
        return CONTROLS.get(ch, f"control 0x{ord(ch):02x}" if ch else "control")
    if span.kind == "csi":
        return _csi(span)
    if span.kind == "esc":
        if text[:1] in ("\x84", "\x85", "\x88", "\x8d"):
            return {"\x84": "index (down, scrolling)", "\x85": "next line",
                    "\x88": "set a tab stop", "\x8d": "reverse index (up, scrolling)"}[text[0]]
        return _esc(span)
    return _string(span.kind, text)


def named(chunks: list[bytes]) -> list[list[Named]]:
    """The tokens of output that came in ``chunks`` (one read each), per
    chunk, named, as one stream: a sequence cut across chunks is named once,
    in the chunk that ends it, whole. Offsets are bytes from the first
    chunk's start; bytes the terminal ignores are ``"dropped"`` tokens."""
    scanner = Scanner()
    data = b"".join(chunks)
    out: list[list[Named]] = []
    done = 0  # the stream offset up to which tokens were given
    fed = 0
    for i, chunk in enumerate(chunks):
        fed += len(chunk)
        spans = scanner.feed(chunk)
        if i == len(chunks) - 1:
            spans += scanner.close()
        tokens: list[Named] = []
        for span in _outermost(spans):
            if span.start > done:
                tokens.extend(_dropped(data, done, span.start))
            if span.end <= done:
                continue
            text = data[span.start:span.end].decode("utf-8", "surrogateescape")
            if span.kind == "text" and tokens and tokens[-1].kind == "text" \
                    and tokens[-1].end == span.start:
                last = tokens[-1]
                tokens[-1] = last._replace(end=span.end, text=last.text + _text(text))
            else:
                tokens.append(Named(span.start, span.end, span.kind,
                                    _text(text) if span.kind == "text" else shown(text),
                                    name_of(span, text)))
            done = span.end
        out.append(tokens)
    return out


def _outermost(spans: list[Span]) -> Iterator[Span]:
    """Spans in the order they stand, leaving out those inside another (a
    control executed inside a CSI sequence is shown within it)."""
    end = -1
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.end <= end and span.start < end:
            continue
        end = max(end, span.end)
        yield span


def _dropped(data: bytes, start: int, end: int) -> list[Named]:
    text = data[start:end].decode("utf-8", "surrogateescape")
    return [Named(start, end, "dropped", shown(text), "ignored by the terminal")]


def _text(text: str) -> str:
    """Printed text as it is, an undecodable byte as U+FFFD (as drawn)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
