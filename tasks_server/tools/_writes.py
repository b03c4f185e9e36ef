"""Shared pieces of the write tools: the readiness report every write returns, the checks
made before the first byte is written, and messages that quote a caller's value briefly."""

from __future__ import annotations

from pydantic import Field

from graph.changes import ReadinessChanges
from graph.cycle_check import would_create_cycle
from storage import codec
from storage.model import Task
from tasks_server.context import ServerContext
from tasks_server.errors import ToolFailure
from tasks_server.models import Envelope
from tasks_server.views import TaskView

__all__ = [
    "BODY_SHOWN",
    "SHOWN_CHARS",
    "TASK_ID",
    "ReadinessReport",
    "TaskWritten",
    "check_fits",
    "check_new_file",
    "check_refs",
    "projected_size",
    "raise_if_cycle",
    "readiness_counts",
    "shown",
    "written_view",
]

SHOWN_CHARS = 80  # of a caller's value quoted in an error message
TASK_ID = "Exact task id."  # the description of a write's `task_id` argument
BODY_SHOWN = 2000  # body characters a write's result shows (the rest is flagged, not lost)


class ReadinessReport(Envelope):
    """What a write changed in readiness, through dependencies and ancestors alike."""

    unblocked: list[str] = Field(
        description="Tasks that became ready because of this write (new ones included)."
    )
    became_blocked: list[str] = Field(description="Tasks that became blocked by this write.")


class TaskWritten(ReadinessReport):
    task: TaskView = Field(description="The task as written (a long body is cut and flagged).")


def shown(value: str) -> str:
    """`value` quoted for a message, cut to a bounded length."""
    return repr(value[:SHOWN_CHARS] + ("..." if len(value) > SHOWN_CHARS else ""))


def check_refs(ctx: ServerContext, parent: str | None, deps: list[str] | None) -> None:
    for ref in [parent, *(deps or [])]:
        if ref is not None and ref not in ctx.index:
            raise ToolFailure("TASK_NOT_FOUND", f"no task with id {shown(ref)} to link to")


def check_fits(ctx: ServerContext, size: int, what: str) -> None:
    """Refuse, before anything is written, a file the reader would refuse as too large."""
    limit = ctx.live.repository.max_bytes
    if size > limit:
        raise ToolFailure(
            "INVALID_ARGUMENT", f"{what} would be {size} bytes, over the {limit}-byte file limit"
        )


def check_new_file(ctx: ServerContext, task: Task) -> None:
    check_fits(ctx, len(codec.dumps(task).encode()), f"the file of {shown(task.title)}")


def raise_if_cycle(
    ctx: ServerContext, task_id: str, parent: str | None, deps: list[str] | None
) -> None:
    cycle = would_create_cycle(ctx.index, task_id, parent=parent, depends_on=deps or ())
    if cycle is not None:
        raise cycle


def written_view(ctx: ServerContext, task_id: str) -> TaskView:
    return ctx.view(ctx.index.require(task_id), "full", max_body_chars=BODY_SHOWN)


def projected_size(
    ctx: ServerContext, task: Task, changes: dict[str, object], body: str | None
) -> int:
    """An upper bound of the file's size after the update: every changed value added, the
    body swapped (None: the body stays, and is not unpacked to learn that)."""
    result = ctx.live.table.files.get(task.path)
    size = result.stamp[1] if result is not None else 0
    added = sum(len(f"{key}: {value}\n".encode()) for key, value in changes.items())
    swapped = 0 if body is None else len(body.encode()) - len(task.body.encode())
    return size + added + swapped


def readiness_counts(changes: ReadinessChanges) -> dict[str, object] | None:
    """The readiness counts for guidance context, None when the write changed none."""
    counts = {"unblocked": len(changes.became_ready), "became_blocked": len(changes.became_blocked)}
    return {k: v for k, v in counts.items() if v} or None
