"""Listing, searching and tree views over the index (the query tier).

Filters are mechanical (equal, at most, contains); lists are in the task order (priority,
order, id), except `search_tasks`, which is ordered by id and never by a score.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from graph._results import RESULT
from graph.errors import InvalidArgument
from graph.index import TaskIndex
from graph.selection import list_tasks, search_tasks
from storage.model import normalise_status

__all__ = [
    "TREE_DEPTH_LIMIT",
    "TREE_NODES_LIMIT",
    "TreeNode",
    "list_tasks",
    "render_ascii",
    "search_tasks",
    "tree",
    "tree_roots_not_shown",
]


class TreeNode(BaseModel):
    """One task in a tree view, with its children nested."""

    model_config = RESULT

    id: str = Field(description="Task id.")
    title: str = Field(description="Task title.")
    type: str = Field(description="Task type as written.")
    status: str = Field(description="Canonical status.")
    priority: int = Field(description="0 (most urgent) to 4.")
    children: list[TreeNode] = Field(description="Child nodes, in the task order.")
    children_not_shown: int = Field(
        0,
        description="Children left out here by the depth or size cap (not by exclude_status):"
        " ask for the tree under this task to see them.",
    )


TREE_DEPTH_LIMIT = 50
"""Levels below a root one tree shows at most: a deeper chain is cut there (its last node
says so), which keeps nested JSON well inside any serializer's depth and an ASCII line's
indent short, so a 2,000-level chain answers in size linear in what is shown."""
TREE_NODES_LIMIT = 5000
"""Nodes one tree shows at most (`max_nodes` may ask for fewer)."""


def _roots(index: TaskIndex, root_id: str | None, project: str | None) -> list[str]:
    if root_id is not None:
        index.require(root_id)
        return [root_id]
    ids = index.tally.roots if project is None else index.project_members(project)
    if project is None:
        return index.sorted_ids(ids)
    return index.sorted_ids(i for i in ids if index.require(i).parent not in ids)


@dataclass(frozen=True, slots=True)
class _Bounds:
    depth: int  # levels below a root
    nodes: int  # nodes in all


def _walk(
    index: TaskIndex, roots: list[str], bounds: _Bounds, excluded: set[str]
) -> tuple[list[str], dict[str, list[str]], dict[str, int]]:
    """Breadth-first visit order (parents before children), each visited task's shown
    children, and how many children each had cut by the bounds (cycle-safe)."""
    order: list[str] = []
    shown: dict[str, list[str]] = {}
    cut: dict[str, int] = {}
    seen = set(roots)
    queue = deque((task_id, 0) for task_id in roots)
    while queue:
        task_id, level = queue.popleft()
        order.append(task_id)
        kids = [
            c
            for c in index.children(task_id)
            if c not in seen and index.require(c).status not in excluded
        ]
        room = bounds.nodes - len(order) - len(queue) if level < bounds.depth else 0
        shown[task_id] = kids[: max(0, room)]
        if len(kids) > len(shown[task_id]):
            cut[task_id] = len(kids) - len(shown[task_id])
        seen.update(shown[task_id])
        queue.extend((c, level + 1) for c in shown[task_id])
    return order, shown, cut


def tree(
    index: TaskIndex,
    *,
    root_id: str | None = None,
    project: str | None = None,
    max_depth: int | None = None,
    exclude_status: Sequence[str] = (),
    max_nodes: int = TREE_NODES_LIMIT,
) -> list[TreeNode]:
    """The parent tree under `root_id`, or of a project, or of the whole graph.

    `max_depth` counts levels below each root (0: the roots alone; at most
    `TREE_DEPTH_LIMIT`). A task whose status is in `exclude_status` is left out with its
    subtree (an explicit `root_id` is always shown). Tasks on a parent cycle have no root
    and appear only under an explicit `root_id`. At most `max_nodes` nodes are shown, level
    by level from the roots; a node whose children were cut (by depth or size) counts them
    in `children_not_shown`.

    >>> from storage.model import Task, pack_text
    >>> index = TaskIndex.build([Task(id="p", title="P", path="p.md"),
    ...                          Task(id="a", title="A", path="a.md", parent="p")])
    >>> [(n.id, [c.id for c in n.children]) for n in tree(index)]
    [('p', ['a'])]
    """
    if max_depth is not None and not 0 <= max_depth <= TREE_DEPTH_LIMIT:
        raise InvalidArgument("max_depth", f"must be 0 to {TREE_DEPTH_LIMIT}, got {max_depth}")
    if max_nodes < 1:
        raise InvalidArgument("max_nodes", f"must be >= 1, got {max_nodes}")
    excluded = {normalise_status(s) for s in exclude_status}
    roots = [
        r
        for r in _roots(index, root_id, project)
        if r == root_id or index.require(r).status not in excluded
    ][:max_nodes]
    depth = TREE_DEPTH_LIMIT if max_depth is None else max_depth
    order, shown, cut = _walk(index, roots, _Bounds(depth, max_nodes), excluded)
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
            children_not_shown=cut.get(task_id, 0),
        )
    return [built[r] for r in roots]


def tree_roots_not_shown(
    index: TaskIndex, *, root_id: str | None, project: str | None, max_nodes: int
) -> int:
    """How many top-level tasks `tree` leaves out for its size cap (more roots than nodes)."""
    return max(0, len(_roots(index, root_id, project)) - max_nodes)


def render_ascii(nodes: Sequence[TreeNode]) -> str:
    """The trees as text, one task a line: `id [status] title`, with box-drawing branches.

    >>> leaf = TreeNode(id="a", title="A", type="task", status="done", priority=2, children=[])
    >>> print(render_ascii([TreeNode(id="p", title="P", type="epic", status="active",
    ...                              priority=1, children=[leaf])]))
    p [active] P
    └── a [done] A
    """
    lines: list[str] = []
    stack: list[tuple[TreeNode | str, str, str]] = [(n, "", "") for n in reversed(nodes)]
    while stack:
        node, lead, prefix = stack.pop()
        if isinstance(node, str):
            lines.append(lead + node)
            continue
        lines.append(f"{lead}{node.id} [{node.status}] {node.title}")
        below: list[TreeNode | str] = list(node.children)
        if node.children_not_shown:
            below.append(f"… {node.children_not_shown} more not shown (the tree under {node.id})")
        last = len(below) - 1
        for position, child in reversed(list(enumerate(below))):
            branch, carry = ("└── ", "    ") if position == last else ("├── ", "│   ")
            stack.append((child, prefix + branch, prefix + carry))
    return "\n".join(lines)
