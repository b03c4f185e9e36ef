"""Per-task derived facts, in two layers.

`Local` holds what follows from the task, its direct neighbours and its cycles alone (counts,
unmet and dangling dependencies, its own reasons to be blocked). `Record` adds what a task
inherits down the parent chain: depth, the nearest blocked ancestor, and so blocked and ready.
The index recomputes a `Local` when the task or a neighbour changes, and a `Record` when the
`Local` or the parent's record changes.

Blocked, for a task that is not terminal: its own reasons (status blocked, an unmet or dangling
dependency, a dependency cycle), or a blocked ancestor. An ancestor that is terminal is never
blocked itself but passes on a blocked ancestor above it: `anc` is the nearest blocked task
strictly above, whatever the task's own status.

Each layer has one rule, `make_local` and `make_record`, which the full build
(`build_records`: every task, parents first, counts gathered for all at once) and an edit
(`compute_local`, `compute_record`: one task, counts read from the store) both call.

Memory: a `Local` holds nothing particular to its task but its cycle (counts, flags, status
and type strings), so most tasks of a tree have a `Local` equal to another's (about 16k
distinct values among 100k tasks); a build shares one tuple among equal ones. What a
task's readiness dates from (`ready_base`) differs for nearly every task, so it is not kept:
it is read from the task and its dependencies when asked, which gives what a record made now
would hold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from itertools import repeat
from typing import NamedTuple

from graph._store import Store
from storage.model import BLOCKED_STATUS, READY_STATUSES, TERMINAL_STATUSES, Task

__all__ = [
    "Local",
    "LocalOf",
    "Record",
    "build_records",
    "compute_local",
    "compute_record",
    "make_local",
    "make_record",
    "ready_base",
]


class Local(NamedTuple):
    """Facts of one task that do not depend on its ancestors (a tuple: cheap to make, 100k at
    a build, and equal ones shared)."""

    status: str
    type: str
    terminal: bool
    child_count: int
    open_child_count: int
    is_leaf: bool
    is_root: bool
    is_orphan: bool
    blocking_count: int
    blocked_by_count: int
    soft_blocking_count: int
    dangling_count: int
    unmet_count: int
    status_blocked: bool
    cycle: tuple[str, ...]
    own_blocked: bool


class Record(NamedTuple):
    """`Local` plus what the task inherits through its parent."""

    local: Local
    depth: int | None
    anc: str | None
    blocked: bool
    ready: bool

    def inherited(self) -> tuple[int | None, bool, str | None]:
        """What a child's record is computed from: when it changes, children are recomputed."""
        return self.depth, self.blocked, self.anc


LocalOf = Callable[[str], Local]

# `_tuple_new(Local, values)` is what `Local(*values)` does, without the Python frame of the
# generated `__new__`: a third of the cost, for the 100k tuples of a build. The values go by
# position, in field order (the index tests compare every field of a built record with the
# record edits give).
_tuple_new = tuple.__new__


def _dependency_state(task: Task, tasks: Mapping[str, Task]) -> tuple[int, int]:
    """(unmet, dangling) dependencies of `task`."""
    unmet = dangling = 0
    for dep_id in task.depends_on:
        dep = tasks.get(dep_id)
        if dep is None:
            dangling += 1
        elif dep.status not in TERMINAL_STATUSES:
            unmet += 1
    return unmet, dangling


def ready_base(task: Task, tasks: Mapping[str, Task]) -> datetime | None:
    """What a task's readiness dates from: the latest of its `modified` and the `completed`
    of its satisfied (terminal) dependencies (None when it has none of them)."""
    latest = task.modified
    for dep_id in task.depends_on:
        dep = tasks.get(dep_id)
        if dep is None or dep.status not in TERMINAL_STATUSES:
            continue
        if dep.completed is not None and (latest is None or dep.completed > latest):
            latest = dep.completed
    return latest


def make_local(
    task: Task,
    tasks: Mapping[str, Task],
    cycle: tuple[str, ...],
    *,
    child_count: int,
    open_child_count: int,
    blocking_count: int,
    soft_blocking_count: int,
) -> Local:
    """The one rule for a task's `Local`, from its own fields and the counts of the tasks
    naming it (which the bulk build counts all at once and an edit counts task by task)."""
    status, deps, parent = task.status, task.depends_on, task.parent
    terminal = status in TERMINAL_STATUSES
    unmet, dangling = _dependency_state(task, tasks) if deps else (0, 0)
    status_blocked = status == BLOCKED_STATUS
    own_blocked = not terminal and (status_blocked or unmet > 0 or dangling > 0 or bool(cycle))
    return _tuple_new(
        Local,
        (
            status,
            task.type,
            terminal,
            child_count,
            open_child_count,
            open_child_count == 0,  # is_leaf
            parent is None or parent not in tasks,  # is_root
            parent is None and not deps,  # is_orphan
            blocking_count,
            len(deps),  # blocked_by_count
            soft_blocking_count,
            dangling,
            unmet,
            status_blocked,
            cycle,
            own_blocked,
        ),
    )


def compute_local(store: Store, task_id: str) -> Local:
    """The `Local` of an existing task, from the store as it is now."""
    tasks = store.tasks
    children, blocking, soft = store.naming_counts(task_id)
    return make_local(
        tasks[task_id],
        tasks,
        store.dep_cycle.get(task_id, ()),
        child_count=len(children),
        open_child_count=len([c for c in children if tasks[c].status not in TERMINAL_STATUSES]),
        blocking_count=blocking,
        soft_blocking_count=soft,
    )


def _cycle_ancestor(store: Store, task_id: str, local_of: LocalOf) -> str | None:
    """Nearest blocked ancestor of a parent-cycle member: every open member is blocked as soon
    as one member has a reason of its own."""
    cycle = store.parent_cycle[task_id]
    if not any(local_of(member).own_blocked for member in cycle):
        return None
    return next((a for a in store.walk_up(task_id) if not local_of(a).terminal), None)


def make_record(
    store: Store, task_id: str, local: Local, above: Record | None, local_of: LocalOf
) -> Record:
    """The one rule for a task's `Record`, from its `Local` and `above`, its parent's record
    (None at a root; during an edit also while a new parent has none yet: the parent's first
    record then settles its children again)."""
    if task_id in store.parent_cycle:
        depth, anc = None, _cycle_ancestor(store, task_id, local_of)
    elif above is None:
        depth, anc = 0, None
    else:
        depth = None if above.depth is None else above.depth + 1
        anc = store.tasks[task_id].parent if above.blocked else above.anc
    blocked = not local.terminal and (local.own_blocked or anc is not None)
    ready = local.status in READY_STATUSES and not blocked and local.is_leaf
    return _tuple_new(Record, (local, depth, anc, blocked, ready))


def compute_record(
    store: Store, task_id: str, local: Local, records: Mapping[str, Record], local_of: LocalOf
) -> Record:
    """The `Record` of a task from its `Local` and its parent's current record (none when
    the parent id names no task: `records` holds a record for each task there is)."""
    parent = store.tasks[task_id].parent
    above = None if parent is None else records.get(parent)
    return make_record(store, task_id, local, above, local_of)


def _open_children(tasks: Mapping[str, Task]) -> Counter[str | None]:
    """Parent id → how many open tasks name it as their parent."""
    return Counter(t.parent for t in tasks.values() if t.status not in TERMINAL_STATUSES)


def build_records(store: Store, seeds: Iterable[str]) -> dict[str, Record]:
    """The `Record` of `seeds` and of every task below them, by the rules `compute_local` and
    `compute_record` apply (`make_local`, `make_record`), parents first: `seeds`, then
    breadth-first down the parent edges (parent-cycle members only as seeds). For a full
    build: the counts of every task at once, then one loop."""
    tasks, cycles, cyclic = store.tasks, store.dep_cycle, store.parent_cycle
    children, open_children = store.named_by("parent"), _open_children(tasks)
    blocking, soft = store.named_by("depends_on"), store.named_by("soft_depends_on")
    on_parent_cycle = {member: compute_local(store, member) for member in cyclic}
    shared: dict[Local, Local] = {}
    share = shared.setdefault
    records: dict[str, Record] = {}
    order = list(seeds)  # grows as it goes, with the parent's record of each task in `aboves`
    aboves: list[Record | None] = [None] * len(order)
    for task_id, above in zip(order, aboves, strict=True):
        below = children.get(task_id)
        local = make_local(
            tasks[task_id],
            tasks,
            cycles.get(task_id, ()),
            child_count=len(below) if below else 0,
            open_child_count=open_children.get(task_id, 0),
            blocking_count=len(blocking.get(task_id, ())),
            soft_blocking_count=len(soft.get(task_id, ())),
        )
        local = share(local, local)  # an equal one made before, if any
        record = make_record(store, task_id, local, above, on_parent_cycle.__getitem__)
        records[task_id] = record
        if below:
            found = [c for c in below if c not in cyclic] if cyclic else below
            order.extend(found)
            aboves.extend(repeat(record, len(found)))
    return records
