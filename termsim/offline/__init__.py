"""Sessions from recordings, and the flake hunting built on them.

``session`` is :func:`termsim.replay`: the same engine driven by recorded
events on a virtual clock, so a failure in CI fails the same way on a laptop
in milliseconds. ``perturb`` makes variants of a recording that could
physically have happened (reads split and joined, gaps stretched), ``shake``
runs a test body against them, and ``diff`` aligns two recordings on their
inputs and waits to say where they parted.
This package is internal: the supported API is ``termsim``'s top level.
"""
