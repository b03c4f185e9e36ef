"""A task's raw neighbourhood and decomposition context: ids only, every list in the task
order (priority, order, id), as `Sections` (whole lists; the tool runtime pages them).

The lists name existing tasks only, so that each id can be expanded into a task view; ids a
task names that no task has are listed apart (`dangling_*`). Relevance is the reader's call:
same-project and orphan lists are complete, never filtered. The lists are read from the
index's kept order, so paging them costs a page's length, not a sort of the whole group.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph._order import TaskOrders
from graph.index import TaskIndex
from graph.sections import Sections
from storage.model import Task

__all__ = ["DECOMPOSITION_LISTS", "NEIGHBORHOOD_LISTS", "decomposition_context", "neighborhood"]

NEIGHBORHOOD_LISTS = (
    "children",
    "depends_on",
    "blocks",
    "soft_depends_on",
    "soft_blocks",
    "same_project_tasks",
    "orphan_tasks",
)
"""The neighbourhood's lists, in the order they are paged."""
DECOMPOSITION_LISTS = ("existing_children", "siblings", "project_tasks")
"""The decomposition context's lists, in the order they are paged."""


def _project_others(orders: TaskOrders, task: Task) -> Sequence[str]:
    if task.project is None:
        return []
    return orders.view("project", task.project, without=task.id)


def neighborhood(index: TaskIndex, task: Task) -> Sections:
    """The task's parent, children, dependencies, dependents, project mates and orphans.

    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md"),
    ...                          Task(id="b", title="B", path="b.md", depends_on=("a", "z")),
    ...                          Task(id="c", title="C", path="c.md", depends_on=("a",))])
    >>> n = neighborhood(index, index.require("a"))
    >>> list(n.lists["blocks"]), list(n.lists["orphan_tasks"])
    (['b', 'c'], [])
    >>> neighborhood(index, index.require("b")).facts["dangling_dependencies"]
    ['z']
    """
    task_id, orders = task.id, index.orders  # seven groups read from the kept orders
    parent = task.parent if task.parent in index else None
    depends_on = orders.existing(task.depends_on)
    lists = {
        "children": orders.view("parent", task_id),
        "depends_on": depends_on,
        "blocks": orders.view("depends_on", task_id),
        "soft_depends_on": orders.existing(task.soft_depends_on),
        "soft_blocks": orders.view("soft_depends_on", task_id),
        "same_project_tasks": _project_others(orders, task),
        "orphan_tasks": orders.view("orphans", without=task_id),
    }
    facts = {
        "parent": parent,
        "dangling_parent": task.parent if task.parent is not None and parent is None else None,
        "dangling_dependencies": sorted(set(task.depends_on).difference(depends_on)),
    }
    return Sections(lists, facts)


def decomposition_context(index: TaskIndex, task: Task) -> Sections:
    """The task's children, parent and siblings, and its project's other tasks.

    >>> index = TaskIndex.build([Task(id="p", title="P", path="p.md"),
    ...                          Task(id="a", title="A", path="a.md", parent="p"),
    ...                          Task(id="b", title="B", path="b.md", parent="p")])
    >>> list(decomposition_context(index, index.require("a")).lists["siblings"])
    ['b']
    """
    orders = index.orders
    parent = task.parent if task.parent in index else None
    mates = [] if parent is None else orders.view("parent", parent, without=task.id)
    lists = {
        "existing_children": orders.view("parent", task.id),
        "siblings": mates,
        "project_tasks": _project_others(orders, task),
    }
    return Sections(lists, {"parent": parent, "project": task.project})
