"""Prints a reply longer than the screen after each line it reads (cooked mode)."""

import sys

while True:
    sys.stdout.write("> ")
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        break
    for n in range(1, 61):
        print(f"reply line {n} to {line.strip()}")
    print("end of reply")
