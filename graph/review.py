"""The periodic review snapshot (`get_review_snapshot`): metrics, signals, what
changed since a cutoff, the oldest waiting tasks, and a week's velocity. No judgement.

Every list is in the task order (priority, order, id); times are measured against `now`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from graph._results import RESULT
from graph._time import check_now, cutoff, days_since
from graph.delta import TreeDelta
from graph.index import TaskIndex
from graph.metrics import GraphMetrics, graph_metrics
from graph.signals import StructuralSignals, structural_signals
from storage.model import IN_PROGRESS_STATUS, Task

__all__ = [
    "ChangesSince",
    "OldestInProgress",
    "OldestReady",
    "ReviewSnapshot",
    "Staleness",
    "Velocity",
    "changes_by_time",
    "changes_from_delta",
    "review_snapshot",
]

_FROZEN = RESULT
WEEK = timedelta(days=7)


class ChangesSince(BaseModel):
    """Task ids created, completed and modified in the window: from git's delta when the
    tree is in git (`changes_from_delta`), else from the later of each frontmatter time and
    the file's own modification time (so an editor's save counts)."""

    model_config = _FROZEN

    tasks_created: list[str] = Field(description="Created since the cutoff.")
    tasks_completed: list[str] = Field(description="Completed since the cutoff.")
    tasks_modified: list[str] = Field(description="Modified since the cutoff.")


class OldestReady(BaseModel):
    """The ready task that has been ready longest."""

    model_config = _FROZEN

    task: str = Field(description="Task id.")
    days_ready: float = Field(description="Days since it became ready.")


class OldestInProgress(BaseModel):
    """The in-progress task modified longest ago."""

    model_config = _FROZEN

    task: str = Field(description="Task id.")
    days_in_progress: float = Field(description="Days since its last modification.")


class Staleness(BaseModel):
    """The longest waits; null when no task qualifies (or none has the timestamp)."""

    model_config = _FROZEN

    oldest_ready_task: OldestReady | None = Field(description="Longest-ready task.")
    oldest_in_progress: OldestInProgress | None = Field(description="Oldest in-progress task.")


class Velocity(BaseModel):
    """Counts over the seven days up to `now`."""

    model_config = _FROZEN

    completed_last_7_days: int = Field(description="Tasks completed at or after now - 7 days.")
    created_last_7_days: int = Field(description="Tasks created at or after now - 7 days.")


class ReviewSnapshot(BaseModel):
    """Everything a periodic review reads, in one call."""

    model_config = _FROZEN

    timestamp: datetime = Field(description="The `now` the snapshot was taken at.")
    since_days: float = Field(description="The window of changes_since, in days.")
    metrics: GraphMetrics = Field(description="Graph metrics of the whole graph.")
    signals: StructuralSignals = Field(description="Structural signals of the whole graph.")
    changes_since: ChangesSince = Field(description="What changed in the window.")
    staleness: Staleness = Field(description="The longest waits.")
    velocity: Velocity = Field(description="Created and completed over the last seven days.")


def _since(
    tasks: Iterable[Task], stamp: Callable[[Task], datetime | None], start: datetime
) -> list[str]:
    """Ids (in the given order) of the tasks whose `stamp` is at or after `start`."""
    return [t.id for t in tasks if (when := stamp(t)) is not None and when >= start]


def _oldest_ready(index: TaskIndex, now: datetime) -> OldestReady | None:
    since = [(r, i) for i in index.tally.ready if (r := index.ready_base(i))]
    if not since:
        return None
    when, task_id = min(since)
    return OldestReady(task=task_id, days_ready=days_since(when, now))


def _oldest_in_progress(index: TaskIndex, now: datetime) -> OldestInProgress | None:
    ids = index.tally.by_status.get(IN_PROGRESS_STATUS, ())
    since = [(m, i) for i in ids if (m := index.require(i).modified) is not None]
    if not since:
        return None
    when, task_id = min(since)
    return OldestInProgress(task=task_id, days_in_progress=days_since(when, now))


def _later(first: datetime | None, second: datetime | None) -> datetime | None:
    if first is None or second is None:
        return first or second
    return max(first, second)


def changes_by_time(
    index: TaskIndex, start: datetime, file_times: Mapping[str, datetime]
) -> ChangesSince:
    """Created (frontmatter `created`), completed (`completed`, or for a done task the later
    of it and the file's time) and modified (the later of `modified` and the file's time) at or
    after `start`, each in the task order. `file_times`: id → the file's modification time.

    >>> from datetime import UTC, datetime
    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="done")])
    >>> changes_by_time(index, datetime(2026, 1, 1, tzinfo=UTC),
    ...                 {"a": datetime(2026, 1, 2, tzinfo=UTC)}).tasks_completed
    ['a']
    """
    tasks = index.tasks()
    file_time = file_times.get  # callers pass only times up to now

    def completed(task: Task) -> datetime | None:
        done = task.status == "done"
        return _later(task.completed, file_time(task.id)) if done else task.completed

    return ChangesSince(
        tasks_created=_since(tasks, lambda t: t.created, start),
        tasks_completed=_since(tasks, completed, start),
        tasks_modified=_since(tasks, lambda t: _later(t.modified, file_time(t.id)), start),
    )


def changes_from_delta(index: TaskIndex, delta: TreeDelta) -> ChangesSince:
    """changes_since read from a delta whose later state is the index: added tasks are
    created, tasks whose status became done (or that were added done) completed, tasks
    present before whose file changed modified; each in the task order."""
    added_done = [i for i in delta.added if index.require(i).status == "done"]
    return ChangesSince(
        tasks_created=index.sorted_ids(delta.added),
        tasks_completed=index.sorted_ids({*delta.completed, *added_done}),
        tasks_modified=index.sorted_ids(row.task_id for row in delta.changed),
    )


def review_snapshot(
    index: TaskIndex,
    *,
    since_days: float,
    now: datetime,
    changes: ChangesSince | None = None,
) -> ReviewSnapshot:
    """Metrics, signals, changes since `now - since_days`, staleness and velocity.

    >>> from datetime import UTC, datetime
    >>> from storage.model import Task
    >>> now = datetime(2026, 1, 10, tzinfo=UTC)
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="active",
    ...                               created=datetime(2026, 1, 9, tzinfo=UTC),
    ...                               modified=datetime(2026, 1, 9, tzinfo=UTC))])
    >>> snap = review_snapshot(index, since_days=2, now=now)
    >>> snap.changes_since.tasks_created, snap.staleness.oldest_ready_task.days_ready
    (['a'], 1.0)

    `changes` replaces the frontmatter-only changes_since (see `changes_by_time` and
    `changes_from_delta`).
    """
    start = cutoff(check_now(now), since_days, "since_days")
    tasks = index.tasks()
    week = now - WEEK
    return ReviewSnapshot(
        timestamp=now,
        since_days=since_days,
        metrics=graph_metrics(index),
        signals=structural_signals(index),
        changes_since=changes or changes_by_time(index, start, {}),
        staleness=Staleness(
            oldest_ready_task=_oldest_ready(index, now),
            oldest_in_progress=_oldest_in_progress(index, now),
        ),
        velocity=Velocity(
            completed_last_7_days=sum(
                t.completed is not None and t.completed >= week for t in tasks
            ),
            created_last_7_days=sum(t.created is not None and t.created >= week for t in tasks),
        ),
    )
