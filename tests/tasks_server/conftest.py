"""Servers over real trees on disk, and real MCP client sessions to them."""

from __future__ import annotations

import contextlib
import json
import ssl
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client

from tasks_server.edge.server import TasksServer, create_server

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
NO_CA = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
"""A TLS context without the system's CA certificates, for plain-HTTP requests (`post`)."""


def make_server(root: Path, **options: Any) -> TasksServer:
    """A server with a fixed clock (so snapshots are stable) and no watcher thread."""
    server = create_server(root, watch=options.pop("watch", False), **options)
    server.context.clock = lambda: NOW
    return server


@contextlib.asynccontextmanager
async def session_on(root: Path) -> AsyncIterator[Client]:
    """A real in-memory MCP client session to a server over `root`, closed after."""
    server = make_server(root)
    async with Client(server) as session:
        yield session
    server.context.close()


@pytest.fixture
def server(example_root: Path) -> Iterator[TasksServer]:
    built = make_server(example_root)
    yield built
    built.context.close()


@pytest.fixture
async def client(server: TasksServer) -> AsyncIterator[Client]:
    async with Client(server) as session:
        yield session


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; return its structured content."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.structured_content
    assert result.structured_content is not None
    return dict(result.structured_content)


def error_of(result: Any) -> dict[str, Any]:
    """The error object of an `isError` result: JSON text, no structured content (strict
    clients check structured content against the success schema, even on errors)."""
    assert result.is_error, result.structured_content
    assert result.structured_content is None
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def fail(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must fail; return its error object."""
    return error_of(await client.call_tool(tool, arguments))


def post(url: str, **options: Any) -> httpx2.Response:
    """`httpx2.post` to a server a test started on plain-HTTP loopback: a new client and
    connection a request, as `httpx2.post` makes them, without loading the system's CA
    certificates for each (20 ms a request, for a TLS plain HTTP never uses)."""
    return httpx2.post(url, verify=NO_CA, **options)
