"""The cycle helpers, on plain adjacency dicts."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from graph.cycles import (
    closing_cycle,
    cycle_candidates,
    cycles_among,
    parent_cycle_through,
    parent_cycles,
    reach,
)
from tests.conftest import examples


def adjacency(edges: list[tuple[str, str]]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    succ: dict[str, list[str]] = {n: [] for e in edges for n in e}
    pred: dict[str, list[str]] = {n: [] for e in edges for n in e}
    for a, b in edges:
        succ[a].append(b)
        pred[b].append(a)
    return succ, pred


def test_an_edge_back_up_a_chain_closes_a_cycle_of_the_chain() -> None:
    succ, pred = adjacency([("a", "b"), ("b", "c"), ("c", "d"), ("x", "a")])
    assert closing_cycle("c", "a", succ, pred) == {"a", "b", "c"}


def test_an_edge_that_closes_nothing_finds_nothing_whichever_side_is_smaller() -> None:
    long_forward, long_pred = adjacency([("t", "u"), ("u", "v"), ("v", "w"), ("s", "t")])
    assert closing_cycle("s", "t", long_forward, long_pred) == set()
    succ, pred = adjacency([("a", "b"), ("p", "s"), ("q", "p"), ("r", "q")])
    assert closing_cycle("s", "a", succ, pred) == set()


def test_a_self_loop_is_a_cycle_of_one() -> None:
    assert closing_cycle("a", "a", {"a": []}, {"a": []}) == {"a"}


def test_reach_stays_inside_its_bounds() -> None:
    succ, _ = adjacency([("a", "b"), ("b", "c"), ("a", "d")])
    assert reach("a", succ, within={"b", "c"}) == {"a", "b", "c"}


def test_parent_cycles_are_found_once_each_in_one_pass() -> None:
    parents = {"a": "b", "b": "c", "c": "a", "d": "a", "e": "e", "f": None, "g": "missing"}
    assert parent_cycles(parents, parents.get) == [("a", "b", "c"), ("e",)]
    assert parent_cycle_through("d", parents.get) == ()
    assert parent_cycle_through("b", parents.get) == ("a", "b", "c")


edge_lists = st.lists(st.tuples(st.sampled_from("abcdef"), st.sampled_from("abcdef")), max_size=12)


@settings(max_examples=examples(200), deadline=None)
@given(edge_lists, st.tuples(st.sampled_from("abcdef"), st.sampled_from("abcdef")))
def test_closing_cycle_agrees_with_networkx_components(
    edges: list[tuple[str, str]], new: tuple[str, str]
) -> None:
    graph: nx.DiGraph[str] = nx.DiGraph([*edges, new])
    graph.add_nodes_from("abcdef")
    succ = {n: list(graph.successors(n)) for n in graph}
    pred = {n: list(graph.predecessors(n)) for n in graph}
    source, target = new
    component = next(c for c in nx.strongly_connected_components(graph) if source in c)
    assert closing_cycle(source, target, succ, pred) == (
        component if target in component else set()
    )


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcdefgh"), st.sampled_from("abcdefgh")), max_size=16))
def test_cycles_among_the_kahn_candidates_are_every_cycle_networkx_finds(
    edges: list[tuple[str, str]],
) -> None:
    graph: nx.DiGraph[str] = nx.DiGraph(edges)
    succ = {n: list(graph.successors(n)) for n in graph}
    pred = {n: list(graph.predecessors(n)) for n in graph}
    counts = {n: len(targets) for n, targets in succ.items() if targets}
    candidates = cycle_candidates(counts, pred)
    expected = sorted(
        tuple(sorted(c))
        for c in nx.strongly_connected_components(graph)
        if len(c) > 1 or any(graph.has_edge(n, n) for n in c)
    )
    assert cycles_among(graph, candidates) == expected
    assert (not candidates) == (not expected)
