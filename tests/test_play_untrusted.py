"""``termsim play`` on a stranger's recording: only what draws reaches the
terminal, and the terminal is left as it was, however play ends.

The recording is crafted as an attacker would, with the real writer: a
real full-screen session (``recordings/fullscreen.tsr``) with, around it,
clipboard writes, titles, a working directory, palette changes,
notifications, a tmux passthrough, images, queries and a hyperlink, the
hostile sequences cut across output events; then it turns on every mode it
can and never turns them off.

The terminal is a real tmux (``tests/programs/play_pane.py`` runs play in
a pane and tells the test, through ``tmux wait-for``, when tmux has drawn
all of it): after play, tmux's paste buffers, the pane's title, working
directory and colours, its bell flag and every mode flag tmux keeps
(``man tmux``, FORMATS) must be what they were before, a paste must not be
bracketed, and a line printed after play must come out in ASCII and plain
attributes. tmux 3.3a keeps no state for reverse video, LNM, the kitty
keyboard flags or modifyOtherKeys: those are checked on a termsim
:class:`~termsim.emulator.Terminal` fed what play wrote, which does.
"""

from __future__ import annotations

import base64
import math
import os
import shlex
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import PROGRAMS, examples
from helpers import output_in_pieces
from hypothesis import given, settings
from hypothesis import strategies as st
from tmux_pane import TmuxServer, tmux_available, tmux_server

from termsim.cli import main
from termsim.emulator import Terminal
from termsim.emulator.parsing.grammar import sequences
from termsim.events import Event, Output
from termsim.files import Playback, Recording
from termsim.recording.format import RecordingWriter, make_header

RECORDINGS = Path(__file__).resolve().parent.parent / "recordings"
PLAY_PANE = str(PROGRAMS / "play_pane.py")

needs_tmux = pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")

SECRET = base64.b64encode(b"stolen by the recording")
#: What a hostile program prints besides drawing.
HOSTILE = (
    b"\x1b]52;c;" + SECRET + b"\x07"  # clipboard, BEL-terminated
    b"\x1b]52;p;" + SECRET + b"\x1b\\"  # and ST-terminated
    b"\x1b]0;EVIL ICON\x07\x1b]2;EVIL TITLE\x1b\\"  # titles
    b"\x1b]7;file://evil.example/etc\x07"  # working directory
    b"\x1b]4;1;rgb:12/34/56\x07\x1b]10;rgb:00/ff/00\x07\x1b]11;rgb:ff/00/00\x07"  # palette
    b"\x1b]9;you have been pwned\x07\x1b]777;notify;evil;body\x07"  # notifications
    b"\x1bPtmux;\x1b\x1b]52;c;" + SECRET + b"\x07\x1b\\"  # tmux passthrough
    b"\x1b_Gf=100,a=T;AAAA\x1b\\"  # kitty graphics
    b"\x1bPq#0;2;0;0;0#0~~@@vv@@~~\x1b\\"  # sixel
    b"\x07"  # bell
    b"\x1b[6n\x1b[c\x1b[>c\x1b[21t\x1b]11;?\x07\x1bP+q544e\x1b\\\x1b[?2004$p"  # queries
    b"\x1b]8;;https://evil.example/\x1b\\a link\x1b]8;;\x1b\\\r\n"  # hyperlink
)
#: Every mode a program can leave on, left on, on the alternate screen.
LEAVE_ON = (
    b"\x1b[?1049h\x1b[2J\x1b[H"
    b"\x1b[4h\x1b[?7l\x1b[?6h\x1b[5;15r\x1b[?5h\x1b[20h\x1b[>1u\x1b[>4;2m"
    b"\x1b(0\x1b)0\x0e"  # DEC line drawing in G0 and G1, G1 shifted in
    b"\x1b[?1000h\x1b[?1003h\x1b[?1006h\x1b[?2004h\x1b[?1h\x1b=\x1b[?1004h\x1b[?2026h"
    b"\x1b[?25l\x1b[5 q\x1b[7;31m"
    b"ALT-SCREEN-MARKER"
)
MAIN_TEXT = b"MAIN-SCREEN-TEXT"
#: Where the hostile bytes are cut into events: inside the first OSC 52,
#: inside the passthrough, inside a CSI of the modes.
HOSTILE_CUTS = (9, HOSTILE.index(b"tmux;") + 3)
LEAVE_ON_CUT = LEAVE_ON.index(b"\x1b[5;15r") + 4


def crafted(path: Path, tail: Sequence[tuple[float, bytes]] = ()) -> Path:
    """The crafted recording, with ``tail``'s outputs (seconds after the
    modes were left on, bytes) at the end."""
    full = Recording.open(RECORDINGS / "fullscreen.tsr")
    events: list[Event] = [Output(0.0, MAIN_TEXT + b"\r\n")]
    a, b = HOSTILE_CUTS
    events += [Output(0.01, HOSTILE[:a]), Output(0.02, HOSTILE[a:b]), Output(0.03, HOSTILE[b:])]
    events += [Output(0.05 + e.t, e.data) for e in full.of_type(Output)]
    t = 0.1 + full.duration
    events += [Output(t, LEAVE_ON[:LEAVE_ON_CUT]), Output(t + 0.001, LEAVE_ON[LEAVE_ON_CUT:])]
    events += [Output(t + 0.002 + dt, data) for dt, data in tail]
    header = make_header(argv=["evil"], cwd="/", cols=full.cols, rows=full.rows,
                         env={"TERM": "xterm-256color"})
    writer = RecordingWriter(path, header)
    for event in events:
        writer.write(event)
    writer.close(events[-1].t, "closed")
    return path


def play_argv(path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "termsim", "play", str(path), *extra]


# -- in a real tmux ---------------------------------------------------------------------

#: What tmux keeps of a pane that a program can change, as format variables.
STATE = ("insert_flag", "wrap_flag", "origin_flag", "keypad_flag", "keypad_cursor_flag",
         "mouse_any_flag", "mouse_all_flag", "mouse_button_flag", "mouse_standard_flag",
         "mouse_sgr_flag", "mouse_utf8_flag", "alternate_on", "cursor_flag",
         "scroll_region_upper", "scroll_region_lower", "pane_path", "pane_fg", "pane_bg",
         "window_bell_flag", "pane_title")


@pytest.fixture(scope="module")
def tmux() -> Iterator[TmuxServer]:
    with tmux_server() as server:
        # So that an OSC 52 would make a paste buffer (the default ignores
        # it from programs), and a passthrough would pass.
        server.run("set-option", "-s", "set-clipboard", "on", ";",
                   "set-option", "-g", "allow-passthrough", "on")
        yield server


@dataclass
class Run:
    """What play in a tmux pane did: tmux's state before and after, the
    screen after (text, and with attributes), the paste buffers, what a
    paste sent, play's exit status and stderr."""

    before: dict[str, str]
    after: dict[str, str]
    screen: str
    styled: str
    buffers: str
    paste: bytes
    status: int
    stderr: str

    def changed(self) -> dict[str, tuple[str, str]]:
        return {k: (self.before[k], self.after[k]) for k in STATE
                if self.before[k] != self.after[k]}


def _state(server: TmuxServer, target: str) -> dict[str, str]:
    out = server.run("display", "-p", "-t", target,
                     "\t".join(f"#{{{name}}}" for name in STATE)).stdout.decode()
    return dict(zip(STATE, out.rstrip("\n").split("\t", len(STATE) - 1), strict=True))


def play_in_tmux(server: TmuxServer, path: Path, tmp: Path, *extra: str,
                 stop: Callable[[TmuxServer, str, int], None] | None = None,
                 marker: bytes = b"ALT-SCREEN-MARKER") -> Run:
    """Run play on ``path`` in a fresh 80x24 pane; ``stop``: once play has
    written ``marker``, call it with the server, the pane and play's pid."""
    name = f"play-{uuid.uuid4().hex[:8]}"
    target = f"{name}:"
    channel = name
    command = shlex.join([sys.executable, PLAY_PANE, "pane", server.name, channel, str(tmp),
                          "--", *play_argv(path, *extra)])
    server.run("new-session", "-d", "-s", name, "-x", "80", "-y", "24", command)
    try:
        before = _state(server, target)
        if stop is not None:
            watcher = [sys.executable, PLAY_PANE, "watch", server.name, channel,
                       marker.decode()]
            server.run("pipe-pane", "-O", "-t", target, shlex.join(watcher))
        server.run("wait-for", "-S", f"{channel}-go")
        if stop is not None:
            server.run("wait-for", f"{channel}-pid")
            server.run("wait-for", f"{channel}-drawn")
            stop(server, target, int((tmp / "pid").read_text()))
        server.run("wait-for", f"{channel}-done")
        after = _state(server, target)
        screen = server.run("capture-pane", "-p", "-t", target).stdout.decode()
        styled = server.run("capture-pane", "-p", "-e", "-t", target).stdout.decode()
        buffers = server.run("list-buffers", "-F", "#{buffer_name}: #{buffer_sample}"
                             ).stdout.decode()
        server.run("set-buffer", "-b", "paste-check", "PASTED", ";",
                   "paste-buffer", "-p", "-d", "-b", "paste-check", "-t", target, ";",
                   "send-keys", "-t", target, "-l", "Z")
        server.run("wait-for", f"{channel}-pasted")
        return Run(before, after, screen, styled, buffers, (tmp / "paste").read_bytes(),
                   int((tmp / "status").read_text()),
                   (tmp / "stderr").read_text(errors="replace"))
    finally:
        server.run("kill-session", "-t", target, check=False)
        server.run("delete-buffer", "-b", "paste-check", check=False)


def assert_restored(run: Run) -> None:
    """tmux is as it was before play, and what is printed after is plain."""
    assert run.changed() == {}, f"play left tmux changed (before, after): {run.changed()}"
    assert run.buffers == "", f"a clipboard write reached tmux: {run.buffers!r}"
    assert run.paste == b"PASTEDZ", f"bracketed paste was left on: {run.paste!r}"
    after = next(line for line in run.styled.splitlines() if "AFTER" in line)
    # No SO (DEC line drawing) and no SGR: the character set and the
    # attributes are back to ASCII and plain.
    assert after == "AFTER qqq xxx", f"the line after play came out as {after!r}"
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr


@needs_tmux
def test_play_lets_only_drawing_reach_tmux_and_restores_every_mode(
    tmux: TmuxServer, tmp_path: Path,
) -> None:
    path = crafted(tmp_path / "evil.tsr")
    run = play_in_tmux(tmux, path, tmp_path)
    assert run.status == 0, run.stderr
    assert_restored(run)
    assert MAIN_TEXT.decode() in run.screen  # the screens were drawn
    assert "EVIL" not in run.after["pane_title"]
    # One line says what was dropped.
    said = [line for line in run.stderr.splitlines() if line.startswith("termsim play: dropped")]
    assert len(said) == 1, run.stderr
    for words in ("clipboard writes", "titles", "1 working directory", "palette changes",
                  "notifications", "passthrough", "images", "queries", "mode changes"):
        assert words in said[0], said[0]


@needs_tmux
@pytest.mark.parametrize("gap_us", [2**62, 2**52], ids=["2^62us", "2^52us"])
def test_a_forged_gap_neither_crashes_nor_hangs_play(
    tmux: TmuxServer, tmp_path: Path, gap_us: int,
) -> None:
    path = crafted(tmp_path / "gap.tsr", [(gap_us / 1e6, b"AFTER-THE-GAP")])
    run = play_in_tmux(tmux, path, tmp_path)
    # Played (the pause shortened and said so), or refused by the reader in
    # one clear line: never an internal error, never a sleep of ages.
    if run.status == 0:
        assert "pause longer than 3600 s played as 1 s" in run.stderr, run.stderr
    else:
        assert run.status == 1 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert_restored(run)


def _kill(signum: int) -> Callable[[TmuxServer, str, int], None]:
    return lambda server, target, pid: os.kill(pid, signum)


def _ctrl_c(server: TmuxServer, target: str, pid: int) -> None:
    server.run("send-keys", "-t", target, "C-c")


@needs_tmux
@pytest.mark.parametrize(("stop", "status"), [
    (_kill(signal.SIGTERM), 143), (_ctrl_c, 130), (_kill(signal.SIGHUP), 129),
], ids=["SIGTERM", "ctrl-c", "SIGHUP"])
def test_play_stopped_in_a_pause_restores_every_mode(
    tmux: TmuxServer, tmp_path: Path, stop: Callable[[TmuxServer, str, int], None],
    status: int,
) -> None:
    # Play draws the marker, then sits in a 50-minute pause.
    path = crafted(tmp_path / "pause.tsr", [(0.01, b"\x1b[HPLAY-IS-PAUSED"), (3000.0, b"NEVER")])
    run = play_in_tmux(tmux, path, tmp_path, stop=stop, marker=b"PLAY-IS-PAUSED")
    assert run.status == status, run.stderr
    assert_restored(run)


# -- what play writes, read by a termsim Terminal ---------------------------------------


def played(path: Path, *extra: str) -> tuple[bytes, str]:
    """What the real ``termsim play`` writes for ``path`` (to a pipe), and its stderr."""
    done = subprocess.run(play_argv(path, "--speed", "1000", *extra), capture_output=True,
                          timeout=120, check=True)
    return done.stdout, done.stderr.decode()


def test_what_play_writes_leaves_nothing_on_and_nothing_but_drawing(tmp_path: Path) -> None:
    out, _ = played(crafted(tmp_path / "evil.tsr"))
    terminal = Terminal(80, 24)
    terminal.feed(out)
    snap = terminal.screen
    assert terminal.query_count == 0
    assert terminal.leftovers() == []  # kitty flags, modifyOtherKeys, DECSCNM... all off
    assert snap.title == "" and snap.icon_title == "" and snap.cwd is None
    assert not snap.clipboard and not snap.notifications and not snap.bells
    assert not snap.graphics and not snap.links
    assert MAIN_TEXT.decode() in snap.text
    # LNM off: a line feed only goes down. G0 is ASCII again.
    terminal.feed(b"\x1b[2J\x1b[Hab\nq")
    assert terminal.screen.lines[1][:3] == "  q"
    # Nothing but text, controls that move, CSI and ESC sequences is written.
    kinds = {span.kind for span in sequences(out)}
    assert kinds <= {"text", "control", "csi", "esc"}, kinds
    controls = {out[s.start:s.end] for s in sequences(out) if s.kind == "control"}
    assert controls <= {b"\x08", b"\t", b"\n", b"\r", b"\x0e", b"\x0f", b"\x18"}, controls


def _same_drawing(a: Terminal, b: Terminal, *, modes: bool = True) -> None:
    """The same cells and cursor position; with ``modes``, the same cursor
    visibility, screen and drawing modes too (play's restore shows the
    cursor and leaves the alternate screen at the very end)."""
    x, y = a.screen, b.screen
    assert x.lines == y.lines
    assert (x.cursor.row, x.cursor.col) == (y.cursor.row, y.cursor.col)
    assert all(x.row_cells(r) == y.row_cells(r) for r in range(x.rows))
    if modes:
        assert (x.cursor.visible, x.alternate) == (y.cursor.visible, y.alternate)
        assert (x.modes.autowrap, x.modes.insert, x.modes.origin) == (
            y.modes.autowrap, y.modes.insert, y.modes.origin)


@pytest.mark.parametrize("name", ["fullscreen.tsr", "ptpython.tsr", "ipython.tsr"])
def test_honest_drawing_is_kept_exactly(name: str) -> None:
    from termsim.report.play_allowlist import allowed_outputs

    recording = Recording.open(RECORDINGS / name)
    recorded, kept = (Terminal(recording.cols, recording.rows) for _ in range(2))
    # Screen by screen: after every output event the screens are the same.
    outputs = list(recording.of_type(Output))
    allowed = list(allowed_outputs(recording))
    assert len(allowed) == len(outputs)
    for event, out in zip(outputs, allowed, strict=True):
        recorded.feed(event.data)
        kept.feed(out.data)
        _same_drawing(recorded, kept)
    # And what the real command writes ends on the recording's own last screen.
    final = Playback(recording).terminal_at()
    through_cli = Terminal(recording.cols, recording.rows)
    through_cli.feed(played(RECORDINGS / name)[0])
    _same_drawing(final, through_cli, modes=False)


def _resplit(data: bytes, cuts: list[int]) -> Recording:
    return output_in_pieces(data, cuts, make_header(argv=["x"], cwd="/", cols=80, rows=24, env={}))


#: The hostile bytes, then drawing with controls inside sequences and C1 forms.
SPLIT_ME = (HOSTILE + LEAVE_ON + b"a\x1b[1;\n2Hb\xc2\x9b3C\xc2\x84x\x9by\x1b[?1049;1000hz"
            + "é😀".encode())


@settings(max_examples=examples(60), deadline=None, database=None)
@given(st.lists(st.integers(min_value=0), max_size=40))
def test_a_sequence_cut_anywhere_is_judged_the_same(cuts: list[int]) -> None:
    from termsim.report.play_allowlist import allowed_outputs

    whole = b"".join(a.data for a in allowed_outputs(_resplit(SPLIT_ME, [])))
    split = _resplit(SPLIT_ME, cuts + list(range(1, len(SPLIT_ME), 7)))
    assert b"".join(a.data for a in allowed_outputs(split)) == whole
    assert b"\x1b]" not in whole and b"\x1bP" not in whole and b"\x1b_" not in whole


# -- the command's edges --------------------------------------------------------------


@pytest.mark.parametrize("args", [["--speed", "nan"], ["--speed", "inf"], ["--speed", "0"],
                                  ["--idle-limit", "nan"], ["--idle-limit", "inf"],
                                  ["--idle-limit", "-1"]], ids=" ".join)
def test_speeds_and_limits_that_are_no_numbers_are_usage_errors(
    args: list[str], capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["play", str(RECORDINGS / "passing.tsr"), *args])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and args[0] in err, err


def test_every_pause_from_a_file_is_bounded() -> None:
    from termsim.report.play import BOGUS_PAUSE, MAX_PAUSE, MAX_SLEEP, Pacer

    now = [0.0]
    pacer = Pacer(1.0, None, clock=lambda: now[0])
    delays = [pacer.delay(t) for t in (1.0, 2.0**62 / 1e6, math.nan, -5.0, math.inf, 1e300)]
    assert delays[0] == 1.0
    assert delays[1] == 1.0 + BOGUS_PAUSE  # a forged pause, shortened
    assert all(math.isfinite(d) and d <= MAX_SLEEP for d in delays)
    assert pacer.shortened == 2
    slow = Pacer(1e-300, None, clock=lambda: now[0])
    assert slow.delay(MAX_PAUSE) == MAX_SLEEP  # never more than time.sleep takes
    limited = Pacer(2.0, 0.5, clock=lambda: now[0])
    assert limited.delay(100.0) == 0.25


def test_a_signal_ends_a_pause_of_any_length() -> None:
    """A pause waits on the signal wakeup fd, not in ``time.sleep``: in
    ``sleep``, a signal that came just before the sleep began ran its
    handler only when the sleep ended (a Ctrl-C in a two-minute pause went
    unheard for two minutes). That gap cannot be hit on demand; this checks
    that the wait which closes it ends on a signal, whether the signal comes
    before the pause or during it, as the threads fall."""
    from termsim.report.play import _Signals, _Stop

    with pytest.raises(_Stop) as stopped, _Signals() as signals:
        threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGTERM)).start()
        signals.pause(3600.0)  # without the signal, the test's timeout ends it
    assert stopped.value.signum == signal.SIGTERM


def test_a_closed_pipe_ends_play_quietly(tmp_path: Path) -> None:
    # More output than a pipe holds: play is writing when the reader goes.
    path = crafted(tmp_path / "big.tsr", [(0.0, b"x" * (1 << 20))])
    with subprocess.Popen(play_argv(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE
                          ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.read(10)
        proc.stdout.close()
        err = proc.stderr.read().decode()
        status = proc.wait(timeout=60)
    assert status == 141, err
    assert "Traceback" not in err and "Exception ignored" not in err, err


def test_a_terminal_that_is_not_utf8_gets_no_byte_it_reads_as_c1(tmp_path: Path) -> None:
    """In UTF-8, ``Û`` is C3 9B, and 0x9B is CSI to a terminal in an 8-bit
    encoding (xterm in a Latin-1 locale): ``AÛ6nÝ2;PWNEDÜB`` asks for the
    cursor and sets the title there. Written in the terminal's encoding,
    with no byte 0x80-0x9F, it is text."""
    path = crafted(tmp_path / "c1.tsr", [(0.0, "AÛ6nÝ2;PWNEDÜB".encode())])
    done = subprocess.run(play_argv(path, "--speed", "1000"), capture_output=True,
                          timeout=120, check=True,
                          env={**os.environ, "PYTHONIOENCODING": "latin-1"})
    assert not [b for b in done.stdout if 0x80 <= b < 0xA0]
    assert "AÛ6nÝ2;PWNEDÜB".encode("latin-1") in done.stdout
    utf8, _ = played(path)
    assert "AÛ6nÝ2;PWNEDÜB".encode() in utf8  # a UTF-8 terminal gets the bytes as recorded


def test_nul_and_del_inside_a_sequence_are_not_written(tmp_path: Path) -> None:
    path = crafted(tmp_path / "nul.tsr", [(0.0, b"\x1b[\x001;31\x7fmred\x1b\x00\x7f7")])
    out, _ = played(path)
    assert b"\x1b[1;31mred\x1b7" in out and b"\x00" not in out and b"\x7f" not in out


def test_a_terminal_nobody_sized_plays_at_the_recordings_size(tmp_path: Path) -> None:
    """A pty with no size (``openpty()``, some CI runners) says 0x0."""
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(play_argv(RECORDINGS / "passing.tsr", "--speed", "1000"),
                              stdout=follower, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 0, done.stderr
    assert b"internal error" not in done.stderr
