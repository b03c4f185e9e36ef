"""The floor for one typed answer: our `list_tasks` answer of 1,000 brief rows, made once.

    python -m bench.replay_server ROOT

Serves one tool, `list_tasks`, published exactly as tasks-server publishes it (same
outputSchema), through the SDK's low-level server, and answers every call with the same
result: computed once at start by our tool set on ROOT, then replayed. What a call costs
here is what the SDK, the pipe and the client cost for that answer (structured content and
its JSON text copy) with no work of ours; the benches set tasks-server beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp_types import CallToolRequestParams, CallToolResult, ListToolsResult

from tasks_server.edge.server import to_result, to_tool
from tasks_server.registry import discover
from tasks_server.toolset import open_toolset


def main(root: Path) -> None:
    toolset = open_toolset(root, watch=False)
    answer = to_result(toolset.run("list_tasks", {"limit": 1000}))
    tool = to_tool(next(spec for spec in discover() if spec.name == "list_tasks"))

    async def list_tools(ctx: ServerRequestContext[Any], params: object) -> ListToolsResult:
        return ListToolsResult(tools=[tool])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        return answer

    server: Server[Any] = Server("replay", on_list_tools=list_tools, on_call_tool=call_tool)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
