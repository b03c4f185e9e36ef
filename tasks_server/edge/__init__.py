"""The MCP edge: the one adapter between the tool runtime and the MCP SDK, and its transports.

Only this package imports the `mcp` SDK. See docs/architecture.md. The SDK's top packages
are opened first without their re-exports (`lean_sdk`): a server uses none of them.
"""

from tasks_server.edge.lean_sdk import open_lean

open_lean()
