"""The task filters agents pass to the list tools, defined once.

`get_ready_tasks`, `list_tasks` and `search_tasks` take the same filters with the same
meaning; every given filter must hold (an empty filter keeps every task):

- `project`, `type`, `assignee`: equal to the task's, exactly;
- `priority_max`: the task's priority is at most this (0 is the most urgent);
- `tags_any` / `tags_all`: the task has at least one / every one of these tags;
- `unassigned`: the task has no assignee;
- `under`: the task is a descendant of this task (any depth, through `parent`);
- `unclaimed`: no agent's lease on the task runs at `now` (an expired claim is unclaimed).

>>> from datetime import UTC, datetime
>>> from storage.model import Task
>>> index = TaskIndex.build([Task(id="p", title="P", path="p.md", tags=("x",)),
...                          Task(id="a", title="A", path="a.md", parent="p", tags=("x", "y"))])
>>> now = datetime(2026, 1, 1, tzinfo=UTC)
>>> keep(index, index.ids(), TaskFilter(tags_all=("x", "y")), now)
['a']
>>> keep(index, index.ids(), TaskFilter(under="p"), now)
['a']
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from graph.claims import holds_live_claim
from graph.errors import InvalidArgument
from graph.index import TaskIndex
from storage.model import Task

__all__ = ["TaskFilter", "keep", "kept", "matches"]


@dataclass(frozen=True, slots=True)
class TaskFilter:
    """Every filter an agent may give; None, empty or False means "not filtered"."""

    project: str | None = None
    type: str | None = None
    priority_max: int | None = None
    tags_any: tuple[str, ...] = ()
    tags_all: tuple[str, ...] = ()
    assignee: str | None = None
    unassigned: bool = False
    under: str | None = None
    unclaimed: bool = False

    def is_empty(self) -> bool:
        return self == _EMPTY


_EMPTY = TaskFilter()


def matches(task: Task, given: TaskFilter, now: datetime, below: Collection[str] = ()) -> bool:
    """True when `task` passes every filter in `given`; `below` holds the descendants of
    `given.under` (read once per query, not per task)."""
    checks = (
        given.project is None or task.project == given.project,
        given.type is None or task.type == given.type,
        given.priority_max is None or task.priority <= given.priority_max,
        not given.tags_any or not set(given.tags_any).isdisjoint(task.tags),
        not given.tags_all or set(given.tags_all) <= set(task.tags),
        given.assignee is None or task.assignee == given.assignee,
        not given.unassigned or task.assignee is None,
        given.under is None or task.id in below,
        not given.unclaimed or not holds_live_claim(task, now),
    )
    return all(checks)


def kept(index: TaskIndex, ids: Iterable[str], given: TaskFilter, now: datetime) -> Iterator[str]:
    """`keep`, one id at a time, for a caller that may stop at the first (`claim_next`).

    >>> from datetime import UTC
    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", type="bug"),
    ...                          Task(id="b", title="B", path="b.md")])
    >>> next(kept(index, ["a", "b"], TaskFilter(type="task"), datetime(2026, 1, 1, tzinfo=UTC)))
    'b'
    """
    if given.priority_max is not None and not 0 <= given.priority_max <= 4:
        raise InvalidArgument("priority_max", f"must be 0 to 4, got {given.priority_max}")
    below = set(index.descendants(given.under)) if given.under is not None else set()
    require = index.require
    return (i for i in ids if matches(require(i), given, now, below))


def keep(index: TaskIndex, ids: Sequence[str], given: TaskFilter, now: datetime) -> Sequence[str]:
    """The ids of `ids` (in their order) whose task passes `given` at `now` (`ids` itself,
    not a copy, when no filter is given). An `under` naming no task is UnknownTask;
    `priority_max` outside 0-4 is InvalidArgument."""
    if given.is_empty():
        return ids
    return list(kept(index, ids, given, now))
