"""The store's edges, kept edit by edit from the named side only, are the edges a fresh load
gives and the edges networkx finds in the tasks' fields; its dependency cycles are the strongly
connected components networkx finds."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

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
    """Only existing tasks that somebody names have an entry."""
    for referrers in store.referrers.values():
        assert all(referrers.values()) and set(referrers) <= set(store.tasks)


def cycles_by_networkx(tasks: list[Task]) -> dict[str, tuple[str, ...]]:
    """Member → its sorted cycle, for every dependency cycle networkx finds (the oracle)."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(task.id for task in tasks)
    graph.add_edges_from((t.id, d) for t in tasks for d in t.depends_on if d in graph)
    found: dict[str, tuple[str, ...]] = {}
    for component in nx.strongly_connected_components(graph):
        members = tuple(sorted(component))
        if len(members) > 1 or graph.has_edge(members[0], members[0]):
            found.update(dict.fromkeys(members, members))
    return found


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
        assert store.dep_cycle == cycles_by_networkx(current)
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
    assert not store.tasks
    assert not any(store.referrers.values())
    assert store.missing == {kind: {} for kind in KINDS} and not store.self_references
