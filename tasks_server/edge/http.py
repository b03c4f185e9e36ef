"""Streamable HTTP: loopback by default; any other address needs a bearer token.

On a loopback address the Host and Origin headers are checked against the address actually
bound (however `--host` spelled it: `127.1`, `0:0:0:0:0:0:0:1`, `[::1]`, `localhost`...)
and its real port, exactly: a DNS-rebinding page (`Host: evil.example`) and look-alike
origins (`http://localhost:PORT.evil.example`) are refused. Beyond loopback the bearer token
is the guard (a browser page cannot add it).

An error reply (400, 406, any status from 400 up) never carries an `mcp-session-id`: the SDK
names a session it opened for the refused request, one that no later request can use.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tasks_server.edge import sessions
from tasks_server.edge.sessions import SessionLimits
from tasks_server.edge.strict_host import StrictHostProtocol

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = [
    "Bind",
    "InsecureBind",
    "NoSessionOnError",
    "check_bind",
    "http_app",
    "listen",
    "resolve",
    "serve_http",
    "transport_security",
]


SESSION_HEADER = b"mcp-session-id"
ERROR_STATUS = 400


class InsecureBind(Exception):
    """A bind refused before the server starts: beyond loopback without a token, a blank
    token, or a host that does not resolve."""


@dataclass(frozen=True, slots=True)
class Bind:
    """Where `--host` really binds: its spelling, the socket family and numeric address."""

    spelling: str
    family: socket.AddressFamily
    address: str

    @property
    def loopback(self) -> bool:
        return ipaddress.ip_address(self.address).is_loopback

    @property
    def url_host(self) -> str:
        """The address as written in a URL or a Host header (`[::1]` for IPv6)."""
        return f"[{self.address}]" if self.family == socket.AF_INET6 else self.address


def resolve(host: str) -> Bind:
    """The address `host` binds (the first the resolver gives); InsecureBind if none."""
    bare = host.strip("[]")
    try:
        found = socket.getaddrinfo(bare, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise InsecureBind(f"cannot bind {host!r}: the host does not resolve") from exc
    family, _, _, _, sockaddr = found[0]
    return Bind(host, family, str(sockaddr[0]))


def _check_token(token: str | None) -> None:
    if token is None:
        return
    if not token.strip():
        raise InsecureBind("refusing a blank --auth-token (or TASKS_SERVER_TOKEN): give a real one")
    if any(char.isspace() or not char.isprintable() for char in token):
        raise InsecureBind(
            "refusing an --auth-token with spaces or control characters: "
            "a bearer token is one printable word"
        )


def check_bind(host: str, token: str | None) -> None:
    """Refuse, before anything starts: a blank token, a host that does not resolve, and
    any address beyond loopback without a token."""
    _check_token(token)
    if not resolve(host).loopback and not token:
        raise InsecureBind(
            f"refusing to serve on {host} without a bearer token: pass --auth-token "
            "(or TASKS_SERVER_TOKEN), or bind 127.0.0.1"
        )


def _host_names(bind: Bind) -> list[str]:
    """Every way a client of this loopback bind may name it in a Host header."""
    spelled = bind.spelling
    if ":" in spelled and not spelled.startswith("["):
        spelled = f"[{spelled}]"  # an IPv6 literal, as a Host header writes it
    return list(dict.fromkeys([bind.url_host, "localhost", spelled]))


def transport_security(host: str, port: int) -> TransportSecuritySettings | None:
    """Exact Host and Origin allow-lists for a loopback bind on `port` (no wildcards: a
    prefix match lets `localhost:PORT.evil.example` through); None beyond loopback."""
    bind = resolve(host)
    if not bind.loopback:
        return None
    hosts = [f"{name}:{port}" for name in _host_names(bind)]
    if port == 80:  # a browser leaves the default port out
        hosts += _host_names(bind)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{name}" for name in hosts],
    )


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on `host:port` (0: a free port), IPv4 or IPv6 as `host` is."""
    bind = resolve(host)
    sock = socket.socket(bind.family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bind.address, port))
        sock.listen()
    except BaseException:
        sock.close()
        raise
    return sock


class BearerAuth:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>` (the
    scheme in any case, as HTTP has it)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers", [])).get(b"authorization", b"")
            scheme, _, credentials = given.strip().partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(
                credentials.strip(), self.expected
            ):
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


class NoSessionOnError:
    """ASGI middleware: drops `mcp-session-id` from every error reply (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_without_session(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] >= ERROR_STATUS:
                headers = message.get("headers", [])
                kept = [(k, v) for k, v in headers if k.lower() != SESSION_HEADER]
                message = {**message, "headers": kept}
            await send(message)

        await self.app(scope, receive, send_without_session)


def http_app(server: Server[Any], host: str, port: int, token: str | None) -> Any:
    """The streamable HTTP app for a server bound on `host:port` (the real port)."""
    security = transport_security(host, port)
    app = NoSessionOnError(  # outermost: the limits also count a refused request's session
        SessionLimits(
            server.streamable_http_app(
                host=host,
                transport_security=security,
                session_idle_timeout=sessions.IDLE_SECONDS,
                max_sessions=2 * sessions.TOTAL,  # a backstop: SessionLimits keeps below TOTAL
            ),
            per_client=sessions.PER_CLIENT,
            total=sessions.TOTAL,
        )
    )
    return BearerAuth(app, token) if token else app


def url_of(sock: socket.socket) -> str:
    """The endpoint URL of a listening socket."""
    address, port = sock.getsockname()[:2]
    host = f"[{address}]" if sock.family == socket.AF_INET6 else address
    return f"http://{host}:{port}/mcp"


class _AnnouncingServer(uvicorn.Server):
    """Says where it serves on stderr once it is listening (scripts and tests wait for it)."""

    def __init__(self, config: uvicorn.Config, url: str) -> None:
        super().__init__(config)
        self.url = url

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        print(f"serving MCP on {self.url}", file=sys.stderr, flush=True)


def serve_http(server: Server[Any], host: str, port: int, token: str | None) -> None:
    """Serve until interrupted. A bind refused, or an address that cannot be listened on
    (a port in use), ends the process with one line on stderr and exit status 2."""
    check_bind(host, token)
    try:
        sock = listen(host, port)
    except OSError as exc:
        problem = exc.strerror or exc
        print(
            f"tasks-server serve: cannot listen on {host} port {port}: {problem}", file=sys.stderr
        )
        raise SystemExit(2) from None
    app = http_app(server, host, sock.getsockname()[1], token)
    config = uvicorn.Config(app, log_level="warning", http=StrictHostProtocol)
    _AnnouncingServer(config, url_of(sock)).run(sockets=[sock])
