"""Ready, blocked, in-review and in-progress tasks, optionally for one project.

Every list is in the task order (priority, order, id).
"""

from __future__ import annotations

from collections.abc import Collection

from pydantic import BaseModel, ConfigDict, Field

from graph.facts import BlockedReasons
from graph.index import TaskIndex
from storage.model import IN_PROGRESS_STATUS, REVIEW_STATUS

__all__ = [
    "BlockedRow",
    "blocked_ids",
    "blocked_tasks",
    "in_progress_tasks",
    "ready_tasks",
    "review_tasks",
]


class BlockedRow(BaseModel):
    """A blocked task and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Task id.")
    reasons: BlockedReasons = Field(description="Every reason that applies.")


def _in_project(
    index: TaskIndex, name: str, ids: Collection[str], project: str | None
) -> list[str]:
    """`ids` (a set the index keeps, remembered sorted as `name` until the next edit) in the
    task order, only those of `project` when one is given."""
    ordered = index.sorted_until_edit(name, ids)
    if project is None:
        return list(ordered)
    members = index.project_members(project)
    return [i for i in ordered if i in members]


def ready_tasks(index: TaskIndex, *, project: str | None = None) -> list[str]:
    """Ids of the ready tasks: active, not blocked, no open child.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="active"),
    ...                          Task(id="b", title="B", path="b.md", status="blocked")])
    >>> ready_tasks(index)
    ['a']
    """
    return _in_project(index, "ready", index.tally.ready, project)


def blocked_ids(index: TaskIndex, *, project: str | None = None) -> list[str]:
    """Ids of the blocked tasks, in the order `blocked_tasks` lists them (page these, then
    read `index.reasons(id)` for one page).

    >>> from storage.model import Task
    >>> blocked_ids(TaskIndex.build([Task(id="a", title="A", path="a.md", status="blocked")]))
    ['a']
    """
    return _in_project(index, "blocked", index.tally.blocked, project)


def blocked_tasks(index: TaskIndex, *, project: str | None = None) -> list[BlockedRow]:
    """The blocked tasks with their reasons.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", depends_on=("gone",))])
    >>> blocked_tasks(index)[0].reasons.dangling_dependencies
    ['gone']
    """
    return [
        BlockedRow(id=task_id, reasons=index.reasons(task_id))
        for task_id in blocked_ids(index, project=project)
    ]


def review_tasks(index: TaskIndex, *, project: str | None = None) -> list[str]:
    """Ids of the tasks with status review.

    >>> from storage.model import Task
    >>> review_tasks(TaskIndex.build([Task(id="a", title="A", path="a.md", status="review")]))
    ['a']
    """
    review = index.tally.by_status.get(REVIEW_STATUS, set())
    return _in_project(index, "review", review, project)


def in_progress_tasks(index: TaskIndex, *, project: str | None = None) -> list[str]:
    """Ids of the tasks with status in_progress (blocked ones included).

    >>> from storage.model import Task
    >>> in_progress_tasks(TaskIndex.build([Task(id="a", title="A", path="a.md")]))
    []
    """
    in_progress = index.tally.by_status.get(IN_PROGRESS_STATUS, set())
    return _in_project(index, "in_progress", in_progress, project)
