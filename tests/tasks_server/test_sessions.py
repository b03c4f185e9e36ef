"""HTTP sessions stay bounded: a client that abandons sessions loses its own oldest ones,
the oldest of all go when the total is reached, and a newcomer always gets in (never the
SDK's 503). Real HTTP requests to a real server in a thread."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tasks_server.edge import sessions
from tasks_server.edge.threaded import RunningServer, start_in_thread
from tests.tasks_server.conftest import make_server
from tests.tasks_server.test_transports import INITIALIZE, MCP_HEADERS

HEADERS = {**MCP_HEADERS, "Content-Type": "application/json"}


@pytest.fixture
def running(example_root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningServer]:
    monkeypatch.setattr(sessions, "PER_CLIENT", 4)
    monkeypatch.setattr(sessions, "TOTAL", 10)
    server = make_server(example_root)
    try:
        with start_in_thread(server) as started:
            yield started
    finally:
        server.context.close()


def _open(url: str, client: str) -> str:
    """A new session of `client` (told apart by its credentials); its id."""
    headers = {**HEADERS, "Authorization": f"Bearer {client}"}
    response = httpx2.post(url, json=INITIALIZE, headers=headers)
    assert response.status_code == 200, response.text
    return str(response.headers["mcp-session-id"])


def _alive(url: str, client: str, session: str) -> bool:
    headers = {
        **HEADERS,
        "Authorization": f"Bearer {client}",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-06-18",
    }
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    status = httpx2.post(url, content=json.dumps(ping), headers=headers).status_code
    assert status in (200, 404)
    return status == 200


def test_a_client_over_its_cap_loses_its_own_oldest_sessions_and_others_keep_theirs(
    running: RunningServer,
) -> None:
    other = _open(running.url, "other")
    flood = [_open(running.url, "flood") for _ in range(9)]
    assert [_alive(running.url, "flood", s) for s in flood] == [False] * 5 + [True] * 4
    assert _alive(running.url, "other", other)


def test_at_the_total_the_oldest_session_goes_and_a_newcomer_gets_in(
    running: RunningServer,
) -> None:
    opened = [(f"c{n}", _open(running.url, f"c{n}")) for n in range(10)]
    newcomer = _open(running.url, "newcomer")
    alive = [_alive(running.url, client, session) for client, session in opened]
    assert alive == [False] + [True] * 9
    assert _alive(running.url, "newcomer", newcomer)
