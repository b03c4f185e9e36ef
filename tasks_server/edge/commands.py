"""The two commands that speak MCP: `serve` (stdio or streamable HTTP) and `call` (one tool
through a real in-process MCP client session). The entry point (`tasks_server.cli`) imports
this module only for those two, so the human commands never load the SDK."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio

from storage.bulk import gc_paused
from storage.errors import StorageError
from tasks_server.edge.server import TasksServer, create_server, serve_stdio
from tasks_server.roles import parse_patterns

__all__ = ["call_tool", "run_serve"]


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"role": args.role, "tools": parse_patterns(args.tools), "bots": args.bots}


async def _call(
    args: argparse.Namespace, tool: str, arguments: dict[str, Any]
) -> tuple[bool, dict[str, Any]]:
    from mcp.client.client import Client  # noqa: PLC0415 - the SDK's client side: `call`'s alone

    server = create_server(args.root, watch=False, **_options(args))
    server.context.set_clock(args.now)
    try:
        if getattr(
            args, "sync", False
        ):  # fetched first; the call's commit pushed after (one round)
            server.context.start_sync(0, loop=False)
        async with Client(server) as client:
            result = await client.call_tool(tool, arguments)
        if server.context.sync is not None:
            server.context.sync.round()
    finally:
        server.close()
    if result.is_error:
        return False, json.loads(result.content[0].text)  # type: ignore[union-attr]
    return True, dict(result.structured_content or {})


def call_tool(
    args: argparse.Namespace, tool: str, arguments: dict[str, Any]
) -> tuple[bool, dict[str, Any]]:
    """Run one tool through a real in-process MCP client session: (succeeded, its data)."""
    return anyio.run(_call, args, tool, arguments)


def _started(args: argparse.Namespace) -> TasksServer:
    """The server `serve` runs, built with the cyclic GC paused, then everything it holds
    frozen out of the collector's view: a start makes almost no garbage (under 0.5 MB, from
    the imports), and the collections it would trigger scan every module, class and schema
    loaded so far (docs/performance.md, "Start")."""
    with gc_paused():
        server = create_server(args.root, bot=args.bot, **_options(args))
        server.context.set_clock(args.now)
    gc.freeze()
    return server


def _http(args: argparse.Namespace) -> Callable[[TasksServer], None] | None:
    """Serving over streamable HTTP, or None (the reason on stderr) for a bind refused
    without a token. Only `--transport http` loads the HTTP stack (uvicorn, starlette)."""
    from tasks_server.edge.http import InsecureBind, check_bind, serve_http  # noqa: PLC0415

    try:
        check_bind(args.host, args.auth_token)
    except InsecureBind as exc:
        print(f"tasks-server serve: {exc}", file=sys.stderr)
        return None
    return partial(serve_http, host=args.host, port=args.port, token=args.auth_token)


def run_serve(args: argparse.Namespace, on_interrupt: Callable[[], object]) -> int:
    """Serve MCP until the client hangs up; 2 for an HTTP bind refused without a token.
    Ctrl-C while serving stdio calls `on_interrupt` (`serve_stdio`); over HTTP, uvicorn
    shuts down gracefully, then raises the interrupt again."""
    stdio = partial(serve_stdio, on_interrupt=on_interrupt)
    serve = _http(args) if args.transport == "http" else stdio
    if serve is None:
        return 2
    server = _started(args)
    if getattr(args, "sync", False):
        try:
            server.context.start_sync(args.sync_interval)
        except StorageError as exc:
            print(f"--sync: {exc}", file=sys.stderr)
            server.close()
            return 2
    try:
        serve(server)
    finally:
        server.close()
    return 0
