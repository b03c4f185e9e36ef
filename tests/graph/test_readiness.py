"""Ready, blocked, review and in-progress lists on the sample tree."""

from __future__ import annotations

from datetime import UTC, datetime

from graph.index import TaskIndex
from graph.readiness import (
    blocked_ids,
    blocked_or_deferred_ids,
    blocked_tasks,
    deferred_ids,
    in_progress_tasks,
    ready_tasks,
    review_tasks,
)
from tests.graph.builders import index_of, sample_tree, task


def test_ready_tasks_are_listed_in_task_order() -> None:
    assert ready_tasks(sample_tree()) == ["o", "t2"]


def test_ready_tasks_of_one_project() -> None:
    assert ready_tasks(sample_tree(), project="alpha") == ["t2"]
    assert ready_tasks(sample_tree(), project="nope") == []


def test_blocked_tasks_carry_every_reason() -> None:
    rows = {row.id: row.reasons for row in blocked_tasks(sample_tree())}
    assert list(rows) == ["s", "t3", "u"]
    assert rows["s"].unmet_dependencies == ["t2"]
    assert rows["t3"].status_blocked
    assert rows["t3"].unmet_dependencies == ["t2"]
    assert rows["t3"].dangling_dependencies == ["ghost"]
    assert rows["t3"].blocked_ancestor is None
    assert rows["u"].blocked_ancestor == "s"
    assert not rows["u"].unmet_dependencies


def test_blocked_tasks_of_one_project() -> None:
    assert [row.id for row in blocked_tasks(sample_tree(), project="beta")] == ["s", "u"]


def test_review_and_in_progress_tasks_are_listed_by_status() -> None:
    index = index_of(
        task("a", status="review", priority=3),
        task("b", status="review", priority=1, project="x"),
        task("c", status="in_progress"),
    )
    assert review_tasks(index) == ["b", "a"]
    assert review_tasks(index, project="x") == ["b"]
    assert in_progress_tasks(index) == ["c"]
    assert in_progress_tasks(sample_tree()) == ["s"]


NOW = datetime(2026, 6, 1, tzinfo=UTC)
AHEAD, PAST = {"defer_until": "2026-09-01"}, {"defer_until": "2026-01-01"}


def deferral_tree() -> TaskIndex:
    return index_of(
        task("blocked", status="blocked", priority=3),
        task("blocked-deferred", status="blocked", priority=1, extra=AHEAD),
        task("deferred", priority=2, extra=AHEAD),
        task("deferred-early", priority=0, extra=AHEAD),
        task("deferral-past", priority=0, extra=PAST),
        task("done-deferred", status="done", extra=AHEAD),
        task("ready", priority=2),
    )


def test_a_deferral_holds_back_only_the_tasks_it_names_while_it_is_ahead() -> None:
    index = deferral_tree()
    assert ready_tasks(index, now=NOW) == ["deferral-past", "ready"]
    assert blocked_ids(index, now=NOW) == ["blocked"]
    assert deferred_ids(index, NOW) == ["deferred-early", "blocked-deferred", "deferred"]
    assert deferred_ids(index, datetime(2027, 1, 1, tzinfo=UTC)) == []


def test_blocked_and_deferred_tasks_come_merged_in_the_task_order() -> None:
    index = deferral_tree()
    everything = set(blocked_ids(index)) | set(deferred_ids(index, NOW))
    assert blocked_or_deferred_ids(index, NOW) == index.sorted_ids(everything)
    assert blocked_or_deferred_ids(index, NOW) == [
        "deferred-early",
        "blocked-deferred",
        "deferred",
        "blocked",
    ]
