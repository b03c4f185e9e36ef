"""Mutation tier: create, update, complete, decompose, reorder and delete tasks.

Every write goes through the repository (atomic, locked, minimal line edits) and is applied
to the index at once, so the next call sees it. Writers that would close a parent or
hard-dependency cycle are refused with the cycle.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from graph.changes import ReadinessChanges, ReadinessProbe
from graph.checklist import open_checklist_items
from storage.codec import DELETE
from storage.model import (
    DEFAULT_PRIORITY,
    DEFAULT_TYPE,
    TERMINAL_STATUSES,
    Task,
    normalise_status,
    pack_text,
)
from tasks_server.context import ServerContext
from tasks_server.errors import OpenChecklist, ToolFailure
from tasks_server.guidance import Guidance, guide
from tasks_server.models import (
    MAX_LIST_ITEMS,
    AwareMoment,
    Body,
    Envelope,
    IdArg,
    Input,
    Moment,
    NewIdArg,
    ShortText,
    Title,
)
from tasks_server.registry import tool
from tasks_server.tools._about import about
from tasks_server.tools._guarded import END_CLAIM, AgentArg, check_claim, guarded_write
from tasks_server.tools._writes import (
    SHOWN_CHARS,
    ReadinessReport,
    TaskWritten,
    check_fits,
    check_new_file,
    check_refs,
    projected_size,
    raise_if_cycle,
    readiness_counts,
    shown,
    written_view,
)
from tasks_server.views import TaskBrief

TASK_ID = "Exact task id."


class TaskFieldsInput(Input):
    type: ShortText | None = Field(None, description="goal, project, epic, task, action, bug, ...")
    status: ShortText | None = Field(None, description="inbox, active, in_progress, blocked, ...")
    priority: int | None = Field(None, ge=0, le=4, description="0 (most urgent) to 4.")
    order: int | None = Field(None, ge=-(10**9), le=10**9, description="Order among siblings.")
    depends_on: list[IdArg] | None = Field(
        None, max_length=MAX_LIST_ITEMS, description="Hard dependencies (task ids)."
    )
    soft_depends_on: list[IdArg] | None = Field(
        None, max_length=MAX_LIST_ITEMS, description="Soft links (task ids)."
    )
    tags: list[ShortText] | None = Field(None, max_length=MAX_LIST_ITEMS, description="Tags.")
    assignee: ShortText | None = Field(None, description="Assignee.")
    complexity: ShortText | None = Field(None, description="Complexity, as you grade it.")
    effort: ShortText | None = Field(None, description="Effort, as you estimate it.")
    context: ShortText | None = Field(None, description="Context (where or how it is done).")
    due: Moment | None = Field(None, description="Due date (ISO).")


class CreateTaskInput(TaskFieldsInput):
    title: Title = Field(description="Title.")
    project: NewIdArg | None = Field(
        None, description="Project; the file goes to <project>/tasks/."
    )
    parent: IdArg | None = Field(None, description="Parent task id.")
    body: Body = Field("", description="Markdown body.")
    id: NewIdArg | None = Field(None, description="Id to use; default <project or task>-<8 hex>.")


class CreateTaskOutput(TaskWritten):
    pass


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
        effort=args.effort,
        context=args.context,
        due=args.due,
        created=now,
        modified=now,
        completed=now if status in TERMINAL_STATUSES else None,
        packed_body=pack_text(args.body),
    )


@tool("mutation", destructive=False)
def create_task(ctx: ServerContext, args: CreateTaskInput) -> CreateTaskOutput:
    """Write a new task file (<project>/tasks/<id>-<slug>.md, or inbox/)."""
    repo = ctx.live.repository
    task_id = args.id or repo.new_id(args.project, ctx.index.__contains__)
    if task_id in ctx.index:
        raise ToolFailure("ALREADY_EXISTS", f"a task with id {task_id!r} exists")
    check_refs(ctx, args.parent, args.depends_on)
    raise_if_cycle(ctx, task_id, args.parent, args.depends_on)
    task = _new_task(args, task_id, ctx.clock())  # the write checks its size, before writing
    probe = ReadinessProbe.take(ctx.index, [task_id])
    ctx.live.record([repo.create(task)])
    changes = probe.changes(ctx.index)
    view = written_view(ctx, task_id)
    return CreateTaskOutput(
        task=view,
        unblocked=changes.became_ready,
        became_blocked=changes.became_blocked,
        guidance=about(ctx, task_id, first=["get_task_neighborhood"]).model_copy(
            update={"next_action": f"Call get_task_neighborhood on {task_id} to link it"}
        ),
    )


class UpdateTaskInput(TaskFieldsInput):
    """Every field but the id, the title and the body may be given as null: that removes
    its line from the file (a removed type, status or priority reads as the default)."""

    task_id: IdArg = Field(description=TASK_ID)
    title: Title | None = Field(None, description="New title.")
    project: NewIdArg | None = Field(
        None, description="New project (the file stays where it is); an id, as for create_task."
    )
    parent: ShortText | None = Field(None, description="New parent id; '' or null: a root.")
    body: Body | None = Field(None, description="New markdown body (replaces the old one).")
    expected_modified: AwareMoment | None = Field(
        None,
        description="file_modified from get_task (with its offset); refused with CONFLICT if"
        " the file changed since.",
    )
    agent: AgentArg | None = Field(
        None, description="The agent writing; another agent's live claim is a CONFLICT."
    )
    force: bool = Field(False, description="Write even while another agent's claim is live.")


class UpdateTaskOutput(TaskWritten):
    changed: list[str] = Field(description="Frontmatter keys written or removed.")


UNSETTABLE = frozenset({*TaskFieldsInput.model_fields, "project", "parent"})
"""The fields update_task removes when given as null."""


def _update_changes(args: UpdateTaskInput, now: datetime) -> dict[str, object]:
    given = args.model_fields_set
    if "title" in given and args.title is None:
        raise ToolFailure("INVALID_ARGUMENT", "title: a task needs one; it cannot be removed")
    changes = _set_fields(args)
    for key in ("title", "project"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    if args.parent is not None:
        changes["parent"] = args.parent or DELETE
    changes.update((key, DELETE) for key in given & UNSETTABLE if getattr(args, key) is None)
    if changes.get("status") in TERMINAL_STATUSES:
        changes.setdefault("completed", now)
        changes |= END_CLAIM  # a closed task is no one's any more
    changes["modified"] = now
    return changes


@tool("mutation", destructive=True)
def update_task(ctx: ServerContext, args: UpdateTaskInput) -> UpdateTaskOutput:
    """Change fields of a task in place; only the changed lines of the file are rewritten."""
    now = ctx.clock()
    changes = _update_changes(args, now)
    task = ctx.index.require(args.task_id)
    check_claim(task, args.agent, args.force, now)
    parent = changes.get("parent") if "parent" in changes else None
    deps = args.depends_on
    check_refs(ctx, parent if isinstance(parent, str) else None, deps)
    raise_if_cycle(ctx, task.id, parent if isinstance(parent, str) else None, deps)
    size = projected_size(ctx, task, changes, args.body)
    check_fits(ctx, size, f"the file of {shown(task.id)}")
    probe = ReadinessProbe.take(ctx.index, [task.id])
    result = ctx.live.repository.update(
        task.path, changes, expected_modified=args.expected_modified, body=args.body
    )
    ctx.live.record([result])
    found = probe.changes(ctx.index)
    view = written_view(ctx, task.id)
    return UpdateTaskOutput(
        task=view,
        unblocked=found.became_ready,
        became_blocked=found.became_blocked,
        changed=sorted(k for k in changes if k not in END_CLAIM) + (["body"] if args.body else []),
        guidance=about(ctx, task.id, first=["get_task"]).model_copy(
            update={"context": readiness_counts(found) or None}
        ),
    )


class CompleteTaskInput(Input):
    task_id: IdArg = Field(description=TASK_ID)
    force: bool = Field(
        False,
        description="Complete even with open '- [ ]' checklist items or another agent's live"
        " claim.",
    )
    agent: AgentArg | None = Field(
        None, description="The agent completing it; another agent's live claim is a CONFLICT."
    )


class CompleteTaskOutput(TaskWritten):
    open_children: list[str] = Field(description="Children still open after completing.")


def _check_completable(task: Task, force: bool) -> None:
    """Refuse while the body has open checklist items; with `force` the body is not read."""
    if force:
        return
    items = open_checklist_items(task.body)
    if items:
        raise OpenChecklist(task.id, [item[:SHOWN_CHARS] for item in items])


def _done(now: datetime) -> dict[str, object]:
    """The changes that complete a task: done, when, and its claim ended."""
    return {"status": "done", "completed": now, "modified": now, **END_CLAIM}


def _complete(ctx: ServerContext, tasks: list[Task]) -> ReadinessChanges:
    """Write done + completed for each task not done yet, all or none (a task already done
    is left as it is: completing is idempotent); returns what that changed in readiness."""
    probe = ReadinessProbe.take(ctx.index, [t.id for t in tasks])
    changes = _done(ctx.clock())
    updates = [(t.path, changes) for t in tasks if t.status != "done"]
    ctx.live.record(ctx.live.repository.write_batch([], updates))
    return probe.changes(ctx.index)


def _complete_one(ctx: ServerContext, args: CompleteTaskInput) -> ReadinessChanges:
    """Complete one task as a guarded write: the claim is checked on the file as it is when
    written, so a claim taken by another process a moment before is never overwritten."""
    now = ctx.clock()

    def decide(task: Task) -> tuple[dict[str, object], None]:
        check_claim(task, args.agent, args.force, now)
        _check_completable(task, args.force)
        return (_done(now) if task.status != "done" else {}), None

    probe = ReadinessProbe.take(ctx.index, [args.task_id])
    if ctx.index.require(args.task_id).status != "done":
        guarded_write(ctx, args.task_id, decide)
    return probe.changes(ctx.index)


@tool("mutation", destructive=False, idempotent=True)
def complete_task(ctx: ServerContext, args: CompleteTaskInput) -> CompleteTaskOutput:
    """Mark a task done (refused while its body has open '- [ ]' items, unless force)."""
    task = ctx.index.require(args.task_id)
    check_claim(task, args.agent, args.force, ctx.clock())
    _check_completable(task, args.force)
    found = _complete_one(ctx, args)
    view = written_view(ctx, task.id)
    open_children = [c for c in ctx.index.children(task.id) if not ctx.index.require(c).is_terminal]
    warnings = [f"{len(open_children)} child task(s) are still open"] if open_children else None
    unblocked = found.became_ready
    return CompleteTaskOutput(
        task=view,
        unblocked=unblocked,
        became_blocked=found.became_blocked,
        open_children=open_children,
        guidance=_after_completion(
            about(ctx, task.id, first=["get_ready_tasks"]), unblocked
        ).model_copy(update={"warnings": warnings}),
    )


def _after_completion(guidance: Guidance, unblocked: list[str]) -> Guidance:
    """A completion that made tasks ready points at the first of them."""
    if not unblocked:
        return guidance
    step = f"Call get_task on {unblocked[0]}, which this completion made ready"
    return guidance.model_copy(update={"next_action": step})


class CompleteTasksInput(Input):
    task_ids: list[IdArg] = Field(
        min_length=1, max_length=MAX_LIST_ITEMS, description="Task ids to mark done together."
    )
    force: bool = Field(
        False, description="Complete even with open checklist items or others' live claims."
    )
    agent: AgentArg | None = Field(
        None, description="The agent completing them; another agent's live claim is a CONFLICT."
    )


class CompleteTasksOutput(ReadinessReport):
    completed: list[str] = Field(description="Tasks now done.")


@tool("mutation", destructive=False, idempotent=True)
def complete_tasks(ctx: ServerContext, args: CompleteTasksInput) -> CompleteTasksOutput:
    """Mark several tasks done, all or none (every id is checked before any file changes)."""
    tasks = [ctx.index.require(i) for i in dict.fromkeys(args.task_ids)]
    now = ctx.clock()
    for task in tasks:
        check_claim(task, args.agent, args.force, now)
        _check_completable(task, args.force)
    found = _complete(ctx, tasks)
    return CompleteTasksOutput(
        completed=[t.id for t in tasks],
        unblocked=found.became_ready,
        became_blocked=found.became_blocked,
        guidance=guide("tasks_completed", "Call get_ready_tasks", ["get_ready_tasks"]),
    )


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


@tool("mutation", destructive=False)
def decompose_task(ctx: ServerContext, args: DecomposeTaskInput) -> DecomposeTaskOutput:
    """Write children under a task, all or none; a child may depend on an earlier sibling."""
    parent = ctx.index.require(args.task_id)
    tasks = _children_tasks(ctx, parent, args.children)
    probe = ReadinessProbe.take(ctx.index, [t.id for t in tasks])
    ctx.live.record(ctx.live.repository.write_batch(tasks))
    found = probe.changes(ctx.index)
    views = ctx.briefs(t.id for t in tasks)
    return DecomposeTaskOutput(
        parent_id=parent.id,
        children=views,
        unblocked=found.became_ready,
        became_blocked=found.became_blocked,
        guidance=guide(
            "task_decomposed",
            f"Call get_ready_tasks with project {parent.project}",
            ["get_ready_tasks", "get_children", "reorder_children"],
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


@tool("mutation", destructive=False, idempotent=True)
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


class DeleteTaskInput(Input):
    task_id: IdArg = Field(description=TASK_ID)


class DeleteTaskOutput(ReadinessReport):
    task_id: str = Field(description="The task deleted.")
    trash_path: str = Field(description="Where the file went, under the root.")
    now_dangling: list[str] = Field(description="Tasks whose references now name nothing.")


@tool("mutation", destructive=True, idempotent=False)
def delete_task(ctx: ServerContext, args: DeleteTaskInput) -> DeleteTaskOutput:
    """Move a task's file to <root>/.trash/ (never lost); references to it become dangling."""
    task = ctx.index.require(args.task_id)
    referrers = sorted(set(ctx.index.dependents(task.id)) | set(ctx.index.children(task.id)))
    probe = ReadinessProbe.take(ctx.index, [task.id])
    trash = ctx.live.repository.delete(task.path)
    ctx.live.record([], removed_paths=[task.path])
    found = probe.changes(ctx.index)
    return DeleteTaskOutput(
        task_id=task.id,
        trash_path=trash,
        now_dangling=referrers,
        unblocked=found.became_ready,
        became_blocked=found.became_blocked,
        guidance=guide(
            "task_deleted",
            "Call update_task to fix the tasks that referenced it"
            if referrers
            else "Call get_ready_tasks to pick the next task",
            ["update_task", "get_structural_signals", "get_ready_tasks"],
            warnings=[f"{len(referrers)} task(s) now reference a missing id"]
            if referrers
            else None,
        ),
    )
