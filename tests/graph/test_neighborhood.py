"""Neighbourhood and decomposition context on small trees, whole and window by window."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from graph.index import TaskIndex
from graph.neighborhood import (
    DECOMPOSITION_LISTS,
    NEIGHBORHOOD_LISTS,
    decomposition_context,
    neighborhood,
)
from graph.sections import Sections
from graph.windowing import window_named
from tests.graph.builders import index_of, sample_tree, task


def lists_and_facts(sections: Sections) -> SimpleNamespace:
    """The sections' lists and facts as attributes, for short assertions."""
    lists = {name: list(ids) for name, ids in sections.lists.items()}
    return SimpleNamespace(**lists, **sections.facts)


def near(index: TaskIndex, task_id: str) -> SimpleNamespace:
    return lists_and_facts(neighborhood(index, index.require(task_id)))


def context_of(index: TaskIndex, task_id: str) -> SimpleNamespace:
    return lists_and_facts(decomposition_context(index, index.require(task_id)))


def test_the_neighbourhood_lists_every_relationship_and_the_raw_lists() -> None:
    n = near(sample_tree(), "t2")
    assert (n.parent, n.dangling_parent) == ("e", None)
    assert (n.children, n.depends_on, n.blocks) == ([], ["t1"], ["s", "t3"])
    assert (n.soft_depends_on, n.soft_blocks) == ([], ["o"])
    assert n.same_project_tasks == ["e", "r", "t1", "t3"]
    assert n.orphan_tasks == ["o", "r"]


def test_dangling_dependencies_are_listed_apart_from_existing_ones() -> None:
    n = near(sample_tree(), "t3")
    assert (n.depends_on, n.dangling_dependencies) == (["t2"], ["ghost"])


def test_a_task_without_project_has_no_project_mates_and_is_not_its_own_orphan() -> None:
    n = near(sample_tree(), "o")
    assert n.same_project_tasks == []
    assert n.orphan_tasks == ["r"]
    assert n.soft_depends_on == ["t2"]


def test_the_decomposition_context_names_children_parent_siblings_and_project() -> None:
    index = sample_tree()
    c = context_of(index, "t2")
    assert (c.existing_children, c.parent, c.siblings) == ([], "e", ["t1", "t3"])
    assert (c.project, c.project_tasks) == ("alpha", ["e", "r", "t1", "t3"])
    top = context_of(index, "r")
    assert (top.existing_children, top.parent, top.siblings) == (["e"], None, [])


def test_the_lists_come_in_the_order_they_are_paged() -> None:
    index = sample_tree()
    assert tuple(neighborhood(index, index.require("t2")).lists) == NEIGHBORHOOD_LISTS
    assert tuple(decomposition_context(index, index.require("t2")).lists) == DECOMPOSITION_LISTS


def wide_tree() -> TaskIndex:
    """A hub with eight children, seven dependents, soft dependents, project mates, orphans."""
    return index_of(
        task("hub", project="big", parent="top"),
        task("top", project="big", priority=0),
        task("dep", project="big", parent="top"),
        *(task(f"c{i}", project="big", parent="hub", order=8 - i) for i in range(8)),
        *(
            task(f"b{i}", project="big", parent="top", deps=["hub"], priority=i % 3)
            for i in range(7)
        ),
        *(task(f"s{i}", soft=["hub", "dep"]) for i in range(4)),
        task("hub2", project="big", parent="top", deps=["dep", "top", "nowhere"]),
    )


@pytest.mark.parametrize("task_id", ["hub", "hub2", "top", "s0"])
def test_windows_of_a_neighbourhood_give_every_list_whole_once(task_id: str) -> None:
    index = wide_tree()
    lists = neighborhood(index, index.require(task_id)).lists
    in_order = [i for ids in lists.values() for i in ids]  # the lists read one after another
    read: list[str] = []
    for offset in range(0, len(in_order), 3):
        window = window_named(lists, offset, 3)
        part = [i for ids in window.parts.values() for i in ids]
        assert part == in_order[offset : offset + 3]
        assert window.totals == {name: len(ids) for name, ids in lists.items()}
        read += part
    assert read == in_order


def test_the_lists_are_in_the_task_order_without_the_task_itself() -> None:
    n = near(wide_tree(), "hub")
    assert n.children[:4] == ["c7", "c6", "c5", "c4"]
    assert (n.blocks[:4], len(n.blocks)) == (["b0", "b3", "b6", "b1"], 7)
    assert (n.same_project_tasks[:4], len(n.same_project_tasks)) == (["b0", "b3", "b6", "top"], 18)
    assert (n.orphan_tasks[:4], len(n.orphan_tasks)) == (["top", "s0", "s1", "s2"], 5)
    assert "hub" not in [*n.same_project_tasks, *n.orphan_tasks]


@pytest.mark.parametrize("task_id", ["hub", "c3", "b2"])
def test_a_decomposition_context_never_lists_the_task_itself(task_id: str) -> None:
    c = context_of(wide_tree(), task_id)
    assert task_id not in [*c.siblings, *c.project_tasks, *c.existing_children]
