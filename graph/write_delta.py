"""What one write changed in readiness, as `TaskIndex.apply` answers it.

An edit recomputes the record of every task whose facts it can change, and only those
(`TaskIndex._settle`); readiness is read from a record alone (`reason`). So the records an
edit replaced, as they were before it, are the whole of what it can have moved: the index
hands them here and `write_delta` compares each with the record now, once, with no walk
of the graph and no question asked per task. A task with no record before is one the write
created; one with no record after, one it removed.

>>> from graph.index import TaskIndex
>>> from storage.model import Task
>>> index = TaskIndex.build([
...     Task(id="gate", title="Gate", path="g.md", status="blocked"),
...     Task(id="step", title="Step", path="s.md", status="active", parent="gate"),
... ])
>>> index.apply([Task(id="gate", title="Gate", path="g.md", status="done"),
...              Task(id="new", title="New", path="n.md", status="active")])
WriteDelta(became_ready=[Moved(task_id='step', reason='blocked')], no_longer_ready=[], \
created=[NewTask(task_id='new', ready=True)])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graph._order import sort_key
from graph._records import Record
from storage.model import Task

__all__ = ["NO_CHANGE", "Moved", "NewTask", "WriteDelta", "reason", "write_delta"]


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
    order (removed tasks last, by id); writing a change and then its inverse gives the
    inverse lists."""

    became_ready: list[Moved]
    no_longer_ready: list[Moved]
    created: list[NewTask]


NO_CHANGE = WriteDelta([], [], [])
"""The answer of a write that changed no task."""


def reason(record: Record | None) -> str:
    """What a task is, as a readiness reason: `ready`, `deleted` (no record), `blocked`,
    `waiting_on_children` (open children hold it), else its status."""
    if record is None:
        return "deleted"
    if record.ready:
        return "ready"
    if record.blocked:
        return "blocked"
    local = record.local
    if not local.terminal and local.open_child_count:
        return "waiting_on_children"
    return local.status


def write_delta(
    before: Mapping[str, Record | None], records: Mapping[str, Record], tasks: Mapping[str, Task]
) -> WriteDelta:
    """The delta of a write, from the records it replaced as they were before it (`before`,
    None: the task is new), the records now and the tasks now."""
    came: list[Moved] = []
    left: list[Moved] = []
    new: list[str] = []
    for task_id, old in before.items():
        record = records.get(task_id)
        if old is None:
            new.append(task_id)
            continue
        was, now = reason(old), reason(record)
        if now == "ready" != was:
            came.append(Moved(task_id, was))
        elif was == "ready" != now:
            left.append(Moved(task_id, now))
    if not (came or left or new):
        return NO_CHANGE

    def order(task_id: str) -> tuple[int, tuple[int, int, str]]:
        task = tasks.get(task_id)  # a removed task sorts after the others, by id
        return (0, sort_key(task)) if task is not None else (1, (0, 0, task_id))

    return WriteDelta(
        became_ready=sorted(came, key=lambda m: order(m.task_id)),
        no_longer_ready=sorted(left, key=lambda m: order(m.task_id)),
        created=[NewTask(i, records[i].ready) for i in sorted(new, key=order)],
    )
