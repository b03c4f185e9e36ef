"""A task's raw neighbourhood and decomposition context (seed 004 `get_task_neighborhood`,
`get_decomposition_context`): ids only, every list in the task order (priority, order, id).

The lists name existing tasks only, so that each id can be expanded into a task view; ids a
task names that no task has are listed apart (`dangling_*`). Relevance is the reader's call:
same-project and orphan lists are complete, never filtered.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graph.index import TaskIndex

__all__ = ["DecompositionContext", "Neighborhood", "decomposition_context", "neighborhood"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Neighborhood(BaseModel):
    """A task's existing relationships and the raw lists an agent relates it against."""

    model_config = _FROZEN

    task_id: str = Field(description="The task.")
    parent: str | None = Field(description="Parent id, if that task exists.")
    dangling_parent: str | None = Field(description="Parent id as written when no task has it.")
    children: list[str] = Field(description="Tasks whose parent is this task.")
    depends_on: list[str] = Field(description="Existing tasks this task depends on.")
    dangling_dependencies: list[str] = Field(description="depends_on ids no task has, sorted.")
    blocks: list[str] = Field(description="Tasks whose depends_on names this task.")
    soft_depends_on: list[str] = Field(description="Existing tasks named in soft_depends_on.")
    soft_blocks: list[str] = Field(description="Tasks whose soft_depends_on names this task.")
    same_project_tasks: list[str] = Field(
        description="Every other task of the same project (empty when the task has none)."
    )
    orphan_tasks: list[str] = Field(
        description="Every other task with no parent and no depends_on."
    )


class DecompositionContext(BaseModel):
    """What an agent reads before splitting a task into children."""

    model_config = _FROZEN

    task_id: str = Field(description="The task to decompose.")
    existing_children: list[str] = Field(description="Its current children.")
    parent: str | None = Field(description="Its parent id, if that task exists.")
    siblings: list[str] = Field(description="Other children of its parent.")
    project: str | None = Field(description="Its project, if any.")
    project_tasks: list[str] = Field(
        description="Every other task of the same project (empty when the task has none)."
    )


def _existing(index: TaskIndex, ids: list[str]) -> list[str]:
    return index.sorted_ids({i for i in ids if i in index})


def _project_others(index: TaskIndex, task_id: str) -> list[str]:
    project = index.require(task_id).project
    if project is None:
        return []
    return [i for i in index.project_ids(project) if i != task_id]


def neighborhood(index: TaskIndex, task_id: str) -> Neighborhood:
    """The task's parent, children, dependencies, dependents, project mates and orphans.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md"),
    ...                          Task(id="b", title="B", path="b.md", depends_on=("a", "z"))])
    >>> n = neighborhood(index, "a")
    >>> n.blocks, n.orphan_tasks, neighborhood(index, "b").dangling_dependencies
    (['b'], [], ['z'])
    """
    task = index.require(task_id)
    parent = task.parent if task.parent in index else None
    return Neighborhood(
        task_id=task_id,
        parent=parent,
        dangling_parent=task.parent if task.parent is not None and parent is None else None,
        children=index.children(task_id),
        depends_on=_existing(index, index.dependencies(task_id)),
        dangling_dependencies=sorted({d for d in task.depends_on if d not in index}),
        blocks=index.dependents(task_id),
        soft_depends_on=_existing(index, index.soft_dependencies(task_id)),
        soft_blocks=index.soft_dependents(task_id),
        same_project_tasks=_project_others(index, task_id),
        orphan_tasks=index.sorted_ids(index.tally.orphans - {task_id}),
    )


def decomposition_context(index: TaskIndex, task_id: str) -> DecompositionContext:
    """The task's children, parent and siblings, and its project's other tasks.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="p", title="P", path="p.md"),
    ...                          Task(id="a", title="A", path="a.md", parent="p"),
    ...                          Task(id="b", title="B", path="b.md", parent="p")])
    >>> decomposition_context(index, "a").siblings
    ['b']
    """
    task = index.require(task_id)
    parent = task.parent if task.parent in index else None
    siblings = [] if parent is None else [c for c in index.children(parent) if c != task_id]
    return DecompositionContext(
        task_id=task_id,
        existing_children=index.children(task_id),
        parent=parent,
        siblings=siblings,
        project=task.project,
        project_tasks=_project_others(index, task_id),
    )
