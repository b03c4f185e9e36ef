"""The config of the graph's result models: frozen, closed, and built at their first use
(pydantic's `defer_build`), so a server start builds none its first answer does not
return (docs/performance.md, "Start")."""

from __future__ import annotations

from pydantic import ConfigDict

__all__ = ["RESULT"]

RESULT = ConfigDict(frozen=True, extra="forbid", defer_build=True)
