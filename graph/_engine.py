"""Building the derived facts once, and settling them after an edit.

`build` computes every `Local`, then every `Record` parents first. `apply` asks the store for
the ids an edit touched, recomputes their `Local`s, then settles records with a work queue: a
task whose record changed in what children inherit (depth, blocked, nearest blocked ancestor)
queues its children. The work is proportional to what the edit changes.
"""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Iterable

from graph._records import Local, Record, compute_local, compute_record
from graph._store import Store
from graph._tally import Tally
from storage.model import Task

__all__ = ["Engine"]


def _top_down(store: Store) -> list[str]:
    """Every id, each after its parent (parent-cycle members first among their subtrees)."""
    order = [t for t in store.tasks if t not in store.parent_cycle and store.parent_of(t) is None]
    order.extend(sorted(store.parent_cycle))
    seen = set(order)
    children = store.graphs["parent"].pred
    position = 0
    while position < len(order):
        for child in children[order[position]]:
            if child not in seen:
                seen.add(child)
                order.append(child)
        position += 1
    return order


class Engine:
    """The store, every task's record, and the counters over them."""

    def __init__(self) -> None:
        self.store = Store()
        self.records: dict[str, Record] = {}
        self.tally = Tally()

    def build(self, tasks: Iterable[Task]) -> None:
        """Fill an empty engine with `tasks`. The cyclic GC is paused: a bulk build makes no
        reference cycles, and collecting while allocating 100k records triples the time."""
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            self._build(tasks)
        finally:
            if was_enabled:
                gc.enable()

    def _build(self, tasks: Iterable[Task]) -> None:
        store = self.store
        store.load(tasks)
        locals_ = {task_id: compute_local(store, task_id) for task_id in store.tasks}
        for task_id in _top_down(store):
            record = compute_record(
                store, task_id, locals_[task_id], self.records, locals_.__getitem__
            )
            self.records[task_id] = record
            self.tally.add(task_id, record)

    def apply(self, upserted: Iterable[Task], removed: Iterable[str]) -> None:
        """Put `upserted` in, take `removed` out (an id in both is upserted)."""
        changed = {task.id: task for task in upserted}
        dirty: set[str] = set()
        for task_id in sorted(set(removed) - changed.keys()):
            if task_id in self.store.tasks:
                dirty |= self.store.remove(task_id)
                self.tally.remove(task_id, self.records.pop(task_id))
        for task in changed.values():
            dirty |= self.store.upsert(task)
        pending = {t: compute_local(self.store, t) for t in dirty if t in self.store.tasks}
        self._settle(pending)

    def _local_of(self, pending: dict[str, Local], task_id: str) -> Local:
        found = pending.get(task_id)
        return found if found is not None else self.records[task_id].local

    def _settle(self, pending: dict[str, Local]) -> None:
        """Recompute the records of `pending` and of every task that inherits a change."""
        store, records = self.store, self.records

        def local_of(task_id: str) -> Local:
            return self._local_of(pending, task_id)

        queue = deque(pending)
        queued = set(pending)
        while queue:
            task_id = queue.popleft()
            queued.discard(task_id)
            old = records.get(task_id)
            new = compute_record(store, task_id, local_of(task_id), records, local_of)
            if new == old:
                continue
            if old is None:
                self.tally.add(task_id, new)
            else:
                self.tally.replace(task_id, old, new)
            records[task_id] = new
            if old is None or old.inherited() != new.inherited():
                for child in store.sources("parent", task_id):
                    if child not in queued:
                        queued.add(child)
                        queue.append(child)
