"""The region a change of the tree reaches in readiness: the tasks whose standing (ready,
blocked, neither, absent) it can move, read from the index before it (`affected_region`) or
between the index and another state of the tree (`region_between`: the delta of
`graph.delta`). A write's own answer needs no region: `TaskIndex.apply` compares the records
it replaced (`graph.write_delta`).

A write touches a few tasks (the written ones); readiness can change only in the region it
reaches: the written tasks, their dependents (transitively: a dependency cycle a write opens
or closes runs through them), the descendants of all of those (a blocked ancestor blocks its
subtree), and the parents the written tasks had (a parent whose last open child is done or
moved away becomes ready; gaining a child never makes a parent ready or blocked). Every edge
a task that is not written names is the same before and after, so the region found before the
write holds every task whose standing can differ; a written id that does not exist yet
reaches the tasks that name it while it is missing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Literal

from graph.index import GroupKind, TaskIndex
from storage.model import Task

__all__ = ["Standing", "affected_region", "region_between", "standings"]

Standing = Literal["ready", "blocked", "neither", "absent"]


def _reach(index: TaskIndex, seeds: Iterable[str], kind: GroupKind) -> set[str]:
    """`seeds` and every task that names one of them in `kind`, transitively (`parent`:
    descendants; `depends_on`: dependents). A seed need not exist yet."""
    found = set(seeds)
    frontier = list(found)
    group = index.orders.view  # the kept orders, read group after group
    while frontier:
        task_id = frontier.pop()
        for source in group(kind, task_id):
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
    parents = [index.require(i).parent for i in written if i in index]
    region.update([p for p in parents if p is not None and p in index])
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
