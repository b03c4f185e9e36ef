"""Listing, searching and tree views over the index (the query tier).

Filters are mechanical (equal, at most, contains); lists are in the task order (priority,
order, id), except `search_tasks`, which is ordered by id and never by a score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from graph.errors import InvalidArgument
from graph.index import TaskIndex
from storage.model import Task, normalise_status

__all__ = ["TreeNode", "list_tasks", "render_ascii", "search_tasks", "tree"]


class TreeNode(BaseModel):
    """One task in a tree view, with its children nested."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Task id.")
    title: str = Field(description="Task title.")
    type: str = Field(description="Task type as written.")
    status: str = Field(description="Canonical status.")
    priority: int = Field(description="0 (most urgent) to 4.")
    children: list[TreeNode] = Field(description="Child nodes, in the task order.")


def _check_priority(name: str, value: int | None) -> None:
    if value is not None and not 0 <= value <= 4:
        raise InvalidArgument(name, f"must be 0 to 4, got {value}")


def _start(
    index: TaskIndex, project: str | None, status: str | None, parent: str | None
) -> Sequence[str]:
    """The smallest candidate group the filters allow, already in the task order."""
    if parent is not None:
        index.require(parent)
        return index.in_order("parent", parent)
    if project is not None:
        return index.in_order("project", project)
    if status is not None:
        return index.sorted_until_edit(f"status {status}", index.tally.by_status.get(status, ()))
    return index.ordered_ids()


def _matches(
    task: Task, wanted: Mapping[str, object], priority_max: int | None, tag: str | None
) -> bool:
    if any(getattr(task, name) != value for name, value in wanted.items()):
        return False
    if priority_max is not None and task.priority > priority_max:
        return False
    return tag is None or tag in task.tags


def list_tasks(
    index: TaskIndex,
    *,
    project: str | None = None,
    status: str | None = None,
    type: str | None = None,
    priority: int | None = None,
    priority_max: int | None = None,
    assignee: str | None = None,
    tag: str | None = None,
    parent: str | None = None,
) -> Sequence[str]:
    """Ids of the tasks matching every given filter (status aliases like `todo` accepted),
    remembered until the next edit so that paging through them costs a slice per page.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="active"),
    ...                          Task(id="b", title="B", path="b.md", status="done")])
    >>> list_tasks(index, status="open"), list_tasks(index, status="closed")
    (['a'], ['b'])
    """
    _check_priority("priority", priority)
    _check_priority("priority_max", priority_max)
    status = None if status is None else normalise_status(status)
    wanted = {
        name: value
        for name, value in (
            ("project", project),
            ("status", status),
            ("type", type),
            ("priority", priority),
            ("assignee", assignee),
        )
        if value is not None
    }
    candidates = _start(index, project, status, parent)
    if not (wanted or priority_max is not None or tag is not None):
        return candidates
    key = repr(("list_tasks", sorted(wanted.items()), priority_max, tag, parent))
    return index.until_edit(
        key,
        lambda: [
            task_id
            for task_id in candidates
            if _matches(index.require(task_id), wanted, priority_max, tag)
        ],
    )


def search_tasks(index: TaskIndex, query: str) -> list[str]:
    """Ids of the tasks whose title or body contains `query`, any case; ordered by id.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="Fix the Parser", path="a.md"),
    ...                          Task(id="b", title="B", path="b.md", body="parser notes")])
    >>> search_tasks(index, "PARSER")
    ['a', 'b']
    """
    needle = query.casefold()
    if not needle.strip():
        raise InvalidArgument("query", "must not be empty")
    return sorted(
        t.id for t in index.tasks() if needle in t.title.casefold() or needle in t.body.casefold()
    )


def _roots(index: TaskIndex, root_id: str | None, project: str | None) -> list[str]:
    if root_id is not None:
        index.require(root_id)
        return [root_id]
    ids = index.tally.roots if project is None else index.project_members(project)
    if project is None:
        return index.sorted_ids(ids)
    return index.sorted_ids(i for i in ids if index.require(i).parent not in ids)


def _walk(
    index: TaskIndex, roots: list[str], max_depth: int | None, excluded: set[str]
) -> tuple[list[str], dict[str, list[str]]]:
    """Depth-first visit order and each visited task's shown children (cycle-safe)."""
    order: list[str] = []
    shown: dict[str, list[str]] = {}
    seen: set[str] = set()
    stack = [(task_id, 0) for task_id in reversed(roots)]
    while stack:
        task_id, level = stack.pop()
        if task_id in seen:
            continue
        seen.add(task_id)
        order.append(task_id)
        deeper = max_depth is None or level < max_depth
        kids = [
            c
            for c in (index.children(task_id) if deeper else [])
            if c not in seen and index.require(c).status not in excluded
        ]
        shown[task_id] = kids
        stack.extend((c, level + 1) for c in reversed(kids))
    return order, shown


def tree(
    index: TaskIndex,
    *,
    root_id: str | None = None,
    project: str | None = None,
    max_depth: int | None = None,
    exclude_status: Sequence[str] = (),
) -> list[TreeNode]:
    """The parent tree under `root_id`, or of a project, or of the whole graph.

    `max_depth` counts levels below each root (0: the roots alone). A task whose status is in
    `exclude_status` is left out with its subtree (an explicit `root_id` is always shown).
    Tasks on a parent cycle have no root and appear only under an explicit `root_id`.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="p", title="P", path="p.md"),
    ...                          Task(id="a", title="A", path="a.md", parent="p")])
    >>> [(n.id, [c.id for c in n.children]) for n in tree(index)]
    [('p', ['a'])]
    """
    if max_depth is not None and max_depth < 0:
        raise InvalidArgument("max_depth", f"must be >= 0, got {max_depth}")
    excluded = {normalise_status(s) for s in exclude_status}
    roots = [
        r
        for r in _roots(index, root_id, project)
        if r == root_id or index.require(r).status not in excluded
    ]
    order, shown = _walk(index, roots, max_depth, excluded)
    built: dict[str, TreeNode] = {}
    for task_id in reversed(order):
        task = index.require(task_id)
        built[task_id] = TreeNode(
            id=task.id,
            title=task.title,
            type=task.type,
            status=task.status,
            priority=task.priority,
            children=[built[c] for c in shown[task_id]],
        )
    return [built[r] for r in roots]


def render_ascii(nodes: Sequence[TreeNode]) -> str:
    """The trees as text, one task a line: `id [status] title`, with box-drawing branches.

    >>> leaf = TreeNode(id="a", title="A", type="task", status="done", priority=2, children=[])
    >>> print(render_ascii([TreeNode(id="p", title="P", type="epic", status="active",
    ...                              priority=1, children=[leaf])]))
    p [active] P
    └── a [done] A
    """
    lines: list[str] = []
    stack: list[tuple[TreeNode, str, str]] = [(n, "", "") for n in reversed(nodes)]
    while stack:
        node, lead, prefix = stack.pop()
        lines.append(f"{lead}{node.id} [{node.status}] {node.title}")
        last = len(node.children) - 1
        for position, child in reversed(list(enumerate(node.children))):
            branch, carry = ("└── ", "    ") if position == last else ("├── ", "│   ")
            stack.append((child, prefix + branch, prefix + carry))
    return "\n".join(lines)
