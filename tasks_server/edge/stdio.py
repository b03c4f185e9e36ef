"""Stdio for MCP with every line answered: the SDK's transport, fed through a checking reader.

The SDK's `stdio_server` reads stdin line by line and, for a line it cannot read as a
JSON-RPC message, passes an exception to the session, which logs it and answers nothing: a
client that sent malformed JSON, or a string holding a lone surrogate (`"\\udcff"`: valid JSON
text, not valid Unicode), waits forever. Here stdin is read by our own reader, which answers
such a line itself, as the HTTP transport does, and hands every other line to the SDK
unchanged:

- not UTF-8, or not JSON: `-32700` (parse error), with a null id;
- JSON, but a string in it is not valid Unicode: `-32602` (invalid params), with the
  request's id;
- JSON, but not a JSON-RPC message: `-32600` (invalid request), with its id where it has one.

A notification (no id) that is bad past parsing is dropped, as JSON-RPC answers none. The
answers go out through the SDK's own writer, so they never interleave with its lines. While
serving, fd 0 points at the null device (as the SDK does for the stdin it claims), so a tool
or child process never reads the client's requests.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, Protocol, cast

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

__all__ = ["INVALID_PARAMS", "INVALID_REQUEST", "check_line", "serve_checked_stdio"]

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
RequestId = int | str | None


class Answers(Protocol):
    """Where the answers go: a clone of the SDK's write stream (closed when stdin ends)."""

    async def send(self, item: SessionMessage, /) -> None: ...

    def close(self) -> None: ...


def _id_of(message: object) -> RequestId:
    """The request id a parsed message carries, when it is one JSON-RPC allows."""
    if isinstance(message, dict):
        found = message.get("id")
        if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
            return found
    return None


def _is_unicode(value: Any) -> bool:
    """True when every string in `value` (keys too) is valid Unicode (no lone surrogate)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_line(line: bytes) -> types.JSONRPCError | None:
    """The error answer a raw line gets here, or None when it goes to the SDK as it is.

    >>> check_line(b'{"jsonrpc": "2.0", "id": 7, "method": "ping"}') is None
    True
    >>> [check_line(raw).error.code for raw in (b"{", b'{"id": 1, "a": "\\\\udcff"}')]
    [-32700, -32602]
    """
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        pass  # what is wrong with it, below: a good line is read once here, as the SDK does
    else:
        return None
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _error(None, types.PARSE_ERROR, "Parse error: the line is not UTF-8 JSON")
    if not _is_unicode(message):
        return _error(
            _id_of(message), INVALID_PARAMS, "Invalid params: a string is not valid Unicode"
        )
    return _error(_id_of(message), INVALID_REQUEST, "Invalid request: not a JSON-RPC message")


def _error(request_id: RequestId, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


def _is_notification(line: bytes) -> bool:
    """True for a readable message without an id: JSON-RPC answers none past parsing."""
    try:
        message = json.loads(line.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError):
        return False
    return isinstance(message, dict) and "id" not in message


class CheckedLines:
    """The lines of `source` that the SDK can read, as text; each other line is answered on
    `answers` (the SDK's write stream) and left out."""

    def __init__(self, source: BinaryIO, answers: Answers) -> None:
        self._source = anyio.wrap_file(source)
        self._answers = answers

    async def __aiter__(self) -> AsyncIterator[str]:
        try:
            async for line in self._source:
                if not line.strip():
                    continue
                error = check_line(line)
                if error is None:
                    yield line.decode("utf-8")
                elif error.error.code == types.PARSE_ERROR or not _is_notification(line):
                    await self._answers.send(SessionMessage(error))
        finally:
            self._answers.close()


@contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """The client's stdin on a private descriptor, fd 0 on the null device until the end."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        with os.fdopen(private, "rb", closefd=False) as source:
            yield source
    finally:
        os.dup2(private, 0)
        os.close(private)


class _LateLines:
    """What the SDK iterates as stdin: `CheckedLines`, set once the write stream exists."""

    lines: CheckedLines | None = None

    async def __aiter__(self) -> AsyncIterator[str]:
        await self.ready.wait()
        assert self.lines is not None
        async for line in self.lines:
            yield line

    def __init__(self) -> None:
        self.ready = anyio.Event()


Session = Callable[[Any, Any], Awaitable[None]]


async def serve_checked_stdio(run: Session) -> None:
    """`run(read, write)` (a server's session) over stdio, every bad line answered here."""
    with _claimed_stdin() as source:
        late = _LateLines()
        stdin = cast("anyio.AsyncFile[str]", late)
        async with stdio_server(stdin=stdin) as (read, write):
            late.lines = CheckedLines(source, write.clone())
            late.ready.set()
            await run(read, write)
