"""A textual app with a button, a click counter and a scrollable list: the
mouse tests press the button, double-click the counter and turn the wheel
over the list."""

from textual import events
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Button, Label, Static


class Counter(Static):
    """Counts clicks, and says how long the last click chain was (2: a double click)."""

    clicks = 0

    def on_click(self, event: events.Click) -> None:
        self.clicks += 1
        self.update(f"clicks {self.clicks}, chain {event.chain}")


class Clicks(App[None]):
    CSS = "VerticalScroll { height: 6; border: solid green; }"

    def compose(self) -> ComposeResult:
        yield Button("Press me", id="press")
        yield Label("pressed 0 times", id="count")
        yield Counter("clicks 0, chain 0")
        with VerticalScroll(id="list"):
            for n in range(40):
                yield Label(f"item {n:02}")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.presses = getattr(self, "presses", 0) + 1
        self.query_one("#count", Label).update(f"pressed {self.presses} times")


if __name__ == "__main__":
    Clicks().run()
