"""A server whose one tool does nothing: the protocol floor for the stdio latency bench."""

from __future__ import annotations

from mcp.server import MCPServer

server = MCPServer("null")


@server.tool()
def noop(task_id: str = "") -> dict[str, bool]:
    """Return at once."""
    return {"success": True}


if __name__ == "__main__":
    server.run("stdio")
