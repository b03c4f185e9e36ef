"""Mutation tier: completing tasks, one (`complete_task`) or several at once, all or none.

A completion is refused while the task's body has open '- [ ]' checklist items or another
agent holds a live claim on it (unless forced); completing a task already done changes
nothing. One task's completion is a guarded write, decided on its file as it is when written.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from graph.checklist import open_checklist_items
from graph.claims import holds_live_claim
from graph.write_delta import NO_CHANGE, WriteDelta
from storage.model import Task
from tasks_server.consent import require_agreement
from tasks_server.context import ServerContext
from tasks_server.errors import OpenChecklist
from tasks_server.guidance import Guidance, action, guide
from tasks_server.models import MAX_LIST_ITEMS, IdArg, Input
from tasks_server.registry import tool
from tasks_server.tools._guarded import END_CLAIM, AgentArg, check_claim, guarded_write
from tasks_server.tools._writes import (
    SHOWN_CHARS,
    TASK_ID,
    ReadinessReport,
    TaskWritten,
    written,
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


def _complete(ctx: ServerContext, tasks: list[Task]) -> WriteDelta:
    """Write done + completed for each task not done yet, all or none (a task already done
    is left as it is: completing is idempotent); returns what that changed in readiness."""
    changes = _done(ctx.clock())
    updates = [(t.path, changes) for t in tasks if t.status != "done"]
    return ctx.live.record(ctx.live.repository.write_batch([], updates))


def _complete_one(ctx: ServerContext, args: CompleteTaskInput) -> WriteDelta:
    """Complete one task as a guarded write: the claim is checked on the file as it is when
    written, so a claim taken by another process a moment before is never overwritten."""
    now = ctx.clock()

    def decide(task: Task) -> tuple[dict[str, object], None]:
        check_claim(task, args.agent, args.force, now)
        _check_completable(task, args.force)
        return (_done(now) if task.status != "done" else {}), None

    if ctx.index.require(args.task_id).status == "done":
        return NO_CHANGE
    return guarded_write(ctx, args.task_id, decide).delta


def _force_question(ctx: ServerContext, args: CompleteTaskInput) -> str | None:
    task = ctx.index.get(args.task_id)
    if not args.force or task is None or task.status == "done":
        return None
    return (
        f"Mark task {task.id} ({task.title!r}) done by force, past its open checklist items "
        "or another agent's claim?"
    )


@tool(
    "mutation",
    destructive=False,
    idempotent=True,
    confirm=_force_question,
    example={"task_id": "pipe-281fa6f5", "force": True},
)
def complete_task(ctx: ServerContext, args: CompleteTaskInput) -> CompleteTaskOutput:
    """Mark a task done (refused while its body has open '- [ ]' items, unless force)."""
    task = ctx.index.require(args.task_id)
    require_agreement(f"Complete task {task.id} by force?")
    check_claim(task, args.agent, args.force, ctx.clock())
    _check_completable(task, args.force)
    found = _complete_one(ctx, args)
    view, guidance = written(ctx, task.id, first=["get_ready_tasks"], agent=args.agent)
    open_children = [c for c in ctx.index.children(task.id) if not ctx.index.require(c).is_terminal]
    warnings = [f"{len(open_children)} child task(s) are still open"] if open_children else None
    return CompleteTaskOutput(
        task=view,
        **CompleteTaskOutput.fields_of(found),
        open_children=open_children,
        guidance=_after_completion(ctx, guidance, found).model_copy(update={"warnings": warnings}),
    )


def _after_completion(ctx: ServerContext, guidance: Guidance, delta: WriteDelta) -> Guidance:
    """A completion that made tasks ready points at claiming the first no one holds."""
    now = ctx.clock()
    free = [m.task_id for m in delta.became_ready
            if not holds_live_claim(ctx.index.require(m.task_id), now)]  # fmt: skip
    if not free:
        return guidance
    step = f"Call claim_task on {free[0]}, which this completion made ready"
    actions = [action("claim_task"), *guidance.available_actions]
    return guidance.model_copy(update={"next_action": step, "available_actions": actions})


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


@tool(
    "mutation",
    destructive=False,
    idempotent=True,
    example={"task_ids": ["pipe-a84567f9"], "force": True},
)
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
        **CompleteTasksOutput.fields_of(found),
        guidance=guide("tasks_completed", "Call get_ready_tasks", ["get_ready_tasks"]),
    )
