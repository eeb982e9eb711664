"""Says things outside the cells, one key at a time, as agent CLIs and
build tools do: each key it reads is answered by one write that holds the
signal and a line of text (``done b``), so a test can wait for either.

    b  rings the bell               l  prints an OSC 8 link
    c  writes "hello" to the clipboard (OSC 52)
    n  sends a notification (OSC 777, then OSC 9)
    t  sets the title to "working", then, in a later write, to "idle"
    i  sends a sixel image           k  sends a kitty image in two chunks
    q  quits, leaving the terminal as it found it
    x  quits, leaving the mouse and the alternate screen on
"""

import os
import tty

OSC = b"\x1b]"
ST = b"\x1b\\"
ANSWERS = {
    b"b": b"\x07",
    b"l": OSC + b"8;id=docs;https://example.org/docs" + ST + b"the docs" + OSC + b"8;;" + ST,
    b"c": OSC + b"52;c;aGVsbG8=\x07",
    b"n": OSC + b"777;notify;Build;finished" + ST + OSC + b"9;all done\x07",
    b"t": OSC + b"2;working\x07",
    b"i": b'\x1bPq"1;1;4;6#0~~~~\x1b\\',
    b"k": b"\x1b_Ga=T,f=100,s=8,v=4,m=1;AAAA" + ST + b"\x1b_Gm=0;BBBB" + ST,
}

tty.setraw(0)
os.write(1, b"ready> ")
while True:
    key = os.read(0, 1)
    if not key or key == b"q":
        break
    if key == b"x":
        os.write(1, b"\x1b[?1049h\x1b[?1000h\x1b[?1006hleft dirty")
        os._exit(0)
    os.write(1, ANSWERS.get(key, b"") + b"\r\ndone " + key + b"\r\nready> ")
    if key == b"t":
        os.write(1, OSC + b"2;idle\x07")
