"""Mutation tier: create, update, complete, decompose, reorder and delete tasks.

Every write goes through the repository (atomic, locked, minimal line edits) and is applied
to the index at once, so the next call sees it. Writers that would close a parent or
hard-dependency cycle are refused with the cycle.
"""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import AwareDatetime, Field

from graph.index import would_create_cycle
from storage.model import (
    DEFAULT_PRIORITY,
    DEFAULT_TYPE,
    TERMINAL_STATUSES,
    Task,
    normalise_status,
)
from tasks_server.context import ServerContext
from tasks_server.errors import OpenChecklist, ToolFailure
from tasks_server.guidance import guide
from tasks_server.models import Envelope, Input
from tasks_server.registry import tool
from tasks_server.views import TaskBrief, TaskView

TASK_ID = "Exact task id."
_OPEN_ITEM = re.compile(r"^\s*[-*+] \[ \] (.+)$", re.MULTILINE)


class TaskFieldsInput(Input):
    type: str | None = Field(None, description="goal, project, epic, task, action, bug, ...")
    status: str | None = Field(None, description="inbox, active, in_progress, blocked, ...")
    priority: int | None = Field(None, ge=0, le=4, description="0 (most urgent) to 4.")
    order: int | None = Field(None, description="Order among siblings.")
    depends_on: list[str] | None = Field(None, description="Hard dependencies (task ids).")
    soft_depends_on: list[str] | None = Field(None, description="Soft links (task ids).")
    tags: list[str] | None = Field(None, description="Tags.")
    assignee: str | None = Field(None, description="Assignee.")
    complexity: str | None = Field(None, description="Complexity, as you grade it.")
    due: datetime | None = Field(None, description="Due date (ISO).")


class CreateTaskInput(TaskFieldsInput):
    title: str = Field(min_length=1, description="Title.")
    project: str | None = Field(None, description="Project; the file goes to <project>/tasks/.")
    parent: str | None = Field(None, description="Parent task id.")
    body: str = Field("", description="Markdown body.")
    id: str | None = Field(None, description="Id to use; default <project or task>-<8 hex>.")


class TaskWritten(Envelope):
    task: TaskView = Field(description="The task as written.")
    unblocked: list[str] = Field(description="Tasks that became ready because of this write.")


class CreateTaskOutput(TaskWritten):
    pass


def _check_refs(ctx: ServerContext, parent: str | None, deps: list[str] | None) -> None:
    for ref in [parent, *(deps or [])]:
        if ref is not None and ref not in ctx.index:
            raise ToolFailure("TASK_NOT_FOUND", f"no task with id {ref!r} to link to")


def _raise_if_cycle(
    ctx: ServerContext, task_id: str, parent: str | None, deps: list[str] | None
) -> None:
    cycle = would_create_cycle(ctx.index, task_id, parent=parent, depends_on=deps or ())
    if cycle is not None:
        raise cycle


def _ready_ids(ctx: ServerContext, ids: set[str]) -> set[str]:
    return {i for i in ids if i in ctx.index and ctx.index.facts(i).is_ready}


def _neighbours(ctx: ServerContext, task: Task) -> set[str]:
    """Tasks whose readiness a change to `task` can flip."""
    found = set(ctx.index.dependents(task.id)) | set(ctx.index.descendants(task.id))
    return found | ({task.parent} if task.parent else set())


def _written(ctx: ServerContext, task_id: str, before: set[str]) -> tuple[TaskView, list[str]]:
    task = ctx.index.require(task_id)
    after = _ready_ids(ctx, _neighbours(ctx, task))
    return ctx.view(task, "full"), sorted(after - before)


def _set_fields(args: TaskFieldsInput) -> dict[str, object]:
    values = args.model_dump(include=set(TaskFieldsInput.model_fields), exclude_none=True)
    if "status" in values:
        values["status"] = normalise_status(str(values["status"]))
    return values


def _new_task(args: CreateTaskInput, task_id: str, now: datetime) -> Task:
    status = normalise_status(args.status or "inbox")
    return Task(
        id=task_id,
        title=args.title,
        path="",
        type=args.type or DEFAULT_TYPE,
        status=status,
        priority=DEFAULT_PRIORITY if args.priority is None else args.priority,
        order=args.order or 0,
        parent=args.parent,
        depends_on=tuple(args.depends_on or ()),
        soft_depends_on=tuple(args.soft_depends_on or ()),
        project=args.project,
        tags=tuple(args.tags or ()),
        assignee=args.assignee,
        complexity=args.complexity,
        due=args.due,
        created=now,
        modified=now,
        completed=now if status in TERMINAL_STATUSES else None,
        body=args.body,
    )


@tool("mutation", destructive=False)
def create_task(ctx: ServerContext, args: CreateTaskInput) -> CreateTaskOutput:
    """Write a new task file (<project>/tasks/<id>-<slug>.md, or inbox/)."""
    with ctx.live.snapshot():
        repo = ctx.live.repository
        task_id = args.id or repo.new_id(args.project, ctx.index.__contains__)
        if task_id in ctx.index:
            raise ToolFailure("ALREADY_EXISTS", f"a task with id {task_id!r} exists")
        _check_refs(ctx, args.parent, args.depends_on)
        _raise_if_cycle(ctx, task_id, args.parent, args.depends_on)
        task = _new_task(args, task_id, ctx.clock())
        ctx.live.record([repo.create(task)])
        view, unblocked = _written(ctx, task_id, set())
    return CreateTaskOutput(
        task=view,
        unblocked=unblocked,
        guidance=guide(
            "task_created",
            f"Call get_task_neighborhood on {task_id} to link it",
            ["get_task_neighborhood", "update_task", "decompose_task"],
        ),
    )


class UpdateTaskInput(TaskFieldsInput):
    task_id: str = Field(description=TASK_ID)
    title: str | None = Field(None, min_length=1, description="New title.")
    project: str | None = Field(None, description="New project (the file stays where it is).")
    parent: str | None = Field(None, description="New parent id; '' makes it a root.")
    body: str | None = Field(None, description="New markdown body (replaces the old one).")
    expected_modified: AwareDatetime | None = Field(
        None, description="file_modified from get_task; refused with CONFLICT if the file changed."
    )


class UpdateTaskOutput(TaskWritten):
    changed: list[str] = Field(description="Frontmatter keys written.")


def _update_changes(args: UpdateTaskInput, now: datetime) -> dict[str, object]:
    changes = _set_fields(args)
    for key in ("title", "project"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    if args.parent is not None:
        changes["parent"] = args.parent or None
    if changes.get("status") in TERMINAL_STATUSES:
        changes.setdefault("completed", now)
    changes["modified"] = now
    return changes


@tool("mutation", destructive=True)
def update_task(ctx: ServerContext, args: UpdateTaskInput) -> UpdateTaskOutput:
    """Change fields of a task in place; only the changed lines of the file are rewritten."""
    changes = _update_changes(args, ctx.clock())
    with ctx.live.snapshot():
        task = ctx.index.require(args.task_id)
        parent = changes.get("parent") if "parent" in changes else None
        deps = args.depends_on
        _check_refs(ctx, parent if isinstance(parent, str) else None, deps)
        _raise_if_cycle(ctx, task.id, parent if isinstance(parent, str) else None, deps)
        before = _ready_ids(ctx, _neighbours(ctx, task))
        result = ctx.live.repository.update(
            task.path, changes, expected_modified=args.expected_modified, body=args.body
        )
        ctx.live.record([result])
        view, unblocked = _written(ctx, task.id, before)
    return UpdateTaskOutput(
        task=view,
        unblocked=unblocked,
        changed=sorted(changes) + (["body"] if args.body else []),
        guidance=guide(
            "task_updated",
            "Call get_ready_tasks to see what can start now",
            ["get_task", "get_ready_tasks", "complete_task"],
            context={"unblocked": len(unblocked)} if unblocked else None,
        ),
    )


class CompleteTaskInput(Input):
    task_id: str = Field(description=TASK_ID)
    force: bool = Field(False, description="Complete even with open '- [ ]' checklist items.")


class CompleteTaskOutput(TaskWritten):
    open_children: list[str] = Field(description="Children still open after completing.")


def _check_completable(task: Task, force: bool) -> None:
    items = _OPEN_ITEM.findall(task.body)
    if items and not force:
        raise OpenChecklist(task.id, items)


def _complete(ctx: ServerContext, tasks: list[Task]) -> set[str]:
    """Write done + completed for each task not done yet, all or none (a task already done
    is left as it is: completing is idempotent); returns the ready set before."""
    before: set[str] = set()
    for task in tasks:
        before |= _ready_ids(ctx, _neighbours(ctx, task))
    now = ctx.clock()
    changes = {"status": "done", "completed": now, "modified": now}
    updates = [(t.path, changes) for t in tasks if t.status != "done"]
    ctx.live.record(ctx.live.repository.write_batch([], updates))
    return before


@tool("mutation", destructive=False, idempotent=True)
def complete_task(ctx: ServerContext, args: CompleteTaskInput) -> CompleteTaskOutput:
    """Mark a task done (refused while its body has open '- [ ]' items, unless force)."""
    with ctx.live.snapshot():
        task = ctx.index.require(args.task_id)
        _check_completable(task, args.force)
        before = _complete(ctx, [task])
        view, unblocked = _written(ctx, task.id, before)
        open_children = [
            c for c in ctx.index.children(task.id) if not ctx.index.require(c).is_terminal
        ]
    warnings = [f"{len(open_children)} child task(s) are still open"] if open_children else None
    return CompleteTaskOutput(
        task=view,
        unblocked=unblocked,
        open_children=open_children,
        guidance=guide(
            "task_completed",
            f"Start {unblocked[0]}" if unblocked else "Call get_ready_tasks",
            ["get_ready_tasks", "get_task"],
            warnings=warnings,
        ),
    )


class CompleteTasksInput(Input):
    task_ids: list[str] = Field(min_length=1, description="Task ids to mark done together.")
    force: bool = Field(False, description="Complete even with open checklist items.")


class CompleteTasksOutput(Envelope):
    completed: list[str] = Field(description="Tasks now done.")
    unblocked: list[str] = Field(description="Tasks that became ready.")


@tool("mutation", destructive=False, idempotent=True)
def complete_tasks(ctx: ServerContext, args: CompleteTasksInput) -> CompleteTasksOutput:
    """Mark several tasks done, all or none (every id is checked before any file changes)."""
    with ctx.live.snapshot():
        tasks = [ctx.index.require(i) for i in dict.fromkeys(args.task_ids)]
        for task in tasks:
            _check_completable(task, args.force)
        before = _complete(ctx, tasks)
        after: set[str] = set()
        for task in tasks:
            after |= _ready_ids(ctx, _neighbours(ctx, ctx.index.require(task.id)))
    unblocked = sorted(after - before)
    return CompleteTasksOutput(
        completed=[t.id for t in tasks],
        unblocked=unblocked,
        guidance=guide("tasks_completed", "Call get_ready_tasks", ["get_ready_tasks"]),
    )


class ChildSpec(Input):
    title: str = Field(min_length=1, description="Child title.")
    key: str | None = Field(None, description="Local name other children can depend on.")
    type: str = Field("task", description="Child type.")
    priority: int | None = Field(None, ge=0, le=4, description="Default: the parent's.")
    body: str = Field("", description="Markdown body.")
    depends_on: list[str | int] = Field(
        default_factory=list,
        description="Task ids, earlier siblings' positions (0-based) or keys.",
    )


class DecomposeTaskInput(Input):
    task_id: str = Field(description="The task to split.")
    children: list[ChildSpec] = Field(min_length=1, description="Children to write, in order.")


class DecomposeTaskOutput(Envelope):
    parent_id: str = Field(description="The decomposed task.")
    children: list[TaskBrief] = Field(description="The children written, in order.")


def _child_deps(
    spec: ChildSpec, ids: list[str], keys: dict[str, str], position: int
) -> tuple[str, ...]:
    deps: list[str] = []
    for ref in spec.depends_on:
        if isinstance(ref, int):
            if not 0 <= ref < position:
                raise ToolFailure(
                    "INVALID_ARGUMENT",
                    f"child {position} depends on position {ref}, not an earlier sibling",
                )
            deps.append(ids[ref])
        else:
            deps.append(keys.get(ref, ref))
    return tuple(deps)


def _children_tasks(ctx: ServerContext, parent: Task, specs: list[ChildSpec]) -> list[Task]:
    repo, taken = ctx.live.repository, set(ctx.index.ids())
    ids: list[str] = []
    for _ in specs:
        ids.append(repo.new_id(parent.project, lambda c: c in taken or c in ids))
    keys = {spec.key: ids[n] for n, spec in enumerate(specs) if spec.key}
    now = ctx.clock()
    tasks = []
    for n, spec in enumerate(specs):
        deps = _child_deps(spec, ids, keys, n)
        _check_refs(ctx, None, [d for d in deps if d not in ids])
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
                body=spec.body,
                created=now,
                modified=now,
            )
        )
    return tasks


@tool("mutation", destructive=False)
def decompose_task(ctx: ServerContext, args: DecomposeTaskInput) -> DecomposeTaskOutput:
    """Write children under a task, all or none; a child may depend on an earlier sibling."""
    with ctx.live.snapshot():
        parent = ctx.index.require(args.task_id)
        tasks = _children_tasks(ctx, parent, args.children)
        ctx.live.record(ctx.live.repository.write_batch(tasks))
        views = ctx.briefs(t.id for t in tasks)
    return DecomposeTaskOutput(
        parent_id=parent.id,
        children=views,
        guidance=guide(
            "task_decomposed",
            f"Call get_ready_tasks with project {parent.project}",
            ["get_ready_tasks", "get_children", "reorder_children"],
        ),
    )


class ReorderChildrenInput(Input):
    parent_id: str = Field(description="The parent task.")
    order: list[str] = Field(min_length=1, description="Child ids in the new order; others follow.")


class ReorderChildrenOutput(Envelope):
    parent_id: str = Field(description="The parent task.")
    children: list[str] = Field(description="All children in their new order.")


@tool("mutation", destructive=False, idempotent=True)
def reorder_children(ctx: ServerContext, args: ReorderChildrenInput) -> ReorderChildrenOutput:
    """Set the sibling order of a task's children (listed first, the rest keep their order)."""
    with ctx.live.snapshot():
        ctx.index.require(args.parent_id)
        current = ctx.index.children(args.parent_id)
        unknown = [i for i in args.order if i not in current]
        if unknown:
            raise ToolFailure(
                "INVALID_ARGUMENT", f"not children of {args.parent_id}: {', '.join(unknown)}"
            )
        ordered = list(dict.fromkeys(args.order)) + [c for c in current if c not in args.order]
        updates = [(ctx.index.require(c).path, {"order": n}) for n, c in enumerate(ordered)]
        ctx.live.record(ctx.live.repository.write_batch([], updates))
        children = ctx.index.children(args.parent_id)
    return ReorderChildrenOutput(
        parent_id=args.parent_id,
        children=children,
        guidance=guide("children_reordered", "Call get_children to check", ["get_children"]),
    )


class DeleteTaskInput(Input):
    task_id: str = Field(description=TASK_ID)


class DeleteTaskOutput(Envelope):
    task_id: str = Field(description="The task deleted.")
    trash_path: str = Field(description="Where the file went, under the root.")
    now_dangling: list[str] = Field(description="Tasks whose references now name nothing.")


@tool("mutation", destructive=True, idempotent=False)
def delete_task(ctx: ServerContext, args: DeleteTaskInput) -> DeleteTaskOutput:
    """Move a task's file to <root>/.trash/ (never lost); references to it become dangling."""
    with ctx.live.snapshot():
        task = ctx.index.require(args.task_id)
        referrers = sorted(set(ctx.index.dependents(task.id)) | set(ctx.index.children(task.id)))
        trash = ctx.live.repository.delete(task.path)
        ctx.live.record([], removed_paths=[task.path])
    return DeleteTaskOutput(
        task_id=task.id,
        trash_path=trash,
        now_dangling=referrers,
        guidance=guide(
            "task_deleted",
            "Fix the dangling references with update_task" if referrers else "Done",
            ["update_task", "get_structural_signals"],
            warnings=[f"{len(referrers)} task(s) now reference a missing id"]
            if referrers
            else None,
        ),
    )
