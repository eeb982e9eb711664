"""The ``xterm`` profile (``termsim/emulator/terminals/profiles.py`` XTERM) checked
against the real xterm installed here, under a virtual X display (skipped
where ``xterm`` or ``xvfb-run`` is missing; CI installs both).

How xterm is asked
    ``xvfb-run -a xterm ... -e python tests/programs/term_probe.py``: the
    probe puts its tty in raw mode and writes each query followed by DSR
    (``ESC [ 5 n``); xterm answers in order, so what came before DSR's
    answer is xterm's reply to the query, or nothing. The probe blocks on
    its reads with a timeout of its own and writes the replies and its
    environment as JSON to a file; the test waits for xvfb-run to exit
    (xterm exits with its program, xvfb-run with xterm), with a timeout,
    never on a clock. One xterm serves the whole file: the answers are read
    once per session (a fixture), and one test checks them, so parallel
    workers never start two virtual displays at once.

Why the answers do not depend on the machine
    xterm reads X resources from the display (none: a fresh Xvfb), from
    ``XENVIRONMENT`` or ``~/.Xdefaults-<host>``, and from the app-defaults
    files (``XFILESEARCHPATH``, ``XUSERFILESEARCHPATH``, ``XAPPLRESDIR``).
    It runs with those variables unset, ``HOME`` an empty directory, a
    UTF-8 locale, its own instance name, and every resource an asserted
    answer depends on given with ``-xrm`` at xterm's documented default
    (:data:`RESOURCES`). Only the package's own app-defaults remain, which
    are part of the xterm being checked.

What is compared
    The profile deliberately keeps termsim's historical answers (patch
    398, DA1 ``ESC[?62;22c``, white on black): for each query, the real
    answer either equals the profile's (with the patch number of the xterm
    that answers) or is one of :data:`KNOWN_DIFFERENCES`, each asserted
    exactly, with the reason and its source.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import pytest

from termsim.emulator.terminals.profiles import MODES, XTERM
from termsim.emulator.terminals.xterm import XTERM_PATCH

PROBE = Path(__file__).resolve().parent / "programs" / "term_probe.py"
#: How long xterm may take, start to exit (a loaded machine is slow; an
#: xterm that stops answering ends the probe sooner, by its own timeout).
TIMEOUT = 60.0
PROBE_TIMEOUT = 20.0

#: What the probe asks, in order: name -> query. OSC queries end with BEL,
#: so xterm's answers do too (ctlseqs, Operating System Commands: "uses the same
#: terminator used in a query").
QUERIES = {
    "da1": "\x1b[c", "da2": "\x1b[>c", "xtversion": "\x1b[>q", "da3": "\x1b[=c",
    **{f"mode {mode}": f"\x1b[?{mode}$p" for mode in MODES},
    "osc 10": "\x1b]10;?\x07", "osc 11": "\x1b]11;?\x07", "kitty": "\x1b[?u",
}
#: The environment facts compared besides the answers.
ENV_FACTS = ("TERM", "XTERM_VERSION")

#: xterm's resources that the asserted answers depend on, pinned at the
#: defaults xterm(1) documents: "decTerminalID ... The default is 420";
#: foreground/background "XtDefaultForeground"/"XtDefaultBackground";
#: reverseVideo false; colorMode true (DA1's 22, charproc.c CASE_DA1);
#: termName "xterm" (the first entry of the search xterm(1) DESCRIPTION
#: describes, which ncurses-base always has).
RESOURCES = {
    "decTerminalID": "vt420",
    "foreground": "XtDefaultForeground",
    "background": "XtDefaultBackground",
    "reverseVideo": "false",
    "colorMode": "true",
    "termName": "xterm",
}
#: The variables that would bring in resources from elsewhere.
_RESOURCE_VARIABLES = ("XENVIRONMENT", "XFILESEARCHPATH", "XUSERFILESEARCHPATH", "XAPPLRESDIR")
#: Stands for the installed xterm's patch number in an expected answer.
PATCH = "<patch>"


class Difference(NamedTuple):
    """Where the profile answers differently from the real xterm on purpose."""

    #: A name in :data:`QUERIES` or :data:`ENV_FACTS`.
    fact: str
    #: The real xterm's answer: a regular expression, fully matched, with
    #: :data:`PATCH` for the installed patch number.
    xterm: str
    #: The profile's answer, exactly ("" for none).
    profile: str
    #: Why, with the source.
    reason: str


_TERMSIM = "termsim keeps its historical answer so that the default profile changes nothing " \
    "(profiles.py XTERM: 'equal to termsim's answers today')"

KNOWN_DIFFERENCES: list[Difference] = [
    Difference(
        "da1",
        # 60 + decTerminalID/100, then the extensions charproc.c CASE_DA1 lists
        # for a level >= 400: 8 only with a VT220 keyboard (OPT_SUNPC_KBD), 29
        # only if built with OPT_DEC_LOCATOR; 3/4 only with ReGIS/sixel enabled.
        r"\x1b\[\?64;1;2;(3;)?(4;)?6;(8;)?9;15;16;17;18;21;22;28(;29)?c",
        "\x1b[?62;22c",
        "xterm's DA1 is set by its decTerminalID resource (default 420: VT420, "
        "'CSI ? 6 4 ; Ps c') and lists its extensions (xterm(1) decTerminalID; ctlseqs "
        "'CSI Ps c'; charproc.c CASE_DA1); termsim answers a VT220 with ANSI colour. "
        + _TERMSIM,
    ),
    Difference(
        "da2",
        re.escape("\x1b[>41;") + PATCH + re.escape(";0c"),
        f"\x1b[>41;{XTERM_PATCH};0c",
        "the patch number: DA2's second parameter is XTERM_PATCH of the xterm that answers "
        f"(charproc.c CASE_DA2); the profile names patch {XTERM_PATCH} (queries.py "
        "XTERM_PATCH). Same form: 41 (VT420), ROM 0.",
    ),
    Difference(
        "xtversion",
        re.escape("\x1bP>|XTerm(") + PATCH + re.escape(")\x1b\\"),
        f"\x1bP>|XTerm({XTERM_PATCH})\x1b\\",
        "the patch number: XTVERSION answers DCS >| xtermVersion() ST (charproc.c "
        f"CASE_REPORT_VERSION; ctlseqs 'CSI > Ps q'); the profile names patch {XTERM_PATCH}.",
    ),
    Difference(
        "da3",
        re.escape("\x1bP!|00000000\x1b\\"),
        "",
        "xterm answers DA3 with DECRPTUI, unit id 00000000, at a VT400 level or above "
        "(ctlseqs 'CSI = Ps c'; charproc.c CASE_DECRPTUI); termsim does not answer DA3 "
        "(queries.py KINDS['da3']). " + _TERMSIM,
    ),
    Difference(
        "mode 1016",
        re.escape("\x1b[?1016;2$y"),
        "\x1b[?1016;0$y",
        "xterm knows SGR-pixel mouse reports since patch 359 (ptyx.h "
        "srm_PIXEL_POSITION_MOUSE; ctlseqs 'SGR-Pixels (1016)'); termsim does not implement "
        "them, so it does not recognise the mode.",
    ),
    Difference(
        "mode 2026",
        re.escape("\x1b[?2026;0$y"),
        "\x1b[?2026;2$y",
        "xterm has no synchronized output (no mode 2026 in ptyx.h or charproc.c, through "
        "patch 398; not in ctlseqs), so DECRQM answers 0; termsim implements it (queries.py "
        "MODE_REPORTS) and answers reset.",
    ),
    Difference(
        "mode 2027",
        re.escape("\x1b[?2027;0$y"),
        "\x1b[?2027;4$y",
        "xterm does not know grapheme clustering (not in ptyx.h or ctlseqs through patch "
        "398): 0; termsim answers 'permanently reset' for the modes it knows but does not "
        "offer (queries.py UNOFFERED_PRIVATE_MODES).",
    ),
    Difference(
        "mode 2048",
        re.escape("\x1b[?2048;0$y"),
        "\x1b[?2048;4$y",
        "xterm does not know in-band resize reports (not in ptyx.h or ctlseqs through patch "
        "398): 0; termsim answers 'permanently reset' (queries.py UNOFFERED_PRIVATE_MODES).",
    ),
    Difference(
        "osc 10",
        re.escape("\x1b]10;rgb:0000/0000/0000\x07"),
        "\x1b]10;rgb:ffff/ffff/ffff\x07",
        "xterm's foreground defaults to XtDefaultForeground, black (xterm(1) foreground); "
        "termsim draws white on black (queries.py FOREGROUND). Same form: rgb:rrrr/gggg/bbbb, "
        "ended as the query was (ctlseqs OSC Ps ; Pt). " + _TERMSIM,
    ),
    Difference(
        "osc 11",
        re.escape("\x1b]11;rgb:ffff/ffff/ffff\x07"),
        "\x1b]11;rgb:0000/0000/0000\x07",
        "xterm's background defaults to XtDefaultBackground, white (xterm(1) background); "
        "termsim's is black (queries.py BACKGROUND). " + _TERMSIM,
    ),
    Difference(
        "TERM",
        "xterm",
        "xterm-256color",
        "xterm sets TERM to the first of xterm, vt102, vt100, ansi, dumb in the terminal "
        "database (xterm(1) DESCRIPTION, termName); termsim's default TERM is xterm-256color "
        "(live/session.py). " + _TERMSIM,
    ),
    Difference(
        "XTERM_VERSION",
        re.escape("XTerm(") + PATCH + re.escape(")"),
        "",
        "xterm exports XTERM_VERSION (and XTERM_SHELL, XTERM_LOCALE, WINDOWID: main.c); "
        "termsim sets no variable besides TERM (profiles.py XTERM env).",
    ),
]


def _profile_answer(fact: str) -> str:
    """What :data:`XTERM` says xterm answers to ``fact`` ("" for nothing)."""
    if fact == "TERM":
        return XTERM.term
    if fact in ENV_FACTS:
        return XTERM.env.get(fact, "")
    if fact == "kitty":
        assert not XTERM.kitty_keyboard  # its flags' answer would depend on the program
        return ""
    if fact.startswith("mode "):
        mode = int(fact.split()[1])
        state = XTERM.mode_state(mode)
        return "" if state is None else f"\x1b[?{mode};{state}$y"
    if fact.startswith("osc "):
        number = fact.split()[1]
        colour = XTERM.foreground if number == "10" else XTERM.background
        return "" if colour is None else f"\x1b]{number};{colour}\x07"
    answer = {"da1": XTERM.da1, "da2": XTERM.da2, "da3": XTERM.da3,
              "xtversion": XTERM.xtversion}[fact]
    return answer or ""


def _installed_patch() -> str:
    out = subprocess.run(["xterm", "-v"], capture_output=True, text=True, check=True,
                         timeout=TIMEOUT).stdout
    match = re.search(r"XTerm\((\d+)\)", out)  # "XTerm(379)"
    assert match, out
    return match[1]


def _ask_xterm() -> dict[str, str]:
    """The real xterm's answers to :data:`QUERIES`, and its :data:`ENV_FACTS`."""
    with tempfile.TemporaryDirectory() as tmp:
        out, errors = Path(tmp) / "answers.json", Path(tmp) / "xvfb.log"
        home = Path(tmp) / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in _RESOURCE_VARIABLES}
        env.update(HOME=str(home), LC_ALL="C.UTF-8", LANG="C.UTF-8")
        env.pop("DISPLAY", None)
        resources = [arg for name, value in RESOURCES.items()
                     for arg in ("-xrm", f"*{name}: {value}")]
        command = ["xvfb-run", "-a", "-e", str(errors),
                   "xterm", "-name", "termsim-probe", *resources,
                   "-e", sys.executable, str(PROBE), str(out), json.dumps(QUERIES),
                   str(PROBE_TIMEOUT)]
        # Its own process group: on a timeout, xvfb-run, Xvfb and xterm all end.
        with subprocess.Popen(command, env=env, cwd=tmp, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True) as process:
            try:
                output, _ = process.communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                pytest.fail(f"xterm did not exit within {TIMEOUT}s")
        log = errors.read_text(errors="replace") if errors.exists() else ""
        assert out.exists(), f"the probe wrote no answers: {output!r} {log}"
        got = json.loads(out.read_text())
    assert got["error"] is None, (got["error"], got["replies"])
    return {**got["replies"], **{fact: got["env"].get(fact) or "" for fact in ENV_FACTS}}


@pytest.fixture(scope="session")
def real_xterm() -> tuple[dict[str, str], str]:
    """The installed xterm's answers and its patch number, read once."""
    if not (shutil.which("xterm") and shutil.which("xvfb-run")):
        pytest.skip("xterm or xvfb-run is not installed")
    return _ask_xterm(), _installed_patch()


def test_known_differences_are_well_formed() -> None:
    facts = [difference.fact for difference in KNOWN_DIFFERENCES]
    assert len(facts) == len(set(facts))
    assert set(facts) <= set(QUERIES) | set(ENV_FACTS)
    for difference in KNOWN_DIFFERENCES:
        assert difference.profile == _profile_answer(difference.fact), difference.fact
        assert difference.reason and "\n" not in difference.reason
        # A difference: the profile's own answer is not what xterm answers
        # (with the profile's patch standing in for the installed one).
        pattern = difference.xterm.replace(PATCH, str(XTERM_PATCH))
        same_patch = difference.fact in ("da2", "xtversion")
        assert bool(re.fullmatch(pattern, difference.profile, re.S)) == same_patch


def test_the_xterm_profile_answers_as_the_installed_xterm_does(
        real_xterm: tuple[dict[str, str], str]) -> None:
    answers, patch = real_xterm
    known = {difference.fact: difference for difference in KNOWN_DIFFERENCES}
    assert answers["XTERM_VERSION"] == f"XTerm({patch})"
    mismatches = []
    for fact in [*QUERIES, *ENV_FACTS]:
        real, profile = answers[fact], _profile_answer(fact)
        if fact in known:
            expected = known[fact].xterm.replace(PATCH, patch)
            ok = re.fullmatch(expected, real, re.S) is not None
        else:
            expected, ok = profile, real == profile
        if not ok:
            mismatches.append(f"{fact}: xterm {patch} answers {real!r}, expected "
                              f"{expected!r} (profile: {profile!r})")
    assert not mismatches, "\n".join(mismatches)
    # Where they agree in form: DA2 and XTVERSION differ only in the patch.
    assert answers["da2"] == _profile_answer("da2").replace(str(XTERM_PATCH), patch)
    assert answers["xtversion"] == _profile_answer("xtversion").replace(str(XTERM_PATCH),
                                                                        patch)
    # DECRQM: every mode xterm recognises, the profile reports in the same
    # state, except the ones termsim does not implement (listed).
    for mode in MODES:
        state = re.fullmatch(rf"\x1b\[\?{mode};(\d)\$y", answers[f"mode {mode}"])
        assert state, answers[f"mode {mode}"]
        if state[1] != "0" and f"mode {mode}" not in known:
            assert XTERM.mode_state(mode) == int(state[1])
    # OSC 10/11: answered, as rgb:rrrr/gggg/bbbb.
    for number in ("10", "11"):
        assert re.fullmatch(rf"\x1b\]{number};rgb:[0-9a-f]{{4}}/[0-9a-f]{{4}}/[0-9a-f]{{4}}\x07",
                            answers[f"osc {number}"])
