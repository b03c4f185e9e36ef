"""Would a write close a cycle? `would_create_cycle` answers before the write, from the
index as it is: a parent that would make a task its own ancestor, or a dependency that
would close a depends_on cycle (searched edge by edge, `graph.cycles.closing_cycle`). The
task need not exist yet, and references waiting for it count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from graph._store import Kind
from graph.cycles import closing_cycle, parent_cycle_through
from graph.errors import CycleError
from graph.index import TaskIndex

__all__ = ["would_create_cycle"]


class _RawDependencies:
    """depends_on as written, for any id (a missing id has none)."""

    def __init__(self, index: TaskIndex) -> None:
        self._index = index

    def __getitem__(self, task_id: str) -> Iterable[str]:
        task = self._index.get(task_id)
        return () if task is None else task.depends_on


class _Dependents:
    """Ids naming `task_id` in depends_on, whether `task_id` exists yet or not."""

    def __init__(self, index: TaskIndex) -> None:
        self._index = index

    def __getitem__(self, task_id: str) -> Iterable[str]:
        return self._index.naming("depends_on", task_id)


def _parents_with(index: TaskIndex, task_id: str, parent: str) -> Callable[[str], str | None]:
    """The parent as written of any id, with `task_id`'s given as `parent` (an id no task
    has has none)."""

    def parent_of(node: str) -> str | None:
        if node == task_id:
            return parent
        found = index.get(node)
        return None if found is None else found.parent

    return parent_of


def would_create_cycle(
    index: TaskIndex, task_id: str, *, parent: str | None = None, depends_on: Iterable[str] = ()
) -> CycleError | None:
    """The cycle that giving `task_id` this parent or these dependencies would close, or None.

    `task_id` need not exist yet. The members are sorted; for depends_on they are the whole
    cycle the new edge would make or join.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", depends_on=("b",)),
    ...                          Task(id="b", title="B", path="b.md")])
    >>> would_create_cycle(index, "b", depends_on=["a"]).nodes
    ['a', 'b']
    >>> would_create_cycle(index, "b", parent="a") is None
    True
    """
    if parent is not None and (parent == task_id or _named(index, "parent", task_id)):
        members = parent_cycle_through(task_id, _parents_with(index, task_id, parent))
        if members:
            return CycleError("parent", members)
    deps = sorted(set(depends_on))
    if not deps or (task_id not in deps and not _named(index, "depends_on", task_id)):
        return None
    forward, backward = _RawDependencies(index), _Dependents(index)
    for dep in deps:
        found = closing_cycle(task_id, dep, forward, backward)
        if found:
            return CycleError("depends_on", sorted(found))
    return None


def _named(index: TaskIndex, kind: Kind, task_id: str) -> bool:
    """True when a task names `task_id` in `kind`. A cycle through `task_id` enters it by
    such a reference (or by one `task_id` gives itself), so a task nobody names cannot
    close one, whatever it names: nothing to search (a new task, most often)."""
    return any(index.naming(kind, task_id))
