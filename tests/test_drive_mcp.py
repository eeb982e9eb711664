"""``termsim mcp``: the same steps through an MCP server, driven by the SDK's
own client, give the same screens and the same recording as ``termsim drive``.

Needs the ``mcp`` SDK (the ``mcp`` extra); skipped without it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT, inherited_env, program
from drive_steps import Driver, cli_has_drive, drive_in, wait_gone
from test_docs import docs_fence

from termsim.codegen.driven import driven_steps, generate
from termsim.files import Recording
from termsim.live.process import is_running

pytestmark = pytest.mark.anyio


@pytest.fixture
def mcp() -> ModuleType:
    """The SDK, imported by the tests that use it: imported with this file, it
    cost each pytest worker 0.3 s of CPU (pydantic models), eight times."""
    return pytest.importorskip("mcp")

PROMPT = {"cursor_after": "❯ ", "input_ready": True}


@pytest.fixture
def drive(tmp_path: Path) -> Iterator[Driver]:
    yield from drive_in(tmp_path)


def _server() -> list[str]:
    """``termsim mcp``, as an agent's configuration names it (docs/drive.md)."""
    config = json.loads(docs_fence("drive-mcp-config"))["mcpServers"]["termsim"]
    assert [config["command"], *config["args"]] == ["termsim", "mcp"]
    if cli_has_drive():
        return [sys.executable, "-m", "termsim", "mcp"]
    return [sys.executable, "-m", "termsim.drive.mcp"]


def _answer(result: Any) -> tuple[bool, dict[str, Any]]:
    data = result.model_dump(by_alias=True)
    answer = json.loads(data["content"][0]["text"])
    assert isinstance(answer, dict)
    return bool(data["isError"]), answer


async def _through_mcp(mcp: ModuleType,
                       directory: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    home = directory / "home"
    home.mkdir()
    (directory / "examples").mkdir()
    (directory / "examples" / "agent_repl.py").symlink_to(ROOT / "examples" / "agent_repl.py")
    command = _server()
    params = mcp.StdioServerParameters(
        command=command[0], args=command[1:], cwd=str(directory),
        env={**inherited_env(), "HOME": str(home), "AGENT_REPL_BOOT_SECONDS": "0.3"})
    answers: list[dict[str, Any]] = []
    async with mcp.stdio_client(params) as (read, write), \
            mcp.ClientSession(read, write) as client:
        await client.initialize()
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {"start", "type", "press", "paste", "resize", "wait", "screen",
                              "status", "stop"}
        assert "READ" in (tools["wait"].description or "")  # how to wait causally, and why

        async def call(tool: str, **arguments: Any) -> dict[str, Any]:
            failed, answer = _answer(await client.call_tool(tool, arguments))
            assert not failed and answer["ok"], answer
            answers.append(answer)
            return answer

        await call("start", name="repl", command=[sys.executable, "examples/agent_repl.py"],
                   cols=60, rows=16)
        await call("wait", name="repl", text=["Pick a theme"], timeout=30)
        await call("press", name="repl", keys=["down", "enter"])
        await call("wait", name="repl", timeout=30, **PROMPT)
        await call("type", name="repl", text="hello")
        await call("press", name="repl", keys=["enter"])
        await call("wait", name="repl", text=["assistant: done"], **PROMPT)
        failed, timed_out = _answer(await client.call_tool(
            "wait", {"name": "repl", "text": ["no such text"], "timeout": 0.5}))
        assert failed and timed_out["error"]["type"] == "termsim.WaitTimeout"
        assert timed_out["error"]["message"].startswith(
            "timed out after 0.5 s waiting for text 'no such text' in the screen\n"
            "  counting only screens drawn after input #4 (key enter)")
        screen = await call("screen", name="repl")
        stopped = await call("stop", name="repl")
        assert stopped["hung_up"] is True
    return answers, screen


async def test_the_same_steps_through_mcp_give_the_same_screens_and_recording(
    mcp: ModuleType, drive: Driver,
) -> None:
    # Through the shell: the steps of tests/test_drive.py.
    python = sys.executable
    drive("start", "repl", "--cols", "60", "--rows", "16", "--", python,
          "examples/agent_repl.py")
    drive("wait", "repl", "--text", "Pick a theme", "--timeout", "30")
    drive("press", "repl", "down", "enter")
    drive("wait", "repl", "--cursor-after", "❯ ", "--input-ready", "--timeout", "30")
    drive("type", "repl", "hello")
    drive("press", "repl", "enter")
    drive("wait", "repl", "--text", "assistant: done", "--cursor-after", "❯ ", "--input-ready")
    drive("wait", "repl", "--text", "no such text", "--timeout", "0.5", check=1)
    shell_screen = drive("screen", "repl", "--json").json()
    shell_recording = drive("stop", "repl", "--json").json()["recording"]

    answers, screen = await _through_mcp(mcp, Path(tempfile.mkdtemp(dir=drive.cwd)))
    assert screen["screen"]["lines"] == shell_screen["screen"]["lines"]
    assert screen["screen"]["cursor"] == shell_screen["screen"]["cursor"]
    assert screen["text"] == shell_screen["text"]
    assert [a["verb"] for a in answers] == [
        "start", "wait", "press", "wait", "type", "press", "wait", "screen", "stop"]
    assert answers[2]["input"] == 2 and answers[5]["label"] == "key enter"

    mcp_recording = answers[-1]["recording"]
    shell, agent = Recording.open(shell_recording), Recording.open(mcp_recording)
    assert agent.complete and shell.complete
    assert [(s.verb, s.data.get("outcome")) for s in driven_steps(agent)] == \
        [(s.verb, s.data.get("outcome")) for s in driven_steps(shell)]

    def body(path: str) -> str:
        source = generate(path)
        return source[source.index("async def drive"):source.index("async def test_")]

    assert body(mcp_recording) == body(shell_recording)


async def test_an_mcp_server_killed_with_sigkill_leaves_no_program(
        mcp: ModuleType, tmp_path: Path) -> None:
    """``termsim mcp`` gives its programs the daemon's mark and tells a
    reaper of them, as the daemon does: killed with SIGKILL (an agent's
    client crashing takes its server down), it leaves none of them running,
    not even a grandchild in a session of its own that ignores SIGHUP and
    SIGTERM. (Before, they were reparented to init and ran on.)"""
    command = _server()
    params = mcp.StdioServerParameters(command=command[0], args=command[1:], cwd=str(tmp_path),
                                       env=inherited_env())
    async with mcp.stdio_client(params) as (read, write), \
            mcp.ClientSession(read, write) as client:
        await client.initialize()

        async def call(tool: str, **arguments: Any) -> dict[str, Any]:
            failed, answer = _answer(await client.call_tool(tool, arguments))
            assert not failed and answer["ok"], answer
            return answer

        await call("start", name="stubborn", command=program("stubborn.py", "--setsid"))
        found = await call("wait", name="stubborn", regex=[r"PIDS ([\d ]+) END"], timeout=30)
        pids = [int(p) for p in found["match"]["groups"][0].split()]
        assert len(pids) == 3 and all(is_running(p) for p in pids)
        server = (await call("status"))["holder"]["pid"]
        os.kill(server, signal.SIGKILL)
        assert wait_gone(server)
        for pid in pids:
            assert wait_gone(pid), f"{pid} outlived its MCP server"
