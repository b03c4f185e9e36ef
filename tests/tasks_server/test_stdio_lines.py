"""Every line a client writes to a real `tasks-server serve` process over stdio is answered:
a line that is not UTF-8 or not JSON gets -32700, a string that is not valid Unicode (a lone
surrogate, `"\\udcff"`: valid JSON text) gets -32602 with the request's id, a JSON value
that is no JSON-RPC message gets -32600; and the session goes on. The deep test sends a lone
surrogate in every string argument of every listed tool, over stdio and over HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.stdio import ServerProcess
from tests.tasks_server.conftest import post
from tests.tasks_server.test_transports import INITIALIZE, MCP_HEADERS, free_port, served_on

SURROGATE = "\\udcff"  # as JSON text: a lone low surrogate
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class RawStdio(ServerProcess):
    """A `serve` process over stdio (initialized), spoken to in raw lines."""

    def write(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the server closed its output"
        message: dict[str, Any] = json.loads(line)
        return message

    def __enter__(self) -> RawStdio:
        return self

    def ended(self) -> int:
        """Close stdin as a client hanging up does; the exit status."""
        self.close()
        return self.process.returncode


def call_line(request_id: int, tool: str, arguments_json: str) -> bytes:
    """A tools/call line with the arguments as raw JSON text (so it can hold `\\udcff`)."""
    head = f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", '
    return (head + f'"params": {{"name": "{tool}", "arguments": {arguments_json}}}}}').encode()


def error_answer(message: dict[str, Any]) -> tuple[object, int]:
    return message["id"], message["error"]["code"]


def test_bad_lines_over_stdio_get_their_json_rpc_errors_and_the_session_goes_on(
    example_root: Path,
) -> None:
    with RawStdio(example_root) as server:
        server.write(call_line(2, "get_task", f'{{"task_id": "{SURROGATE}"}}'))
        assert error_answer(server.read()) == (2, -32602)
        server.write(b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call"')
        assert error_answer(server.read()) == (None, -32700)
        server.write(b'{"jsonrpc": "2.0", "id": 4, "method": "ping", "x": "\xff"}')
        assert error_answer(server.read()) == (None, -32700)
        server.write(b'{"jsonrpc": "2.0", "id": "s", "nothing": 1}')
        assert error_answer(server.read()) == ("s", -32600)
        server.write(b'{"jsonrpc": "2.0", "method": "x", "params": {"a": "\\udcff"}}')
        server.write(b'{"jsonrpc": "2.0", "id": 5, "method": "ping"}')
        assert server.read() == {"jsonrpc": "2.0", "id": 5, "result": {}}
        assert server.ended() == 0


def string_arguments(tool: dict[str, Any]) -> list[str]:
    """The top-level arguments of a listed tool that take a string (alone or in a list)."""
    properties: dict[str, Any] = tool["inputSchema"].get("properties", {})
    return sorted(name for name, schema in properties.items() if '"string"' in json.dumps(schema))


def surrogate_calls(tools: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(tool, arguments JSON) with a lone surrogate in each string argument in turn (in an
    unknown argument, for a tool that takes no string)."""
    calls = []
    for tool in tools:
        for name in string_arguments(tool) or ["unknown"]:
            calls.append((tool["name"], f'{{"{name}": "a{SURROGATE}"}}'))
            calls.append((tool["name"], f'{{"{name}": ["{SURROGATE}"]}}'))
    return calls


@pytest.mark.deep
def test_a_lone_surrogate_in_any_string_argument_is_answered_over_stdio(
    example_root: Path,
) -> None:
    with RawStdio(example_root) as server:
        server.write(b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}')
        tools = server.read()["result"]["tools"]
        calls = surrogate_calls(tools)
        assert len({tool for tool, _ in calls}) == len(tools)
        for request_id, (tool, arguments) in enumerate(calls, start=10):
            server.write(call_line(request_id, tool, arguments))
            assert error_answer(server.read()) == (request_id, -32602), (tool, arguments)
        server.write(b'{"jsonrpc": "2.0", "id": 6, "method": "ping"}')
        assert server.read()["id"] == 6
        assert server.ended() == 0


def http_session(url: str) -> dict[str, str]:
    """The headers of an initialized HTTP session."""
    response = post(url, json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
    headers = {**MCP_HEADERS, "Mcp-Session-Id": response.headers["mcp-session-id"]}
    headers["Mcp-Protocol-Version"] = "2025-06-18"
    post(url, json=INITIALIZED, headers=headers, timeout=30)
    return headers


@pytest.mark.deep
def test_a_lone_surrogate_in_any_string_argument_is_answered_over_http(
    example_root: Path,
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with served_on(example_root, "127.0.0.1", port):
        headers = {**http_session(url), "Content-Type": "application/json"}
        listed = post(
            url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
        )
        tools = json.loads(listed.text.split("data: ", 1)[-1])["result"]["tools"]
        for request_id, (tool, arguments) in enumerate(surrogate_calls(tools), start=10):
            body = call_line(request_id, tool, arguments)
            answer = post(url, content=body, headers=headers, timeout=30)
            assert answer.status_code == 400, (tool, arguments, answer.text)
            assert answer.json()["error"]["code"] == -32700, (tool, arguments)
        alive = post(url, json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=headers)
        assert alive.status_code == 200
