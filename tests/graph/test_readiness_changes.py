"""A write's readiness delta (`TaskIndex.apply`'s answer) equals the difference of two fresh
builds."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.changes import region_between
from graph.index import TaskIndex
from graph.write_delta import Moved, NewTask, WriteDelta, reason
from storage.model import Task
from tests.conftest import examples
from tests.graph.builders import index_of, task
from tests.graph.test_index_incremental import IDS, MISSING, tasks

trees = st.lists(tasks, max_size=len(IDS)).map(lambda found: {t.id: t for t in found})
# A write may also create an id the tree names while it is missing.
created = st.builds(lambda t, task_id: replace(t, id=task_id), tasks, st.sampled_from(MISSING))
upserts = st.lists(st.one_of(tasks, created), max_size=3)
writes = st.tuples(upserts, st.lists(st.sampled_from(IDS), max_size=2))


def _oracle(before: Iterable[Task], after: Iterable[Task]) -> WriteDelta:
    """The delta as two indexes built from scratch see it."""
    old, new = TaskIndex.build(before), TaskIndex.build(after)

    def why(index: TaskIndex, task_id: str) -> str:
        return reason(index.record(task_id) if task_id in index else None)

    was = {i: why(old, i) for i in old.ids()}
    now = {i: why(new, i) for i in new.ids()}
    gone = sorted(i for i in old.ids() if i not in new)
    kept = [i for i in new.ids() if i in was]
    return WriteDelta(
        became_ready=[Moved(i, was[i]) for i in kept if was[i] != now[i] == "ready"],
        no_longer_ready=[
            Moved(i, now.get(i, "deleted"))
            for i in [*kept, *gone]
            if was[i] == "ready" != now.get(i, "deleted")
        ],
        created=[NewTask(i, now[i] == "ready") for i in new.ids() if i not in was],
    )


def _written(tree: dict[str, Task], upserted: list[Task], removed: list[str]) -> dict[str, Task]:
    after = {i: t for i, t in tree.items() if i not in removed}
    after.update((t.id, t) for t in upserted)
    return after


@settings(max_examples=examples(400), deadline=None)
@given(trees, writes)
def test_an_edits_delta_equals_the_difference_of_two_fresh_builds(
    tree: dict[str, Task], write: tuple[list[Task], list[str]]
) -> None:
    upserted, removed = write
    index = TaskIndex.build(tree.values())
    found = index.apply(upserted, removed)
    assert found == _oracle(tree.values(), _written(tree, upserted, removed).values())


def test_completing_a_blocked_parent_readies_its_whole_open_subtree() -> None:
    index = index_of(
        task("gate", status="blocked"),
        task("epic", parent="gate", status="active"),
        task("leaf", parent="epic"),
        task("done-leaf", parent="epic", status="done"),
    )
    found = index.apply([replace(index.require("gate"), status="done")])
    assert found == WriteDelta([Moved("leaf", "blocked")], [], [])


def test_reopening_a_dependency_takes_its_dependent_out_of_the_ready_set() -> None:
    index = index_of(
        task("dep", status="done"),
        task("user", deps=["dep"], status="active"),
        task("part", parent="user"),
    )
    found = index.apply([replace(index.require("dep"), status="active")])
    assert found.no_longer_ready == [Moved("part", "blocked")]
    assert found.became_ready == [Moved("dep", "done")]


def test_creating_a_missing_dependency_as_done_readies_the_task_that_named_it() -> None:
    index = index_of(task("waiting", deps=["later"]))
    found = index.apply([task("later", status="done")])
    assert found == WriteDelta([Moved("waiting", "blocked")], [], [NewTask("later", False)])


def test_moving_a_task_under_a_blocked_parent_reports_it_no_longer_ready() -> None:
    index = index_of(task("hold", status="blocked"), task("free"), task("other"))
    found = index.apply([replace(index.require("free"), parent="hold")])
    assert found == WriteDelta([], [Moved("free", "blocked")], [])


def test_deleting_a_ready_task_reports_it_deleted_after_the_others() -> None:
    index = index_of(task("a", deps=["b"]), task("b", status="active"), task("z"))
    found = index.apply([replace(index.require("z"), status="blocked")], removed=["b"])
    assert found.no_longer_ready == [Moved("z", "blocked"), Moved("b", "deleted")]


def test_breaking_a_dependency_cycle_readies_a_member_two_dependents_away() -> None:
    # b depends on c (done) and sits on the cycle a -> b -> c -> a; once a drops b, b is free.
    index = index_of(
        task("a", deps=["b"]), task("b", deps=["c"]), task("c", deps=["a"], status="done")
    )
    found = index.apply([replace(index.require("a"), depends_on=())])
    assert [m.task_id for m in found.became_ready] == ["a", "b"]


def test_the_region_between_two_states_holds_both_parents_of_a_move_and_no_rename() -> None:
    index = index_of(task("p"), task("q"), task("a", parent="p"), task("t"))
    other = {
        "a": replace(index.require("a"), parent="q"),
        "t": replace(index.require("t"), title="Renamed"),  # a title moves no standing
    }
    assert region_between(index, ["a", "t"], other) == {"a", "p", "q"}
