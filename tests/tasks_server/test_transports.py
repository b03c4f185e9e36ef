"""The installed console script over stdio, streamable HTTP on loopback, and the bind rules."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from storage import cache
from tasks_server.http import InsecureBind, check_bind

SCRIPT = Path(sys.executable).with_name("tasks-server")


@pytest.mark.anyio
async def test_installed_console_script_serves_over_stdio(example_root: Path) -> None:
    params = StdioServerParameters(
        command=str(SCRIPT), args=["serve", "--root", str(example_root), "--role", "planner"]
    )
    async with Client(params) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool("get_graph_metrics", {})
    assert "get_graph_metrics" in names and "create_task" not in names
    assert result.structured_content is not None
    assert result.structured_content["total_tasks"] == 50


@pytest.mark.anyio
async def test_a_served_tree_leaves_its_cache_current_when_the_client_hangs_up(
    example_root: Path,
) -> None:
    params = StdioServerParameters(command=str(SCRIPT), args=["serve", "--root", str(example_root)])
    async with Client(params) as client:
        result = await client.call_tool(
            "update_task", {"task_id": "wx-6ca4a1a9", "status": "in_progress"}
        )
    assert not result.is_error, result.structured_content
    cached = {r.task.id: r.task for r in cache.load(example_root).values() if r.task}
    assert cached["wx-6ca4a1a9"].status == "in_progress"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server(example_root: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [str(SCRIPT), "serve", "--root", str(example_root), "--transport", "http",
         "--port", str(port), "--auth-token", "s3cret"],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    announced = proc.stderr.readline()  # printed once the server is listening
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        assert announced.startswith("serving MCP on"), announced
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stderr.close()


@pytest.mark.anyio
async def test_http_transport_answers_with_the_right_token(http_server: str) -> None:
    headers = {"Authorization": "Bearer s3cret"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(http_server, http_client=http)) as client,  # type: ignore[arg-type]
    ):
        result = await client.call_tool("get_ready_tasks", {})
    assert result.structured_content is not None and result.structured_content["total"] == 5


def test_http_transport_refuses_a_missing_token(http_server: str) -> None:
    response = httpx2.post(http_server, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "example.org"])
def test_binding_beyond_loopback_without_a_token_is_refused(host: str) -> None:
    with pytest.raises(InsecureBind):
        check_bind(host, None)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_loopback_needs_no_token(host: str) -> None:
    check_bind(host, None)


def test_the_cli_refuses_to_start_on_a_public_address_without_a_token(example_root: Path) -> None:
    command = [str(SCRIPT), "serve", "--root", str(example_root), "--transport", "http"]
    done = subprocess.run(
        [*command, "--host", "0.0.0.0"],
        check=False,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "bearer token" in done.stderr


@pytest.mark.anyio
async def test_one_bot_served_alone_is_its_own_server_with_only_its_tools(
    example_root: Path,
) -> None:
    params = StdioServerParameters(
        command=str(SCRIPT), args=["serve", "--root", str(example_root), "--bot", "story_bot"]
    )
    async with Client(params) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        server_name = client.server_info.name if client.server_info else None
    assert server_name == "story_bot_server"
    assert len(names) == 35 and all(name.startswith("story_bot_") for name in names)
