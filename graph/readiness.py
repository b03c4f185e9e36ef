"""Ready, blocked, in-review and in-progress tasks, optionally for one project.

Every list is in the task order (priority, order, id). Given `now`, readiness also honours
deferral: a task whose `defer_until` is still ahead is neither ready nor blocked (its facts
say `deferred_until`), and becomes ready by itself once `now` passes it.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from heapq import merge

from pydantic import BaseModel, Field

from graph._results import RESULT
from graph.claims import deferred_until
from graph.facts import BlockedReasons
from graph.index import TaskIndex
from storage.model import IN_PROGRESS_STATUS, REVIEW_STATUS

__all__ = [
    "BlockedRow",
    "blocked_ids",
    "blocked_or_deferred_ids",
    "blocked_tasks",
    "deferred_ids",
    "in_progress_tasks",
    "ready_tasks",
    "review_tasks",
]


class BlockedRow(BaseModel):
    """A blocked task and why."""

    model_config = RESULT

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


def _not_deferred(index: TaskIndex, ids: list[str], now: datetime | None) -> list[str]:
    """`ids` without the tasks deferred past `now` (found among the few that name a
    deferral, not by reading every task of `ids`)."""
    if now is None:
        return ids
    require = index.require
    held = {i for i in index.deferring() if deferred_until(require(i), now) is not None}
    return [i for i in ids if i not in held] if held else ids


def ready_tasks(
    index: TaskIndex, *, project: str | None = None, now: datetime | None = None
) -> list[str]:
    """Ids of the ready tasks: active, not blocked, no open child (and, given `now`, not
    deferred past it).

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="active"),
    ...                          Task(id="b", title="B", path="b.md", status="blocked")])
    >>> ready_tasks(index)
    ['a']
    """
    return _not_deferred(index, _in_project(index, "ready", index.tally.ready, project), now)


def blocked_ids(
    index: TaskIndex, *, project: str | None = None, now: datetime | None = None
) -> list[str]:
    """Ids of the blocked tasks, in the order `blocked_tasks` lists them (page these, then
    read `index.reasons(id)` for one page); given `now`, without those deferred past it.

    >>> from storage.model import Task
    >>> blocked_ids(TaskIndex.build([Task(id="a", title="A", path="a.md", status="blocked")]))
    ['a']
    """
    return _not_deferred(index, _in_project(index, "blocked", index.tally.blocked, project), now)


def blocked_or_deferred_ids(
    index: TaskIndex, now: datetime, *, project: str | None = None
) -> list[str]:
    """The blocked ids, deferred or not, and the open tasks deferred past `now`, in the
    task order (the kept blocked order, with the few deferred ones merged in).

    >>> from datetime import UTC
    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="b", title="B", path="b.md", status="blocked"),
    ...                          Task(id="a", title="A", path="a.md",
    ...                               extra={"defer_until": "2026-02-01"})])
    >>> blocked_or_deferred_ids(index, datetime(2026, 1, 1, tzinfo=UTC))
    ['a', 'b']
    """
    blocked = blocked_ids(index, project=project)
    held = [i for i in deferred_ids(index, now, project=project) if i not in index.tally.blocked]
    return list(merge(blocked, held, key=index.sort_key)) if held else blocked


def deferred_ids(index: TaskIndex, now: datetime, *, project: str | None = None) -> list[str]:
    """Ids of the open tasks deferred past `now`, in the task order.

    >>> from datetime import UTC
    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md",
    ...                               extra={"defer_until": "2026-02-01"})])
    >>> deferred_ids(index, datetime(2026, 1, 1, tzinfo=UTC))
    ['a']
    """
    require = index.require
    return index.sorted_ids(
        i
        for i in index.deferring()
        if (project is None or require(i).project == project)
        and not require(i).is_terminal
        and deferred_until(require(i), now) is not None
    )


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
    review = index.tally.by_status.get(REVIEW_STATUS, ())
    return _in_project(index, "review", review, project)


def in_progress_tasks(index: TaskIndex, *, project: str | None = None) -> list[str]:
    """Ids of the tasks with status in_progress (blocked ones included).

    >>> from storage.model import Task
    >>> in_progress_tasks(TaskIndex.build([Task(id="a", title="A", path="a.md")]))
    []
    """
    in_progress = index.tally.by_status.get(IN_PROGRESS_STATUS, ())
    return _in_project(index, "in_progress", in_progress, project)
