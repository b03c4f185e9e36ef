"""Guidance about one task of the tree, from its state as the index computes it and what
the caller is to it (the claim it holds, when it names itself)."""

from __future__ import annotations

from collections.abc import Sequence

from graph.claims import claim_of, deferred_until
from tasks_server.context import ServerContext
from tasks_server.guidance import Guidance
from tasks_server.task_guidance import Situation, for_task

__all__ = ["about", "situation"]


def situation(ctx: ServerContext, task_id: str, agent: str | None = None) -> Situation:
    """`task_id`'s deferral and live claim at the server's clock, seen by `agent`."""
    task, now = ctx.index.require(task_id), ctx.clock()
    claim = claim_of(task)
    live = claim if claim is not None and claim.is_live(now) else None
    return Situation(deferred_until(task, now), live, agent)


def about(
    ctx: ServerContext, task_id: str, *, first: Sequence[str] = (), agent: str | None = None
) -> Guidance:
    """The guidance `task_id`'s state calls for (`first`: tools to list ahead; `agent`: the
    caller, when it named itself)."""
    task = ctx.index.require(task_id)
    facts = ctx.index.facts(task.id)
    return for_task(
        task.id, task.status, facts, first=first, situation=situation(ctx, task.id, agent)
    )
