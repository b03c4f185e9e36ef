"""Whole-graph counters, kept as the sum of every task's contribution.

The index removes a task's old `Record` and adds its new one whenever the record changes, so
the counters are always exactly what a recount would give, at the cost of the change.

A group of ids is kept only where its members are listed (ready, blocked, by status, ...),
as an `IdSet` (a dict's keys: a `set` of a few thousand ids takes five times the memory);
leaves are only counted.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from itertools import compress
from operator import and_, itemgetter, not_
from typing import Any, TypeVar

from graph._records import Local, Record
from graph._store import IdSet
from storage.model import IN_PROGRESS_STATUS

__all__ = ["Tally"]

K = TypeVar("K", bound=Hashable)


def _bump(counter: Counter[K], key: K, sign: int) -> None:
    counter[key] += sign
    if counter[key] == 0:
        del counter[key]


def _mark(members: IdSet, task_id: str, on: bool, sign: int) -> None:
    if on:
        if sign > 0:
            members[task_id] = None
        else:
            members.pop(task_id, None)


def _file(buckets: dict[K, IdSet], key: K, task_id: str, sign: int) -> None:
    if sign > 0:
        buckets.setdefault(key, {})[task_id] = None
        return
    members = buckets[key]
    members.pop(task_id, None)
    if not members:
        del buckets[key]


def _group(buckets: dict[K, IdSet], ids: Iterable[str], keys: Iterable[K]) -> None:
    """`_file` each id under its key (`ids` and `keys` in step), in one loop."""
    for task_id, key in zip(ids, keys, strict=True):
        members = buckets.get(key)
        if members is None:
            buckets[key] = {task_id: None}
        else:
            members[task_id] = None


# Field readers by name (`itemgetter`: the fastest C-level read of a tuple field).
_LOCAL = {name: itemgetter(i) for i, name in enumerate(Local._fields)}
_RECORD = {name: itemgetter(i) for i, name in enumerate(Record._fields)}


class Tally:
    """Counts and member sets over every task in the index."""

    def __init__(self) -> None:
        self.by_status: dict[str, IdSet] = {}
        self.by_type: Counter[str] = Counter()
        self.ready: IdSet = {}
        self.blocked: IdSet = {}
        self.roots: IdSet = {}
        self.leaf_count = 0
        self.orphans: IdSet = {}
        self.terminal_open: IdSet = {}
        self.depths: Counter[int] = Counter()
        self.depth_sum = 0
        self.in_degrees: Counter[int] = Counter()
        self.out_degrees: dict[int, IdSet] = {}
        self.edges = 0
        self.dangling = 0

    def add(self, task_id: str, record: Record) -> None:
        self._count_local(task_id, record.local, 1)
        self._count_inherited(task_id, record, 1)

    def add_all(self, records: Mapping[str, Record]) -> None:
        """`add` each of `records` to an empty tally, in the same order, a field at a time:
        each field is one C-level pass (`map(itemgetter)`), each counter or group another
        (`compress`, `dict.fromkeys`, `Counter.update`, `sum`)."""
        ids, rows = list(records), records.values()
        self._add_locals(ids, list(map(_RECORD["local"], rows)))
        self.ready.update(dict.fromkeys(compress(ids, map(_RECORD["ready"], rows))))
        self.blocked.update(dict.fromkeys(compress(ids, map(_RECORD["blocked"], rows))))
        known = [depth for depth in map(_RECORD["depth"], rows) if depth is not None]
        self.depths.update(known)
        self.depth_sum += sum(known)

    def _add_locals(self, ids: list[str], locals_: list[Local]) -> None:
        """`_count_local` of every task."""

        def column(name: str) -> list[Any]:
            return list(map(_LOCAL[name], locals_))

        _group(self.by_status, ids, column("status"))
        self.by_type.update(column("type"))
        self.roots.update(dict.fromkeys(compress(ids, column("is_root"))))
        is_leaf = column("is_leaf")
        self.leaf_count += sum(is_leaf)
        has_open = map(not_, is_leaf)
        terminal_open = compress(ids, map(and_, column("terminal"), has_open))
        self.terminal_open.update(dict.fromkeys(terminal_open))
        self.orphans.update(dict.fromkeys(compress(ids, column("is_orphan"))))
        blocked_by = column("blocked_by_count")
        self.in_degrees.update(blocked_by)
        self.edges += sum(blocked_by)
        blocking = column("blocking_count")
        _group(self.out_degrees, compress(ids, blocking), compress(blocking, blocking))
        self.dangling += sum(column("dangling_count"))

    def remove(self, task_id: str, record: Record) -> None:
        self._count_local(task_id, record.local, -1)
        self._count_inherited(task_id, record, -1)

    def replace(self, task_id: str, old: Record, new: Record) -> None:
        """Swap one task's contribution; when only what it inherits changed (a subtree being
        blocked or freed), only the inherited counters move."""
        if old.local != new.local:
            self._count_local(task_id, old.local, -1)
            self._count_local(task_id, new.local, 1)
        self._count_inherited(task_id, old, -1)
        self._count_inherited(task_id, new, 1)

    def _count_inherited(self, task_id: str, record: Record, sign: int) -> None:
        _mark(self.ready, task_id, record.ready, sign)
        _mark(self.blocked, task_id, record.blocked, sign)
        if record.depth is not None:
            _bump(self.depths, record.depth, sign)
            self.depth_sum += sign * record.depth

    def _count_local(self, task_id: str, local: Local, sign: int) -> None:
        _file(self.by_status, local.status, task_id, sign)
        _bump(self.by_type, local.type, sign)
        _mark(self.roots, task_id, local.is_root, sign)
        self.leaf_count += sign * local.is_leaf
        _mark(self.orphans, task_id, local.is_orphan, sign)
        _mark(self.terminal_open, task_id, local.terminal and not local.is_leaf, sign)
        self._count_degrees(task_id, local, sign)

    def _count_degrees(self, task_id: str, local: Local, sign: int) -> None:
        _bump(self.in_degrees, local.blocked_by_count, sign)
        if local.blocking_count > 0:
            _file(self.out_degrees, local.blocking_count, task_id, sign)
        self.edges += sign * local.blocked_by_count
        self.dangling += sign * local.dangling_count

    # --- answers ---------------------------------------------------------------------------

    def status_count(self, status: str) -> int:
        return len(self.by_status.get(status, ()))

    def in_progress_count(self) -> int:
        return self.status_count(IN_PROGRESS_STATUS)

    def max_depth(self) -> int:
        return max(self.depths, default=0)

    def depth_count(self) -> int:
        return sum(self.depths.values())

    def max_in_degree(self) -> int:
        return max(self.in_degrees, default=0)

    def max_out_degree(self) -> int:
        return max(self.out_degrees, default=0)

    def top_out_degree(self, top: int) -> list[tuple[int, str]]:
        """The `top` tasks with the most dependents: (count, id), most first, ties by id."""
        found: list[tuple[int, str]] = []
        for count in sorted(self.out_degrees, reverse=True):
            if len(found) >= top:
                break
            ids = heapq.nsmallest(top - len(found), self.out_degrees[count])
            found.extend((count, task_id) for task_id in ids)
        return found
