"""Stand-ins: the one seam through which ``spawn()`` may hand out a session it did not start.

Shaking a test (:mod:`termsim.offline.shake`) runs its body again with each
``spawn()`` answered by a replay of the session it recorded. The layers
forbid the live package to know the offline one (``tests/test_layers.py``),
and it must not: so neither names the other. The offline side registers a
maker for a block (:func:`standing_in`), through the context variable the
runner's settings carry (:mod:`termsim.engine.settings`); live's ``spawn``
asks here first (:func:`stand_in`). Both import this module, in the engine
layer they share, and the layer test sees both edges.

What a maker returns is a :class:`~termsim.engine.driver.Driver`, the API
live sessions and replays share, checked here when it comes back; ``spawn``
hands it to its caller where a live ``Session`` is declared, and this is
the one place termsim says so: a stand-in answers every call a test makes
of a session through the Driver (waits, keys, the screen, the clock), not
what only a live session has (its ``pid``); a test that uses those cannot
be shaken, and shake says so before it tries (``Shaker.replayable``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from ..errors import ArgumentError
from .driver import Driver
from .settings import substitute_for, substitute_sessions

#: Given the argv of a session about to start and ``spawn()``'s other
#: arguments, the session to hand out instead (None: start the program).
Maker = Callable[[list[str], dict[str, Any]], "Driver | None"]

D = TypeVar("D", bound=Driver)


@contextmanager
def standing_in(maker: Maker | None) -> Iterator[None]:
    """Inside this block (and the tasks it starts), ``spawn()`` asks
    ``maker(argv, options)`` first and hands out what it makes, if anything,
    instead of starting the program. Blocks nest; None turns it off."""
    with substitute_sessions(maker):
        yield


def stand_in(kind: type[D], argv: list[str], options: Mapping[str, Any]) -> D | None:
    """The session to hand out instead of starting ``argv``, as the ``kind``
    the caller declares it returns (None: start the program).

    :class:`~termsim.ArgumentError` if the maker made something that is
    not a Driver (a test's own fake, say): the caller would fail later, at
    its first wait, far from the cause."""
    made = substitute_for(list(argv), dict(options))
    if made is None:
        return None
    if not isinstance(made, Driver):
        raise ArgumentError(
            f"spawn() was answered with a {type(made).__name__}, which is not a termsim "
            "session: a stand-in for spawn() must be a Driver (a termsim.replay(...) "
            "session, or a class built on termsim.Driver); give standing_in() a maker "
            "that returns one, or None to start the program")
    # The one place a Driver is handed out as the kind declared (the module says why).
    return cast(D, made)
