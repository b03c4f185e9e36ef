"""Neighbourhood and decomposition context on the sample tree."""

from __future__ import annotations

import pytest

from graph.errors import UnknownTask
from graph.neighborhood import decomposition_context, neighborhood
from tests.graph.builders import sample_tree


def test_the_neighbourhood_lists_every_relationship_and_the_raw_lists() -> None:
    n = neighborhood(sample_tree(), "t2")
    assert (n.task_id, n.parent, n.dangling_parent) == ("t2", "e", None)
    assert (n.children, n.depends_on, n.blocks) == ([], ["t1"], ["s", "t3"])
    assert (n.soft_depends_on, n.soft_blocks) == ([], ["o"])
    assert n.same_project_tasks == ["e", "r", "t1", "t3"]
    assert n.orphan_tasks == ["o", "r"]


def test_dangling_dependencies_are_listed_apart_from_existing_ones() -> None:
    n = neighborhood(sample_tree(), "t3")
    assert (n.depends_on, n.dangling_dependencies) == (["t2"], ["ghost"])


def test_a_task_without_project_has_no_project_mates_and_is_not_its_own_orphan() -> None:
    n = neighborhood(sample_tree(), "o")
    assert n.same_project_tasks == []
    assert n.orphan_tasks == ["r"]
    assert n.soft_depends_on == ["t2"]


def test_the_decomposition_context_names_children_parent_siblings_and_project() -> None:
    index = sample_tree()
    c = decomposition_context(index, "t2")
    assert (c.existing_children, c.parent, c.siblings) == ([], "e", ["t1", "t3"])
    assert (c.project, c.project_tasks) == ("alpha", ["e", "r", "t1", "t3"])
    top = decomposition_context(index, "r")
    assert (top.existing_children, top.parent, top.siblings) == (["e"], None, [])


def test_an_unknown_task_has_no_neighbourhood() -> None:
    with pytest.raises(UnknownTask):
        neighborhood(sample_tree(), "nope")
    with pytest.raises(UnknownTask):
        decomposition_context(sample_tree(), "nope")
