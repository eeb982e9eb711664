"""docs/api.md, written from the public modules' ``__all__`` and docstrings.

    python tests/api_reference.py > docs/api.md

``tests/test_package.py`` regenerates it and compares, so a public name added
without its line (or a docstring changed without the reference) fails the
suite with the command above.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import termsim
import termsim.emulator
import termsim.files
import termsim.runner

#: The audiences, in the order the reference lists them.
MODULES: list[tuple[ModuleType, str]] = [
    (termsim, "For test authors: what a test writes."),
    (termsim.runner, "For runners other than pytest: the settings the plugin makes around a test."),
    (termsim.files, "For tools over recordings: the file format, asciicast, reports, diffs."),
    (termsim.emulator, "For the terminal without a program: bytes in, replies and screens out."),
]

HEADER = """# API reference

Every public name of termsim, by who uses it, with its signature and the
first sentence of its docstring (`help()` gives the rest). Written by
`python tests/api_reference.py > docs/api.md`; `tests/test_package.py`
fails when a name is added, removed or redocumented without it.

A test imports from `termsim`; the other modules are for runners, tools and
emulator users. Errors are all under `termsim.TermsimError`; a failed wait
is also an `AssertionError` or `TimeoutError` where that is what it means.
"""


def first_sentence(obj: object) -> str:
    """The docstring's first sentence: up to a full stop that ends a
    sentence (followed by a capital or the end), at most ~160 characters."""
    doc = inspect.getdoc(obj) or ""
    text = " ".join(doc.split("\n\n")[0].split())
    match = re.match(r"(.+?(?<!e\.g)(?<!i\.e)[.!?])(\s+[A-Z(`:]|$)", text)
    sentence = match.group(1) if match else text
    if len(sentence) > 160:
        sentence = sentence[:160].rsplit(" ", 1)[0] + " …"
    return sentence or "(no docstring)"


#: Classes a function builds (spawn, replay, a wait): not constructed by hand.
_BUILT = {"Driver", "Session", "ReplaySession", "Snapshot"}
#: Classes whose members the reference lists too: what a test calls and reads.
_MEMBERS = ("Driver", "Snapshot")


def _is_value(cls: type) -> bool:
    """A class a user reads but does not build (a dataclass, an error, what
    a function returns): its constructor is not part of the API."""
    return (dataclasses.is_dataclass(cls) or issubclass(cls, BaseException | tuple)
            or cls.__name__ in _BUILT)


def members(cls: type) -> list[str]:
    """The public methods and properties of ``cls``, a line each."""
    lines = []
    for attr in sorted(dir(cls)):
        raw = inspect.getattr_static(cls, attr)
        if attr.startswith("_"):
            continue
        if isinstance(raw, property):
            lines.append(f"  - `.{attr}`: {first_sentence(raw.fget)}")
        elif inspect.isfunction(raw):
            func = getattr(raw, "__wrapped__", raw)
            while hasattr(func, "__wrapped__"):
                func = func.__wrapped__
            prefix = "await " if inspect.iscoroutinefunction(func) else ""
            lines.append(f"  - `{prefix}.{attr}{_parameters(inspect.signature(func))}`: "
                         f"{first_sentence(raw)}")
    return lines


def _annotation(value: object) -> str:
    return value if isinstance(value, str) else inspect.formatannotation(value)


def _parameters(sig: inspect.Signature) -> str:
    """The parameters as written in the source: annotations unquoted,
    defaults as their repr (a function default by its name)."""
    parts: list[str] = []
    star = False
    for param in sig.parameters.values():
        if param.name == "self":
            continue
        if param.kind is param.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        text = param.name
        if param.kind is param.VAR_POSITIONAL:
            text, star = f"*{text}", True
        elif param.kind is param.VAR_KEYWORD:
            text = f"**{text}"
        if param.annotation is not param.empty:
            text += f": {_annotation(param.annotation)}"
        if param.default is not param.empty:
            default = param.default
            shown = getattr(default, "__name__", None) if callable(default) else None
            text += f" = {shown or repr(default)}"
        parts.append(text)
    result = f"({', '.join(parts)})"
    if sig.return_annotation is not sig.empty and sig.return_annotation != "None":
        result += f" -> {_annotation(sig.return_annotation)}"
    return result


def signature(name: str, obj: object) -> str:
    if inspect.isclass(obj) and _is_value(obj):
        return f"class {name}"
    if inspect.isclass(obj) or inspect.isfunction(obj):
        try:
            sig = _parameters(inspect.signature(obj))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            sig = ""
        kind = "class " if inspect.isclass(obj) else ""
        return f"{kind}{name}{sig}"
    return name


_CONSTANTS = {
    id(termsim.files.Event): "any event of a session (the classes of `termsim.events`: "
                             "output, input, replies, waits, the exit...)",
    id(termsim.emulator.Policy): "how a kind of query is answered: `\"answer\"`, "
                                 "`\"ignore\"` or a delay in seconds",
    id(termsim.emulator.PROFILES): "the terminals a session can answer as, by name "
                                   "(`termsim profiles` says how each differs)",
    id(termsim.emulator.QUERY_KINDS): "the kinds of query a policy names, each with "
                                      "what it asks",
}


def _constant(obj: object) -> str:
    return _CONSTANTS.get(id(obj), f"a {type(obj).__name__}")


def errors_tree() -> str:
    """The error classes under TermsimError, indented by inheritance."""
    public = {obj for obj in vars(termsim).values()
              if inspect.isclass(obj) and issubclass(obj, termsim.TermsimError | Warning)
              and obj.__module__ == "termsim"}
    lines: list[str] = []

    def walk(cls: type, depth: int) -> None:
        bases = ", ".join(b.__name__ for b in cls.__bases__ if b.__module__ == "builtins"
                          and b is not Exception)
        extra = f" (also {bases})" if bases else ""
        lines.append(f"{'  ' * depth}- `{cls.__name__}`{extra}")
        for sub in sorted((c for c in public if cls in c.__bases__), key=lambda c: c.__name__):
            walk(sub, depth + 1)

    walk(termsim.TermsimError, 0)
    walk(termsim.TermsimWarning, 0)
    return "\n".join(lines)


def reference() -> str:
    out = [HEADER]
    for module, audience in MODULES:
        out.append(f"\n## `{module.__name__}`\n\n{audience}\n")
        for name in module.__all__:
            if name == "__version__":
                out.append("- `__version__`: the version of termsim")
                continue
            obj = getattr(module, name)
            line = first_sentence(obj) if (inspect.isclass(obj) or inspect.isfunction(obj)) \
                else _constant(obj)
            out.append(f"- `{signature(name, obj)}`: {line}")
            if name in _MEMBERS and module is termsim:
                out.extend(members(obj))
        if module is termsim:
            out.append("\n### The errors\n\n" + errors_tree())
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(reference())
