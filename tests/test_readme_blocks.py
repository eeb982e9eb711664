"""Every block of the README is taken by a test, and the README's figures
and signatures are the code's.

A snippet or sample added to README.md without a test that runs or produces
it fails here, and so does a figure in the fidelity table, an option, or a
signature that no longer says what the code does.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from readme import README, ROOT, block, blocks, untaken

import termsim

TESTS = Path(__file__).resolve().parent


def test_every_block_is_named_once_and_taken_by_a_test() -> None:
    found = blocks()
    unnamed = [b.line for b in found if b.name is None]
    assert not unnamed, f"README.md blocks without <!-- readme: NAME --> at lines {unnamed}"
    names = [b.name for b in found]
    assert len(names) == len(set(names)), f"names used twice: {names}"
    missing, gone = untaken(names, "block")
    assert missing == set(), "README blocks no test takes"
    assert gone == set(), "tests take blocks the README no longer has"


def test_a_block_without_a_name_or_a_test_is_found() -> None:
    # The check above, on a README with one block of each fault.
    text = "x\n```sh\nls\n```\n<!-- readme: a -->\n```\none\n```\n"
    found = blocks(text)
    assert [(b.name, b.body, b.line) for b in found] == [(None, "ls\n", 2), ("a", "one\n", 6)]
    unknown = "nope"
    with pytest.raises(KeyError, match="no block marked <!-- readme: nope -->"):
        block(unknown)


def _table_row(name: str) -> list[str]:
    """The cells of the fidelity table's row whose first cell holds ``name``."""
    for line in README.read_text().splitlines():
        if line.startswith("|") and name in line.split("|")[1]:
            return [cell.strip() for cell in line.strip("|").split("|")]
    raise AssertionError(f"no table row for {name}")


def test_the_fidelity_table_holds_the_suites_counts() -> None:
    import differential
    import test_conformance
    import test_libvterm

    _, what, ours, pyte = _table_row("tests/test_conformance.py")
    assert what.startswith(f"{len(test_conformance.STEPS)} whole screens")
    assert ours.startswith(f"{test_conformance.PASSING} (the "
                           f"{len(test_conformance.EXPECTED_DEVIATIONS)} others")
    assert pyte == str(test_conformance.PYTE_PASSING)
    _, what, ours, pyte = _table_row("tests/test_libvterm.py")
    assert what.startswith(f"{test_libvterm.UNITS} units")
    assert ours.startswith(f"{test_libvterm.PASSING} (")
    assert pyte == str(test_libvterm.PYTE_PASSING)
    gaps = {reason.split(" (")[0] for reason in test_libvterm.KNOWN_GAPS.values()}
    assert len(gaps) == 1 and "one gap" in ours and "double-width and double-height" in ours
    _, _, ours, _ = _table_row("tests/test_differential.py")
    assert f"outside the {len(differential.KNOWN_DIFFERENCES)} documented" in ours


def _calls_in_readme(call: str) -> list[dict[str, str]]:
    """The parameters and defaults of every ``call(...)`` the README writes
    with a word first (a signature, not ``call(...)``)."""
    text = " ".join(README.read_text().split())
    found = []
    for match in re.finditer(re.escape(call) + r"\((?=\w)", text):
        depth, parts, part = 1, [], ""
        for char in text[match.end():]:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 or (depth == 1 and char == ","):
                parts.append(part.strip())
                part = ""
                if depth == 0:
                    break
            else:
                part += char
        found.append(dict((name.strip("*"), default) for name, _, default in
                          (p.partition("=") for p in parts)))
    return found


def _default(text: str) -> object:
    return inspect.Parameter.empty if not text else ast.literal_eval(text)


@pytest.mark.parametrize(("call", "function"), [
    ("termsim.spawn", termsim.spawn),
    ("termsim.emulator.Terminal", termsim.emulator.Terminal),
    ("await term.wait_for", termsim.Driver.wait_for),
    ("await term.expect_screen", termsim.Driver.expect_screen),
])
def test_the_signatures_the_readme_shows_are_the_codes(call: str, function: Any) -> None:
    real = {name: p.default for name, p in inspect.signature(function).parameters.items()
            if name != "self"}
    # The fullest of the README's calls is its signature.
    shown = max(_calls_in_readme(call), key=len, default={})
    assert {name: _default(text) for name, text in shown.items()} == real, (
        f"README.md shows {call}({', '.join(shown)})")


def test_every_option_the_readme_names_is_the_plugins(pytester: pytest.Pytester) -> None:
    named = set(re.findall(r"--termsim-[\w-]+", README.read_text()))
    listed = set(re.findall(r"--termsim-[\w-]+", pytester.runpytest("--help").stdout.str()))
    assert named and named <= listed, f"not options of the plugin: {named - listed}"
    assert listed <= named, f"options the README does not name: {listed - named}"


def _modules(package: str) -> list[ModuleType]:
    root = importlib.import_module(package)
    return [root, *(importlib.import_module(f"{package}.{m.name}")
                    for m in pkgutil.iter_modules(root.__path__))]


def test_the_architecture_drawing_names_what_exists() -> None:
    drawing = block("architecture")
    names = set(re.findall(r"\b([A-Z][a-z]+(?:[A-Z][a-z]+)+|Terminal|Engine|Recording|Snapshot)\b",
                           drawing))
    packages = set(re.findall(r"\b(\w+): ", drawing))
    assert packages == {"live", "engine", "emulator", "recording", "offline"}
    for package in packages:
        assert (ROOT / "termsim" / package / "__init__.py").exists(), package
    exported = {name for package in packages
                for module in _modules(f"termsim.{package}") for name in dir(module)}
    missing = {n for n in names if n not in exported and not hasattr(termsim, n)}
    assert not missing, f"the drawing names what termsim does not have: {missing}"


def test_the_full_profile_command_names_a_profile_conftest_registers() -> None:
    from hypothesis import settings

    command = block("full-profile").strip()
    variable, _, rest = command.partition(" ")
    name, _, profile = variable.partition("=")
    assert name == "TERMSIM_HYPOTHESIS_PROFILE"
    assert rest == block("try-tests").strip().split(" && ")[-1]
    settings.get_profile(profile)  # raises for a profile conftest never registered
    assert name in (TESTS / "conftest.py").read_text()
