"""Per-task topology rows and raw scoring factors (`get_tasks_with_topology`,
`get_task_scoring_factors`). Thresholds are the caller's: `min_depth`, `min_blocking_count`.

Rows are in the task order (priority, order, id).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, Field

from graph._results import RESULT
from graph._time import check_now, days_between
from graph.chains import chains
from graph.checklist import has_open_checklist_item
from graph.errors import InvalidArgument
from graph.index import TaskIndex
from storage.model import TERMINAL_STATUSES, Task, normalise_status

__all__ = [
    "ScoringFactors",
    "TopologyRow",
    "has_acceptance_criteria",
    "scoring_factors",
    "scoring_ids",
    "task_factors",
    "topology_ids",
    "topology_row",
    "topology_rows",
]

_FROZEN = RESULT

CHAIN_LENGTH = Field(
    description="Most depends_on edges on a path leaving the task, each dependency cycle "
    "counted as one node, dangling ids left out; 0 when it depends on nothing."
)
UNBLOCKS = Field(description="Tasks whose depends_on names this task.")
UNBLOCKS_TRANSITIVE = Field(
    description="Distinct tasks that reach this one by following depends_on (not itself)."
)


class TopologyRow(BaseModel):
    """One task with its place in the graph."""

    model_config = _FROZEN

    id: str = Field(description="Task id.")
    title: str = Field(description="Task title.")
    type: str = Field(description="Task type as written (task, epic, ...).")
    status: str = Field(description="Canonical status.")
    project: str | None = Field(description="Project name, if any.")
    tags: list[str] = Field(description="Tags as written.")
    depth: int | None = Field(description="Parent hops to a root; null on or under a parent cycle.")
    parent: str | None = Field(description="Parent id as written (may name no task).")
    child_count: int = Field(description="Children, any status.")
    blocking_count: int = Field(description="Tasks whose depends_on names this task.")
    blocked_by_count: int = Field(description="Entries in depends_on, dangling included.")
    is_leaf: bool = Field(description="No child that is open.")
    created: datetime | None = Field(description="Creation time, if known.")
    modified: datetime | None = Field(description="Last modification time, if known.")
    ready_days: float | None = Field(
        description="Days since the task became ready; null when not ready or time unknown."
    )
    dependency_chain_length: int = CHAIN_LENGTH
    unblocks_count: int = UNBLOCKS
    unblocks_transitive_count: int = UNBLOCKS_TRANSITIVE


class ScoringFactors(BaseModel):
    """Raw inputs an agent may weigh; the server computes no score."""

    model_config = _FROZEN

    id: str = Field(description="Task id.")
    title: str = Field(description="Task title.")
    type: str = Field(description="Task type as written.")
    status: str = Field(description="Canonical status.")
    priority: int = Field(description="0 (most urgent) to 4.")
    created_age_days: float | None = Field(description="Days since created; null if unknown.")
    modified_age_days: float | None = Field(description="Days since modified; null if unknown.")
    complexity: str | None = Field(description="Complexity as written, if any.")
    blocking_count: int = Field(description="Tasks whose depends_on names this task.")
    blocked_by_count: int = Field(description="Entries in depends_on, dangling included.")
    soft_blocking_count: int = Field(description="Tasks whose soft_depends_on names this task.")
    child_count: int = Field(description="Children, any status.")
    parent_chain_length: int = Field(description="Ancestors via parent (the depth at a tree).")
    tags: list[str] = Field(description="Tags as written.")
    project: str | None = Field(description="Project name, if any.")
    body_length: int = Field(description="Characters in the markdown body.")
    has_acceptance_criteria: bool = Field(
        description='Body contains "acceptance" (any case) or an open checklist item "- [ ]".'
    )
    dependency_chain_length: int = CHAIN_LENGTH
    unblocks_count: int = UNBLOCKS
    unblocks_transitive_count: int = UNBLOCKS_TRANSITIVE


def has_acceptance_criteria(body: str) -> bool:
    """True when the body mentions acceptance (any case) or has an open checklist item (the
    rule `complete_task` applies, `graph.checklist`).

    >>> has_acceptance_criteria("## Acceptance\\n"), has_acceptance_criteria("- [ ] x")
    (True, True)
    >>> has_acceptance_criteria("a [ ] in prose")
    False
    """
    return "acceptance" in body.casefold() or has_open_checklist_item(body)


def _ready_days(index: TaskIndex, task_id: str, now: datetime) -> float | None:
    return days_between(index.ready_base(task_id), now) if index.record(task_id).ready else None


def topology_row(index: TaskIndex, task: Task, now: datetime) -> TopologyRow:
    """The topology row of one task.

    >>> from datetime import UTC, datetime
    >>> from storage.model import Task, pack_text
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="blocked")])
    >>> topology_row(index, index.require("a"), datetime(2026, 1, 1, tzinfo=UTC)).is_leaf
    True
    """
    record = index.record(task.id)
    local = record.local
    return TopologyRow(
        id=task.id,
        title=task.title,
        type=task.type,
        status=task.status,
        project=task.project,
        tags=list(task.tags),
        depth=record.depth,
        parent=task.parent,
        child_count=local.child_count,
        blocking_count=local.blocking_count,
        blocked_by_count=local.blocked_by_count,
        is_leaf=local.open_child_count == 0,
        created=task.created,
        modified=task.modified,
        ready_days=_ready_days(index, task.id, now),
        **chains(index)[task.id]._asdict(),
    )


def _candidates(index: TaskIndex, project: str | None, status: str | None) -> Iterable[str]:
    if project is not None:
        ids: Iterable[str] = index.project_members(project)
    elif status is not None:
        ids = index.tally.by_status.get(status, ())
    else:
        ids = index.ids()
    if status is None:
        return ids
    return (i for i in ids if index.require(i).status == status)


def _at_least(name: str, value: int | None) -> int | None:
    if value is not None and value < 0:
        raise InvalidArgument(name, f"must be >= 0, got {value}")
    return value


def topology_ids(
    index: TaskIndex,
    *,
    project: str | None = None,
    status: str | None = None,
    min_depth: int | None = None,
    min_blocking_count: int | None = None,
) -> list[str]:
    """The ids `topology_rows` returns rows for, in the same order: page these, then build
    rows for one page with `topology_row`.

    >>> from storage.model import Task, pack_text
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md"),
    ...                          Task(id="b", title="B", path="b.md", parent="a")])
    >>> topology_ids(index, min_depth=1)
    ['b']
    """
    min_depth = _at_least("min_depth", min_depth)
    min_blocking = _at_least("min_blocking_count", min_blocking_count)
    wanted = None if status is None else normalise_status(status)
    found = []
    for task_id in index.sorted_ids(_candidates(index, project, wanted)):
        record = index.record(task_id)
        if min_depth is not None and (record.depth is None or record.depth < min_depth):
            continue
        if min_blocking is None or record.local.blocking_count >= min_blocking:
            found.append(task_id)
    return found


def topology_rows(
    index: TaskIndex,
    *,
    project: str | None = None,
    status: str | None = None,
    min_depth: int | None = None,
    min_blocking_count: int | None = None,
    now: datetime,
) -> list[TopologyRow]:
    """Every task (filtered) with its depth, degrees, leaf flag and days ready.

    A task without a depth (parent cycle) is left out when `min_depth` is given.

    >>> from datetime import UTC, datetime
    >>> from storage.model import Task, pack_text
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md"),
    ...                          Task(id="b", title="B", path="b.md", parent="a")])
    >>> [r.depth for r in topology_rows(index, now=datetime(2026, 1, 1, tzinfo=UTC))]
    [0, 1]
    """
    check_now(now)
    ids = topology_ids(
        index,
        project=project,
        status=status,
        min_depth=min_depth,
        min_blocking_count=min_blocking_count,
    )
    return [topology_row(index, index.require(task_id), now) for task_id in ids]


def task_factors(index: TaskIndex, task: Task, now: datetime) -> ScoringFactors:
    """The scoring factors of one task.

    >>> from datetime import UTC, datetime
    >>> from storage.model import Task, pack_text
    >>> checklist = pack_text("- [ ] x")
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", packed_body=checklist)])
    >>> task_factors(index, index.require("a"), datetime(2026, 1, 1, tzinfo=UTC)).body_length
    7
    """
    record = index.record(task.id)
    local = record.local
    chain = record.depth if record.depth is not None else len(index.ancestors(task.id))
    body = task.body  # unpacked once
    return ScoringFactors(
        id=task.id,
        title=task.title,
        type=task.type,
        status=task.status,
        priority=task.priority,
        created_age_days=days_between(task.created, now),
        modified_age_days=days_between(task.modified, now),
        complexity=task.complexity,
        blocking_count=local.blocking_count,
        blocked_by_count=local.blocked_by_count,
        soft_blocking_count=local.soft_blocking_count,
        child_count=local.child_count,
        parent_chain_length=chain,
        tags=list(task.tags),
        project=task.project,
        body_length=len(body),
        has_acceptance_criteria=has_acceptance_criteria(body),
        **chains(index)[task.id]._asdict(),
    )


def scoring_ids(
    index: TaskIndex, *, ready_only: bool = True, include_done: bool = False
) -> list[str]:
    """The ids `scoring_factors` returns factors for, in the same order (for paging).

    >>> from storage.model import Task, pack_text
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="done")])
    >>> scoring_ids(index), scoring_ids(index, ready_only=False, include_done=True)
    ([], ['a'])
    """
    if ready_only:
        return index.sorted_ids(index.tally.ready)
    return [t.id for t in index.tasks() if include_done or t.status not in TERMINAL_STATUSES]


def scoring_factors(
    index: TaskIndex, *, ready_only: bool = True, include_done: bool = False, now: datetime
) -> list[ScoringFactors]:
    """Raw factors per task: the ready tasks, or (ready_only=False) every open task, plus
    the done and cancelled ones when `include_done`.

    >>> from datetime import UTC, datetime
    >>> from storage.model import Task, pack_text
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="active")])
    >>> [f.id for f in scoring_factors(index, now=datetime(2026, 1, 1, tzinfo=UTC))]
    ['a']
    """
    check_now(now)
    ids = scoring_ids(index, ready_only=ready_only, include_done=include_done)
    return [task_factors(index, index.require(task_id), now) for task_id in ids]
