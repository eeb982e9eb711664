"""The kitty keyboard protocol and xterm's modifyOtherKeys: what keys send
under the flags a program pushed, the flag stack of each screen, the
``CSI ? u`` answer, and programs that tell ``ctrl+i`` from ``tab``.

The expected bytes are kitty's own: its ``docs/keyboard-protocol.rst`` and
its encoder's tests ``kitty_tests/keys.py`` (``test_encode_key_event``),
kovidgoyal/kitty at 9475a58f0bafc1d6efd62c76fad97ff8872b5878; and for
modifyOtherKeys xterm's ``input.c`` (``ModifyOtherKeys``,
``allowedCharModifiers``, ``modifyOtherKey``; ThomasDickey/xterm-snapshots)
with its default formatOtherKeys=0 (``CSI 27 ; mods ; code ~``, ctlseqs).
"""

from __future__ import annotations

import sys

import pytest
from conftest import program

import termsim
from termsim import Regex, Text, UnknownKey
from termsim.emulator import Terminal, key_bytes
from termsim.emulator.input.keys import key_events

pytestmark = pytest.mark.anyio

CSI = "\x1b["


# -- encodings -----------------------------------------------------------------------------

#: (flags, key, event, bytes), from kitty_tests/keys.py unless noted.
KITTY = [
    # Disambiguate (0b1): "test disambiguate".
    (1, "a", "press", "a"),
    (1, "escape", "press", CSI + "27u"),
    (1, "enter", "press", "\r"),
    (1, "shift+enter", "press", CSI + "13;2u"),
    (1, "tab", "press", "\t"),
    (1, "backspace", "press", "\x7f"),
    (1, "shift+tab", "press", CSI + "9;2u"),
    (1, "ctrl+a", "press", CSI + "97;5u"),
    (1, "alt+a", "press", CSI + "97;3u"),
    (1, "ctrl+shift+a", "press", CSI + "97;6u"),
    (1, "alt+shift+a", "press", CSI + "97;4u"),
    (1, "ctrl+space", "press", CSI + "32;5u"),
    (1, "up", "press", CSI + "A"),
    (1, "ctrl+up", "press", CSI + "1;5A"),
    # The ambiguity the flag resolves (keyboard-protocol.rst, the note under
    # "Legacy text keys": ctrl+i is tab, ctrl+m is enter).
    (1, "ctrl+i", "press", CSI + "105;5u"),
    (1, "ctrl+m", "press", CSI + "109;5u"),
    # Event types (0b10): "test event type reporting".
    (2, "a", "press", "a"),
    # kitty's test repeats an "a" without text; a real "a" has its text,
    # which kitty sends as text on a repeat too (key_encoding.c,
    # send_text_standalone): a key without text shows the repeat.
    (2, "a", "repeat", "a"),
    (2, "ctrl+a", "repeat", CSI + "97;5:2u"),
    (10, "a", "repeat", CSI + "97;1:2u"),
    (2, "a", "release", CSI + "97;1:3u"),
    (2, "shift+a", "release", CSI + "97;2:3u"),
    (3, "backspace", "press", "\x7f"),
    (3, "backspace", "release", ""),
    (3, "enter", "release", ""),
    # Alternate keys (0b100): the shifted key, with Shift only
    # (keyboard-protocol.rst "Key codes"); shift+a alone is its text "A".
    (4, "a", "press", "a"),
    (4, "shift+a", "press", "A"),
    (5, "ctrl+shift+a", "press", CSI + "97:65;6u"),
    # All keys as escape codes (0b1000): "test report all keys".
    (8, "a", "press", CSI + "97u"),
    (8, "a", "repeat", CSI + "97u"),
    (8, "ctrl+a", "press", CSI + "97;5u"),
    (8, "up", "press", CSI + "A"),
    (8, "enter", "press", CSI + "13u"),
    (8, "ctrl+enter", "press", CSI + "13;5u"),
    (8, "tab", "press", CSI + "9u"),
    (8, "backspace", "press", CSI + "127u"),
    # Associated text (0b10000 with 0b1000): "test embed text", and
    # keyboard-protocol.rst "Text as code points": shift+a -> CSI 97 ; 2 ; 65 u.
    (24, "a", "press", CSI + "97;;97u"),
    (24, "shift+a", "press", CSI + "97;2;65u"),
    (24, "A", "press", CSI + "97;2;65u"),
    # Functional keys (keyboard-protocol.rst "Functional key definitions").
    (1, "f1", "press", CSI + "P"),
    (1, "f3", "press", CSI + "13~"),
    (1, "f5", "press", CSI + "15~"),
    (1, "ctrl+f5", "press", CSI + "15;5~"),
    (1, "f13", "press", CSI + "57376u"),
    (1, "menu", "press", CSI + "57363u"),
    (1, "super+a", "press", CSI + "97;9u"),
    (1, "ctrl+alt+shift+super+x", "press", CSI + "120;16u"),
    (2, "ctrl+up", "release", CSI + "1;5:3A"),
    (2, "f5", "repeat", CSI + "15;1:2~"),
]


@pytest.mark.parametrize(("flags", "key", "event", "expected"), KITTY)
def test_keys_encode_as_kitty_documents(flags: int, key: str, event: str, expected: str) -> None:
    assert key_bytes(key, kitty_flags=flags, event=event) == expected.encode()


def test_the_issue_s_keys_under_flags_1_and_8_byte_for_byte() -> None:
    # A program that pushes 1 and 8 (and 2, to get releases).
    assert key_bytes("ctrl+i", kitty_flags=9) == b"\x1b[105;5u"
    assert key_bytes("tab", kitty_flags=9) == b"\x1b[9u"
    assert key_bytes("shift+enter", kitty_flags=9) == b"\x1b[13;2u"
    assert key_bytes("a", kitty_flags=11, event="release") == b"\x1b[97;1:3u"


#: keyboard-protocol.rst, "Legacy text keys" ("Example encodings") and
#: "C0 controls": kitty with no flags pushed. Columns: plain, shift, alt,
#: ctrl, shift+alt, alt+ctrl, ctrl+shift. One difference: the table has
#: ctrl+shift+3 and ctrl+shift+; as ``CSI 51;6u`` and ``CSI 59;6u``, but
#: kitty's encoder (key_encoding.c, ``encode_printable_ascii_key_legacy``)
#: replaces a non-letter by its shifted key when the keyboard reports one,
#: as GLFW's xkb backend does on a US layout: ctrl+# is "#", ctrl+: is ":".
#: termsim follows the encoder, which is what kitty sends.
LEGACY_TEXT = {
    "i": ("i", "I", "\x1bi", "\t", "\x1bI", "\x1b\t", CSI + "105;6u"),
    "3": ("3", "#", "\x1b3", "\x1b", "\x1b#", "\x1b\x1b", "#"),
    ";": (";", ":", "\x1b;", ";", "\x1b:", "\x1b;", ":"),
}
_TEXT_MODS = ("", "shift+", "alt+", "ctrl+", "shift+alt+", "alt+ctrl+", "ctrl+shift+")
#: Columns: no mods, ctrl, alt, shift, ctrl+shift, alt+shift, ctrl+alt.
LEGACY_C0 = {
    "enter": ("\r", "\r", "\x1b\r", "\r", "\r", "\x1b\r", "\x1b\r"),
    "escape": ("\x1b", "\x1b", "\x1b\x1b", "\x1b", "\x1b", "\x1b\x1b", "\x1b\x1b"),
    "backspace": ("\x7f", "\x08", "\x1b\x7f", "\x7f", "\x08", "\x1b\x7f", "\x1b\x08"),
    "tab": ("\t", "\t", "\x1b\t", CSI + "Z", CSI + "Z", "\x1b" + CSI + "Z", "\x1b\t"),
    "space": (" ", "\x00", "\x1b ", " ", "\x00", "\x1b ", "\x1b\x00"),
}
_C0_MODS = ("", "ctrl+", "alt+", "shift+", "ctrl+shift+", "alt+shift+", "ctrl+alt+")


@pytest.mark.parametrize("key", LEGACY_TEXT)
def test_kitty_legacy_text_keys_match_the_documented_table(key: str) -> None:
    for mods, expected in zip(_TEXT_MODS, LEGACY_TEXT[key], strict=True):
        assert key_bytes(mods + key, kitty_legacy=True) == expected.encode(), mods + key


@pytest.mark.parametrize("key", LEGACY_C0)
def test_kitty_legacy_c0_keys_match_the_documented_table(key: str) -> None:
    for mods, expected in zip(_C0_MODS, LEGACY_C0[key], strict=True):
        assert key_bytes(mods + key, kitty_legacy=True) == expected.encode(), mods + key


def test_legacy_function_keys_as_kitty_tests_them() -> None:
    # kitty_tests/keys.py mods_test for F1 and F3: SS3 plain, CSI with modifiers.
    assert key_bytes("f1", kitty_legacy=True) == b"\x1bOP"
    assert key_bytes("ctrl+f1", kitty_legacy=True) == b"\x1b[1;5P"
    assert key_bytes("f3", kitty_legacy=True) == b"\x1bOR"
    assert key_bytes("ctrl+f3", kitty_legacy=True) == b"\x1b[13;5~"
    assert key_bytes("up", kitty_legacy=True, application_cursor=True) == b"\x1bOA"


def test_a_tap_is_a_press_and_a_release_only_where_releases_were_asked_for() -> None:
    assert key_events("ctrl+i", kitty_flags=1) == (b"\x1b[105;5u",)
    assert key_events("ctrl+i", kitty_flags=3) == (b"\x1b[105;5u", b"\x1b[105;5:3u")
    assert key_events("a", kitty_flags=3) == (b"a", b"\x1b[97;1:3u")
    # Enter, Tab and Backspace release only with flag 8 (keyboard-protocol.rst,
    # "Report event types").
    assert key_events("enter", kitty_flags=3) == (b"\r",)
    assert key_events("enter", kitty_flags=11) == (b"\x1b[13u", b"\x1b[13;1:3u")
    # Without flags, the legacy bytes and no release.
    assert key_events("tab") == (b"\t",)
    assert key_bytes("tab", event="release") == b""
    with pytest.raises(UnknownKey, match="unknown key event"):
        key_bytes("a", event="hold")


#: (level, key, bytes): xterm input.c at modifyOtherKeys 1 and 2.
MODIFY_OTHER_KEYS = [
    (1, "ctrl+i", "\t"),  # a control key Ctrl already makes: level 1 leaves it
    (1, "ctrl+a", "\x01"),
    (1, "shift+enter", CSI + "27;2;13~"),
    (1, "ctrl+enter", CSI + "27;5;13~"),
    (1, "ctrl+tab", CSI + "27;5;9~"),
    (1, "ctrl+1", CSI + "27;5;49~"),
    (1, "alt+a", "\x1ba"),
    (1, "shift+tab", CSI + "Z"),
    (2, "ctrl+i", CSI + "27;5;105~"),
    (2, "tab", "\t"),
    (2, "ctrl+m", CSI + "27;5;109~"),
    (2, "enter", "\r"),
    (2, "ctrl+a", CSI + "27;5;97~"),
    (2, "ctrl+shift+a", CSI + "27;6;65~"),
    (2, "alt+a", CSI + "27;3;97~"),
    (2, "ctrl+space", CSI + "27;5;32~"),
    (2, "shift+enter", CSI + "27;2;13~"),
    (2, "ctrl+shift+tab", CSI + "27;6;9~"),
    (2, "a", "a"),
    (2, "!", "!"),
    (2, "ctrl+up", CSI + "1;5A"),  # not an "other" key: xterm's usual parameter
]


@pytest.mark.parametrize(("level", "key", "expected"), MODIFY_OTHER_KEYS)
def test_modify_other_keys_as_xterm_sends_them(level: int, key: str, expected: str) -> None:
    assert key_bytes(key, modify_other_keys=level) == expected.encode()


def test_keys_legacy_xterm_cannot_send_say_what_would() -> None:
    with pytest.raises(UnknownKey, match="kitty keyboard protocol or modifyOtherKeys"):
        key_bytes("shift+enter")
    with pytest.raises(UnknownKey, match="kitty keyboard protocol"):
        key_bytes("super+a")
    # The kitty protocol wins over modifyOtherKeys where both are on.
    assert key_bytes("ctrl+i", kitty_flags=1, modify_other_keys=2) == b"\x1b[105;5u"


# -- the flag stack ------------------------------------------------------------------------

def test_each_screen_keeps_its_own_flag_stack() -> None:
    term = Terminal(20, 5, profile="kitty")
    assert term.modes.kitty_keyboard == 0
    term.feed(b"\x1b[>1u")
    assert term.modes.kitty_keyboard == 1
    term.feed(b"\x1b[?1049h")  # the alternate screen: its stack is empty
    assert term.modes.kitty_keyboard == 0
    assert term.feed(b"\x1b[?u") == b"\x1b[?0u"
    term.feed(b"\x1b[>9u\x1b[>11u")
    assert term.feed(b"\x1b[?u") == b"\x1b[?11u"
    term.feed(b"\x1b[<u")
    assert term.modes.kitty_keyboard == 9
    term.feed(b"\x1b[?1049l")  # back: the main screen's flags
    assert term.modes.kitty_keyboard == 1
    term.feed(b"\x1b[?1049h")  # and the alternate screen kept its own
    assert term.modes.kitty_keyboard == 9
    term.feed(b"\x1b[?1049l\x1b[<u")
    assert term.modes.kitty_keyboard == 0


def test_set_adds_and_removes_flags_in_the_top_entry_and_pops_stop_at_empty() -> None:
    term = Terminal(20, 5, profile="kitty")
    term.feed(b"\x1b[=5u")  # set (mode 1 by default)
    assert term.modes.kitty_keyboard == 5
    term.feed(b"\x1b[=2;2u")  # add
    assert term.modes.kitty_keyboard == 7
    term.feed(b"\x1b[=1;3u")  # remove
    assert term.modes.kitty_keyboard == 6
    term.feed(b"\x1b[>1u\x1b[>3u")
    term.feed(b"\x1b[<2u")  # pop two
    assert term.modes.kitty_keyboard == 6
    term.feed(b"\x1b[<9u")  # more than there are: all reset
    assert term.modes.kitty_keyboard == 0


def test_a_reset_empties_both_screens_stacks() -> None:
    term = Terminal(20, 5, profile="kitty")
    term.feed(b"\x1b[>1u\x1b[?1049h\x1b[>8u")
    term.feed(b"\x1bc")  # RIS
    assert term.modes.kitty_keyboard == 0
    term.feed(b"\x1b[?1049h")
    assert term.modes.kitty_keyboard == 0


def test_csi_query_u_is_answered_under_kitty_and_not_under_xterm() -> None:
    kitty = Terminal(20, 5, profile="kitty")
    assert kitty.feed(b"\x1b[?u") == b"\x1b[?0u"
    kitty.feed(b"\x1b[>31u")
    assert kitty.feed(b"\x1b[?u") == b"\x1b[?31u"
    xterm = Terminal(20, 5)
    xterm.feed(b"\x1b[>31u")
    assert not xterm.feed(b"\x1b[?u")
    # xterm has no kitty protocol: no flags are in force there.
    assert xterm.modes.kitty_keyboard == 0


def test_modes_show_modify_other_keys() -> None:
    term = Terminal(20, 5)
    term.feed(b"\x1b[>4;2m")
    assert term.modes.modify_other_keys == 2
    assert term.screen.modes.modify_other_keys == 2
    term.feed(b"\x1b[>4;0m")
    assert term.modes.modify_other_keys == 0


# -- programs ------------------------------------------------------------------------------

async def _started(term: termsim.Driver) -> str:
    return (await term.wait_for(Text("READY"), timeout=10)).text


async def _read(term: termsim.Driver, n: int) -> list[str]:
    """The lines the program printed for its first n key events."""
    snap = await term.wait_for(Regex(rf"(?m)^{n} "), timeout=10)
    return [line.strip() for line in snap.text.splitlines()
            if line[:1].isdigit() and int(line.split()[0]) <= n]


async def _quit(term: termsim.Driver) -> None:
    await term.press("q")
    await term.wait_for(Text("BYE"), timeout=10)
    assert await term.wait_exit(timeout=10) == 0


async def test_a_program_that_pushes_flags_tells_ctrl_i_from_tab() -> None:
    async with termsim.spawn(program("kitty_keys.py", "kitty", "9"), profile="kitty") as term:
        assert "FLAGS 9" in await _started(term)
        await term.press("ctrl+i")
        await term.press("tab")
        await term.press("shift+enter")
        await term.press("enter")
        lines = await _read(term, 4)
        await _quit(term)
    assert lines == [
        r"1 ctrl+i press b'\x1b[105;5u'",
        r"2 tab press b'\x1b[9u'",
        r"3 shift+enter press b'\x1b[13;2u'",
        r"4 enter press b'\x1b[13u'",
    ]


async def test_with_event_types_a_press_is_followed_by_its_release() -> None:
    async with termsim.spawn(program("kitty_keys.py", "kitty", "11"), profile="kitty") as term:
        await _started(term)
        await term.press("ctrl+i")
        await term.press("a", event="repeat")
        lines = await _read(term, 3)
        await _quit(term)
    assert lines == [
        r"1 ctrl+i press b'\x1b[105;5u'",
        r"2 ctrl+i release b'\x1b[105;5:3u'",
        r"3 a repeat b'\x1b[97;1:2u'",
    ]


async def test_without_the_protocol_ctrl_i_is_tab() -> None:
    # xterm ignores the push: the program reads the same byte for both.
    async with termsim.spawn(program("kitty_keys.py", "kitty", "9")) as term:
        assert "FLAGS none" in await _started(term)
        await term.press("ctrl+i")
        await term.press("tab")
        lines = await _read(term, 2)
        await _quit(term)
    assert lines == [r"1 tab press b'\t'", r"2 tab press b'\t'"]


async def test_flags_pushed_on_the_alternate_screen_leave_with_it() -> None:
    argv = program("kitty_keys.py", "kitty", "1", "alt")
    async with termsim.spawn(argv, profile="kitty") as term:
        await _started(term)
        assert term.screen.modes.kitty_keyboard == 1
        await term.press("escape")
        assert (await _read(term, 1)) == [r"1 escape press b'\x1b[27u'"]
        await _quit(term)
        assert term.screen.modes.kitty_keyboard == 0


async def test_with_no_flags_kitty_sends_its_own_legacy_keys() -> None:
    # kitty spells ctrl+shift+a as CSI u even with no flags pushed (legacy
    # bytes have no spelling for it); plain keys are xterm's bytes.
    async with termsim.spawn(program("kitty_keys.py", "kitty", "0"), profile="kitty") as term:
        await _started(term)
        assert term.screen.modes.kitty_keyboard == 0
        await term.press("ctrl+shift+a")
        await term.press("ctrl+a")
        await term.press("up")
        lines = await _read(term, 3)
        await _quit(term)
    assert lines == [
        r"1 ctrl+shift+a press b'\x1b[97;6u'",
        r"2 ctrl+a press b'\x01'",
        r"3 up press b'\x1b[A'",
    ]
    # Under xterm, which cannot tell it from ctrl+a, press() says so.
    async with termsim.spawn(program("kitty_keys.py", "kitty", "0")) as term:
        await _started(term)
        with pytest.raises(termsim.UnknownKey, match="ctrl\\+shift\\+a"):
            await term.press("ctrl+shift+a")
        await _quit(term)


async def test_modify_other_keys_level_2_tells_ctrl_i_from_tab_under_xterm() -> None:
    async with termsim.spawn(program("kitty_keys.py", "xterm", "2")) as term:
        await _started(term)
        assert term.screen.modes.modify_other_keys == 2
        await term.press("ctrl+i")
        await term.press("tab")
        await term.press("shift+enter")
        lines = await _read(term, 3)
        await _quit(term)
    assert lines == [
        r"1 ctrl+i press b'\x1b[27;5;105~'",
        r"2 tab press b'\t'",
        r"3 shift+enter press b'\x1b[27;2;13~'",
    ]


#: A textual app showing the keys it gets. textual's LinuxDriver pushes
#: kitty flags 1|8|16 on start (textual/drivers/linux_driver.py) and pops
#: them before leaving the alternate screen.
_TEXTUAL_KEYS = """
from textual.app import App
from textual.widgets import Label

class Keys(App):
    def compose(self):
        yield Label("keys:", id="keys")

    def on_key(self, event):
        label = self.query_one("#keys", Label)
        label.update(str(label.render()) + " " + event.key)
        if event.key == "q":
            self.exit()

Keys().run()
"""


async def test_textual_tells_ctrl_i_from_tab_and_shift_enter_from_enter_under_kitty() -> None:
    argv = [sys.executable, "-c", _TEXTUAL_KEYS]
    async with termsim.spawn(argv, profile="kitty") as term:
        await term.wait_for(Text("keys:"), timeout=30)
        assert term.screen.modes.kitty_keyboard == 25
        for key in ("ctrl+i", "tab", "shift+enter", "enter", "x"):
            await term.press(key)
        await term.wait_for(Text("keys: ctrl+i tab shift+enter enter x"), timeout=10)
        await term.press("q")
        assert await term.wait_exit(timeout=10) == 0
    assert term.screen.modes.kitty_keyboard == 0


async def test_textual_under_xterm_reads_ctrl_i_as_tab() -> None:
    argv = [sys.executable, "-c", _TEXTUAL_KEYS]
    async with termsim.spawn(argv) as term:
        await term.wait_for(Text("keys:"), timeout=30)
        await term.press("ctrl+i")
        await term.press("x")
        await term.wait_for(Text("keys: tab x"), timeout=10)
        await term.press("q")
        assert await term.wait_exit(timeout=10) == 0
