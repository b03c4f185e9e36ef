"""Mutation tier: a task's children: written under it together (`decompose_task`), and
put in order (`reorder_children`).

A decomposition writes every child or none; a child may depend on an earlier sibling (by
position or key), never a later one, so the new children cannot form a cycle.
"""

from __future__ import annotations

from pydantic import Field

from graph.claims import claim_of
from storage.model import Task, pack_text
from tasks_server.context import ServerContext
from tasks_server.errors import ToolFailure
from tasks_server.guidance import guide
from tasks_server.models import MAX_LIST_ITEMS, Body, Envelope, IdArg, Input, ShortText, Title
from tasks_server.registry import tool
from tasks_server.tools._guarded import END_CLAIM
from tasks_server.tools._writes import (
    ReadinessReport,
    check_new_file,
    check_refs,
    shown,
)
from tasks_server.views import TaskBrief


class ChildSpec(Input):
    title: Title = Field(description="Child title.")
    key: ShortText | None = Field(None, description="Local name later children can depend on.")
    type: ShortText = Field("task", description="Child type.")
    priority: int | None = Field(None, ge=0, le=4, description="Default: the parent's.")
    body: Body = Field("", description="Markdown body.")
    depends_on: list[IdArg | int] = Field(
        default_factory=list,
        max_length=MAX_LIST_ITEMS,
        description="Task ids, earlier siblings' positions (0-based) or keys.",
    )


class DecomposeTaskInput(Input):
    task_id: IdArg = Field(description="The task to split.")
    children: list[ChildSpec] = Field(
        min_length=1, max_length=MAX_LIST_ITEMS, description="Children to write, in order."
    )


class DecomposeTaskOutput(ReadinessReport):
    parent_id: str = Field(description="The decomposed task.")
    children: list[TaskBrief] = Field(description="The children written, in order.")
    claim_ended: str | None = Field(
        description="The agent whose claim on the parent ended (a container is worked through"
        " its children); null when it had none."
    )


def _child_deps(
    spec: ChildSpec, ids: list[str], keys: dict[str, int], position: int
) -> tuple[str, ...]:
    """The ids a child depends on: task ids as given, earlier siblings by position or key (a
    later sibling would allow a cycle among the new children)."""
    deps: list[str] = []
    for ref in spec.depends_on:
        if isinstance(ref, str) and ref not in keys:
            deps.append(ref)
            continue
        at = keys[ref] if isinstance(ref, str) else ref
        if not 0 <= at < position:
            raise ToolFailure(
                "INVALID_ARGUMENT",
                f"child {position} depends on {shown(str(ref))}, not an earlier sibling",
            )
        deps.append(ids[at])
    return tuple(deps)


def _children_tasks(ctx: ServerContext, parent: Task, specs: list[ChildSpec]) -> list[Task]:
    repo, taken = ctx.live.repository, set(ctx.index.ids())
    ids: list[str] = []
    for _ in specs:
        ids.append(repo.new_id(parent.project, lambda c: c in taken or c in ids))
    keys = {spec.key: n for n, spec in enumerate(specs) if spec.key}
    now = ctx.clock()
    tasks = []
    for n, spec in enumerate(specs):
        deps = _child_deps(spec, ids, keys, n)
        check_refs(ctx, None, [d for d in deps if d not in ids])
        tasks.append(
            Task(
                id=ids[n],
                title=spec.title,
                path="",
                type=spec.type,
                status="active",
                priority=parent.priority if spec.priority is None else spec.priority,
                order=n,
                parent=parent.id,
                depends_on=deps,
                project=parent.project,
                packed_body=pack_text(spec.body),
                created=now,
                modified=now,
            )
        )
        check_new_file(ctx, tasks[-1])
    return tasks


@tool(
    "mutation",
    destructive=False,
    example={"task_id": "wx-dc36fc90", "children": [{"title": "Sub"}]},
)
def decompose_task(ctx: ServerContext, args: DecomposeTaskInput) -> DecomposeTaskOutput:
    """Write children under a task, all or none; a child may depend on an earlier sibling."""
    parent = ctx.index.require(args.task_id)
    tasks = _children_tasks(ctx, parent, args.children)
    claim = claim_of(parent)
    updates = [(parent.path, dict(END_CLAIM))] if claim is not None else []
    found = ctx.live.record(ctx.live.repository.write_batch(tasks, updates))
    views = ctx.briefs(t.id for t in tasks)
    ended = claim.agent if claim is not None else None
    return DecomposeTaskOutput(
        parent_id=parent.id,
        children=views,
        claim_ended=ended,
        **DecomposeTaskOutput.fields_of(found),
        guidance=guide(
            "task_decomposed",
            f"Call claim_next with under={parent.id} to take its first ready child",
            ["claim_next", "get_ready_tasks", "get_children", "reorder_children"],
            warnings=[f"the claim of {ended} on {parent.id} ended: it is a container now"]
            if ended
            else None,
        ),
    )


class ReorderChildrenInput(Input):
    parent_id: IdArg = Field(description="The parent task.")
    order: list[IdArg] = Field(
        min_length=1,
        max_length=MAX_LIST_ITEMS,
        description="Child ids in the new order; others follow.",
    )


class ReorderChildrenOutput(Envelope):
    parent_id: str = Field(description="The parent task.")
    children: list[str] = Field(description="All children in their new order.")


@tool(
    "mutation",
    destructive=False,
    idempotent=True,
    example={"parent_id": "wx-84e61ceb", "order": ["wx-f5b19f71", "wx-62f746b4"]},
)
def reorder_children(ctx: ServerContext, args: ReorderChildrenInput) -> ReorderChildrenOutput:
    """Set the sibling order of a task's children (listed first, the rest keep their order)."""
    ctx.index.require(args.parent_id)
    current = ctx.index.children(args.parent_id)
    unknown = [i for i in args.order if i not in current]
    if unknown:
        listed = ", ".join(shown(i) for i in unknown[:5])
        raise ToolFailure(
            "INVALID_ARGUMENT",
            f"{len(unknown)} id(s) are not children of {shown(args.parent_id)}: {listed}",
        )
    ordered = list(dict.fromkeys(args.order)) + [c for c in current if c not in args.order]
    moved = [(ctx.index.require(c), n) for n, c in enumerate(ordered)]
    updates = [(task.path, {"order": n}) for task, n in moved if task.order != n]
    if updates:  # a child already at its place is not written; one alone, without a journal
        ctx.live.record(ctx.live.repository.write_batch([], updates))
    children = ctx.index.children(args.parent_id)
    return ReorderChildrenOutput(
        parent_id=args.parent_id,
        children=children,
        guidance=guide("children_reordered", "Call get_children to check", ["get_children"]),
    )
