"""The sans-IO terminal: bytes in, replies and screens out.

:class:`~termsim.Terminal` (``terminal``) is the one way in: it feeds the
program's bytes through the tokenizer (``tokenizer``, the only code that knows
where an escape sequence begins and ends) to the screen (``screen``, pyte's
``Screen`` extended by concern), answers the program's queries at the byte
where they were asked (``queries``, one table; ``terminal_answers``, the
bookkeeping of when and in what order; ``tcap``, XTGETTCAP's terminfo
names), as the terminal it plays answers them (``profiles``), and hands out immutable
:class:`~termsim.Snapshot` values (``snapshot``) that regions (``region``)
look into. SGR (``sgr``, ``styled``), keys (``keys``) and mouse reports
(``mouse``) are the encodings both directions need; ``emulation`` holds the
choices where real terminals disagree.

Nothing here touches a file descriptor, a clock or an event loop, so all of
it is tested with plain byte strings (``tests/test_layers.py`` holds that).
For people who use the terminal without a program (feeding it bytes of
their own, comparing it with another emulator, choosing how it answers),
this package's top level is the supported API; the modules in it are
internal. Test code imports from :mod:`termsim`.
"""

from ..naming import publish
from .emulation import Emulation
from .keys import key_bytes
from .profiles import PROFILES, Profile
from .terminal import QUERY_KINDS, Policy, Terminal

__all__ = ["PROFILES", "QUERY_KINDS", "Emulation", "Policy", "Profile", "Terminal", "key_bytes"]

publish(globals(), __all__, __name__)
del publish
