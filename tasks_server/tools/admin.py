"""Admin tier: the rare full rebuild."""

from __future__ import annotations

import time

from pydantic import Field

from tasks_server.context import ServerContext
from tasks_server.guidance import guide
from tasks_server.models import Envelope, Input
from tasks_server.registry import tool


class RebuildIndexInput(Input):
    pass


class RebuildIndexOutput(Envelope):
    tasks: int = Field(description="Tasks in the rebuilt index.")
    problems: int = Field(description="Files that could not be used.")
    seconds: float = Field(description="Time the rebuild took.")


@tool("admin", destructive=False, idempotent=True)
def rebuild_index(ctx: ServerContext, args: RebuildIndexInput) -> RebuildIndexOutput:
    """Re-read every file and rebuild the index. Never needed in normal operation."""
    started = time.perf_counter()
    ctx.live.rebuild()
    tasks, problems = len(ctx.index), len(ctx.live.table.problems())
    return RebuildIndexOutput(
        tasks=tasks,
        problems=problems,
        seconds=round(time.perf_counter() - started, 4),
        guidance=guide("index_rebuilt", "Call get_index_stats", ["get_index_stats"]),
    )
