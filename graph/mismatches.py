"""Terminal mismatches near some tasks: done or cancelled tasks with open children, open tasks
under a done or cancelled parent (what `get_structural_signals` lists for the whole tree),
read only where a change can reach (`graph.delta`).

>>> from storage.model import Task
>>> index = TaskIndex.build([
...     Task(id="p", title="P", path="p.md", status="done"),
...     Task(id="c", title="C", path="c.md", parent="p"),
... ])
>>> terminal_mismatches(index, family_of(index, ["c"]))
[('open_under_terminal_parent', 'c', 'p'), ('terminal_with_open_children', 'p', '')]
"""

from __future__ import annotations

from collections.abc import Iterable

from graph.index import TaskIndex
from storage.model import TERMINAL_STATUSES

__all__ = ["Mismatch", "family_of", "terminal_mismatches"]

Mismatch = tuple[str, str, str]
"""(kind, task id, detail): the terminal parent of an open task; empty for the parent's row."""


def _is_open(index: TaskIndex, task_id: str) -> bool:
    task = index.get(task_id)
    return task is not None and task.status not in TERMINAL_STATUSES


def _mismatch(index: TaskIndex, task_id: str) -> Mismatch | None:
    task = index.get(task_id)
    if task is None:
        return None
    if task.status in TERMINAL_STATUSES:
        children = index.in_order("parent", task_id)
        if any(_is_open(index, c) for c in children):
            return ("terminal_with_open_children", task_id, "")
        return None
    parent = task.parent
    if parent is not None and parent in index and not _is_open(index, parent):
        return ("open_under_terminal_parent", task_id, parent)
    return None


def terminal_mismatches(index: TaskIndex, ids: Iterable[str]) -> list[Mismatch]:
    """The terminal mismatches of `ids` in the state the index holds, sorted: each done or
    cancelled task with an open child, each open task whose parent is done or cancelled."""
    found = (_mismatch(index, task_id) for task_id in set(ids))
    return sorted(m for m in found if m is not None)


def family_of(index: TaskIndex, ids: Iterable[str]) -> set[str]:
    """`ids` (present or not), their parents and their children in the state the index
    holds: the only tasks whose terminal mismatch a change of `ids` can make or end."""
    found = set(ids)
    for task_id in list(found):
        task = index.get(task_id)
        if task is not None and task.parent is not None:
            found.add(task.parent)
        found.update(index.in_order("parent", task_id))
    return found
