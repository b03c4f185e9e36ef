"""graph_metrics on the sample tree of builders.py, counted by hand per scope."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graph.errors import InvalidArgument, UnknownTask
from graph.metrics import graph_metrics
from tests.graph.builders import index_of, sample_tree, task


def test_metrics_of_the_whole_graph_match_a_hand_count() -> None:
    m = graph_metrics(sample_tree())
    assert (m.scope, m.scope_id, m.total_tasks) == ("all", None, 8)
    assert m.tasks_by_status == {"active": 4, "blocked": 1, "done": 1, "in_progress": 1, "inbox": 1}
    assert m.tasks_by_type == {"epic": 1, "project": 1, "task": 6}
    assert (m.orphan_count, m.root_count, m.leaf_count) == (2, 3, 5)
    assert (m.max_depth, m.avg_depth, m.no_depth_count) == (2, 1.0, 0)
    deps = m.dependency_stats
    assert (deps.total_edges, deps.dangling_edges) == (4, 1)
    assert (deps.max_in_degree, deps.max_out_degree) == (2, 2)
    assert [(t.id, t.out_degree) for t in deps.tasks_with_high_out_degree] == [("t2", 2), ("t1", 1)]
    ready = m.readiness_stats
    assert (ready.ready_count, ready.blocked_count, ready.in_progress_count) == (2, 3, 1)


def test_metrics_of_a_project_count_its_members_only() -> None:
    m = graph_metrics(sample_tree(), "project", "alpha")
    assert (m.scope, m.scope_id, m.total_tasks) == ("project", "alpha", 5)
    assert m.tasks_by_status == {"active": 3, "blocked": 1, "done": 1}
    assert (m.orphan_count, m.root_count, m.leaf_count) == (1, 1, 3)
    assert (m.max_depth, m.avg_depth) == (2, 1.4)
    deps = m.dependency_stats
    assert (deps.total_edges, deps.dangling_edges, deps.max_in_degree, deps.max_out_degree) == (
        3,
        1,
        2,
        2,
    )
    assert [t.id for t in deps.tasks_with_high_out_degree] == ["t2", "t1"]
    assert (m.readiness_stats.ready_count, m.readiness_stats.blocked_count) == (1, 1)


def test_metrics_of_a_subtree_count_the_task_and_its_descendants() -> None:
    m = graph_metrics(sample_tree(), "subtree", "s")
    assert m.total_tasks == 2
    assert m.tasks_by_status == {"in_progress": 1, "inbox": 1}
    assert (m.orphan_count, m.root_count, m.leaf_count, m.max_depth, m.avg_depth) == (
        0,
        1,
        1,
        1,
        0.5,
    )
    assert m.dependency_stats.tasks_with_high_out_degree == []
    ready = m.readiness_stats
    assert (ready.ready_count, ready.blocked_count, ready.in_progress_count) == (0, 2, 1)


def test_top_limits_the_out_degree_list() -> None:
    m = graph_metrics(sample_tree(), top=1)
    assert [t.id for t in m.dependency_stats.tasks_with_high_out_degree] == ["t2"]
    assert graph_metrics(sample_tree(), top=0).dependency_stats.tasks_with_high_out_degree == []


def test_the_counters_follow_an_edit() -> None:
    index = sample_tree()
    index.apply([replace(index.require("t2"), status="done")])
    m = graph_metrics(index)
    assert (m.readiness_stats.ready_count, m.readiness_stats.blocked_count) == (1, 1)
    assert m.tasks_by_status["done"] == 2
    assert m == graph_metrics(type(index).build(index.tasks()))


@pytest.mark.parametrize(
    ("scope", "scope_id", "name"),
    [
        ("everything", None, "scope"),
        ("project", None, "scope_id"),
        ("subtree", None, "scope_id"),
        ("project", "nope", "scope_id"),
    ],
)
def test_a_bad_scope_is_an_invalid_argument(scope: str, scope_id: str | None, name: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        graph_metrics(sample_tree(), scope, scope_id)
    assert caught.value.name == name


def test_a_subtree_of_an_unknown_task_is_an_unknown_task() -> None:
    with pytest.raises(UnknownTask):
        graph_metrics(sample_tree(), "subtree", "nope")


def test_a_negative_top_is_an_invalid_argument() -> None:
    with pytest.raises(InvalidArgument):
        graph_metrics(sample_tree(), top=-1)


def test_a_task_id_as_the_scope_counts_its_subtree_as_seed_004_writes_it() -> None:
    index = sample_tree()
    m = graph_metrics(index, "e")
    assert (m.scope, m.scope_id, m.total_tasks) == ("subtree", "e", 4)
    assert m == graph_metrics(index, "subtree", "e")


def test_a_scope_keyword_wins_over_a_task_with_that_id() -> None:
    index = index_of(task("all"), task("x", parent="all"), task("y"))
    assert graph_metrics(index, "all").total_tasks == 3
    assert graph_metrics(index, "subtree", "all").total_tasks == 2


@pytest.mark.parametrize(("scope", "scope_id"), [("all", "alpha"), ("all", "e"), ("e", "r")])
def test_a_scope_id_where_the_scope_takes_none_is_an_invalid_argument(
    scope: str, scope_id: str
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        graph_metrics(sample_tree(), scope, scope_id)
    assert caught.value.name == "scope_id"


def test_a_scope_that_is_no_keyword_and_no_task_names_both_forms() -> None:
    with pytest.raises(InvalidArgument) as caught:
        graph_metrics(sample_tree(), "nope")
    assert caught.value.name == "scope"
    assert "task id" in caught.value.detail


def test_a_scoped_graph_has_its_own_roots_and_depths_measured_within_it() -> None:
    """Subtree e (depth 1 in the whole graph): e is the scope's one root at depth 0, its
    children at 1; the absolute depth stays in max_absolute_depth."""
    m = graph_metrics(sample_tree(), "subtree", "e")
    assert (m.total_tasks, m.root_count, m.max_depth, m.avg_depth) == (4, 1, 1, 0.75)
    assert m.max_absolute_depth == 2
    project = graph_metrics(sample_tree(), "project", "beta")
    assert (project.root_count, project.max_depth, project.max_absolute_depth) == (1, 1, 1)


def test_a_project_whose_tasks_sit_under_another_projects_task_has_roots() -> None:
    index = index_of(
        task("top", project="one"),
        task("mid", parent="top", project="two"),
        task("low", parent="mid", project="two"),
        task("far", parent="low", project="one"),
    )
    two = graph_metrics(index, "project", "two")
    assert (two.root_count, two.max_depth, two.avg_depth, two.max_absolute_depth) == (1, 1, 0.5, 2)
    one = graph_metrics(index, "project", "one")
    assert (one.root_count, one.max_depth, one.max_absolute_depth) == (2, 0, 3)
