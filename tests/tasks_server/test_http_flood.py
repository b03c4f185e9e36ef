"""A real `tasks-server serve --transport http` process on 127.0.0.1 without a token, with
its shipped session limits: a flood of `initialize` calls from a loopback client, each with a
made-up Authorization header, never ends another loopback client's working session and
never grows past the per-client cap of fresh sessions; a Host header that is empty or
padded with spaces is refused."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx2
import pytest

from tasks_server.edge import sessions
from tests.tasks_server.test_transports import INITIALIZE, MCP_HEADERS, free_port, served_on

HEADERS = {**MCP_HEADERS, "Content-Type": "application/json"}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("flood") / "tree"
    root.mkdir()
    (root / "a.md").write_text("---\nid: a\ntitle: A\n---\n")
    port = free_port()
    with served_on(root, "127.0.0.1", port):
        yield f"http://127.0.0.1:{port}/mcp"


def opened(client: httpx2.Client, url: str, credential: str) -> str:
    headers = {**HEADERS, "Authorization": f"Bearer {credential}"}
    response = client.post(url, json=INITIALIZE, headers=headers)
    assert response.status_code == 200, response.text
    return str(response.headers["mcp-session-id"])


def status(client: httpx2.Client, url: str, session: str) -> int:
    headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    return client.post(url, content=json.dumps(PING), headers=headers).status_code


@pytest.mark.deep
def test_a_flood_of_initialize_calls_with_made_up_credentials_ends_only_its_own_sessions(
    url: str,
) -> None:
    with httpx2.Client(timeout=30) as client:
        victim = opened(client, url, "victim")
        assert [status(client, url, victim) for _ in range(2)] == [200, 200]
        flood = [opened(client, url, f"bogus-{n}") for n in range(sessions.PER_CLIENT + 8)]
        assert status(client, url, victim) == 200
        assert status(client, url, flood[0]) == 404  # pooled as one client: over its cap
        assert status(client, url, flood[-1]) == 200


def raw_status(url: str, host_line: bytes) -> bytes:
    """The status line a raw POST with `host_line` as its Host header gets."""
    port = int(url.rsplit(":", 1)[1].split("/", maxsplit=1)[0])
    body = json.dumps(INITIALIZE).encode()
    request = (
        b"POST /mcp HTTP/1.1\r\n" + host_line + b"\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer.split(b"\r\n", 1)[0]


@pytest.mark.parametrize(
    "host",
    [
        b"Host:",
        b"Host: ",
        b'Host: ""',
        b"Host: localhost:PORT ",
        b"Host: localhost:PORT\t",
        b"host:\tlocalhost:PORT  ",
    ],
)
def test_an_empty_or_space_padded_host_is_refused(url: str, host: bytes) -> None:
    port = url.rsplit(":", 1)[1].split("/", maxsplit=1)[0].encode()
    line = raw_status(url, host.replace(b"PORT", port))
    assert line.split(b" ")[1] in (b"400", b"421"), line


def test_the_exact_host_is_served(url: str) -> None:
    port = url.rsplit(":", 1)[1].split("/", maxsplit=1)[0].encode()
    assert raw_status(url, b"Host: localhost:" + port).split(b" ")[1] == b"200"
