"""The store's edges, kept edit by edit in compact form, are the edges a fresh load gives and
the edges networkx finds in the tasks' fields."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from graph._digraph import NO_NEIGHBOURS, predecessors, successors
from graph._store import KINDS, Kind, Store, references
from storage.model import Task
from tests.conftest import examples
from tests.graph.test_index_incremental import edits, tasks


def edges_of(store: Store, kind: Kind) -> dict[str, tuple[list[str], list[str]]]:
    """Every task's (targets, sources) of `kind`, each side sorted."""
    return {
        task_id: (sorted(store.targets(kind, task_id)), sorted(store.sources(kind, task_id)))
        for task_id in store.tasks
    }


def edges_by_networkx(tasks: list[Task], kind: Kind) -> dict[str, tuple[list[str], list[str]]]:
    """The same read off a DiGraph networkx builds from the fields (the oracle)."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(task.id for task in tasks)
    graph.add_edges_from(
        (task.id, target) for task in tasks for target in references(task, kind) if target in graph
    )
    return {n: (sorted(graph.successors(n)), sorted(graph.predecessors(n))) for n in graph}


def assert_compact(store: Store) -> None:
    """No node keeps an empty neighbour dict of its own, and nobody is noted as naming
    nobody."""
    graph = store.dependencies
    assert sorted(graph) == sorted(store.tasks)
    for side in (successors(graph), predecessors(graph)):
        assert all(found or found is NO_NEIGHBOURS for found in side.values())
    for referrers in store.referrers.values():
        assert all(referrers.values()) and set(referrers) <= set(store.tasks)


def fresh(tasks: list[Task]) -> Store:
    store = Store()
    store.load(tasks)
    store.find_parent_cycles(())
    return store


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(tasks, max_size=7), edits)
def test_edited_edges_equal_a_fresh_load_and_networkx(
    start: list[Task], steps: list[tuple[list[Task], list[str]]]
) -> None:
    store = fresh(start)
    for upserted, removed in steps:
        for task_id in sorted(set(removed)):
            if task_id in store.tasks:
                store.remove(task_id)
        for item in upserted:
            store.upsert(item)
        current = list(store.tasks.values())
        assert_compact(store)
        assert {k: edges_of(store, k) for k in KINDS} == {
            k: edges_by_networkx(current, k) for k in KINDS
        }
        again = fresh(current)
        assert {k: edges_of(store, k) for k in KINDS} == {k: edges_of(again, k) for k in KINDS}
        assert store.dep_cycle == again.dep_cycle and store.parent_cycle == again.parent_cycle


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(tasks, max_size=7))
def test_a_loaded_store_reads_each_task_as_named_by_the_tasks_naming_it(
    start: list[Task],
) -> None:
    store = fresh(start)
    assert_compact(store)
    for kind in KINDS:
        for task_id in store.tasks:
            naming = {t.id for t in store.tasks.values() if task_id in references(t, kind)}
            assert set(store.named_by(kind)[task_id]) == naming
            assert list(store.named_by(kind)[task_id]) == list(store.sources(kind, task_id))


def test_a_task_named_by_nobody_reads_as_named_by_none_without_an_entry() -> None:
    store = fresh([Task(id="a", title="A", path="a.md"), Task(id="b", title="B", path="b.md")])
    for kind in KINDS:
        assert not store.named_by(kind)["a"] and not list(store.sources(kind, "a"))
    assert not store.referrers["parent"] and "a" not in store.referrers["parent"]


def test_removing_a_task_that_names_itself_and_a_missing_id_leaves_nothing_behind() -> None:
    store = fresh([Task(id="a", title="A", path="a.md", parent="a", depends_on=("a", "x"))])
    assert store.parent_cycle == {"a": ("a",)} and store.dep_cycle == {"a": ("a",)}
    store.remove("a")
    assert not store.tasks and not list(store.dependencies)
    assert not any(store.referrers.values())
    assert store.missing == {kind: {} for kind in KINDS} and not store.self_references
