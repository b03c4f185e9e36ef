"""`tasks-server config CLIENT` prints a configuration whose command starts this install's
server from a desktop client: under an empty environment holding only the system PATH, the
command it names answers `initialize` and `tools/list` (a real process, raw JSON-RPC)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(sys.executable).with_name("tasks-server")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def printed(client: str, root: Path, *options: str) -> str:
    done = subprocess.run(
        [str(SCRIPT), "config", client, "--root", str(root), *options],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=root.parent,
    )
    assert done.stderr == ""
    return done.stdout


def tool_names(argv: list[str], env: dict[str, str]) -> list[str]:
    """Start `argv` as a desktop client would (`env -i PATH=...` plus the config's env),
    initialize, and list the tools."""
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "desktop", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    server = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": SYSTEM_PATH, **env},
        cwd="/",
    )
    assert server.stdin is not None and server.stdout is not None
    answers: dict[int, Any] = {}
    for message in messages:
        server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()
        while "id" in message and message["id"] not in answers:
            line = server.stdout.readline()
            assert line, server.communicate()[1].decode()
            reply = json.loads(line)
            answers[reply.get("id")] = reply
    server.communicate(timeout=60)  # closing stdin ends the session
    assert answers[1]["result"]["serverInfo"]["name"]
    return [tool["name"] for tool in answers[2]["result"]["tools"]]


def test_the_printed_json_config_starts_the_server_with_only_the_system_path(
    example_root: Path,
) -> None:
    server = json.loads(printed("claude-desktop", example_root, "--role", "planner"))
    server = server["mcpServers"]["tasks"]
    assert Path(server["command"]).is_absolute()
    assert server["args"][:3] == ["serve", "--root", str(example_root)]
    names = tool_names([server["command"], *server["args"]], server.get("env", {}))
    assert "get_ready_tasks" in names and "create_task" not in names


def test_a_project_mcp_json_starts_the_same_command_as_claude_desktop(
    example_root: Path,
) -> None:
    desktop = json.loads(printed("claude-desktop", example_root))["mcpServers"]["tasks"]
    project = json.loads(printed("mcp-json", example_root))["mcpServers"]["tasks"]
    assert project == {"type": "stdio", **desktop}


def test_the_printed_claude_code_command_starts_the_server_with_only_the_system_path(
    example_root: Path,
) -> None:
    words = shlex.split(printed("claude-code", example_root))
    assert words[:4] == ["claude", "mcp", "add", "tasks"]
    env = dict(words[i + 1].split("=", 1) for i, word in enumerate(words) if word == "-e")
    argv = words[words.index("--") + 1 :]
    assert "create_task" in tool_names(argv, env)


def test_a_relative_root_is_written_absolute(example_root: Path) -> None:
    done = subprocess.run(
        [str(SCRIPT), "config", "claude-desktop", "--root", example_root.name],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=example_root.parent,
        env={**os.environ, "TASKS_ROOT": ""},
    )
    args = json.loads(done.stdout)["mcpServers"]["tasks"]["args"]
    assert args == ["serve", "--root", str(example_root)]
