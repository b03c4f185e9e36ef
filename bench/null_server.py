"""The protocol floor for the stdio benches: the SDK's server with tools that do nothing.

`noop` returns at once; `rows` returns `n` task-brief-shaped rows (made once, at start) as
plain JSON text, the cheapest way an MCP server can answer with that many rows.
"""

from __future__ import annotations

import json

from mcp.server import MCPServer
from mcp_types import CallToolResult, TextContent

server = MCPServer("null")
ROWS = [
    {
        "id": f"proj{i % 20:02d}-{i:08x}",
        "title": f"Bench task number {i} with a title of ordinary length",
        "type": "task",
        "status": "active",
        "priority": i % 5,
        "project": f"proj{i % 20:02d}",
        "parent": None,
    }
    for i in range(1000)
]


@server.tool()
def noop(task_id: str = "") -> dict[str, bool]:
    """Return at once."""
    return {"success": True}


@server.tool()
def rows(limit: int = 1000) -> CallToolResult:
    """Return `limit` rows as plain JSON text."""
    text = json.dumps({"tasks": ROWS[:limit]}, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)])


if __name__ == "__main__":
    server.run("stdio")
