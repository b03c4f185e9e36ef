"""Query tier: raw facts for an agent's own judgement. No thresholds, no ranking.

Return keys are only ever added, never renamed; a result that names a task carries its
task view; long lists are paged (see docs/architecture.md).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Generic, TypeVar

from pydantic import Field, WithJsonSchema

from graph import metrics, review, topology
from graph.metrics import GraphMetrics
from graph.review import Staleness, Velocity
from graph.sections import Sections
from graph.topology import ScoringFactors, TopologyRow
from tasks_server.context import ServerContext
from tasks_server.filters import STATUS_FILTER
from tasks_server.guidance import guide
from tasks_server.listing import Limit, Listing, PageArgs
from tasks_server.models import (
    MAX_SINCE_DAYS,
    Count,
    Envelope,
    IdArg,
    Input,
    PageInfo,
    Part,
    ProjectArg,
    Unset,
)
from tasks_server.registry import tool
from tasks_server.sync import SyncStatus
from tasks_server.tools.changes import review_changes
from tasks_server.tools.structure import SignalsPage, signals_listing
from tasks_server.views import TaskBrief


class GetGraphMetricsInput(Input):
    scope: IdArg = Field(
        "all",
        description="all, project, subtree, or a task id (its subtree).",
    )
    scope_id: IdArg | Unset = Field(None, description="The project or task id the scope names.")
    top: int = Field(10, ge=0, le=100, description="Top out-degree tasks listed.")


class GetGraphMetricsOutput(Envelope, GraphMetrics):
    pass


@tool("query", read_only=True, idempotent=True)
def get_graph_metrics(ctx: ServerContext, args: GetGraphMetricsInput) -> GetGraphMetricsOutput:
    """Counts, roots, leaves, orphans, depths, degrees, readiness; you judge."""
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


class GetTaskScoringFactorsInput(PageArgs):
    ready_only: bool = Field(True, description="Only ready tasks.")
    include_done: bool = Field(False, description="Also done and cancelled tasks.")
    project: ProjectArg | Unset = Field(None, description="Only this project.")
    limit: Limit = 50


class GetTaskScoringFactorsOutput(PageInfo):
    tasks: list[ScoringFactors] = Field(description="Raw factors per task; rank them yourself.")


@tool("query", read_only=True, idempotent=True)
def get_task_scoring_factors(
    ctx: ServerContext, args: GetTaskScoringFactorsInput
) -> Listing[GetTaskScoringFactorsOutput]:
    """Per task: ages, degrees, depth, body length, criteria; you score."""
    index = ctx.index
    ids = topology.scoring_ids(index, ready_only=args.ready_only, include_done=args.include_done)
    if args.project is not None:
        ids = [i for i in ids if index.require(i).project == args.project]

    def rows(page: Sequence[str]) -> list[ScoringFactors]:
        return [topology.task_factors(index, index.require(i), ctx.clock()) for i in page]

    return Listing(
        Sections({"tasks": ids}),
        guide(
            "factors_listed",
            "Rank these yourself, then call get_task on your pick",
            ["get_task", "get_task_neighborhood"],
        ),
        rows=rows,
    )


class GetTasksWithTopologyInput(PageArgs):
    project: ProjectArg | Unset = Field(None, description="Only this project.")
    status: str | Unset = Field(None, description=STATUS_FILTER)
    min_depth: Count | Unset = Field(None, description="Only tasks at least this deep.")
    min_blocking_count: Count | Unset = Field(
        None, description="Only tasks blocking at least this many."
    )
    limit: Limit = 100


class GetTasksWithTopologyOutput(PageInfo):
    tasks: list[TopologyRow] = Field(description="Tasks with their topology metrics.")


@tool("query", read_only=True, idempotent=True)
def get_tasks_with_topology(
    ctx: ServerContext, args: GetTasksWithTopologyInput
) -> Listing[GetTasksWithTopologyOutput]:
    """Tasks with depth, child and blocking counts, leaf flag and ready_days."""
    index = ctx.index

    def rows(page: Sequence[str]) -> list[TopologyRow]:
        return [topology.topology_row(index, index.require(i), ctx.clock()) for i in page]

    return Listing(
        Sections({"tasks": topology.topology_ids(index, **args.selection())}),
        guide(
            "topology_listed",
            "Apply your thresholds, then call get_task_neighborhood",
            ["get_task_neighborhood", "update_task"],
        ),
        rows=rows,
    )


class GetReviewSnapshotInput(PageArgs):
    since_days: float = Field(
        1, ge=0, le=MAX_SINCE_DAYS, description="Window for changes_since, in days."
    )


Item = TypeVar("Item")


class ChangesSincePage(Part, Generic[Item]):
    """changes_since's lists (graph.review.ChangesSince) paged as one sequence, as the briefs
    the result carries."""

    tasks_created: list[Item] = Field(description="Created in the window (this page).")
    tasks_created_total: int = Field(description="Created in the window, all pages.")
    tasks_completed: list[Item] = Field(description="Completed in the window (this page).")
    tasks_completed_total: int = Field(description="Completed in the window, all pages.")
    tasks_modified: list[Item] = Field(description="Modified in the window (this page).")
    tasks_modified_total: int = Field(description="Modified in the window, all pages.")


class ReadyLongest(Part):
    """Seed 004's `{task, days_ready}`: the task that has been ready longest."""

    task: TaskBrief = Field(description="The task, in brief.")
    days_ready: float = Field(description="Days since it became ready.")


class InProgressLongest(Part):
    """`{task, days_in_progress}`: the in-progress task modified longest ago."""

    task: TaskBrief = Field(description="The task, in brief.")
    days_in_progress: float = Field(description="Days since its last modification.")


class StalenessView(Part):
    """The longest waits (graph.review.Staleness), each with its task in brief; null when no
    task qualifies (or none has the timestamp)."""

    oldest_ready_task: ReadyLongest | None = Field(description="Longest-ready task.")
    oldest_in_progress: InProgressLongest | None = Field(description="Oldest in-progress task.")


def _staleness(ctx: ServerContext, found: Staleness) -> StalenessView:
    ready, busy = found.oldest_ready_task, found.oldest_in_progress
    return StalenessView(
        oldest_ready_task=ready
        and ReadyLongest(task=ctx.briefs([ready.task])[0], days_ready=ready.days_ready),
        oldest_in_progress=busy
        and InProgressLongest(
            task=ctx.briefs([busy.task])[0], days_in_progress=busy.days_in_progress
        ),
    )


AS_PUBLISHED_ELSEWHERE = WithJsonSchema({"type": "object"})
"""A part of a result that another tool returns whole is typed once, in that tool's schema
(a schema cannot refer to another tool's), and is a plain object here."""


class GetReviewSnapshotOutput(Envelope):
    timestamp: datetime = Field(description="When the snapshot was taken (UTC).")
    metrics: Annotated[GraphMetrics, AS_PUBLISHED_ELSEWHERE] = Field(
        description="What get_graph_metrics returns for the whole tree."
    )
    signals: Annotated[SignalsPage, AS_PUBLISHED_ELSEWHERE] = Field(
        description="The first page of get_structural_signals (same limit), with totals."
    )
    changes_since: ChangesSincePage[TaskBrief]
    staleness: StalenessView
    velocity: Velocity
    next_cursor: str | None = Field(
        description="Pass as cursor for the next page of changes_since; null when done."
    )


@tool("query", read_only=True, idempotent=True)
def get_review_snapshot(
    ctx: ServerContext, args: GetReviewSnapshotInput
) -> Listing[GetReviewSnapshotOutput]:
    """Metrics, signals, changes, staleness and velocity, for a review."""
    since, base = review_changes(ctx, args.since_days)
    found = review.review_snapshot(
        ctx.index, since_days=args.since_days, now=ctx.clock(), changes=since
    )
    facts = {
        "timestamp": found.timestamp,
        "metrics": found.metrics,
        "signals": signals_listing(ctx, found.signals),
        "staleness": _staleness(ctx, found.staleness),
        "velocity": found.velocity,
    }
    return Listing(
        Sections(dict(found.changes_since), facts),
        guide(
            "review_ready",
            "Write the review; call get_blocked_tasks for detail",
            ["get_blocked_tasks", "get_structural_signals", "get_ready_tasks"],
        ),
        more="Call get_review_snapshot with cursor=next_cursor for the rest of changes_since",
        key=base,
    )


class GetIndexStatsInput(Input):
    pass


class LoadProblem(Part):
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
    token: str = Field(description="Names this state: since_token of get_changes.")
    load_seconds: float = Field(description="Time of the initial load.")
    index_age_seconds: float = Field(description="Seconds since the initial load.")
    last_refresh_files: int = Field(
        description="Files re-read by the last refresh that found changes."
    )
    last_refresh_seconds: float = Field(description="Time that refresh took.")
    watching: bool = Field(description="True when a file watcher keeps the index fresh.")
    sync: SyncStatus | None = Field(
        None, description="With serve --sync: the upstream, fetches, pushes, what was dropped."
    )


@tool("query", read_only=True, idempotent=True)
def get_index_stats(ctx: ServerContext, args: GetIndexStatsInput) -> GetIndexStatsOutput:
    """Index counts, root, load problems, age and last refresh cost."""
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
        token=live.tokens.issue(live.feed.seq),
        load_seconds=round(live.load_seconds, 4),
        index_age_seconds=round(time.time() - live.loaded_at, 1),
        last_refresh_files=live.last_refresh.files_read,
        last_refresh_seconds=round(live.last_refresh.seconds, 6),
        watching=live.watching,
        sync=ctx.sync.status() if ctx.sync is not None else None,
        guidance=guide(
            "index_has_problems" if problems else "index_clean",
            "Call get_structural_signals to see them" if problems else "Call get_graph_metrics",
            ["get_structural_signals", "get_graph_metrics"],
            warnings=[f"{len(problems)} file(s) could not be loaded"] if problems else None,
        ),
    )
    return result
