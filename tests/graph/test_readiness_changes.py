"""A write's reported readiness changes equal the difference of two fresh builds."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.changes import ReadinessChanges, ReadinessProbe, region_between
from graph.index import TaskIndex
from storage.model import Task
from tests.conftest import examples
from tests.graph.builders import index_of, task
from tests.graph.test_index_incremental import IDS, MISSING, tasks

trees = st.lists(tasks, max_size=len(IDS)).map(lambda found: {t.id: t for t in found})
# A write may also create an id the tree names while it is missing.
created = st.builds(lambda t, task_id: replace(t, id=task_id), tasks, st.sampled_from(MISSING))
upserts = st.lists(st.one_of(tasks, created), max_size=3)
writes = st.tuples(upserts, st.lists(st.sampled_from(IDS), max_size=2))


def _oracle(before: Iterable[Task], after: Iterable[Task]) -> ReadinessChanges:
    """The changes as two indexes built from scratch see them."""
    old, new = TaskIndex.build(before), TaskIndex.build(after)

    def entered(flag: str) -> list[str]:
        was = {i for i in old.ids() if getattr(old.facts(i), flag)}
        return [i for i in new.ids() if getattr(new.facts(i), flag) and i not in was]

    return ReadinessChanges(became_ready=entered("is_ready"), became_blocked=entered("is_blocked"))


def _written(tree: dict[str, Task], upserted: list[Task], removed: list[str]) -> dict[str, Task]:
    after = {i: t for i, t in tree.items() if i not in removed}
    after.update((t.id, t) for t in upserted)
    return after


@settings(max_examples=examples(400), deadline=None)
@given(trees, writes)
def test_reported_changes_equal_the_difference_of_two_fresh_builds(
    tree: dict[str, Task], write: tuple[list[Task], list[str]]
) -> None:
    upserted, removed = write
    index = TaskIndex.build(tree.values())
    written = [t.id for t in upserted] + removed
    probe = ReadinessProbe.take(index, written)
    index.apply(upserted, removed)
    expected = _oracle(tree.values(), _written(tree, upserted, removed).values())
    assert probe.changes(index) == expected


def test_completing_a_blocked_parent_unblocks_its_whole_open_subtree() -> None:
    index = index_of(
        task("gate", status="blocked"),
        task("epic", parent="gate", status="active"),
        task("leaf", parent="epic"),
        task("done-leaf", parent="epic", status="done"),
    )
    probe = ReadinessProbe.take(index, ["gate"])
    index.apply([replace(index.require("gate"), status="done")])
    assert probe.changes(index) == ReadinessChanges(became_ready=["leaf"], became_blocked=[])


def test_reopening_a_dependency_blocks_its_dependent_and_that_dependents_subtree() -> None:
    index = index_of(
        task("dep", status="done"),
        task("user", deps=["dep"], status="active"),
        task("part", parent="user"),
    )
    probe = ReadinessProbe.take(index, ["dep"])
    index.apply([replace(index.require("dep"), status="active")])
    changes = probe.changes(index)
    assert changes.became_blocked == ["part", "user"]
    assert changes.became_ready == ["dep"]


def test_creating_a_missing_dependency_as_done_readies_the_task_that_named_it() -> None:
    index = index_of(task("waiting", deps=["later"]))
    probe = ReadinessProbe.take(index, ["later"])
    index.apply([task("later", status="done")])
    assert probe.changes(index).became_ready == ["waiting"]


def test_moving_a_task_under_a_blocked_parent_reports_it_blocked() -> None:
    index = index_of(task("hold", status="blocked"), task("free"), task("other"))
    probe = ReadinessProbe.take(index, ["free"])
    index.apply([replace(index.require("free"), parent="hold")])
    assert probe.changes(index) == ReadinessChanges(became_ready=[], became_blocked=["free"])


def test_breaking_a_dependency_cycle_readies_a_member_two_dependents_away() -> None:
    # b depends on c (done) and sits on the cycle a -> b -> c -> a; once a drops b, b is free.
    index = index_of(
        task("a", deps=["b"]), task("b", deps=["c"]), task("c", deps=["a"], status="done")
    )
    probe = ReadinessProbe.take(index, ["a"])
    index.apply([replace(index.require("a"), depends_on=())])
    assert probe.changes(index) == ReadinessChanges(became_ready=["a", "b"], became_blocked=[])


def test_the_region_between_two_states_holds_both_parents_of_a_move_and_no_rename() -> None:
    index = index_of(task("p"), task("q"), task("a", parent="p"), task("t"))
    other = {
        "a": replace(index.require("a"), parent="q"),
        "t": replace(index.require("t"), title="Renamed"),  # a title moves no standing
    }
    assert region_between(index, ["a", "t"], other) == {"a", "p", "q"}
