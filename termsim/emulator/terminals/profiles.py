"""Terminal profiles: what each real terminal answers, as data.

A program changes what it does with the terminal it detects: from ``TERM``
and ``TERM_PROGRAM``, its answers to DA1/DA2/DA3 and XTVERSION, DECRQM of
the modes it wants (2026 synchronized output, 2027 grapheme clustering...),
``CSI ? u`` (the kitty keyboard protocol) and OSC 10/11 (dark or light). A
:class:`Profile` holds those facts for one terminal.

How a profile is written
    Each fact once, as a :class:`Cited` value: the value and the place it
    was read, together, so that neither can change without the other in
    sight. ``Profile.sources`` (fact -> source, for a listing or a test) is
    made from them. A source names the file and function (or a URL) and
    says whatever the value needs said: why it differs from real xterm,
    which variables were left out of ``env``, why each ``Emulation`` option
    goes the way it does (each option is cited on its own). The comments
    left say what a profile's facts share: the release and the date they
    were read at.

How the facts were established
    From each terminal's own source, at the release named in its profile
    (the version an answer contains is that release's, never a made-up
    one): kitty, Ghostty, WezTerm, tmux, xterm.js (VS Code), Windows
    Terminal and the Linux console. Apple's Terminal has no public source:
    its facts come from third-party measurements and are marked
    ``unverified``; what could not be established is ``None`` (not
    answered), and its source says so.

What the fields mean
    ``da1``/``da2``/``da3``/``xtversion``: the exact reply, or ``None``
    where the terminal sends nothing. ``modes``: DECRQM's Ps for each of
    :data:`MODES` as the terminal answers right after start-up (0 not
    recognised, 1 set, 2 reset, 3 permanently set, 4 permanently reset);
    ``None`` where DECRQM is not answered at all. ``foreground`` and
    ``background`` (written together as the fact ``colours``): OSC 10/11
    replies (``rgb:rrrr/gggg/bbbb``, the default theme), ``None`` where
    OSC 10/11 queries are not answered. ``emulation``: the choices where
    terminals draw differently
    (:class:`~termsim.emulator.terminals.emulation.Emulation`).

The ``xterm`` profile is termsim's behaviour today, answer for answer (the
constants of ``queries.py``), so that choosing no profile changes nothing;
where real xterm differs, its sources say so, and
``tests/test_profiles_xterm.py`` asserts each difference against a real
xterm under Xvfb: DA1 (xterm answers as its ``decTerminalID``, a VT420 by
default), DA3 (xterm answers DECRPTUI), the patch number, modes 1016 (xterm
has it), 2026, 2027 and 2048 (xterm answers 0: it has none of them), its
default colours (black on white) and ``TERM=xterm``. How a profile differs
from xterm, in words for people, is :mod:`termsim.report.profile_differences`.

Sans-IO: plain data, nothing read or run at import.

Why one module past 500 lines: it is a table, each fact beside its source
and its reasons (ten terminals, about sixty lines each); a module per
terminal would scatter what a reader compares side by side.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from ...errors import ArgumentError
from .emulation import Emulation
from .xterm import BACKGROUND, FOREGROUND, XTERM_PATCH

#: The DEC private modes a profile reports: the ones programs ask about and
#: where terminals differ, with what each is.
MODES: Mapping[int, str] = MappingProxyType({
    1004: "focus reports",
    1006: "SGR mouse reports",
    1016: "SGR-pixel mouse reports",
    1049: "alternate screen",
    2004: "bracketed paste",
    2026: "synchronized output",
    2027: "grapheme clustering",
    2031: "colour-scheme reports",
    2048: "in-band resize reports",
})

#: DECRQM's Ps, in words.
MODE_STATES: Mapping[int, str] = MappingProxyType({
    0: "not recognised", 1: "set", 2: "reset", 3: "permanently set", 4: "permanently reset",
})

#: The facts a profile holds, each of which ``sources`` cites.
FACTS = ("term", "env", "da1", "da2", "da3", "xtversion", "modes", "kitty_keyboard",
         "colours", "emulation")


@dataclass(frozen=True)
class Profile:
    """What one real terminal tells the programs it runs (see the module doc)."""

    name: str
    #: One line, for ``termsim profiles``.
    description: str
    #: The ``TERM`` the terminal sets.
    term: str
    #: The other variables the terminal sets for its programs.
    env: Mapping[str, str] = field(hash=False)
    da1: str | None
    da2: str | None
    da3: str | None
    xtversion: str | None
    #: DECRQM's Ps for each of :data:`MODES` at start-up; ``None``: DECRQM
    #: is not answered.
    modes: Mapping[int, int] | None = field(hash=False)
    #: Answers ``CSI ? u`` (the kitty keyboard protocol) with its flags.
    kitty_keyboard: bool
    foreground: str | None
    background: str | None
    emulation: Emulation
    #: Fact (one of :data:`FACTS`, or a fact a note states) -> where it was
    #: read (file and function, or a URL), with "unverified" where no
    #: primary source was found. The profiles here take it from their
    #: :class:`Cited` values.
    sources: Mapping[str, str] = field(hash=False)
    #: Other facts the wiring should know (passthrough rules, settings).
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Read-only views: a profile is a shared constant.
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))
        object.__setattr__(self, "sources", MappingProxyType(dict(self.sources)))
        if self.modes is not None:
            object.__setattr__(self, "modes", MappingProxyType(dict(self.modes)))

    def mode_state(self, mode: int) -> int | None:
        """DECRQM's Ps for ``mode`` at start-up (0 for a mode the profile
        does not list); ``None`` when DECRQM is not answered."""
        if self.modes is None:
            return None
        return self.modes.get(mode, 0)


_T_co = TypeVar("_T_co", covariant=True)


@dataclass(frozen=True)
class Cited(Generic[_T_co]):
    """A fact and where it was read, one value: ``source`` names the file
    and function (or a URL) at the release the profile names, says
    "unverified" where no primary source was found, and says why where
    the value needs it."""

    value: _T_co
    source: str


#: A note for the wiring (:attr:`Profile.notes`), or one that states a fact
#: with its source: (the fact's name in ``sources``, the note cited).
Note = str | tuple[str, Cited[str]]


def _emulation(source: str, **options: Cited[Any]) -> Cited[Emulation]:
    """The drawing choices, each option cited on its own: the source is
    ``source`` (where they were read), then each option, its value and why.
    An option left out is :class:`Emulation`'s default."""
    emulation = Emulation(**{name: option.value for name, option in options.items()})
    said = ". ".join(f"{name}={option.value!r}: {option.source}"
                     for name, option in options.items())
    return Cited(emulation, f"{source}. {said}" if said else source)


def _profile(*, name: str, description: str, term: Cited[str],
             env: Cited[Mapping[str, str]], da1: Cited[str | None], da2: Cited[str | None],
             da3: Cited[str | None], xtversion: Cited[str | None],
             modes: Cited[Mapping[int, int] | None], kitty_keyboard: Cited[bool],
             colours: Cited[tuple[str | None, str | None]], emulation: Cited[Emulation],
             notes: tuple[Note, ...] = ()) -> Profile:
    """A profile from its cited facts (one keyword for each of :data:`FACTS`,
    ``colours`` being foreground and background): the values go to the
    fields, the sources to ``sources``, in :data:`FACTS` order."""
    if modes.value is not None and set(MODES) - set(modes.value):
        # A profile is written once; say which mode it forgot.
        raise ValueError(f"{name}: mode states missing for "
                         f"{sorted(set(MODES) - set(modes.value))}")
    facts: dict[str, Cited[object]] = {
        "term": term, "env": env, "da1": da1, "da2": da2, "da3": da3, "xtversion": xtversion,
        "modes": modes, "kitty_keyboard": kitty_keyboard, "colours": colours,
        "emulation": emulation,
    }
    sources = {fact: cited.source for fact, cited in facts.items()}
    sources.update((note[0], note[1].source) for note in notes if not isinstance(note, str))
    foreground, background = colours.value
    return Profile(
        name=name, description=description, term=term.value, env=env.value, da1=da1.value,
        da2=da2.value, da3=da3.value, xtversion=xtversion.value, modes=modes.value,
        kitty_keyboard=kitty_keyboard.value, foreground=foreground, background=background,
        emulation=emulation.value, sources=sources,
        notes=tuple(note if isinstance(note, str) else note[1].value for note in notes),
    )


# -- xterm: termsim's answers today ------------------------------------------------

XTERM = _profile(
    name="xterm",
    description=f"xterm patch {XTERM_PATCH}, as termsim answers by default",
    term=Cited("xterm-256color",
               "termsim live/session.py Session.__init__ (term='xterm-256color'): "
               "termsim's default TERM"),
    env=Cited({}, "termsim sets no variable besides TERM. Real xterm also exports "
                  "XTERM_VERSION, XTERM_SHELL, XTERM_LOCALE and WINDOWID (main.c): left "
                  "out, so that the default profile changes nothing"),
    da1=Cited("\x1b[?62;22c",
              "termsim emulator/answers/queries.py KINDS['da1']. Real xterm's DA1 follows "
              "its decTerminalID resource (VT420 by default) and lists more extensions: "
              "ctlseqs, 'CSI Ps c'"),
    da2=Cited(f"\x1b[>41;{XTERM_PATCH};0c",
              "termsim emulator/answers/queries.py KINDS['da2'] (XTERM_PATCH): VT420 (41), "
              "the patch, ROM 0, as xterm's charproc.c does for decTerminalID=420"),
    da3=Cited(None, "termsim emulator/answers/queries.py KINDS['da3'] (_no_answer). Real "
                    "xterm answers DECRPTUI (DCS ! | 00000000 ST): ctlseqs, 'CSI = Ps c'"),
    xtversion=Cited(f"\x1bP>|XTerm({XTERM_PATCH})\x1b\\",
                    "termsim emulator/answers/queries.py _xtversion"),
    modes=Cited({1004: 2, 1006: 2, 1016: 0, 1049: 2, 2004: 2, 2026: 2, 2027: 4, 2031: 0,
                 2048: 4},
                "termsim emulator/answers/queries.py MODE_REPORTS on a fresh screen: "
                "tracked modes reset, 2027/2048 permanently reset "
                "(UNOFFERED_PRIVATE_MODES), 1016/2031 not known. Real xterm 398 knows "
                "1016: ptyx.h srm_PIXEL_POSITION_MOUSE"),
    kitty_keyboard=Cited(False, "termsim emulator/answers/queries.py KINDS['kitty-keyboard'] "
                                "(_no_answer): xterm has no kitty keyboard protocol (it has "
                                "modifyOtherKeys)"),
    colours=Cited((FOREGROUND, BACKGROUND),
                  "termsim emulator/answers/queries.py FOREGROUND, BACKGROUND (white on "
                  "black)"),
    emulation=_emulation("termsim emulator/terminals/emulation.py Emulation() defaults: "
                         "xterm's choices"),
)

# -- kitty 0.48.2 ---------------------------------------------------------------------
# Read in kovidgoyal/kitty at tag v0.48.2 (2026-07-30).

KITTY_VERSION = "0.48.2"
_KITTY_MAJOR, _KITTY_MINOR = (int(part) for part in KITTY_VERSION.split(".")[:2])

KITTY = _profile(
    name="kitty",
    description=f"kitty {KITTY_VERSION}: kitty keyboard protocol, grapheme clusters, reflow",
    term=Cited("xterm-kitty",
               "kitty v0.48.2 kitty/options/definition.py opt('term'); kitty/child.py "
               "Child.final_env sets env['TERM'] = opts.term. Needs the xterm-kitty "
               "terminfo entry (ncurses-term ships it; kitty sets TERMINFO to its own)"),
    env=Cited({"COLORTERM": "truecolor", "KITTY_WINDOW_ID": "1"},
              "kitty v0.48.2 kitty/child.py Child.final_env; kitty/tabs.py Tab.launch_child"
              " (KITTY_WINDOW_ID: next_window_id(), 1 for the first window). Also set, left "
              "out: KITTY_PID (a pid that would not exist here), KITTY_PUBLIC_KEY, "
              "KITTY_INSTALLATION_DIR, TERMINFO (paths and keys of an installation: "
              "child.py Child.final_env), WINDOWID (X11 only: tabs.py), KITTY_LISTEN_ON "
              "(remote control only)"),
    da1=Cited("\x1b[?62;52;c",
              "kitty v0.48.2 kitty/window.py da1(); options/definition.py clipboard_control"
              ": '?62;' + '52;' when clipboard_control has write-clipboard (the default) + "
              "'c'. The ';' before 'c' is kitty's"),
    da2=Cited(f"\x1b[>1;{_KITTY_MAJOR + 4000};{_KITTY_MINOR}c",
              "kitty v0.48.2 kitty/screen.c report_device_attributes; setup.py "
              "primary_version/secondary_version: '>1;' PRIMARY_VERSION ';' "
              "SECONDARY_VERSION 'c', primary = major + 4000, secondary = minor"),
    da3=Cited(None, "kitty v0.48.2 kitty/screen.c report_device_attributes (no '=' case): "
                    "it answers only '' and '>'"),
    xtversion=Cited(f"\x1bP>|kitty({KITTY_VERSION})\x1b\\",
                    "kitty v0.48.2 kitty/screen.c screen_xtversion: DCS '>|kitty(' "
                    "XT_VERSION ')' ST"),
    modes=Cited({1004: 2, 1006: 2, 1016: 2, 1049: 2, 2004: 2, 2026: 2, 2027: 0, 2031: 2,
                 2048: 2},
                "kitty v0.48.2 kitty/screen.c report_mode_status; kitty/modes.h: 2026 is "
                "PENDING_UPDATE, 2031 COLOR_PREFERENCE_NOTIFICATION, 2048 "
                "INBAND_RESIZE_NOTIFICATION, 1016 MOUSE_SGR_PIXEL_MODE; 2027 is not among "
                "them (0), though kitty segments graphemes always (see emulation)"),
    kitty_keyboard=Cited(True, "kitty v0.48.2 kitty/vt-parser.c; screen.c "
                               "screen_report_key_encoding_flags; "
                               "https://sw.kovidgoyal.net/kitty/keyboard-protocol/: CSI 'u' "
                               "with '?' is answered CSI ? flags u"),
    colours=Cited(("rgb:dddd/dddd/dddd", "rgb:0000/0000/0000"),
                  "kitty v0.48.2 kitty/options/definition.py foreground/background; "
                  "kitty/window.py Window.report_color: opt('foreground', '#dddddd'), "
                  "opt('background', '#000000'); replies rgb:rrrr/gggg/bbbb (16 bits), "
                  "always ended by ST"),
    emulation=_emulation(
        "kitty v0.48.2 kitty/screen.c screen_cursor_move; docs/changelog.rst 0.42.0 "
        "(grapheme segmentation); kitty 9475a58f kitty/screen.c screen_insert_lines, "
        "screen_linefeed, set_mode_from_const",
        backspace_at_wrap=Cited("tmux", "screen.c screen_cursor_move: the cursor sits past "
                                        "the last column after drawing there, and BS moves "
                                        "from there to the last column, as in tmux"),
        graphemes=Cited(True, "docs/changelog.rst 0.42.0: 'kitty does full grapheme "
                              "segmentation following the Unicode 16 spec when splitting "
                              "text into cells'"),
        reflow=Cited(True, "kitty rewraps lines on resize (screen.c screen_resize, rewrap)"),
        keys=Cited("kitty", "key_encoding.c encode_key: with no flags, a printable key "
                            "encode_printable_ascii_key_legacy cannot spell (ctrl+shift+a) "
                            "falls through to serialize(..., 'u'); kitty_tests/keys.py "
                            "asserts ctrl+shift+i -> CSI 105;6u with no flags"),
        lines_home=Cited(True, "screen.c screen_insert_lines/screen_delete_lines end with "
                               "screen_carriage_return (kitty has no left and right "
                               "margins)"),
        linefeed_at_wrap=Cited("xterm", "screen.c screen_linefeed -> screen_ensure_bounds "
                                        "clamps x: a line feed ends a pending wrap (IND on "
                                        "the bottom margin keeps it: its INDEX_UP leaves x "
                                        "alone, a case termsim draws as xterm does)"),
        alternate_cursor=Cited(False, "screen.c set_mode_from_const: 1049 switches only "
                                      "when the buffer changes; nothing is restored on the "
                                      "main screen"),
        column_mode=Cited("clear", "screen.c set_mode_from_const case DECCOLM: ?3h clears "
                                   "and homes (?3l only clears the flag; termsim clears on "
                                   "both)"),
    ),
)

# -- Ghostty 1.3.1 --------------------------------------------------------------------
# Read in ghostty-org/ghostty at tag v1.3.1 (2026-03-13).

GHOSTTY_VERSION = "1.3.1"

GHOSTTY = _profile(
    name="ghostty",
    description=f"Ghostty {GHOSTTY_VERSION}: kitty keyboard protocol, mode 2027 set",
    term=Cited("xterm-ghostty",
               "ghostty v1.3.1 src/config/Config.zig term; src/termio/Exec.zig: "
               "'xterm-ghostty' when its resources dir (and terminfo) is found, else "
               "xterm-256color"),
    env=Cited({"COLORTERM": "truecolor", "TERM_PROGRAM": "ghostty",
               "TERM_PROGRAM_VERSION": GHOSTTY_VERSION},
              "ghostty v1.3.1 src/termio/Exec.zig (TERM_PROGRAM_VERSION: "
              "build_config.version_string). Also set, left out: GHOSTTY_RESOURCES_DIR, "
              "TERMINFO, GHOSTTY_BIN_DIR (paths of an installation), "
              "GHOSTTY_SHELL_FEATURES (shell integration)"),
    da1=Cited("\x1b[?62;22;52c",
              "ghostty v1.3.1 src/termio/stream_handler.zig deviceAttributes: .primary "
              "with clipboard-write allowed (the default)"),
    da2=Cited("\x1b[>1;10;0c",
              "ghostty v1.3.1 src/termio/stream_handler.zig deviceAttributes (.secondary)"),
    da3=Cited(None, "ghostty v1.3.1 src/termio/stream_handler.zig deviceAttributes (else: "
                    "unimplemented): other requests are logged, not answered"),
    xtversion=Cited(f"\x1bP>|ghostty {GHOSTTY_VERSION}\x1b\\",
                    "ghostty v1.3.1 src/termio/stream_handler.zig reportXtversion: "
                    "'ghostty ' + version"),
    modes=Cited({1004: 2, 1006: 2, 1016: 2, 1049: 2, 2004: 2, 2026: 2, 2027: 1, 2031: 2,
                 2048: 2},
                "ghostty v1.3.1 src/terminal/modes.zig; src/termio/stream_handler.zig "
                "requestMode; src/termio/Termio.zig init (2027): every mode listed, "
                "defaults off for these; requestMode answers 1/2, requestModeUnknown 0. "
                "2027 is set at start: grapheme-width-method = unicode (the default in "
                "Config.zig)"),
    kitty_keyboard=Cited(True, "ghostty v1.3.1 src/termio/stream_handler.zig "
                               "queryKittyKeyboard (.kitty_keyboard_query)"),
    colours=Cited(("rgb:ffff/ffff/ffff", "rgb:2828/2c2c/3434"),
                  "ghostty v1.3.1 src/config/Config.zig foreground/background; "
                  "stream_handler.zig colour reports: foreground 0xFFFFFF, background "
                  "0x282C34, in 16-bit components (osc-color-report-format = 16-bit, the "
                  "default)"),
    emulation=_emulation(
        "ghostty v1.3.1 src/terminal/Terminal.zig cursorLeft; src/termio/Termio.zig "
        "(grapheme-width-method); ghostty 3b9c4e0d Terminal.zig insertLines, index, "
        "switchScreenMode, deccolm",
        backspace_at_wrap=Cited("xterm", "Terminal.zig cursorLeft: the cursor stays on the "
                                         "last column with pending_wrap, BS goes one left "
                                         "of it, as xterm"),
        graphemes=Cited(True, "mode 2027 on by default (modes)"),
        reflow=Cited(True, "Ghostty rewraps on resize (src/terminal/PageList.zig resize, "
                           "reflow)"),
        lines_home=Cited(True, "as xterm (read at 3b9c4e0d): Terminal.zig "
                               "insertLines/deleteLines go to the left margin"),
        linefeed_at_wrap=Cited("xterm", "as xterm: index() clears pending_wrap"),
        alternate_cursor=Cited(True, "as xterm: switchScreenMode 1049 off always "
                                     "restoreCursor()"),
        column_mode=Cited("ignore", "as xterm: deccolm returns early unless mode 40 is set "
                                    "(off by default)"),
        invalid_utf8=Cited("unicode", "one U+FFFD per maximal subpart of bytes that are not "
                                      "UTF-8, as the Unicode Standard recommends "
                                      "(src/terminal/stream.zig's UTF-8 decoder; "
                                      "tests/test_ghostty_oracle.py agrees on the grammar)"),
    ),
)

# -- WezTerm 20240203-110809-5046fc22 -------------------------------------------------
# Read in wezterm/wezterm at tag 20240203-110809-5046fc22, its latest release.

WEZTERM_VERSION = "20240203-110809-5046fc22"

WEZTERM = _profile(
    name="wezterm",
    description=f"WezTerm {WEZTERM_VERSION}: VT525 DA1, mode 2027 permanently set",
    term=Cited("xterm-256color",
               "wezterm 20240203-110809-5046fc22 config/src/config.rs default_term"),
    env=Cited({"COLORTERM": "truecolor", "TERM_PROGRAM": "WezTerm",
               "TERM_PROGRAM_VERSION": WEZTERM_VERSION, "WEZTERM_PANE": "0"},
              "wezterm 20240203-110809-5046fc22 config/src/config.rs apply_cmd_defaults; "
              "mux/src/domain.rs (WEZTERM_PANE): TERM_PROGRAM_VERSION is "
              "crate::wezterm_version(), WEZTERM_PANE LocalDomain's pane id, 0 for the "
              "first pane. Also set, left out: WEZTERM_UNIX_SOCKET, WEZTERM_EXECUTABLE, "
              "WEZTERM_CONFIG_FILE/DIR (paths of an installation)"),
    da1=Cited("\x1b[?65;4;6;18;22c",
              "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
              "RequestPrimaryDeviceAttributes (perform_device)"),
    da2=Cited("\x1b[>1;277;0c",
              "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
              "RequestSecondaryDeviceAttributes: xterm patch 277 (SGR mouse)"),
    da3=Cited("\x1bP!|00000000\x1b\\",
              "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
              "RequestTertiaryDeviceAttributes"),
    xtversion=Cited(f"\x1bP>|WezTerm {WEZTERM_VERSION}\x1b\\",
                    "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
                    "RequestTerminalNameAndVersion: term_program ' ' term_version"),
    modes=Cited({1004: 2, 1006: 2, 1016: 2, 1049: 0, 2004: 2, 2026: 2, 2027: 3, 2031: 0,
                 2048: 0},
                "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
                "perform_csi_mode, decqrm_response; termwiz/src/escape/csi.rs: 2027 is "
                "decqrm_response_permanent (3); 1049 has no query arm and falls to the "
                "catch-all (0); 2031 and 2048 are not in termwiz's DecPrivateModeCode (0); "
                "2026 is reported reset ('handled in the mux')"),
    kitty_keyboard=Cited(False, "wezterm 20240203-110809-5046fc22 term/src/terminalstate/"
                                "performer.rs QueryKittySupport; config "
                                "enable_kitty_keyboard=false: answered only when "
                                "enable_kitty_keyboard, false by default "
                                "(config/src/config.rs)"),
    colours=Cited(("rgb:b2b2/b2b2/b2b2", "rgb:0000/0000/0000"),
                  "wezterm 20240203-110809-5046fc22 term/src/color.rs "
                  "ColorPalette::default: foreground colors[249] (Grey70, #b2b2b2), "
                  "background black #000000; replies are 16-bit (color-types "
                  "to_x11_16bit_rgb_string)"),
    emulation=_emulation(
        "wezterm 20240203-110809-5046fc22 term/src/terminalstate/performer.rs "
        "ControlCode::Backspace; mod.rs GraphemeClustering; wezterm ee0c04e7 mod.rs "
        "Edit::InsertLine, new_line, DECCOLM",
        backspace_at_wrap=Cited("xterm", "performer.rs ControlCode::Backspace: the cursor "
                                         "stays on the last column with wrap_next, BS goes "
                                         "left of it"),
        graphemes=Cited(True, "2027 permanently set (modes)"),
        reflow=Cited(True, "WezTerm rewraps on resize (term/src/screen.rs resize, "
                           "rewrap_lines)"),
        lines_home=Cited(False, "read at ee0c04e7: terminalstate/mod.rs "
                                "Edit::InsertLine/DeleteLine only scroll (the column "
                                "stays)"),
        linefeed_at_wrap=Cited("xterm", "a line feed goes through "
                                        "set_cursor_position_absolute, which clears "
                                        "wrap_next (IND on the bottom margin keeps it)"),
        alternate_cursor=Cited(False, "the 1049 reset acts only on the alternate screen"),
        column_mode=Cited("clear", "DECCOLM always resets the margins, homes and erases"),
    ),
)

# -- tmux 3.7c ------------------------------------------------------------------------
# Read in tmux/tmux at tag 3.7c (2026-07-23); DA1, DA2 and XTVERSION's form
# are the same in 3.3a (checked there too, and against the tmux installed,
# by tests/test_profiles.py). DECRQM is answered from 3.6, 2026 from 3.7.

TMUX_VERSION = "3.7c"

TMUX = _profile(
    name="tmux",
    description=f"inside tmux {TMUX_VERSION}: tmux answers for the pane, TERM=tmux-256color",
    term=Cited("tmux-256color",
               "tmux 3.7c options-table.c default-terminal; configure.ac DEFAULT_TERM: "
               "TMUX_TERM, tmux-256color when that terminfo entry exists at build time, "
               "else screen"),
    env=Cited({"TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": TMUX_VERSION,
               "COLORTERM": "truecolor", "TMUX": "/tmp/tmux-1000/default,1,0",
               "TMUX_PANE": "%0"},
              "tmux 3.7c environ.c environ_for_session; spawn.c spawn_pane (TMUX_PANE): "
              "TERM_PROGRAM_VERSION is getversion(); COLORTERM is set from tmux 3.6 "
              "(3.5a's environ.c has none); TMUX is the socket path, server pid and "
              "session id (here the default socket's for uid 1000, the pid a "
              "placeholder); TMUX_PANE is '%' and the pane id"),
    da1=Cited("\x1b[?1;2c",
              "tmux 3.7c input.c input_csi_dispatch INPUT_CSI_DA ('?1;2;4c' when built "
              "with --enable-sixel, off by default: configure.ac)"),
    da2=Cited("\x1b[>84;0;0c", "tmux 3.7c input.c input_csi_dispatch INPUT_CSI_DA_TWO"),
    da3=Cited(None, "tmux 3.7c input.c input_csi_table (no '=' c entry)"),
    xtversion=Cited(f"\x1bP>|tmux {TMUX_VERSION}\x1b\\",
                    "tmux 3.7c input.c input_csi_dispatch INPUT_CSI_XDA: DCS '>|tmux ' "
                    "getversion() ST"),
    modes=Cited({1004: 2, 1006: 2, 1016: 0, 1049: 2, 2004: 2, 2026: 2, 2027: 0, 2031: 2,
                 2048: 0},
                "tmux 3.7c input.c input_csi_dispatch INPUT_CSI_QUERY_PRIVATE: 1004, 1006, "
                "1049, 2004, 2026, 2031 tracked (all reset at start); others, "
                "1016/2027/2048 among them, 0"),
    kitty_keyboard=Cited(False, "tmux 3.7c input.c input_csi_table (no '?' u entry): 'u' "
                                "only without a private marker (RCP); CSI ? u is ignored, "
                                "never passed to the outer terminal"),
    colours=Cited((FOREGROUND, BACKGROUND),
                  "tmux 3.7c input.c input_osc_10/input_osc_11; window.c "
                  "window_pane_get_bg: tmux answers from the colours it learnt from its "
                  "client's (outer) terminal (window_pane_get_fg/bg), nothing when it "
                  "knows none. Taken here as termsim's xterm, the outer terminal a test "
                  "would have"),
    emulation=_emulation(
        "termsim emulation.py (tmux), tests/tmux_pane.py; tmux grid.c grid_reflow; tmux "
        "c1f947a3 screen-write.c screen_write_insertline, screen_write_linefeed; screen.c "
        "screen_alternate_off; input.c input_csi_dispatch_sm_private",
        backspace_at_wrap=Cited("tmux", "the cursor sits past the last column while a wrap "
                                        "is pending (tests/tmux_pane.py, emulation.py): BS "
                                        "goes to the last column"),
        graphemes=Cited(False, "each code point its own width (emulation.py; checked "
                               "against tmux 3.3a by the differential tests). tmux 3.6 "
                               "CHANGES: better regional indicators and emoji modifiers, "
                               "not clusters in one cell (unverified)"),
        reflow=Cited(True, "tmux rewraps on resize (grid.c grid_reflow)"),
        linefeed_at_wrap=Cited("tmux", "the wrap stays pending past a line feed: the cursor "
                                       "is past the last column (cx == sx), and "
                                       "screen-write.c screen_write_linefeed moves it down "
                                       "with x left alone (the tmux differential tests "
                                       "agree)"),
        lines_home=Cited(False, "input.c INPUT_CSI_IL/DL call "
                                "screen_write_insertline/deleteline, which do not move the "
                                "cursor's column"),
        alternate_cursor=Cited(False, "screen.c screen_alternate_off restores the cursor "
                                      "only from what screen_alternate_on saved; "
                                      "screen_alternate_on returns at once on the "
                                      "alternate screen"),
        column_mode=Cited("clear", "input.c input_csi_dispatch_sm_private/_rm_private case "
                                   "3: screen_write_cursormove(0, 0) and "
                                   "screen_write_clearscreen, both ways (tmux keeps the "
                                   "width)"),
    ),
    notes=(
        "tmux answers DA1, DA2, XTVERSION, DECRQM and OSC 10/11 itself; a query is "
        "never passed to the outer terminal",
        ("passthrough",
         Cited("only DCS tmux; <ESC-doubled sequence> ST reaches the outer terminal, and "
               "only with allow-passthrough on (off by default)",
               "tmux 3.7c input.c input_dcs_dispatch (DCS tmux; passthrough, "
               "allow-passthrough option)")),
        "tmux before 3.6 answers no DECRQM at all",
    ),
)

# -- VS Code (xterm.js) ---------------------------------------------------------------
# xterm.js read in xtermjs/xterm.js at master 904ae935 (2026-07-26), whose
# src/common/Version.ts says 6.0.0: VS Code bundles the 6.1.0 betas built
# from master (bin/publish.js writes the beta's version into Version.ts).
# VS Code itself read in microsoft/vscode (stored files, no one release).

XTERMJS_VERSION = "6.0.0"

VSCODE = _profile(
    name="vscode",
    description="VS Code's terminal (xterm.js master): kitty keyboard protocol on",
    term=Cited("xterm-256color",
               "vscode src/vs/platform/terminal/node/terminalProcess.ts TerminalProcess "
               "(node-pty name), on Linux and macOS"),
    env=Cited({"TERM_PROGRAM": "vscode", "COLORTERM": "truecolor"},
              "vscode src/vs/workbench/contrib/terminal/common/terminalEnvironment.ts "
              "addTerminalEnvironmentKeys. TERM_PROGRAM_VERSION (VS Code's version) is "
              "set too; left out: no release's version could be established"),
    da1=Cited("\x1b[?1;2c",
              "xterm.js 904ae935 src/common/InputHandler.ts sendDeviceAttributesPrimary: "
              "termName 'xterm'"),
    da2=Cited("\x1b[>0;276;0c",
              "xterm.js 904ae935 src/common/InputHandler.ts sendDeviceAttributesSecondary: "
              "termName 'xterm'"),
    da3=Cited(None, "xterm.js 904ae935 src/common/InputHandler.ts (no '=' c handler)"),
    xtversion=Cited(f"\x1bP>|xterm.js({XTERMJS_VERSION})\x1b\\",
                    "xterm.js 904ae935 src/common/InputHandler.ts sendXtVersion; "
                    "src/common/Version.ts: 'xterm.js(' XTERM_VERSION ')', on master since "
                    "commit d8a93b7 (2025-12-26); the version is master's Version.ts, a "
                    "published beta answers its own"),
    modes=Cited({1004: 2, 1006: 2, 1016: 2, 1049: 2, 2004: 2, 2026: 2, 2027: 0, 2031: 0,
                 2048: 0},
                "xterm.js 904ae935 src/common/InputHandler.ts requestMode: "
                "1004/1006/1016/1049/2004/2026 tracked, everything else NOT_RECOGNIZED"),
    kitty_keyboard=Cited(True, "xterm.js 904ae935 InputHandler.ts kittyKeyboardQuery; vscode "
                               "xtermTerminal.ts vtExtensions; microsoft/vscode#294651: "
                               "answered when vtExtensions.kittyKeyboard, which VS Code "
                               "takes from terminal.integrated.enableKittyKeyboardProtocol, "
                               "default true since that pull request "
                               "(terminalConfiguration.ts)"),
    colours=Cited(("rgb:cccc/cccc/cccc", "rgb:1818/1818/1818"),
                  "vscode extensions/theme-defaults/themes/dark_modern.json; xterm.js "
                  "src/common/input/XParseColor.ts toRgbString: the default theme, Dark "
                  "Modern, has terminal.foreground #CCCCCC and no terminal.background, so "
                  "the panel's #181818 (xtermTerminal.ts getXtermTheme); a terminal in the "
                  "editor area takes editor.background instead. Replies are 16-bit"),
    emulation=_emulation(
        "xterm.js 904ae935 src/common/InputHandler.ts backspace, insertLines, lineFeed, "
        "resetModePrivate (1049), DECCOLM",
        backspace_at_wrap=Cited("xterm", "InputHandler.ts backspace: _restrictCursor() "
                                         "brings x from cols (pending wrap) to cols-1 "
                                         "first, then x--: as xterm"),
        graphemes=Cited(False, "width per code point (unicode11 addon in VS Code); no 2027"),
        reflow=Cited(True, "xterm.js rewraps on resize (src/common/buffer/Buffer.ts "
                           "_reflow)"),
        lines_home=Cited(True, "as xterm, read at 904ae935: InputHandler.ts "
                               "insertLines/deleteLines set x = 0"),
        linefeed_at_wrap=Cited("xterm", "as xterm: lineFeed and index() bring x back from "
                                        "cols"),
        alternate_cursor=Cited(True, "as xterm: the 1049 reset calls restoreCursor() (home "
                                     "with nothing saved)"),
        column_mode=Cited("ignore", "DECCOLM acts only with windowOptions.setWinLines, "
                                    "which VS Code does not set"),
    ),
)

# -- Windows Terminal 1.24 ------------------------------------------------------------
# Read in microsoft/terminal at tag v1.24.11911.0 (stable; 1.25 is the
# preview, and adds the kitty keyboard protocol: adaptDispatch.cpp).

WINDOWS_TERMINAL = _profile(
    name="windows-terminal",
    description="Windows Terminal 1.24 (a program in WSL): VT level 1 DA, DA3, mode 2027",
    term=Cited("xterm-256color",
               "unverified: set by WSL (or the program's host), not by Windows Terminal; "
               "WSL's programs get xterm-256color (no WSL source read)"),
    env=Cited({"WT_SESSION": "00000000-0000-0000-0000-000000000000",
               "WT_PROFILE_ID": "{61c54bbd-c2c6-5271-96e7-009a87ff44bf}"},
              "terminal v1.24.11911.0 src/cascadia/TerminalConnection/ConptyConnection.cpp; "
              "TerminalSettingsModel/defaults.json (profile GUID): WT_SESSION is the "
              "session's GUID without braces (a new one each session; this one a "
              "placeholder), WT_PROFILE_ID the profile's with braces (the default "
              "'Windows PowerShell' profile's). Both are added to WSLENV so that WSL's "
              "programs see them"),
    da1=Cited("\x1b[?61;4;6;7;14;21;22;23;24;28;32;42;52c",
              "terminal v1.24.11911.0 src/terminal/adapter/adaptDispatch.cpp "
              "DeviceAttributes; MTSMSettings.h compatibility.allowOSC52: with "
              "ClipboardWrite (allowOSC52 is true by default)"),
    da2=Cited("\x1b[>0;10;1c",
              "terminal v1.24.11911.0 adaptDispatch.cpp SecondaryDeviceAttributes"),
    da3=Cited("\x1bP!|00000000\x1b\\",
              "terminal v1.24.11911.0 adaptDispatch.cpp TertiaryDeviceAttributes"),
    xtversion=Cited(None, "terminal v1.24.11911.0 src/terminal (no XTVERSION handler) in the "
                          "adapter or the parser"),
    modes=Cited({1004: 2, 1006: 2, 1016: 0, 1049: 2, 2004: 2, 2026: 2, 2027: 3, 2031: 0,
                 2048: 0},
                "terminal v1.24.11911.0 adaptDispatch.cpp RequestMode; DispatchTypes.hpp: "
                "no 1016, 2031 or 2048 there (0); 2027 is mapPerm(text measurement is "
                "graphemes, the default: TerminalControl/EventArgs.idl TextMeasurement) "
                "-> 3"),
    kitty_keyboard=Cited(False, "terminal v1.24.11911.0 (none); v1.25.1912.0 "
                                "adaptDispatch.cpp adds it"),
    colours=Cited(("rgb:cccc/cccc/cccc", "rgb:0c0c/0c0c/0c0c"),
                  "terminal v1.24.11911.0 TerminalSettingsModel/defaults.json Campbell: "
                  "foreground #CCCCCC, background #0C0C0C; adaptDispatch.cpp replies "
                  "16-bit"),
    emulation=_emulation(
        "terminal v1.24.11911.0 adaptDispatch.cpp (IsDelayedEOLWrap, "
        "GCM_GraphemeClusterMode); textBuffer.cpp Reflow; terminal 20588130 "
        "adaptDispatch.cpp _InsertDeleteLineHelper, _DoLineFeed, "
        "_SetAlternateScreenBufferMode, _SetColumnMode",
        backspace_at_wrap=Cited("xterm", "adaptDispatch.cpp: the cursor keeps a delayed EOL "
                                         "wrap flag on the last column (Cursor "
                                         "IsDelayedEOLWrap), as xterm"),
        graphemes=Cited(True, "text measurement 'graphemes' by default (modes)"),
        reflow=Cited(True, "src/buffer/out/textBuffer.cpp TextBuffer::Reflow"),
        lines_home=Cited(True, "as xterm, read at 20588130: adaptDispatch.cpp "
                               "_InsertDeleteLineHelper goes to the left margin"),
        linefeed_at_wrap=Cited("xterm", "as xterm: _DoLineFeed's SetPosition resets the "
                                        "delayed wrap"),
        alternate_cursor=Cited(True, "as xterm: leaving the alternate buffer always "
                                     "CursorRestoreState"),
        column_mode=Cited("ignore", "as xterm: _SetColumnMode is gated on AllowDECCOLM "
                                    "(mode 40, off by default)"),
    ),
    notes=(
        "between the program and Windows Terminal sits ConPTY (conhost), which runs the "
        "same src/terminal/adapter code; which of the two answers a query was not checked",
    ),
)

# -- Apple Terminal -------------------------------------------------------------------
# No source is public. Measured by others: jquast/ucs-detect
# data/macos-Terminal-2.15.yaml (Terminal 2.15, build 464, 2025-10-29).

APPLE_TERMINAL = _profile(
    name="apple-terminal",
    description="macOS Terminal.app 2.15 (unverified: no public source): VT100 DA, no DECRQM",
    term=Cited("xterm-256color",
               "unverified: jquast/ucs-detect data/macos-Terminal-2.15.yaml (ttype): the "
               "default profile's 'Declare terminal as'"),
    env=Cited({"TERM_PROGRAM": "Apple_Terminal"},
              "unverified: TERM_PROGRAM=Apple_Terminal as programs test for it. "
              "TERM_PROGRAM_VERSION and TERM_SESSION_ID are set too; left out, their "
              "values could not be established"),
    da1=Cited("\x1b[?1;2c",
              "unverified: jquast/ucs-detect data/macos-Terminal-2.15.yaml "
              "device_attributes: service_class 1, extensions [2]"),
    da2=Cited("\x1b[>1;95;0c",
              "unverified: vim src/term.c handle_version_response comment: 'Mac "
              "Terminal.app sends 1;95;0'"),
    da3=Cited(None, "unknown: not established"),
    xtversion=Cited(None, "unknown: not established (taken as not answered)"),
    modes=Cited(None, "unverified: jquast/ucs-detect data/macos-Terminal-2.15.yaml (modes: "
                      "{}): no DECRQM answered"),
    kitty_keyboard=Cited(False, "unverified: not in ucs-detect's results"),
    colours=Cited((None, None), "unknown: whether and what OSC 10/11 answer was not "
                                "established"),
    emulation=_emulation("unknown: xterm's defaults"),
)

# -- the Linux console ----------------------------------------------------------------

LINUX = _profile(
    name="linux",
    description="the Linux virtual console: DA1 only (VT102), no DECRQM, no colours",
    term=Cited("linux", "console_codes(4); agetty sets TERM=linux on a virtual console"),
    env=Cited({}, "the console sets no variable"),
    da1=Cited("\x1b[?6c", "linux drivers/tty/vt/vt.c respond_ID: VT102, on ESC Z or CSI c"),
    da2=Cited(None, "linux drivers/tty/vt/vt.c do_con_trol (vc_priv != EPecma: ignored): "
                    "ESgetpars ends a sequence with a private marker other than '?' ('>' "
                    "'=') unanswered"),
    da3=Cited(None, "linux drivers/tty/vt/vt.c do_con_trol (vc_priv != EPecma: ignored), "
                    "as DA2"),
    xtversion=Cited(None, "linux drivers/tty/vt/vt.c do_con_trol (vc_priv != EPecma: "
                          "ignored): CSI > q likewise"),
    modes=Cited(None, "linux drivers/tty/vt/vt.c do_con_trol (intermediates: EScsiignore): "
                      "a CSI with '$' is ignored, no DECRQM"),
    kitty_keyboard=Cited(False, "linux drivers/tty/vt/vt.c (no CSI ? u)"),
    colours=Cited((None, None), "linux drivers/tty/vt/vt.c do_con_trol ESosc (P and R "
                                "only): OSC P sets the palette, OSC R resets it; no colour "
                                "queries"),
    emulation=_emulation(
        "linux drivers/tty/vt/vt.c vc_need_wrap, lf, csi_L, csi_M, leave_alt_screen, "
        "csi_DEC_hl; vc_do_resize",
        backspace_at_wrap=Cited("xterm", "vt.c keeps vc_need_wrap with the cursor on the "
                                         "last column, as xterm"),
        linefeed_at_wrap=Cited("xterm", "lf() clears vc_need_wrap"),
        reflow=Cited(False, "vc_do_resize does not rewrap"),
        graphemes=Cited(False, "one cell per code point"),
        lines_home=Cited(False, "csi_L/csi_M only scroll (the column stays)"),
        alternate_cursor=Cited(False, "leave_alt_screen returns at once with nothing saved "
                                      "(older kernels ignore 1049)"),
        column_mode=Cited("ignore", "the 132-column mode is 'unimplemented' (#if 0 in "
                                    "csi_DEC_hl)"),
    ),
)

# -- dumb -----------------------------------------------------------------------------

_NOTHING = "a dumb terminal answers nothing"

DUMB = _profile(
    name="dumb",
    description="TERM=dumb: a terminal that answers nothing (Emacs shell, CI logs)",
    term=Cited("dumb", "terminfo(5) 'dumb': no cursor addressing, no queries"),
    env=Cited({}, _NOTHING),
    da1=Cited(None, _NOTHING),
    da2=Cited(None, _NOTHING),
    da3=Cited(None, _NOTHING),
    xtversion=Cited(None, _NOTHING),
    modes=Cited(None, _NOTHING),
    kitty_keyboard=Cited(False, _NOTHING),
    colours=Cited((None, None), _NOTHING),
    emulation=_emulation(_NOTHING),
)

#: Every profile, by name; ``xterm`` is the default.
PROFILES: Mapping[str, Profile] = MappingProxyType({
    profile.name: profile
    for profile in (XTERM, KITTY, GHOSTTY, WEZTERM, TMUX, VSCODE, WINDOWS_TERMINAL,
                    APPLE_TERMINAL, LINUX, DUMB)
})

#: Every variable some profile sets: what the wiring removes from an
#: inherited environment (the terminal the tests run in) before adding a
#: profile's own, so that a kitty running the tests does not leak
#: ``KITTY_WINDOW_ID`` into a ``vscode`` run.
TERMINAL_VARIABLES: frozenset[str] = frozenset(
    {"TERM"} | {name for profile in PROFILES.values() for name in profile.env}
)


def profile_named(profile: str | Profile) -> Profile:
    """The profile called ``profile`` (a :class:`Profile` as it is), or a
    clear error naming the profiles there are."""
    if isinstance(profile, Profile):
        return profile
    found = PROFILES.get(profile)
    if found is None:
        raise ArgumentError(f"no terminal profile {profile!r}; there are: "
                            f"{', '.join(PROFILES)} (termsim profiles says how they differ)")
    return found
