"""The MCP edge: the one adapter between the tool runtime and the MCP SDK, and its transports.

Only this package imports the `mcp` SDK. See docs/architecture.md.
"""
