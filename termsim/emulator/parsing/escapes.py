"""The escape grammar's patterns: the only regular expressions of escape
sequences in termsim.

Where a sequence begins and ends is decided in one place, so that every
part of termsim reads a stream as the terminal does. The tokenizer
(:mod:`termsim.emulator.parsing.tokenizer`) reads with these patterns; the few
others that must look at raw output without parsing it all take theirs from
here too, each a narrowing of the same grammar: the lines fast path
(``SGR``, ``COLOUR_LINES``, ``COLOUR_TEXT``, ``CUT_SGR``: a read made only of
text, CR LF and SGR). A new pattern of a sequence belongs here, beside the
ones it must agree with.
"""

from __future__ import annotations

import re

#: The finals of the ESC sequences of two characters that a run holds
#: (DECSC, DECRC, DECKPAM, DECKPNM, IND, NEL, HTS, RI): each is one screen
#: operation that depends on nothing but its bytes, as a CSI sequence met
#: before is. (RIS, ``ESC c``, also resets the parser; ``ESC Z`` is a query;
#: the others are rare.)
RUN_ESCAPES = "78=>DEHM"
#: A whole 7-bit CSI sequence, or one of those.
_RUN_SEQUENCE = rf"\x1b(?:\[[0-?]*+[ -/]*+[@-~]|[{RUN_ESCAPES}])"
#: The longest string body ``TOKENS`` takes whole (the tokenizer's
#: ``MAX_STRING``: a longer one is cut, by the tokenizer's slow way).
MAX_STRING = 1 << 16
#: A whole 7-bit string whose body has no CAN, SUB or ESC (nor BEL, in an
#: OSC) and is at most ``MAX_STRING`` long, with its terminator: OSC ends at
#: BEL, ST or ``ESC \``, DCS, SOS, PM and APC at ST or ``ESC \``.
STRING_PATTERN = (
    rf"\x1b(?:\][^\x07\x18\x1a\x1b\x9c]{{0,{MAX_STRING}}}+(?:[\x07\x9c]|\x1b\\)"
    rf"|[PX^_][^\x18\x1a\x1b\x9c]{{0,{MAX_STRING}}}+(?:\x9c|\x1b\\))"
)
#: A chunk's tokens, for ``findall``: (text, "", "") for printable text,
#: ("", run, "") for a run of whole 7-bit CSI sequences without controls
#: inside, of the ESC sequences of ``RUN_ESCAPES`` and of CR and LF, ("", "",
#: string) for a whole string (``STRING_PATTERN``) or a run of two BEL or
#: more (a tuple for each bell of a flood cost more than the bells), ("", "", "") for any
#: other character (``Parser._tokens`` reads what it starts from there).
#: Every character is in a token: ``findall`` skips none. Possessive (``*+``,
#: ``++``): the classes a sequence is made of are disjoint, so giving
#: characters back could never match more, and not keeping the means to is
#: 20% faster.
RUN_PATTERN = rf"(?:{_RUN_SEQUENCE}|[\r\n])++"
TOKENS = re.compile(
    rf"([^\x00-\x1f\x7f-\x9f]++)|({RUN_PATTERN})|({STRING_PATTERN}|\x07{{2,}}+)|(?s:.)")
#: A whole run, as ``TOKENS`` finds one.
RUN = re.compile(RUN_PATTERN)
#: The parts of such a run: a sequence, CR LF (or CR CR LF) once or more,
#: CR, LF.
RUN_PART = re.compile(rf"{_RUN_SEQUENCE}|(?:\r\r?\n)++|[\r\n]")

CSI = re.compile(r"\x1b\[([0-?]*+)([ -/]*+)([@-~])")
CSI_PREFIX = re.compile(r"\x1b\[[0-?]*[ -/]*")
CSI8 = re.compile(r"\x9b([0-?]*)([ -/]*)([@-~])")
CSI8_PREFIX = re.compile(r"\x9b[0-?]*[ -/]*")
OSC_END = re.compile(r"[\x07\x18\x1a\x1b\x9c]")
STR_END = re.compile(r"[\x18\x1a\x1b\x9c]")


def csi_fields(sequence: str) -> tuple[str, str, str, str]:
    """A whole 7-bit CSI sequence (``"\x1b[?25;2026l"``) as the parser splits
    it: private marker (``"<=>?"`` or ``""``), parameters, intermediates,
    final byte. ``ValueError`` if it is not one."""
    m = CSI.fullmatch(sequence)
    if m is None:
        raise ValueError(f"not a whole CSI sequence: {sequence!r}")
    params, inter, final = m.groups()
    private = ""
    if params and params[0] in "<=>?":
        private, params = params[0], params[1:]
    return private, params, inter, final


# -- whole-read patterns of the lines fast path ------------------------------
# ``Terminal._colour_lines`` and ``styled.py`` take a read of lines in one
# match; these are the only sequences they accept (SGR), kept here with the
# rest of the grammar.

#: An SGR sequence and its parameters, as the lines fast path accepts them.
SGR = re.compile(r"\x1b\[([0-9;]*)m")
#: Printable ASCII lines ended by CR LF with their SGR sequences taken out
#: (``SGR.sub``); a read may cut a CR LF, and an SGR sequence, left at its end.
COLOUR_LINES = re.compile(r"\n?[ -~]*(?:\r\n[ -~]*)*\r?(?:\x1b(?:\[[0-9;]*)?)?")
#: Where a read stops being text, CR, LF and SGR sequences (possessive: no
#: backtracking).
COLOUR_TEXT = re.compile(r"(?:[ -~\r\n]++|\x1b\[[0-9;]*+m)*+")
#: An SGR sequence a read may cut at its end.
CUT_SGR = re.compile(r"\x1b(?:\[[0-9;]*)?")

STRING_INTRODUCERS = {"]": "OSC", "P": "DCS", "X": "SOS", "^": "PM", "_": "APC"}
C1_STRINGS = {"\x9d": "OSC", "\x90": "DCS", "\x98": "SOS", "\x9e": "PM", "\x9f": "APC"}


#: What may stand inside an ESC or CSI sequence without ending it: C0
#: controls (executed there) other than CAN, SUB and ESC, and NUL and DEL
#: (ignored there).
EMBEDDED = frozenset(map(chr, range(0x20))) - {"\x18", "\x1a", "\x1b"} | {"\x7f"}
