"""Query tier, seed 004: a task's neighbourhood and its decomposition context.

Every list in these results is paged with one `limit` and one `cursor`, as one sequence
read in the order the fields come: a page holds at most `limit` tasks in all, each list
carries its `*_total`, and `next_cursor` stays set until every list is done. Nothing is cut
silently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, Field

from graph import neighborhood
from tasks_server.context import ServerContext
from tasks_server.guidance import guide
from tasks_server.models import Envelope, IdArg, Input
from tasks_server.registry import tool
from tasks_server.views import TaskBrief, TaskView

PAGED = "This page's part (see limit, cursor)."
M = TypeVar("M", bound=BaseModel)

Find = Callable[..., neighborhood.Neighborhood | neighborhood.DecompositionContext]
"""A graph query of `graph.neighborhood`: its lists cut to one window, `total` counting all."""
NEXT_CURSOR = "Pass as cursor for the next page of the lists; null when all lists are done."


class TaskIdInput(Input):
    task_id: IdArg = Field(description="Exact task id.")
    limit: int = Field(
        25, ge=1, le=1000, description="Page size: at most this many tasks in all lists."
    )
    cursor: str | None = Field(None, description="next_cursor from the previous page.")


@dataclass(frozen=True, slots=True)
class Paging:
    """One tool of this module: its name, and the guidance once every page is read."""

    tool: str
    state: str
    then: str
    tools: list[str]


def _paged(ctx: ServerContext, args: TaskIdInput, target: type[M], find: Find, paging: Paging) -> M:
    """`target` for `args.task_id`: what `find` finds, its lists cut to this page, the task
    in full, and guidance that first asks for the rest of the lists while pages remain."""
    query = (paging.tool, args.task_id)
    window = ctx.window(limit=args.limit, cursor=args.cursor, query=query)
    found = find(ctx.index, args.task_id, offset=window.offset, limit=window.limit)
    next_cursor = window.next_cursor(found.total)
    more = f"Call {paging.tool} with cursor=next_cursor for the rest of the lists"
    return ctx.expand(
        target,
        found,
        task=ctx.view(ctx.index.require(args.task_id), "full"),
        next_cursor=next_cursor,
        guidance=guide(paging.state, more if next_cursor else paging.then, paging.tools),
    )


class ParentContext(BaseModel):
    parent: TaskBrief | None = Field(description="The parent task, if any.")
    siblings: list[TaskBrief] = Field(description=f"Other children of the parent. {PAGED}")
    siblings_total: int = Field(description="Other children of the parent, all pages.")


class ProjectContext(BaseModel):
    project: str | None = Field(description="The task's project.")
    project_tasks: list[TaskBrief] = Field(description=f"Other tasks of the project. {PAGED}")
    project_tasks_total: int = Field(description="Other tasks of the project, all pages.")


class GetDecompositionContextOutput(Envelope):
    task: TaskView = Field(description="The task, in full.")
    existing_children: list[TaskBrief] = Field(description=f"Children it already has. {PAGED}")
    existing_children_total: int = Field(description="Children it already has, all pages.")
    parent_context: ParentContext
    project_context: ProjectContext
    next_cursor: str | None = Field(description=NEXT_CURSOR)


@tool("query", read_only=True, idempotent=True)
def get_decomposition_context(
    ctx: ServerContext, args: TaskIdInput
) -> GetDecompositionContextOutput:
    """What you need to split a task: it, its children, parent and siblings, project peers.
    Lists are paged as one sequence, in field order: follow next_cursor until null."""
    then = f"Propose children, then call decompose_task on {args.task_id}"
    tools = ["decompose_task", "get_task_neighborhood"]
    paging = Paging("get_decomposition_context", "decomposition_context", then, tools)
    find = neighborhood.decomposition_context
    return _paged(ctx, args, GetDecompositionContextOutput, find, paging)


class Relationships(BaseModel):
    parent: TaskBrief | None = Field(description="Parent task.")
    dangling_parent: str | None = Field(description="Parent id as written when no task has it.")
    children: list[TaskBrief] = Field(description=f"Child tasks. {PAGED}")
    children_total: int = Field(description="Child tasks, all pages.")
    depends_on: list[TaskBrief] = Field(description=f"Hard dependencies that exist. {PAGED}")
    depends_on_total: int = Field(description="Hard dependencies that exist, all pages.")
    dangling_dependencies: list[str] = Field(
        description="depends_on ids that no task has (whole list, as written)."
    )
    blocks: list[TaskBrief] = Field(description=f"Tasks that depend on this one. {PAGED}")
    blocks_total: int = Field(description="Tasks that depend on this one, all pages.")
    soft_depends_on: list[TaskBrief] = Field(
        description=f"Soft (non-blocking) dependencies that exist. {PAGED}"
    )
    soft_depends_on_total: int = Field(description="Soft dependencies that exist, all pages.")
    soft_blocks: list[TaskBrief] = Field(
        description=f"Tasks that name this one in soft_depends_on. {PAGED}"
    )
    soft_blocks_total: int = Field(description="Tasks naming this one as soft, all pages.")


class GetTaskNeighborhoodOutput(Envelope):
    task: TaskView = Field(description="The task, in full.")
    existing_relationships: Relationships
    same_project_tasks: list[TaskBrief] = Field(description=f"Other tasks of its project. {PAGED}")
    same_project_total: int = Field(description="Other tasks of its project, all pages.")
    orphan_tasks: list[TaskBrief] = Field(
        description=f"Tasks with no parent and no dependencies. {PAGED}"
    )
    orphan_total: int = Field(description="Orphan tasks, all pages.")
    next_cursor: str | None = Field(description=NEXT_CURSOR)


@tool("query", read_only=True, idempotent=True)
def get_task_neighborhood(ctx: ServerContext, args: TaskIdInput) -> GetTaskNeighborhoodOutput:
    """A task with its parent, children, dependencies, dependents, project peers and the
    orphan tasks. Lists are paged as one sequence, in field order: follow next_cursor until
    null. You decide which relationships to add."""
    return _paged(ctx, args, GetTaskNeighborhoodOutput, neighborhood.neighborhood, NEIGHBORHOOD)


NEIGHBORHOOD = Paging(
    "get_task_neighborhood",
    "neighborhood_shown",
    "Read the lists; link tasks with update_task",
    ["update_task", "get_decomposition_context"],
)
