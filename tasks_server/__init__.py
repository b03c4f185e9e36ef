"""tasks-server: an MCP server over a task graph of markdown files.

`__version__` (or `version()`) is the installed distribution's version, read from its
metadata on first use, so `serverInfo.version` always matches what pip installed.
"""

from __future__ import annotations

from functools import cache

__all__ = ["__version__", "version"]

DISTRIBUTION = "tasks-server"
UNKNOWN = "0+unknown"


@cache
def version() -> str:
    """The version pip installed, or `0+unknown` when run from a tree that was never installed."""
    from importlib.metadata import PackageNotFoundError  # noqa: PLC0415 - cheap import at start
    from importlib.metadata import version as installed  # noqa: PLC0415

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:
        return UNKNOWN


def __getattr__(name: str) -> str:
    """`__version__`, computed only when asked for."""
    if name == "__version__":
        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
