"""Neighbourhood and decomposition context on small trees, whole and window by window."""

from __future__ import annotations

import pytest

from graph.errors import UnknownTask
from graph.index import TaskIndex
from graph.neighborhood import decomposition_context, neighborhood
from tests.graph.builders import index_of, sample_tree, task


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


LISTS = ["children", "depends_on", "blocks", "soft_depends_on", "soft_blocks"]
LISTS += ["same_project_tasks", "orphan_tasks"]
TOTALS = [f"{name}_total" for name in LISTS[:5]] + ["same_project_total", "orphan_total"]


@pytest.mark.parametrize("task_id", ["hub", "hub2", "top", "s0"])
def test_windows_of_a_neighbourhood_give_every_list_whole_once_with_its_total(
    task_id: str,
) -> None:
    index = wide_tree()
    whole = neighborhood(index, task_id).model_dump()
    in_order = [i for name in LISTS for i in whole[name]]  # the lists read one after another
    read: list[str] = []
    seen: dict[str, list[str]] = {name: [] for name in LISTS}
    for offset in range(0, len(in_order), 3):
        window = neighborhood(index, task_id, offset=offset, limit=3).model_dump()
        part = [i for name in LISTS for i in window[name]]
        assert part == in_order[offset : offset + 3]
        read += part
        for name, total in zip(LISTS, TOTALS, strict=True):
            assert window[total] == whole[total] == len(whole[name])
            seen[name] += window[name]
    assert read == in_order
    assert seen == {name: whole[name] for name in LISTS}


def test_the_windowed_lists_are_in_the_task_order_without_the_task_itself() -> None:
    n = neighborhood(wide_tree(), "hub")
    assert n.children[:4] == ["c7", "c6", "c5", "c4"]
    assert (n.blocks[:4], n.blocks_total) == (["b0", "b3", "b6", "b1"], 7)
    assert (n.same_project_tasks[:4], n.same_project_total) == (["b0", "b3", "b6", "top"], 18)
    assert (n.orphan_tasks[:4], n.orphan_total) == (["top", "s0", "s1", "s2"], 5)
    assert "hub" not in n.same_project_tasks + n.orphan_tasks


@pytest.mark.parametrize("task_id", ["hub", "c3", "b2"])
def test_windows_of_a_decomposition_context_give_every_list_whole_once(task_id: str) -> None:
    index = wide_tree()
    whole = decomposition_context(index, task_id)
    pairs = {
        "existing_children": whole.existing_children_total,
        "siblings": whole.siblings_total,
        "project_tasks": whole.project_tasks_total,
    }
    seen: dict[str, list[str]] = {name: [] for name in pairs}
    for offset in range(0, sum(pairs.values()), 2):
        window = decomposition_context(index, task_id, offset=offset, limit=2).model_dump()
        assert sum(len(window[name]) for name in pairs) == min(2, sum(pairs.values()) - offset)
        for name, total in pairs.items():
            assert window[f"{name}_total"] == total
            seen[name] += window[name]
    assert seen == {name: getattr(whole, name) for name in pairs}
    assert task_id not in seen["siblings"] + seen["project_tasks"]
