"""Guidance about one task of the tree, from the graph's answer about it (`TaskIndex.about`:
its readiness, deferral and claim at the server's clock) and what the caller is to it (the
claim it holds, when it names itself)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from graph.about import TaskAbout
from graph.claims import Claim
from storage.model import Task
from tasks_server.context import ServerContext
from tasks_server.guidance import Guidance
from tasks_server.task_guidance import Situation, for_task
from tasks_server.views import BLOCKS_SHOWN, TaskView

__all__ = ["Seen", "about", "guidance_of", "seen"]


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


class Seen(NamedTuple):
    """A task's full view and the guidance its state calls for."""

    view: TaskView
    guidance: Guidance


def seen(
    ctx: ServerContext,
    task_id: str,
    *,
    max_body_chars: int | None = None,
    first: Sequence[str] = (),
    agent: str | None = None,
) -> Seen:
    """The full view of `task_id` and the guidance its state calls for, both from one
    answer of the graph about it at the server's clock (`first`, `agent`: as `guidance_of`
    takes them; the guidance reads the readiness, never the `blocks` the view lists)."""
    index = ctx.index
    task = index.require(task_id)
    answer = index.about(task_id, ctx.clock(), shown=BLOCKS_SHOWN)
    view = ctx.full_view(task, answer, max_body_chars=max_body_chars)
    return Seen(view, guidance_of(task, answer, first=first, agent=agent))
