"""Prints the environment variables named on its command line, one a row
(``NAME=value``; for a name given as ``?NAME``, a secret's, only ``NAME
set``; ``NAME unset`` when it is not), then ``ready>`` and reads a line;
a line read, it says ``bye`` and exits 0. What a program that reads its
settings from the environment (an agent's ``MYAGENT_REPLY_LINES``, ``CI``)
shows differently when a test sets them."""

import os
import sys

for arg in sys.argv[1:]:
    name = arg.removeprefix("?")
    value = os.environ.get(name)
    if value is None:
        print(f"{name} unset")
    else:
        print(f"{name} set" if arg.startswith("?") else f"{name}={value}")
sys.stdout.write("ready> ")
sys.stdout.flush()
sys.stdin.readline()
print("bye")
