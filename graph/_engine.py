"""Building the derived facts once, and settling them after an edit.

`build` loads the store, then computes every `Local` and `Record` in one pass, parents first,
and counts them all at once. `apply` asks the store for the ids an edit touched, recomputes
their `Local`s, then settles records with a work queue: a task whose record changed in what
children inherit (depth, blocked, nearest blocked ancestor) queues its children. The work is
proportional to what the edit changes.
"""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Iterable

from graph._records import Local, Record, build_records, compute_local, compute_record
from graph._store import Store
from graph._tally import Tally
from storage.model import Task

__all__ = ["Engine"]


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
        roots = store.load(tasks)
        records = build_records(store, roots)
        if len(records) < len(store.tasks):  # the others are on a parent cycle or below one
            store.find_parent_cycles(records)
            records = build_records(store, roots + sorted(store.parent_cycle))
        self.records = records
        self.tally.add_all(records)

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
