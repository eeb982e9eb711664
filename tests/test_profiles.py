"""Terminal profiles (``termsim/emulator/terminals/profiles.py``): complete, cited, the
``xterm`` one equal to termsim's answers today, and the ``tmux`` one checked
against the tmux installed here (skipped where there is none).

The tmux check runs a small program in a pane of a private tmux server
(``tests/tmux_pane.py``): it writes each query followed by DSR
(``ESC [ 5 n``), which tmux answers while parsing, so everything before that
answer is tmux's reply to the query (nothing at all for a query tmux does not
answer). The program sends what it read, and the environment tmux gave it,
over a Unix socket: the test waits on that socket, never on a clock.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest
from tmux_pane import TIMEOUT, tmux_available, tmux_server

from termsim.emulator import Terminal
from termsim.emulator.answers.queries import BACKGROUND, FOREGROUND, XTERM_PATCH
from termsim.emulator.terminals.emulation import Emulation
from termsim.emulator.terminals.profiles import (
    FACTS,
    MODE_STATES,
    MODES,
    PROFILES,
    TERMINAL_VARIABLES,
    TMUX_VERSION,
    Cited,
    Profile,
    _emulation,
    _profile,
)
from termsim.report.profile_differences import differences

NAMES = ["xterm", "kitty", "ghostty", "wezterm", "tmux", "vscode", "windows-terminal",
         "apple-terminal", "linux", "dumb"]
_RGB = re.compile(r"rgb:[0-9a-f]{4}/[0-9a-f]{4}/[0-9a-f]{4}")


def test_the_issue_s_profiles_are_all_there() -> None:
    assert list(PROFILES) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_a_profile_is_complete_and_cites_each_fact(name: str) -> None:
    profile = PROFILES[name]
    assert profile.name == name
    assert profile.description and "\n" not in profile.description
    assert re.fullmatch(r"[a-z0-9.-]+", profile.term)
    assert "TERM" not in profile.env  # TERM is the term field
    assert all(isinstance(k, str) and isinstance(v, str) and v for k, v in profile.env.items())
    for fact in FACTS:
        assert profile.sources.get(fact), f"{name} cites no source for {fact}"
    if profile.modes is not None:
        assert set(profile.modes) == set(MODES)
        assert set(profile.modes.values()) <= set(MODE_STATES)
    for colour in (profile.foreground, profile.background):
        assert colour is None or _RGB.fullmatch(colour)
    assert isinstance(profile.emulation, Emulation)
    # Replies have the shape of their query's answer.
    assert profile.da1 is None or re.fullmatch(r"\x1b\[\?[0-9;]*c", profile.da1)
    assert profile.da2 is None or re.fullmatch(r"\x1b\[>[0-9;]*c", profile.da2)
    assert profile.da3 is None or re.fullmatch(r"\x1bP!\|[0-9A-Fa-f]{8}\x1b\\", profile.da3)
    assert profile.xtversion is None or re.fullmatch(r"\x1bP>\|[^\x1b]+\x1b\\",
                                                     profile.xtversion)


def test_a_profile_is_a_read_only_constant() -> None:
    profile = PROFILES["kitty"]
    with pytest.raises(TypeError):
        profile.env["X"] = "1"  # type: ignore[index]
    with pytest.raises(AttributeError):
        profile.term = "xterm"  # type: ignore[misc]
    hash(profile)


def test_every_variable_a_profile_sets_is_one_to_clear() -> None:
    assert "TERM" in TERMINAL_VARIABLES
    for profile in PROFILES.values():
        assert set(profile.env) <= TERMINAL_VARIABLES
    assert {"KITTY_WINDOW_ID", "TMUX", "TMUX_PANE", "WT_SESSION", "TERM_PROGRAM"} \
        <= TERMINAL_VARIABLES


# -- every fact as it was written ---------------------------------------------------------

#: Every attribute of every profile, its type, and every source, as the
#: profiles held them when each fact and its comment were written twice
#: (a Python literal). A fact changed on purpose changes here too.
SNAPSHOT = Path(__file__).parent / "data" / "profiles" / "snapshot.txt"


def _plain(value: object) -> object:
    """A profile's attribute as the snapshot writes it: an Emulation as its
    fields, a mapping as a dict (its order compared apart)."""
    if isinstance(value, Emulation):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return dict(value)
    return value


def test_every_profile_holds_the_facts_and_types_it_always_held() -> None:
    """The facts are identical, attribute for attribute, with the same
    types (read-only mappings, an Emulation, a tuple of notes) and the same
    order; a source may say more than it did, never less."""
    snapshot = ast.literal_eval(SNAPSHOT.read_text())
    assert [f.name for f in dataclasses.fields(Profile)] == snapshot["fields"]
    assert sorted(TERMINAL_VARIABLES) == snapshot["terminal_variables"]
    assert list(PROFILES) == list(snapshot["profiles"])
    for name, profile in PROFILES.items():
        was, types = snapshot["profiles"][name], snapshot["types"][name]
        for attribute, old in was.items():
            value = getattr(profile, attribute)
            assert type(value).__name__ == types[attribute], (name, attribute)
            if attribute == "sources":
                assert list(value) == list(old), name  # the same facts, in order
                for fact, text in old.items():
                    assert value[fact].startswith(text), (name, fact, value[fact])
                continue
            assert _plain(value) == old, (name, attribute)
            if isinstance(value, Mapping):
                assert list(value.items()) == list(old.items()), (name, attribute)


def test_a_profile_s_sources_are_its_cited_values_sources() -> None:
    """Each fact is written once, value and source together; ``sources``
    is made from them, a cited note adds its fact, each emulation option
    its reason, and a mode table that forgets a mode is refused."""
    nothing: Cited[None] = Cited(None, "none")
    facts = dict(term=Cited("t", "T"), env=Cited({"A": "1"}, "E"), da1=Cited("d", "D1"),
                 da2=nothing, da3=nothing, xtversion=nothing, modes=Cited(None, "M"),
                 kitty_keyboard=Cited(True, "K"), colours=Cited(("f", None), "C"),
                 emulation=_emulation("EM", reflow=Cited(True, "it rewraps")))
    profile = _profile(name="p", description="d", **facts,  # type: ignore[arg-type]
                       notes=("plain", ("rule", Cited("cited note", "R"))))
    assert dict(profile.sources) == {
        "term": "T", "env": "E", "da1": "D1", "da2": "none", "da3": "none",
        "xtversion": "none", "modes": "M", "kitty_keyboard": "K", "colours": "C",
        "emulation": "EM. reflow=True: it rewraps", "rule": "R"}
    assert list(profile.sources)[:len(FACTS)] == list(FACTS)
    assert (profile.term, dict(profile.env), profile.da1, profile.da2) == ("t", {"A": "1"}, "d",
                                                                          None)
    assert (profile.foreground, profile.background) == ("f", None)
    assert profile.emulation == Emulation(reflow=True)
    assert profile.notes == ("plain", "cited note")
    with pytest.raises(ValueError, match=r"missing for \[2048\]"):
        _profile(name="p", description="d", **{  # type: ignore[arg-type]
            **facts, "modes": Cited({mode: 0 for mode in MODES if mode != 2048}, "M")})


# -- xterm: what termsim answers today ----------------------------------------------------


def _answer(query: bytes) -> str | None:
    """termsim's reply to ``query`` on a fresh default terminal (None: none)."""
    reply = Terminal(80, 24).feed(query)
    return reply.decode() if reply else None


def test_the_xterm_profile_is_termsim_s_answers_today() -> None:
    xterm = PROFILES["xterm"]
    assert xterm.term == "xterm-256color"
    assert dict(xterm.env) == {}
    assert xterm.da1 == _answer(b"\x1b[c")
    assert xterm.da2 == _answer(b"\x1b[>c") == f"\x1b[>41;{XTERM_PATCH};0c"
    assert xterm.da3 == _answer(b"\x1b[=c")
    assert xterm.xtversion == _answer(b"\x1b[>q") == f"\x1bP>|XTerm({XTERM_PATCH})\x1b\\"
    assert xterm.kitty_keyboard == (_answer(b"\x1b[?u") is not None)
    assert xterm.modes is not None
    for mode, state in xterm.modes.items():
        assert _answer(f"\x1b[?{mode}$p".encode()) == f"\x1b[?{mode};{state}$y"
    assert (xterm.foreground, xterm.background) == (FOREGROUND, BACKGROUND)
    assert _answer(b"\x1b]11;?\x07") == f"\x1b]11;{BACKGROUND}\x07"
    assert xterm.emulation == Emulation()
    assert differences(xterm) == []


# -- differences() ------------------------------------------------------------------------


def test_differences_say_in_words_what_differs_from_xterm() -> None:
    kitty = differences(PROFILES["kitty"])
    assert "TERM=xterm-kitty (xterm: xterm-256color)" in kitty
    assert "answers the kitty keyboard query (CSI ? u)" in kitty
    assert "answers DA2 with ESC[>1;4000;48c (xterm: ESC[>41;398;0c)" in kitty
    assert "BS at a pending wrap stays on the last column (as tmux)" in kitty
    assert "draws a grapheme cluster (emoji ZWJ sequence, flag) in one cell" in kitty
    ghostty = differences(PROFILES["ghostty"])
    assert "DECRQM 2027 (grapheme clustering): set (xterm: permanently reset)" in ghostty
    dumb = differences(PROFILES["dumb"])
    assert "does not answer DA1 (xterm: ESC[?62;22c)" in dumb
    assert "does not answer DECRQM (mode reports)" in dumb
    assert "does not answer OSC 11 (background colour)" in dumb
    assert "sets WT_PROFILE_ID={61c54bbd-c2c6-5271-96e7-009a87ff44bf}, WT_SESSION=" \
        "00000000-0000-0000-0000-000000000000" in differences(PROFILES["windows-terminal"])
    for name in NAMES[1:]:
        lines = differences(PROFILES[name])
        assert lines and all(line and "\n" not in line for line in lines)


# -- tmux: checked against the tmux installed here ----------------------------------------

#: What the pane program asks, in order: name -> query.
_QUERIES = {
    "da1": "\x1b[c", "da2": "\x1b[>c", "da3": "\x1b[=c", "xtversion": "\x1b[>q",
    "kitty": "\x1b[?u", **{f"mode {mode}": f"\x1b[?{mode}$p" for mode in MODES},
}
#: The pane program: asks each query then DSR, keeps what came before DSR's
#: answer, and sends the replies and its environment to the test.
_PANE_PROGRAM = r"""
import json, os, socket, sys, tty
queries = json.loads(sys.argv[2])
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.connect(sys.argv[1])
tty.setraw(0)
done, pending = {}, b""
for name, query in queries.items():
    os.write(1, query.encode() + b"\x1b[5n")
    while b"\x1b[0n" not in pending:
        chunk = os.read(0, 4096)
        if not chunk:
            sys.exit(1)
        pending += chunk
    reply, _, pending = pending.partition(b"\x1b[0n")
    done[name] = reply.decode("latin-1")
env = {k: os.environ.get(k) for k in ("TERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION",
                                       "COLORTERM", "TMUX", "TMUX_PANE")}
conn.sendall(json.dumps({"replies": done, "env": env}).encode())
conn.close()
"""


def _tmux_version() -> str:
    out = subprocess.run(["tmux", "-V"], capture_output=True, text=True, check=True).stdout
    return out.split()[-1]  # "tmux 3.3a" -> "3.3a" ("next-3.6" for a build of master)


def _version_key(version: str) -> tuple[int, int]:
    match = re.search(r"(\d+)\.(\d+)", version)
    assert match, version
    return int(match[1]), int(match[2])


def _ask_tmux() -> tuple[dict[str, str], dict[str, str | None], str]:
    """The replies of a real tmux pane to ``_QUERIES``, the pane's
    environment, and tmux's default-terminal."""
    with tmux_server() as server, tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "ask.py"
        script.write_text(_PANE_PROGRAM)
        path = Path(tmp) / "ask.sock"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(str(path))
            listener.listen(1)
            listener.settimeout(TIMEOUT)
            command = " ".join(["exec", sys.executable, str(script), str(path),
                                "'" + json.dumps(_QUERIES).replace("'", "'\\''") + "'"])
            server.run("new-session", "-d", "-s", "ask", "-x", "80", "-y", "24", command)
            conn, _ = listener.accept()  # the pane program started
            with conn:
                conn.settimeout(TIMEOUT)
                data = b""
                while chunk := conn.recv(65536):  # until it closes: all sent
                    data += chunk
        default_term = server.run("show-options", "-sv", "default-terminal").stdout.decode()
    got = json.loads(data)
    return got["replies"], got["env"], default_term.strip()


@pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")
def test_the_tmux_profile_answers_as_the_installed_tmux_does() -> None:
    profile = PROFILES["tmux"]
    replies, env, default_term = _ask_tmux()
    version = _tmux_version()
    # DA1 (a build with --enable-sixel adds 4: input.c INPUT_CSI_DA), DA2.
    assert replies["da1"] in (profile.da1, "\x1b[?1;2;4c")
    assert replies["da2"] == profile.da2
    # XTVERSION: the same form, with the version of the tmux that answers.
    assert replies["xtversion"] == f"\x1bP>|tmux {version}\x1b\\"
    assert profile.xtversion == f"\x1bP>|tmux {TMUX_VERSION}\x1b\\"
    # Not answered, by any version: DA3 and the kitty keyboard query.
    assert profile.da3 is None and replies["da3"] == ""
    assert not profile.kitty_keyboard and replies["kitty"] == ""
    # DECRQM: none before 3.6; the profile's own version's answers exactly.
    assert profile.modes is not None
    if _version_key(version) < (3, 6):
        assert all(replies[f"mode {mode}"] == "" for mode in MODES)
    elif version == TMUX_VERSION:
        for mode, state in profile.modes.items():
            assert replies[f"mode {mode}"] == f"\x1b[?{mode};{state}$y"
    # The environment tmux gives its panes (environ.c environ_for_session).
    assert env["TERM"] == default_term
    if default_term == "tmux-256color":
        assert profile.term == default_term
    assert env["TERM_PROGRAM"] == profile.env["TERM_PROGRAM"] == "tmux"
    assert env["TERM_PROGRAM_VERSION"] == version
    # COLORTERM from tmux 3.6 on (environ.c).
    assert env["COLORTERM"] == ("truecolor" if _version_key(version) >= (3, 6) else None)
    assert env["TMUX"] and re.fullmatch(r".+,\d+,\d+", env["TMUX"])
    assert re.fullmatch(r".+,\d+,\d+", profile.env["TMUX"])
    assert env["TMUX_PANE"] and re.fullmatch(r"%\d+", env["TMUX_PANE"])
    assert re.fullmatch(r"%\d+", profile.env["TMUX_PANE"])
