"""A prompt_toolkit REPL with a completion menu, as IPython and ptpython have:
Tab opens the menu of the words that complete what was typed, the arrow keys
move through it (the line shows the entry selected), Enter picks the entry
(the menu closes, the line stays), and Enter again runs the line: the program
answers with what was picked. Ctrl-D quits."""

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import WordCompleter
from prompt_toolkit.filters import completion_is_selected
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

WORDS = ["apple", "apricot", "avocado", "banana", "blueberry", "cherry"]

keys = KeyBindings()


@keys.add("enter", filter=completion_is_selected)
def _pick(event: KeyPressEvent) -> None:
    """Enter on a selected entry takes it, and leaves the line to edit."""
    event.current_buffer.complete_state = None


def main() -> None:
    session: PromptSession[str] = PromptSession(
        "fruit> ", completer=WordCompleter(WORDS), complete_while_typing=False,
        key_bindings=keys,
    )
    while True:
        try:
            line = session.prompt()
        except EOFError:
            return
        print(f"picked {line.strip()!r}, {len(line.strip())} letters")


main()
