"""Raw graph metrics (`get_graph_metrics`): counts, depths, degrees, readiness.

A scope is `all`, `project` (with `scope_id`, the project name) or `subtree` (with
`scope_id`, the root task's id); the short form, `scope` = a task id, is that task's
subtree (a keyword wins over a task with the same id: reach that one with `subtree`). A
`scope_id` where the scope takes none is refused, never ignored.

Scope `all` reads the counters the index keeps, so it costs the same at any size; `project`
and `subtree` count over their members. Every count uses the index's facts of each task (a
task in a subtree scope is a root only if it is a root of the whole graph).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import Literal, cast

from pydantic import BaseModel, Field

from graph._results import RESULT
from graph.errors import InvalidArgument, UnknownTask
from graph.index import TaskIndex
from storage.model import IN_PROGRESS_STATUS

__all__ = [
    "DependencyStats",
    "GraphMetrics",
    "OutDegree",
    "ReadinessStats",
    "Scope",
    "graph_metrics",
    "resolve_scope",
    "scoped_depths",
    "scoped_roots",
]

Scope = Literal["all", "project", "subtree"]
SCOPES: tuple[str, ...] = ("all", "project", "subtree")
_FROZEN = RESULT


class OutDegree(BaseModel):
    """A task and how many tasks depend on it."""

    model_config = _FROZEN

    id: str = Field(description="Task id.")
    title: str = Field(description="Task title.")
    out_degree: int = Field(description="Tasks whose depends_on names this task.")


class DependencyStats(BaseModel):
    """Degrees of the depends_on graph; an edge points from a dependency to its dependent."""

    model_config = _FROZEN

    total_edges: int = Field(description="depends_on entries over all tasks, dangling included.")
    dangling_edges: int = Field(description="depends_on entries naming an id no task has.")
    max_in_degree: int = Field(description="Most depends_on entries held by a single task.")
    max_out_degree: int = Field(description="Most tasks depending on a single task.")
    tasks_with_high_out_degree: list[OutDegree] = Field(
        description=(
            "The `top` tasks with the most dependents, most first, ties by id; tasks with"
            " none are left out. Raw counts: what is a bottleneck is for the reader to judge."
        )
    )


class ReadinessStats(BaseModel):
    """How many tasks are ready, blocked, in progress."""

    model_config = _FROZEN

    ready_count: int = Field(description="Active, not blocked, no open child.")
    blocked_count: int = Field(
        description="Not done/cancelled and blocked (status, dependency, cycle or ancestor)."
    )
    in_progress_count: int = Field(description="Status in_progress (counted apart from ready).")


class GraphMetrics(BaseModel):
    """Raw counts over the tasks in scope; interpretation is left to the reader."""

    model_config = _FROZEN

    scope: Scope = Field(
        description="all, project (scope_id = project name) or subtree (also when asked by id)."
    )
    scope_id: str | None = Field(description="Project name or subtree root id; null for all.")
    total_tasks: int = Field(description="Tasks in scope.")
    tasks_by_status: dict[str, int] = Field(description="Task count per status, by name.")
    tasks_by_type: dict[str, int] = Field(description="Task count per type, by name.")
    orphan_count: int = Field(description="Tasks with no parent and no depends_on.")
    root_count: int = Field(
        description="Roots of the scoped graph: tasks whose parent is none, no task, or a task"
        " outside the scope."
    )
    leaf_count: int = Field(description="Tasks with no child that is open.")
    max_depth: int = Field(
        description="Largest depth within the scope (parent hops to a root of the scoped"
        " graph); 0 if none."
    )
    avg_depth: float = Field(
        description="Mean depth within the scope over tasks that have one; 0.0 if none."
    )
    no_depth_count: int = Field(description="Tasks without a depth: on or under a parent cycle.")
    max_absolute_depth: int = Field(
        description="Largest depth in the whole graph (parent hops to a root of it) of a task"
        " in scope; 0 if none."
    )
    dependency_stats: DependencyStats = Field(description="Degrees of the depends_on graph.")
    readiness_stats: ReadinessStats = Field(description="Ready, blocked, in-progress counts.")


def resolve_scope(index: TaskIndex, scope: str, scope_id: str | None) -> tuple[Scope, str | None]:
    """`(scope, scope_id)` in the keyword form: the short form `scope` = a task id becomes
    `("subtree", id)`. A scope_id where the scope takes none, or none where it needs one,
    is an `InvalidArgument`.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md")])
    >>> resolve_scope(index, "a", None), resolve_scope(index, "all", None)
    (('subtree', 'a'), ('all', None))
    """
    if scope == "all" or (scope not in SCOPES and scope in index):
        if scope_id is not None:
            raise InvalidArgument("scope_id", f"not taken by scope {scope!r}, got {scope_id!r}")
        return ("all", None) if scope == "all" else ("subtree", scope)
    if scope not in SCOPES:
        keywords = ", ".join(SCOPES)
        raise InvalidArgument("scope", f"must be one of {keywords} or a task id, got {scope!r}")
    if scope_id is None:
        raise InvalidArgument("scope_id", f"required for scope {scope!r}")
    return cast(Scope, scope), scope_id


def _members(index: TaskIndex, scope: Scope, scope_id: str | None) -> Collection[str] | None:
    """The ids in a resolved scope (None for all); the project or subtree root must exist."""
    if scope_id is None:
        return None
    if scope == "project":
        members = index.project_members(scope_id)
        if not members:
            raise InvalidArgument("scope_id", f"no task has project {scope_id!r}")
        return members
    if scope_id not in index:
        raise UnknownTask(scope_id)
    return [scope_id, *index.descendants(scope_id)]


def _out_degrees(index: TaskIndex, pairs: list[tuple[int, str]]) -> list[OutDegree]:
    return [
        OutDegree(id=task_id, title=index.require(task_id).title, out_degree=count)
        for count, task_id in pairs
    ]


def _all_metrics(index: TaskIndex, top: int) -> GraphMetrics:
    tally = index.tally
    depth_count = tally.depth_count()
    return GraphMetrics(
        scope="all",
        scope_id=None,
        total_tasks=len(index),
        tasks_by_status={k: len(v) for k, v in sorted(tally.by_status.items())},
        tasks_by_type=dict(sorted(tally.by_type.items())),
        orphan_count=len(tally.orphans),
        root_count=len(tally.roots),
        leaf_count=tally.leaf_count,
        max_depth=tally.max_depth(),
        avg_depth=tally.depth_sum / depth_count if depth_count else 0.0,
        no_depth_count=len(index) - depth_count,
        max_absolute_depth=tally.max_depth(),
        dependency_stats=DependencyStats(
            total_edges=tally.edges,
            dangling_edges=tally.dangling,
            max_in_degree=tally.max_in_degree(),
            max_out_degree=tally.max_out_degree(),
            tasks_with_high_out_degree=_out_degrees(index, tally.top_out_degree(top)),
        ),
        readiness_stats=ReadinessStats(
            ready_count=len(tally.ready),
            blocked_count=len(tally.blocked),
            in_progress_count=tally.in_progress_count(),
        ),
    )


def _dependency_stats(index: TaskIndex, members: Collection[str], top: int) -> DependencyStats:
    locals_ = [(task_id, index.record(task_id).local) for task_id in members]
    ranked = sorted(
        (-loc.blocking_count, task_id) for task_id, loc in locals_ if loc.blocking_count
    )
    return DependencyStats(
        total_edges=sum(loc.blocked_by_count for _, loc in locals_),
        dangling_edges=sum(loc.dangling_count for _, loc in locals_),
        max_in_degree=max((loc.blocked_by_count for _, loc in locals_), default=0),
        max_out_degree=max((loc.blocking_count for _, loc in locals_), default=0),
        tasks_with_high_out_degree=_out_degrees(index, [(-c, i) for c, i in ranked[:top]]),
    )


def scoped_roots(index: TaskIndex, members: Collection[str]) -> list[str]:
    """The members whose parent is none, no task, or not a member: the scoped graph's roots.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md"),
    ...                          Task(id="b", title="B", path="b.md", parent="a")])
    >>> scoped_roots(index, ["b"]), scoped_roots(index, ["a", "b"])
    (['b'], ['a'])
    """
    inside = set(members)
    return [m for m in members if index.require(m).parent not in inside]


def scoped_depths(index: TaskIndex, members: Collection[str]) -> dict[str, int]:
    """Parent hops from each member to a root of the scoped graph (0 at one); a member on
    or under a parent cycle has none. Linear: each member is walked once."""
    depths = dict.fromkeys(scoped_roots(index, members), 0)
    for task_id in members:
        if index.record(task_id).depth is None:
            continue  # on or under a parent cycle
        chain, current = [], task_id
        while current not in depths:  # a member below a root: its parent is a member
            chain.append(current)
            current = cast(str, index.require(current).parent)
        depths.update((node, depths[current] + n) for n, node in enumerate(reversed(chain), 1))
    return {task_id: depths[task_id] for task_id in members if task_id in depths}


def _scoped_metrics(
    index: TaskIndex, scope: Scope, scope_id: str, members: Collection[str], top: int
) -> GraphMetrics:
    records = [index.record(task_id) for task_id in members]
    absolute = [r.depth for r in records if r.depth is not None]
    depths = list(scoped_depths(index, members).values())
    return GraphMetrics(
        scope=scope,
        scope_id=scope_id,
        total_tasks=len(records),
        tasks_by_status=dict(sorted(Counter(r.local.status for r in records).items())),
        tasks_by_type=dict(sorted(Counter(r.local.type for r in records).items())),
        orphan_count=sum(r.local.is_orphan for r in records),
        root_count=len(scoped_roots(index, members)),
        leaf_count=sum(r.local.is_leaf for r in records),
        max_depth=max(depths, default=0),
        avg_depth=sum(depths) / len(depths) if depths else 0.0,
        no_depth_count=len(records) - len(depths),
        max_absolute_depth=max(absolute, default=0),
        dependency_stats=_dependency_stats(index, members, top),
        readiness_stats=ReadinessStats(
            ready_count=sum(r.ready for r in records),
            blocked_count=sum(r.blocked for r in records),
            in_progress_count=sum(r.local.status == IN_PROGRESS_STATUS for r in records),
        ),
    )


def graph_metrics(
    index: TaskIndex, scope: str = "all", scope_id: str | None = None, *, top: int = 10
) -> GraphMetrics:
    """Raw metrics of the whole graph, one project, or one task and its descendants (scope
    `subtree` with scope_id, or the short form scope = the task id).

        `top` is how many tasks `tasks_with_high_out_degree` lists (the ones with the most
        dependents): a length, not a threshold.

        >>> from storage.model import Task
        >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="active"),
        ...                          Task(id="b", title="B", path="b.md", depends_on=("a",))])
        >>> m = graph_metrics(index)
        >>> m.total_tasks, m.orphan_count, m.dependency_stats.max_out_degree
        (2, 1, 1)
    """
    if top < 0:
        raise InvalidArgument("top", f"must be >= 0, got {top}")
    scope, scope_id = resolve_scope(index, scope, scope_id)
    members = _members(index, scope, scope_id)
    if members is None or scope_id is None:
        return _all_metrics(index, top)
    return _scoped_metrics(index, scope, scope_id, members, top)
