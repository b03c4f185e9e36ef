"""HTTP sessions stay bounded: a client that abandons sessions loses its own oldest fresh
ones (a made-up Authorization header makes no new client), a working session is never
ended by a flood of fresh ones, the oldest go when the total is reached, and a newcomer
always gets in (never the SDK's 503). Real HTTP requests to a real server in a thread; the
same through a real server process with the shipped limits in test_http_flood.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tasks_server.edge import sessions
from tasks_server.edge.threaded import RunningServer, start_in_thread
from tests.tasks_server.conftest import make_server, post
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
    """A new session, sent with a made-up `Authorization` header naming `client`; its id."""
    headers = {**HEADERS, "Authorization": f"Bearer {client}"}
    response = post(url, json=INITIALIZE, headers=headers)
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
    status = post(url, content=json.dumps(ping), headers=headers).status_code
    assert status in (200, 404)
    return status == 200


def _working(url: str, client: str) -> str:
    """A new session that has made requests past its handshake."""
    session = _open(url, client)
    assert _alive(url, client, session) and _alive(url, client, session)
    return session


def test_a_flood_loses_its_own_oldest_fresh_sessions_whatever_its_headers_and_work_stays(
    running: RunningServer,
) -> None:
    other = _working(running.url, "other")
    flood = [_open(running.url, f"flood{n}") for n in range(9)]
    alive = [_alive(running.url, f"flood{n}", s) for n, s in enumerate(flood)]
    assert alive == [False] * 5 + [True] * 4
    assert _alive(running.url, "other", other)


def test_at_the_total_fresh_sessions_go_before_any_working_one(
    running: RunningServer,
) -> None:
    working = [_working(running.url, f"w{n}") for n in range(8)]
    fresh = [_open(running.url, "f") for _ in range(2)]
    newcomer = _open(running.url, "newcomer")
    assert [_alive(running.url, "f", s) for s in fresh] == [False, True]
    assert all(_alive(running.url, "w", s) for s in working)
    assert _alive(running.url, "newcomer", newcomer)


def test_at_the_total_with_none_fresh_the_least_recently_used_goes_and_a_newcomer_gets_in(
    running: RunningServer,
) -> None:
    opened = [_working(running.url, f"c{n}") for n in range(10)]
    newcomer = _open(running.url, "newcomer")
    alive = [_alive(running.url, "c", session) for session in opened]
    assert alive == [False] + [True] * 9
    assert _alive(running.url, "newcomer", newcomer)
