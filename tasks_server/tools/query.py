"""Query tier: read one task, search, walk children, dependencies and trees."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from graph import query, readiness
from graph.claims import deferred_until
from graph.facts import CYCLE_SHOWN
from graph.query import TREE_DEPTH_LIMIT, TREE_NODES_LIMIT, TreeNode
from graph.sections import Sections
from storage.model import normalise_status
from tasks_server.context import ServerContext
from tasks_server.filters import TaskFilterInput, apply_filters
from tasks_server.guidance import guide
from tasks_server.listing import Listing, TaskListArgs
from tasks_server.models import (
    Columns,
    Envelope,
    IdArg,
    Input,
    PageInfo,
    ProjectArg,
    TaskPage,
    Unset,
)
from tasks_server.registry import tool
from tasks_server.tools._about import about, seen
from tasks_server.views import FIELDS_DESCRIPTION, Fields, TaskRow, TaskView

TASK_ID = "Exact task id."
Depth = Annotated[int, Field(ge=0, le=TREE_DEPTH_LIMIT)]


class GetTaskInput(Input):
    task_id: IdArg = Field(description=TASK_ID)
    fields: Fields = Field("full", description=FIELDS_DESCRIPTION)


class GetTaskOutput(Envelope):
    task: TaskView = Field(description="The task.")


@tool("query", read_only=True, idempotent=True, example={"task_id": "wx-6ca4a1a9"})
def get_task(ctx: ServerContext, args: GetTaskInput) -> GetTaskOutput:
    """One task by id, with its body and computed facts."""
    if args.fields == "brief":  # the brief view asks the graph nothing
        task = ctx.index.require(args.task_id)
        return GetTaskOutput(task=ctx.view(task, "brief"), guidance=about(ctx, task.id))
    view, guidance = seen(ctx, args.task_id)  # one answer for the view and the guidance
    return GetTaskOutput(task=view, guidance=guidance)


class SearchTasksInput(TaskFilterInput, TaskListArgs):
    query: str = Field(min_length=1, description="Text to find, any case.")


class SearchTasksOutput(TaskPage):
    pass


@tool("query", read_only=True, idempotent=True, example={"query": "station"})
def search_tasks(ctx: ServerContext, args: SearchTasksInput) -> Listing[SearchTasksOutput]:
    """Tasks whose title or body contains `query`, ordered by id."""
    ids = apply_filters(ctx, query.search_tasks(ctx.index, args.query), args)
    return Listing(
        Sections({"tasks": ids}),
        guide(
            "matches_found" if ids else "no_matches",
            "Call get_task on a match"
            if ids
            else "Call search_tasks with a shorter query, or list_tasks",
            ["get_task", "list_tasks"],
        ),
    )


class TaskIdPagedInput(TaskListArgs):
    task_id: IdArg = Field(description=TASK_ID)


class GetChildrenOutput(TaskPage):
    parent_id: str = Field(description="The task whose children these are.")


@tool("query", read_only=True, idempotent=True, example={"task_id": "wx-84e61ceb"})
def get_children(ctx: ServerContext, args: TaskIdPagedInput) -> Listing[GetChildrenOutput]:
    """A task's direct children, in sibling order."""
    ids = ctx.index.children(args.task_id)
    return Listing(
        Sections({"tasks": ids}, {"parent_id": args.task_id}),
        guide(
            "has_children" if ids else "no_children",
            "Call get_task on a child" if ids else f"Call decompose_task on {args.task_id}",
            ["get_task", "decompose_task", "reorder_children"],
        ),
    )


class GetDependenciesInput(Input):
    task_id: IdArg = Field(description=TASK_ID)
    fields: Fields = Field("brief", description=FIELDS_DESCRIPTION)


class GetDependenciesOutput(Envelope):
    task_id: str = Field(description="The task whose dependencies these are.")
    dependencies: list[TaskRow] = Field(description="Hard dependencies that exist.")
    dangling: list[str] = Field(description="Dependency ids that name no task.")
    unmet: list[str] = Field(description="Dependencies not yet done or cancelled.")
    soft_dependencies: list[str] = Field(description="Soft (non-blocking) links.")


@tool("query", read_only=True, idempotent=True, example={"task_id": "wx-ec7ac8ad"})
def get_dependencies(ctx: ServerContext, args: GetDependenciesInput) -> GetDependenciesOutput:
    """A task's hard and soft dependencies, dangling ids included."""
    index = ctx.index
    index.require(args.task_id)
    deps = index.dependencies(args.task_id)
    present = [d for d in deps if d in index]
    facts = index.facts(args.task_id)
    views = ctx.views(present, args.fields)
    soft = index.soft_dependencies(args.task_id)
    return GetDependenciesOutput(
        task_id=args.task_id,
        dependencies=views,
        dangling=[d for d in deps if d not in index],
        unmet=facts.reasons.unmet_dependencies,
        soft_dependencies=soft,
        guidance=about(ctx, args.task_id, first=["get_task"]),
    )


class GetTaskTreeInput(Input):
    task_id: IdArg | Unset = Field(None, description="Root of the subtree.")
    project: ProjectArg | Unset = Field(None, description="Or: a whole project.")
    max_depth: Depth | Unset = Field(None, description="Levels below the root.")
    max_nodes: int = Field(
        TREE_NODES_LIMIT, ge=1, le=TREE_NODES_LIMIT, description="Nodes shown, level by level."
    )
    exclude_status: list[str] = Field(default_factory=list, description="Statuses to leave out.")
    format: Literal["json", "ascii"] = Field("json", description="Nested JSON or an ASCII tree.")

    @model_validator(mode="after")
    def _one_root(self) -> GetTaskTreeInput:
        if self.task_id is not None and self.project is not None:
            raise ValueError("give task_id or project, not both")
        return self


class GetTaskTreeOutput(Envelope):
    tree: list[TreeNode] | None = Field(description="Nested nodes (format json).")
    ascii: str | None = Field(description="The tree drawn as text (format ascii).")
    node_count: int = Field(description="Nodes shown.")
    cut_at: list[str] = Field(
        description="Nodes whose children were cut by the depth or size cap, in tree order:"
        " call get_task_tree with one as task_id to go on below it."
    )
    roots_not_shown: int = Field(description="Top-level tasks left out by the size cap.")


@tool("query", read_only=True, idempotent=True, example={"project": "wx"})
def get_task_tree(ctx: ServerContext, args: GetTaskTreeInput) -> GetTaskTreeOutput:
    """A subtree or a whole project as a tree; cycle-safe."""
    excluded = tuple(normalise_status(s) for s in args.exclude_status)
    nodes = query.tree(
        ctx.index,
        root_id=args.task_id,
        project=args.project,
        max_depth=args.max_depth,
        exclude_status=excluded,
        max_nodes=args.max_nodes,
    )
    shown = _in_order(nodes)
    cut_at = [n.id for n in shown if n.children_not_shown]
    text = query.render_ascii(nodes) if args.format == "ascii" else None
    return GetTaskTreeOutput(
        tree=nodes if args.format == "json" else None,
        ascii=text,
        node_count=len(shown),
        cut_at=cut_at,
        roots_not_shown=query.tree_roots_not_shown(
            ctx.index, root_id=args.task_id, project=args.project, max_nodes=args.max_nodes
        ),
        guidance=guide(
            "tree_cut" if cut_at else "tree_shown",
            f"Call get_task_tree with task_id {cut_at[0]} to go on below it"
            if cut_at
            else "Call get_task on a node for details",
            ["get_task_tree", "get_task", "get_children"],
        ),
    )


def _in_order(nodes: list[TreeNode]) -> list[TreeNode]:
    """Every node of the trees, each before its children."""
    stack, found = list(reversed(nodes)), []
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(node.children))
    return found


class ProjectPagedInput(TaskListArgs):
    project: ProjectArg | Unset = Field(None, description="Only this project.")


class GetReadyTasksInput(TaskFilterInput, TaskListArgs):
    pass


class GetReadyTasksOutput(TaskPage):
    pass


class GetBlockedTasksInput(ProjectPagedInput):
    include_deferred: bool = Field(False, description="Also tasks deferred (defer_until ahead).")


class BlockedTask(Input):
    task: TaskRow = Field(description="The blocked (or deferred) task.")
    unmet_dependencies: list[str] = Field(description="Dependencies not done or cancelled.")
    dangling_dependencies: list[str] = Field(description="Dependencies naming no task.")
    cycle: list[str] = Field(
        description=f"Members of its dependency cycle, if any (the first {CYCLE_SHOWN})."
    )
    cycle_length: int = Field(description="How many tasks that cycle has (0: none).")
    blocked_ancestor: str | None = Field(description="Nearest blocked ancestor, if any.")
    status_blocked: bool = Field(description="Its own status is blocked.")
    deferred_until: datetime | SkipJsonSchema[None] = Field(
        None,
        description="When its deferral ends (only with include_deferred); absent otherwise.",
        exclude_if=lambda value: value is None,
    )


class GetBlockedTasksOutput(PageInfo):
    tasks: list[BlockedTask] | Columns = Field(description="Blocked tasks with the reasons.")


class GetReviewTasksOutput(TaskPage):
    pass


@dataclass(frozen=True, slots=True)
class ByState:
    """The guidance of one of the task lists by state."""

    found: tuple[str, str]  # state token and next action when the list has tasks
    empty: tuple[str, str]  # ... and when it has none
    tools: list[str]


def _by_state(ids: Sequence[str], kind: ByState) -> Listing[Any]:
    state, next_action = kind.found if ids else kind.empty
    step = next_action.format(first=ids[0]) if ids else next_action
    return Listing(Sections({"tasks": ids}), guide(state, step, kind.tools))


READY = ByState(
    ("ready_tasks_available", "Call claim_next with the same filters to take the first one"),
    ("nothing_ready", "Call get_blocked_tasks to see what holds work back"),
    ["claim_next", "get_task_scoring_factors", "get_task", "get_blocked_tasks"],
)
BLOCKED = ByState(
    ("blocked_tasks_found", "Call get_dependencies on {first} to see what holds it"),
    ("nothing_blocked", "Call get_ready_tasks"),
    ["get_dependencies", "update_task", "get_structural_signals", "get_ready_tasks"],
)
REVIEW = ByState(
    ("reviews_waiting", "Review a task, then complete_task or update_task"),
    ("no_reviews", "Call get_ready_tasks"),
    ["get_task", "complete_task", "update_task", "get_ready_tasks"],
)


@tool("query", read_only=True, idempotent=True)
def get_ready_tasks(ctx: ServerContext, args: GetReadyTasksInput) -> Listing[GetReadyTasksOutput]:
    """Tasks ready to start: active, nothing blocking, no open children, not deferred."""
    ready = readiness.ready_tasks(ctx.index, project=args.project, now=ctx.clock())
    return _by_state(apply_filters(ctx, ready, args), READY)


@tool("query", read_only=True, idempotent=True)
def get_blocked_tasks(
    ctx: ServerContext, args: GetBlockedTasksInput
) -> Listing[GetBlockedTasksOutput]:
    """Blocked tasks, each with why."""
    now = ctx.clock()

    def rows(ids: Sequence[str]) -> list[BlockedTask]:
        fields, max_body_chars = args.row_fields()
        views = ctx.views(ids, fields, max_body_chars=max_body_chars)
        return [_blocked_row(ctx, view, now) for view in views]

    return replace(_by_state(_blocked_or_deferred(ctx, args, now), BLOCKED), rows=rows)


def _blocked_or_deferred(
    ctx: ServerContext, args: GetBlockedTasksInput, now: datetime
) -> list[str]:
    """The blocked ids not deferred, and with include_deferred the deferred ones too."""
    if not args.include_deferred:
        return readiness.blocked_ids(ctx.index, project=args.project, now=now)
    return readiness.blocked_or_deferred_ids(ctx.index, now, project=args.project)


def _blocked_row(ctx: ServerContext, view: TaskRow, now: datetime) -> BlockedTask:
    reasons = ctx.index.reasons(view.id).model_dump()
    until = deferred_until(ctx.index.require(view.id), now)
    return BlockedTask(task=view, deferred_until=until, **reasons)


@tool("query", read_only=True, idempotent=True)
def get_review_tasks(ctx: ServerContext, args: ProjectPagedInput) -> Listing[GetReviewTasksOutput]:
    """Tasks with status review."""
    return _by_state(readiness.review_tasks(ctx.index, project=args.project), REVIEW)
