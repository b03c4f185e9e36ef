"""Ready, blocked, review and in-progress lists on the sample tree."""

from __future__ import annotations

from graph.readiness import blocked_tasks, in_progress_tasks, ready_tasks, review_tasks
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
