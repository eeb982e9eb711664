"""The trace viewer (steps, their screens and bytes) and ``termsim show --steps``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CHROMIUM, trace_bench
from readme import block

from termsim.cli import main
from termsim.events import Input, Output, WaitEnded, WaitStarted
from termsim.files import Recording
from termsim.recording.format import RecordingWriter, make_header
from termsim.report import html_trace
from termsim.report.html import recording_html
from termsim.report.html_screens import FrameEncoder
from termsim.report.names import Named, named
from termsim.report.predicate_text import parse
from termsim.report.steps import input_title, story
from termsim.report.steps_text import steps_markdown

ROOT = Path(__file__).resolve().parent.parent
BOOT_HANG = ROOT / "recordings" / "boot-hang.tsr"
PASSING = ROOT / "recordings" / "passing.tsr"
bench = trace_bench()


# -- the model and the text ------------------------------------------------------------


def test_sequences_are_named_by_the_terminals_grammar() -> None:
    (tokens,) = named([b"\x1b[?25l\x1b[3;1Hhi\r\n\x1b[1;31m\x1b]2;t\x07\x1b[6n\x1b[?2026h"])
    assert [(t.text, t.name) for t in tokens] == [
        ("ESC[?25l", "hide cursor"), ("ESC[3;1H", "cursor to row 2, col 0"), ("hi", ""),
        ("CR", "carriage return"), ("LF", "line feed"), ("ESC[1;31m", "style: bold, fg red"),
        ("ESC]2;tBEL", "set title 't'"), ("ESC[6n", "query: cursor position"),
        ("ESC[?2026h", "begin synchronized update")]
    # A sequence cut across two reads is named once, whole, where it ends.
    first, second = named([b"a\x1b[1", b"0;5Hb"])
    assert [t.text for t in first] == ["a"]
    assert [(t.text, t.name) for t in second] == [("ESC[10;5H", "cursor to row 9, col 4"),
                                                  ("b", "")]


def test_a_wait_over_its_inputs_reads_shows_them_named_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    header = make_header(argv=["prog"], cwd="/", cols=40, rows=5, env={"TERM": "xterm"})
    writer = RecordingWriter(tmp_path / "rec.tsr", header)
    # Input #1's wait spans the very reads the input does: their rows are shared.
    writer.write(Input(0.1, b"a\r", "typed 'a' + enter"))
    writer.write(WaitStarted(0.1, 1, "text 'one' anywhere", None, 1.0))
    writer.write(Output(0.2, b"\x1b[1mone\x1b[m\r\n"))
    writer.write(Output(0.3, b"\x1b[32mok\x1b[m"))
    writer.write(WaitEnded(0.3, 1, "matched"))
    # Input #2's wait ends inside a sequence its input's next read ends:
    # the same first reads, not the same tokens (the wait's CSI is cut short).
    writer.write(Input(0.4, b"b\r", "typed 'b' + enter"))
    writer.write(WaitStarted(0.4, 2, "text 'two' anywhere", None, 1.0))
    writer.write(Output(0.5, b"two\x1b[3"))
    writer.write(WaitEnded(0.6, 2, "timed out"))
    writer.write(Output(0.7, b"1mred"))
    writer.close(0.8, "closed")
    recording = Recording.open(tmp_path / "rec.tsr")
    calls: list[list[bytes]] = []

    def counted(chunks: list[bytes]) -> list[list[Named]]:
        calls.append(chunks)
        return named(chunks)

    monkeypatch.setattr(html_trace, "named", counted)
    data, _, _ = html_trace.trace_data(recording, FrameEncoder(), 100)
    steps = {s["title"].split(":")[0]: s for s in data["steps"]}

    def shown(step: dict[str, Any]) -> list[list[tuple[str, str]]]:
        return [[(text, data["names"][name] if name >= 0 else "") for text, name, _ in row]
                for kind, *_, row in step["y"] if kind == "o"]

    one, two = steps["type 'a', press enter"], steps["type 'b', press enter"]
    assert shown(steps["wait for text 'one' anywhere"]) == shown(one) == [
        [("ESC[1m", "style: bold"), ("one", ""), ("ESC[m", "style: reset"),
         ("CR", "carriage return"), ("LF", "line feed")],
        [("ESC[32m", "style: fg green"), ("ok", ""), ("ESC[m", "style: reset")]]
    assert shown(steps["wait for text 'two' anywhere"]) == [
        [("two", ""), ("ESC[3", "CSI cut short by the end of the data")]]
    assert shown(two) == [[("two", "")], [("ESC[31m", "style: fg red"), ("red", "")]]
    # Each list of reads once (a step without output names none).
    assert [c for c in calls if c] == [[b"\x1b[1mone\x1b[m\r\n", b"\x1b[32mok\x1b[m"],
                                       [b"two\x1b[3", b"1mred"], [b"two\x1b[3"]]


def test_inputs_are_told_as_the_test_wrote_them() -> None:
    assert input_title("typed 'select 1;'") == "type 'select 1;'"
    assert input_title("typed 'ls' + enter") == "type 'ls', press enter"
    assert input_title("key enter") == "press enter"
    assert input_title("click left at row 3, col 10") == "click 3,10"
    assert input_title("scroll down 2 at row 1, col 4") == "scroll down 2 1,4"


def test_predicates_come_back_from_their_words() -> None:
    for words in ["text 'state: booting' in the bottom row",
                  "the cursor right after '❯ ' and the program reading keys in raw mode",
                  "regex /a and b/ in rows 1:3, columns 2:", "not the cursor at row 3 (hidden)"]:
        predicate = parse(words)
        assert predicate is not None and predicate.describe() == words
    assert parse("the program to exit") is None


def test_the_boot_hang_story_opens_on_its_failed_wait() -> None:
    told = story(Recording.open(BOOT_HANG))
    step = told.steps[told.focus]
    assert step.kind == "wait" and step.outcome == "timed out"
    failure = step.failure
    assert failure is not None
    assert failure.explanation == ("not the cursor right after '❯ ' "
                                   "(left of the cursor (row 1, column 0): '')")
    assert "'❯ ' is nowhere on the screen" in failure.near
    assert [(o.top, o.left, o.bottom, o.right) for o in failure.outline] == [(1, 0, 2, 1)]
    assert "state: booting" in told.screens[step.after][1].text


def test_since_says_when_screens_started_to_count() -> None:
    told = story(Recording.open(PASSING))
    inputs = [s.title for s in told.steps if s.kind == "input"]
    assert inputs == ["press down", "press enter", "type 'hello'", "press enter",
                      "press ctrl+d"]
    assert any("the program had read input #4" in s.read for s in told.steps)


def test_show_steps_markdown_is_the_readme_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(BOOT_HANG), "--steps", "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert out == steps_markdown(Recording.open(BOOT_HANG))
    assert out == block("steps-md")


def test_show_steps_as_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(BOOT_HANG), "--steps"]) == 0
    text = capsys.readouterr().out
    assert "!  4" in text and "instead: not the cursor right after" in text
    assert "^ left of the cursor" in text
    assert main(["show", str(BOOT_HANG), "--steps", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["focus"] == 4
    failed = data["steps"][3]
    assert failed["failed"] and failed["failure"]["outline"][0]["top"] == 1
    assert main(["show", str(BOOT_HANG), "--format", "md"]) == 2
    assert main(["show", str(BOOT_HANG), "--steps", "--at", "1"]) == 2


# -- in headless Chromium, with the keyboard -------------------------------------------

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs chromium")



def open_page(browser: Any, page: Path, fragment: str = "") -> None:
    bench.load(browser, page.as_uri() + fragment)


def state(browser: Any) -> dict[str, Any]:
    return dict(browser.js("""(function () {
      function q(s) { return document.querySelector(s); }
      return {step: document.body.dataset.step, hash: location.hash,
        title: q('#step-title').textContent, failure: q('#failure').textContent,
        before: q('#screen-before').textContent, after: q('#screen-after').textContent,
        afterFrame: q('#screen-after').dataset.frame, final: q('#screen-after').dataset.final,
        boxes: Array.from(document.querySelectorAll('#screen-after .outline'))
          .map(function (b) { return [b.dataset.box, b.style.top, b.style.left]; }),
        changed: document.querySelectorAll('#screen-after .chg').length,
        bytes: q('#bytes').textContent,
        reads: document.querySelectorAll('#bytes .read').length,
        terms: document.querySelectorAll('.term').length,
        screens: document.querySelectorAll('.term, #screen').length};
    })()"""))


@needs_chromium
def test_the_failed_wait_opens_with_its_screens_outline_and_near_miss(
        tmp_path: Path, browser: Any) -> None:
    page = tmp_path / "boot.html"
    page.write_text(recording_html(Recording.open(BOOT_HANG)), encoding="utf-8")
    open_page(browser, page)
    s = state(browser)
    assert s["step"] == "4" and "timed out" in s["title"]
    assert "Starting the local server" in s["before"]
    assert "state: booting" in s["after"] and s["final"] == "1"
    assert s["boxes"] and "left of the cursor" in s["boxes"][0][0]
    assert s["boxes"][0][1] == "20px"  # row 1: 6px of padding, 14px a row
    assert "instead: not the cursor right after '❯ '" in s["failure"]
    assert "near misses:" in s["failure"] and "'❯ ' is nowhere on the screen" in s["failure"]
    # The keyboard: left, right, and the permalink follows.
    browser.key("ArrowLeft", 37)
    s = state(browser)
    assert s["step"] == "3" and s["hash"] == "#step=3" and "query ESC[6n" in s["title"]
    assert "query: cursor position" in s["bytes"]
    browser.key("ArrowRight", 39)
    browser.key("ArrowRight", 39)
    assert state(browser)["step"] == "5"
    open_page(browser, page, "#step=2")
    s = state(browser)
    assert s["step"] == "2" and "said: title 'agent-repl'" in s["title"]
    assert "set title 'agent-repl'" in s["bytes"]


@needs_chromium
def test_a_key_step_shows_what_it_changed_and_the_bytes_it_caused(
        tmp_path: Path, browser: Any) -> None:
    page = tmp_path / "passing.html"
    page.write_text(recording_html(Recording.open(PASSING)), encoding="utf-8")
    open_page(browser, page, "#step=9")
    s = state(browser)
    assert "press enter" in s["title"] and s["changed"] > 0
    assert s["reads"] >= 1 and "the program read input #4" in s["bytes"]
    assert "hide cursor" in s["bytes"] and "show cursor" in s["bytes"]
    # Up and down walk the settled screens between before and after.
    last = s["afterFrame"]
    browser.key("ArrowUp", 38)
    s = state(browser)
    assert s["afterFrame"] != last and s["final"] == "0"
    browser.key("ArrowDown", 40)
    assert state(browser)["afterFrame"] == last


@needs_chromium
def test_a_ten_minute_session_is_drawn_lazily_and_searchable(
        tmp_path: Path, browser: Any) -> None:
    # 8,000 reads over ten minutes: the page's structure is that of the
    # 100,000 that benchmarks/bench_trace_page.py times (more than 2,000
    # frames in its data: about 4,700 here, 5,900 there; three screens in
    # the DOM; each step's output cut to STEP_BYTES, its middle left out),
    # at two thirds of the cost of 20,000 reads. Below about 5,000 reads a
    # step's output fits whole and the cut is no longer tried: the focused
    # step's "left out" below says it still is.
    recording = bench.long_session(tmp_path / "long.tsr", 8_000)
    html = recording_html(recording)
    page = tmp_path / "long.html"
    page.write_text(html, encoding="utf-8")
    # The page does not grow with the session: 4.2 MB here, 4.3 at 20,000
    # reads, 4.4 at 100,000 (whose recording is 12 MB). 7 MB fails a page
    # that grows by 350 bytes a read, or by 2.8 MB at all: tighter than the
    # 12 MB this test allowed at 20,000 reads (385 bytes a read, 7.7 MB).
    assert len(html.encode()) < 7_000_000
    open_page(browser, page)
    s = state(browser)
    assert "reads of output" in s["bytes"] and "left out here" in s["bytes"]
    frames = browser.js("JSON.parse(document.getElementById('termsim-data').textContent)"
                        ".frames.length")
    assert int(frames) > 2000
    # Only the screens in view are in the DOM: before, after and the scrubber's.
    assert s["terms"] == 2 and s["screens"] == 3
    assert "timed out" in s["title"] and s["boxes"]
    assert browser.js("document.querySelectorAll('#screen-after span, #screen-after div')"
                      ".length") < 500
    for _ in range(5):
        browser.key("ArrowLeft", 37)
    assert state(browser)["step"] == str(int(s["step"]) - 5)
    browser.key("/", 191)
    browser.page("Input.insertText", text="done 42")
    browser.key("Enter", 13)
    found = browser.js("document.getElementById('search-results').children.length")
    assert int(found) >= 1
    browser.key("Enter", 13)  # the first result has the focus: go there
    s = state(browser)
    assert "done 42" in s["after"]
