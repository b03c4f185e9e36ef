"""Topology rows and scoring factors on the sample tree, with a fixed `now`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import pytest

from graph.errors import InvalidArgument
from graph.topology import (
    ScoringFactors,
    TopologyRow,
    has_acceptance_criteria,
    scoring_factors,
    scoring_ids,
    topology_ids,
    topology_rows,
)
from tests.graph.builders import NOW, sample_tree


def ids(rows: Sequence[TopologyRow | ScoringFactors]) -> list[str]:
    return [row.id for row in rows]


def test_topology_rows_cover_every_task_in_task_order() -> None:
    assert ids(topology_rows(sample_tree(), now=NOW)) == ["e", "o", "r", "s", "t1", "t2", "t3", "u"]


def test_a_topology_row_carries_the_task_and_its_place() -> None:
    row = {r.id: r for r in topology_rows(sample_tree(), now=NOW)}["t2"]
    assert (row.depth, row.parent, row.child_count) == (2, "e", 0)
    assert (row.blocking_count, row.blocked_by_count, row.is_leaf) == (2, 1, True)
    assert (row.project, row.tags, row.status, row.type) == ("alpha", ["api"], "active", "task")
    assert row.ready_days == 2.0


def test_ready_days_is_null_for_a_task_that_is_not_ready() -> None:
    rows = {r.id: r for r in topology_rows(sample_tree(), now=NOW)}
    assert rows["t3"].ready_days is None
    assert rows["o"].ready_days is None  # ready, but no timestamp to count from


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"project": "alpha"}, ["e", "r", "t1", "t2", "t3"]),
        ({"status": "open"}, ["e", "o", "r", "t2"]),
        ({"status": "active", "project": "beta"}, []),
        ({"min_depth": 2}, ["t1", "t2", "t3"]),
        ({"min_blocking_count": 1}, ["t1", "t2"]),
        ({"min_depth": 1, "min_blocking_count": 2}, ["t2"]),
    ],
)
def test_topology_filters_are_applied_together(
    filters: dict[str, Any], expected: list[str]
) -> None:
    assert ids(topology_rows(sample_tree(), now=NOW, **filters)) == expected


def test_negative_thresholds_and_a_naive_now_are_invalid_arguments() -> None:
    with pytest.raises(InvalidArgument):
        topology_rows(sample_tree(), min_depth=-1, now=NOW)
    with pytest.raises(InvalidArgument):
        topology_rows(sample_tree(), min_blocking_count=-2, now=NOW)
    with pytest.raises(InvalidArgument):
        topology_rows(sample_tree(), now=datetime(2026, 1, 1))


def test_scoring_factors_list_ready_tasks_by_default() -> None:
    factors = {f.id: f for f in scoring_factors(sample_tree(), now=NOW)}
    assert list(factors) == ["o", "t2"]
    t2 = factors["t2"]
    assert (t2.created_age_days, t2.modified_age_days) == (10.0, 3.0)
    assert (t2.blocking_count, t2.blocked_by_count, t2.soft_blocking_count) == (2, 1, 1)
    assert (t2.parent_chain_length, t2.child_count, t2.priority) == (2, 0, 2)
    assert (t2.body_length, t2.has_acceptance_criteria) == (21, True)
    assert factors["o"].created_age_days is None


def test_scoring_factors_of_all_open_tasks_and_then_the_done_ones() -> None:
    assert ids(scoring_factors(sample_tree(), ready_only=False, now=NOW)) == [
        "e",
        "o",
        "r",
        "s",
        "t2",
        "t3",
        "u",
    ]
    every = scoring_factors(sample_tree(), ready_only=False, include_done=True, now=NOW)
    assert "t1" in ids(every) and len(every) == 8


@pytest.mark.parametrize(
    ("body", "expected"),
    [("", False), ("ACCEPTANCE", True), ("- [ ] check", True), ("- [x] done", False)],
)
def test_acceptance_criteria_are_a_word_or_an_open_checkbox(body: str, expected: bool) -> None:
    assert has_acceptance_criteria(body) is expected


def test_the_id_lists_match_the_rows_for_paging() -> None:
    index = sample_tree()
    assert topology_ids(index, min_depth=1) == ids(topology_rows(index, min_depth=1, now=NOW))
    assert scoring_ids(index, ready_only=False) == ids(
        scoring_factors(index, ready_only=False, now=NOW)
    )
