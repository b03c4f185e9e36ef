"""The task index: every task, its typed edges and its computed facts, kept fresh edit by edit.

`TaskIndex.build(tasks)` makes an index once; `apply(upserted, removed)` then updates it at the
cost of what the edit changes (a status change recomputes the task, its parent and its
dependents, and the subtree only when something it inherits changes).

The index has no lock of its own and is not thread-safe: even a read may record a group's
order for later reads (`in_order`, `sorted_until_edit`). Whoever shares one serialises every
call, reads and `apply` alike (the server holds `LiveTree.lock`, which also guards the file
table and the swap of the whole index on a rebuild).

>>> from storage.model import Task
>>> index = TaskIndex.build([
...     Task(id="p", title="Plan", path="p.md", status="active"),
...     Task(id="a", title="A", path="a.md", status="active", parent="p"),
...     Task(id="b", title="B", path="b.md", status="active", parent="p", depends_on=("a",)),
... ])
>>> index.facts("b").reasons.unmet_dependencies, index.facts("a").is_ready
(['a'], True)
>>> from dataclasses import replace
>>> index.apply([replace(index.require("a"), status="done")]).became_ready
[Moved(task_id='b', reason='blocked')]
>>> index.facts("b").is_ready, index.facts("p").is_ready
(True, False)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Self, TypeVar

from graph._digraph import Digraph
from graph._facts import facts_of, restore
from graph._order import Group, GroupKind, OrderedIds, TaskOrders, sort_key
from graph._records import (
    Local,
    Record,
    build_records,
    compute_local,
    compute_record,
    ready_base,
)
from graph._store import Kind, Store
from graph._tally import Tally
from graph.about import TaskAbout, task_about
from graph.chains import KEPT_AS, NO_CHAIN, Chains
from graph.errors import UnknownTask
from graph.facts import CYCLE_SHOWN, BlockedReasons, TaskFacts
from storage.bulk import gc_paused
from storage.model import TERMINAL_STATUSES, Task

if TYPE_CHECKING:
    from graph.write_delta import WriteDelta

__all__ = ["GroupKind", "OrderedIds", "TaskIndex"]

_T = TypeVar("_T")

REMEMBERED = 64
"""How many query results `until_edit` keeps between two edits."""


class TaskIndex:
    """Tasks by id with their parent, depends_on and soft_depends_on edges and facts: the
    store (tasks, edges, cycles), every task's record, the counters over them and the kept
    task orders."""

    def __init__(self) -> None:
        self._store = Store()
        self._records: dict[str, Record] = {}
        self._tally = Tally()
        self.orders = TaskOrders(self._store, self._tally)
        """The groups kept in the task order (`in_order` reads one; a query reading several
        reads them here)."""
        self._sorted: dict[str, tuple[str, ...]] = {}
        self._derived: dict[str, Any] = {}
        self.restored = False
        """True when `build` took the records from saved facts instead of deriving them."""

    @classmethod
    def build(cls, tasks: Iterable[Task], saved: bytes | None = None) -> Self:
        """An index of `tasks` (when an id repeats, the last task wins). `saved`: what
        `saved_facts` gave for an index of the same tasks, taken instead of deriving the
        records again when it fits (`graph._facts.restore`), else ignored."""
        index = cls()
        with gc_paused():  # a bulk build makes no reference cycles
            index._build(tasks, saved)
        return index

    def _build(self, tasks: Iterable[Task], saved: bytes | None) -> None:
        store = self._store
        roots = store.load(tasks, find_cycles=False)
        restored = restore(saved, store) if saved else None
        self.restored = restored is not None
        if restored is not None:
            self._records = restored.records
            self._tally.add_all(restored.records)
            self._sorted["all"] = restored.order  # what `ordered_ids` would sort
            return
        store.find_dep_cycles()
        records = build_records(store, roots)
        if len(records) < len(store.tasks):  # the others are on a parent cycle or below one
            store.find_parent_cycles(records)
            records = build_records(store, roots + sorted(store.parent_cycle))
        self._records = records
        self._tally.add_all(records)

    def saved_facts(self) -> bytes | None:
        """The records of this index packed for `build` to take back (`graph._facts`); only
        right after a build (an edited index holds them in another order), and None for a
        tree with a cycle."""
        return facts_of(self._store, self._records, self.ordered_ids())

    def apply(self, upserted: Iterable[Task] = (), removed: Iterable[str] = ()) -> WriteDelta:
        """Put new or changed tasks in and take removed ids out, at the cost of the change
        (an id in both is upserted); answer what that changed in readiness."""
        self._sorted.clear()
        self._derived.clear()
        changed = {task.id: task for task in upserted}
        gone = set(removed) - changed.keys()
        moves = [(self.get(i), changed.get(i)) for i in changed.keys() | gone]
        self.orders.leave(moves)
        replaced: dict[str, Record | None] = {}  # each changed record as it was (None: new)
        self._settle(self._edit_store(changed.values(), gone, replaced), replaced)
        self.orders.join(moves)
        from graph.write_delta import write_delta  # noqa: PLC0415 - at the first edit, not at start

        return write_delta(replaced, self._records, self._store.tasks)

    def _edit_store(
        self, upserted: Iterable[Task], removed: Iterable[str], replaced: dict[str, Record | None]
    ) -> dict[str, Local]:
        """Edit the store (removals first, noted in `replaced`); new `Local`s where it may
        have changed one (remaining tasks only)."""
        store = self._store
        dirty: set[str] = set()
        for task_id in sorted(removed):
            if task_id in store.tasks:
                dirty |= store.remove(task_id)
                replaced[task_id] = record = self._records.pop(task_id)
                self._tally.remove(task_id, record)
        for task in upserted:
            dirty |= store.upsert(task)
        return {t: self._local_now(t) for t in dirty if t in store.tasks}

    def _local_now(self, task_id: str) -> Local:
        """The task's `Local` from the store now: its record's when equal (maybe shared)."""
        local, record = compute_local(self._store, task_id), self._records.get(task_id)
        return record.local if record is not None and record.local == local else local

    def _settle(self, pending: dict[str, Local], replaced: dict[str, Record | None]) -> None:
        """Recompute the records of `pending` (new `Local`s) and of every task that inherits
        a change, with a work queue: a task whose record changed in what children inherit
        (depth, blocked, nearest blocked ancestor) queues its children. Notes in `replaced`
        each record replaced, as it was."""
        store, records = self._store, self._records

        def local_of(task_id: str) -> Local:
            found = pending.get(task_id)
            return found if found is not None else records[task_id].local

        queue, queued = deque(pending), set(pending)
        while queue:
            task_id = queue.popleft()
            queued.discard(task_id)
            old = records.get(task_id)
            new = compute_record(store, task_id, local_of(task_id), records, local_of)
            if new == old:
                continue
            replaced.setdefault(task_id, old)
            if old is None:
                self._tally.add(task_id, new)
            else:
                self._tally.replace(task_id, old, new)
            records[task_id] = new
            if old is None or old.inherited() != new.inherited():
                fresh = [c for c in store.sources("parent", task_id) if c not in queued]
                queued.update(fresh)
                queue.extend(fresh)

    # --- tasks -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._store.tasks)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._store.tasks

    def get(self, task_id: str) -> Task | None:
        return self._store.tasks.get(task_id)

    def require(self, task_id: str) -> Task:
        """The task with `task_id`, or `UnknownTask`."""
        task = self._store.tasks.get(task_id)
        if task is None:
            raise UnknownTask(task_id)
        return task

    def sort_key(self, task_id: str) -> tuple[int, int, str]:
        """The one task order of every list: (priority, order, id)."""
        return sort_key(self._store.tasks[task_id])

    def sorted_ids(self, ids: Iterable[str]) -> list[str]:
        """`ids` (all existing) in the task order (priority, order, id)."""
        tasks = self._store.tasks
        return [task.id for task in sorted(map(tasks.__getitem__, ids), key=sort_key)]

    def sorted_until_edit(self, name: str, ids: Collection[str]) -> Sequence[str]:
        """`sorted_ids(ids)`, remembered as `name` until the next `apply`: for the sets the
        tally keeps (ready, blocked, ...), which planners read over and over. Read only."""
        return self.until_edit(name, lambda: self.sorted_ids(ids))

    def until_edit(self, name: str, compute: Callable[[], list[str]]) -> Sequence[str]:
        """`compute()`, remembered as `name` until the next `apply` (a query's ids: paging
        through it costs a slice per page); at most `REMEMBERED` names between two edits.
        A tuple: the cyclic GC stops tracking one of strings at its first collection, where
        it walks a list's every id in each (a million ids: 30 ms each, tasks frozen)."""
        found = self._sorted.get(name)
        if found is None:
            if len(self._sorted) >= REMEMBERED:
                self._sorted.clear()
            found = self._sorted[name] = tuple(compute())
        return found

    def until_edit_value(self, name: str, compute: Callable[[], _T]) -> _T:
        """`compute()`, remembered as `name` until the next `apply`: a whole-graph answer
        (the chain facts) computed once per generation of the index. Do not change it."""
        if name not in self._derived:
            self._derived[name] = compute()
        found: _T = self._derived[name]
        return found

    def tasks(self) -> list[Task]:
        """Every task, in the task order."""
        return sorted(self._store.tasks.values(), key=sort_key)

    def unordered_tasks(self) -> Collection[Task]:
        """Every task, in no set order: a live view, no copy and no sort (`tasks` sorts a
        tree's worth of tasks on each call). Do not edit the index while reading it."""
        return self._store.tasks.values()

    def ids(self) -> list[str]:
        """Every id, in the task order (a new list)."""
        return list(self.ordered_ids())

    def ordered_ids(self) -> Sequence[str]:
        """Every id, in the task order, remembered until the next edit: no copy of a tree's
        worth of ids per call. Do not change the list."""
        return self.sorted_until_edit("all", self._store.tasks)

    def projects(self) -> list[str]:
        """Every project name that at least one task has, sorted (public: the human CLI
        checks a --project against it)."""
        return sorted(p for p in self._store.by_project if p is not None)

    def project_ids(self, project: str | None) -> list[str]:
        """Ids of the tasks of `project` (None: tasks without one), in the task order."""
        return self._ids(("project", project))

    def deferring(self) -> Collection[str]:
        """Ids of the tasks whose file names a `defer_until`, ahead or past (unordered): a
        deferral can hold back only these."""
        return self._store.deferring

    def project_members(self, project: str | None) -> Collection[str]:
        """The ids of `project`, unordered (for counting)."""
        return self._store.by_project.get(project, frozenset())

    def in_order(
        self, kind: GroupKind, value: str | None = None, *, without: str | None = None
    ) -> OrderedIds:
        """A live, sliceable view of a group's ids in the task order, kept sorted between
        edits: `"project"` (`value`: the project name, None for tasks without one),
        `"orphans"`, or the tasks naming `value` in a field (`"parent"`: its children,
        `"depends_on"`: the tasks it blocks, `"soft_depends_on"`). `without` leaves that task
        out. The first read of a group records it (a write: see the module docstring on
        sharing an index)."""
        return self.orders.view(kind, value, without=without)

    def _ids(self, group: Group) -> list[str]:
        """A group's ids in the task order, as a new list."""
        return self.orders.ids(group)

    # --- edges -----------------------------------------------------------------------------

    def children(self, task_id: str) -> list[str]:
        """Tasks whose parent is `task_id`, in the task order."""
        self.require(task_id)
        return self._ids(("parent", task_id))

    def dependencies(self, task_id: str) -> list[str]:
        """`depends_on` as written (repeats dropped), dangling ids included."""
        return list(dict.fromkeys(self.require(task_id).depends_on))

    def dependents(self, task_id: str) -> list[str]:
        """Tasks whose depends_on names `task_id` (the tasks it blocks), in the task order."""
        self.require(task_id)
        return self._ids(("depends_on", task_id))

    def soft_dependencies(self, task_id: str) -> list[str]:
        """`soft_depends_on` as written (repeats dropped), dangling ids included."""
        return list(dict.fromkeys(self.require(task_id).soft_depends_on))

    def ancestors(self, task_id: str) -> list[str]:
        """Parent, grandparent, ...: nearest first, each once (stops where a cycle closes)."""
        self.require(task_id)
        return list(self._store.walk_up(task_id))

    def descendants(self, task_id: str) -> list[str]:
        """Every task below `task_id` via parent, each once, in the task order."""
        self.require(task_id)
        return self.sorted_ids(self._store.walk_down(task_id))

    def naming(self, kind: Kind, task_id: str) -> Iterable[str]:
        """The ids of the tasks naming `task_id` in `kind`, unordered, whether a task
        `task_id` exists or not (dangling references name an id no task has)."""
        if task_id in self._store.tasks:
            return self._store.sources(kind, task_id)
        return self._store.missing[kind].get(task_id, ())

    def missing_references(self, kind: Kind) -> dict[str, set[str]]:
        """Dangling references of one field: missing id → ids of the tasks naming it."""
        return self._store.missing[kind]

    # --- facts -----------------------------------------------------------------------------

    def record(self, task_id: str) -> Record:
        """The internal record of a task (for the query modules of this package)."""
        record = self._records.get(task_id)
        if record is None:
            raise UnknownTask(task_id)
        return record

    @property
    def tally(self) -> Tally:
        """The whole-graph counters (for the query modules of this package)."""
        return self._tally

    def dependency_graph(self) -> Digraph:
        """The depends_on edges between existing tasks (for the query modules of this
        package; do not edit it)."""
        return self._store.dependencies

    def dependency_cycle_members(self) -> Mapping[str, tuple[str, ...]]:
        """Every member of a depends_on cycle (a self-loop too) → the cycle's sorted members."""
        return self._store.dep_cycle

    def dependency_cycles(self) -> list[list[str]]:
        """Every depends_on cycle as its sorted members; the list sorted."""
        return [list(c) for c in sorted(set(self._store.dep_cycle.values()))]

    def parent_cycles(self) -> list[list[str]]:
        """Every parent cycle as its sorted members; the list sorted."""
        return [list(c) for c in sorted(set(self._store.parent_cycle.values()))]

    def self_references(self) -> list[tuple[str, Kind]]:
        """(task id, field) for every task that names itself, sorted."""
        return sorted(self._store.self_references)

    def cycles_through(self, task_id: str) -> tuple[list[str], list[str]]:
        """The parent cycle and the depends_on cycle `task_id` is a member of (sorted
        members, as `parent_cycles` and `dependency_cycles` give them; empty when none)."""
        store = self._store
        return list(store.parent_cycle.get(task_id, ())), list(store.dep_cycle.get(task_id, ()))

    def facts(self, task_id: str) -> TaskFacts:
        """The computed facts of `task_id`."""
        record = self.record(task_id)
        local = record.local
        return TaskFacts(
            depth=record.depth,
            child_count=local.child_count,
            open_child_count=local.open_child_count,
            is_leaf=local.is_leaf,
            is_root=local.is_root,
            is_orphan=local.is_orphan,
            blocking_count=local.blocking_count,
            blocked_by_count=local.blocked_by_count,
            soft_blocking_count=local.soft_blocking_count,
            is_ready=record.ready,
            is_blocked=record.blocked,
            reasons=self.reasons(task_id),
            ready_since=self.ready_base(task_id) if record.ready else None,
        )

    def about(self, task_id: str, now: datetime, *, shown: int) -> TaskAbout:
        """All a view of `task_id` says that its file does not, at `now`, in one answer:
        facts, why blocked, deferral, claim, the first `shown` it blocks (`graph/about.py`)."""
        task, record, reasons = self.require(task_id), self.record(task_id), self.reasons(task_id)
        local, store = record.local, self._store
        blocks = self.orders.view("depends_on", task_id)[:shown] if local.blocking_count else ()
        chain = NO_CHAIN  # on no depends_on edge: no need of the whole graph's chains
        if local.blocking_count or local.blocked_by_count:
            make = partial(Chains, store.dependencies, store.dep_cycle)
            chain = self.until_edit_value(KEPT_AS, make)[task_id]
        return task_about(task, record, reasons, blocks, chain=chain, now=now)

    def ready_base(self, task_id: str) -> datetime | None:
        """What the readiness of `task_id` dates from (its `ready_since` while it is ready):
        the latest of its `modified` and its satisfied dependencies' `completed`."""
        return ready_base(self.require(task_id), self._store.tasks)

    def reasons(self, task_id: str) -> BlockedReasons:
        """Why `task_id` is blocked (all empty when it is not)."""
        record = self.record(task_id)
        if not record.blocked:
            return BlockedReasons()
        tasks = self._store.tasks
        deps = set(tasks[task_id].depends_on)
        return BlockedReasons(
            unmet_dependencies=sorted(
                d for d in deps if d in tasks and tasks[d].status not in TERMINAL_STATUSES
            ),
            dangling_dependencies=sorted(d for d in deps if d not in tasks),
            cycle=list(record.local.cycle[:CYCLE_SHOWN]),
            cycle_length=len(record.local.cycle),
            blocked_ancestor=record.anc,
            status_blocked=record.local.status_blocked,
        )
