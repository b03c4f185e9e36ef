"""Serve an MCP server over streamable HTTP from a background thread (for tests and embedding).

with start_in_thread(server) as running:      # a free loopback port
    async with Client(running.url) as client:  # http://127.0.0.1:<port>/mcp
        ...
# leaving the block stops the server and joins its thread
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp.server.lowlevel import Server

from tasks_server.edge.http import http_app, listen, url_of
from tasks_server.edge.strict_host import StrictHostProtocol

__all__ = ["RunningServer", "ServerStartError", "start_in_thread"]

STARTUP_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0


class ServerStartError(RuntimeError):
    """The server thread did not start listening."""


class _Server(uvicorn.Server):
    """uvicorn's server, telling a waiting thread when start-up has finished (or failed)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets=sockets)
        finally:
            self.ready.set()


@dataclass
class RunningServer:
    """A server running in a thread: its endpoint `url`, and `stop()` to shut it down."""

    url: str
    _server: _Server
    _thread: threading.Thread

    def stop(self) -> None:
        """Stop accepting connections, finish open ones, and join the thread."""
        self._server.should_exit = True
        self._thread.join(timeout=STOP_TIMEOUT)
        if self._thread.is_alive():  # pragma: no cover - a stuck connection
            self._server.force_exit = True
            self._thread.join(timeout=STOP_TIMEOUT)

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_in_thread(server: Server[Any], host: str = "127.0.0.1", port: int = 0) -> RunningServer:
    """Serve `server`'s streamable HTTP app on `host:port` (0: a free port) in a daemon
    thread; return once it accepts connections. On loopback, Host and Origin are checked
    against the real address and port, as `serve --transport http` does."""
    sock = listen(host, port)
    url = url_of(sock)
    config = uvicorn.Config(
        http_app(server, host, sock.getsockname()[1], token=None),
        log_level="warning",
        http=StrictHostProtocol,
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    uv = _Server(config)
    thread = threading.Thread(
        target=uv.run, kwargs={"sockets": [sock]}, name=f"mcp-http-{url}", daemon=True
    )
    thread.start()
    uv.ready.wait(timeout=STARTUP_TIMEOUT)
    if not uv.started:
        uv.should_exit = True
        thread.join(timeout=STOP_TIMEOUT)
        sock.close()
        raise ServerStartError(f"server on {url} did not start")
    return RunningServer(url, uv, thread)
