"""Query tier: read one task, list, search, walk children, dependencies and trees."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from graph import query, readiness
from graph.facts import CYCLE_SHOWN
from graph.query import TREE_DEPTH_LIMIT, TREE_NODES_LIMIT, TreeNode
from storage.model import normalise_status
from tasks_server.context import ServerContext
from tasks_server.guidance import guide
from tasks_server.models import Envelope, IdArg, Input, PagedInput, PageInfo, TaskPage
from tasks_server.registry import tool
from tasks_server.views import FIELDS_DESCRIPTION, Fields, TaskRow, TaskView

TASK_ID = "Exact task id (no prefix matching)."


class GetTaskInput(Input):
    task_id: IdArg = Field(description=TASK_ID)
    fields: Fields = Field("full", description=FIELDS_DESCRIPTION)


class GetTaskOutput(Envelope):
    task: TaskView = Field(description="The task.")


@tool("query", read_only=True, idempotent=True)
def get_task(ctx: ServerContext, args: GetTaskInput) -> GetTaskOutput:
    """One task by id, with its body, computed facts and file_modified (for update_task)."""
    task = ctx.index.require(args.task_id)
    facts = ctx.index.facts(task.id)
    view = ctx.view(task, args.fields)
    state = "ready" if facts.is_ready else "blocked" if facts.is_blocked else task.status
    nxt = "update_task" if not task.is_terminal else "get_task_neighborhood"
    return GetTaskOutput(
        task=view,
        guidance=guide(
            f"task_{state}",
            f"Call {nxt} to act on {task.id}",
            [nxt, "get_task_neighborhood", "get_children", "complete_task"],
        ),
    )


class ListTasksInput(PagedInput):
    project: IdArg | None = Field(None, description="Only this project.")
    status: str | None = Field(None, description="Only this status (aliases accepted).")
    type: str | None = Field(None, description="Only this type.")
    priority: int | None = Field(None, ge=0, le=4, description="Only this priority.")
    priority_max: int | None = Field(None, ge=0, le=4, description="Priority <= this.")
    assignee: str | None = Field(None, description="Only this assignee.")
    tag: str | None = Field(None, description="Only tasks with this tag.")
    parent: IdArg | None = Field(None, description="Only children of this task id.")


class ListTasksOutput(TaskPage):
    pass


@tool("query", read_only=True, idempotent=True)
def list_tasks(ctx: ServerContext, args: ListTasksInput) -> ListTasksOutput:
    """Tasks matching every given filter, ordered by priority, order, id."""
    filters = args.model_dump(exclude={"limit", "cursor", "fields", "max_body_chars"})
    ids = query.list_tasks(ctx.index, **filters)
    views, page = ctx.page(ids, args, ("list_tasks", filters))
    return ListTasksOutput.of(
        views,
        page,
        guide(
            "tasks_listed" if page.total else "no_tasks_match",
            "Call get_task for details" if page.total else "Loosen the filters",
            ["get_task", "get_task_neighborhood", "search_tasks"],
        ),
    )


class SearchTasksInput(PagedInput):
    query: str = Field(min_length=1, description="Case-insensitive substring of title or body.")


class SearchTasksOutput(TaskPage):
    pass


@tool("query", read_only=True, idempotent=True)
def search_tasks(ctx: ServerContext, args: SearchTasksInput) -> SearchTasksOutput:
    """Tasks whose title or body contains the text (case-insensitive), ordered by id."""
    ids = query.search_tasks(ctx.index, args.query)
    views, page = ctx.page(ids, args, ("search_tasks", args.query))
    return SearchTasksOutput.of(
        views,
        page,
        guide(
            "matches_found" if page.total else "no_matches",
            "Call get_task on a match" if page.total else "Try a shorter query or list_tasks",
            ["get_task", "list_tasks"],
        ),
    )


class TaskIdPagedInput(PagedInput):
    task_id: IdArg = Field(description=TASK_ID)


class GetChildrenOutput(TaskPage):
    parent_id: str = Field(description="The task whose children these are.")


@tool("query", read_only=True, idempotent=True)
def get_children(ctx: ServerContext, args: TaskIdPagedInput) -> GetChildrenOutput:
    """A task's direct children, in sibling order."""
    ctx.index.require(args.task_id)
    ids = ctx.index.children(args.task_id)
    views, page = ctx.page(ids, args, ("get_children", args.task_id))
    return GetChildrenOutput.of(
        views,
        page,
        guide(
            "has_children" if page.total else "no_children",
            "Call get_task on a child" if page.total else f"Call decompose_task on {args.task_id}",
            ["get_task", "decompose_task", "reorder_children"],
        ),
        parent_id=args.task_id,
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


@tool("query", read_only=True, idempotent=True)
def get_dependencies(ctx: ServerContext, args: GetDependenciesInput) -> GetDependenciesOutput:
    """A task's hard dependencies (dangling ids listed, not dropped) and soft links."""
    index = ctx.index
    index.require(args.task_id)
    deps = index.dependencies(args.task_id)
    present = [d for d in deps if d in index]
    facts = index.facts(args.task_id)
    views = ctx.views(present, args.fields)
    soft = index.soft_dependencies(args.task_id)
    unmet = facts.reasons.unmet_dependencies
    return GetDependenciesOutput(
        task_id=args.task_id,
        dependencies=views,
        dangling=[d for d in deps if d not in index],
        unmet=unmet,
        soft_dependencies=soft,
        guidance=guide(
            "dependencies_unmet" if unmet else "dependencies_met",
            f"Finish or re-plan the {len(unmet)} unmet dependencies"
            if unmet
            else f"{args.task_id} is not held by dependencies",
            ["get_task", "get_blocked_tasks", "update_task"],
        ),
    )


class GetTaskTreeInput(Input):
    task_id: IdArg | None = Field(None, description="Root of the subtree (or give project).")
    project: IdArg | None = Field(None, description="Every top-level task of this project.")
    max_depth: int | None = Field(
        None,
        ge=0,
        le=TREE_DEPTH_LIMIT,
        description=f"Levels below the root to include (default and most: {TREE_DEPTH_LIMIT}).",
    )
    max_nodes: int = Field(
        TREE_NODES_LIMIT,
        ge=1,
        le=TREE_NODES_LIMIT,
        description="Nodes to show at most, level by level from the root.",
    )
    exclude_status: list[str] = Field(default_factory=list, description="Statuses to leave out.")
    format: Literal["json", "ascii"] = Field("json", description="Nested JSON or an ASCII tree.")


class GetTaskTreeOutput(Envelope):
    tree: list[TreeNode] | None = Field(description="Nested nodes (format json).")
    ascii: str | None = Field(description="The tree drawn as text (format ascii).")
    node_count: int = Field(description="Nodes shown.")
    cut_at: list[str] = Field(
        description="Nodes whose children were cut by the depth or size cap, in tree order:"
        " call get_task_tree with one as task_id to go on below it."
    )
    roots_not_shown: int = Field(description="Top-level tasks left out by the size cap.")


@tool("query", read_only=True, idempotent=True)
def get_task_tree(ctx: ServerContext, args: GetTaskTreeInput) -> GetTaskTreeOutput:
    """A subtree (task_id) or a whole project (project) as a tree; cycle-safe."""
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


class ProjectPagedInput(PagedInput):
    project: IdArg | None = Field(None, description="Only this project.")


class GetReadyTasksOutput(TaskPage):
    pass


@tool("query", read_only=True, idempotent=True)
def get_ready_tasks(ctx: ServerContext, args: ProjectPagedInput) -> GetReadyTasksOutput:
    """Tasks ready to start: status active, nothing blocking, no open children."""
    ids = readiness.ready_tasks(ctx.index, project=args.project)
    views, page = ctx.page(ids, args, ("ready", args.project))
    return GetReadyTasksOutput.of(
        views,
        page,
        guide(
            "ready_tasks_available" if page.total else "nothing_ready",
            "Call get_task_scoring_factors to rank them yourself"
            if page.total
            else "Call get_blocked_tasks to see what holds work back",
            ["get_task_scoring_factors", "get_task", "get_blocked_tasks", "update_task"],
        ),
    )


class BlockedTask(Input):
    task: TaskRow = Field(description="The blocked task.")
    unmet_dependencies: list[str] = Field(description="Dependencies not done or cancelled.")
    dangling_dependencies: list[str] = Field(description="Dependencies naming no task.")
    cycle: list[str] = Field(
        description=f"Members of its dependency cycle, if any (the first {CYCLE_SHOWN})."
    )
    cycle_length: int = Field(description="How many tasks that cycle has (0: none).")
    blocked_ancestor: str | None = Field(description="Nearest blocked ancestor, if any.")
    status_blocked: bool = Field(description="Its own status is blocked.")


class GetBlockedTasksOutput(PageInfo):
    tasks: list[BlockedTask] = Field(description="Blocked tasks with the reasons.")


@tool("query", read_only=True, idempotent=True)
def get_blocked_tasks(ctx: ServerContext, args: ProjectPagedInput) -> GetBlockedTasksOutput:
    """Blocked tasks, each with why: unmet, dangling, cycle, blocked ancestor, status."""
    ids = readiness.blocked_ids(ctx.index, project=args.project)
    views, page = ctx.page(ids, args, ("blocked", args.project))
    items = [BlockedTask(task=view, **ctx.index.reasons(view.id).model_dump()) for view in views]
    return GetBlockedTasksOutput.of(
        items,
        page,
        guide(
            "blocked_tasks_found" if page.total else "nothing_blocked",
            "Resolve the first unmet dependency or dangling id"
            if page.total
            else "Call get_ready_tasks",
            ["get_dependencies", "update_task", "get_structural_signals", "get_ready_tasks"],
        ),
    )


class GetReviewTasksOutput(TaskPage):
    pass


@tool("query", read_only=True, idempotent=True)
def get_review_tasks(ctx: ServerContext, args: ProjectPagedInput) -> GetReviewTasksOutput:
    """Tasks with status review."""
    ids = readiness.review_tasks(ctx.index, project=args.project)
    views, page = ctx.page(ids, args, ("review", args.project))
    return GetReviewTasksOutput.of(
        views,
        page,
        guide(
            "reviews_waiting" if page.total else "no_reviews",
            "Review a task, then complete_task or update_task"
            if page.total
            else "Call get_ready_tasks",
            ["get_task", "complete_task", "update_task", "get_ready_tasks"],
        ),
    )
