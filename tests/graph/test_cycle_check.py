"""Cycles a write would close, found before the write, on small hand-made trees."""

from __future__ import annotations

from graph.cycle_check import would_create_cycle
from graph.errors import CycleError
from tests.graph.builders import index_of, task


def test_a_dependency_that_closes_a_cycle_is_found_before_writing() -> None:
    index = index_of(task("a", deps=["b"]), task("b", deps=["c"]), task("c"), task("d"))
    found = would_create_cycle(index, "c", depends_on=["d", "a"])
    assert isinstance(found, CycleError)
    assert (found.kind, found.nodes) == ("depends_on", ["a", "b", "c"])
    assert would_create_cycle(index, "a", depends_on=["c", "d"]) is None
    self_loop = would_create_cycle(index, "d", depends_on=["d"])
    assert self_loop is not None and self_loop.nodes == ["d"]


def test_a_parent_that_closes_a_cycle_is_found_before_writing() -> None:
    index = index_of(task("r"), task("a", parent="r"), task("b", parent="a"))
    found = would_create_cycle(index, "r", parent="b")
    assert found is not None and (found.kind, found.nodes) == ("parent", ["a", "b", "r"])
    assert would_create_cycle(index, "b", parent="r") is None
    assert would_create_cycle(index, "a", parent="a") is not None


def test_a_new_task_can_close_a_cycle_through_references_waiting_for_it() -> None:
    index = index_of(task("a", deps=["new"]), task("k", parent="new"))
    found = would_create_cycle(index, "new", depends_on=["a"])
    assert found is not None and found.nodes == ["a", "new"]
    parent_found = would_create_cycle(index, "new", parent="k")
    assert parent_found is not None and parent_found.nodes == ["k", "new"]
