"""HTTP sessions kept bounded: evicted when idle, capped, never a locked door, and a live
session never ended by someone else's flood.

The MCP SDK keeps every stateful session until it has been idle for its timeout, and at
its session limit answers every new client 503: 10,000 abandoned sessions held 393 MB and
locked everyone out for 30 minutes. Here sessions idle for `IDLE_SECONDS` end, and before a
new session opens:

- a session still *fresh* (it has made no request past its handshake: the `initialize`
  that opened it and at most one more, the `initialized` notification) is the first to go:
  the opener's own oldest fresh one when that client already has `PER_CLIENT` fresh ones;
- at `TOTAL` sessions, the oldest fresh one of all, and only when none is fresh, the least
  recently used session that works.

A client is its peer address alone: every token-less loopback client is the same address,
so a flood of `initialize` calls from one of them ends only fresh sessions, never another's
working one; and a made-up `Authorization` header (meaningless without a token, refused
before this with one) never makes a new client. A newcomer always gets in; whoever abandons
sessions pays for them first. An evicted session's next request is answered 404, which
tells an MCP client to start a new session.

A session is ended the way a client ends it: a DELETE with its id, sent to the app.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["IDLE_SECONDS", "PER_CLIENT", "TOTAL", "SessionLimits"]

IDLE_SECONDS = 15 * 60.0
PER_CLIENT = 64
TOTAL = 1000
_SESSION = b"mcp-session-id"


WORKING_AFTER = 2
"""Requests past the opening one that make a session working (the `initialized`
notification is the first)."""


@dataclass(slots=True)
class _Session:
    client: str
    used: float  # monotonic seconds
    headers: list[tuple[bytes, bytes]]  # of the opening request: to end it as its client
    requests: int = 0  # POSTs since the opening one

    @property
    def fresh(self) -> bool:
        return self.requests < WORKING_AFTER


class SessionLimits:
    """ASGI middleware in front of the SDK's streamable HTTP app."""

    def __init__(self, app: ASGIApp, *, per_client: int = PER_CLIENT, total: int = TOTAL) -> None:
        self.app = app
        self.per_client, self.total = per_client, total
        self.sessions: OrderedDict[str, _Session] = OrderedDict()  # least recently used first

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        given = headers.get(_SESSION, b"").decode("latin-1")
        if given:
            self._touch(given, scope["method"])
            await self.app(scope, receive, send)
            return
        client = _client_of(scope)
        await self._make_room(client, scope)
        await self.app(scope, receive, self._noting(client, scope, send))

    def _touch(self, session: str, method: str) -> None:
        found = self.sessions.get(session)
        if found is None:
            return
        if method == "DELETE":
            del self.sessions[session]
            return
        found.used = time.monotonic()
        found.requests += method == "POST"
        self.sessions.move_to_end(session)

    def _noting(self, client: str, scope: Scope, send: Send) -> Send:
        """`send`, noting the id of a session the response opens."""

        async def noted(message: Message) -> None:
            if message["type"] == "http.response.start":
                opened = dict(message.get("headers", [])).get(_SESSION)
                if opened:
                    kept = [(k, v) for k, v in scope.get("headers", []) if k != b"content-length"]
                    self.sessions[opened.decode("latin-1")] = _Session(
                        client, time.monotonic(), kept
                    )
            await send(message)

        return noted

    async def _make_room(self, client: str, scope: Scope) -> None:
        """End idle sessions, then the opener's oldest fresh ones over its cap, then, over
        the total, the oldest fresh ones of all and only then the least recently used:
        a new session always fits."""
        now = time.monotonic()
        for session, found in list(self.sessions.items()):
            if now - found.used < IDLE_SECONDS:
                break  # in order of use: the rest are more recent
            await self._end(session, scope)
        own = [s for s, found in self.sessions.items() if found.fresh and found.client == client]
        for session in own[: max(0, len(own) - self.per_client + 1)]:
            await self._end(session, scope)
        over = len(self.sessions) - self.total + 1
        if over > 0:
            fresh = [s for s, found in self.sessions.items() if found.fresh]
            working = [s for s, found in self.sessions.items() if not found.fresh]
            for session in (fresh + working)[:over]:
                await self._end(session, scope)

    async def _end(self, session: str, scope: Scope) -> None:
        """End one session as its client would: DELETE with its id (answered, unread)."""
        found = self.sessions.pop(session)
        headers = [(k, v) for k, v in found.headers if k != _SESSION]
        request = {**scope, "method": "DELETE", "headers": [*headers, (_SESSION, session.encode())]}
        await self.app(request, _empty_body(), _discard)


def _client_of(scope: Scope) -> str:
    """Who opens a session: the peer address (see the module for why not its credentials)."""
    return str((scope.get("client") or ("?", 0))[0])


def _empty_body() -> Receive:
    """A request's `receive`: an empty body, then the client gone."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": b"", "more_body": False}

    return receive


async def _discard(message: Any) -> None:
    return None
