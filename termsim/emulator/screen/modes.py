"""Modes: the alternate screen, DECSCNM, DECCOLM, mouse modes, flags.

Why a module of its own: pyte records most private modes and ignores them
(the alternate screen, selectel/pyte#90); termsim gives each its effect
(buffers switched and cleared as xterm does, the screen inverted and back,
mouse modes that exclude each other) and switches plain flags in one call,
fused across a frame's run of sequences (``FlagSwitch``: prompt_toolkit's
``ESC[?25l``/``ESC[?7l`` around every frame).
"""

from __future__ import annotations

from typing import Any

from pyte import modes as mo

from .margins import DECLRMM, MarginOps
from .state import ScreenState

#: DEC private modes, as pyte stores them (shifted left by 5).
ALT_47 = 47 << 5
ALT_1047 = 1047 << 5
ALT_1049 = 1049 << 5
SAVE_CURSOR_1048 = 1048 << 5
_ALT_MODES = frozenset({ALT_47, ALT_1047, ALT_1049})
#: Mouse tracking modes and coordinate encodings, as ``mode`` stores them.
MOUSE_TRACKING = frozenset(m << 5 for m in (9, 1000, 1002, 1003))
MOUSE_ENCODING = frozenset(m << 5 for m in (1005, 1006, 1015))
_MOUSE_EXCLUSIVE = MOUSE_TRACKING | MOUSE_ENCODING
#: SGR mouse reports in pixels (``?1016h``), shifted.
SGR_PIXELS = 1016 << 5
#: In-band resize reports (kitty, Ghostty, contour): the terminal sends its
#: size when the mode is set and after each resize.
INBAND_RESIZE = 2048


#: Entries a kitty keyboard flag stack holds (one each for the main and the
#: alternate screen); a push past it evicts the oldest, as in kitty
#: (``screen_push_key_encoding_flags``, ``kitty/screen.c``).
KITTY_STACK = 8


class ModeOps(MarginOps):
    """SM/RM and DECSET/DECRST, with the alternate buffer."""

    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        private = kwargs.get("private", False)
        if private and len(modes) > 1:
            # One at a time, in the order given, as xterm's dpmodes: ?6;1049h
            # homes the cursor before 1049 saves it.
            for mode in modes:
                self.set_mode(mode, **kwargs)
            return
        if private:
            for mode in modes:
                if mode << 5 in _ALT_MODES:
                    self._enter_alternate(mode << 5)
                elif mode << 5 == SAVE_CURSOR_1048:
                    self.save_cursor()
                elif mode << 5 == DECLRMM:
                    self.left_right_mode(True)
            modes = self._column_mode(self._screen_reverse(modes, True))
            self._one_mouse_mode(frozenset(m << 5 for m in modes), True)
        super().set_mode(*modes, **kwargs)
        if private and INBAND_RESIZE in modes and self.on_inband_resize is not None \
                and self.offers(INBAND_RESIZE):
            self.on_inband_resize()

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        private = kwargs.get("private", False)
        if private and len(modes) > 1:
            for mode in modes:  # in order, as set_mode
                self.reset_mode(mode, **kwargs)
            return
        if private:
            for mode in modes:
                if mode << 5 in _ALT_MODES:
                    self._leave_alternate(mode << 5)
                elif mode << 5 == SAVE_CURSOR_1048:
                    self.restore_cursor()
                elif mode << 5 == DECLRMM:
                    self.left_right_mode(False)
            modes = self._column_mode(self._screen_reverse(modes, False))
            self._one_mouse_mode(frozenset(m << 5 for m in modes), False)
        super().reset_mode(*modes, **kwargs)

    def save_modes(self, modes: tuple[int, ...]) -> None:
        """XTSAVE (``CSI ? Pm s``): remember whether each private mode is set
        (xterm's ``savemodes``; mc saves and restores the mouse modes so)."""
        for mode in modes:
            if mode != SAVE_CURSOR_1048 >> 5:  # an action, not a state
                self.saved_modes[mode] = mode << 5 in self.mode

    def restore_modes(self, modes: tuple[int, ...]) -> None:
        """XTRESTORE (``CSI ? Pm r``): each mode saved by XTSAVE set or reset
        again, with its effects (a buffer switch, a mouse mode replacing
        another), when it differs from now (xterm's ``restoremodes``);
        modes never saved stay as they are."""
        for mode in modes:
            on = self.saved_modes.get(mode)
            if on is None or on == (mode << 5 in self.mode):
                continue
            if on:
                self.set_mode(mode, private=True)
            else:
                self.reset_mode(mode, private=True)

    def _screen_reverse(self, modes: tuple[int, ...], on: bool) -> tuple[int, ...]:
        """DECSCNM (``CSI ? 5 h``/``l``, terminfo ``flash``: readline's
        visible bell, vim's ``visualbell``) inverts the whole screen. Cells
        hold what is shown, so entering and leaving the mode flips reverse on
        every cell and on the current attributes: a round trip gives every
        cell back. pyte sets reverse on entry and clears it on exit, wiping
        the reverse video the program drew. Returns the other modes."""
        if mo.DECSCNM >> 5 not in modes:
            return modes
        if (mo.DECSCNM in self.mode) != on:
            if on:
                self.mode.add(mo.DECSCNM)
            else:
                self.mode.discard(mo.DECSCNM)
            default = self.default_char
            for buffer in (self.buffer, self._other_buffer):
                for line in buffer.values():
                    line.default = default
                    for x, cell in line.items():
                        line[x] = cell._replace(reverse=not cell.reverse)
            cursor = self.cursor
            cursor.attrs = cursor.attrs._replace(reverse=not cursor.attrs.reverse)
            self._saved = [s and s._replace(attrs=s.attrs._replace(reverse=not s.attrs.reverse))
                           for s in self._saved]
            self._glyphs.clear()
            self._blanks.clear()
            self.dirty.update(range(self.lines))
        return tuple(m for m in modes if m != mo.DECSCNM >> 5)

    def _column_mode(self, modes: tuple[int, ...]) -> tuple[int, ...]:
        """DECCOLM (``CSI ? 3 h``/``l``) does nothing, as in a default xterm
        (``srm_DECCOLM`` acts only with ``allowC132``). With
        ``Emulation(column_mode="clear")`` it clears the screen and homes the
        cursor, as xterm with ``allowC132``, tmux and alacritty do. The width
        stays either way, because a test harness must not change the size
        behind the PTY's back, and so do the margins (xterm resets them only
        through the resize; tmux keeps them). Returns the other modes (pyte
        would resize to 132 columns)."""
        if mo.DECCOLM >> 5 not in modes:
            return modes
        if self.column_mode_clears:
            self._erase_rows(range(self.lines))
            self.cursor_position()  # home, origin-aware (xterm's CursorSet)
        return tuple(m for m in modes if m != mo.DECCOLM >> 5)

    def switch_flags(self, modes: frozenset[int], on: bool) -> None:
        """Set or reset private modes (shifted, as in ``mode``) that are only
        a flag, DECTCEM (the cursor's visibility) included; what
        ``set_mode``/``reset_mode`` do for them, without their checks. Hot
        path (``benchmarks/bench_feed.py``: prompt_toolkit's ``ESC[?25l/h``
        and ``ESC[?7l/h``)."""
        if not modes.isdisjoint(_MOUSE_EXCLUSIVE):
            self._one_mouse_mode(modes, on)
        if on:
            self.mode.update(modes)
        else:
            self.mode.difference_update(modes)
        if mo.DECTCEM in modes:
            self.cursor.hidden = not on

    def _one_mouse_mode(self, modes: frozenset[int], on: bool) -> None:
        """xterm holds one mouse tracking mode and one coordinate encoding:
        setting one replaces the other; resetting any tracking mode turns
        tracking off (xterm's ``set_mousemode``, tmux's ``ALL_MOUSE_MODES``),
        while resetting an encoding only ends that encoding ("a reset is only
        effective against the matching mode"). Called before ``modes``
        (shifted) are set or reset."""
        if not modes.isdisjoint(MOUSE_TRACKING):
            self.mode.difference_update(MOUSE_TRACKING)
        # SGR-pixel reports (1016) are one more encoding where the profile's
        # terminal offers them (kitty/screen.c MOUSE_MODE(MOUSE_SGR_PIXEL_MODE,
        # mouse_tracking_protocol, ...): one protocol at a time).
        encodings = MOUSE_ENCODING
        if (SGR_PIXELS in modes or SGR_PIXELS in self.mode) and self.offers(1016):
            encodings = MOUSE_ENCODING | {SGR_PIXELS}
        if on and not modes.isdisjoint(encodings):
            self.mode.difference_update(encodings)

    def offers(self, mode: int) -> bool:
        """Whether the profile's terminal lets a program set private ``mode``."""
        return self.profile.mode_state(mode) in (1, 2)

    def key_encoding_flags(self, how: str, value: int, mode: int) -> None:
        """``CSI > flags u`` pushes, ``CSI < n u`` pops n, ``CSI = flags ;
        mode u`` sets (1), adds (2) or removes (3) flags in the top entry
        (kitty's keyboard-protocol doc), on the stack of the screen in use
        (main or alternate: one each). ``press()`` encodes keys by the top
        entry; ``hygiene`` tells whether a program left them on. Flags are
        7 bits and the stack holds ``KITTY_STACK`` entries, as kitty's (screen.c
        ``screen_push_key_encoding_flags``)."""
        stack = self.kitty_keyboard
        value &= 0x7F
        if how == ">":
            stack.append(value)
            del stack[:-KITTY_STACK]  # kitty evicts the oldest entry
        elif how == "<":
            del stack[len(stack) - min(max(value, 1), len(stack)):]
        else:
            top = stack[-1] if stack else 0
            top = {1: value, 2: top | value, 3: top & ~value}.get(mode, top)
            if stack:
                stack[-1] = top
            else:
                stack.append(top)

    def set_cursor_shape(self, shape: int) -> None:
        """DECSCUSR (``CSI Ps SP q``): 0 default, 1/2 block, 3/4 underline,
        5/6 bar; anything else is the default."""
        self.cursor_shape = shape if shape <= 6 else 0

    def _enter_alternate(self, mode: int) -> None:
        """47 and 1047 switch; 1049 saves the cursor as DECSC does (in the
        primary buffer's slot), switches and clears. The cursor stays where it
        is: xterm keeps one cursor for both buffers. 1049 while the alternate
        screen is on saves the cursor again (in its slot) and clears it, as
        xterm's ``srm_OPT_ALTBUF_CURSOR`` does whatever the buffer
        (``Emulation.alternate_cursor``)."""
        if self.alternate:
            if mode == ALT_1049 and self.alternate_cursor:
                self.save_cursor()
                self._clear_alternate()
            return
        if mode == ALT_1049:
            self.save_cursor()
        self.buffer, self._other_buffer = self._other_buffer, self.buffer
        self.alternate = True
        if mode == ALT_1049:
            self._clear_alternate()
        self.dirty.update(range(self.lines))

    def _clear_alternate(self) -> None:
        """``?1049h``'s clear: xterm's ``ClearScreen``, which erases in the
        current background colour (BCE), as ED 2 does (real xterm shows it:
        a background set before ``?1049h`` fills the new screen), and ends a
        pending wrap (its ``ResetWrap``: the next character overwrites the
        last column, where the cursor stays)."""
        self.buffer.clear()
        self._erase_rows(range(self.lines))
        self._end_wrap()

    def _leave_alternate(self, mode: int) -> None:
        """47 switches back; 1047 clears the alternate buffer first; 1049
        switches back and restores the cursor as DECRC does, on the main
        screen too, as xterm does (home with nothing saved;
        ``Emulation.alternate_cursor``)."""
        if not self.alternate:
            if mode == ALT_1049 and self.alternate_cursor:
                self.restore_cursor()
            return
        if mode == ALT_1047:
            self.buffer.clear()
        self.buffer, self._other_buffer = self._other_buffer, self.buffer
        self.alternate = False
        if mode == ALT_1049:
            self.restore_cursor()
        self.dirty.update(range(self.lines))


class FlagSwitch:
    """Private modes that are only a flag in the screen's ``mode`` switched
    on and off (DECTCEM also shows or hides the cursor): what one sequence
    (``ESC[?25l``) does, or the net effect of several in a row
    (:meth:`then`), for modes outside the mouse's, which exclude each
    other. Hot path: prompt_toolkit switches ``?25`` and ``?7`` (and ``?12``)
    off and on around every frame; fused, a frame's switches cost one call.
    """

    __slots__ = ("_hidden", "_screen", "off", "on")

    def __init__(self, screen: ScreenState, on: frozenset[int], off: frozenset[int]) -> None:
        if not (on | off).isdisjoint(_MOUSE_EXCLUSIVE):
            raise ValueError("mouse modes exclude each other: switch them one by one")
        self._screen = screen
        self.on = on  # shifted, as in ``mode``
        self.off = off
        # What it does to the cursor's visibility (DECTCEM), if anything.
        self._hidden = (False if mo.DECTCEM in on else True if mo.DECTCEM in off else None)

    def __call__(self) -> None:
        s = self._screen
        s.mode.update(self.on)
        s.mode.difference_update(self.off)
        if self._hidden is not None:
            s.cursor.hidden = self._hidden

    def then(self, other: FlagSwitch) -> FlagSwitch:
        """This switch, then ``other``, as one: the last switch of each mode wins."""
        return FlagSwitch(self._screen, other.on | (self.on - other.off),
                          other.off | (self.off - other.on))
