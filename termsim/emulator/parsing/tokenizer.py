"""Tokenizer: decoded terminal output in, calls on a handler out.

This replaces pyte's ``Stream``. pyte's generator state machine takes one
``send()`` per byte of every escape sequence, raises out of ``feed()`` on valid
sequences (``CSI ? 6 n``, ``CSI 1 ; 2 C``) and loses the rest of the chunk,
prints DCS/APC bodies as text and stops at colon sub-parameters. Here one
regular expression finds the tokens of a chunk in one ``findall`` (text, and
runs of CSI sequences, CR and LF; any other character stands alone, and the
sequence or string it starts is read whole from there), the handler gets the
whole token at once, and an incomplete token at the end of a chunk waits for
the next one. A run is one token: the actions of its parts are found, fused by
the handler and kept the first time, so a frame's usual run of mode switches
costs one lookup and a few calls (a run as long as a read is kept the second
time it comes: ``LEARN_LATER``).

Rules, as in xterm's parser (see ``ctlseqs``):

* C0 controls are executed wherever they appear, even inside an ESC or CSI
  sequence, which then goes on (``ESC [ LF C`` is LF, then CUF); NUL and
  DEL are ignored there. A sequence split across chunks with a control in
  it executes that control once.
* CAN (0x18) and SUB (0x1a) abort any sequence or string.
* A string (OSC, DCS, SOS, PM, APC) ends at ST (``ESC \\`` or 0x9c); OSC
  also at BEL. An ESC followed by anything else ends the string and starts a
  new sequence. Strings are capped (``MAX_STRING``): the rest is dropped, not
  buffered, so memory stays bounded whatever the program prints.
* Undecodable bytes arrive as lone surrogates (``surrogateescape``) so that
  byte offsets stay exact; they are drawn as U+FFFD.

This, with its patterns in ``escapes.py``, is the only code that knows
where an escape sequence begins and ends. The terminal runs it over every
byte a program prints, once, and reports what the engine needs of it (its
frame edges, ``Terminal.on_frame_edge``); whatever else needs to know
(``termsim play``'s queries, shake's words) asks ``grammar.py``, which runs
this parser with a handler that records the tokens.

Why this module passes 500 lines: :class:`Parser` is one state machine (a
token's reader hands the rest of the chunk to the next one, the state a cut
read leaves is three attributes every reader touches), and it is the hot
path guarded by ``benchmarks/bench_feed.py``, where a method looked up on
another object costs what the split would buy. Its patterns, the one part
that stands alone, live in ``escapes.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .escapes import (
    C1_STRINGS,
    CSI,
    CSI8,
    CSI8_PREFIX,
    CSI_PREFIX,
    EMBEDDED,
    MAX_STRING,
    OSC_END,
    RUN,
    RUN_PART,
    STR_END,
    STRING_INTRODUCERS,
    TOKENS,
    csi_fields,
)
from .handlers import Handler, Part

__all__ = ["LEARN_LATER", "MAX_PENDING", "MAX_RUNS", "MAX_RUN_CHARS", "MAX_STRING", "Parser"]

#: An incomplete CSI/ESC sequence longer than this is garbage, not a sequence.
MAX_PENDING = 256
#: How many characters one ``findall`` tokenizes at most (``Parser._through``).
_WINDOW = 1 << 15
#: How many runs keep their list of actions (``Parser._runs``).
MAX_RUNS = 4096
#: The characters of all the runs kept, at most (emptied when full, as at
#: ``MAX_RUNS``): a frame's runs are tens of characters, but a read of
#: nothing but cursor moves is one run as long as the read (up to a window,
#: ``_WINDOW``), with a part every few characters, and 4,096 of those would
#: hold gigabytes. A run that comes again (a read of queries cut the same
#: way) stays kept. The long runs met once (``LEARN_LATER``) count too.
MAX_RUN_CHARS = 1 << 18
#: A run longer than this is learnt only the second time it comes, when the
#: handler's ``fuse`` only saves calls (``Handler.fuse``): the first time its
#: parts run as they are found (``Parser._run_parts``). A frame's runs are
#: tens of characters and come again, but a read of nothing but cursor moves,
#: or of sequences a program invents, is one run as long as the read, met
#: once: learning it (each new part prepared, then the run fused and kept)
#: cost more than running it, and the parts without a ready action were
#: split into fields twice (distinct unknown CSI went 1.4 times as fast
#: without, cursor moves 1.8 times, ``benchmarks/bench_adversarial.py``).
LEARN_LATER = 256

#: A run of one control, for ``Handler.repeated``.
_RUNS_OF = {chr(c): re.compile(re.escape(chr(c)) + "+") for c in range(0x20)}

class Parser:
    """Splits text into tokens for a :class:`Handler`; keeps partial tokens."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self._pending = ""
        # An open string (OSC/DCS/...) that has not seen its terminator yet.
        self._string_kind: str | None = None
        self._string_parts: list[str] = []
        self._string_len = 0
        self._string_index = 0
        #: Where parsing resumes if the handler fails on the current token.
        self.next = 0
        #: Whether the last token was printed text (REP repeats only then).
        self.printed = False
        # How many characters the keys of ``_runs`` hold.
        self._runs_chars = 0
        # Runs of sequences seen before: the run -> for each part, its ready
        # action (in the handler's ``sequences`` or ``controls``; ``None``
        # for a query, called from the handler's ``queries`` once met, and
        # for a part the handler must see whole: a 24-bit colour), and where
        # the part starts and ends in the run.
        self._runs: dict[str, tuple[Part, ...]] = {}
        # Controls already executed inside the held-back sequence.
        self._executed = 0
        # Whether a long run is learnt the second time it comes only
        # (``LEARN_LATER``): the handler's fusing changes no run.
        self._learn_later = bool(getattr(handler, "fusing_optional", False))

    @property
    def pending(self) -> str:
        """Text held back because it may be the start of a sequence."""
        return self._pending

    @property
    def open_string(self) -> int | None:
        """Where the string still open after ``feed()`` began: its index in
        that call's data (held-back text first), -1 if it began in an earlier
        call, ``None`` when no string is open. A handler that needs the
        position of a string that spans chunks records it from this."""
        return self._string_index if self._string_kind is not None else None

    def reset(self) -> None:
        self._pending = ""
        self._executed = 0
        self._string_kind = None
        self._string_parts = []
        self._string_len = 0
        self.printed = False

    def feed(self, data: str) -> int:
        """Process ``data``; return how many characters of it were held back.

        The handler is called for every complete token. A failure in the
        handler is reported to its ``failed()``, and only the token it
        failed on (the part of a run) is skipped.
        """
        if self._pending:
            data = self._pending + data
            self._pending = ""
        n = len(data)
        i = 0
        if self._string_kind is not None:
            # The open string began in an earlier chunk: its index there means
            # nothing here, and -1 tells the handler so (see ``open_string``).
            self._string_index = -1
            try:
                i = self._continue_string(data, 0)
            except Exception as exc:
                self.handler.failed(exc)
                self._abort_string()
                i = self.next
        self._through(data, i, n)
        return len(self._pending)

    def _failed(self, exc: Exception) -> None:
        """The handler failed on a token: report it; the token is skipped."""
        self.handler.failed(exc)
        self._abort_string()
        self._executed = 0
        # Something came between the text before and what follows: a REP
        # after it repeats nothing.
        self.printed = False

    def _through(self, data: str, i: int, end: int) -> int:
        """Run the tokens of ``data[i:end]``; return where parsing goes on:
        ``end``, or further if a sequence or string read whole goes past it,
        or ``len(data)`` if the rest is held back.

        ``findall`` builds a tuple per token, so it is given ``_WINDOW``
        characters at a time: a read of megabytes of controls would hold
        millions at once. A token the edge of a window cuts is found as
        two, as at the edge of a read.
        """
        while i < end:
            i = self._tokens(data, i, min(end, i + _WINDOW))
        return i

    def _tokens(self, data: str, i: int, end: int) -> int:
        """Run the tokens ``findall`` finds in ``data[i:end]``; return where
        parsing goes on (as ``_through``), or where a failing part of a run
        ends (the rest of the run is found again from there).

        Hot path: one ``findall`` finds them all (``TOKENS``), since a Match
        object and three calls on it per token cost more than the scan. A
        whole string (a title, a shell mark) is a token too, handed over at
        once. A token of none of those kinds (a control other than CR and
        LF, another escape sequence, a string cut short or with CAN, SUB or
        ESC inside, an incomplete sequence) comes as one character, and
        ``_other`` reads it whole from there; the tokens found inside it are
        then passed over. A failure in the handler skips the token (a run's
        part) it failed on: ``self.next`` is where the token ends, set
        before the handler is called.
        """
        n = len(data)
        h = self.handler
        draw = h.draw
        sequences = h.sequences
        queries = h.queries
        controls = h.controls
        repeated = h.repeated
        runs = self._runs
        printed = self.printed
        skip = i  # what ``_other`` read, or a failure skipped, up to here
        for text, run, string in TOKENS.findall(data, i, end):
            if i < skip:
                size = len(text) or len(run) or len(string) or 1
                if i + size <= skip:
                    i += size
                    continue
                if text:
                    text = text[skip - i:]
                elif RUN.fullmatch(run, skip - i):
                    # A run cut where a sequence read whole ended (a string
                    # without its terminator, a CSI cut short by ESC), between
                    # two of its parts: the rest is a run.
                    run = run[skip - i:]
                else:  # inside a part: the rest, found on its own
                    skip = self._through(data, skip, i + size)
                    if skip >= n:
                        return skip
                    printed = self.printed
                    i += size
                    continue
                i = skip
            try:
                if text:
                    self.next = j = i + len(text)
                    draw(text)
                    if not printed:
                        self.printed = printed = True
                    i = j
                    continue
                if string:
                    self.next = j = i + len(string)
                    if string[0] == "\x07":
                        self._bells(data, i, j)
                    # What ``_start_string`` hands over for the same string.
                    elif string[-1] == "\\":
                        h.string(STRING_INTRODUCERS[string[1]], string[2:-2], "\x1b\\", i)
                    else:
                        h.string(STRING_INTRODUCERS[string[1]], string[2:-1], string[-1], i)
                    self.printed = printed = False
                    i = j
                    continue
                if not run:
                    self.next = i + 1  # at least: the token is skipped if it fails
                    ch = data[i]
                    if ch != "\x1b":
                        action = controls.get(ch)
                        if action is not None and ch not in repeated:
                            # A control alone, as ``_other`` runs it, without
                            # the call (random bytes hold one every few
                            # characters).
                            action()
                            self.printed = printed = False
                            i += 1
                            continue
                    skip = self._other(data, i)
                    if skip < 0:  # held back: it has not run yet
                        return n
                    self.printed = printed = False  # after it ran: a REP in it saw the print
                    if skip >= n:
                        return skip
                    i += 1
                    continue
                self.next = j = i + len(run)
                action = sequences.get(run)
                if action is not None:
                    action()
                else:
                    parts = runs.get(run)
                    if not parts:  # not met, or met once (``()``: ``_run_parts``)
                        if run[-1] not in "\r\n" and run.find("\x1b", 1) < 0:
                            # One sequence (a query, a 24-bit colour, an
                            # ESC sequence met first).
                            if run[1] != "[":
                                self._esc_part(run, i)
                            else:
                                ask = queries.get(run)
                                if ask is not None:
                                    ask(i)
                                else:  # the same bytes again, split into fields
                                    self._csi(CSI.match(run), i)  # type: ignore[arg-type]
                        elif parts is None and len(run) > LEARN_LATER and self._learn_later:
                            self._keep_run(run, ())
                            self._run_parts(run, i)
                        else:
                            parts = self._learn(run)
                    if parts is not None:
                        try:
                            for action, start, stop in parts:
                                if start and printed:  # only the first part
                                    self.printed = printed = False  # follows text
                                if action is not None:
                                    action()
                                elif run[start] != "\x1b":  # CR, LF: no fast path for them
                                    self._controls(run, i, start, stop)
                                elif run[start + 1] != "[":
                                    self.next = i + stop
                                    h.esc("", run[start + 1], i + start)
                                else:
                                    ask = queries.get(run[start:stop])
                                    if ask is not None:
                                        ask(i + start)
                                    else:
                                        self.next = i + stop
                                        self._csi(CSI.match(run, start), i + start)  # type: ignore[arg-type]
                        except Exception:
                            self.next = i + stop  # go on after that part
                            raise
                if printed:
                    self.printed = printed = False
                i = j
            except Exception as exc:
                self._failed(exc)
                printed = False
                resume = max(self.next, i + 1)
                if run:
                    return resume
                skip = resume
                i += len(text) or len(string) or 1
        return max(i, skip)

    def _bells(self, data: str, i: int, end: int) -> None:
        """The run of BEL ``data[i:end]``: one call for the run if the
        handler takes one (``repeated``), else each as ``_other`` runs it.
        ``next`` is at ``end``."""
        many = self.handler.repeated.get("\x07")
        if many is not None:
            many(end - i)
            return
        for at in range(i, end):  # one each: without ``repeated``, ``_other`` runs one
            self.next = at + 1
            self._other(data, at)

    def _other(self, data: str, i: int) -> int:
        """Run the token at ``data[i]`` that is neither text nor a run of CSI
        sequences, CR and LF; return where it ends. An incomplete one is held
        back for the next chunk, and -1 returned (a string the chunk ends in
        has run: it ends at ``len(data)``, whatever its last ESC holds back)."""
        ch = data[i]
        h = self.handler
        if ch == "\x1b":
            j = self._escape(data, i)
        elif ch < " " or ch == "\x7f":
            action = h.controls.get(ch)
            if action is not None:
                many = h.repeated.get(ch) if data.startswith(ch, i + 1) else None
                if many is not None:
                    j = _RUNS_OF[ch].match(data, i).end()  # type: ignore[union-attr]
                    self.next = j
                    many(j - i)
                    return j
                action()
            elif ch not in "\x00\x7f":
                h.control(ch)
            j = i + 1
        else:  # C1 control (U+0080..U+009F)
            j = self._c1(data, i)
        if j >= 0:
            return j
        rest = data[i:]
        if len(rest) > MAX_PENDING:
            h.garbage("overlong sequence")
            self._executed = 0
            return i + 1
        self._pending = rest
        return -1

    def _learn(self, run: str) -> tuple[Part, ...]:
        """The parts of a run of CSI sequences, CR and LF (``TOKENS``' second
        kind) not met before, kept: each part's ready action, made without
        running it, fused with others by the handler. The run then runs as
        it will each time it comes: one lookup and the calls (hot path:
        prompt_toolkit starts and ends every frame with the same
        ``ESC[?25l ESC[?7l`` ... ``ESC[?7h ESC[0m ESC[?12l ESC[?25h``).
        Learning a run and running what was kept costs less than running its
        parts one by one, even for a run met once. A part without a ready
        action is called at its own index each time: a query met before from
        the handler's ``queries``, anything else (a query met first, a 24-bit
        colour) in the handler's ``csi()``, whole.
        """
        h = self.handler
        sequences = h.sequences
        found: list[Part] = []
        start = 0
        for piece in RUN_PART.findall(run):
            end = start + len(piece)
            action = sequences.get(piece)
            found.append((action if action is not None else self._new_part(piece), start, end))
            start = end
        try:
            parts = tuple(h.fuse(found))
        except Exception:  # a fault in fusing must not cost the run's parts
            parts = tuple(found)
        self._keep_run(run, parts)
        return parts

    def _keep_run(self, run: str, parts: tuple[Part, ...]) -> None:
        """Keep a run's parts (``()``: a long run met once, not learnt yet),
        within ``MAX_RUNS`` runs and ``MAX_RUN_CHARS`` characters."""
        runs = self._runs
        if run not in runs:  # (one met once is counted already)
            if len(runs) >= MAX_RUNS or self._runs_chars + len(run) > MAX_RUN_CHARS:
                runs.clear()
                self._runs_chars = 0
            self._runs_chars += len(run)
        runs[run] = parts

    def _run_parts(self, run: str, i: int) -> None:
        """A long run (``LEARN_LATER``) met for the first time, at ``i``: its
        parts run one by one as ``_learn`` would find them, unfused, each
        split into fields once, by the handler's ``csi()`` where it has no
        ready action yet (which prepares one if it can, as ``_learn``
        would). The parts do what they would do learnt, in the same order
        and at the same indices (a query answered at its own, a failing part
        skipped alone); only fusing, which saves calls and changes nothing,
        is not done. ``next`` is past the run, as for a learnt one."""
        h = self.handler
        sequences, queries = h.sequences, h.queries
        start = stop = 0
        try:
            for piece in RUN_PART.findall(run):
                stop = start + len(piece)
                if start:  # a REP after the first part follows no text
                    self.printed = False
                action = sequences.get(piece)
                if action is not None:
                    action()
                elif piece[0] != "\x1b":  # CR, LF, CR LF repeated: as ``_new_part``
                    action = self._new_part(piece)
                    if action is not None:
                        action()
                    else:
                        self._controls(run, i, start, stop)
                elif piece[1] != "[":
                    self.next = i + stop
                    self._esc_part(piece, i + start)
                else:
                    ask = queries.get(piece)
                    if ask is not None:
                        ask(i + start)
                    else:
                        self.next = i + stop
                        self._csi(CSI.match(piece), i + start)  # type: ignore[arg-type]
                start = stop
        except Exception:
            self.next = i + stop  # go on after that part
            raise

    def _new_part(self, piece: str) -> Callable[[], None] | None:
        """The action of a part of a run that is not a sequence met before:
        CR, LF, CR LF repeated, or a sequence the handler prepares now
        (``None``: one it must see whole each time)."""
        h = self.handler
        if piece[0] != "\x1b":  # CR, LF: ``None`` from a handler with no fast paths
            return h.controls.get(piece) if len(piece) == 1 else h.newlines(piece.count("\n"))
        try:
            if piece[1] != "[":
                return h.prepare_esc(piece[1])
            return h.prepare(*csi_fields(piece))
        except Exception:
            return None  # ``csi()`` or ``esc()`` meets the failure where the part stands

    def _controls(self, run: str, i: int, start: int, stop: int) -> None:
        """CR and LF of a run's part, one ``control()`` each (``next`` past
        each), for a handler with no action for them (``NoFastPaths``)."""
        control = self.handler.control
        for at in range(start, stop):
            self.next = i + at + 1
            control(run[at])

    def _esc_part(self, piece: str, i: int) -> None:
        """A run of one ESC sequence (``ESC 7``) not met before, at ``i``:
        its ready action, now kept, or the handler's ``esc()``. ``next`` is
        past it."""
        action = self._new_part(piece)
        if action is not None:
            action()
        else:
            self.handler.esc("", piece[1], i)

    # -- escape sequences ------------------------------------------------------

    def _escape(self, data: str, i: int) -> int:
        """Handle the sequence at ``data[i] == ESC``; return the next index or -1."""
        n = len(data)
        if i + 1 >= n:
            return -1
        c = data[i + 1]
        h = self.handler
        if c == "[":
            m = CSI.match(data, i)
            if m is not None:
                self.next = m.end()
                self._csi(m, i)
                return m.end()
            prefix = CSI_PREFIX.match(data, i)
            end = prefix.end() if prefix is not None else i + 2
            if end >= n:
                return -1
            if data[end] in EMBEDDED or "0" <= data[end] <= "?":
                # A parameter after an intermediate (``ESC [ * 2 ;``) puts the
                # sequence in the VT500 parser's "CSI ignore" state: it is
                # consumed up to its final byte (CAN and SUB abort it), never
                # printed. The slow path does both.
                return self._with_controls(data, i)
            # A byte that cannot continue a CSI: drop the sequence, and let the
            # byte itself (ESC, CAN, SUB, or text) be processed normally.
            h.garbage("malformed CSI")
            return end
        kind = STRING_INTRODUCERS.get(c)
        if kind is not None:
            return self._start_string(kind, data, i + 2, i)
        if c < " " or c == "\x7f":
            if c in EMBEDDED:
                return self._with_controls(data, i)
            # ESC ESC starts again; CAN and SUB cancel the ESC.
            return i + 1
        if " " <= c <= "/":
            # Intermediate bytes, then a final byte: ESC ( B, ESC # 8, ESC SP F.
            j = i + 1
            while j < n and " " <= data[j] <= "/":
                j += 1
            if j >= n:
                return -1
            final = data[j]
            if final < "0" or final > "~":
                if final in EMBEDDED:
                    return self._with_controls(data, i)
                h.garbage("malformed ESC")
                return j
            self.next = j + 1
            h.esc(data[i + 1:j], final, i)
            return j + 1
        self.next = i + 2
        h.esc("", c, i)
        return i + 2

    def _csi(self, m: re.Match[str], i: int) -> None:
        """Hand the CSI sequence ``CSI`` or ``CSI8`` matched to the handler."""
        params, inter, final = m.groups()
        private = ""
        if params and params[0] in "<=>?":
            private, params = params[0], params[1:]
        self.handler.csi(private, params, inter, final, i)

    def _c1(self, data: str, i: int) -> int:
        ch = data[i]
        h = self.handler
        if ch == "\x9b":
            m = CSI8.match(data, i)
            if m is not None:
                self.next = m.end()
                self._csi(m, i)
                return m.end()
            prefix = CSI8_PREFIX.match(data, i)
            end = prefix.end() if prefix is not None else i + 1
            if end >= len(data):
                return -1
            if data[end] in EMBEDDED or "0" <= data[end] <= "?":
                return self._with_controls(data, i)
            h.garbage("malformed CSI")
            return end
        kind = C1_STRINGS.get(ch)
        if kind is not None:
            return self._start_string(kind, data, i + 1, i)
        self.next = i + 1
        if ch == "\x84":
            h.esc("", "D", i)  # IND
        elif ch == "\x85":
            h.esc("", "E", i)  # NEL
        elif ch == "\x88":
            h.esc("", "H", i)  # HTS
        elif ch == "\x8d":
            h.esc("", "M", i)  # RI
        elif ch != "\x9c":  # a stray ST is harmless
            h.garbage("C1 control")
        return i + 1

    def _with_controls(self, data: str, i: int) -> int:
        """An ESC or CSI sequence at ``data[i]`` with C0 controls inside.

        The slow path, taken only when the fast one met such a control: each
        control is executed where it stands (once, even when the sequence is
        held back and parsed again with the next chunk), and the sequence
        without them is handled as if they had not been there.
        """
        h = self.handler
        n = len(data)
        skip, seen = self._executed, 0
        csi = data[i] == "\x9b"
        body: list[str] = []  # parameters and intermediates, without controls
        j = i + 1
        while j < n:
            ch = data[j]
            if ch in EMBEDDED:
                if ch not in "\x00\x7f":
                    if seen >= skip:
                        self.next = j + 1
                        h.control(ch)
                    seen += 1
                j += 1
                continue
            if ch < " " or ch >= "\x80":  # ESC, CAN, SUB, or not a sequence byte
                self._executed = 0
                if csi or ch != "\x1b":
                    h.garbage("malformed CSI" if csi else "malformed ESC")
                return j
            if not csi and not body and ch == "[":
                csi = True
                j += 1
                continue
            if not csi and not body and ch in STRING_INTRODUCERS:
                self._executed = 0
                return self._start_string(STRING_INTRODUCERS[ch], data, j + 1, i)
            if ch <= "/" or (csi and ch <= "?"):
                body.append(ch)
                j += 1
                continue
            self._executed = 0
            self.next = j + 1
            if csi:
                m = CSI.match("\x1b[" + "".join(body) + ch)
                if m is None:
                    h.garbage("malformed CSI")
                    return j + 1
                self._csi(m, i)
            else:
                h.esc("".join(body), ch, i)
            return j + 1
        self._executed = seen
        return -1

    # -- strings ---------------------------------------------------------------

    def _start_string(self, kind: str, data: str, start: int, index: int) -> int:
        m = (OSC_END if kind == "OSC" else STR_END).search(data, start)
        if m is not None and m.start() - start <= MAX_STRING:
            # The whole string is in this chunk (a title, a mark): to the
            # handler at once, with no parts kept.
            j = m.start()
            end = data[j]
            if end in "\x07\x9c" or (end == "\x1b" and data.startswith("\\", j + 1)):
                after = j + (2 if end == "\x1b" else 1)
                self.next = after
                self.handler.string(kind, data[start:j], end if end != "\x1b" else "\x1b\\",
                                    index)
                return after
        self._string_kind = kind
        self._string_parts = []
        self._string_len = 0
        self._string_index = index
        return self._continue_string(data, start)

    def _continue_string(self, data: str, start: int) -> int:
        """Consume string content from ``start``; return the next index.

        When the chunk ends inside the string, everything is consumed (the
        string state keeps it) and ``len(data)`` is returned.
        """
        kind = self._string_kind
        assert kind is not None
        ends = OSC_END if kind == "OSC" else STR_END
        m = ends.search(data, start)
        if m is None:
            self._keep_string(data[start:])
            return len(data)
        j = m.start()
        self._keep_string(data[start:j])
        end = data[j]
        if end == "\x1b":
            if j + 1 >= len(data):
                self._pending = "\x1b"  # might be ST; decide on the next chunk
                return len(data)
            if data[j + 1] == "\\":
                self.next = j + 2
                self._finish_string("\x1b\\")
                return j + 2
            # ESC + anything else ends the string and starts a new sequence.
            self.next = j
            self._finish_string("")
            return j
        if end in "\x18\x1a":
            self._abort_string()
            return j + 1
        self.next = j + 1
        self._finish_string(end)
        return j + 1

    def _keep_string(self, part: str) -> None:
        if not part:
            return
        room = MAX_STRING - self._string_len
        if room > 0:
            self._string_parts.append(part[:room])
        self._string_len += len(part)

    def _finish_string(self, terminator: str) -> None:
        kind = self._string_kind
        assert kind is not None
        body = "".join(self._string_parts)
        truncated = self._string_len > MAX_STRING
        self._string_kind = None
        self._string_parts = []
        self._string_len = 0
        if truncated:
            self.handler.garbage(f"{kind} string over {MAX_STRING} characters")
            return
        self.handler.string(kind, body, terminator, self._string_index)

    def _abort_string(self) -> None:
        self._string_kind = None
        self._string_parts = []
        self._string_len = 0
