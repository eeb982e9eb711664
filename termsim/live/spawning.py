"""``spawn()``: how a test starts a session, and the one place its options
are settled: ``Session.__init__``'s keyword arguments (declared there once,
given to ``spawn``'s signature for mypy, ``help()`` and IDEs), the test
matrix's combination (the pytest plugin's), and, under shake, a replay of
the session the test recorded in its place (the seam is
:mod:`termsim.engine.standins`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, Concatenate, ParamSpec

from ..engine.driver import require_event_loop
from ..engine.settings import matrix_defaults
from ..engine.standins import stand_in
from ..errors import surface_sync
from .session import Command, Session
from .spawn import check_argv

P = ParamSpec("P")


def _options_of(
    init: Callable[Concatenate[Any, Sequence[str], P], None],
) -> Callable[[Callable[..., Session]], Callable[Concatenate[Command, P], Session]]:
    """Give ``spawn`` the keyword arguments of ``Session.__init__``, declared
    there once: for mypy (through ``P``) and for ``help()`` and IDEs
    (``__signature__``)."""
    own = inspect.signature(init)
    options = list(own.parameters.values())[2:]

    def share(fn: Callable[..., Session]) -> Callable[Concatenate[Command, P], Session]:
        argv = inspect.Parameter("argv", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                 annotation="Command")
        fn.__signature__ = own.replace(  # type: ignore[attr-defined]
            parameters=[argv, *options], return_annotation="Session")
        return fn

    return share


#: Session's own signature, whose defaults ``spawn`` applies (once, there).
_SESSION = inspect.signature(Session.__init__)


@_options_of(Session.__init__)
@surface_sync
def spawn(argv: Command, **options: Any) -> Session:
    """Start ``argv`` in a pseudo-terminal of ``cols`` x ``rows``.

    Use as ``async with termsim.spawn([...]) as term:``. The program starts
    as :mod:`subprocess` would start it: ``argv`` is a list, the program is
    looked up in the ``PATH`` of ``env``, and a failure to start it (no such
    program, a bad ``cwd``, no permission) raises
    :class:`~termsim.TermsimError` with the reason when the block is entered.
    ``env`` replaces the whole environment; ``TERM`` is ``term`` unless
    ``env`` sets it; ``COLUMNS`` and ``LINES`` are dropped unless they say
    the session's size (they describe the terminal running the tests).
    Everything the program starts, daemons included, is ended when the
    block exits.

    ``policy`` says how the terminal answers each kind of query (see
    :data:`termsim.emulator.QUERY_KINDS`): ``"answer"`` (the default), ``"ignore"``
    (never, like a terminal without the feature) or a delay in seconds.
    ``cpr`` is the same for cursor position requests, the usual suspect:
    ``cpr="ignore"`` reproduces CPR starvation.

    ``record``: write the session to this file as it runs (see
    :class:`termsim.files.Recording`); under the pytest plugin sessions record by
    default, and ``record=False`` opts out. ``redact``: strings and compiled
    regexes replaced by ``[REDACTED]`` in everything written to the
    recording (the live screen is untouched); input typed while the program
    has echo off (a password prompt) is masked unless
    ``mask_hidden_input=False``. ``escape_delay``: how long the input after a
    lone Escape waits, so it is not read as Alt+key. ``write_timeout``: how
    long a write may wait for a program that does not read its input.
    ``term``: the ``TERM`` the program sees (the profile's: xterm-256color
    for termsim's xterm). ``profile``: the terminal the session answers as
    (``"kitty"``, ``"tmux"``, ``"vscode"``... :data:`termsim.emulator.PROFILES`;
    ``termsim profiles`` says how each differs from xterm): its answers to
    DA1/DA2/DA3, XTVERSION, DECRQM, OSC 10/11 and the kitty keyboard query,
    its ``TERM`` and the variables it sets (those of the terminal running
    the tests removed from an inherited environment), its drawing choices;
    under a test matrix (``@pytest.mark.termsim(profiles=..., sizes=...)``)
    the combination's, unless given here.
    ``timeout``: the default of every wait of this session (an explicit
    ``timeout=`` wins); ``stall``: the default ``stall=`` of its waits;
    ``ignore``: their default ``ignore=``, the regions where the program
    keeps drawing while idle (``Region.row(-1)`` for a toolbar clock), so
    that ``stall=`` fails a wait on an idle program that animates.
    ``cell_size``: a cell's (width, height) in pixels, for the programs that
    ask (``CSI 14 t``, ``CSI 16 t``, the PTY's pixel size): image viewers,
    sixel and kitty graphics. ``emulation``: where terminals disagree, which
    way termsim goes (:class:`termsim.emulator.Emulation`; xterm's by default).
    ``hygiene``: when the program exits by itself leaving modes on (the
    alternate screen, mouse tracking, bracketed paste...), leaving the
    block raises :class:`termsim.TerminalLeftDirty` naming them; None: as
    the runner says (``pytest --termsim-hygiene``, :func:`termsim.runner.check_hygiene`).
    """
    require_event_loop("spawn")
    args = check_argv(argv)
    matrix = matrix_defaults()
    if matrix is not None:
        # A test matrix's combination (the pytest plugin's), unless said here.
        if matrix.profile is not None and "profile" not in options:
            options["profile"] = matrix.profile
        if matrix.size is not None and "cols" not in options and "rows" not in options:
            options["cols"], options["rows"] = matrix.size
    bound = _SESSION.bind(None, args, **options)
    bound.apply_defaults()
    given = bound.arguments
    # Under shake, a replay of the session the test recorded (the seam is
    # ``engine/standins``, where the offline layer registers its maker).
    replay = stand_in(Session, args, {name: given[name] for name in
                                      ("timeout", "stall", "cols", "rows", "hygiene", "ignore")})
    if replay is not None:
        return replay
    return Session(args, **options)
