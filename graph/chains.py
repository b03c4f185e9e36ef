"""The dependency chain facts of every task, raw and unranked (seed 004's
`_get_dependency_chain_length`, and how many tasks a task unblocks).

Over the graph of `depends_on` edges between existing tasks (dangling ids left out), with each
dependency cycle (a strongly connected component, a self-loop included) collapsed into one
node, for a task `t`:

    dependency_chain_length     the most edges on a path leaving t (0 when t depends on nothing
                                or only on members of its own cycle)
    unblocks_count              the tasks whose depends_on names t (t itself when it names itself)
    unblocks_transitive_count   the distinct tasks that reach t by following depends_on, t
                                itself excluded (the other members of its cycle included)

`chains(index)` is made once per index generation (the index keeps it until its next edit)
over the condensation the index already keeps (its dependency cycles, kept edit by edit).
Each fact is computed when a task is first asked for and kept until the next edit: a chain
length by a walk down that keeps every component's length it passes (all of them, over
every task: linear in the edges), a transitive count by a walk up over the components
upstream. A page of rows costs what its tasks' neighbourhoods hold, never the whole graph
(a first pass over all 100,000 tasks of a generated tree cost more than the page it served;
counting every task's reachers at once needs a set per task: seconds and 170 MB there).

>>> from graph.index import TaskIndex
>>> from storage.model import Task
>>> index = TaskIndex.build([
...     Task(id="a", title="A", path="a.md"),
...     Task(id="b", title="B", path="b.md", depends_on=("a", "gone")),
...     Task(id="c", title="C", path="c.md", depends_on=("b", "a")),
... ])
>>> found = chains(index)
>>> found["a"], found["c"].dependency_chain_length
(ChainFacts(dependency_chain_length=0, unblocks_count=2, unblocks_transitive_count=2), 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from graph._digraph import Graph, predecessors, successors

if TYPE_CHECKING:  # the index asks for its chains (`TaskIndex.about`): no import back
    from graph.index import TaskIndex

__all__ = ["KEPT_AS", "NO_CHAIN", "ChainFacts", "Chains", "chains"]

KEPT_AS = "chains"
"""The name the index keeps the facts under until its next edit."""


class ChainFacts(NamedTuple):
    dependency_chain_length: int
    unblocks_count: int
    unblocks_transitive_count: int


NO_CHAIN = ChainFacts(0, 0, 0)
"""The facts of a task on no depends_on edge (it names none and none names it)."""


def chains(index: TaskIndex) -> Mapping[str, ChainFacts]:
    """The chain facts of every task, by id (kept by the index until its next edit)."""
    graph, cycles = index.dependency_graph(), index.dependency_cycle_members()
    return index.until_edit_value(KEPT_AS, lambda: Chains(graph, cycles))


class Chains(Mapping[str, ChainFacts]):
    """The facts by task id, each component's computed when first asked for, then kept:
    over the index's depends_on graph and its cycles (`TaskIndex.dependency_graph`,
    `dependency_cycle_members`, which the index hands over itself)."""

    def __init__(self, graph: Graph, cycles: Mapping[str, tuple[str, ...]]) -> None:
        self._depends_on = successors(graph)
        self._named_by = predecessors(graph)
        self._component = {task_id: members[0] for task_id, members in cycles.items()}
        self._members = {members[0]: members for members in cycles.values()}
        self._longest: dict[str, int] = {}
        self._reached: dict[str, int] = {}

    def __getitem__(self, task_id: str) -> ChainFacts:
        named_by = self._named_by[task_id]  # KeyError for a task the index does not hold
        own = self._component.get(task_id, task_id)
        return ChainFacts(self._chain(own), len(named_by), self._reached_by(own))

    def __iter__(self) -> Iterator[str]:
        return iter(self._named_by)

    def __len__(self) -> int:
        return len(self._named_by)

    def _size(self, own: str) -> int:
        return len(self._members.get(own, (own,)))

    def _next(self, own: str, edges: Mapping[str, Iterable[str]]) -> set[str]:
        """The components one edge of `edges` away from component `own` (not itself)."""
        component = self._component
        found = {component.get(t, t) for m in self._members.get(own, (own,)) for t in edges[m]}
        found.discard(own)
        return found

    def _chain(self, start: str) -> int:
        """The most edges on a path down from component `start`: a walk down that keeps the
        length of each component it finishes (the condensation has no cycle)."""
        longest = self._longest
        stack = [start]
        while stack:
            node = stack[-1]
            if node in longest:
                stack.pop()
                continue
            below = self._next(node, self._depends_on)
            waiting = [target for target in below if target not in longest]
            if waiting:
                stack.extend(waiting)
                continue
            longest[node] = max((longest[target] + 1 for target in below), default=0)
            stack.pop()
        return longest[start]

    def _reached_by(self, own: str) -> int:
        """The tasks other than the task itself that reach component `own`: the other
        members of its cycle and every task of every component upstream of it."""
        found = self._reached.get(own)
        if found is None:
            seen, stack = {own}, [own]
            found = self._size(own) - 1
            while stack:
                for upstream in self._next(stack.pop(), self._named_by):
                    if upstream not in seen:
                        seen.add(upstream)
                        found += self._size(upstream)
                        stack.append(upstream)
            self._reached[own] = found
        return found
