"""A small full-screen prompt_toolkit application: a task list.

The second kind of program termsim is tested against: it switches to the
alternate screen (mode 1049), enables mouse tracking, draws a framed list
with a highlighted selection, an input field and a reverse-video status bar,
and never asks for the cursor position (full-screen apps know their size).

Keys: Up/Down move the selection, Tab switches between list and input,
Enter in the input adds a task, Space toggles the selected task done,
Ctrl-Q quits (the primary screen comes back).
"""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame, TextArea

TASKS = ["write the parser", "answer CPR", "record sessions", "replay offline"]


class TaskList:
    def __init__(self) -> None:
        self.tasks = [[name, False] for name in TASKS]
        self.selected = 0
        self.entry = TextArea(height=1, prompt="new task: ", multiline=False,
                              accept_handler=self.add)
        self.list = Window(FormattedTextControl(self.render, focusable=True), wrap_lines=False)
        status = Window(FormattedTextControl(self.status), height=1, style="reverse")
        root = HSplit([Frame(self.list, title="tasks"), self.entry, status])
        self.app: Application[None] = Application(
            layout=Layout(root, focused_element=self.list), key_bindings=self.keys(),
            full_screen=True, mouse_support=True,
            style=Style.from_dict({"selected": "reverse bold", "done": "ansigreen"}),
        )

    def render(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for i, (name, done) in enumerate(self.tasks):
            style = "class:selected" if i == self.selected else ("class:done" if done else "")
            out.append((style, f" [{'x' if done else ' '}] {name} "))
            out.append(("", "\n"))
        return out

    def status(self) -> StyleAndTextTuples:
        done = sum(1 for _, d in self.tasks if d)
        return [("", f" {done}/{len(self.tasks)} done | Tab: switch  Space: toggle  Ctrl-Q: quit")]

    def add(self, buffer: object) -> bool:
        text = self.entry.text.strip()
        if text:
            self.tasks.append([text, False])
            self.selected = len(self.tasks) - 1
        return False  # clear the field

    def keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit()

        @kb.add("up")
        def _up(event: KeyPressEvent) -> None:
            self.selected = max(0, self.selected - 1)

        @kb.add("down")
        def _down(event: KeyPressEvent) -> None:
            self.selected = min(len(self.tasks) - 1, self.selected + 1)

        @kb.add("space", filter=~self.entry_has_focus())
        def _toggle(event: KeyPressEvent) -> None:
            self.tasks[self.selected][1] = not self.tasks[self.selected][1]

        @kb.add("tab")
        def _switch(event: KeyPressEvent) -> None:
            layout = event.app.layout
            layout.focus(self.entry if layout.has_focus(self.list) else self.list)

        return kb

    def entry_has_focus(self):  # type: ignore[no-untyped-def]
        from prompt_toolkit.filters import Condition

        return Condition(lambda: self.app.layout.has_focus(self.entry))


if __name__ == "__main__":
    TaskList().app.run()
    print("bye")
