"""Small hand-made task trees for the graph tests, and a whole-index comparison."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from graph.index import TaskIndex
from graph.readiness import blocked_ids, in_progress_tasks, ready_tasks, review_tasks
from storage.model import Task, pack_text

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def task(task_id: str, **fields: Any) -> Task:
    """A task with a title and path made from its id; `deps` and `soft` as lists."""
    fields.setdefault("title", f"Task {task_id}")
    fields.setdefault("status", "active")
    if "deps" in fields:
        fields["depends_on"] = tuple(fields.pop("deps"))
    if "soft" in fields:
        fields["soft_depends_on"] = tuple(fields.pop("soft"))
    if "tags" in fields:
        fields["tags"] = tuple(fields["tags"])
    if "body" in fields:
        fields["packed_body"] = pack_text(fields.pop("body"))
    return Task(id=task_id, path=f"{task_id}.md", **fields)


def index_of(*tasks: Task) -> TaskIndex:
    return TaskIndex.build(tasks)


def state_of(index: TaskIndex) -> dict[str, Any]:
    """Everything the index answers, as plain data: equal states mean equal indexes."""
    tally = index.tally
    ids = index.ids()
    return {
        "ids": ids,
        "facts": {i: index.facts(i).model_dump() for i in ids},
        "records": {i: index.record(i) for i in ids},  # every rule's raw result, field by field
        "children": {i: index.children(i) for i in ids},
        "dependents": {i: index.dependents(i) for i in ids},
        "soft_dependents": {i: index.in_order("soft_depends_on", i)[:] for i in ids},
        "ancestors": {i: index.ancestors(i) for i in ids},
        "dependency_cycles": index.dependency_cycles(),
        "parent_cycles": index.parent_cycles(),
        "self_references": index.self_references(),
        "missing": {
            kind: {k: sorted(v) for k, v in sorted(index.missing_references(kind).items())}
            for kind in ("parent", "depends_on", "soft_depends_on")
        },
        "projects": {p: index.project_ids(p) for p in [*index.projects(), None]},
        "deferring": sorted(index.deferring()),
        "by_status": {k: sorted(v) for k, v in sorted(tally.by_status.items())},
        "by_type": dict(sorted(tally.by_type.items())),
        "sets": [
            sorted(s)
            for s in (
                tally.ready,
                tally.blocked,
                tally.roots,
                tally.orphans,
                tally.terminal_open,
            )
        ],
        "leaf_count": tally.leaf_count,
        "depths": dict(sorted(tally.depths.items())),
        "depth_sum": tally.depth_sum,
        "in_degrees": dict(sorted(tally.in_degrees.items())),
        "out_degrees": {k: sorted(v) for k, v in sorted(tally.out_degrees.items())},
        "edges": tally.edges,
        "dangling": tally.dangling,
        "ordered": [  # remembered between edits: an edit must forget them
            lister(index, project=project)
            for lister in (ready_tasks, blocked_ids, review_tasks, in_progress_tasks)
            for project in (None, "p1")
        ],
    }


def sample_tree() -> TaskIndex:
    """Two projects and a loose task; the counts are worked out in test_metrics.py.

    alpha:  r (project) ─ e (epic) ─┬ t1 done
                                    ├ t2 active, depends on t1
                                    └ t3 blocked, depends on t2 and a missing id
    beta:   s in_progress, depends on t2 ─ u inbox
    (none): o active
    """
    return index_of(
        task("r", type="project", project="alpha"),
        task("e", type="epic", parent="r", project="alpha"),
        task("t1", status="done", parent="e", project="alpha", completed=days_ago(2)),
        task(
            "t2",
            parent="e",
            deps=["t1"],
            project="alpha",
            tags=["api"],
            created=days_ago(10),
            modified=days_ago(3),
            body="Acceptance: it works.",
        ),
        task("t3", status="blocked", parent="e", deps=["t2", "ghost"], project="alpha"),
        task("s", status="in_progress", deps=["t2"], project="beta", modified=days_ago(6)),
        task("u", status="inbox", parent="s", project="beta"),
        task("o", soft=["t2"]),
    )
