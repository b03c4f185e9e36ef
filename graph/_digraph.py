"""A networkx `DiGraph` built in bulk, in one pass over its edges (the subgraph a search for
dependency cycles hands to networkx).

`DiGraph.add_nodes_from` and `add_edges_from` check and merge attributes node by node and
edge by edge: about twice the cost of making the dicts themselves. `bulk_digraph` fills the
three dicts a `DiGraph` is made of (`_node`: node → attributes; `_succ` and `_pred`: node →
neighbour → the edge's attribute dict, one dict shared by both sides, as networkx's
"Subclasses (Advanced)" docs describe them) and assigns them through the descriptors
networkx keeps for that purpose (its own graph views assign `_succ` and `_pred` the same
way). The result is a plain `DiGraph`: `add_edge`, `remove_node` and every algorithm treat
it as one of their own, and a test compares it with the graph `add_edges_from` builds.

>>> graph = bulk_digraph(["a", "b", "c"], [("a", "b"), ("c", "b"), ("a", "b")])
>>> sorted(graph.edges), list(graph.predecessors("b")), graph.number_of_nodes()
([('a', 'b'), ('c', 'b')], ['a', 'c'], 3)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx

__all__ = ["NO_ATTRIBUTES", "bulk_digraph"]


def bulk_digraph(nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> nx.DiGraph[str]:
    """The DiGraph of `nodes` and `edges` (each edge between two of `nodes`; a repeated edge
    is one edge), with neighbours in the order their edges first came, as `add_edges_from`
    would give it."""
    node: dict[str, dict[str, Any]] = dict.fromkeys(nodes, NO_ATTRIBUTES)
    succ: dict[str, dict[str, dict[str, Any]]] = {n: {} for n in node}
    pred: dict[str, dict[str, dict[str, Any]]] = {n: {} for n in node}
    for source, target in edges:
        ahead = succ[source]
        if target not in ahead:
            ahead[target] = pred[target][source] = NO_ATTRIBUTES
    graph: nx.DiGraph[str] = nx.DiGraph()
    inner: Any = graph  # the stubs leave networkx's own dicts out
    inner._node, inner._succ, inner._pred = node, succ, pred
    return graph


class _NoAttributes(dict[str, Any]):
    """The attribute dict of every node and edge a bulk build makes: the index stores no
    attributes, and one shared empty dict instead of one per node and edge saves 64 bytes
    each. networkx's `add_node` and `add_edge` of an existing node or edge `update` it with
    no attributes, which it allows; any attribute written into it is refused."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> None:
        if (args and args[0]) or kwargs:
            raise TypeError("the index's graphs hold no node or edge attributes")

    # Removing from an empty dict changes nothing (or raises KeyError) as it is.
    __setitem__ = setdefault = update = __ior__ = _refuse  # type: ignore[assignment]


NO_ATTRIBUTES: dict[str, Any] = _NoAttributes()
