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
