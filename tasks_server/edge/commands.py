"""The two commands that speak MCP: `serve` (stdio or streamable HTTP) and `call` (one tool
through a real in-process MCP client session). The entry point (`tasks_server.cli`) imports
this module only for those two, so the human commands never load the SDK."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import anyio
from mcp import Client

from storage.errors import StorageError
from tasks_server.edge.http import InsecureBind, check_bind, serve_http
from tasks_server.edge.server import create_server, serve_stdio
from tasks_server.roles import parse_patterns

__all__ = ["call_tool", "run_serve"]


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return {"role": args.role, "tools": parse_patterns(args.tools), "bots": args.bots}


async def _call(
    args: argparse.Namespace, tool: str, arguments: dict[str, Any]
) -> tuple[bool, dict[str, Any]]:
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


def run_serve(args: argparse.Namespace, on_interrupt: Callable[[], object]) -> int:
    """Serve MCP until the client hangs up; 2 for an HTTP bind refused without a token.
    Ctrl-C while serving stdio calls `on_interrupt` (`serve_stdio`); over HTTP, uvicorn
    shuts down gracefully, then raises the interrupt again."""
    if args.transport == "http":
        try:
            check_bind(args.host, args.auth_token)
        except InsecureBind as exc:
            print(f"tasks-server serve: {exc}", file=sys.stderr)
            return 2
    server = create_server(args.root, bot=args.bot, **_options(args))
    server.context.set_clock(args.now)
    if getattr(args, "sync", False):
        try:
            server.context.start_sync(args.sync_interval)
        except StorageError as exc:
            print(f"--sync: {exc}", file=sys.stderr)
            server.close()
            return 2
    try:
        if args.transport == "http":
            serve_http(server, args.host, args.port, args.auth_token)
        else:
            serve_stdio(server, on_interrupt)
    finally:
        server.close()
    return 0
