"""The review snapshot with a fixed `now`: windows, staleness and velocity by hand."""

from __future__ import annotations

import pytest

from graph.errors import InvalidArgument
from graph.index import TaskIndex
from graph.metrics import graph_metrics
from graph.review import review_snapshot
from graph.signals import structural_signals
from tests.graph.builders import NOW, days_ago, index_of, task


def timeline() -> TaskIndex:
    old = days_ago(30)
    return index_of(
        task("a", created=days_ago(1), modified=days_ago(1)),
        task("b", status="done", created=days_ago(10), modified=days_ago(5), completed=days_ago(2)),
        task("c", deps=["b"], created=old, modified=days_ago(8)),
        task("d", status="in_progress", created=old, modified=days_ago(4)),
        task("e", status="in_progress", created=old, modified=days_ago(9)),
        task("f", status="done", created=old, modified=days_ago(8), completed=days_ago(8)),
        task("g", status="inbox", created=days_ago(3)),
    )


def test_changes_since_list_the_tasks_at_or_after_the_cutoff() -> None:
    changes = review_snapshot(timeline(), since_days=3, now=NOW).changes_since
    assert changes.tasks_created == ["a", "g"]
    assert changes.tasks_completed == ["b"]
    assert changes.tasks_modified == ["a"]


def test_staleness_names_the_longest_ready_and_the_longest_in_progress() -> None:
    staleness = review_snapshot(timeline(), since_days=1, now=NOW).staleness
    assert staleness.oldest_ready_task is not None
    assert (staleness.oldest_ready_task.task, staleness.oldest_ready_task.days_ready) == (
        "c",
        2.0,
    )
    assert staleness.oldest_in_progress is not None
    assert (
        staleness.oldest_in_progress.task,
        staleness.oldest_in_progress.days_in_progress,
    ) == (
        "e",
        9.0,
    )


def test_staleness_entries_are_seed_004s_task_and_days() -> None:
    staleness = review_snapshot(timeline(), since_days=1, now=NOW).staleness
    dumped = staleness.model_dump()
    assert dumped["oldest_ready_task"] == {"task": "c", "days_ready": 2.0}
    assert dumped["oldest_in_progress"] == {"task": "e", "days_in_progress": 9.0}


def test_velocity_counts_the_last_seven_days() -> None:
    velocity = review_snapshot(timeline(), since_days=1, now=NOW).velocity
    assert (velocity.completed_last_7_days, velocity.created_last_7_days) == (1, 2)


def test_the_snapshot_embeds_metrics_and_signals_of_the_whole_graph() -> None:
    index = timeline()
    snap = review_snapshot(index, since_days=0, now=NOW)
    assert snap.timestamp == NOW
    assert snap.metrics == graph_metrics(index)
    assert snap.signals == structural_signals(index)
    assert snap.changes_since.tasks_created == []


def test_nothing_waiting_gives_null_staleness() -> None:
    staleness = review_snapshot(index_of(task("x", status="done")), since_days=1, now=NOW).staleness
    assert (staleness.oldest_ready_task, staleness.oldest_in_progress) == (None, None)


def test_a_negative_window_is_an_invalid_argument() -> None:
    with pytest.raises(InvalidArgument) as caught:
        review_snapshot(timeline(), since_days=-1, now=NOW)
    assert caught.value.name == "since_days"
