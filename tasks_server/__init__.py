"""tasks-server: an MCP server over a task graph of markdown files."""

from __future__ import annotations

__all__ = ["version"]


def version() -> str:
    """The installed package's version (from its metadata), as `serverInfo.version` says it."""
    from importlib.metadata import PackageNotFoundError  # noqa: PLC0415 - only when asked
    from importlib.metadata import version as installed  # noqa: PLC0415

    try:
        return installed("tasks-server")
    except PackageNotFoundError:
        return "0+unknown"
