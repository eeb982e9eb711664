"""Raw-mode reader: enables bracketed paste, then prints the repr of each
read() it gets, so a test can see exactly how input was split into writes."""

import os
import sys
import tty

tty.setraw(0)
sys.stdout.write("\x1b[?2004hREADY\r\n")
sys.stdout.flush()
while True:
    data = os.read(0, 4096)
    sys.stdout.write(f"READ {data!r}\r\n")
    sys.stdout.flush()
    if b"\x04" in data:
        break
