"""A task's raw neighbourhood and decomposition context: ids only, every list in the task
order (priority, order, id), as `Sections` (whole lists; the tool runtime pages them).

The lists name existing tasks only, so that each id can be expanded into a task view; ids a
task names that no task has are listed apart (`dangling_*`). Relevance is the reader's call:
same-project and orphan lists are complete, never filtered. The lists are read from the
index's kept order, so paging them costs a page's length, not a sort of the whole group.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def _existing(index: TaskIndex, ids: Sequence[str]) -> list[str]:
    return index.sorted_ids({i for i in ids if i in index})


def _project_others(index: TaskIndex, task: Task) -> Sequence[str]:
    if task.project is None:
        return []
    return index.in_order("project", task.project, without=task.id)


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
    task_id = task.id
    parent = task.parent if task.parent in index else None
    lists = {
        "children": index.in_order("parent", task_id),
        "depends_on": _existing(index, task.depends_on),
        "blocks": index.in_order("depends_on", task_id),
        "soft_depends_on": _existing(index, task.soft_depends_on),
        "soft_blocks": index.in_order("soft_depends_on", task_id),
        "same_project_tasks": _project_others(index, task),
        "orphan_tasks": index.in_order("orphans", without=task_id),
    }
    facts = {
        "parent": parent,
        "dangling_parent": task.parent if task.parent is not None and parent is None else None,
        "dangling_dependencies": sorted({d for d in task.depends_on if d not in index}),
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
    parent = task.parent if task.parent in index else None
    mates = [] if parent is None else index.in_order("parent", parent, without=task.id)
    lists = {
        "existing_children": index.in_order("parent", task.id),
        "siblings": mates,
        "project_tasks": _project_others(index, task),
    }
    return Sections(lists, {"parent": parent, "project": task.project})
