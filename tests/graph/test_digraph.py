"""A bulk-built DiGraph is the graph networkx builds edge by edge, and stays one under edits."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph._digraph import NO_ATTRIBUTES, bulk_digraph
from tests.conftest import examples

NODES = list("abcdef")
edge_lists = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)), max_size=20)


def by_hand(edges: list[tuple[str, str]]) -> nx.DiGraph[str]:
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(NODES)
    graph.add_edges_from(edges)
    return graph


def shape(graph: nx.DiGraph[str]) -> tuple[list[str], dict[str, list[str]], dict[str, list[str]]]:
    """Nodes and both adjacencies with their neighbour order (which `graphs_equal` ignores)."""
    succ = {n: list(graph.successors(n)) for n in graph}
    pred = {n: list(graph.predecessors(n)) for n in graph}
    return list(graph), succ, pred


@settings(max_examples=examples(200), deadline=None)
@given(edge_lists)
def test_a_bulk_graph_equals_the_graph_add_edges_from_builds(edges: list[tuple[str, str]]) -> None:
    bulk = bulk_digraph(NODES, edges)
    assert nx.utils.graphs_equal(bulk, by_hand(edges))
    assert shape(bulk) == shape(by_hand(edges))
    assert bulk.number_of_edges() == len(set(edges))


@settings(max_examples=examples(200), deadline=None)
@given(edge_lists, edge_lists, st.sampled_from(NODES))
def test_a_bulk_graph_takes_edits_as_its_own(
    edges: list[tuple[str, str]], more: list[tuple[str, str]], gone: str
) -> None:
    bulk, reference = bulk_digraph(NODES, edges), by_hand(edges)
    for graph in (bulk, reference):
        graph.add_edges_from(more)
        graph.remove_edges_from(edges[: len(edges) // 2])
        graph.remove_node(gone)
    assert shape(bulk) == shape(reference)
    assert sorted(nx.strongly_connected_components(bulk), key=sorted) == sorted(
        nx.strongly_connected_components(reference), key=sorted
    )


def test_an_edge_shares_one_attribute_dict_between_its_two_sides() -> None:
    graph = bulk_digraph(["a", "b"], [("a", "b")])
    assert graph.pred["b"]["a"] is graph.adj["a"]["b"]


def test_a_bulk_graph_shares_one_empty_attribute_dict_and_refuses_attributes() -> None:
    graph = bulk_digraph(["a", "b"], [("a", "b")])
    assert graph.nodes["a"] is NO_ATTRIBUTES and graph.edges["a", "b"] is NO_ATTRIBUTES
    graph.add_edge("a", "b")  # no attributes: allowed, changes nothing
    graph.add_node("a")
    with pytest.raises(TypeError):
        graph.add_edge("a", "b", weight=1)
    with pytest.raises(TypeError):
        graph.nodes["b"]["colour"] = "red"
    assert dict(NO_ATTRIBUTES) == {}
    graph.add_edge("b", "a", weight=1)  # a new edge gets a dict of its own
    assert graph.edges["b", "a"] == {"weight": 1} and dict(NO_ATTRIBUTES) == {}
