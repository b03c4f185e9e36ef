"""Task ids kept in the task order (priority, order, id), group by group, edit by edit.

A group is the tasks that share one written value:

- `("project", name)`: the tasks of a project (`name` None: the tasks without one);
- `("orphans", None)`: the tasks with no parent and no depends_on;
- `("parent", id)`, `("depends_on", id)`, `("soft_depends_on", id)`: the tasks naming `id` in
  that field (its children, the tasks it blocks, its soft dependents).

A group is sorted once, the first time it is read (from its members as the index has them
then), and kept sorted from then on: an edit moves each edited task with `bisect`, only out
of the groups it leaves and into those it joins (all of them when its sort key changed). A
reader slices a kept list and never sorts a set; building an index sorts nothing.

The lists hold ids only; `key_of(id)` reads a task's sort key from the index. So an edit is
applied in two steps around the index's own change: `leave` while the index still holds the
old tasks, `join` once it holds the new ones. Groups are keyed by the value as written,
whether a task has that id or not, so a group is complete when the task it names arrives.

>>> from storage.model import Task
>>> tasks = {t.id: t for t in [Task(id="b", title="B", path="b.md"),
...                            Task(id="a", title="A", path="a.md", priority=3, parent="b")]}
>>> def members(group):
...     return [t.id for t in tasks.values() if group in groups_of(t)]
>>> def key_of(task_id):
...     return sort_key(tasks[task_id])
>>> order = Order()
>>> order.view(("project", None), members, key_of)[:]
['b', 'a']
>>> moves = [(None, Task(id="c", title="C", path="c.md", priority=0))]
>>> order.leave(moves, key_of)
>>> tasks["c"] = moves[0][1]
>>> order.join(moves, key_of)
>>> order.view(("project", None), members, key_of, without="a")[:]
['c', 'b']
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Literal, overload

from storage.model import Task

if TYPE_CHECKING:
    from graph._store import Store
    from graph._tally import Tally

__all__ = [
    "Group",
    "GroupKind",
    "Key",
    "Move",
    "Order",
    "OrderedIds",
    "TaskOrders",
    "groups_of",
    "sort_key",
]

Key = tuple[int, int, str]
GroupKind = Literal["project", "orphans", "parent", "depends_on", "soft_depends_on"]
Group = tuple[GroupKind, str | None]
Move = tuple[Task | None, Task | None]
"""One edited task: (as it was, None if new; as it is now, None if removed)."""
Members = Callable[[Group], Iterable[str]]
KeyOf = Callable[[str], Key]

ORPHANS: Group = ("orphans", None)


sort_key: Callable[[Task], Key] = attrgetter("priority", "order", "id")
"""The one task order of every list: (priority, order, id) (an `attrgetter`: a C-level key
for sorting many tasks at once)."""


def groups_of(task: Task) -> set[Group]:
    """Every group `task` belongs to, from its own fields alone."""
    found: set[Group] = {("project", task.project)}
    if task.parent is None:
        if not task.depends_on:
            found.add(ORPHANS)
    else:
        found.add(("parent", task.parent))
    found.update(("depends_on", d) for d in task.depends_on)
    found.update(("soft_depends_on", d) for d in task.soft_depends_on)
    return found


def _changes(mine: Task, other: Task | None) -> set[Group]:
    """The groups of `mine` that `other` (the same task before or after) is not in at the
    same place: all of them when there is no other or the sort key differs."""
    groups = groups_of(mine)
    if other is None or sort_key(other) != sort_key(mine):
        return groups
    return groups - groups_of(other)


class OrderedIds(Sequence[str]):
    """A read-only, live view of one group's ids in the task order, without the id at
    position `skip` (if any). Slicing copies only the slice; read it before the next edit."""

    def __init__(self, ids: list[str], skip: int | None = None) -> None:
        self._ids = ids
        self._skip = len(ids) if skip is None else skip
        self._len = len(ids) - (self._skip < len(ids))

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, item: int) -> str: ...
    @overload
    def __getitem__(self, item: slice) -> list[str]: ...
    def __getitem__(self, item: int | slice) -> str | list[str]:
        if isinstance(item, slice):
            start, stop, step = item.indices(self._len)
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return self._between(start, stop)
        position = range(self._len)[item]
        return self._ids[position + (position >= self._skip)]

    def _between(self, start: int, stop: int) -> list[str]:
        ids, skip = self._ids, self._skip
        if stop <= skip:
            return ids[start:stop]
        if start >= skip:
            return ids[start + 1 : stop + 1]
        return ids[start:skip] + ids[skip + 1 : stop + 1]


class Order:
    """The groups read so far, each kept sorted by the task order."""

    def __init__(self) -> None:
        self._groups: dict[Group, list[str]] = {}
        self.kept = 0
        """How many ids the kept groups hold, all together."""

    def ids(self, group: Group, members: Members, key_of: KeyOf) -> list[str]:
        """The ids of `group` in order: the kept list itself (do not change it). The first
        read sorts `members(group)`, the group as the index has it now."""
        ids = self._groups.get(group)
        if ids is None:
            ids = sorted(members(group), key=key_of)
            if ids:
                self._groups[group] = ids
                self.kept += len(ids)
        return ids

    def view(
        self, group: Group, members: Members, key_of: KeyOf, *, without: str | None = None
    ) -> OrderedIds:
        """The ids of `group` in order, leaving out `without` (an existing task) if it is a
        member."""
        ids = self.ids(group, members, key_of)
        if without is None or not ids:
            return OrderedIds(ids)
        at = bisect_left(ids, key_of(without), key=key_of)
        return OrderedIds(ids, at if at < len(ids) and ids[at] == without else None)

    def leave(self, moves: Iterable[Move], key_of: KeyOf) -> None:
        """First half of an edit, while the index still holds every old task: take each
        edited task out of the kept groups it leaves."""
        if not self._groups:
            return
        for old, new in moves:
            if old is None:
                continue
            key = sort_key(old)
            for group in _changes(old, new):
                ids = self._groups.get(group)
                if ids is not None:
                    del ids[bisect_left(ids, key, key=key_of)]
                    self.kept -= 1
                    if not ids:
                        del self._groups[group]

    def join(self, moves: Iterable[Move], key_of: KeyOf) -> None:
        """Second half, once the index holds every new task: put each edited task into the
        kept groups it joins."""
        if not self._groups:
            return
        for old, new in moves:
            if new is None:
                continue
            for group in _changes(new, old):
                ids = self._groups.get(group)
                if ids is not None:
                    insort(ids, new.id, key=key_of)
                    self.kept += 1


class TaskOrders:
    """The groups of one index read so far, each kept in the task order, read from the
    index's store and tally (where a group's members are: edges, projects, orphans) without
    a call back into the index for them."""

    def __init__(self, store: Store, tally: Tally) -> None:
        self._store = store
        self._tally = tally
        self._order = Order()

    @property
    def kept(self) -> int:
        """How many ids the kept groups hold, all together: they live until an edit moves a
        task within them, so the server can put them out of the cyclic GC's walks as it
        does the loaded tasks."""
        return self._order.kept

    def key_of(self, task_id: str) -> Key:
        """The one task order of every list: (priority, order, id)."""
        return sort_key(self._store.tasks[task_id])

    def view(
        self, kind: GroupKind, value: str | None = None, *, without: str | None = None
    ) -> OrderedIds:
        """A group's ids in the task order, as a live view (see `TaskIndex.in_order`);
        `without` leaves that task out when a task has that id."""
        skip = without if without in self._store.tasks else None
        return self._order.view((kind, value), self.members, self.key_of, without=skip)

    def ids(self, group: Group) -> list[str]:
        """A group's ids in the task order, as a new list."""
        return list(self._order.ids(group, self.members, self.key_of))

    def existing(self, ids: Iterable[str]) -> list[str]:
        """Those of `ids` that a task has, each once, in the task order."""
        tasks = self._store.tasks
        found = {i: tasks[i] for i in ids if i in tasks}
        return [task.id for task in sorted(found.values(), key=sort_key)]

    def members(self, group: Group) -> Iterable[str]:
        """The ids in a group as the store has them now (unordered)."""
        kind, value = group
        store = self._store
        if kind == "project":
            return store.by_project.get(value, ())
        if kind == "orphans":
            return self._tally.orphans
        if value is None:
            return ()
        if value in store.tasks:
            return store.sources(kind, value)
        return store.missing[kind].get(value, ())

    def leave(self, moves: Sequence[Move]) -> None:
        """First half of an edit, while the store still holds every old task."""
        self._order.leave(moves, self.key_of)

    def join(self, moves: Sequence[Move]) -> None:
        """Second half, once the store holds every new task."""
        self._order.join(moves, self.key_of)
