"""The package's public face: what is exported and typed. (Lint and type
checks, `ruff check .` and `mypy`, are CI's own steps: see .ci/run.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import termsim


def test_all_names_exist_and_every_public_name_is_in_all() -> None:
    for name in termsim.__all__:
        assert hasattr(termsim, name), name
    public = {n for n in vars(termsim) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(termsim, n)).__name__ == "module"}
    assert public - modules - {"annotations"} <= set(termsim.__all__)


def test_the_package_is_typed() -> None:
    assert (Path(termsim.__file__).parent / "py.typed").exists()


def test_python_m_termsim_runs_the_cli() -> None:
    result = subprocess.run([sys.executable, "-m", "termsim", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "record" in result.stdout and "export" in result.stdout


def test_every_public_name_has_a_docstring() -> None:
    """help(termsim.X) says why for every public name and member."""
    import inspect

    import termsim

    missing = []
    for name in termsim.__all__:
        obj = getattr(termsim, name)
        if name.startswith("__") or inspect.ismodule(obj):
            continue
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and not inspect.getdoc(obj):
            missing.append(name)
        if not inspect.isclass(obj):
            continue
        for attr in dir(obj):
            raw = inspect.getattr_static(obj, attr)
            if attr.startswith("_") or not (
                isinstance(raw, property | classmethod | staticmethod) or inspect.isfunction(raw)
            ):
                continue
            target = raw.fget if isinstance(raw, property) else getattr(obj, attr)
            if not inspect.getdoc(target):
                missing.append(f"{name}.{attr}")
    assert missing == []
    assert (termsim.__doc__ or "").startswith("termsim: drive terminal programs in tests")
    assert "async with termsim.spawn(" in (termsim.__doc__ or "")[:300]


AUDIENCES = ("termsim", "termsim.runner", "termsim.files", "termsim.emulator")


def test_each_audience_has_its_own_names_and_each_returned_type_is_importable() -> None:
    import importlib

    seen: dict[str, str] = {}
    for name in AUDIENCES:
        module = importlib.import_module(name)
        public = {n for n, v in vars(module).items() if not n.startswith("_")
                  and type(v).__name__ != "module" and n != "annotations"}
        assert public <= set(module.__all__), (name, public - set(module.__all__))
        for exported in module.__all__:
            assert exported not in seen, f"{exported} in {seen.get(exported)} and {name}"
            seen[exported] = name
            obj = getattr(module, exported)
            if isinstance(obj, type):
                assert obj.__module__ == name, (exported, obj.__module__)
    # The types a test meets are the test author's: what term.queries,
    # term.hygiene() and screen.match hand out.
    for returned in ("Query", "Leftover", "Match", "Place", "Perturbation", "Snapshot"):
        assert seen[returned] == "termsim", returned
    # The emulator's and the tools' are theirs.
    assert seen["Terminal"] == "termsim.emulator" and seen["Recording"] == "termsim.files"
    assert seen["record_sessions"] == "termsim.runner"


def test_no_function_shadows_a_subpackage() -> None:
    import termsim.offline.perturb

    assert callable(termsim.replay) and termsim.offline.perturb.Perturbation is \
        termsim.Perturbation
    for name in termsim.__all__:
        assert not (Path(termsim.__file__).parent / name).is_dir(), name


def test_the_api_reference_lists_exactly_the_public_names() -> None:
    from api_reference import reference

    written = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    assert written == reference(), (
        "docs/api.md is out of date: run `python tests/api_reference.py > docs/api.md`")


def _first_word(name: str) -> str:
    import re

    return re.findall(r"[A-Z][a-z]*", name)[0]


def test_each_signal_predicate_and_the_value_it_waits_for_share_their_first_word() -> None:
    """One ``Bell``, and the rest paired so that a user who knows one name
    finds the other (README, "Outside the cells")."""
    import inspect
    import re

    from termsim.emulator.signals import signals
    from termsim.engine import signal_predicates

    pairs = {"Bell": "BellRung", "Title": "TitleChange", "Link": "LinkRun",
             "Notification": "NotificationSent", "Clipboard": "ClipboardWrite",
             "CommandFinished": "Command", "Image": "ImageSent"}
    # The classes the module defines (``__module__`` names where they are
    # published, so the source tells).
    defined = set(re.findall(r"^class (\w+)\(", inspect.getsource(signal_predicates), re.M))
    predicates = {name for name in defined if not name.startswith("_")}
    assert predicates == set(pairs)
    values = {name for name, obj in vars(signals).items()
              if isinstance(obj, type) and issubclass(obj, signals.Signal)
              and obj is not signals.Signal}
    # Every value is exported beside its predicate, and no name means both.
    assert set(pairs.values()) - {"LinkRun", "Command"} <= values
    assert values <= set(termsim.__all__) and set(pairs.values()) <= set(termsim.__all__)
    assert not predicates & values
    for predicate, value in pairs.items():
        assert _first_word(predicate) == _first_word(value), (predicate, value)
    # The one value with no predicate of its own says so in the README.
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    for orphan in values - set(pairs.values()):
        assert f"`{orphan}`" in readme, orphan


def test_import_termsim_and_the_drive_commands_load_no_layer_they_do_not_use() -> None:
    """``import termsim`` is cheap and ``termsim drive``'s steps (one process
    each, hundreds in an agent's session) start in a fraction of the time:
    the public names come in when first used, with the public module."""
    code = (
        "import sys, termsim, termsim.cli, termsim.drive.cli, termsim.drive.client\n"
        "heavy = ('termsim.engine', 'termsim.offline', 'termsim.report', 'termsim.codegen',"
        " 'termsim.emulator.screen', 'termsim.emulator.terminal.', 'termsim.live.session')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
        "print(termsim.WaitTimeout.__module__, termsim.Text.__module__,"
        " 'termsim.engine.engine' in sys.modules, termsim.files.Recording.__module__)\n"
        "from termsim.emulator import Terminal\n"
        "print(Terminal.__module__)\n"
        "import termsim as again\n"
        "print(again.emulator.Terminal is Terminal, again.events.Output.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout.splitlines()
    assert out == ["[]", "termsim termsim True termsim.files", "termsim.emulator", "True Output"]
    # Any module of the package is an attribute once asked for, as when
    # ``import termsim`` imported them all (benchmarks reach termsim.emulator so).
    code = "import termsim; print(termsim.emulator.Terminal.__name__, termsim.codegen.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    assert out == ["Terminal", "termsim.codegen"]
