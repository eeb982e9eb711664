"""Terminal profiles: what each real terminal answers, as data.

A program changes what it does with the terminal it detects: from ``TERM``
and ``TERM_PROGRAM``, its answers to DA1/DA2/DA3 and XTVERSION, DECRQM of
the modes it wants (2026 synchronized output, 2027 grapheme clustering...),
``CSI ? u`` (the kitty keyboard protocol) and OSC 10/11 (dark or light). A
:class:`Profile` holds those facts for one terminal, each with the place it
was read from: a comment next to the value, and the same citation in
``sources`` (fact -> source), for a listing or a test to show.

How the facts were established
    From each terminal's own source, at the release named in its profile
    (the version an answer contains is that release's, never a made-up
    one): kitty, Ghostty, WezTerm, tmux, xterm.js (VS Code), Windows
    Terminal and the Linux console. Apple's Terminal has no public source:
    its facts come from third-party measurements and are marked
    ``unverified``; what could not be established is ``None`` (not
    answered), and the comment says so.

What the fields mean
    ``da1``/``da2``/``da3``/``xtversion``: the exact reply, or ``None``
    where the terminal sends nothing. ``modes``: DECRQM's Ps for each of
    :data:`MODES` as the terminal answers right after start-up (0 not
    recognised, 1 set, 2 reset, 3 permanently set, 4 permanently reset);
    ``None`` where DECRQM is not answered at all. ``foreground`` and
    ``background``: OSC 10/11 replies (``rgb:rrrr/gggg/bbbb``, the default
    theme), ``None`` where OSC 10/11 queries are not answered.
    ``emulation``: the choices where terminals draw differently
    (:class:`~termsim.emulator.terminals.emulation.Emulation`).

The ``xterm`` profile is termsim's behaviour today, answer for answer (the
constants of ``queries.py``), so that choosing no profile changes nothing;
where real xterm differs, its comments say so, and
``tests/test_profiles_xterm.py`` asserts each difference against a real
xterm under Xvfb: DA1 (xterm answers as its ``decTerminalID``, a VT420 by
default), DA3 (xterm answers DECRPTUI), the patch number, modes 1016 (xterm
has it), 2026, 2027 and 2048 (xterm answers 0: it has none of them), its
default colours (black on white) and ``TERM=xterm``. How a profile differs
from xterm, in words for people, is :mod:`termsim.report.profile_differences`.

Sans-IO: plain data, nothing read or run at import.

Why one module past 500 lines: it is a table, each fact beside its source;
a module per terminal would scatter what a reader compares side by side.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

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
    #: Fact (one of :data:`FACTS`) -> where it was read (file and function,
    #: or a URL), with "unverified" where no primary source was found.
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


def _modes(states: Mapping[int, int]) -> Mapping[int, int]:
    """A profile's mode table, which must cover every one of :data:`MODES`."""
    missing = set(MODES) - set(states)
    if missing:  # a profile is written once; say which it forgot
        raise ValueError(f"mode states missing for {sorted(missing)}")
    return states


# -- xterm: termsim's answers today ------------------------------------------------

XTERM = Profile(
    name="xterm",
    description=f"xterm patch {XTERM_PATCH}, as termsim answers by default",
    # termsim's default TERM (live/session.py Session.__init__, term=).
    term="xterm-256color",
    # termsim sets no other variable. (Real xterm also exports XTERM_VERSION,
    # XTERM_SHELL, XTERM_LOCALE and WINDOWID: main.c; left out so that the
    # default profile changes nothing.)
    env={},
    # queries.py KINDS["da1"]. Real xterm's DA1 follows its decTerminalID
    # resource (VT420 by default) and lists more extensions: ctlseqs, "CSI Ps c".
    da1="\x1b[?62;22c",
    # queries.py KINDS["da2"]: VT420 (41), the patch, ROM 0; as xterm's
    # charproc.c does for decTerminalID=420.
    da2=f"\x1b[>41;{XTERM_PATCH};0c",
    # queries.py KINDS["da3"] (_no_answer). Real xterm answers DECRPTUI
    # (DCS ! | 00000000 ST): ctlseqs, "CSI = Ps c".
    da3=None,
    # queries.py _xtversion.
    xtversion=f"\x1bP>|XTerm({XTERM_PATCH})\x1b\\",
    # queries.py MODE_REPORTS on a fresh screen: tracked modes reset,
    # 2027/2048 permanently reset (UNOFFERED_PRIVATE_MODES), 1016/2031 not
    # known. (Real xterm 398 knows 1016: ptyx.h srm_PIXEL_POSITION_MOUSE.)
    modes=_modes({1004: 2, 1006: 2, 1016: 0, 1049: 2, 2004: 2, 2026: 2, 2027: 4, 2031: 0,
                  2048: 4}),
    # queries.py KINDS["kitty-keyboard"] (_no_answer); xterm has no kitty
    # keyboard protocol (it has modifyOtherKeys).
    kitty_keyboard=False,
    # queries.py FOREGROUND/BACKGROUND (white on black).
    foreground=FOREGROUND,
    background=BACKGROUND,
    # emulation.py Emulation(): xterm's choices are the defaults.
    emulation=Emulation(),
    sources={
        "term": "termsim live/session.py Session.__init__ (term='xterm-256color')",
        "env": "termsim sets no variable besides TERM",
        "da1": "termsim emulator/answers/queries.py KINDS['da1']",
        "da2": "termsim emulator/answers/queries.py KINDS['da2'] (XTERM_PATCH)",
        "da3": "termsim emulator/answers/queries.py KINDS['da3'] (_no_answer)",
        "xtversion": "termsim emulator/answers/queries.py _xtversion",
        "modes": "termsim emulator/answers/queries.py MODE_REPORTS on a fresh screen",
        "kitty_keyboard":
            "termsim emulator/answers/queries.py KINDS['kitty-keyboard'] (_no_answer)",
        "colours": "termsim emulator/answers/queries.py FOREGROUND, BACKGROUND",
        "emulation": "termsim emulator/terminals/emulation.py Emulation() defaults",
    },
)

# -- kitty 0.48.2 ---------------------------------------------------------------------
# Read in kovidgoyal/kitty at tag v0.48.2 (2026-07-30).

KITTY_VERSION = "0.48.2"
_KITTY_MAJOR, _KITTY_MINOR = (int(part) for part in KITTY_VERSION.split(".")[:2])

KITTY = Profile(
    name="kitty",
    description=f"kitty {KITTY_VERSION}: kitty keyboard protocol, grapheme clusters, reflow",
    # kitty/options/definition.py opt('term', 'xterm-kitty'); kitty/child.py
    # Child.final_env sets env['TERM'] = opts.term. Needs the xterm-kitty
    # terminfo entry (ncurses-term ships it; kitty sets TERMINFO to its own).
    term="xterm-kitty",
    env={
        # kitty/child.py Child.final_env.
        "COLORTERM": "truecolor",
        # kitty/tabs.py Tab.launch_child: next_window_id(), 1 for the first window.
        "KITTY_WINDOW_ID": "1",
        # Also set, left out: KITTY_PID (a pid that would not exist here),
        # KITTY_PUBLIC_KEY, KITTY_INSTALLATION_DIR, TERMINFO (paths and keys
        # of an installation: child.py Child.final_env), WINDOWID (X11 only:
        # tabs.py), KITTY_LISTEN_ON (remote control only).
    },
    # kitty/window.py da1(): '?62;' + '52;' when clipboard_control has
    # write-clipboard (the default: options/definition.py) + 'c'. The ';'
    # before 'c' is kitty's.
    da1="\x1b[?62;52;c",
    # kitty/screen.c report_device_attributes: ">1;" PRIMARY_VERSION ";"
    # SECONDARY_VERSION "c"; setup.py: primary = major + 4000, secondary = minor.
    da2=f"\x1b[>1;{_KITTY_MAJOR + 4000};{_KITTY_MINOR}c",
    # kitty/screen.c report_device_attributes answers only '' and '>'.
    da3=None,
    # kitty/screen.c screen_xtversion: DCS ">|kitty(" XT_VERSION ")" ST.
    xtversion=f"\x1bP>|kitty({KITTY_VERSION})\x1b\\",
    # kitty/screen.c report_mode_status (modes.h numbers): 2026 is
    # PENDING_UPDATE, 2031 COLOR_PREFERENCE_NOTIFICATION, 2048
    # INBAND_RESIZE_NOTIFICATION, 1016 MOUSE_SGR_PIXEL_MODE; 2027 is not
    # among them (0), though kitty segments graphemes always (see emulation).
    modes=_modes({1004: 2, 1006: 2, 1016: 2, 1049: 2, 2004: 2, 2026: 2, 2027: 0, 2031: 2,
                  2048: 2}),
    # kitty/vt-parser.c CSI 'u' with '?' -> screen_report_key_encoding_flags
    # (screen.c): CSI ? flags u. https://sw.kovidgoyal.net/kitty/keyboard-protocol/
    kitty_keyboard=True,
    # kitty/options/definition.py opt('foreground', '#dddddd'),
    # opt('background', '#000000'); window.py Window.report_color replies
    # rgb:rrrr/gggg/bbbb (16 bits), always ended by ST.
    foreground="rgb:dddd/dddd/dddd",
    background="rgb:0000/0000/0000",
    emulation=Emulation(
        # kitty/screen.c screen_cursor_move: the cursor sits past the last
        # column after drawing there, and BS moves from there to the last
        # column, as in tmux (emulation.py).
        backspace_at_wrap="tmux",
        # docs/changelog.rst 0.42.0: "kitty does full grapheme segmentation
        # following the Unicode 16 spec when splitting text into cells".
        graphemes=True,
        # kitty rewraps lines on resize (screen.c screen_resize, rewrap).
        reflow=True,
        # kitty/key_encoding.c encode_key: with no flags, a printable key
        # encode_printable_ascii_key_legacy cannot spell (ctrl+shift+a)
        # falls through to serialize(..., 'u'); kitty_tests/keys.py asserts
        # ctrl+shift+i -> CSI 105;6u with no flags.
        keys="kitty",
        # screen.c screen_insert_lines/screen_delete_lines end with
        # screen_carriage_return (kitty has no left and right margins).
        lines_home=True,
        # screen.c screen_linefeed -> screen_ensure_bounds clamps x: a line
        # feed ends a pending wrap (IND on the bottom margin keeps it: its
        # INDEX_UP leaves x alone, a case termsim draws as xterm does).
        linefeed_at_wrap="xterm",
        # screen.c set_mode_from_const: 1049 switches only when the buffer
        # changes; nothing is restored on the main screen.
        alternate_cursor=False,
        # screen.c set_mode_from_const case DECCOLM: ?3h clears and homes
        # (?3l only clears the flag; termsim clears on both).
        column_mode="clear",
    ),
    sources={
        "term": "kitty v0.48.2 kitty/options/definition.py opt('term'); kitty/child.py "
                "Child.final_env",
        "env": "kitty v0.48.2 kitty/child.py Child.final_env; kitty/tabs.py Tab.launch_child",
        "da1": "kitty v0.48.2 kitty/window.py da1(); options/definition.py clipboard_control",
        "da2": "kitty v0.48.2 kitty/screen.c report_device_attributes; setup.py "
               "primary_version/secondary_version",
        "da3": "kitty v0.48.2 kitty/screen.c report_device_attributes (no '=' case)",
        "xtversion": "kitty v0.48.2 kitty/screen.c screen_xtversion",
        "modes": "kitty v0.48.2 kitty/screen.c report_mode_status; kitty/modes.h",
        "kitty_keyboard": "kitty v0.48.2 kitty/vt-parser.c; screen.c "
                          "screen_report_key_encoding_flags; "
                          "https://sw.kovidgoyal.net/kitty/keyboard-protocol/",
        "colours": "kitty v0.48.2 kitty/options/definition.py foreground/background; "
                   "kitty/window.py Window.report_color",
        "emulation": "kitty v0.48.2 kitty/screen.c screen_cursor_move; docs/changelog.rst "
                     "0.42.0 (grapheme segmentation); kitty 9475a58f kitty/screen.c "
                     "screen_insert_lines, screen_linefeed, set_mode_from_const",
    },
)

# -- Ghostty 1.3.1 --------------------------------------------------------------------
# Read in ghostty-org/ghostty at tag v1.3.1 (2026-03-13).

GHOSTTY_VERSION = "1.3.1"

GHOSTTY = Profile(
    name="ghostty",
    description=f"Ghostty {GHOSTTY_VERSION}: kitty keyboard protocol, mode 2027 set",
    # src/config/Config.zig term = "xterm-ghostty"; src/termio/Exec.zig sets
    # it when its resources dir (and terminfo) is found, else xterm-256color.
    term="xterm-ghostty",
    env={
        # src/termio/Exec.zig.
        "COLORTERM": "truecolor",
        "TERM_PROGRAM": "ghostty",
        "TERM_PROGRAM_VERSION": GHOSTTY_VERSION,  # build_config.version_string
        # Also set, left out: GHOSTTY_RESOURCES_DIR, TERMINFO, GHOSTTY_BIN_DIR
        # (paths of an installation), GHOSTTY_SHELL_FEATURES (shell integration).
    },
    # src/termio/stream_handler.zig deviceAttributes: .primary with
    # clipboard-write allowed (the default) -> "?62;22;52c".
    da1="\x1b[?62;22;52c",
    # src/termio/stream_handler.zig deviceAttributes .secondary.
    da2="\x1b[>1;10;0c",
    # src/termio/stream_handler.zig deviceAttributes: other requests are
    # logged "unimplemented", not answered.
    da3=None,
    # src/termio/stream_handler.zig reportXtversion: "ghostty " + version.
    xtversion=f"\x1bP>|ghostty {GHOSTTY_VERSION}\x1b\\",
    # src/terminal/modes.zig (every mode listed, defaults off for these);
    # stream_handler.zig requestMode answers 1/2, requestModeUnknown 0.
    # 2027 is set at start: Termio.zig init, grapheme-width-method = unicode
    # (the default in Config.zig).
    modes=_modes({1004: 2, 1006: 2, 1016: 2, 1049: 2, 2004: 2, 2026: 2, 2027: 1, 2031: 2,
                  2048: 2}),
    # src/termio/stream_handler.zig .kitty_keyboard_query -> queryKittyKeyboard.
    kitty_keyboard=True,
    # src/config/Config.zig foreground 0xFFFFFF, background 0x282C34;
    # stream_handler.zig reports 16-bit components (osc-color-report-format
    # = 16-bit, the default).
    foreground="rgb:ffff/ffff/ffff",
    background="rgb:2828/2c2c/3434",
    emulation=Emulation(
        # src/terminal/Terminal.zig cursorLeft: the cursor stays on the last
        # column with pending_wrap, BS goes one left of it, as xterm.
        backspace_at_wrap="xterm",
        # Mode 2027 on by default (above).
        graphemes=True,
        # Ghostty rewraps on resize (src/terminal/PageList.zig resize, reflow).
        reflow=True,
        # As xterm on the four below (read at 3b9c4e0d): Terminal.zig
        # insertLines/deleteLines go to the left margin; index() clears
        # pending_wrap; switchScreenMode 1049 off always restoreCursor();
        # deccolm returns early unless mode 40 is set (off by default).
        lines_home=True,
        linefeed_at_wrap="xterm",
        alternate_cursor=True,
        column_mode="ignore",
        # Bytes that are not UTF-8: one U+FFFD per maximal subpart, as the
        # Unicode Standard recommends (src/terminal/stream.zig's UTF-8
        # decoder; tests/test_ghostty_oracle.py agrees on the grammar).
        invalid_utf8="unicode",
    ),
    sources={
        "term": "ghostty v1.3.1 src/config/Config.zig term; src/termio/Exec.zig",
        "env": "ghostty v1.3.1 src/termio/Exec.zig",
        "da1": "ghostty v1.3.1 src/termio/stream_handler.zig deviceAttributes",
        "da2": "ghostty v1.3.1 src/termio/stream_handler.zig deviceAttributes",
        "da3": "ghostty v1.3.1 src/termio/stream_handler.zig deviceAttributes (else: "
               "unimplemented)",
        "xtversion": "ghostty v1.3.1 src/termio/stream_handler.zig reportXtversion",
        "modes": "ghostty v1.3.1 src/terminal/modes.zig; src/termio/stream_handler.zig "
                 "requestMode; src/termio/Termio.zig init (2027)",
        "kitty_keyboard": "ghostty v1.3.1 src/termio/stream_handler.zig queryKittyKeyboard",
        "colours": "ghostty v1.3.1 src/config/Config.zig foreground/background; "
                   "stream_handler.zig colour reports",
        "emulation": "ghostty v1.3.1 src/terminal/Terminal.zig cursorLeft; "
                     "src/termio/Termio.zig (grapheme-width-method); ghostty 3b9c4e0d "
                     "Terminal.zig insertLines, index, switchScreenMode, deccolm",
    },
)

# -- WezTerm 20240203-110809-5046fc22 -------------------------------------------------
# Read in wezterm/wezterm at tag 20240203-110809-5046fc22, its latest release.

WEZTERM_VERSION = "20240203-110809-5046fc22"

WEZTERM = Profile(
    name="wezterm",
    description=f"WezTerm {WEZTERM_VERSION}: VT525 DA1, mode 2027 permanently set",
    # config/src/config.rs default_term() -> "xterm-256color".
    term="xterm-256color",
    env={
        # config/src/config.rs apply_cmd_defaults.
        "COLORTERM": "truecolor",
        "TERM_PROGRAM": "WezTerm",
        "TERM_PROGRAM_VERSION": WEZTERM_VERSION,  # crate::wezterm_version()
        # mux/src/domain.rs LocalDomain: the pane id, 0 for the first pane.
        "WEZTERM_PANE": "0",
        # Also set, left out: WEZTERM_UNIX_SOCKET, WEZTERM_EXECUTABLE,
        # WEZTERM_CONFIG_FILE/DIR (paths of an installation).
    },
    # term/src/terminalstate/mod.rs perform_device, RequestPrimaryDeviceAttributes.
    da1="\x1b[?65;4;6;18;22c",
    # ...RequestSecondaryDeviceAttributes: xterm patch 277 (SGR mouse).
    da2="\x1b[>1;277;0c",
    # ...RequestTertiaryDeviceAttributes.
    da3="\x1bP!|00000000\x1b\\",
    # ...RequestTerminalNameAndVersion: term_program " " term_version.
    xtversion=f"\x1bP>|WezTerm {WEZTERM_VERSION}\x1b\\",
    # term/src/terminalstate/mod.rs perform_csi_mode: 2027 is
    # decqrm_response_permanent (3); 1049 has no query arm and falls to
    # the catch-all (0); 2031 and 2048 are not in termwiz's
    # DecPrivateModeCode (0); 2026 is reported reset ("handled in the mux").
    modes=_modes({1004: 2, 1006: 2, 1016: 2, 1049: 0, 2004: 2, 2026: 2, 2027: 3, 2031: 0,
                  2048: 0}),
    # term/src/terminalstate/performer.rs QueryKittySupport answers only when
    # enable_kitty_keyboard, false by default (config/src/config.rs).
    kitty_keyboard=False,
    # term/src/color.rs ColorPalette::default: foreground colors[249]
    # (Grey70, #b2b2b2), background black #000000; replies are 16-bit
    # (color-types to_x11_16bit_rgb_string).
    foreground="rgb:b2b2/b2b2/b2b2",
    background="rgb:0000/0000/0000",
    emulation=Emulation(
        # term/src/terminalstate/performer.rs ControlCode::Backspace: the
        # cursor stays on the last column with wrap_next, BS goes left of it.
        backspace_at_wrap="xterm",
        # 2027 permanently set (above).
        graphemes=True,
        # WezTerm rewraps on resize (term/src/screen.rs resize, rewrap_lines).
        reflow=True,
        # Read at ee0c04e7: terminalstate/mod.rs Edit::InsertLine/DeleteLine
        # only scroll (the column stays); a line feed goes through
        # set_cursor_position_absolute, which clears wrap_next (IND on the
        # bottom margin keeps it); the 1049 reset acts only on the alternate
        # screen; DECCOLM always resets the margins, homes and erases.
        lines_home=False,
        linefeed_at_wrap="xterm",
        alternate_cursor=False,
        column_mode="clear",
    ),
    sources={
        "term": "wezterm 20240203-110809-5046fc22 config/src/config.rs default_term",
        "env": "wezterm 20240203-110809-5046fc22 config/src/config.rs apply_cmd_defaults; "
               "mux/src/domain.rs (WEZTERM_PANE)",
        "da1": "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
               "RequestPrimaryDeviceAttributes",
        "da2": "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
               "RequestSecondaryDeviceAttributes",
        "da3": "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
               "RequestTertiaryDeviceAttributes",
        "xtversion": "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
                     "RequestTerminalNameAndVersion",
        "modes": "wezterm 20240203-110809-5046fc22 term/src/terminalstate/mod.rs "
                 "perform_csi_mode, decqrm_response; termwiz/src/escape/csi.rs",
        "kitty_keyboard": "wezterm 20240203-110809-5046fc22 term/src/terminalstate/"
                          "performer.rs QueryKittySupport; config enable_kitty_keyboard=false",
        "colours": "wezterm 20240203-110809-5046fc22 term/src/color.rs ColorPalette::default",
        "emulation": "wezterm 20240203-110809-5046fc22 term/src/terminalstate/performer.rs "
                     "ControlCode::Backspace; mod.rs GraphemeClustering; wezterm ee0c04e7 "
                     "mod.rs Edit::InsertLine, new_line, DECCOLM",
    },
)

# -- tmux 3.7c ------------------------------------------------------------------------
# Read in tmux/tmux at tag 3.7c (2026-07-23); DA1, DA2 and XTVERSION's form
# are the same in 3.3a (checked there too, and against the tmux installed,
# by tests/test_profiles.py). DECRQM is answered from 3.6, 2026 from 3.7.

TMUX_VERSION = "3.7c"

TMUX = Profile(
    name="tmux",
    description=f"inside tmux {TMUX_VERSION}: tmux answers for the pane, TERM=tmux-256color",
    # options-table.c default-terminal = TMUX_TERM: configure.ac picks
    # tmux-256color when that terminfo entry exists at build time, else screen.
    term="tmux-256color",
    env={
        # environ.c environ_for_session.
        "TERM_PROGRAM": "tmux",
        "TERM_PROGRAM_VERSION": TMUX_VERSION,  # getversion()
        "COLORTERM": "truecolor",  # from tmux 3.6 (3.5a's environ.c has none)
        # environ.c environ_for_session: socket path, server pid, session id.
        # The path is the default socket's for uid 1000, the pid a placeholder.
        "TMUX": "/tmp/tmux-1000/default,1,0",
        # spawn.c spawn_pane: "%" and the pane id.
        "TMUX_PANE": "%0",
    },
    # input.c input_csi_dispatch INPUT_CSI_DA: "?1;2c" ("?1;2;4c" when built
    # with --enable-sixel, off by default: configure.ac).
    da1="\x1b[?1;2c",
    # input.c INPUT_CSI_DA_TWO.
    da2="\x1b[>84;0;0c",
    # input.c input_csi_table has no '=' c entry: not answered.
    da3=None,
    # input.c INPUT_CSI_XDA: DCS ">|tmux " getversion() ST.
    xtversion=f"\x1bP>|tmux {TMUX_VERSION}\x1b\\",
    # input.c INPUT_CSI_QUERY_PRIVATE: 1004, 1006, 1049, 2004, 2026, 2031
    # tracked (all reset at start); others, 1016/2027/2048 among them, 0.
    modes=_modes({1004: 2, 1006: 2, 1016: 0, 1049: 2, 2004: 2, 2026: 2, 2027: 0, 2031: 2,
                  2048: 0}),
    # input.c input_csi_table: 'u' only without a private marker (RCP);
    # CSI ? u is ignored, never passed to the outer terminal.
    kitty_keyboard=False,
    # input.c input_osc_10/input_osc_11: tmux answers from the colours it
    # learnt from its client's (outer) terminal (window.c
    # window_pane_get_fg/bg), nothing when it knows none. Taken here as
    # termsim's xterm, the outer terminal a test would have.
    foreground=FOREGROUND,
    background=BACKGROUND,
    emulation=Emulation(
        # The cursor sits past the last column while a wrap is pending (tests/
        # tmux_pane.py, emulation.py): BS goes to the last column.
        backspace_at_wrap="tmux",
        # Each code point its own width (emulation.py; checked against tmux
        # 3.3a by the differential tests). tmux 3.6 CHANGES: better regional
        # indicators and emoji modifiers, not clusters in one cell (unverified).
        graphemes=False,
        # tmux rewraps on resize (grid.c grid_reflow).
        reflow=True,
        # The wrap stays pending past a line feed: the cursor is past the last
        # column (cx == sx), and screen-write.c screen_write_linefeed moves it
        # down with x left alone (the tmux differential tests agree).
        linefeed_at_wrap="tmux",
        # input.c INPUT_CSI_IL/DL call screen_write_insertline/deleteline,
        # which do not move the cursor's column.
        lines_home=False,
        # screen.c screen_alternate_off restores the cursor only from what
        # screen_alternate_on saved; screen_alternate_on returns at once on
        # the alternate screen.
        alternate_cursor=False,
        # input.c input_csi_dispatch_sm_private/_rm_private case 3:
        # screen_write_cursormove(0, 0) and screen_write_clearscreen, both
        # ways (tmux keeps the width).
        column_mode="clear",
    ),
    sources={
        "term": "tmux 3.7c options-table.c default-terminal; configure.ac DEFAULT_TERM",
        "env": "tmux 3.7c environ.c environ_for_session; spawn.c spawn_pane (TMUX_PANE)",
        "da1": "tmux 3.7c input.c input_csi_dispatch INPUT_CSI_DA",
        "da2": "tmux 3.7c input.c input_csi_dispatch INPUT_CSI_DA_TWO",
        "da3": "tmux 3.7c input.c input_csi_table (no '=' c entry)",
        "xtversion": "tmux 3.7c input.c input_csi_dispatch INPUT_CSI_XDA",
        "modes": "tmux 3.7c input.c input_csi_dispatch INPUT_CSI_QUERY_PRIVATE",
        "kitty_keyboard": "tmux 3.7c input.c input_csi_table (no '?' u entry)",
        "colours": "tmux 3.7c input.c input_osc_10/input_osc_11; window.c "
                   "window_pane_get_bg",
        "emulation": "termsim emulation.py (tmux), tests/tmux_pane.py; tmux grid.c "
                     "grid_reflow; tmux c1f947a3 screen-write.c screen_write_insertline, "
                     "screen_write_linefeed; screen.c screen_alternate_off; input.c "
                     "input_csi_dispatch_sm_private",
        "passthrough": "tmux 3.7c input.c input_dcs_dispatch (DCS tmux; passthrough, "
                       "allow-passthrough option)",
    },
    notes=(
        "tmux answers DA1, DA2, XTVERSION, DECRQM and OSC 10/11 itself; a query is "
        "never passed to the outer terminal",
        "only DCS tmux; <ESC-doubled sequence> ST reaches the outer terminal, and only "
        "with allow-passthrough on (off by default)",
        "tmux before 3.6 answers no DECRQM at all",
    ),
)

# -- VS Code (xterm.js) ---------------------------------------------------------------
# xterm.js read in xtermjs/xterm.js at master 904ae935 (2026-07-26), whose
# src/common/Version.ts says 6.0.0: VS Code bundles the 6.1.0 betas built
# from master (bin/publish.js writes the beta's version into Version.ts).
# VS Code itself read in microsoft/vscode (stored files, no one release).

XTERMJS_VERSION = "6.0.0"

VSCODE = Profile(
    name="vscode",
    description="VS Code's terminal (xterm.js master): kitty keyboard protocol on",
    # vscode src/vs/platform/terminal/node/terminalProcess.ts TerminalProcess:
    # node-pty name 'xterm-256color' on Linux and macOS.
    term="xterm-256color",
    env={
        # vscode src/vs/workbench/contrib/terminal/common/terminalEnvironment.ts
        # addTerminalEnvironmentKeys. TERM_PROGRAM_VERSION (VS Code's version)
        # is set too; left out: no release's version could be established.
        "TERM_PROGRAM": "vscode",
        "COLORTERM": "truecolor",
    },
    # src/common/InputHandler.ts sendDeviceAttributesPrimary: termName
    # 'xterm' -> "?1;2c".
    da1="\x1b[?1;2c",
    # InputHandler.ts sendDeviceAttributesSecondary: termName 'xterm'.
    da2="\x1b[>0;276;0c",
    # InputHandler.ts registers no '=' c handler.
    da3=None,
    # InputHandler.ts sendXtVersion (master, since commit d8a93b7,
    # 2025-12-26): "xterm.js(" XTERM_VERSION ")"; the version is master's
    # Version.ts, a published beta answers its own.
    xtversion=f"\x1bP>|xterm.js({XTERMJS_VERSION})\x1b\\",
    # InputHandler.ts requestMode: 1004/1006/1016/1049/2004/2026 tracked,
    # everything else NOT_RECOGNIZED.
    modes=_modes({1004: 2, 1006: 2, 1016: 2, 1049: 2, 2004: 2, 2026: 2, 2027: 0, 2031: 0,
                  2048: 0}),
    # InputHandler.ts kittyKeyboardQuery answers when
    # vtExtensions.kittyKeyboard; VS Code passes
    # terminal.integrated.enableKittyKeyboardProtocol (xtermTerminal.ts),
    # default true since microsoft/vscode#294651 (terminalConfiguration.ts).
    kitty_keyboard=True,
    # VS Code's default theme Dark Modern (extensions/theme-defaults/themes/
    # dark_modern.json): terminal.foreground #CCCCCC; no terminal.background,
    # so the panel's #181818 (xtermTerminal.ts getXtermTheme). A terminal in
    # the editor area takes editor.background instead. Replies are 16-bit
    # (xterm.js XParseColor.ts toRgbString).
    foreground="rgb:cccc/cccc/cccc",
    background="rgb:1818/1818/1818",
    emulation=Emulation(
        # InputHandler.ts backspace: _restrictCursor() brings x from cols
        # (pending wrap) to cols-1 first, then x--: as xterm.
        backspace_at_wrap="xterm",
        # Width per code point (unicode11 addon in VS Code); no 2027.
        graphemes=False,
        # xterm.js rewraps on resize (src/common/buffer/Buffer.ts _reflow).
        reflow=True,
        # As xterm, read at 904ae935: InputHandler.ts insertLines/deleteLines
        # set x = 0; lineFeed and index() bring x back from cols; the 1049
        # reset calls restoreCursor() (home with nothing saved); DECCOLM acts
        # only with windowOptions.setWinLines, which VS Code does not set.
        lines_home=True,
        linefeed_at_wrap="xterm",
        alternate_cursor=True,
        column_mode="ignore",
    ),
    sources={
        "term": "vscode src/vs/platform/terminal/node/terminalProcess.ts TerminalProcess "
                "(node-pty name)",
        "env": "vscode src/vs/workbench/contrib/terminal/common/terminalEnvironment.ts "
               "addTerminalEnvironmentKeys",
        "da1": "xterm.js 904ae935 src/common/InputHandler.ts sendDeviceAttributesPrimary",
        "da2": "xterm.js 904ae935 src/common/InputHandler.ts sendDeviceAttributesSecondary",
        "da3": "xterm.js 904ae935 src/common/InputHandler.ts (no '=' c handler)",
        "xtversion": "xterm.js 904ae935 src/common/InputHandler.ts sendXtVersion; "
                     "src/common/Version.ts",
        "modes": "xterm.js 904ae935 src/common/InputHandler.ts requestMode",
        "kitty_keyboard": "xterm.js 904ae935 InputHandler.ts kittyKeyboardQuery; vscode "
                          "xtermTerminal.ts vtExtensions; microsoft/vscode#294651",
        "colours": "vscode extensions/theme-defaults/themes/dark_modern.json; "
                   "xterm.js src/common/input/XParseColor.ts toRgbString",
        "emulation": "xterm.js 904ae935 src/common/InputHandler.ts backspace, insertLines, "
                     "lineFeed, resetModePrivate (1049), DECCOLM",
    },
)

# -- Windows Terminal 1.24 ------------------------------------------------------------
# Read in microsoft/terminal at tag v1.24.11911.0 (stable; 1.25 is the
# preview, and adds the kitty keyboard protocol: adaptDispatch.cpp).

WINDOWS_TERMINAL = Profile(
    name="windows-terminal",
    description="Windows Terminal 1.24 (a program in WSL): VT level 1 DA, DA3, mode 2027",
    # Windows Terminal sets no TERM; WSL's programs get xterm-256color from
    # WSL (unverified: no WSL source read).
    term="xterm-256color",
    env={
        # src/cascadia/TerminalConnection/ConptyConnection.cpp: the session's
        # GUID without braces (a new one each session; this one a
        # placeholder), and the profile's GUID with braces: the default
        # "Windows PowerShell" profile's (TerminalSettingsModel/defaults.json).
        # Both are added to WSLENV so that WSL's programs see them.
        "WT_SESSION": "00000000-0000-0000-0000-000000000000",
        "WT_PROFILE_ID": "{61c54bbd-c2c6-5271-96e7-009a87ff44bf}",
    },
    # src/terminal/adapter/adaptDispatch.cpp AdaptDispatch::DeviceAttributes,
    # with ClipboardWrite (compatibility.allowOSC52, default true:
    # TerminalSettingsModel/MTSMSettings.h).
    da1="\x1b[?61;4;6;7;14;21;22;23;24;28;32;42;52c",
    # adaptDispatch.cpp AdaptDispatch::SecondaryDeviceAttributes.
    da2="\x1b[>0;10;1c",
    # adaptDispatch.cpp AdaptDispatch::TertiaryDeviceAttributes.
    da3="\x1bP!|00000000\x1b\\",
    # No XTVERSION handler in src/terminal (adapter, parser).
    xtversion=None,
    # adaptDispatch.cpp AdaptDispatch::RequestMode; DispatchTypes.hpp has no
    # 1016, 2031 or 2048 (0). 2027: mapPerm(text measurement is graphemes,
    # the default: TerminalControl/EventArgs.idl TextMeasurement) -> 3.
    modes=_modes({1004: 2, 1006: 2, 1016: 0, 1049: 2, 2004: 2, 2026: 2, 2027: 3, 2031: 0,
                  2048: 0}),
    # No kitty keyboard protocol in 1.24 (it comes in 1.25).
    kitty_keyboard=False,
    # TerminalSettingsModel/defaults.json: colorScheme Campbell, foreground
    # #CCCCCC, background #0C0C0C; adaptDispatch.cpp replies 16-bit.
    foreground="rgb:cccc/cccc/cccc",
    background="rgb:0c0c/0c0c/0c0c",
    emulation=Emulation(
        # adaptDispatch.cpp: the cursor keeps a delayed EOL wrap flag on the
        # last column (Cursor IsDelayedEOLWrap), as xterm.
        backspace_at_wrap="xterm",
        # Text measurement "graphemes" by default (above).
        graphemes=True,
        # src/buffer/out/textBuffer.cpp TextBuffer::Reflow.
        reflow=True,
        # As xterm, read at 20588130: adaptDispatch.cpp _InsertDeleteLineHelper
        # goes to the left margin; _DoLineFeed's SetPosition resets the
        # delayed wrap; leaving the alternate buffer always CursorRestoreState;
        # _SetColumnMode is gated on AllowDECCOLM (mode 40, off by default).
        lines_home=True,
        linefeed_at_wrap="xterm",
        alternate_cursor=True,
        column_mode="ignore",
    ),
    sources={
        "term": "unverified: set by WSL (or the program's host), not by Windows Terminal",
        "env": "terminal v1.24.11911.0 src/cascadia/TerminalConnection/ConptyConnection.cpp; "
               "TerminalSettingsModel/defaults.json (profile GUID)",
        "da1": "terminal v1.24.11911.0 src/terminal/adapter/adaptDispatch.cpp "
               "DeviceAttributes; MTSMSettings.h compatibility.allowOSC52",
        "da2": "terminal v1.24.11911.0 adaptDispatch.cpp SecondaryDeviceAttributes",
        "da3": "terminal v1.24.11911.0 adaptDispatch.cpp TertiaryDeviceAttributes",
        "xtversion": "terminal v1.24.11911.0 src/terminal (no XTVERSION handler)",
        "modes": "terminal v1.24.11911.0 adaptDispatch.cpp RequestMode; DispatchTypes.hpp",
        "kitty_keyboard": "terminal v1.24.11911.0 (none); v1.25.1912.0 adaptDispatch.cpp adds it",
        "colours": "terminal v1.24.11911.0 TerminalSettingsModel/defaults.json Campbell",
        "emulation": "terminal v1.24.11911.0 adaptDispatch.cpp (IsDelayedEOLWrap, "
                     "GCM_GraphemeClusterMode); textBuffer.cpp Reflow; terminal 20588130 "
                     "adaptDispatch.cpp _InsertDeleteLineHelper, _DoLineFeed, "
                     "_SetAlternateScreenBufferMode, _SetColumnMode",
    },
    notes=(
        "between the program and Windows Terminal sits ConPTY (conhost), which runs the "
        "same src/terminal/adapter code; which of the two answers a query was not checked",
    ),
)

# -- Apple Terminal -------------------------------------------------------------------
# No source is public. Measured by others: jquast/ucs-detect
# data/macos-Terminal-2.15.yaml (Terminal 2.15, build 464, 2025-10-29).

APPLE_TERMINAL = Profile(
    name="apple-terminal",
    description="macOS Terminal.app 2.15 (unverified: no public source): VT100 DA, no DECRQM",
    # ucs-detect data/macos-Terminal-2.15.yaml: ttype xterm-256color (the
    # default profile's "Declare terminal as").
    term="xterm-256color",
    env={
        # Unverified: widely tested for by programs (TERM_PROGRAM ==
        # "Apple_Terminal"). TERM_PROGRAM_VERSION and TERM_SESSION_ID are set
        # too; left out, their values could not be established.
        "TERM_PROGRAM": "Apple_Terminal",
    },
    # ucs-detect: device_attributes service_class 1, extensions [2].
    da1="\x1b[?1;2c",
    # vim src/term.c handle_version_response: "Mac Terminal.app sends 1;95;0".
    da2="\x1b[>1;95;0c",
    # Unknown: not established.
    da3=None,
    # Unknown: not established (taken as not answered).
    xtversion=None,
    # ucs-detect: "modes: {}", no DECRQM answered.
    modes=None,
    # No kitty keyboard protocol (unverified: not in ucs-detect's results).
    kitty_keyboard=False,
    # Unknown: whether and what OSC 10/11 answer was not established.
    foreground=None,
    background=None,
    # Nothing established: xterm's choices.
    emulation=Emulation(),
    sources={
        "term": "unverified: jquast/ucs-detect data/macos-Terminal-2.15.yaml (ttype)",
        "env": "unverified: TERM_PROGRAM=Apple_Terminal as programs test for it",
        "da1": "unverified: jquast/ucs-detect data/macos-Terminal-2.15.yaml "
               "device_attributes",
        "da2": "unverified: vim src/term.c handle_version_response comment",
        "da3": "unknown",
        "xtversion": "unknown",
        "modes": "unverified: jquast/ucs-detect data/macos-Terminal-2.15.yaml (modes: {})",
        "kitty_keyboard": "unverified",
        "colours": "unknown",
        "emulation": "unknown: xterm's defaults",
    },
)

# -- the Linux console ----------------------------------------------------------------

LINUX = Profile(
    name="linux",
    description="the Linux virtual console: DA1 only (VT102), no DECRQM, no colours",
    # TERM=linux is set by getty/login for a VT (console_codes(4); agetty).
    term="linux",
    env={},
    # drivers/tty/vt/vt.c respond_ID: "\033[?6c" (VT102), on ESC Z or CSI c.
    da1="\x1b[?6c",
    # vt.c do_con_trol ESgetpars: a private marker other than '?' ('>' '=')
    # ends the sequence unanswered.
    da2=None,
    da3=None,
    # vt.c: CSI > q is ignored likewise.
    xtversion=None,
    # vt.c: CSI with an intermediate ('$') goes to EScsiignore: no DECRQM.
    modes=None,
    kitty_keyboard=False,
    # vt.c: OSC P (set palette) and OSC R (reset) only; no colour queries.
    foreground=None,
    background=None,
    # vt.c keeps vc_need_wrap with the cursor on the last column (as xterm),
    # and lf() clears it; vc_do_resize does not rewrap; one cell per code
    # point. csi_L/csi_M only scroll (the column stays); leave_alt_screen
    # returns at once with nothing saved (older kernels ignore 1049); the
    # 132-column mode is "unimplemented" (#if 0).
    emulation=Emulation(lines_home=False, alternate_cursor=False),
    sources={
        "term": "console_codes(4); agetty sets TERM=linux on a virtual console",
        "env": "the console sets no variable",
        "da1": "linux drivers/tty/vt/vt.c respond_ID",
        "da2": "linux drivers/tty/vt/vt.c do_con_trol (vc_priv != EPecma: ignored)",
        "da3": "linux drivers/tty/vt/vt.c do_con_trol (vc_priv != EPecma: ignored)",
        "xtversion": "linux drivers/tty/vt/vt.c do_con_trol (vc_priv != EPecma: ignored)",
        "modes": "linux drivers/tty/vt/vt.c do_con_trol (intermediates: EScsiignore)",
        "kitty_keyboard": "linux drivers/tty/vt/vt.c (no CSI ? u)",
        "colours": "linux drivers/tty/vt/vt.c do_con_trol ESosc (P and R only)",
        "emulation": "linux drivers/tty/vt/vt.c vc_need_wrap, lf, csi_L, csi_M, "
                     "leave_alt_screen, csi_DEC_hl; vc_do_resize",
    },
)

# -- dumb -----------------------------------------------------------------------------

DUMB = Profile(
    name="dumb",
    description="TERM=dumb: a terminal that answers nothing (Emacs shell, CI logs)",
    term="dumb",
    env={},
    da1=None,
    da2=None,
    da3=None,
    xtversion=None,
    modes=None,
    kitty_keyboard=False,
    foreground=None,
    background=None,
    emulation=Emulation(),
    sources={
        "term": "terminfo(5) 'dumb': no cursor addressing, no queries",
        **{fact: "a dumb terminal answers nothing" for fact in FACTS if fact != "term"},
    },
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
