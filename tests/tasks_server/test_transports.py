"""The installed console script over stdio, streamable HTTP on loopback, and the bind rules."""

from __future__ import annotations

import contextlib
import json
import shutil
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
from tasks_server.cli import main
from tasks_server.edge.http import InsecureBind, check_bind
from tasks_server.edge.threaded import start_in_thread
from tests.conftest import DATA
from tests.tasks_server.conftest import make_server, post

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


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One `serve --transport http` process with a token, for the tests that only read
    through it (a tool call, pings): its URL."""
    root = tmp_path_factory.mktemp("http") / "tree"
    shutil.copytree(DATA, root)
    port = free_port()
    proc = subprocess.Popen(
        [str(SCRIPT), "serve", "--root", str(root), "--transport", "http",
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
    response = post(http_server, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401


def test_the_bearer_scheme_is_taken_in_any_case_and_the_token_exactly(http_server: str) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    statuses = {
        given: post(http_server, json=ping, headers={"Authorization": given}).status_code
        for given in ["bearer s3cret", "BEARER s3cret", "Bearer  s3cret", "Bearer S3CRET",
                      "Basic s3cret", "Bearers3cret"]
    }  # fmt: skip
    refused = {given for given, status in statuses.items() if status == 401}
    assert refused == {"Bearer S3CRET", "Basic s3cret", "Bearers3cret"}, statuses


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "example.org"])
def test_binding_beyond_loopback_without_a_token_is_refused(host: str) -> None:
    with pytest.raises(InsecureBind):
        check_bind(host, None)


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost", "::1", "127.0.0.2", "127.1", "[::1]", "0:0:0:0:0:0:0:1"]
)
def test_loopback_needs_no_token(host: str) -> None:
    check_bind(host, None)


def test_the_cli_refuses_to_start_on_a_public_address_without_a_token(
    example_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through `main(argv)` in this process: the refusal comes before anything is served
    (a port in use, below, goes through a real process and its exit status)."""
    command = ["serve", "--root", str(example_root), "--transport", "http"]
    assert main([*command, "--host", "0.0.0.0"]) == 2
    assert "bearer token" in capsys.readouterr().err


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


# --- DNS-rebinding protection on every loopback spelling ------------------------------------

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
# (the --host spelling, the address it binds, as written in a URL)
SPELLINGS = [
    ("127.0.0.1", "127.0.0.1"),
    ("127.0.0.2", "127.0.0.2"),
    ("127.1", "127.0.0.1"),
    ("localhost", "127.0.0.1"),
    ("::1", "[::1]"),
    ("[::1]", "[::1]"),
    ("0:0:0:0:0:0:0:1", "[::1]"),
]


def free_port_on(address: str) -> int:
    family = socket.AF_INET6 if address.startswith("[") else socket.AF_INET
    with socket.socket(family) as probe:
        probe.bind((address.strip("[]"), 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def served_on(root: Path, host: str, port: int, *extra: str) -> Iterator[None]:
    """`python -m tasks_server serve --transport http` on `host:port`, until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tasks_server", "serve", "--root", str(root),
         "--transport", "http", "--host", host, "--port", str(port), *extra],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    try:
        announced = proc.stderr.readline()
        assert announced.startswith("serving MCP on"), announced + proc.stderr.read()
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stderr.close()


def post_status(url: str, **headers: str) -> int:
    response = post(url, json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=10)
    return response.status_code


def header_answers(url: str, address: str, port: int) -> tuple[dict[str, int], dict[str, int]]:
    """(refused, accepted): each probe's status; every refused one must be 403 or 421,
    every accepted one 200."""
    refused = {
        "Host evil.example": post_status(url, Host="evil.example"),
        "Host evil.example:port": post_status(url, Host=f"evil.example:{port}"),
        "Host with the port as a prefix": post_status(url, Host=f"{address}:{port}0"),
        "Origin evil": post_status(url, Origin="http://evil.example"),
        "Origin localhost:port.evil": post_status(
            url, Origin=f"http://localhost:{port}.evil.example"
        ),
        "Origin address:port.evil": post_status(
            url, Origin=f"http://{address}:{port}.evil.example"
        ),
        "Origin on another port": post_status(url, Origin=f"http://localhost:{port + 1}"),
    }
    accepted = {
        "the bound address": post_status(url),
        "localhost": post_status(url, Host=f"localhost:{port}"),
        "same-site Origin": post_status(url, Origin=f"http://{address}:{port}"),
    }
    wrong = {name: code for name, code in refused.items() if code not in (403, 421)}
    return wrong, {name: code for name, code in accepted.items() if code != 200}


@pytest.mark.parametrize(("host", "address"), SPELLINGS)
def test_every_loopback_spelling_refuses_foreign_hosts_and_origins(
    example_root: Path, host: str, address: str
) -> None:
    server = make_server(example_root)
    try:
        with start_in_thread(server, host=host) as running:
            port = int(running.url.rsplit(":", 1)[1].split("/")[0])
            assert running.url == f"http://{address}:{port}/mcp"
            wrong, refused_good = header_answers(running.url, address, port)
    finally:
        server.context.close()
    assert (wrong, refused_good) == ({}, {})


@pytest.mark.parametrize(
    ("host", "address"), [("127.1", "127.0.0.1"), ("0:0:0:0:0:0:0:1", "[::1]")]
)
def test_the_served_command_checks_headers_on_odd_loopback_spellings(
    example_root: Path, host: str, address: str
) -> None:
    port = free_port_on(address)
    url = f"http://{address}:{port}/mcp"
    with served_on(example_root, host, port):
        wrong, refused_good = header_answers(url, address, port)
    assert (wrong, refused_good) == ({}, {})


def test_a_blank_token_is_refused_at_start_in_one_line(
    example_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["serve", "--root", str(example_root), "--transport", "http",
         "--port", str(free_port()), "--auth-token", " "]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and "token" in err
    assert err.startswith("tasks-server serve: ")


@pytest.mark.parametrize("token", ["", " ", "\t", "\n", "two words", " padded", "ctl\x07"])
@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_a_blank_or_spaced_token_is_refused_on_any_host(host: str, token: str) -> None:
    with pytest.raises(InsecureBind, match="token"):
        check_bind(host, token)


def test_a_host_that_does_not_resolve_is_refused_in_one_line() -> None:
    with pytest.raises(InsecureBind, match=r"no-such-host\.invalid"):
        check_bind("no-such-host.invalid", "s3cret")


def test_a_port_in_use_is_one_line_and_exit_2(example_root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tasks_server", "serve", "--root", str(example_root),
             "--transport", "http", "--port", str(port)],
            check=False, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"tasks-server serve: cannot listen on 127.0.0.1 port {port}: Address already in use"
    ]


# --- error replies name no session --------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One in-process HTTP server for the error-reply tests (none of them writes)."""
    root = tmp_path_factory.mktemp("served") / "tree"
    shutil.copytree(DATA, root)
    server = make_server(root)
    with start_in_thread(server) as running:
        yield running.url
    server.close()


@pytest.mark.parametrize(
    ("case", "status"),
    [("not JSON", 400), ("a JSON-RPC batch of nothing", 400), ("no event-stream Accept", 406)],
)
def test_an_error_reply_carries_no_session_id(served: str, case: str, status: int) -> None:
    content, headers = {
        "not JSON": (b"{oops", MCP_HEADERS),
        "a JSON-RPC batch of nothing": (b"[]", MCP_HEADERS),
        "no event-stream Accept": (json.dumps(INITIALIZE).encode(), {"Accept": "text/plain"}),
    }[case]
    sent = {"Content-Type": "application/json", **headers}
    response = post(served, content=content, headers=sent, timeout=10)
    assert response.status_code == status, response.text
    assert "mcp-session-id" not in response.headers


def test_a_successful_initialize_still_names_its_session(served: str) -> None:
    response = post(served, json=INITIALIZE, headers=MCP_HEADERS, timeout=10)
    assert response.status_code == 200 and response.headers["mcp-session-id"]
