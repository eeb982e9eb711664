"""The trace viewer on a long session: page size, build time, load time.

A synthetic 10-minute session of 100,000 reads of output (a status line and
a scrolling log, as a busy TUI draws), with an input and a wait every six
seconds, the last wait failing. Prints how long ``recording_html`` takes,
the page's size, and how long headless Chromium takes to open it and show
the failed wait, then to step through 20 steps with the keyboard.

    python benchmarks/bench_trace_page.py [--events 100000] [--keep page.html]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from termsim.events import Input, InputRead, Output, TtyMode, WaitEnded, WaitStarted
from termsim.files import Recording
from termsim.recording.format import RecordingWriter, make_header
from termsim.report.html import recording_html


def long_session(path: Path, events: int = 100_000, seconds: float = 600.0) -> Recording:
    """``events`` reads of output over ``seconds``, an input and a wait every 6 s."""
    header = make_header(argv=["busy-tui"], cwd="/", cols=100, rows=30,
                         env={"TERM": "xterm-256color"})
    writer = RecordingWriter(path, header)
    writer.write(TtyMode(0.0, True))
    step = seconds / events
    every = max(events // 100, 1)
    wait = 0
    mark = 0
    for i in range(events):
        t = round(i * step, 6)
        if i % every == 0 and i:
            mark += 1
            wait += 1
            writer.write(Input(t, b"x\r", f"typed 'job {mark}' + enter", tracked=True))
            writer.write(WaitStarted(t, wait, f"text 'done {mark}' in the bottom row",
                                     f"input #{mark} (typed 'job {mark}' + enter) at {t:.3f} s",
                                     6.0))
        if i % every == 1 and mark:
            writer.write(InputRead(t, mark))
        line = (f"\x1b[?25l\x1b[30;1H\x1b[7m job {mark} line {i:6d} \x1b[m\x1b[K"
                f"\x1b[29;1H\r\n\x1b[32mlog\x1b[m {i} lorem ipsum dolor sit amet {i * 7 % 1000}"
                f"\x1b[?25h")
        writer.write(Output(t + step / 2, line.encode()))
        if i % every == every - 1 and wait:
            outcome = "matched" if mark < 99 else "timed out"
            if outcome == "matched":
                writer.write(Output(t + step * 0.7, f"\x1b[30;1Hdone {mark}\x1b[K".encode()))
            writer.write(WaitEnded(t + step * 0.8, wait, outcome))
    writer.close(seconds, "closed")
    return Recording.open(path)


class Chromium:
    """Headless Chromium driven over the DevTools protocol on a pipe."""

    def __init__(self, profile: str) -> None:
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()
        high = [os.dup(fd) for fd in (cmd_r, out_w)]

        def fds() -> None:
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        chromium = shutil.which("chromium") or "chromium"
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        for fd in (cmd_r, out_w, *high):
            os.close(fd)
        self._buf = b""
        self._id = 0
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]

    def send(self, method: str, session: str | None = None, **params: object) -> dict:
        self._id += 1
        message: dict[str, object] = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._cmd_w, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                ready, _, _ = select.select([self._out_r], [], [], 60)
                if not ready:
                    raise TimeoutError(method)
                chunk = os.read(self._out_r, 1 << 20)
                if not chunk:
                    raise EOFError(method)
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))

    def page(self, method: str, **params: object) -> dict:
        return self.send(method, self.session, **params)

    def js(self, expression: str) -> object:
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(str(result["exceptionDetails"])[:500])
        return result["result"].get("value")

    def key(self, key: str, code: int) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.page("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                      windowsVirtualKeyCode=code, nativeVirtualKeyCode=code)

    def screenshot(self, path: str) -> None:
        shot = self.page("Page.captureScreenshot", format="png")
        Path(path).write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (OSError, EOFError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)
        os.close(self._out_r)


def load(browser: Chromium, url: str) -> float:
    """Seconds from navigating to ``url`` until the page shows a step."""
    browser.page("Page.enable")
    begin = time.perf_counter()
    browser.page("Page.navigate", url=url)
    while not browser.js("document.readyState === 'complete' && "
                         "document.body && document.body.hasAttribute('data-step')"):
        time.sleep(0.01)
    return time.perf_counter() - begin


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--keep", help="also write the page here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        recording = long_session(Path(tmp) / "long.tsr", args.events)
        print(f"recording: {len(recording.events)} events, {recording.size} bytes, "
              f"{recording.duration:.0f} s of session (written in "
              f"{time.perf_counter() - began:.1f} s)")
        began = time.perf_counter()
        html = recording_html(recording)
        built = time.perf_counter() - began
        page = Path(args.keep or Path(tmp) / "page.html")
        page.write_text(html, encoding="utf-8")
        print(f"page: {len(html.encode()) / 1e6:.2f} MB, built in {built:.1f} s")
        if shutil.which("chromium") is None:
            print("chromium not found: no load time")
            return
        browser = Chromium(str(Path(tmp) / "profile"))
        try:
            for attempt in range(3):
                seconds = load(browser, page.as_uri())
                print(f"load {attempt + 1}: {seconds:.2f} s to the failed wait "
                      f"(step {browser.js('document.body.dataset.step')})")
            began = time.perf_counter()
            for _ in range(20):
                browser.key("ArrowLeft", 37)
                browser.js("document.body.dataset.step")
            print(f"20 steps back with the keyboard: {time.perf_counter() - began:.2f} s")
            began = time.perf_counter()
            browser.js("(function(){var s=document.getElementById('search');"
                       "s.value='done 42';s.dispatchEvent(new Event('input'));})()")
            while not browser.js("document.getElementById('search-results')"
                                 ".hasAttribute('data-found')"):
                time.sleep(0.01)
            found = browser.js("document.getElementById('search-count').textContent")
            print(f"search of every screen's text: {time.perf_counter() - began:.2f} s "
                  f"({found} found)")
            screens = browser.js("document.querySelectorAll('.term,#screen').length")
            print(f"screens in the DOM: {screens}")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
