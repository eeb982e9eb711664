"""A prompt_toolkit prompt whose lexer gives every character its own colour,
so the renderer writes an SGR between any two characters typed, and prints
what was entered."""

from prompt_toolkit import PromptSession
from prompt_toolkit.lexers import Lexer

COLOURS = ["ansired", "ansigreen", "ansiyellow", "ansiblue", "ansimagenta", "ansicyan"]


class EachCharacter(Lexer):
    def lex_document(self, document):  # type: ignore[no-untyped-def]
        def line(number):  # type: ignore[no-untyped-def]
            text = document.lines[number]
            return [(f"fg:{COLOURS[i % len(COLOURS)]}", ch) for i, ch in enumerate(text)]
        return line


session: PromptSession[str] = PromptSession(lexer=EachCharacter())
entered = session.prompt("key> ")
print("entered", len(entered), "characters")
