"""The sans-IO terminal: bytes in, replies and screens out.

:class:`~termsim.Terminal` (``terminal/``) is the one way in: it feeds the
program's bytes through the tokenizer (``parsing/``, the only code that
knows where an escape sequence begins and ends) to the screen (``screen/``,
pyte's ``Screen`` extended by concern), answers the program's queries at
the byte where they were asked (``answers/``, one table; the terminal keeps
the order), as the terminal it plays answers them (``terminals/``, with the
choices where real terminals disagree), and hands out immutable
:class:`~termsim.Snapshot` values (``snapshot/``) that regions look into.
What a program says outside the cells is ``signals/``; keys and mouse
reports, the encodings a test sends, are ``input/``. Each sub-package
imports only those below it, lowest first: terminals, parsing, screen,
signals, snapshot, input, answers, terminal (``tests/test_layers.py``
holds the order).

Nothing here touches a file descriptor, a clock or an event loop, so all of
it is tested with plain byte strings (``tests/test_layers.py`` holds that).
For people who use the terminal without a program (feeding it bytes of
their own, comparing it with another emulator, choosing how it answers),
this package's top level is the supported API; the modules in it are
internal. Test code imports from :mod:`termsim`.
"""

import typing as _typing

__all__ = ["PROFILES", "QUERY_KINDS", "Emulation", "Policy", "Profile", "Terminal", "key_bytes"]

#: Where each name lives: loaded when first asked for, so that a module
#: that needs one corner of the emulator (``printable``, say, for a
#: command's output) does not load all of it.
_HOMES = {"PROFILES": "terminals.profiles", "Profile": "terminals.profiles",
          "QUERY_KINDS": "terminal.terminal", "Policy": "terminal.terminal",
          "Terminal": "terminal.terminal", "Emulation": "terminals.emulation",
          "key_bytes": "input.keys"}

if _typing.TYPE_CHECKING:
    from .input.keys import key_bytes
    from .terminal.terminal import QUERY_KINDS, Policy, Terminal
    from .terminals.emulation import Emulation
    from .terminals.profiles import PROFILES, Profile


def __getattr__(name: str) -> _typing.Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'termsim.emulator' has no attribute {name!r}")
    import importlib

    from ..naming import publish

    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    publish(globals(), [name], __name__)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
