"""Cycle finding, edge by edge: the pieces the index keeps its cycles fresh with (and, for a
full build, `cycle_candidates` then `cycles_among`: components only where a cycle can be).

Adding one edge `source → target` closes a cycle only if `target` already reaches `source`.
`closing_cycle` answers that by searching forward from `target` and backward from `source`
in lockstep, so the cost is about twice the smaller of the two reachable sets, not the graph.

>>> succ = {"a": ["b"], "b": ["c"], "c": ["a"]}
>>> pred = {"a": ["c"], "b": ["a"], "c": ["b"]}
>>> sorted(closing_cycle("c", "a", succ, pred))
['a', 'b', 'c']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Protocol

from graph._digraph import successors

if TYPE_CHECKING:
    from graph._digraph import Graph

__all__ = [
    "Adjacency",
    "Cycle",
    "closing_cycle",
    "cycle_candidates",
    "cycles_among",
    "cyclic_components",
    "parent_cycle_through",
    "parent_cycles",
    "reach",
    "strong_components",
]


class Adjacency(Protocol):
    """Anything that maps a node to its neighbours: a dict, a networkx `succ` or `pred`."""

    def __getitem__(self, node: str, /) -> Iterable[str]: ...


class Cycle(tuple[str, ...]):
    """A cycle's sorted members: made once per cycle and shared by all of them (the index
    maps each member to the same object, and each member's record holds it).

    A plain tuple is hashed and compared member by member, every time: records holding an
    n-task cycle, each hashed once at a build, cost n² in all. A `Cycle` computes its hash
    once and is equal to itself at once, so a cycle of any size costs a record no more than
    a short one; two cycles with equal members are still equal (one found again after an
    edit, or by a fresh build).

    >>> a, b = Cycle(("x", "y")), Cycle(("x", "y"))
    >>> a == b, hash(a) == hash(("x", "y")), a, a[:1]
    (True, True, ('x', 'y'), ('x',))
    """

    _hash: int

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            self._hash = tuple.__hash__(self)
            return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, Cycle) and hash(self) != hash(other):
            return False
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other


def reach(start: str, neighbours: Adjacency, within: Collection[str] | None = None) -> set[str]:
    """Every node reachable from `start` (itself included), optionally only through `within`.

    >>> sorted(reach("a", {"a": ["b"], "b": ["a", "c"], "c": []}))
    ['a', 'b', 'c']
    """
    seen = {start}
    stack = [start]
    while stack:
        for node in neighbours[stack.pop()]:
            if node not in seen and (within is None or node in within):
                seen.add(node)
                stack.append(node)
    return seen


def _lockstep(forward: Iterator[str], backward: Iterator[str]) -> bool:
    """Advance two searches one step each until one ends; True when `forward` ended first."""
    while True:
        if next(forward, None) is None:
            return True
        if next(backward, None) is None:
            return False


def _search(start: str, neighbours: Adjacency, seen: set[str]) -> Iterator[str]:
    """Depth-first search that fills `seen` and yields once per node it expands."""
    seen.add(start)
    stack = [start]
    while stack:
        node = stack.pop()
        for following in neighbours[node]:
            if following not in seen:
                seen.add(following)
                stack.append(following)
        yield node


def closing_cycle(source: str, target: str, succ: Adjacency, pred: Adjacency) -> set[str]:
    """Members of the cycle through the edge `source → target` (empty when there is none).

    `succ` and `pred` describe the graph (with or without that edge). The members are the
    nodes `w` with `target ⇝ w ⇝ source`, plus `source`: the whole strongly connected
    component the edge creates or joins (a self-loop is a cycle of its component).

    >>> sorted(closing_cycle("b", "a", {"a": ["b"], "b": []}, {"a": [], "b": ["a"]}))
    ['a', 'b']
    """
    ahead: set[str] = set()
    behind: set[str] = set()
    forward_done = _lockstep(_search(target, succ, ahead), _search(source, pred, behind))
    if forward_done:
        return reach(source, pred, ahead | {source}) if source in ahead else set()
    return reach(target, succ, behind) if target in behind else set()


def cyclic_components(components: Iterable[set[str]], loops: Collection[str]) -> list[Cycle]:
    """The components that hold a cycle (two or more members, or one in `loops`, the nodes
    with a self-loop), each sorted, the list sorted.

    >>> cyclic_components([{"b", "a"}, {"c"}, {"d"}], loops={"d"})
    [('a', 'b'), ('d',)]
    """
    found = [
        Cycle(sorted(part)) for part in components if len(part) > 1 or not part.isdisjoint(loops)
    ]
    return sorted(found)


def cycle_candidates(
    target_counts: Mapping[str, int], pred: Mapping[str, Iterable[str]]
) -> list[str]:
    """The nodes a topological (Kahn) pass cannot order: those on a cycle or leading to one.
    Every cycle lies among them: none left means no cycle. `target_counts` gives each node's
    number of distinct targets, `pred` each node's distinct sources (a node with none may be
    left out of either).

    >>> pred = {"b": ["a", "c"], "c": ["b"], "e": ["d"]}
    >>> cycle_candidates({"a": 1, "b": 1, "c": 1, "d": 1}, pred)
    ['a', 'b', 'c']
    """
    remaining = dict(target_counts)
    ordered = [node for node in pred if not remaining.get(node)]
    for node in ordered:  # grows as nodes lose their last unordered target
        for source in pred.get(node, ()):
            left = remaining[source] - 1
            remaining[source] = left
            if not left:
                ordered.append(source)
    return [node for node, left in remaining.items() if left]


def cycles_among(graph: Graph, nodes: Collection[str]) -> list[Cycle]:
    """The cycles of the subgraph `nodes` induce in `graph`, as `cyclic_components` lists
    them.

    >>> from graph._digraph import digraph
    >>> graph = digraph("abcd", [("a", "b"), ("b", "a"), ("b", "c"), ("d", "d")])
    >>> cycles_among(graph, ["a", "b", "c", "d"]), cycles_among(graph, ["a", "c"])
    ([('a', 'b'), ('d',)], [])
    """
    if not nodes:
        return []
    within = set(nodes)
    succ = successors(graph)
    loops = {node for node in within if node in succ[node]}
    return cyclic_components(strong_components(succ, within), loops)


def strong_components(succ: Adjacency, within: Collection[str]) -> Iterator[set[str]]:
    """The strongly connected components of the subgraph `within` induces (Tarjan's, with
    an explicit stack: a 100k-task cycle is 100k levels deep). Linear, and several times
    faster than networkx's over a subgraph view, which filters every neighbour lookup.

    >>> succ = {"a": ["b"], "b": ["a", "c"], "c": ["c"], "d": ["a"]}
    >>> sorted(sorted(part) for part in strong_components(succ, ["a", "b", "c"]))
    [['a', 'b'], ['c']]
    """
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    for root in within:
        if root in order:
            continue
        order[root] = low[root] = len(order)
        stack.append(root)
        work = [(root, iter(succ[root]))]
        while work:
            node, ahead = work[-1]
            for child in ahead:
                if child not in within:
                    continue
                if child not in order:
                    order[child] = low[child] = len(order)
                    stack.append(child)
                    work.append((child, iter(succ[child])))
                    break
                if child in low:  # still on the stack: no component took it yet
                    low[node] = min(low[node], order[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == order[node]:
                    yield _component_of(node, stack, low)


def _component_of(node: str, stack: list[str], low: dict[str, int]) -> set[str]:
    """Pop the component rooted at `node` off `stack`, taking its members out of `low`
    (which then holds only the nodes still on the stack)."""
    part: set[str] = set()
    while True:
        member = stack.pop()
        del low[member]
        part.add(member)
        if member == node:
            return part


def parent_cycle_through(task_id: str, parent_of: Callable[[str], str | None]) -> tuple[str, ...]:
    """The sorted members of the parent cycle `task_id` sits on, or () when it is on none.

    >>> parents = {"a": "b", "b": "a", "c": "a"}
    >>> parent_cycle_through("a", parents.get), parent_cycle_through("c", parents.get)
    (('a', 'b'), ())
    """
    found = parent_cycles([task_id], parent_of)
    return found[0] if found and task_id in found[0] else ()


def parent_cycles(ids: Iterable[str], parent_of: Callable[[str], str | None]) -> list[Cycle]:
    """Every parent cycle among `ids`, each as its sorted members, in one pass over the ids.

    >>> parents = {"a": "b", "b": "a", "c": "a", "d": None, "e": "e"}
    >>> parent_cycles(parents, parents.get)
    [('a', 'b'), ('e',)]
    """
    done: set[str] = set()
    found: list[Cycle] = []
    for start in ids:
        path: dict[str, None] = {}
        current: str | None = start
        while current is not None and current not in done and current not in path:
            path[current] = None
            current = parent_of(current)
        if current is not None and current in path:
            members = list(path)
            found.append(Cycle(sorted(members[members.index(current) :])))
        done.update(path)
    return sorted(found)
