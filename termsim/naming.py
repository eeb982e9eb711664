"""The public name of what termsim exports.

An error or value shows in a traceback and a repr under the module a user
imports it from (``termsim.WaitTimeout``, ``termsim.files.Recording``), not
under the module that happens to define it (``termsim.engine.failures``).
Pickling still works: every such class is importable from that module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def publish(namespace: Mapping[str, Any], names: Iterable[str], module: str) -> None:
    """Give each class of ``names`` in ``namespace`` the public ``module``."""
    for name in names:
        obj = namespace[name]
        if isinstance(obj, type) and obj.__module__.startswith("termsim."):
            obj.__module__ = module
