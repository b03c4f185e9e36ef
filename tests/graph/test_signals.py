"""Structural signals on a tree built to hold one of each problem."""

from __future__ import annotations

from graph.index import TaskIndex
from graph.signals import structural_signals
from tests.graph.builders import index_of, sample_tree, task


def broken_tree() -> TaskIndex:
    return index_of(
        task("a", parent="b"),
        task("b", parent="a"),
        task("c", deps=["d"]),
        task("d", deps=["c"]),
        task("e", parent="nope"),
        task("f", deps=["gone", "c"], soft=["missing"]),
        task("g", parent="g"),
        task("h", deps=["h"], soft=["h"]),
        task("k", status="done"),
        task("m", parent="k"),
        task("n", parent="k", status="cancelled"),
    )


def test_every_kind_of_structural_problem_is_listed() -> None:
    s = structural_signals(broken_tree())
    assert s.parent_cycles == [["a", "b"], ["g"]]
    assert s.dependency_cycles == [["c", "d"], ["h"]]
    dangling = s.dangling_references
    assert [(r.task_id, r.missing_id) for r in dangling.parent] == [("e", "nope")]
    assert [(r.task_id, r.missing_id) for r in dangling.depends_on] == [("f", "gone")]
    assert [(r.task_id, r.missing_id) for r in dangling.soft_depends_on] == [("f", "missing")]
    assert [(r.task_id, r.field) for r in s.self_references] == [
        ("g", "parent"),
        ("h", "depends_on"),
        ("h", "soft_depends_on"),
    ]
    assert [(r.task_id, r.open_children) for r in s.terminal_with_open_children] == [("k", ["m"])]
    assert [(r.task_id, r.parent) for r in s.open_under_terminal_parent] == [("m", "k")]


def test_storage_findings_are_left_empty_for_the_server_to_fill() -> None:
    s = structural_signals(broken_tree())
    assert (s.duplicate_ids, s.unparseable_files) == ([], [])


def test_a_sound_tree_has_only_its_dangling_reference() -> None:
    s = structural_signals(sample_tree())
    assert (s.parent_cycles, s.dependency_cycles, s.self_references) == ([], [], [])
    assert [(r.task_id, r.missing_id) for r in s.dangling_references.depends_on] == [
        ("t3", "ghost")
    ]
    assert s.terminal_with_open_children == []


def test_resolving_a_dangling_reference_removes_the_signal() -> None:
    index = broken_tree()
    index.apply([task("gone", status="done"), task("nope")])
    dangling = structural_signals(index).dangling_references
    assert (dangling.parent, dangling.depends_on) == ([], [])
