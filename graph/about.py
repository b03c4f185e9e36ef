"""What the graph says about one task beyond its file, in one answer (`TaskIndex.about`).

A full task view shows the task's own fields and these: where it sits (depth, children,
dependents and the first of them by id), whether it is ready or blocked at a moment (a
deferral still ahead holds it back), and the claim its file holds, live or not at that
moment. A field added here under the name the view gives it shows in every full view
(`tasks_server/views.py` validates the view from the task and this answer).

>>> from datetime import UTC
>>> from graph.index import TaskIndex
>>> from storage.model import Task
>>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", status="active"),
...                          Task(id="b", title="B", path="b.md", depends_on=("a",))])
>>> answer = index.about("a", datetime(2026, 1, 1, tzinfo=UTC), shown=50)
>>> answer.is_ready, answer.blocks, answer.claimed_by
(True, ('b',), None)
>>> _ = index.apply([Task(id="a", title="A", path="a.md", status="active",
...                       extra={"defer_until": "2026-02-01"})])
>>> index.about("a", datetime(2026, 1, 1, tzinfo=UTC), shown=50).is_ready
False
>>> index.about("a", datetime(2026, 3, 1, tzinfo=UTC), shown=50).is_ready
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graph._records import Record
from graph.chains import ChainFacts
from graph.claims import claim_of, deferred_until
from graph.facts import BlockedReasons
from storage.model import Task

__all__ = ["TaskAbout", "task_about"]


@dataclass(frozen=True, slots=True)
class TaskAbout:
    """One task as the graph sees it at a moment (the field names are the view's)."""

    depth: int | None
    child_count: int
    open_child_count: int
    is_leaf: bool
    is_ready: bool
    is_blocked: bool
    reasons: BlockedReasons
    blocking_count: int
    blocks: tuple[str, ...]
    deferred_until: datetime | None
    claimed_by: str | None
    claim_expires: datetime | None
    claim_live: bool | None
    claim_beyond_max_lease: bool | None
    dependency_chain_length: int
    unblocks_count: int
    unblocks_transitive_count: int


def task_about(
    task: Task,
    record: Record,
    reasons: BlockedReasons,
    blocks: Sequence[str],
    *,
    chain: ChainFacts,
    now: datetime,
) -> TaskAbout:
    """The answer for `task` from its index record, why it is blocked and the first tasks
    it blocks: a deferral still ahead at `now` makes it not ready; a claim shows whether
    its lease runs at `now`."""
    local = record.local
    until = deferred_until(task, now)
    claim = claim_of(task)
    return TaskAbout(
        depth=record.depth,
        child_count=local.child_count,
        open_child_count=local.open_child_count,
        is_leaf=local.is_leaf,
        is_ready=record.ready and until is None,
        is_blocked=record.blocked,
        reasons=reasons,
        blocking_count=local.blocking_count,
        blocks=tuple(blocks),
        deferred_until=until,
        claimed_by=claim.agent if claim is not None else None,
        claim_expires=claim.expires if claim is not None else None,
        claim_live=claim.is_live(now) if claim is not None else None,
        claim_beyond_max_lease=True if claim is not None and claim.beyond_max(now) else None,
        **chain._asdict(),
    )
