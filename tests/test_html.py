"""The HTML report of a recording: one self-contained page, the screens over time,
and terminal output that stays data however hostile it is."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from termsim import Style
from termsim.cli import main
from termsim.emulator import Terminal
from termsim.events import (
    Exit,
    Input,
    Note,
    Output,
    Resize,
    WaitEnded,
    WaitStarted,
    Warned,
)
from termsim.files import Playback, Recording
from termsim.recording.format import RecordingWriter, make_header
from termsim.report.draw import look, safe_link
from termsim.report.html import _SCRIPT, _Encoder, recording_html

ROOT = Path(__file__).resolve().parent.parent
PASSING = ROOT / "recordings" / "passing.tsr"
BOOT_HANG = ROOT / "recordings" / "boot-hang.tsr"

EVIL_OUTPUT = [
    b"<script>alert(1)</script>",
    b"</pre>",
    b"</script>",
    b"\"'><img src=x onerror=alert(1)>",
    b"\x1b]8;;javascript:alert(1)\x1b\\click\x1b]8;;\x1b\\",
    "<!-- \u2028x\u2029 &amp; </div><a href=javascript:alert(1)>".encode(),
]
EVIL_TEXT = "</script><script>alert(9)</script>\"'><img src=x onerror=alert(1)>"
#: The only elements the page's own markup uses.
PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "table", "tr", "th", "td",
             "div", "button", "input", "span", "ol", "li", "script"}


class Page(HTMLParser):
    """Every element with its attributes, the scripts' text, and #screen's text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.texts: list[str] = []
        self._script: dict[str, str | None] | None = None
        self._script_text: list[str] = []
        self._ids: dict[str, list[str]] = {}
        self._open: list[tuple[str, int]] = []  # (id, depth) of elements being read
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.elements.append((tag, a))
        if tag == "script":
            self._script, self._script_text = a, []
        self._open = [(i, d + 1) for i, d in self._open]
        if a.get("id") and tag not in ("input", "meta"):
            self._ids[str(a["id"])] = []
            self._open.append((str(a["id"]), 1))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._script_text)))
            self._script = None
        self._open = [(i, d - 1) for i, d in self._open if d > 1]

    def handle_data(self, data: str) -> None:
        self.texts.append(data)
        if self._script is not None:
            self._script_text.append(data)
        for i, _ in self._open:
            self._ids[i].append(data)

    def text_of(self, element_id: str) -> str:
        return "".join(self._ids[element_id])

    def attrs_of(self, element_id: str) -> dict[str, str | None]:
        return next(a for _, a in self.elements if a.get("id") == element_id)


def evil_recording(path: Path) -> Recording:
    header = make_header(argv=["prog", EVIL_TEXT], cwd=EVIL_TEXT, cols=60, rows=12,
                         env={"TERM": "xterm-256color"})
    recorder = RecordingWriter(path, header)
    recorder.write(Output(0.1, b"\x1b]2;</title><script>alert(2)</script>\x07hello\r\n"))
    recorder.write(WaitStarted(0.15, 1, f"text {EVIL_TEXT!r}", EVIL_TEXT, 1.0))
    t = 0.2
    for line in EVIL_OUTPUT:
        recorder.write(Output(t, line + b"\r\n"))
        t += 0.1
    recorder.write(Input(t, EVIL_TEXT.encode() + b"\x1b[A", f"typed {EVIL_TEXT!r}"))
    recorder.write(Note(t + 0.01, EVIL_TEXT))
    recorder.write(Warned(t + 0.02, EVIL_TEXT))
    recorder.write(WaitEnded(1.15, 1, "timed out"))
    recorder.write(Resize(1.2, 50, 10))
    recorder.write(Output(1.3, b"\x1b[1;31mafter resize\x1b[0m \xff\xfe bad bytes"))
    recorder.write(Exit(1.4, 0))
    recorder.close(1.5, "closed")
    return Recording.open(path)


def data_of(page: Page) -> dict[str, Any]:
    (attrs, text), _ = page.scripts
    assert attrs == {"type": "application/json", "id": "termsim-data"}
    return dict(json.loads(text))


def frame_text(data: dict[str, Any], frame: dict[str, Any]) -> str:
    rows = []
    for index in frame["r"]:
        row = data["rows"][index]
        rows.append(row if isinstance(row, str) else "".join(run[0] for run in row))
    return "\n".join(rows)


def rstripped(text: str) -> list[str]:
    return [line.rstrip() for line in text.split("\n")]


def check_no_live_markup(html: str) -> Page:
    page = Page(html)
    # The only scripts are the page's: its JSON data, and its own code.
    assert len(page.scripts) == 2
    assert page.scripts[1] == ({}, _SCRIPT)
    assert {tag for tag, _ in page.elements} <= PAGE_TAGS
    assert [tag for tag, _ in page.elements].count("script") == 2
    for tag, attrs in page.elements:
        for name, value in attrs.items():
            assert not name.lower().startswith("on"), (tag, name)
            assert name.lower() not in ("href", "src", "srcdoc", "action", "formaction")
            assert "javascript:" not in (value or "").lower() or name == "title", (tag, name)
    # The JSON cannot end its block or open markup: no "<", ">" or "&" at all.
    raw = html.split('<script type="application/json" id="termsim-data">', 1)[1]
    raw = raw.split("</script>", 1)[0]
    assert not set(raw) & {"<", ">", "&", "\u2028", "\u2029"}
    return page


def test_hostile_output_input_notes_and_header_stay_text(tmp_path: Path) -> None:
    recording = evil_recording(tmp_path / "evil.tsr")
    html = recording_html(recording)
    page = check_no_live_markup(html)
    data = data_of(page)
    end = frame_text(data, data["frames"][-1])
    final = Playback(recording).screen_at()
    assert rstripped(end) == rstripped(final.text)
    # The output is all there, as text, in the frames.
    before_resize = [f for f in data["frames"] if f["t"] <= 1.1][-1]
    shown = frame_text(data, before_resize)
    for line in EVIL_OUTPUT[:4]:
        assert line.decode() in shown
    assert "\nclick\n" in shown  # an OSC 8 link: its text, not its (javascript:) target
    assert before_resize["title"] == "</title><script>alert(2)</script>"
    assert data["frames"][-1]["w"] == 50 and len(data["frames"][-1]["r"]) == 10
    # The header, the input, the note, the warning and the wait, as text.
    text = "".join(page.texts)
    assert text.count(EVIL_TEXT) >= 5
    assert "timed out" in text
    assert "resize to 50x10" in text
    title = next(a["title"] for t, a in page.elements if "wait" in (a.get("class") or "")
                 and t == "div")
    assert f"text {EVIL_TEXT!r}: timed out after 1.000 s" in str(title)


def test_page_needs_nothing_but_itself() -> None:
    html = recording_html(Recording.open(PASSING))
    page = check_no_live_markup(html)
    lowered = html.lower()
    for needle in ("http:", "https:", "//cdn", "url(", "@import", "<link", "@font-face"):
        assert needle not in lowered
    csp = next(a["content"] for t, a in page.elements
               if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    digest = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in str(csp)
    assert "default-src 'none'" in str(csp)
    # The elements a test (or a person) uses.
    assert page.attrs_of("scrubber")["type"] == "range"
    assert float(page.attrs_of("scrubber")["max"]) == pytest.approx(
        Recording.open(PASSING).duration, abs=1e-6)
    assert "screen" in page._ids and "time" in page._ids
    assert "python examples/agent_repl.py" in page.text_of("header")
    assert "xterm-256color" in page.text_of("header")
    assert "pyte 0.8.2" in page.text_of("header")
    assert Recording.open(PASSING).header["started"][:19] in page.text_of("header")


def test_frames_are_the_screens_of_their_moments() -> None:
    recording = Recording.open(PASSING)
    data = data_of(Page(recording_html(recording)))
    frames = data["frames"]
    assert frames[0]["t"] == 0.0
    times = [f["t"] for f in frames]
    assert times == sorted(times)
    outputs = [e.t for e in recording.of_type(Output)]
    assert set(times[1:]) <= set(outputs)
    assert times[-1] <= outputs[-1]
    for i, frame in enumerate(frames):
        if i + 1 < len(frames) and frames[i + 1]["t"] == frame["t"]:
            continue
        snap = Playback(recording).screen_at(frame["t"])
        assert rstripped(frame_text(data, frame)) == rstripped(snap.text), frame["t"]
        assert frame["c"] == [snap.cursor.row, snap.cursor.col, snap.cursor.visible]
    # Identical screens in a row are one frame; rows are stored once.
    assert len(frames) < len(outputs)
    assert len(data["rows"]) < 60
    # The same recording always gives the same page.
    assert recording_html(recording) == recording_html(Recording.open(PASSING))


def test_waits_inputs_and_exit_are_on_the_timeline() -> None:
    hang = Recording.open(BOOT_HANG)
    page = Page(recording_html(hang))
    marks = [a for t, a in page.elements if t == "div" and "mark" in (a.get("class") or "")]
    assert [m["class"] for m in marks] == ["mark wait ok", "mark wait bad"]
    start, end = list(hang.of_type(WaitStarted))[1], list(hang.of_type(WaitEnded))[1]
    took = f"timed out after {end.t - start.t:.3f} s"
    assert took in str(marks[1]["title"])
    assert "timeout 120.0 s" in str(marks[1]["title"])
    assert float(str(marks[1]["data-t"])) == pytest.approx(end.t, abs=1e-5)
    events = page.text_of("events")
    assert took in events and "killed by SIGHUP" in events
    page = Page(recording_html(Recording.open(PASSING)))
    events = page.text_of("events")
    assert "key down: ESC[B" in events and "typed 'hello': hello" in events
    assert events.count("matched after") == 5


def test_huge_recordings_are_capped_keeping_the_last_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "long.tsr"
    recorder = RecordingWriter(path, make_header(argv=["x"], cwd="/", cols=20, rows=3, env={}))
    for i in range(3000):
        recorder.write(Output(i / 1000, f"\r{i:5d}".encode()))
    recorder.close(3.0, "closed")
    recording = Recording.open(path)
    # The cap saves the work too: a screen is taken for each frame kept, not
    # for each of the 3000 events.
    taken: list[int] = []
    screen = Terminal.screen

    def counted(term: Terminal) -> object:
        taken.append(1)
        return screen.fget(term)  # type: ignore[attr-defined]

    with monkeypatch.context() as patch:
        patch.setattr(Terminal, "screen", property(counted))
        data = data_of(Page(recording_html(recording, max_frames=100)))
    # (One more than the frames: the steps read the last screen's signals.)
    assert len(taken) <= 101
    frames = data["frames"]
    assert len(frames) == 100
    assert frames[-1]["t"] == pytest.approx(2.999)
    assert frame_text(data, frames[-1]).startswith(" 2999")
    gaps = {round(b["t"] - a["t"], 3) for a, b in itertools.pairwise(frames[1:])}
    assert max(gaps) - min(gaps) <= 0.002  # evenly spaced
    assert len(data_of(Page(recording_html(recording)))["frames"]) == 2000


def test_cli_export_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    assert main(["export", str(PASSING), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == recording_html(Recording.open(PASSING))
    # The other formats still work.
    for name in ("s.cast", "s.txt"):
        assert main(["export", str(PASSING), "-o", str(tmp_path / name)]) == 0
        assert (tmp_path / name).stat().st_size > 0


def test_encoder_rows_are_runs_of_looks_with_the_cursor_over_them() -> None:
    term = Terminal(10, 4)
    term.feed("a中\x1b[31mred\x1b[m\r\n\x1b[7mrev\x1b[m  x\r\n\x1b[1mbold".encode())
    term.feed("\x1b]2;<b>\u0085\x07\x1b[1;3H".encode())  # the cursor on the right half of 中
    encoder = _Encoder()
    frame = encoder.frame(1.5, term.screen)
    assert {k: v for k, v in frame.items() if k != "r"} == {
        "t": 1.5, "c": [0, 2, True], "w": 10, "title": "<b>\ufffd"}

    def index(style: Style, cursor: bool = False) -> int:
        return encoder.looks.index(look(style, cursor))

    rows = [encoder.rows[i] for i in frame["r"]]
    assert rows == [
        [["a", 0], ["中", index(Style(), True)], ["red", index(Style(fg="red"))]],
        [["rev", index(Style(reverse=True))], ["  x", 0]],
        [["bold", index(Style(bold=True))]],
        "",  # blank rows, and rows all in the default look, are plain strings
    ]
    css = encoder.css()
    assert "#screen .s1{" in css and "outline:1px solid" in css
    # The cursor past the end of a row: the blanks up to it are drawn.
    term.feed(b"\x1b[4;4H")
    frame = encoder.frame(2.0, term.screen)
    assert encoder.rows[frame["r"][3]] == [["   ", 0], [" ", index(Style(), True)]]
    term.feed(b"\x1b[?25l")
    assert encoder.rows[encoder.frame(2.5, term.screen)["r"][3]] == ""


def test_encoder_encodes_a_row_once_however_many_frames_show_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[object] = []
    encode = _Encoder._encode

    def counting(self: _Encoder, runs: Any, cursor_col: int) -> Any:
        encoded.append(runs)
        return encode(self, runs, cursor_col)

    monkeypatch.setattr(_Encoder, "_encode", counting)
    term = Terminal(20, 6)
    term.feed(b"\x1b[2;1H" + b"\x1b[32mstatic line\x1b[m\r\n" * 4 + b"\x1b[?25l")
    encoder = _Encoder()
    frames = []
    for i in range(50):
        term.feed(f"\x1b[1;1Hcount {i}".encode())
        frames.append(encoder.frame(i / 10, term.screen))
    # The counter row 50 times; each static row and the blank row once.
    assert len(encoded) == 50 + 2
    assert len({f["r"][1] for f in frames}) == 1
    # Scrolled rows keep their encoding: only the row that came in is new.
    term.feed(b"\x1b[6;1H\r\nnew")
    encoded.clear()
    encoder.frame(6.0, term.screen)
    assert len(encoded) == 1


# -- in a real browser ----------------------------------------------------------------------

CHROMIUM = shutil.which("chromium")


def dump_dom(page: Path, profile: Path, query: str = "") -> Page:
    """The page's DOM after its script ran, as headless Chromium sees it."""
    assert CHROMIUM is not None
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=2000",
         "--dump-dom", page.as_uri() + query],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert 'id="screen"' in result.stdout, result.stderr[-2000:]
    return Page(result.stdout)


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")
def test_page_in_headless_chromium_shows_the_screen_at_t(tmp_path: Path) -> None:
    recording = Recording.open(PASSING)
    page = tmp_path / "report.html"
    page.write_text(recording_html(recording), encoding="utf-8")
    ends = [e.t for e in recording.of_type(WaitEnded)]
    # The moments to look at, from the recording: the theme picker (the
    # first wait matched), the prompt (the second), the reply's second line.
    before, ready = round(ends[0] + 0.001, 3), round(ends[1] + 0.001, 3)
    line2 = next(e.t for e in recording.of_type(Output) if b"line 2 of" in e.data)
    during = round(line2 + 0.001, 3)
    shown = {}
    queries = [(f"?t={before}", before), (f"?t={during}", during), ("", None),
               (f"#t={ready}", ready)]
    for i, (query, t) in enumerate(queries):
        dom = dump_dom(page, tmp_path / f"profile{i}", query)
        text = dom.text_of("screen")
        assert rstripped(text) == rstripped(Playback(recording).screen_at(t).text), query
        expected = f"{t if t is not None else recording.duration:.3f} s"
        assert dom.text_of("time").startswith(expected)
        shown[query] = text
    assert "Pick a theme" in shown[f"?t={before}"] and "❯" not in shown[f"?t={before}"]
    assert "assistant: line 2" in shown[f"?t={during}"]
    assert "❯" in shown[f"#t={ready}"]
    assert "assistant: line 2" not in shown[f"#t={ready}"]
    assert shown[f"?t={before}"] != shown[f"?t={during}"] != shown[""]
    assert "bye" in shown[""]


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")
def test_hostile_page_in_headless_chromium_builds_no_markup(tmp_path: Path) -> None:
    recording = evil_recording(tmp_path / "evil.tsr")
    page = tmp_path / "evil.html"
    page.write_text(recording_html(recording), encoding="utf-8")
    dom = dump_dom(page, tmp_path / "profile", "?t=1.1")
    text = dom.text_of("screen")
    for line in EVIL_OUTPUT[:4]:
        assert line.decode() in text
    assert {tag for tag, _ in dom.elements} <= PAGE_TAGS | {"tbody"}
    assert not [a for _, a in dom.elements if any(k.startswith("on") for k in a)]
    assert rstripped(text) == rstripped(Playback(recording).screen_at(1.1).text)


# -- OSC 8 hyperlinks --------------------------------------------------------------------

#: URLs a program may send that must never become links: other schemes, and
#: the spellings a browser would still read as one (case, leading blanks,
#: tabs and newlines it drops, backslashes it reads as slashes).
HOSTILE_LINKS = [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)",
    "java\tscript:alert(1)", "java\nscript:alert(1)", "\x01javascript:alert(1)",
    "javascript://example.org/%0aalert(1)", "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)", "//evil.example/x", "https:\\\\evil.example", "http://x/ y",
    "https://" + "a" * 2100,
]
#: URLs that become links: quoting them is the writer's business, not a reason to refuse.
SAFE_LINKS = ["https://example.org/a?b=1&c=2", "http://x/\"><svg/onload=alert(1)>",
              "mailto:someone@example.org", "file:///etc/hosts"]


def test_only_web_mail_and_file_urls_may_become_links() -> None:
    for url in HOSTILE_LINKS:
        assert safe_link(url) is None, url
    for url in SAFE_LINKS:
        assert safe_link(url) == url


def linked_recording(path: Path) -> Recording:
    header = make_header(argv=["links"], cwd="/", cols=60, rows=20, env={})
    recorder = RecordingWriter(path, header)
    for n, url in enumerate(HOSTILE_LINKS + SAFE_LINKS):
        link = b"\x1b]8;;" + url.encode() + b"\x1b\\" + f"L{n}".encode() + b"\x1b]8;;\x1b\\"
        recorder.write(Output(0.1 + n / 100, link + b"\r\n"))
    recorder.close(1.0, "closed")
    return Recording.open(path)


def test_a_link_with_a_hostile_url_stays_text(tmp_path: Path) -> None:
    recording = linked_recording(tmp_path / "links.tsr")
    html = recording_html(recording)
    page = check_no_live_markup(html)
    data = data_of(page)
    assert data["links"] == SAFE_LINKS
    assert "script:" not in json.dumps(data).lower() and "vbscript" not in html
    shown = frame_text(data, data["frames"][-1])
    assert all(f"L{n}" in shown for n in range(len(HOSTILE_LINKS + SAFE_LINKS)))
    # Linked runs name only those links; the hostile ones are plain runs.
    first_safe = len(HOSTILE_LINKS)
    linked = {run[0]: data["links"][run[2]] for row in data["rows"]
              if not isinstance(row, str) for run in row if len(run) > 2}
    assert linked == {f"L{first_safe + i}": url for i, url in enumerate(SAFE_LINKS)}


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")
def test_links_in_headless_chromium_are_safe_links_or_text(tmp_path: Path) -> None:
    page = tmp_path / "links.html"
    html = recording_html(linked_recording(tmp_path / "links.tsr"))
    page.write_text(html, encoding="utf-8")
    dom = dump_dom(page, tmp_path / "profile")
    anchors = [a for tag, a in dom.elements if tag == "a"]
    assert [a["href"] for a in anchors] == SAFE_LINKS
    assert all(a["rel"] == "noopener noreferrer" and a["target"] == "_blank" for a in anchors)
    assert {tag for tag, _ in dom.elements} <= PAGE_TAGS | {"tbody", "a"}
    assert "L0" in dom.text_of("screen")
    # Edited data (a page is a file anyone can change) links to nothing
    # hostile either: the script checks every URL itself.
    tampered = tmp_path / "tampered.html"
    hostile = json.dumps(HOSTILE_LINKS[:len(SAFE_LINKS)]).replace("<", "\\u003c")
    tampered.write_text(html.replace(json.dumps(SAFE_LINKS).replace("&", "\\u0026").replace(
        "<", "\\u003c").replace(">", "\\u003e").replace(", ", ","), hostile), encoding="utf-8")
    assert tampered.read_text(encoding="utf-8") != html
    dom = dump_dom(tampered, tmp_path / "profile2")
    assert not [a for tag, a in dom.elements if tag == "a"]
    assert "L13" in dom.text_of("screen")
