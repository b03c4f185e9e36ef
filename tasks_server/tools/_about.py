"""Guidance about one task of the tree, from its state as the index computes it."""

from __future__ import annotations

from collections.abc import Sequence

from tasks_server.context import ServerContext
from tasks_server.guidance import Guidance, for_task

__all__ = ["about"]


def about(ctx: ServerContext, task_id: str, *, first: Sequence[str] = ()) -> Guidance:
    """The guidance `task_id`'s state calls for (`first`: tools to list ahead)."""
    task = ctx.index.require(task_id)
    return for_task(task.id, task.status, ctx.index.facts(task.id), first=first)
