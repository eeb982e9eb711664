"""The package layout is the architecture, and this test holds it.

Every import inside ``termsim/`` is read from the source (module level,
inside functions and under ``TYPE_CHECKING`` alike: a circle closed by a
lazy import is still a circle), and checked against the contract the
README's architecture section draws:

* each package imports only from the layers below it (``LAYERS``);
* no module imports itself back through others (no circle, at any depth);
* the emulator's sub-packages import only those below them
  (``EMULATOR_LAYERS``), and no module sits loose beside them;
* the emulator imports no I/O, clock, event loop or file format, and the
  recording format nothing of the emulator.

The checks are plain functions of a module graph, so the last tests below
show that each of them fails on a graph with one upward import or one
circle added, and on a copy of the real package with one bad line in it.
"""

from __future__ import annotations

import ast
import functools
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "termsim"

#: What each part of termsim may import from termsim, lowest first. A part
#: is a package (``emulator``) or a top-level module (``errors``). The edges
#: (the public face, the CLI, the plugin) may import anything.
LAYERS: dict[str, set[str]] = {
    "errors": set(),
    "events": set(),
    "naming": set(),
    "emulator": {"errors", "naming"},
    "recording": {"errors", "events"},
    "engine": {"errors", "events", "emulator", "recording"},
    "live": {"errors", "events", "emulator", "recording", "engine"},
    "report": {"errors", "events", "emulator", "recording", "engine"},
    "offline": {"errors", "events", "emulator", "recording", "engine", "report"},
    "codegen": {"errors", "events", "emulator", "recording", "engine"},
    "drive": {"errors", "events", "emulator", "recording", "engine", "live", "codegen"},
}
EDGES = {"__init__", "__main__", "cli", "cli_common", "cli_export", "pytest_plugin",
         "pytest_fixtures", "runner", "files", "surface"}

#: Inside the emulator, the same rule by concern, lowest first: the
#: terminals it can play, reading bytes, the screen, signals, snapshots,
#: input encodings, the answers to queries, and the terminal that joins them.
EMULATOR_LAYERS: dict[str, set[str]] = {
    "terminals": set(),
    "parsing": {"terminals"},
    "screen": {"terminals", "parsing"},
    "signals": {"parsing"},
    "snapshot": {"screen", "signals", "parsing", "terminals"},
    "input": {"snapshot", "screen", "signals", "parsing", "terminals"},
    "answers": {"input", "screen", "parsing", "terminals"},
    "terminal": {"answers", "input", "snapshot", "signals", "screen", "parsing", "terminals"},
}

#: Third-party and standard modules a layer must not touch: the emulator is
#: sans-IO (bytes in, replies and snapshots out), the recording format knows
#: nothing of screens.
FORBIDDEN: dict[str, set[str]] = {
    "emulator": {"anyio", "asyncio", "trio", "os", "time", "msgpack", "subprocess", "select"},
    "recording": {"pyte", "anyio", "trio", "asyncio"},
    "engine": {"subprocess", "select", "fcntl", "termios", "signal"},
}


def module_name(path: Path, root: Path) -> str:
    """``termsim/engine/driver.py`` -> ``engine.driver``; a package's
    ``__init__`` is named after the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The termsim module a relative import names (``..errors`` from
    ``engine.driver`` is ``errors``)."""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    if importer == "__init__":
        base = []
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *(module.split(".") if module else [])])


@functools.cache
def _parse(text: str, filename: str) -> ast.Module:
    return ast.parse(text, filename)


@pytest.fixture(scope="module", autouse=True)
def _forget_the_trees() -> Iterator[None]:
    """The trees are shared by this module's checks only. Kept for the rest
    of an xdist worker's life they were a third of a million objects that
    every full pass of the cycle collector walked again, in whatever tests
    that worker ran next."""
    yield
    _parse.cache_clear()
    _imports.cache_clear()


def parsed(path: Path) -> ast.Module:
    """The module's tree, parsed once a process for each text: seven checks
    read the same 150 modules, and copies of the package differ in one file.
    (The trees are only read.)"""
    return _parse(path.read_text(), path.name)


def imports_in(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """The module's import statements, wherever they are (functions, ``if
    TYPE_CHECKING``, ``try``), in order."""
    return _imports(parsed(path))


@functools.cache
def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    # Statements hold imports, expressions never: only the bodies of
    # statements are walked (``ast.walk`` visits every node, twenty times
    # as many, and seven checks read the whole package).
    found: list[ast.Import | ast.ImportFrom] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            todo.extend(reversed(getattr(node, field, None) or []))
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    return found


def read_imports(root: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Every module's termsim imports and its outside imports (top names)."""
    inner: dict[str, set[str]] = {}
    outer: dict[str, set[str]] = {}
    names = {module_name(p, root) for p in root.rglob("*.py")}
    for path in sorted(root.rglob("*.py")):
        name = module_name(path, root)
        is_package = path.name == "__init__.py"
        deps: set[str] = set()
        others: set[str] = set()
        for node in imports_in(path):
            if isinstance(node, ast.ImportFrom) and node.level:
                target = resolve(name, is_package, node.level, node.module)
                for alias in node.names:
                    # ``from . import events`` names a module, not a symbol.
                    sub = f"{target}.{alias.name}" if target else alias.name
                    deps.add(sub if sub in names else target)
            elif isinstance(node, ast.ImportFrom) and node.module:
                if node.module.split(".")[0] == "termsim":
                    deps.add(node.module.removeprefix("termsim").lstrip(".") or "__init__")
                else:
                    others.add(node.module.split(".")[0])
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    others.add(alias.name.split(".")[0])
        deps.discard("")
        deps.discard(name)
        inner[name] = {d for d in deps if d in names or d.split(".")[0] in LAYERS}
        outer[name] = others
    return inner, outer


def part_of(module: str) -> str:
    return module.split(".")[0]


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """Imports that break the layer contract, as readable lines."""
    bad = []
    for module, deps in sorted(graph.items()):
        part = part_of(module)
        if part in EDGES:
            continue
        assert part in LAYERS, f"{module} is in no layer: add its package to LAYERS"
        for dep in sorted(deps):
            if part_of(dep) != part and part_of(dep) not in LAYERS[part]:
                bad.append(f"{module} imports {dep} ({part} may import only "
                           f"{', '.join(sorted(LAYERS[part])) or 'nothing of termsim'})")
    return bad


def emulator_upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """Imports between the emulator's sub-packages that run up their order,
    and modules of the emulator outside every sub-package."""
    bad = []
    for module, deps in sorted(graph.items()):
        parts = module.split(".")
        if parts[0] != "emulator" or len(parts) == 1:
            continue
        sub = parts[1]
        if sub not in EMULATOR_LAYERS:
            bad.append(f"{module} is in no sub-package of the emulator: add it to one")
            continue
        for dep in sorted(deps):
            dep_parts = dep.split(".")
            if dep_parts[0] != "emulator" or len(dep_parts) == 1 or dep_parts[1] == sub:
                continue
            if dep_parts[1] not in EMULATOR_LAYERS[sub]:
                allowed = ", ".join(sorted(EMULATOR_LAYERS[sub])) or "nothing"
                bad.append(f"{module} imports {dep} (emulator.{sub} may import only {allowed})")
    return bad


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of modules with more than one member
    (Tarjan's algorithm), each as the path of one circle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in graph.get(node, ()):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def forbidden_imports(outer: Mapping[str, set[str]]) -> list[str]:
    return [f"{module} imports {name}"
            for module, names in sorted(outer.items())
            for name in sorted(names & FORBIDDEN.get(part_of(module), set()))]


def test_no_import_runs_up_the_layers() -> None:
    graph, _ = read_imports(PACKAGE)
    assert upward_imports(graph) == []


def test_the_emulator_sub_packages_import_only_downward() -> None:
    graph, _ = read_imports(PACKAGE)
    assert emulator_upward_imports(graph) == []
    upward = {**graph, "emulator.screen.cells": graph["emulator.screen.cells"]
              | {"emulator.snapshot.snapshot"}}
    assert emulator_upward_imports(upward) == [
        "emulator.screen.cells imports emulator.snapshot.snapshot (emulator.screen may "
        "import only parsing, terminals)"]
    loose = {**graph, "emulator.stray": {"emulator.parsing.tokenizer"}}
    assert emulator_upward_imports(loose) == [
        "emulator.stray is in no sub-package of the emulator: add it to one"]


def private_imports(root: Path) -> list[str]:
    """``from <a termsim module> import _name``: a name its module keeps to
    itself, used by another (a shared name goes without the underscore)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in imports_in(path):
            if isinstance(node, ast.ImportFrom) and (
                    node.level or (node.module or "").split(".")[0] == "termsim"):
                found += [f"{module_name(path, root)} imports {alias.name}"
                          for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
    return found


def test_no_module_imports_another_s_private_name(tmp_path: Path) -> None:
    assert private_imports(PACKAGE) == []
    copy = tmp_path / "termsim"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    region = copy / "emulator" / "snapshot" / "region.py"
    region.write_text(region.read_text() + "\nfrom .rows import _private  # noqa: F401\n")
    assert private_imports(copy) == ["emulator.snapshot.region imports _private"]


def test_no_module_imports_itself_back() -> None:
    graph, _ = read_imports(PACKAGE)
    # Packages' __init__ docstrings import nothing; a circle through one of
    # them would still be found here.
    assert circles(graph) == []


def test_the_emulator_does_no_io_and_the_format_knows_no_screen() -> None:
    _, outer = read_imports(PACKAGE)
    assert forbidden_imports(outer) == []


def test_every_module_is_in_a_layer_and_the_graph_is_read() -> None:
    graph, outer = read_imports(PACKAGE)
    assert {part_of(m) for m in graph} <= set(LAYERS) | EDGES
    # The reader sees relative, lazy and TYPE_CHECKING imports.
    assert "emulator.snapshot.snapshot" in graph["engine.predicates"]
    assert "errors" in graph["emulator.input.keys"]
    assert "pyte" in outer["emulator.screen.screen"] or any(
        "pyte" in outer[m] for m in graph if m.startswith("emulator."))


def test_the_checks_fail_on_an_upward_import_and_a_circle() -> None:
    graph, _ = read_imports(PACKAGE)
    snapshot = "emulator.snapshot.snapshot"
    upward = {**graph, snapshot: graph[snapshot] | {"engine.engine"}}
    assert upward_imports(upward) == [
        f"{snapshot} imports engine.engine (emulator may import only errors, naming)"]
    circle = {**graph, snapshot: graph[snapshot] | {"emulator.snapshot.region"}}
    assert ["emulator.snapshot.region", snapshot] in circles(circle)


def test_a_bad_line_in_the_source_is_caught(tmp_path: Path) -> None:
    """The whole path, from the files: a copy of the package with one lazy
    upward import (the kind that used to close circles) fails the contract."""
    copy = tmp_path / "termsim"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    region = copy / "emulator" / "snapshot" / "region.py"
    region.write_text(region.read_text() + (
        "\n\ndef _late() -> None:\n    from ...engine.driver import Driver  # noqa: F401\n"))
    graph, _ = read_imports(copy)
    assert upward_imports(graph) == [
        "emulator.snapshot.region imports engine.driver (emulator may import only errors, "
        "naming)"]
    assert circles(graph) != []


@pytest.mark.parametrize("part", sorted(LAYERS))
def test_each_package_says_what_it_is(part: str) -> None:
    init = PACKAGE / part / "__init__.py"
    if not init.exists():
        init = PACKAGE / f"{part}.py"
    doc = ast.get_docstring(ast.parse(init.read_text()))
    assert doc and "TODO" not in doc and len(doc) > 200, f"{init} needs a docstring"
