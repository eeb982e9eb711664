"""``termsim play``: a recording, maybe a stranger's, played into the user's
own terminal, which is left as it was found whatever happens.

What is written
    Only what draws cells (:mod:`termsim.report.play_allowlist`): no
    query, clipboard write, title, passthrough, palette, notification or
    input mode reaches the terminal. What was dropped is said in one line
    on stderr at the end, after the terminal is restored (so that it is
    not written into the alternate screen).

When
    At the recorded pace, over ``speed``, each pause shortened to
    ``idle_limit``. A recorded time is a stranger's number too: a pause
    that is not a finite, non-negative number is none, one longer than
    :data:`MAX_PAUSE` is played as :data:`BOGUS_PAUSE` (and said so at the
    end), and no single wait is longer than :data:`MAX_SLEEP`, so no time
    in a file can make ``time.sleep`` overflow or ``play`` hang for years.

How the terminal is restored
    A :class:`~termsim.emulator.Terminal` the size of the user's is fed exactly what
    is written, as it is written: it knows the user's terminal's state at
    every moment, interrupted or not. At the end it says what is still on
    (:meth:`~termsim.emulator.Terminal.leftovers`, from ``hygiene``, which knows
    every mode a program can leave on and the sequence that undoes each);
    :func:`restore` writes those undos, then what the allowlist let through
    that ``hygiene`` does not follow (the character sets), the attributes
    reset and the cursor shown, and checks on the model that nothing is
    left. Undoing margins or origin mode moves the cursor home, so on the
    main screen the cursor is saved and restored around them (DECSC/DECRC)
    or, with origin mode, put back where the model has it.

Every exit path restores: the end, ``Ctrl-C`` (SIGINT), SIGTERM and SIGHUP
(handled while playing, so the restore runs before ``play`` exits), any
exception (the restore is in a ``finally``, the exception goes on), and a
closed pipe (nothing can be restored through it; the pipe's end is made
``/dev/null`` so that Python's last flush does not complain). A signal that
arrives while bytes are being written waits for the write to end, so that
the model is the terminal; a second one does not wait.

Exit statuses: 0 played to the end, 128 + the signal's number when stopped
by one (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), 141 when the
reader of the output went away (128 + SIGPIPE, as a shell reports a writer
killed by it).
"""

from __future__ import annotations

import codecs
import math
import os
import select
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import BinaryIO, TextIO

from ..emulator.terminal.hygiene import Leftover
from ..emulator.terminal.terminal import Terminal
from ..events import Resize
from ..recording.format import Recording
from .play_allowlist import Kind, allowed_outputs, summary

#: The longest recorded pause played as it is, in seconds of the
#: recording: a longer one is a session left open (or a forged time), not
#: something to sit through.
MAX_PAUSE = 3600.0
#: What a pause longer than :data:`MAX_PAUSE` is played as.
BOGUS_PAUSE = 1.0
#: The longest single wait, in wall-clock seconds, whatever ``speed`` asks:
#: ``time.sleep`` refuses more than 2^63 ns.
MAX_SLEEP = 86400.0
#: The signals that end the playback, the terminal restored first.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: 128 + SIGPIPE: the exit status when the output's reader went away.
BROKEN_PIPE = 128 + 13
#: How many times :func:`restore` undoes and looks again (leaving the
#: alternate screen shows the main screen's own state).
_ROUNDS = 4
#: Leftovers whose undo moves the cursor home.
_HOMING = ("origin", "scrolling-region", "left-right-margins")


def size_warning(recording: Recording, cols: int, rows: int) -> str | None:
    """A sentence for a terminal smaller than the recording, else None."""
    need_cols = max([recording.cols, *(e.cols for e in recording.of_type(Resize))])
    need_rows = max([recording.rows, *(e.rows for e in recording.of_type(Resize))])
    if cols >= need_cols and rows >= need_rows:
        return None
    return (f"this terminal is {cols}x{rows}, smaller than the recording's {need_cols}x"
            f"{need_rows}: lines will wrap and screens overlap. Make the window larger, "
            "or read the screens with `termsim show`.")


class Pacer:
    """How long to wait before each output: the recorded gaps, made sane
    (see the module's notes), over ``speed``, against a clock that started
    with the playback (so the time spent writing is not added)."""

    def __init__(self, speed: float, idle_limit: float | None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not (math.isfinite(speed) and speed > 0):
            raise ValueError(f"speed is a finite number > 0, not {speed!r}")
        if idle_limit is not None and not (math.isfinite(idle_limit) and idle_limit >= 0):
            raise ValueError(f"idle_limit is a finite number >= 0, not {idle_limit!r}")
        self.speed = speed
        self.idle_limit = idle_limit
        self._clock = clock
        self._due = clock()
        self._last = 0.0
        #: Pauses longer than MAX_PAUSE, played as BOGUS_PAUSE.
        self.shortened = 0

    def delay(self, t: float) -> float:
        """Seconds to wait before what was recorded at ``t`` (never more
        than :data:`MAX_SLEEP`; 0 or less: now)."""
        gap = t - self._last if math.isfinite(t) else 0.0
        if gap > 0:
            self._last = t  # times out of order never add up to a longer playback
        gap = max(gap, 0.0) if math.isfinite(gap) else 0.0
        if self.idle_limit is not None:
            gap = min(gap, self.idle_limit)
        if gap > MAX_PAUSE:
            gap = BOGUS_PAUSE
            self.shortened += 1
        self._due += min(gap / self.speed, MAX_SLEEP)
        return min(self._due - self._clock(), MAX_SLEEP)

    def wait(self, t: float, pause: Callable[[float], None] = time.sleep) -> None:
        """Wait until what was recorded at ``t`` is due, with ``pause``
        (:meth:`_Signals.pause` while playing, which a signal ends)."""
        delay = self.delay(t)
        if delay > 0:
            pause(delay)  # playback pacing, the point of this command


def _undo(leftover: Leftover) -> bytes:
    """The bytes of a leftover's undo, which ``hygiene`` writes as people
    read it (``ESC[?1049l``, ``ESC >``)."""
    return leftover.undo.replace("ESC ", "ESC").replace("ESC", "\x1b").encode()


def restore(model: Terminal, *, charsets: bool) -> bytes:
    """What to write so that a terminal in ``model``'s state is as it was
    before playing, without moving the cursor on the main screen (leaving
    the alternate screen restores it). ``model`` is fed it, too.
    ``charsets``: whether a character set designation or shift was written."""
    out = bytearray(b"\x18\x1b[0m")  # CAN ends a sequence a stopped write cut short
    model.feed(bytes(out))
    for _ in range(_ROUNDS):
        left = {leftover.key: leftover for leftover in model.leftovers()}
        left.pop("cursor-hidden", None)  # shown at the very end, always
        if not left:
            break
        part = bytearray()
        origin = "origin" in left
        homing = b"".join(_undo(left.pop(key)) for key in _HOMING if key in left)
        alternate = left.pop("alternate-screen", None)
        if homing and alternate is not None:
            part += homing  # the main screen's cursor comes back with the main screen
        elif homing and not origin:
            part += b"\x1b7" + homing + b"\x1b8"
        elif homing:
            cursor = model.screen.cursor  # DECRC would turn origin mode back on
            part += homing + f"\x1b[{cursor.row + 1};{cursor.col + 1}H".encode()
        if alternate is not None:
            part += _undo(alternate)
        part += b"".join(map(_undo, left.values()))
        model.feed(bytes(part))
        out += part
    tail = (b"\x1b(B\x1b)B\x0f" if charsets else b"") + b"\x1b[?25h"
    model.feed(tail)
    return bytes(out + tail)


class _Stop(KeyboardInterrupt):
    """A signal ended the playback. A ``KeyboardInterrupt``, so that no
    ``except Exception`` swallows it, and so that one raised where ``play``
    cannot catch it (in its own ``except`` clause) still ends the command
    as an interruption, after the ``finally`` that restores."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _Signals:
    """SIGINT, SIGTERM and SIGHUP, while playing: the first stops the
    playback by raising :class:`_Stop` where ``play`` is (in a pause, say),
    but not in the middle of a write (``writing``): then when the write
    ends, unless a second signal comes first (a write the terminal does not
    take). Once stopping (``stopping``: also set for the restore, however
    the playback ended), signals are only noted: the restore runs whatever
    comes."""

    def __init__(self) -> None:
        self.signum = 0
        self.writing = False
        self.stopping = False
        self._old: dict[int, signal.Handlers | Callable[..., object] | int | None] = {}
        #: The pipe a signal's arrival is written to (the main thread only),
        #: and the wakeup fd it replaced.
        self._wake: tuple[int, int] | None = None
        self._old_wakeup = -1

    def __enter__(self) -> _Signals:
        if threading.current_thread() is threading.main_thread():
            self._wake = os.pipe()
            for fd in self._wake:
                os.set_blocking(fd, False)
            self._old_wakeup = signal.set_wakeup_fd(self._wake[1], warn_on_full_buffer=False)
            for signum in SIGNALS:
                self._old[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for signum, handler in self._old.items():
            # None: a handler installed outside Python, which cannot be put back.
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if self._wake is not None:
            signal.set_wakeup_fd(self._old_wakeup)
            for fd in self._wake:
                os.close(fd)
            self._wake = None

    def pause(self, seconds: float) -> None:
        """Wait ``seconds``, or until a signal stops the playback. Not
        ``time.sleep``: a signal that comes after the interpreter's last
        check and before the sleep begins runs its handler only when the
        sleep ends (a Ctrl-C on a two-minute pause went unheard for two
        minutes). The handler's byte stays in the pipe, so ``select``
        returns even for a signal that came before it was called, and the
        handler runs as soon as this returns to Python."""
        if self._wake is None:
            time.sleep(seconds)
            return
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if select.select([self._wake[0]], [], [], left)[0]:
                os.read(self._wake[0], 512)  # a signal only noted: pace on

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        first = not self.signum
        if first:
            self.signum = signum
        if self.stopping or (self.writing and first):
            return
        self.stopping = True
        raise _Stop(self.signum)

    def check(self) -> None:
        """Stop now for a signal that came during a write."""
        if self.signum and not self.stopping:
            self.stopping = True
            raise _Stop(self.signum)


class _Output:
    """The user's terminal and its model, written together."""

    def __init__(self, out: BinaryIO, model: Terminal, signals: _Signals,
                 encoding: str) -> None:
        self.out, self.model, self.signals = out, model, signals
        self.utf8 = codecs.lookup(encoding).name == "utf-8"
        self.encoding = encoding

    def write(self, data: bytes) -> None:
        # The model first: should a signal stop the write midway (it may
        # stop the model's feed at once: only the write waits for it), the
        # model knows more than the terminal got, and the restore undoes
        # too much rather than too little.
        self.model.feed(data)
        if not self.utf8:
            data = self._transcoded(data)
        self.signals.writing = True
        try:
            self.out.write(data)
            self.out.flush()
        finally:
            self.signals.writing = False
        self.signals.check()

    def _transcoded(self, data: bytes) -> bytes:
        """For a terminal that does not read UTF-8: the text in its
        encoding, and no byte from 0x80 to 0x9F, which such a terminal
        reads as a C1 control (0x9B is CSI: ``Û`` is C3 9B in UTF-8)."""
        text = data.decode("utf-8", "replace").encode(self.encoding, "replace")
        return text.translate(_NO_C1)


def play(recording: Recording, out: BinaryIO, err: TextIO, *, speed: float = 1.0,
         idle_limit: float | None = None, size: tuple[int, int] | None = None,
         encoding: str = "utf-8") -> int:
    """Play ``recording``'s output into ``out`` (the user's terminal, whose
    ``size`` is (cols, rows), when it is one, and which reads ``encoding``),
    restore it, say on ``err`` what was dropped; the exit status (see the
    module's notes)."""
    pacer = Pacer(speed, idle_limit)
    if size is not None:
        warning = size_warning(recording, *size)
        if warning:
            err.write(f"termsim play: {warning}\n")
            err.flush()
    cols, rows = size or (recording.cols, recording.rows)
    model = Terminal(cols, rows)
    dropped: Counter[Kind] = Counter()
    charsets = False
    status = 0
    with _Signals() as signals:
        output = _Output(out, model, signals, encoding)
        try:
            for allowed in allowed_outputs(recording):
                pacer.wait(allowed.t, signals.pause)
                dropped += allowed.dropped
                charsets = charsets or allowed.charsets
                if allowed.data:
                    output.write(allowed.data)
            pacer.wait(recording.duration, signals.pause)  # a hang at the end is part of the story
        except _Stop as stop:
            status = 128 + stop.signum
        except KeyboardInterrupt:
            status = 128 + signal.SIGINT
        except BrokenPipeError:
            status = BROKEN_PIPE
        finally:
            signals.stopping = True  # a signal now is only noted: the restore runs
            _write_restore(out, restore(model, charsets=charsets) + (b"\r\n" if status else b""))
    if not status and signals.signum:  # it came while restoring
        status = 128 + signals.signum
    if status == BROKEN_PIPE:
        _quiet(out)
    said = [summary(dropped)]
    if pacer.shortened:
        said.append(f"{pacer.shortened} pause{'s' if pacer.shortened > 1 else ''} longer "
                    f"than {MAX_PAUSE:.0f} s played as {BOGUS_PAUSE:.0f} s")
    line = "; ".join(part for part in said if part)
    if line:
        err.write(f"termsim play: {line}\n")
        err.flush()
    return status


#: Bytes an 8-bit terminal reads as C1 controls, and what is written instead.
_NO_C1 = bytes.maketrans(bytes(range(0x80, 0xA0)), b"?" * 32)


def _write_restore(out: BinaryIO, data: bytes) -> None:
    try:
        out.write(data)
        out.flush()
    except OSError:
        pass  # the terminal (or the pipe) is gone: there is nothing left to restore


def _quiet(out: BinaryIO) -> None:
    """Make a closed pipe's end ``/dev/null``, so that the interpreter's
    last flush of what is still buffered for it does not fail."""
    try:
        fd = out.fileno()
    except (OSError, ValueError, AttributeError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
