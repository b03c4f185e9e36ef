"""Streamable HTTP: loopback by default; any other address needs a bearer token."""

from __future__ import annotations

import hmac
import ipaddress
import socket
import sys
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from tasks_server.server import TasksServer

__all__ = ["InsecureBind", "check_bind", "http_app", "serve_http"]


class InsecureBind(Exception):
    """Binding beyond loopback without a token: refused before the server starts."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    if not is_loopback(host) and not token:
        raise InsecureBind(
            f"refusing to serve on {host} without a bearer token: pass --auth-token "
            "(or TASKS_SERVER_TOKEN), or bind 127.0.0.1"
        )


class BearerAuth:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers", [])).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await _unauthorized(send)
                return
        await self.app(scope, receive, send)


async def _unauthorized(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
        }
    )
    await send({"type": "http.response.body", "body": b"missing or wrong bearer token"})


def http_app(server: TasksServer, host: str, token: str | None) -> Any:
    app = server.streamable_http_app(host=host)
    return BearerAuth(app, token) if token else app


class _AnnouncingServer(uvicorn.Server):
    """Says where it serves on stderr once it is listening (scripts and tests wait for it)."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        config = self.config
        print(f"serving MCP on http://{config.host}:{config.port}/mcp", file=sys.stderr, flush=True)


def serve_http(server: TasksServer, host: str, port: int, token: str | None) -> None:
    check_bind(host, token)
    config = uvicorn.Config(
        http_app(server, host, token), host=host, port=port, log_level="warning"
    )
    _AnnouncingServer(config).run()
