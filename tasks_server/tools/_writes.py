"""Shared pieces of the write tools: the readiness report every write returns, the checks
made before the first byte is written, and messages that quote a caller's value briefly."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from pydantic import ConfigDict, Field

from graph.cycle_check import would_create_cycle
from graph.index import TaskIndex
from graph.write_delta import WriteDelta
from storage import codec
from storage.model import Task
from tasks_server.context import ServerContext
from tasks_server.errors import ToolFailure
from tasks_server.models import Envelope, Part
from tasks_server.tools._about import Seen, seen
from tasks_server.views import TaskView

__all__ = [
    "BODY_SHOWN",
    "SHOWN_CHARS",
    "TASK_ID",
    "NewTaskRow",
    "ReadinessMove",
    "ReadinessReport",
    "TaskWritten",
    "Written",
    "check_fits",
    "check_links",
    "check_new_file",
    "check_refs",
    "projected_size",
    "readiness_counts",
    "shown",
    "written",
    "written_view",
]

SHOWN_CHARS = 80  # of a caller's value quoted in an error message
TASK_ID = "Exact task id."  # the description of a write's `task_id` argument
BODY_SHOWN = 2000  # body characters a write's result shows (the rest is flagged, not lost)


class ReadinessMove(Part):
    model_config = ConfigDict(extra="forbid")

    task_id: str = Field(description="The task.")
    reason: str = Field(
        description="What held it before (became_ready) or holds it now (no_longer_ready):"
        " blocked, waiting_on_children, deleted, or its status."
    )


class NewTaskRow(Part):
    model_config = ConfigDict(extra="forbid")

    task_id: str = Field(description="The new task.")
    ready: bool = Field(description="True when it is ready now.")


class ReadinessFields(TypedDict):
    became_ready: list[ReadinessMove]
    no_longer_ready: list[ReadinessMove]
    created: list[NewTaskRow]


class ReadinessReport(Envelope):
    """What a write changed in readiness, through dependencies and ancestors alike: deltas
    of the tasks that existed before it, and the tasks it created."""

    became_ready: list[ReadinessMove] = Field(description="Tasks that became ready by this write.")
    no_longer_ready: list[ReadinessMove] = Field(
        description="Tasks that were ready and are not any more."
    )
    created: list[NewTaskRow] = Field(description="Tasks this write created.")

    @classmethod
    def fields_of(cls, delta: WriteDelta) -> ReadinessFields:
        """The report's fields from the graph's delta, for `Output(**fields_of(d), ...)`."""
        return {
            "became_ready": [ReadinessMove(task_id=m.task_id, reason=m.reason)
                             for m in delta.became_ready],
            "no_longer_ready": [ReadinessMove(task_id=m.task_id, reason=m.reason)
                                for m in delta.no_longer_ready],
            "created": [NewTaskRow(task_id=n.task_id, ready=n.ready) for n in delta.created],
        }  # fmt: skip


class TaskWritten(ReadinessReport):
    task: TaskView = Field(description="The task as written (a long body is cut and flagged).")


def shown(value: str) -> str:
    """`value` quoted for a message, cut to a bounded length."""
    return repr(value[:SHOWN_CHARS] + ("..." if len(value) > SHOWN_CHARS else ""))


def check_refs(ctx: ServerContext, parent: str | None, deps: list[str] | None) -> None:
    _check_refs(ctx.index, parent, deps)


def _check_refs(index: TaskIndex, parent: str | None, deps: list[str] | None) -> None:
    for ref in [parent, *(deps or [])]:
        if ref is not None and ref not in index:
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


def check_links(index: TaskIndex, task_id: str, parent: str | None, deps: list[str] | None) -> None:
    """Refuse, before anything is written, links to tasks that do not exist (TASK_NOT_FOUND)
    and links that would close a parent or dependency cycle (the cycle)."""
    _check_refs(index, parent, deps)
    cycle = would_create_cycle(index, task_id, parent=parent, depends_on=deps or ())
    if cycle is not None:
        raise cycle


def written_view(ctx: ServerContext, task_id: str) -> TaskView:
    return ctx.view(ctx.index.require(task_id), "full", max_body_chars=BODY_SHOWN)


Written = Seen
"""A written task as its write's answer shows it: the view and the guidance."""


def written(
    ctx: ServerContext, task_id: str, *, first: Sequence[str] = (), agent: str | None = None
) -> Written:
    """The view of a task just written (its body cut at `BODY_SHOWN`) and the guidance its
    state calls for, both from one answer of the graph about it (`_about.seen`)."""
    return seen(ctx, task_id, max_body_chars=BODY_SHOWN, first=first, agent=agent)


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


def readiness_counts(delta: WriteDelta) -> dict[str, object] | None:
    """The readiness counts for guidance context, None when the write changed none."""
    counts = {"became_ready": len(delta.became_ready),
              "no_longer_ready": len(delta.no_longer_ready)}  # fmt: skip
    return {k: v for k, v in counts.items() if v} or None
