"""What the tokenizer hands a handler, and what a handler may keep.

Why a module of its own: this is the interface between the tokenizer's
state machine (``tokenizer.py``) and the two kinds of handler it drives:
the terminal's dispatcher, which keeps ready actions for bytes met again
(``FastPaths``: hot path, ``benchmarks/bench_feed.py``), and readers that
need only the tokens (``grammar``'s spans, a test's recorder), which take
``NoFastPaths`` and are handed every token whole.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Protocol

__all__ = ["FastPaths", "Handler", "NoFastPaths", "Part", "Tokens"]

#: One part of a run of sequences: its ready action (``None``: a query, met
#: before or not, or one the handler must see whole each time), and where it
#: starts and ends in the run.
Part = tuple[Callable[[], None] | None, int, int]


class Tokens(Protocol):
    """What a handler is handed: each token, where the parser stands
    (``Parser.next`` is past the token being handed)."""

    def draw(self, text: str) -> None: ...
    def control(self, char: str) -> None: ...
    def csi(self, private: str, params: str, inter: str, final: str, index: int) -> None: ...
    def esc(self, inter: str, final: str, index: int) -> None: ...
    # ``index`` is -1 for a string that began in an earlier chunk.
    def string(self, kind: str, body: str, terminator: str, index: int) -> None: ...
    def garbage(self, kind: str) -> None: ...
    def failed(self, exc: Exception) -> None: ...


class FastPaths(Protocol):
    """Ready actions a handler may keep, so that the same bytes met again
    cost a lookup and a call (the terminal's dispatcher: hot path,
    ``benchmarks/bench_feed.py``). A handler that needs only the tokens
    takes :class:`NoFastPaths`, and is handed every token whole."""

    @property
    def controls(self) -> Mapping[str, Callable[[], None]]:
        """Actions for C0 controls, called instead of ``control()``."""

    @property
    def repeated(self) -> Mapping[str, Callable[[int], None]]:
        """Actions for a run of one C0 control (in ``controls`` too), given
        how many: called instead of the control's action once per character,
        with ``Parser.next`` past the run (a flood of BEL is one call)."""

    @property
    def sequences(self) -> Mapping[str, Callable[[], None]]:
        """Actions for whole 7-bit CSI sequences (``"\x1b[?25l"``) whose
        effect depends on nothing but their bytes, called instead of
        ``csi()``. The handler fills it as it meets such sequences; the
        parser only reads it."""

    @property
    def queries(self) -> Mapping[str, Callable[[int], None]]:
        """Calls for whole 7-bit CSI queries met before (``"\x1b[6n"``),
        given where the query stands: each time it comes it is logged and
        answered at its own index, so it has no ready action, and this
        spares it being split into fields and recognised again. The
        handler fills it; the parser only reads it."""

    def fuse(self, parts: list[Part]) -> list[Part]:
        """A new run's parts, with those that can be done as one fused (the
        result replaces them the next times the run comes). A handler whose
        fusing only saves calls, never changes what the run does, says so
        with a true ``fusing_optional`` attribute: a long run met for the
        first time then runs unfused, as found (``LEARN_LATER``)."""

    def newlines(self, count: int) -> Callable[[], None] | None:
        """The action of CR LF (or CR CR LF) ``count`` times over: one call
        where prompt_toolkit moves the cursor down twenty rows so (``None``:
        each control is handed to ``control()``)."""

    def prepare(
        self, private: str, params: str, inter: str, final: str,
    ) -> Callable[[], None] | None:
        """The ready action of a CSI sequence, kept in ``sequences``, made
        without running it (a new run is learnt before it runs); ``None``
        for one the handler must see whole, in ``csi()``, each time."""

    def prepare_esc(self, final: str) -> Callable[[], None] | None:
        """The same for ``ESC final``, a final of ``escapes.RUN_ESCAPES``
        (``ESC 7``, ``ESC M``...), kept in ``sequences`` as ``"\x1b7"``;
        ``None``: the handler sees it in ``esc()`` each time."""


class Handler(Tokens, FastPaths, Protocol):
    """What :class:`Parser` drives: the tokens, and the fast paths."""


class NoFastPaths:
    """The fast paths of a handler that has none: every control, sequence
    and run part is handed to its ``Tokens`` callbacks, whole, with
    ``Parser.next`` past it (``grammar``'s spans; a test's recorder). NUL
    and DEL, which a terminal ignores, are handed only as ready actions: a
    handler that wants them sets ``controls`` for them (``grammar`` does)."""

    controls: Mapping[str, Callable[[], None]] = MappingProxyType({})
    repeated: Mapping[str, Callable[[int], None]] = MappingProxyType({})
    sequences: Mapping[str, Callable[[], None]] = MappingProxyType({})
    queries: Mapping[str, Callable[[int], None]] = MappingProxyType({})
    fusing_optional = True

    def fuse(self, parts: list[Part]) -> list[Part]:
        return parts

    def newlines(self, count: int) -> Callable[[], None] | None:
        return None

    def prepare(self, private: str, params: str, inter: str, final: str) -> None:
        return None

    def prepare_esc(self, final: str) -> None:
        return None
