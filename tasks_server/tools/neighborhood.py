"""Query tier: a task's neighbourhood and its decomposition context.

Every list in these results is paged with one `limit` and one `cursor`, as one sequence
read in the order the fields come: a page holds at most `limit` tasks in all, each list
carries its `*_total`, and `next_cursor` stays set until every list is done. Nothing is cut
silently.
"""

from __future__ import annotations

from pydantic import Field

from graph import neighborhood
from graph.neighborhood import NEIGHBORHOOD_LISTS
from tasks_server.context import ServerContext
from tasks_server.errors import ToolFailure
from tasks_server.guidance import guide
from tasks_server.listing import Limit, Listing, PageArgs
from tasks_server.models import Envelope, IdArg, Part, Unset
from tasks_server.registry import tool
from tasks_server.views import TaskBrief, TaskView

PAGED = "This page's part (see limit, cursor)."
NEXT_CURSOR = "Pass as cursor for the next page of the lists; null when all lists are done."


class TaskIdInput(PageArgs):
    task_id: IdArg = Field(description="Exact task id.")
    limit: Limit = 25


def _more(tool_name: str) -> str:
    return f"Call {tool_name} with cursor=next_cursor for the rest of the lists"


class ParentContext(Part):
    parent: TaskBrief | None = Field(description="The parent task, if any.")
    siblings: list[TaskBrief] = Field(description=f"Other children of the parent. {PAGED}")
    siblings_total: int = Field(description="Other children of the parent, all pages.")


class ProjectContext(Part):
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


@tool("query", read_only=True, idempotent=True, example={"task_id": "wx-6ca4a1a9"})
def get_decomposition_context(
    ctx: ServerContext, args: TaskIdInput
) -> Listing[GetDecompositionContextOutput]:
    """A task to split, with children, parent, siblings, project peers."""
    index = ctx.index
    task = index.require(args.task_id)
    found = neighborhood.decomposition_context(index, task)
    then = f"Propose children, then call decompose_task on {args.task_id}"
    return Listing(
        found.with_facts(task=ctx.view(task, "full")),
        guide("decomposition_context", then, ["decompose_task", "get_task_neighborhood"]),
        more=_more("get_decomposition_context"),
    )


class Relationships(Part):
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


class GetTaskNeighborhoodInput(TaskIdInput):
    sections: list[str] | Unset = Field(
        None,
        description="Only these lists (others empty, totals still counted): "
        f"{', '.join(NEIGHBORHOOD_LISTS)}.",
    )


@tool("query", read_only=True, idempotent=True, example={"task_id": "wx-6ca4a1a9"})
def get_task_neighborhood(
    ctx: ServerContext, args: GetTaskNeighborhoodInput
) -> Listing[GetTaskNeighborhoodOutput]:
    """A task's parent, children, dependencies, dependents, project peers and orphans."""
    unknown = sorted(set(args.sections or ()) - set(NEIGHBORHOOD_LISTS))
    if unknown:
        raise ToolFailure(
            "INVALID_ARGUMENT",
            f"unknown sections {unknown}; choose from {', '.join(NEIGHBORHOOD_LISTS)}",
        )
    index = ctx.index
    task = index.require(args.task_id)
    found = neighborhood.neighborhood(index, task)
    chosen = NEIGHBORHOOD_LISTS if args.sections is None else args.sections
    return Listing(
        found.with_facts(task=ctx.view(task, "full")),
        guide(
            "neighborhood_shown",
            "Read the lists; link tasks with update_task",
            ["update_task", "get_decomposition_context"],
        ),
        more=_more("get_task_neighborhood"),
        hidden=frozenset(NEIGHBORHOOD_LISTS) - set(chosen),
    )
