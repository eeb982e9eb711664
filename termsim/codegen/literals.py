"""Text from a recording, written into the generated test's source.

A recording may come from anyone (a bug report), and every string in it
(its file name, the header's ``started`` and ``argv``, a comment typed into
the marks menu, what the program drew) is data. Written into Python source
unquoted, a ``\\r`` in a comment starts a new line of code, a ``\"\"\"`` in a
screen row ends its string, and the test runs what the recording says when
it is imported. So each such string goes into the source in one of three
forms, each of which is one token whatever the text holds:

* a literal made by ``repr()`` (``literal``, and the screens'
  :func:`screen_argument` when their rows are not plain);
* a comment or a docstring's words, shown with
  :func:`~termsim.emulator.terminals.xterm.printable` (:func:`comment`,
  :func:`docstring_words`): no line end the tokenizer or an editor
  knows, no control, no bidirectional override, and, in a docstring, no
  quote or backslash left bare;
* a string a person would have written (a raw pattern, a triple-quoted
  screen) only where its text is :func:`plain`: nothing in it that means
  anything inside that string.

The generated text then holds no control character but the newlines that
end its lines, so ``termsim codegen`` may print it to a terminal as well.
"""

from __future__ import annotations

import re
import unicodedata

from ..emulator.terminals.xterm import printable
from ..engine.screentext import parse

#: What CPython's tokenizer ends a line at (``\\r`` and ``\\r\\n`` are read as
#: ``\\n``), and what other readers of source do too (``str.splitlines``,
#: editors): none may stay in a comment. ``printable`` escapes them all.
LINE_ENDS = frozenset("\r\n\f\v\x1c\x1d\x1e\x85\u2028\u2029")
#: Format characters that belong inside text: emoji sequences and the
#: scripts that need joining are written with them.
JOINERS = frozenset("\u200c\u200d")
#: What is never written into source as it is: controls, lone surrogates,
#: line and paragraph separators, and format characters (a bidirectional
#: override, an invisible tag) that would hide what the text says.
_HIDDEN = frozenset({"Cc", "Cs", "Zl", "Zp", "Cf"})


def plain(text: str) -> bool:
    """Whether ``text`` reads as what it is: no character that
    :func:`printable` would escape and no other format character (but
    the :data:`JOINERS`), no backslash."""
    return "\\" not in text and printable(text) == text and not any(
        unicodedata.category(c) in _HIDDEN and c not in JOINERS for c in text)


def visible(text: str) -> str:
    """``text`` as :func:`printable` shows it, and the format characters it
    leaves (an invisible tag, a zero-width space) as ``\\uNNNN`` too."""
    shown = printable(text)
    out = "".join(c if c in JOINERS or unicodedata.category(c) not in _HIDDEN
                  else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
                  for c in shown)
    assert not LINE_ENDS & set(out), out  # printable() escapes every one
    return out


def comment(text: str) -> str:
    """A comment saying ``text``: one line, whatever ``text`` holds."""
    return f"# {visible(text)}".rstrip()


def docstring_words(text: str) -> str:
    """``text`` to stand in a ``\"\"\"`` docstring: as :func:`visible` shows
    it, its backslashes and quotes escaped, so that it neither ends the
    docstring nor starts an escape (the docstring's value holds it as
    :func:`visible` shows it)."""
    return visible(text).replace("\\", "\\\\").replace('"', '\\"')


def literal(value: str) -> str:
    """A string literal whose value is ``value``."""
    return repr(value)


def raw_pattern(pattern: str) -> str:
    """A regular expression as a raw string literal where one can hold it
    as it is (no quote, no line end, no trailing backslash), else as
    ``repr()`` writes it."""
    if '"' not in pattern and not pattern.endswith("\\") and plain(pattern.replace("\\", "")):
        return f'r"{pattern}"'
    return repr(pattern)


def identifier(text: str, default: str) -> str:
    """A name for a function, from a file's name: its letters, digits and
    underscores (runs of anything else become one ``_``), lower case."""
    name = re.sub(r"\W+", "_", text).strip("_").lower()
    if not f"a{name}".isidentifier():
        # \w takes some characters no identifier may hold (a superscript two).
        name = "".join(c if f"a{c}".isidentifier() else "_" for c in name)
        name = re.sub(r"__+", "_", name).strip("_")
    name = name or default
    return name if not name[0].isdigit() else f"{default}_{name}"


def screen_argument(rendered: list[str]) -> str:
    """``expect_screen``'s argument for a screen whose rows, rendered as
    a golden file holds them (masks applied, full width), are ``rendered``.

    As a person writes it where that means the screen: the rows without
    their trailing blanks in a triple-quoted string. Each row between
    ``|`` where that would read otherwise (every row indented, a first
    blank row, a row that looks like a header, a legend or a margin) or
    would not be the screen. And where a row is not :func:`plain` or holds
    ``\"\"\"``, as the same text in ``repr()``'d lines, one a row. Whichever it
    is, the value :func:`~termsim.engine.screentext.parse` reads from it
    is checked to be the screen, row for row.
    """
    bare = [row.rstrip() for row in rendered]
    while bare and not bare[-1]:
        bare.pop()
    framed = [f"|{row}|" for row in rendered]
    for rows, margins in ((bare, False), (framed, True)):
        if all(plain(row) and '"""' not in row for row in rows):
            value = "".join(f"\n{row}" for row in rows) + "\n"
            source = f'"""{value}"""'
        else:
            value = "".join(f"{row}\n" for row in rows)
            source = "".join(f"\n        {literal(f'{row}{chr(10)}')}" for row in rows)
        wanted = parse(value)
        if rows and wanted.header is None and not wanted.styles and not wanted.legend \
                and wanted.margins == margins and wanted.rows == (rendered if margins else bare):
            return source
    raise AssertionError(f"no expectation reads back as the screen {rendered!r}")


def literal_list(values: list[str]) -> str:
    """A list literal of the strings ``values``."""
    return f"[{', '.join(literal(str(value)) for value in values)}]"
