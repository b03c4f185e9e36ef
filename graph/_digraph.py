"""A directed graph built in bulk, in one pass over its edges, and kept compact: the three
dicts a networkx `DiGraph` is made of, without networkx.

`DiGraph.add_nodes_from` and `add_edges_from` check and merge attributes node by node and
edge by edge: for a 10k-task index that is about twice the cost of making the dicts
themselves. `digraph` fills the three dicts a `DiGraph` is made of (`_node`: node →
attributes; `_succ` and `_pred`: node → neighbour → the edge's attribute dict, one dict
shared by both sides, as networkx's "Subclasses (Advanced)" docs describe them) and keeps
them in a `Digraph`. The index only ever reads neighbours (`successors`, `predecessors`)
and edits through the functions here, so a process that builds an index never imports
networkx (about a fifth of the CLI's start). `Digraph.networkx()` is a plain networkx
`DiGraph` over the same dicts, assigned through the descriptors networkx keeps for that
purpose (its own graph views assign `_succ` and `_pred` the same way), for an algorithm
that needs one; `bulk_digraph` is that graph at once. `add_edge`, `remove_node` and every
algorithm treat it as one of their own, and a test compares it with the graph
`add_edges_from` builds.

With `compact=True` every node without successors (or without predecessors) shares one
frozen empty neighbour dict, `NO_NEIGHBOURS`, instead of an empty dict of its own (64 bytes
each, two per node). Algorithms read such a graph as any other; it is edited only through
`add_node`, `add_edge`, `remove_edge` and `remove_node` here, which give a node a dict of
its own at its first edge and hand the shared one back when its last edge goes (networkx's
own `add_edge` would write into the shared dict, which refuses it).

>>> graph = bulk_digraph(["a", "b", "c"], [("a", "b"), ("c", "b"), ("a", "b")])
>>> sorted(graph.edges), list(graph.predecessors("b")), graph.number_of_nodes()
([('a', 'b'), ('c', 'b')], ['a', 'c'], 3)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Union, cast

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "NO_ATTRIBUTES",
    "NO_NEIGHBOURS",
    "Digraph",
    "Graph",
    "Neighbours",
    "add_edge",
    "add_node",
    "bulk_digraph",
    "digraph",
    "predecessors",
    "remove_edge",
    "remove_node",
    "successors",
]

Neighbours = Mapping[str, Mapping[str, Any]]
_Adjacency = dict[str, dict[str, dict[str, Any]]]


class _Shared(dict[str, Any]):
    """An empty dict that many entries of a graph share, so that it refuses to be filled.
    Removing from an empty dict changes nothing (or raises KeyError) as it is, and networkx's
    `add_node` and `add_edge` of an existing node or edge `update` the attribute dict with no
    attributes, which it allows."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> None:
        if (args and args[0]) or kwargs:
            raise TypeError("a shared empty dict of the index's graphs takes no entries")

    __setitem__ = setdefault = update = __ior__ = _refuse  # type: ignore[assignment]


NO_ATTRIBUTES: dict[str, Any] = _Shared()
"""The attribute dict of every node and edge the functions here make: the index stores no
attributes, and one shared empty dict instead of one per node and edge saved 64 bytes each
(about 35 MB over the graphs of 100k tasks)."""

NO_NEIGHBOURS: dict[str, dict[str, Any]] = _Shared()
"""The neighbour dict of every node of a compact graph that has no neighbours that way."""


class Digraph:
    """A directed graph as networkx keeps one (`_node`, `_succ`, `_pred`), without networkx:
    what the index holds. Iterating it gives its nodes; `in` asks for one."""

    __slots__ = ("_node", "_pred", "_succ", "_view")

    def __init__(self, node: dict[str, dict[str, Any]], succ: _Adjacency, pred: _Adjacency):
        self._node, self._succ, self._pred = node, succ, pred
        self._view: nx.DiGraph[str] | None = None

    def __contains__(self, node: object) -> bool:
        return node in self._node

    def __iter__(self) -> Iterator[str]:
        return iter(self._node)

    def __len__(self) -> int:
        return len(self._node)

    def networkx(self) -> nx.DiGraph[str]:
        """A networkx `DiGraph` over these same dicts (networkx is imported now), made once:
        it sees every edit made here. Read it; edit through the functions here."""
        if self._view is None:
            import networkx as nx  # noqa: PLC0415 - only for an algorithm that needs it

            view: nx.DiGraph[str] = nx.DiGraph()
            inner: Any = view  # the stubs leave networkx's own dicts out
            inner._node, inner._succ, inner._pred = self._node, self._succ, self._pred
            self._view = view
        return self._view


Graph = Union[Digraph, "nx.DiGraph[str]"]
"""Either kind: the functions here read and edit the dicts both are made of."""


def digraph(
    nodes: Iterable[str], edges: Iterable[tuple[str, str]], *, compact: bool = False
) -> Digraph:
    """The graph of `nodes` and `edges` (each edge between two of `nodes`; a repeated edge
    is one edge), with neighbours in the order their edges first came, as `add_edges_from`
    would give it; `compact`: nodes without neighbours share `NO_NEIGHBOURS`.

    >>> graph = digraph(["a", "b", "c"], [("a", "b")], compact=True)
    >>> successors(graph)["c"] is predecessors(graph)["a"] is NO_NEIGHBOURS
    True
    """
    node: dict[str, dict[str, Any]] = dict.fromkeys(nodes, NO_ATTRIBUTES)
    if compact:
        succ: _Adjacency = dict.fromkeys(node, NO_NEIGHBOURS)
        pred: _Adjacency = dict.fromkeys(node, NO_NEIGHBOURS)
    else:
        succ, pred = {n: {} for n in node}, {n: {} for n in node}
    for source, target in edges:  # `_own` inline: two calls an edge were a third of it
        after = succ[source]
        if after is NO_NEIGHBOURS:
            after = succ[source] = {}
        before = pred[target]
        if before is NO_NEIGHBOURS:
            before = pred[target] = {}
        after[target] = before[source] = NO_ATTRIBUTES
    return Digraph(node, succ, pred)


def bulk_digraph(
    nodes: Iterable[str], edges: Iterable[tuple[str, str]], *, compact: bool = False
) -> nx.DiGraph[str]:
    """`digraph(nodes, edges)` as a networkx `DiGraph` (imports networkx)."""
    return digraph(nodes, edges, compact=compact).networkx()


def _own(adjacency: _Adjacency, node: str) -> dict[str, dict[str, Any]]:
    """The neighbour dict of `node`, first made its own if it was the shared empty one."""
    found = adjacency[node]
    if found is NO_NEIGHBOURS:
        found = adjacency[node] = {}
    return found


def _drop(adjacency: _Adjacency, node: str, neighbour: str) -> None:
    """Take `neighbour` out of `node`'s neighbours, handing back the shared empty dict when
    it was the last (KeyError when it is not there)."""
    found = adjacency[node]
    del found[neighbour]
    if not found:
        adjacency[node] = NO_NEIGHBOURS


def _dicts(graph: Graph) -> tuple[dict[str, dict[str, Any]], _Adjacency, _Adjacency]:
    inner: Any = graph
    return inner._node, inner._succ, inner._pred


def _edited(graph: Graph) -> None:
    """Forget what networkx may have cached of the graph, as its own edits do."""
    view = graph._view if isinstance(graph, Digraph) else graph
    cache = getattr(view, "__networkx_cache__", None)
    if cache:
        cache.clear()


def add_node(graph: Graph, node: str) -> None:
    """Add `node` (if new) to a compact graph, with no neighbours."""
    nodes, succ, pred = _dicts(graph)
    if node not in nodes:
        nodes[node], succ[node], pred[node] = NO_ATTRIBUTES, NO_NEIGHBOURS, NO_NEIGHBOURS
        _edited(graph)


def add_edge(graph: Graph, source: str, target: str) -> None:
    """Add the edge `source → target` (if new) between two nodes of a compact graph.

    >>> graph = digraph(["a", "b"], [], compact=True)
    >>> add_edge(graph, "a", "b"); remove_edge(graph, "a", "b"); add_edge(graph, "b", "a")
    >>> list(graph.networkx().edges), successors(graph)["a"] is NO_NEIGHBOURS
    ([('b', 'a')], True)
    """
    _, succ, pred = _dicts(graph)
    _own(succ, source)[target] = _own(pred, target)[source] = NO_ATTRIBUTES
    _edited(graph)


def remove_edge(graph: Graph, source: str, target: str) -> None:
    """Remove the edge `source → target` of a compact graph (KeyError when there is none)."""
    _, succ, pred = _dicts(graph)
    _drop(succ, source, target)
    _drop(pred, target, source)
    _edited(graph)


def remove_node(graph: Graph, node: str) -> None:
    """Remove `node` and its edges from a compact graph (KeyError when it is not there)."""
    nodes, succ, pred = _dicts(graph)
    ahead, behind = succ.pop(node), pred.pop(node)
    del nodes[node]
    for target in ahead:
        if target != node:
            _drop(pred, target, node)
    for source in behind:
        if source != node:
            _drop(succ, source, node)
    _edited(graph)


def successors(graph: Graph) -> Neighbours:
    """Node → its successors, read straight from the graph's own dict (as networkx's own
    algorithms read `G._succ`): `graph.succ[node]` makes a view object per lookup, which the
    hot paths of a build and of every query cannot afford. Read-only: edit through `graph`
    (or, for a compact graph, the functions here).

    >>> dict(successors(bulk_digraph(["a", "b"], [("a", "b")]))["a"])
    {'b': {}}
    """
    return cast(Neighbours, cast(Any, graph)._succ)


def predecessors(graph: Graph) -> Neighbours:
    """Node → its predecessors, as `successors` reads them (`G._pred`). Read-only.

    >>> list(predecessors(bulk_digraph(["a", "b"], [("a", "b")]))["b"])
    ['a']
    """
    return cast(Neighbours, cast(Any, graph)._pred)
