"""The waiting engine and what it waits with, shared by live and replayed sessions.

``engine`` consumes a session's events in order, applies them to a terminal
through ``playback`` (the one way an event changes a terminal) and wakes the
waits whose predicates (``predicates``, ``text_predicates``,
``cursor_predicates``) hold on a settled screen, on the source's clock;
``source`` is its contract with live and replayed sources, ``causality``
which inputs the program has read, ``waits`` a pending wait's books;
``failures`` are the errors a wait ends with, ``film`` and ``nearmiss``
what those errors show. ``driver`` is the test-facing API both
kinds of session share (``type``, ``press``, ``wait_for``...), ``expect`` and
``screentext`` are whole-screen expectations and golden files, and
``settings`` what a runner sets around a test (recording, goldens,
substitutes), in context variables.

It knows no process and no file descriptor: a source (``termsim.live`` or
``termsim.replay``) gives it events and time.
This package is internal: the supported API is ``termsim``'s top level.
"""
