"""A bulk-built DiGraph is the graph networkx builds edge by edge, and stays one under edits."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph._digraph import (
    NO_ATTRIBUTES,
    NO_NEIGHBOURS,
    add_edge,
    add_node,
    bulk_digraph,
    predecessors,
    remove_edge,
    remove_node,
    successors,
)
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


def test_the_raw_neighbour_maps_are_the_graphs_own_and_follow_its_edits() -> None:
    graph = bulk_digraph(["a", "b", "c"], [("a", "b")])
    graph.add_edge("c", "b")
    graph.remove_edge("a", "b")
    assert list(predecessors(graph)["b"]) == ["c"]
    assert list(successors(graph)["c"]) == ["b"] and not successors(graph)["a"]


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


def assert_compact(graph: nx.DiGraph[str]) -> None:
    """Every node without neighbours one way shares `NO_NEIGHBOURS`, and only those do."""
    for side in (successors(graph), predecessors(graph)):
        assert all((found is NO_NEIGHBOURS) == (not found) for found in side.values())


@settings(max_examples=examples(200), deadline=None)
@given(edge_lists)
def test_a_compact_bulk_graph_equals_the_graph_add_edges_from_builds(
    edges: list[tuple[str, str]],
) -> None:
    compact = bulk_digraph(NODES, edges, compact=True)
    assert shape(compact) == shape(by_hand(edges))
    assert nx.utils.graphs_equal(compact, by_hand(edges))
    assert_compact(compact)


@settings(max_examples=examples(200), deadline=None)
@given(edge_lists, edge_lists, st.sampled_from(NODES), st.sampled_from(NODES))
def test_a_compact_graph_edited_here_equals_networkx_edited_by_itself(
    edges: list[tuple[str, str]], more: list[tuple[str, str]], gone: str, back: str
) -> None:
    compact, reference = bulk_digraph(NODES, edges, compact=True), by_hand(edges)
    for source, target in more:
        add_edge(compact, source, target)
    reference.add_edges_from(more)
    for source, target in dict.fromkeys(edges[: len(edges) // 2]):
        remove_edge(compact, source, target)
        reference.remove_edge(source, target)
    remove_node(compact, gone)
    reference.remove_node(gone)
    add_node(compact, back)
    reference.add_node(back)
    assert shape(compact) == shape(reference)
    assert_compact(compact)
    assert sorted(nx.strongly_connected_components(compact), key=sorted) == sorted(
        nx.strongly_connected_components(reference), key=sorted
    )


def test_a_compact_graph_refuses_networkx_own_edge_on_a_shared_empty_dict() -> None:
    graph = bulk_digraph(["a", "b"], [], compact=True)
    with pytest.raises(TypeError):
        graph.add_edge("a", "b")
    assert dict(NO_NEIGHBOURS) == {} and not list(graph.edges)


def test_removing_a_missing_edge_or_node_of_a_compact_graph_raises_key_error() -> None:
    graph = bulk_digraph(["a", "b"], [("a", "b")], compact=True)
    with pytest.raises(KeyError):
        remove_edge(graph, "b", "a")
    with pytest.raises(KeyError):
        remove_node(graph, "c")
    assert list(graph.edges) == [("a", "b")]
