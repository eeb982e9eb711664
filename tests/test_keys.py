"""Key names to the bytes xterm sends for them."""

from __future__ import annotations

import string

import pytest

from termsim import UnknownKey
from termsim.emulator import Terminal, key_bytes


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("enter", b"\r"),
        ("return", b"\r"),
        ("tab", b"\t"),
        ("shift+tab", b"\x1b[Z"),
        ("escape", b"\x1b"),
        ("esc", b"\x1b"),
        ("backspace", b"\x7f"),
        ("space", b" "),
        ("delete", b"\x1b[3~"),
        ("insert", b"\x1b[2~"),
        ("pageup", b"\x1b[5~"),
        ("pagedown", b"\x1b[6~"),
    ],
)
def test_key_bytes_editing_keys(name: str, expected: bytes) -> None:
    assert key_bytes(name) == expected
    assert key_bytes(name, application_cursor=True) == expected


@pytest.mark.parametrize(
    ("name", "normal", "application"),
    [
        ("up", b"\x1b[A", b"\x1bOA"),
        ("down", b"\x1b[B", b"\x1bOB"),
        ("right", b"\x1b[C", b"\x1bOC"),
        ("left", b"\x1b[D", b"\x1bOD"),
        ("home", b"\x1b[H", b"\x1bOH"),
        ("end", b"\x1b[F", b"\x1bOF"),
    ],
)
def test_key_bytes_cursor_keys_follow_application_cursor_mode(
    name: str, normal: bytes, application: bytes,
) -> None:
    assert key_bytes(name) == normal
    assert key_bytes(name, application_cursor=False) == normal
    assert key_bytes(name, application_cursor=True) == application


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("f1", b"\x1bOP"), ("f2", b"\x1bOQ"), ("f3", b"\x1bOR"), ("f4", b"\x1bOS"),
        ("f5", b"\x1b[15~"), ("f6", b"\x1b[17~"), ("f7", b"\x1b[18~"), ("f8", b"\x1b[19~"),
        ("f9", b"\x1b[20~"), ("f10", b"\x1b[21~"), ("f11", b"\x1b[23~"), ("f12", b"\x1b[24~"),
    ],
)
def test_key_bytes_function_keys(name: str, expected: bytes) -> None:
    assert key_bytes(name) == expected
    assert key_bytes(name, application_cursor=True) == expected


@pytest.mark.parametrize("letter", string.ascii_lowercase)
def test_key_bytes_ctrl_letters_are_C0_controls(letter: str) -> None:
    expected = bytes([ord(letter) - ord("a") + 1])
    assert key_bytes(f"ctrl+{letter}") == expected
    assert key_bytes(f"ctrl+{letter.upper()}") == expected  # names are case-insensitive


def test_key_bytes_ctrl_c_and_ctrl_d() -> None:
    assert key_bytes("ctrl+c") == b"\x03"
    assert key_bytes("ctrl+d") == b"\x04"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ctrl+space", b"\x00"),
        ("ctrl+@", b"\x00"),
        ("ctrl+[", b"\x1b"),
        ("ctrl+\\", b"\x1c"),
        ("ctrl+]", b"\x1d"),
        ("ctrl+_", b"\x1f"),
        ("ctrl+?", b"\x7f"),
        ("ctrl+backspace", b"\x08"),
    ],
)
def test_key_bytes_ctrl_symbols(name: str, expected: bytes) -> None:
    assert key_bytes(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("alt+x", b"\x1bx"),
        ("alt+enter", b"\x1b\r"),
        ("alt+backspace", b"\x1b\x7f"),
        ("alt+ctrl+c", b"\x1b\x03"),
        ("alt++", b"\x1b+"),
    ],
)
def test_key_bytes_alt_prefixes_escape(name: str, expected: bytes) -> None:
    assert key_bytes(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ctrl+left", b"\x1b[1;5D"),
        ("ctrl+right", b"\x1b[1;5C"),
        ("shift+up", b"\x1b[1;2A"),
        ("alt+down", b"\x1b[1;3B"),
        ("ctrl+shift+left", b"\x1b[1;6D"),
        ("ctrl+home", b"\x1b[1;5H"),
        ("shift+end", b"\x1b[1;2F"),
        ("ctrl+delete", b"\x1b[3;5~"),
        ("shift+pageup", b"\x1b[5;2~"),
        ("shift+f5", b"\x1b[15;2~"),
        ("ctrl+f1", b"\x1b[1;5P"),
    ],
)
def test_key_bytes_modified_keys_use_xterm_parameters(name: str, expected: bytes) -> None:
    assert key_bytes(name) == expected
    # With a modifier, application cursor mode does not apply.
    assert key_bytes(name, application_cursor=True) == expected


@pytest.mark.parametrize(("name", "expected"), [("y", b"y"), ("❯", "❯".encode()), ("+", b"+")])
def test_key_bytes_single_character_is_itself(name: str, expected: bytes) -> None:
    assert key_bytes(name) == expected


def test_key_bytes_shift_letter_is_the_capital() -> None:
    assert key_bytes("shift+a") == b"A"


@pytest.mark.parametrize(
    "name",
    [
        "nonsense",
        "",
        "f13",
        "f0",
        "ctrl+nonsense",
        "hyper+a",
        "super+x",
        "shift+enter",
        "ctrl+enter",
        "shift+escape",
        "ctrl+1",
        "ctrl+shift+a",
        "enter+ctrl",
    ],
)
def test_key_bytes_unknown_names_raise_UnknownKey(name: str) -> None:
    with pytest.raises(UnknownKey):
        key_bytes(name)


def test_UnknownKey_is_a_ValueError_that_lists_the_known_keys() -> None:
    with pytest.raises(ValueError, match=r"unknown key 'nonsense'; known: .*pagedown"):
        key_bytes("nonsense")


def test_UnknownKey_names_an_unknown_modifier() -> None:
    with pytest.raises(UnknownKey, match="unknown modifier 'fn'"):
        key_bytes("fn+a")


def test_modifiers_only_the_kitty_protocol_sends_say_so() -> None:
    # super, hyper and meta are known modifiers; legacy xterm bytes have none.
    with pytest.raises(UnknownKey, match="nothing distinct for 'hyper\\+a'"):
        key_bytes("hyper+a")
    assert key_bytes("hyper+a", kitty_flags=1) == b"\x1b[97;17u"


def test_key_bytes_follow_the_mode_a_program_set() -> None:
    term = Terminal(20, 5)
    term.feed(b"\x1b[?1h")
    assert key_bytes("up", application_cursor=term.screen.modes.application_cursor) == b"\x1bOA"
    term.feed(b"\x1b[?1l")
    assert key_bytes("up", application_cursor=term.screen.modes.application_cursor) == b"\x1b[A"
