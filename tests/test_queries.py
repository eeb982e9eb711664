"""The answers to what modern programs ask (vim, neovim, tmux, bpython):
XTVERSION, XTGETTCAP, DECRQSS, pixel sizes, XTQMODKEYS, DECRQM of 2026-2048.

XTGETTCAP's key strings are checked against the system's own terminfo for
xterm-256color (``infocmp``, skipped where it is missing): termsim answers
with the bytes it sends for each key, and those must be what terminfo says.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

import termsim
from termsim import Text
from termsim.emulator import Terminal
from termsim.emulator.answers.tcap import _TCAP_KEYS, _TCAP_STRINGS, tcap_value


def ask(data: bytes, **kwargs: object) -> bytes:
    return Terminal(80, 24, **kwargs).feed(data)  # type: ignore[arg-type]


def tcap(*names: str) -> bytes:
    return b"\x1bP+q" + b";".join(n.encode().hex().encode() for n in names) + b"\x1b\\"


def test_xtversion_names_xterm_as_da2_does() -> None:
    assert ask(b"\x1b[>q") == ask(b"\x1b[>0q") == b"\x1bP>|XTerm(398)\x1b\\"
    assert ask(b"\x1b[>c") == b"\x1b[>41;398;0c"


@pytest.mark.parametrize(("setting", "before", "reply"), [
    (b"m", b"", b"0m"),
    (b"m", b"\x1b[1;3;4;7;31;44m", b"0;1;3;4;7;31;44m"),
    (b"m", b"\x1b[92;48;5;200m", b"0;92;48;5;200m"),
    (b"m", b"\x1b[38;2;1;2;3m", b"0;38;2;1;2;3m"),
    (b"r", b"", b"1;24r"),
    (b"r", b"\x1b[3;20r", b"3;20r"),
    (b" q", b"", b"1 q"),
    (b" q", b"\x1b[6 q", b"6 q"),
    (b'"q', b"", b'0"q'),
])
def test_decrqss_reports_the_setting_as_the_control_that_sets_it(
    setting: bytes, before: bytes, reply: bytes,
) -> None:
    assert ask(before + b"\x1bP$q" + setting + b"\x1b\\") == b"\x1bP1$r" + reply + b"\x1b\\"


def test_decrqss_of_an_unreported_setting_says_invalid() -> None:
    # DECSLPP (lines per page): xterm reports it, termsim does not (yet).
    assert ask(b"\x1bP$qt\x1b\\") == b"\x1bP0$r\x1b\\"


def test_an_sgr_report_sets_the_same_pen_again() -> None:
    term = Terminal(80, 24)
    term.feed(b"\x1b[1;4;35;48;5;17m")
    pen = term._screen.cursor.attrs
    report = term.feed(b"\x1bP$qm\x1b\\")
    params = re.fullmatch(rb"\x1bP1\$r(.*)m\x1b\\", report)
    assert params is not None
    again = Terminal(80, 24)
    again.feed(b"\x1b[" + params.group(1) + b"m")
    assert again._screen.cursor.attrs == pen


def test_xtgettcap_answers_names_keys_and_colours() -> None:
    reply = ask(tcap("TN", "Co", "kcuu1"))
    value = b";".join([b"544e=" + b"xterm-256color".hex().upper().encode(),
                       b"436f=" + b"256".hex().upper().encode(),
                       b"6b63757531=" + b"\x1bOA".hex().upper().encode()])
    assert reply == b"\x1bP1+r" + value + b"\x1b\\"
    assert ask(tcap("TN"), term="vt100") == b"\x1bP1+r544e=" + b"vt100".hex().upper().encode() \
        + b"\x1b\\"


def test_xtgettcap_stops_at_the_first_unknown_name() -> None:
    assert ask(tcap("kcuu1", "zz", "TN")) == b"\x1bP0+r" + b"zz".hex().encode() + b"\x1b\\"
    assert ask(b"\x1bP+qnothex\x1b\\") == b"\x1bP0+r\x1b\\"


def _terminfo(term: str) -> dict[str, str]:
    """Capability name -> value, from the system's compiled terminfo."""
    out = subprocess.run(["infocmp", "-1", "-x", "-I", term], capture_output=True, text=True,
                         check=True).stdout
    caps = {}
    for line in out.splitlines():
        line = line.strip().rstrip(",")
        if "=" in line and not line.startswith("#"):
            name, _, value = line.partition("=")
            caps[name] = value
    return caps


def _unescape(value: str) -> str:
    value = value.replace("\\E", "\x1b").replace("\\e", "\x1b")
    return re.sub(r"\^(.)", lambda m: "\x7f" if m.group(1) == "?" else
                  chr(ord(m.group(1).upper()) - 64), value)


@pytest.mark.skipif(shutil.which("infocmp") is None, reason="infocmp is not installed")
def test_xtgettcap_key_strings_are_the_systems_terminfo() -> None:
    try:
        caps = _terminfo("xterm-256color")
    except subprocess.CalledProcessError:
        pytest.skip("no terminfo entry for xterm-256color here")
    screen = Terminal(80, 24)._screen
    checked = 0
    for name in [*_TCAP_KEYS, *_TCAP_STRINGS]:
        if name in caps:  # the terminfo names; termcap's aliases share the values
            assert tcap_value(name, screen) == _unescape(caps[name]), name
            checked += 1
    assert checked >= 70


@pytest.mark.parametrize(("query", "reply"), [
    (b"\x1b[14t", b"\x1b[4;240;560t"), (b"\x1b[15t", b"\x1b[5;240;560t"),
    (b"\x1b[16t", b"\x1b[6;20;7t"), (b"\x1b[19t", b"\x1b[9;12;80t"),
])
def test_pixel_sizes_come_from_the_cell_size(query: bytes, reply: bytes) -> None:
    assert Terminal(80, 12, cell_size=(7, 20)).feed(query) == reply


def test_decrqm_reports_synchronized_output_and_the_modes_termsim_does_not_offer() -> None:
    assert ask(b"\x1b[?2026$p") == b"\x1b[?2026;2$y"
    assert ask(b"\x1b[?2026h\x1b[?2026$p") == b"\x1b[?2026;1$y"
    assert ask(b"\x1b[?2027$p\x1b[?2048$p") == b"\x1b[?2027;4$y\x1b[?2048;4$y"
    assert ask(b"\x1b[?4m\x1b[?1m\x1b[?3m") == b"\x1b[>4;0m\x1b[>1;2m"


@pytest.mark.anyio
async def test_the_pty_has_the_pixel_size_too() -> None:
    code = ("import fcntl, struct, termios; r, c, x, y = struct.unpack('HHHH', fcntl.ioctl("
            "0, termios.TIOCGWINSZ, b'\\0' * 8)); print(f'SIZE {r} {c} {x} {y}')")
    async with termsim.spawn([sys.executable, "-c", code], cols=100, rows=30,
                             cell_size=(9, 18)) as term:
        await term.wait_for(Text("SIZE 30 100 900 540"))


@pytest.mark.anyio
@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
async def test_vim_gets_an_answer_to_everything_it_asks(tmp_path: object) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TERM": "xterm-256color"}
    async with termsim.spawn(["vim", "-u", "NONE", "-N", "-i", "NONE"], env=env) as term:
        await term.wait_for(Text("~", termsim.Region.row(1)))
        await term.press("escape")
        await term.type(":q!\n")
        assert await term.wait_exit() == 0
    kinds = {q.kind for q in term.queries}
    assert {"da2", "xtgettcap", "decrqss"} <= kinds
    # Only the kitty keyboard query, which a terminal without it leaves alone.
    assert {q.kind for q in term.unanswered()} <= {"kitty-keyboard"}
