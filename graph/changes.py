"""What a write changed in readiness: as the write answers say it (`ReadinessProbe.delta`:
tasks that existed before it and became ready or are no longer ready, each with why, and the
tasks it created), and as standings (`changes`: became ready, became blocked).

A write touches a few tasks (the written ones); readiness can change only in the region it
reaches: the written tasks, their dependents (transitively: a dependency cycle a write opens
or closes runs through them), the descendants of all of those (a blocked ancestor blocks its
subtree), and the parents the written tasks had (a parent whose last open child is done or
moved away becomes ready; gaining a child never makes a parent ready or blocked).

`ReadinessProbe.take` records the region's standing before the write; `changes` compares it
with the index after. Every edge a task that is not written names is the same before and
after, so the region found before the write holds every task whose standing can differ; a
written id that does not exist yet reaches the tasks that name it while it is missing.
`region_between` is the same region between the index and another state of the tree (the
delta of `graph.delta`).

>>> from dataclasses import replace
>>> from storage.model import Task
>>> index = TaskIndex.build([
...     Task(id="gate", title="Gate", path="g.md", status="blocked"),
...     Task(id="step", title="Step", path="s.md", status="active", parent="gate"),
... ])
>>> probe = ReadinessProbe.take(index, ["gate"])
>>> index.apply([replace(index.require("gate"), status="done")])
>>> probe.changes(index)
ReadinessChanges(became_ready=['step'], became_blocked=[])
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from graph.index import GroupKind, TaskIndex
from storage.model import Task

__all__ = [
    "Moved",
    "NewTask",
    "ReadinessChanges",
    "ReadinessProbe",
    "Standing",
    "WriteDelta",
    "affected_region",
    "region_between",
    "standings",
]

Standing = Literal["ready", "blocked", "neither", "absent"]


@dataclass(frozen=True, slots=True)
class ReadinessChanges:
    """Ids whose readiness a write changed, each list in the task order."""

    became_ready: list[str]
    became_blocked: list[str]


@dataclass(frozen=True, slots=True)
class Moved:
    """A task that existed before a write and entered or left the ready set, with why: what
    held it before (it became ready) or holds it now (it is no longer ready)."""

    task_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class NewTask:
    """A task a write created, and whether it is ready."""

    task_id: str
    ready: bool


@dataclass(frozen=True, slots=True)
class WriteDelta:
    """A write's readiness as deltas: of the tasks that existed before it, those that
    became ready and those no longer ready; and the tasks it created. Each list in the task
    order; writing a change and then its inverse gives the inverse lists."""

    became_ready: list[Moved]
    no_longer_ready: list[Moved]
    created: list[NewTask]


def why(index: TaskIndex, task_id: str) -> str:
    """What a task is, as a readiness reason: `ready`, `deleted`, `blocked`, its terminal
    status, `waiting_on_children` (open children hold it), else its status.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="in_progress")])
    >>> why(index, "a"), why(index, "gone")
    ('in_progress', 'deleted')
    """
    if task_id not in index:
        return "deleted"
    record = index.record(task_id)
    if record.ready:
        return "ready"
    if record.blocked:
        return "blocked"
    local = record.local
    if not local.terminal and local.open_child_count:
        return "waiting_on_children"
    return local.status


def _reach(index: TaskIndex, seeds: Iterable[str], kind: GroupKind) -> set[str]:
    """`seeds` and every task that names one of them in `kind`, transitively (`parent`:
    descendants; `depends_on`: dependents). A seed need not exist yet."""
    found = set(seeds)
    frontier = list(found)
    while frontier:
        task_id = frontier.pop()
        for source in index.in_order(kind, task_id):
            if source not in found:
                found.add(source)
                frontier.append(source)
    return found


def affected_region(index: TaskIndex, written: Iterable[str]) -> set[str]:
    """Every id that writing `written` (ids, existing or new) can make ready or blocked,
    read from the index before the write.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([
    ...     Task(id="a", title="A", path="a.md"),
    ...     Task(id="b", title="B", path="b.md", depends_on=("a",)),
    ...     Task(id="c", title="C", path="c.md", parent="b"),
    ...     Task(id="d", title="D", path="d.md"),
    ... ])
    >>> sorted(affected_region(index, ["a"]))
    ['a', 'b', 'c']
    """
    written = set(written)
    dependents = _reach(index, written, "depends_on")
    region = _reach(index, dependents, "parent")
    parents = (index.require(i).parent for i in written if i in index)
    region.update(p for p in parents if p is not None and p in index)
    return region


def _standing_inputs(task: Task | None) -> tuple[str, str | None, tuple[str, ...]] | None:
    """What of a task the standing of any task reads: whether it exists, its status, parent
    and dependencies (a title, priority or body edit makes nothing ready or blocked)."""
    return None if task is None else (task.status, task.parent, task.depends_on)


def _relinked(
    index: TaskIndex, touched: Collection[str], other: Mapping[str, Task | None]
) -> list[str]:
    """The touched ids whose standing inputs differ between the index and `other` (the
    other state's task of each touched id): the only writes that can move a standing."""
    return [
        i
        for i in touched
        if _standing_inputs(index.get(i)) != _standing_inputs(other.get(i, index.get(i)))
    ]


def region_between(
    index: TaskIndex, touched: Collection[str], other: Mapping[str, Task | None]
) -> set[str]:
    """Every id whose standing can differ between the index's state and another one, given
    as `other` (the other state's task of each touched id, None: absent there): the region
    of the writes that take the index there, and the parents the written tasks have in the
    other state (a parent that gains an open child is no longer ready; the write's own
    region holds only the parents they had before)."""
    written = _relinked(index, touched, other)
    region = affected_region(index, written)
    theirs = (other.get(i) for i in written)
    region.update(t.parent for t in theirs if t is not None and t.parent is not None)
    return region


def _standing(index: TaskIndex, task_id: str) -> Standing:
    if task_id not in index:
        return "absent"
    record = index.record(task_id)
    if record.ready:
        return "ready"
    return "blocked" if record.blocked else "neither"


def standings(index: TaskIndex, ids: Iterable[str]) -> dict[str, Standing]:
    """Each id's standing now: ready, blocked, neither (e.g. done, or a parent with open
    children), or absent (no such task)."""
    return {task_id: _standing(index, task_id) for task_id in ids}


def _entered(
    index: TaskIndex,
    before: Mapping[str, Standing],
    after: Mapping[str, Standing],
    standing: Standing,
) -> list[str]:
    moved = (i for i, now in after.items() if now == standing and before.get(i) != standing)
    return index.sorted_ids(moved)


@dataclass(frozen=True, slots=True)
class ReadinessProbe:
    """The standing of a write's region, taken before the write."""

    before: Mapping[str, Standing]
    reasons: Mapping[str, str]

    @classmethod
    def take(cls, index: TaskIndex, written: Iterable[str]) -> ReadinessProbe:
        """Record the region of a write of `written` (ids, existing or new; name a parent
        the write gives a task too); call before the write, under the index's lock."""
        region = affected_region(index, written)
        return cls(standings(index, region), {i: why(index, i) for i in region})

    @property
    def region(self) -> Collection[str]:
        return self.before.keys()

    def changes(self, index: TaskIndex) -> ReadinessChanges:
        """The tasks of the region that became ready or became blocked, read from the index
        after the write."""
        after = standings(index, self.region)
        return ReadinessChanges(
            became_ready=_entered(index, self.before, after, "ready"),
            became_blocked=_entered(index, self.before, after, "blocked"),
        )

    def delta(self, index: TaskIndex) -> WriteDelta:
        """The write's readiness as deltas, read from the index after it: the region's
        tasks that existed before and moved into or out of the ready set (with why), and
        those it created."""
        now = {i: why(index, i) for i in self.region}
        old = [i for i in self.region if self.before[i] != "absent"]
        came = index.sorted_ids(i for i in old if now[i] == "ready" != self.reasons[i])
        left = [i for i in old if self.reasons[i] == "ready" != now[i]]
        new = index.sorted_ids(i for i in self.region if self.before[i] == "absent" and i in index)
        return WriteDelta(
            became_ready=[Moved(i, self.reasons[i]) for i in came],
            no_longer_ready=[Moved(i, now[i]) for i in _in_order(index, left)],
            created=[NewTask(i, now[i] == "ready") for i in new],
        )


def _in_order(index: TaskIndex, ids: list[str]) -> list[str]:
    """`ids` in the task order; deleted ones (the index no longer orders them) last, by id."""
    present = index.sorted_ids(i for i in ids if i in index)
    return present + sorted(i for i in ids if i not in index)
