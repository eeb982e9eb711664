"""The terminals termsim can play: where real terminals disagree
(``emulation``), the xterm it is by default (``xterm``), and each profile
with the facts and sources behind it (``profiles``).

Lowest in the emulator: the screen reads its emulation choices from here,
and the answers to queries read the profile.
"""
