"""Guidance about one task of the tree, from the graph's answer about it (`TaskIndex.about`:
its readiness, deferral and claim at the server's clock) and what the caller is to it (the
claim it holds, when it names itself)."""

from __future__ import annotations

from collections.abc import Sequence

from graph.about import TaskAbout
from graph.claims import Claim
from storage.model import Task
from tasks_server.context import ServerContext
from tasks_server.guidance import Guidance
from tasks_server.task_guidance import Situation, for_task

__all__ = ["about", "guidance_of"]


def _situation(answer: TaskAbout, agent: str | None) -> Situation:
    """The task's deferral and live claim as the answer says them, seen by `agent`."""
    agent_holding, live = answer.claimed_by, answer.claim_live
    claim = Claim(agent_holding, answer.claim_expires) if agent_holding and live else None
    return Situation(answer.deferred_until, claim, agent)


def guidance_of(
    task: Task, answer: TaskAbout, *, first: Sequence[str] = (), agent: str | None = None
) -> Guidance:
    """The guidance `task`'s state calls for, from the graph's answer about it (`first`:
    tools to list ahead; `agent`: the caller, when it named itself)."""
    situation = _situation(answer, agent)
    return for_task(task.id, task.status, answer, first=first, situation=situation)


def about(
    ctx: ServerContext, task_id: str, *, first: Sequence[str] = (), agent: str | None = None
) -> Guidance:
    """The guidance `task_id`'s state calls for at the server's clock."""
    index = ctx.index
    task = index.require(task_id)
    return guidance_of(task, index.about(task_id, ctx.clock(), shown=0), first=first, agent=agent)
