"""A task's raw neighbourhood and decomposition context (seed 004 `get_task_neighborhood`,
`get_decomposition_context`): ids only, every list in the task order (priority, order, id).

The lists name existing tasks only, so that each id can be expanded into a task view; ids a
task names that no task has are listed apart (`dangling_*`). Relevance is the reader's call:
same-project and orphan lists are complete, never filtered.

The lists of tasks are windowed as one sequence, read in field order: the window
`[offset, offset + limit)` of their concatenation, so a window holds at most `limit` ids in
all, and each list carries its `*_total` over all windows; `limit=None` gives whole lists.
The lists are read from the index's kept order, so a window costs its own length, not a
sort of the whole group.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from graph.index import TaskIndex
from graph.windowing import window_named

__all__ = [
    "DecompositionContext",
    "Neighborhood",
    "decomposition_context",
    "neighborhood",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")
WINDOWED = "This list's part of the window (offset, limit); see the total."


class Neighborhood(BaseModel):
    """A task's existing relationships and the raw lists an agent relates it against."""

    model_config = _FROZEN

    task_id: str = Field(description="The task.")
    parent: str | None = Field(description="Parent id, if that task exists.")
    dangling_parent: str | None = Field(description="Parent id as written when no task has it.")
    children: list[str] = Field(description=f"Tasks whose parent is this task. {WINDOWED}")
    children_total: int = Field(description="Children, all windows.")
    depends_on: list[str] = Field(description=f"Existing tasks this depends on. {WINDOWED}")
    depends_on_total: int = Field(description="Existing dependencies, all windows.")
    dangling_dependencies: list[str] = Field(
        description="depends_on ids no task has, sorted (whole: ids as the task writes them)."
    )
    blocks: list[str] = Field(description=f"Tasks whose depends_on names this task. {WINDOWED}")
    blocks_total: int = Field(description="Tasks it blocks, all windows.")
    soft_depends_on: list[str] = Field(
        description=f"Existing tasks named in soft_depends_on. {WINDOWED}"
    )
    soft_depends_on_total: int = Field(description="Existing soft dependencies, all windows.")
    soft_blocks: list[str] = Field(
        description=f"Tasks whose soft_depends_on names this task. {WINDOWED}"
    )
    soft_blocks_total: int = Field(description="Soft dependents, all windows.")
    same_project_tasks: list[str] = Field(
        description=f"Every other task of the same project (none without one). {WINDOWED}"
    )
    same_project_total: int = Field(description="Other tasks of the project, all windows.")
    orphan_tasks: list[str] = Field(
        description=f"Every other task with no parent and no depends_on. {WINDOWED}"
    )
    orphan_total: int = Field(description="Other orphan tasks, all windows.")
    total: int = Field(description="Ids in every windowed list, all windows.")


class DecompositionContext(BaseModel):
    """What an agent reads before splitting a task into children."""

    model_config = _FROZEN

    task_id: str = Field(description="The task to decompose.")
    existing_children: list[str] = Field(description=f"Its current children. {WINDOWED}")
    existing_children_total: int = Field(description="Its children, all windows.")
    parent: str | None = Field(description="Its parent id, if that task exists.")
    siblings: list[str] = Field(description=f"Other children of its parent. {WINDOWED}")
    siblings_total: int = Field(description="Other children of its parent, all windows.")
    project: str | None = Field(description="Its project, if any.")
    project_tasks: list[str] = Field(
        description=f"Every other task of the same project (none without one). {WINDOWED}"
    )
    project_tasks_total: int = Field(description="Other tasks of the project, all windows.")
    total: int = Field(description="Ids in every windowed list, all windows.")


def _existing(index: TaskIndex, ids: list[str]) -> list[str]:
    return index.sorted_ids({i for i in ids if i in index})


def _project_others(index: TaskIndex, task_id: str) -> Sequence[str]:
    project = index.require(task_id).project
    if project is None:
        return []
    return index.in_order("project", project, without=task_id)


def neighborhood(
    index: TaskIndex, task_id: str, *, offset: int = 0, limit: int | None = None
) -> Neighborhood:
    """The task's parent, children, dependencies, dependents, project mates and orphans:
    the window `[offset, offset + limit)` of those lists read in that order (whole lists
    when `limit` is None).

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md"),
    ...                          Task(id="b", title="B", path="b.md", depends_on=("a", "z")),
    ...                          Task(id="c", title="C", path="c.md", depends_on=("a",))])
    >>> n = neighborhood(index, "a", offset=1, limit=1)
    >>> n.blocks, n.blocks_total, n.orphan_tasks, neighborhood(index, "b").dangling_dependencies
    (['c'], 2, [], ['z'])
    """
    task = index.require(task_id)
    parent = task.parent if task.parent in index else None
    lists = {
        "children": index.in_order("parent", task_id),
        "depends_on": _existing(index, index.dependencies(task_id)),
        "blocks": index.in_order("depends_on", task_id),
        "soft_depends_on": _existing(index, index.soft_dependencies(task_id)),
        "soft_blocks": index.in_order("soft_depends_on", task_id),
        "same_project_tasks": _project_others(index, task_id),
        "orphan_tasks": index.in_order("orphans", without=task_id),
    }
    window = window_named(lists, offset, limit)
    return Neighborhood(
        task_id=task_id,
        parent=parent,
        dangling_parent=task.parent if task.parent is not None and parent is None else None,
        dangling_dependencies=sorted({d for d in task.depends_on if d not in index}),
        **window.fields(
            totals={"same_project_tasks": "same_project_total", "orphan_tasks": "orphan_total"}
        ),
        total=window.total,
    )


def decomposition_context(
    index: TaskIndex, task_id: str, *, offset: int = 0, limit: int | None = None
) -> DecompositionContext:
    """The task's children, parent and siblings, and its project's other tasks: the window
    `[offset, offset + limit)` of those lists read in that order (whole lists when `limit`
    is None).

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="p", title="P", path="p.md"),
    ...                          Task(id="a", title="A", path="a.md", parent="p"),
    ...                          Task(id="b", title="B", path="b.md", parent="p")])
    >>> c = decomposition_context(index, "a")
    >>> c.siblings, c.siblings_total
    (['b'], 1)
    """
    task = index.require(task_id)
    parent = task.parent if task.parent in index else None
    mates = [] if parent is None else index.in_order("parent", parent, without=task_id)
    lists = {
        "existing_children": index.in_order("parent", task_id),
        "siblings": mates,
        "project_tasks": _project_others(index, task_id),
    }
    window = window_named(lists, offset, limit)
    return DecompositionContext(
        task_id=task_id, parent=parent, project=task.project, **window.fields(), total=window.total
    )
