"""Query tier, seed 004: raw facts for an agent's own judgement. No thresholds, no ranking.

The return keys are the ones seed 004 lists (extended, never renamed). Where the seed says
"task" the result carries a task view; long lists are paged.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Generic, TypeVar

from pydantic import BaseModel, Field

from graph import metrics, review, topology
from graph.metrics import GraphMetrics
from graph.review import Staleness, Velocity
from graph.topology import ScoringFactors, TopologyRow
from graph.windowing import window_named
from tasks_server.context import ServerContext
from tasks_server.guidance import guide
from tasks_server.models import MAX_SINCE_DAYS, Envelope, IdArg, Input, PageInfo
from tasks_server.paging import Window
from tasks_server.registry import tool
from tasks_server.tools.changes import review_changes
from tasks_server.tools.structure import SignalsPage, signals_page
from tasks_server.views import TaskBrief

LIMIT = Field(100, ge=1, le=1000, description="Page size for long lists.")
CURSOR = Field(None, description="next_cursor from the previous page.")


class GetGraphMetricsInput(Input):
    scope: IdArg = Field(
        "all",
        description="What to count: all, project, subtree, or a task id (that task's subtree).",
    )
    scope_id: IdArg | None = Field(
        None, description="Project name (project) or task id (subtree); not taken otherwise."
    )
    top: int = Field(10, ge=0, le=100, description="How many highest out-degree tasks to list.")


class GetGraphMetricsOutput(Envelope, GraphMetrics):
    pass


@tool("query", read_only=True, idempotent=True)
def get_graph_metrics(ctx: ServerContext, args: GetGraphMetricsInput) -> GetGraphMetricsOutput:
    """Raw graph metrics: counts by status and type, roots, leaves, orphans, depths,
    dependency degrees, readiness counts. You judge what is healthy."""
    found = metrics.graph_metrics(ctx.index, args.scope, args.scope_id, top=args.top)
    ready = found.readiness_stats.ready_count
    return GetGraphMetricsOutput(
        **found.model_dump(),
        guidance=guide(
            "graph_measured",
            "Call get_ready_tasks to pick work" if ready else "Call get_blocked_tasks",
            [
                "get_ready_tasks",
                "get_blocked_tasks",
                "get_tasks_with_topology",
                "get_structural_signals",
            ],
        ),
    )


class GetTaskScoringFactorsInput(Input):
    ready_only: bool = Field(True, description="Only tasks that are ready now.")
    include_done: bool = Field(False, description="Include done and cancelled tasks.")
    project: IdArg | None = Field(None, description="Only this project.")
    limit: int = LIMIT
    cursor: str | None = CURSOR


class GetTaskScoringFactorsOutput(PageInfo):
    tasks: list[ScoringFactors] = Field(description="Raw factors per task; rank them yourself.")


@tool("query", read_only=True, idempotent=True)
def get_task_scoring_factors(
    ctx: ServerContext, args: GetTaskScoringFactorsInput
) -> GetTaskScoringFactorsOutput:
    """Per task: ages, degrees, depth, body length, acceptance criteria. You compute value."""
    query = ("scoring", args.ready_only, args.include_done, args.project)
    index = ctx.index
    ids = topology.scoring_ids(index, ready_only=args.ready_only, include_done=args.include_done)
    if args.project is not None:
        ids = [i for i in ids if index.require(i).project == args.project]
    page = ctx.cut(ids, limit=args.limit, cursor=args.cursor, query=query)
    rows = [topology.task_factors(index, index.require(i), ctx.clock()) for i in page.items]
    return GetTaskScoringFactorsOutput.of(
        rows,
        page,
        guide(
            "factors_listed",
            "Rank these yourself, then call get_task on your pick",
            ["get_task", "get_task_neighborhood"],
        ),
    )


class GetTasksWithTopologyInput(Input):
    project: IdArg | None = Field(None, description="Only this project.")
    status: str | None = Field(None, description="Only this status.")
    min_depth: int | None = Field(None, ge=0, description="Only tasks at least this deep.")
    min_blocking_count: int | None = Field(
        None, ge=0, description="Only tasks blocking at least this many."
    )
    limit: int = LIMIT
    cursor: str | None = CURSOR


class GetTasksWithTopologyOutput(PageInfo):
    tasks: list[TopologyRow] = Field(description="Tasks with their topology metrics.")


@tool("query", read_only=True, idempotent=True)
def get_tasks_with_topology(
    ctx: ServerContext, args: GetTasksWithTopologyInput
) -> GetTasksWithTopologyOutput:
    """Tasks with depth, child count, blocking counts, leaf flag, ready_days. Pass your own
    thresholds (min_depth, min_blocking_count)."""
    filters = args.model_dump(exclude={"limit", "cursor"})
    index = ctx.index
    ids = topology.topology_ids(index, **filters)
    page = ctx.cut(ids, limit=args.limit, cursor=args.cursor, query=("topology", filters))
    rows = [topology.topology_row(index, index.require(i), ctx.clock()) for i in page.items]
    return GetTasksWithTopologyOutput.of(
        rows,
        page,
        guide(
            "topology_listed",
            "Apply your thresholds, then call get_task_neighborhood",
            ["get_task_neighborhood", "update_task"],
        ),
    )


class GetReviewSnapshotInput(Input):
    since_days: float = Field(
        1, ge=0, le=MAX_SINCE_DAYS, description="Window for changes_since, in days."
    )
    limit: int = Field(
        50,
        ge=1,
        le=1000,
        description="Page size: at most this many tasks in changes_since, and signals.",
    )
    cursor: str | None = Field(None, description="next_cursor from the previous page.")


Item = TypeVar("Item")


class ChangesSincePage(BaseModel, Generic[Item]):
    """changes_since's lists (graph.review.ChangesSince) paged as one sequence: over ids,
    then (`ChangesSincePage[TaskBrief]`) as the briefs the result carries."""

    tasks_created: list[Item] = Field(description="Created in the window (this page).")
    tasks_created_total: int = Field(description="Created in the window, all pages.")
    tasks_completed: list[Item] = Field(description="Completed in the window (this page).")
    tasks_completed_total: int = Field(description="Completed in the window, all pages.")
    tasks_modified: list[Item] = Field(description="Modified in the window (this page).")
    tasks_modified_total: int = Field(description="Modified in the window, all pages.")


class GetReviewSnapshotOutput(Envelope):
    timestamp: datetime = Field(description="When the snapshot was taken (UTC).")
    metrics: GraphMetrics
    signals: SignalsPage = Field(
        description="The first page of get_structural_signals (same limit), with totals."
    )
    changes_since: ChangesSincePage[TaskBrief]
    staleness: Staleness
    velocity: Velocity
    next_cursor: str | None = Field(
        description="Pass as cursor for the next page of changes_since; null when done."
    )


def _changes_page(
    ctx: ServerContext, changes: review.ChangesSince, window: Window
) -> tuple[ChangesSincePage[TaskBrief], str | None]:
    """changes_since's three lists paged as one sequence: created, completed, modified."""
    windowed = window_named(dict(changes), window.offset, window.limit)
    found = ChangesSincePage[str](**windowed.fields())
    return ctx.expand(ChangesSincePage[TaskBrief], found), window.next_cursor(windowed.total)


@tool("query", read_only=True, idempotent=True)
def get_review_snapshot(
    ctx: ServerContext, args: GetReviewSnapshotInput
) -> GetReviewSnapshotOutput:
    """Everything for a periodic review: metrics, signals, changes since N days (paged;
    from git when the tree is in git, else from frontmatter and file times, so an editor's
    save counts), staleness, 7-day velocity. You write the report."""
    since, base = review_changes(ctx, args.since_days)
    found = review.review_snapshot(
        ctx.index, since_days=args.since_days, now=ctx.clock(), changes=since
    )
    query = ("review", args.since_days, base)
    window = ctx.window(limit=args.limit, cursor=args.cursor, query=query)
    changes, next_cursor = _changes_page(ctx, found.changes_since, window)
    more = "Call get_review_snapshot with cursor=next_cursor for the rest of changes_since"
    result = GetReviewSnapshotOutput(
        timestamp=found.timestamp,
        metrics=found.metrics,
        signals=signals_page(ctx, found.signals, offset=0, limit=args.limit)[0],
        changes_since=changes,
        staleness=found.staleness,
        velocity=found.velocity,
        next_cursor=next_cursor,
        guidance=guide(
            "review_ready",
            more if next_cursor else "Write the review; call get_blocked_tasks for detail",
            ["get_blocked_tasks", "get_structural_signals", "get_ready_tasks"],
        ),
    )
    return result


class GetIndexStatsInput(Input):
    pass


class LoadProblem(BaseModel):
    path: str = Field(description="File path under the root.")
    kind: str = Field(
        description="parse_error, not_utf8, too_large, duplicate_id, unsafe_path, unreadable."
    )
    message: str = Field(description="What is wrong.")


class GetIndexStatsOutput(Envelope):
    root: str = Field(description="The task root being served.")
    tasks: int = Field(description="Tasks in the index.")
    files: int = Field(description="Markdown files read.")
    not_tasks: int = Field(description="Markdown files without a title (left alone).")
    problems: list[LoadProblem] = Field(description="Files that could not be used, and why.")
    generation: int = Field(description="Increments whenever the index changes.")
    load_seconds: float = Field(description="Time of the initial load.")
    index_age_seconds: float = Field(description="Seconds since the initial load.")
    last_refresh_files: int = Field(
        description="Files re-read by the last refresh that found changes."
    )
    last_refresh_seconds: float = Field(description="Time that refresh took.")
    watching: bool = Field(description="True when a file watcher keeps the index fresh.")


@tool("query", read_only=True, idempotent=True)
def get_index_stats(ctx: ServerContext, args: GetIndexStatsInput) -> GetIndexStatsOutput:
    """Index counts, the root, load problems, index age and the cost of the last refresh."""
    live = ctx.live
    table = live.table
    problems = [LoadProblem(path=p.path, kind=p.kind, message=p.message) for p in table.problems()]
    result = GetIndexStatsOutput(
        root=str(live.root),
        tasks=len(live.index),
        files=len(table),
        not_tasks=len(table.not_tasks()),
        problems=problems,
        generation=live.generation,
        load_seconds=round(live.load_seconds, 4),
        index_age_seconds=round(time.time() - live.loaded_at, 1),
        last_refresh_files=live.last_refresh.files_read,
        last_refresh_seconds=round(live.last_refresh.seconds, 6),
        watching=live.watching,
        guidance=guide(
            "index_has_problems" if problems else "index_clean",
            "Call get_structural_signals to see them" if problems else "Call get_graph_metrics",
            ["get_structural_signals", "get_graph_metrics"],
            warnings=[f"{len(problems)} file(s) could not be loaded"] if problems else None,
        ),
    )
    return result
