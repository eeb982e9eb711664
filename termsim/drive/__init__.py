"""Driving a program step by step from outside Python: ``termsim drive`` (a
daemon holding named sessions, a command a step) and ``termsim mcp`` (the
same verbs as an MCP server's tools, for coding agents).

``service`` holds the sessions and does the steps, whichever way they
come (``requests``: what a request may hold; ``answers``: the JSON they
answer with); ``daemon`` serves them on a private Unix socket (``paths``: where,
and who may connect; ``protocol``: one JSON line each way), ``reaper``
ends their programs when the daemon is gone, however it went; ``client``
and ``cli`` are the commands; ``mcp`` is the MCP server. Every session is
recorded with its steps as they were asked, and ``termsim.codegen.driven``
writes the test (``termsim.codegen.driven_waits``: a wait as it is asked,
run and written). It sits at the edge, beside ``termsim.cli``, which
registers its commands (:func:`termsim.drive.cli.add_parsers`).
"""
