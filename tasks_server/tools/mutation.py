"""Mutation tier: one task's file written whole: create, update and delete.

Every write goes through the repository (atomic, locked, minimal line edits) and is applied
to the index at once, so the next call sees it. Writers that would close a parent or
hard-dependency cycle are refused with the cycle. Completing tasks is in `completion.py`,
writing and ordering a task's children in `children.py`, claims and notes in `agents.py`.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from storage.codec import DELETE
from storage.model import (
    DEFAULT_PRIORITY,
    DEFAULT_TYPE,
    TERMINAL_STATUSES,
    Task,
    normalise_status,
    pack_text,
)
from tasks_server.consent import require_agreement
from tasks_server.context import ServerContext
from tasks_server.errors import ToolFailure
from tasks_server.guidance import guide
from tasks_server.models import (
    MAX_LIST_ITEMS,
    AwareMoment,
    Body,
    IdArg,
    Input,
    Moment,
    NewIdArg,
    ShortText,
    Title,
)
from tasks_server.registry import tool
from tasks_server.tools._guarded import END_CLAIM, AgentArg, check_claim
from tasks_server.tools._writes import (
    TASK_ID,
    ReadinessReport,
    TaskWritten,
    check_fits,
    check_links,
    projected_size,
    readiness_counts,
    shown,
    written,
)


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


@tool("mutation", destructive=False, example={"title": "Meta test task", "project": "wx"})
def create_task(ctx: ServerContext, args: CreateTaskInput) -> CreateTaskOutput:
    """Write a new task file (<project>/tasks/<id>-<slug>.md, or inbox/)."""
    repo, index = ctx.live.repository, ctx.index
    task_id = args.id or repo.new_id(args.project, index.__contains__)
    if task_id in index:
        raise ToolFailure("ALREADY_EXISTS", f"a task with id {task_id!r} exists")
    check_links(index, task_id, args.parent, args.depends_on)
    task = _new_task(args, task_id, ctx.clock())  # the write checks its size, before writing
    delta = ctx.live.record([repo.create(task)])
    view, guidance = written(ctx, task_id, first=["get_task_neighborhood"])
    return CreateTaskOutput(
        task=view,
        **CreateTaskOutput.fields_of(delta),
        guidance=guidance.model_copy(
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
        description="modified or file_modified from get_task (with offset); CONFLICT if the"
        " task was written since.",
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


@tool("mutation", destructive=True, example={"task_id": "wx-6ca4a1a9", "priority": 1})
def update_task(ctx: ServerContext, args: UpdateTaskInput) -> UpdateTaskOutput:
    """Change fields of a task in place; only the changed lines of the file are rewritten."""
    now = ctx.clock()
    changes = _update_changes(args, now)
    task = ctx.index.require(args.task_id)
    check_claim(task, args.agent, args.force, now)
    parent = changes.get("parent") if "parent" in changes else None
    deps = args.depends_on
    check_links(ctx.index, task.id, parent if isinstance(parent, str) else None, deps)
    size = projected_size(ctx, task, changes, args.body)
    check_fits(ctx, size, f"the file of {shown(task.id)}")
    result = ctx.live.repository.update(
        task.path, changes, expected_modified=args.expected_modified, body=args.body
    )
    found = ctx.live.record([result])
    view, guidance = written(ctx, task.id, first=["get_task"], agent=args.agent)
    return UpdateTaskOutput(
        task=view,
        **UpdateTaskOutput.fields_of(found),
        changed=sorted(k for k in changes if k not in END_CLAIM) + (["body"] if args.body else []),
        guidance=guidance.model_copy(update={"context": readiness_counts(found) or None}),
    )


class DeleteTaskInput(Input):
    task_id: IdArg = Field(description=TASK_ID)
    expected_modified: AwareMoment | None = Field(
        None,
        description="modified or file_modified from get_task (with offset); CONFLICT if the"
        " task was written since.",
    )


class DeleteTaskOutput(ReadinessReport):
    task_id: str = Field(description="The task deleted.")
    trash_path: str = Field(description="Where the file went, under the root.")
    now_dangling: list[str] = Field(description="Tasks whose references now name nothing.")


def _delete_question(ctx: ServerContext, args: DeleteTaskInput) -> str | None:
    task = ctx.index.get(args.task_id)
    if task is None:
        return None  # the handler answers TASK_NOT_FOUND
    return f"Delete task {task.id} ({task.title!r})? Its file moves to .trash/."


@tool(
    "mutation",
    destructive=True,
    idempotent=False,
    confirm=_delete_question,
    example={"task_id": "grant-c85990d2"},
)
def delete_task(ctx: ServerContext, args: DeleteTaskInput) -> DeleteTaskOutput:
    """Move a task's file to <root>/.trash/ (never lost); references to it become dangling."""
    task = ctx.index.require(args.task_id)
    require_agreement(f"Delete task {task.id}?")
    referrers = sorted(set(ctx.index.dependents(task.id)) | set(ctx.index.children(task.id)))
    expected = args.expected_modified
    if expected is not None and expected == task.modified:  # as read: the file as indexed
        expected = ctx.file_modified(task)
    trash = ctx.live.repository.delete(task.path, expected_modified=expected)
    found = ctx.live.record([], removed_paths=[task.path])
    return DeleteTaskOutput(
        task_id=task.id,
        trash_path=trash,
        now_dangling=referrers,
        **DeleteTaskOutput.fields_of(found),
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
