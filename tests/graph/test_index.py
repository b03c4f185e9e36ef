"""The index's facts on small hand-made trees, each answer worked out by hand."""

from __future__ import annotations

import gc
from dataclasses import replace
from typing import Any

import pytest

from graph.errors import UnknownTask
from graph.index import TaskIndex
from tests.graph.builders import days_ago, index_of, task


def done(index: TaskIndex, task_id: str, **fields: Any) -> None:
    index.apply([replace(index.require(task_id), status="done", **fields)])


# --- readiness and its reasons ---------------------------------------------------------------


def test_an_active_task_with_nothing_in_its_way_is_ready() -> None:
    facts = index_of(task("a")).facts("a")
    assert facts.is_ready and not facts.is_blocked
    assert not facts.reasons.any()


def test_status_blocked_is_a_reason_of_its_own() -> None:
    facts = index_of(task("a", status="blocked")).facts("a")
    assert facts.is_blocked and not facts.is_ready
    assert facts.reasons.status_blocked
    assert facts.reasons.unmet_dependencies == []


def test_an_open_dependency_blocks_and_is_named() -> None:
    index = index_of(task("a", deps=["b", "c"]), task("b"), task("c", status="done"))
    facts = index.facts("a")
    assert facts.is_blocked
    assert facts.reasons.unmet_dependencies == ["b"]
    assert facts.blocked_by_count == 2


def test_a_dangling_dependency_blocks_and_is_counted() -> None:
    index = index_of(task("a", deps=["ghost", "b"]), task("b", status="cancelled"))
    facts = index.facts("a")
    assert facts.is_blocked
    assert facts.reasons.dangling_dependencies == ["ghost"]
    assert facts.reasons.unmet_dependencies == []
    assert facts.blocked_by_count == 2
    assert index.dependencies("a") == ["ghost", "b"]


def test_a_blocked_ancestor_blocks_every_open_task_below_it() -> None:
    index = index_of(
        task("top", status="blocked"),
        task("mid", parent="top", status="done"),
        task("leaf", parent="mid"),
    )
    leaf = index.facts("leaf")
    assert leaf.is_blocked and not leaf.is_ready
    assert leaf.reasons.blocked_ancestor == "top"
    assert not index.facts("mid").is_blocked


def test_the_nearest_blocked_ancestor_is_reported() -> None:
    index = index_of(
        task("top", status="blocked"),
        task("mid", parent="top", status="inbox"),
        task("leaf", parent="mid"),
    )
    assert index.facts("mid").reasons.blocked_ancestor == "top"
    assert index.facts("leaf").reasons.blocked_ancestor == "mid"


def test_a_terminal_task_is_never_blocked() -> None:
    index = index_of(task("a", status="done", deps=["ghost"]), task("b", status="blocked"))
    assert not index.facts("a").is_blocked
    assert not index.facts("a").reasons.any()


def test_a_container_is_not_ready_while_a_child_is_open_but_its_child_is() -> None:
    index = index_of(
        task("epic"), task("one", parent="epic"), task("two", parent="epic", status="done")
    )
    epic = index.facts("epic")
    assert not epic.is_ready and not epic.is_blocked and not epic.is_leaf
    assert (epic.child_count, epic.open_child_count) == (2, 1)
    assert index.facts("one").is_ready


def test_only_active_tasks_are_ready() -> None:
    index = index_of(*(task(s, status=s) for s in ("inbox", "in_progress", "review", "queued")))
    assert [i for i in index.ids() if index.facts(i).is_ready] == []
    assert [i for i in index.ids() if index.facts(i).is_blocked] == []


# --- unblock propagation ------------------------------------------------------------------


def test_completing_a_dependency_makes_the_dependent_ready() -> None:
    index = index_of(task("a", deps=["b"], modified=days_ago(5)), task("b"))
    assert not index.facts("a").is_ready
    done(index, "b", completed=days_ago(1))
    facts = index.facts("a")
    assert facts.is_ready
    assert facts.ready_since == days_ago(1)


def test_ready_since_is_the_later_of_modified_and_the_last_completion() -> None:
    index = index_of(
        task("a", deps=["b", "c"], modified=days_ago(2)),
        task("b", status="done", completed=days_ago(4)),
        task("c", status="done", completed=days_ago(3)),
    )
    assert index.facts("a").ready_since == days_ago(2)
    assert index.facts("b").ready_since is None


def test_completing_the_last_child_makes_the_parent_ready() -> None:
    index = index_of(task("epic"), task("one", parent="epic"))
    done(index, "one")
    assert index.facts("epic").is_ready
    assert index.facts("epic").is_leaf


def test_unblocking_an_ancestor_frees_the_whole_subtree() -> None:
    index = index_of(
        task("top", status="blocked"), task("mid", parent="top"), task("leaf", parent="mid")
    )
    index.apply([replace(index.require("top"), status="active")])
    assert index.facts("leaf").is_ready
    assert not index.facts("leaf").is_blocked
    assert not index.facts("top").is_ready


def test_reopening_a_dependency_blocks_the_dependent_again() -> None:
    index = index_of(task("a", deps=["b"]), task("b", status="done"))
    index.apply([replace(index.require("b"), status="active")])
    assert index.facts("a").reasons.unmet_dependencies == ["b"]


def test_a_new_task_resolves_the_dangling_references_to_it() -> None:
    index = index_of(task("a", deps=["b"]), task("c", parent="b"))
    assert index.facts("c").is_root
    index.apply([task("b", status="done")])
    assert index.facts("a").is_ready
    assert index.facts("c").depth == 1
    assert index.dependents("b") == ["a"]


def test_removing_a_task_leaves_its_references_dangling() -> None:
    index = index_of(task("a", deps=["b"]), task("b", status="done"), task("c", parent="b"))
    index.apply(removed=["b"])
    assert "b" not in index
    assert index.facts("a").reasons.dangling_dependencies == ["b"]
    assert index.facts("c").is_root and index.facts("c").depth == 0


# --- hierarchy -----------------------------------------------------------------------------


def test_depth_counts_parent_hops_to_a_root() -> None:
    index = index_of(
        task("r"), task("a", parent="r"), task("b", parent="a"), task("d", parent="gone")
    )
    assert [index.facts(i).depth for i in ("r", "a", "b", "d")] == [0, 1, 2, 0]
    assert index.facts("d").is_root
    assert index.ancestors("b") == ["a", "r"]
    assert index.descendants("r") == ["a", "b"]


def test_a_parent_cycle_has_no_depth_and_does_not_hang() -> None:
    index = index_of(task("a", parent="b"), task("b", parent="a"), task("c", parent="a"))
    assert [index.facts(i).depth for i in ("a", "b", "c")] == [None, None, None]
    assert index.parent_cycles() == [["a", "b"]]
    assert index.ancestors("c") == ["a", "b"]
    assert index.descendants("a") == ["b", "c"]
    assert not index.facts("a").is_root


def test_a_task_that_is_its_own_parent_is_a_cycle_of_one() -> None:
    index = index_of(task("a", parent="a"))
    assert index.parent_cycles() == [["a"]]
    assert index.facts("a").depth is None
    assert index.ancestors("a") == []


def test_breaking_a_parent_cycle_restores_depths() -> None:
    index = index_of(task("a", parent="b"), task("b", parent="a"))
    index.apply([replace(index.require("a"), parent=None)])
    assert index.parent_cycles() == []
    assert (index.facts("a").depth, index.facts("b").depth) == (0, 1)


def test_an_orphan_has_no_parent_and_no_dependencies() -> None:
    index = index_of(
        task("alone"),
        task("child", parent="alone"),
        task("waiting", deps=["alone"]),
        task("lost", parent="gone"),
    )
    assert [i for i in index.ids() if index.facts(i).is_orphan] == ["alone"]


# --- dependency cycles -----------------------------------------------------------------------


def test_a_dependency_cycle_is_reported_with_its_members_and_blocks_them() -> None:
    index = index_of(
        task("a", deps=["b"]),
        task("b", deps=["c"]),
        task("c", deps=["a"], status="done"),
        task("d", deps=["a"]),
    )
    assert index.dependency_cycles() == [["a", "b", "c"]]
    assert index.facts("a").reasons.cycle == ["a", "b", "c"]
    assert index.facts("a").is_blocked
    assert not index.facts("c").is_blocked
    assert index.facts("d").reasons.cycle == []
    assert index.facts("d").reasons.unmet_dependencies == ["a"]


def test_a_self_dependency_is_a_cycle_of_one() -> None:
    index = index_of(task("a", deps=["a"]))
    assert index.dependency_cycles() == [["a"]]
    assert index.facts("a").reasons.cycle == ["a"]


def test_removing_one_edge_splits_a_cycle() -> None:
    index = index_of(task("a", deps=["b"]), task("b", deps=["a", "c"]), task("c", deps=["b"]))
    assert index.dependency_cycles() == [["a", "b", "c"]]
    index.apply([replace(index.require("a"), depends_on=())])
    assert index.dependency_cycles() == [["b", "c"]]
    assert index.facts("a").reasons.cycle == []


# --- counts and lists ---------------------------------------------------------------------------


def test_blocking_counts_name_tasks_not_entries() -> None:
    index = index_of(task("a"), task("b", deps=["a", "a"]), task("c", deps=["a"], soft=["a"]))
    facts = index.facts("a")
    assert (facts.blocking_count, facts.soft_blocking_count) == (2, 1)
    assert index.facts("b").blocked_by_count == 2
    assert index.dependents("a") == ["b", "c"]
    assert index.in_order("soft_depends_on", "a")[:] == ["c"]


def test_lists_follow_priority_then_order_then_id() -> None:
    index = index_of(
        task("p"),
        task("z", parent="p", priority=0),
        task("b", parent="p", priority=2, order=1),
        task("a", parent="p", priority=2, order=1),
        task("c", parent="p", priority=2, order=0),
    )
    assert index.children("p") == ["z", "c", "a", "b"]
    assert [t.id for t in index.tasks()] == ["z", "c", "p", "a", "b"]


def test_an_unknown_id_is_an_unknown_task_error() -> None:
    index = index_of(task("a"))
    assert index.get("nope") is None
    for call in (index.require, index.facts, index.children, index.ancestors):
        with pytest.raises(UnknownTask) as caught:
            call("nope")
        assert caught.value.task_id == "nope"


def test_an_id_both_removed_and_upserted_is_kept() -> None:
    index = index_of(task("a"))
    index.apply([task("a", title="New")], ["a"])
    assert index.require("a").title == "New"


def test_naming_lists_the_tasks_that_name_an_id_whether_it_exists_or_not() -> None:
    index = index_of(task("a", deps=["b", "gone"]), task("b"), task("c", deps=["gone"]))
    assert sorted(index.naming("depends_on", "b")) == ["a"]
    assert sorted(index.naming("depends_on", "gone")) == ["a", "c"]
    assert list(index.naming("depends_on", "a")) == []
    assert list(index.naming("parent", "nobody")) == []


# --- remembered answers ----------------------------------------------------------------------


def test_a_remembered_order_is_left_out_of_the_cyclic_gcs_walks() -> None:
    # A full collection walks every item of every tracked list: a remembered order of a
    # million ids cost about 30 ms per collection. A tuple of strings stops being tracked
    # at its first collection.
    index = index_of(task("b"), task("a"), task("c", priority=0))
    ordered = index.ordered_ids()
    gc.collect()
    assert list(ordered) == ["c", "a", "b"]
    assert not gc.is_tracked(ordered)
    assert index.ordered_ids() is ordered  # remembered until the next edit
    done(index, "a")
    assert index.ordered_ids() is not ordered


def test_the_kept_orders_count_their_ids_through_reads_and_edits() -> None:
    index = index_of(task("a", project="p"), task("b", project="p"), task("c", project="q"))
    assert index.orders.kept == 0  # nothing read yet
    index.in_order("project", "p")
    index.in_order("project", "q")
    assert index.orders.kept == 3
    index.apply([replace(index.require("c"), project="p")])  # from q, now empty, to p
    index.apply([replace(index.require("a"), priority=0)])  # moved within p
    assert list(index.in_order("project", "p")) == ["a", "b", "c"]
    assert index.orders.kept == 3
    index.apply(removed=["b"])
    assert index.orders.kept == 2


def test_the_tasks_naming_a_deferral_are_known_through_loads_and_edits() -> None:
    index = index_of(task("a", extra={"defer_until": "2027-01-01"}), task("b"), task("c"))
    assert set(index.deferring()) == {"a"}
    index.apply([replace(index.require("b"), extra={"defer_until": "2020-01-01"})])
    index.apply([replace(index.require("a"), extra={})])
    assert set(index.deferring()) == {"b"}  # a deferral long past still counts: it is named
    index.apply(removed=["b"])
    assert set(index.deferring()) == set()
