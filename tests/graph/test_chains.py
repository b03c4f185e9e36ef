"""The chain facts (`graph.chains`) against a plain computation of their definitions, on
generated trees with dependency cycles, self-references and dangling ids."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph.chains import ChainFacts, chains
from graph.index import TaskIndex
from storage.model import Task
from tests.conftest import examples
from tests.graph.builders import index_of, task

IDS = [f"t{n}" for n in range(14)]
DANGLING = ["gone1", "gone2"]


def _reach(deps: dict[str, list[str]], start: str) -> set[str]:
    """Every existing task `start` reaches through one or more depends_on edges."""
    seen: set[str] = set()
    stack = [d for d in deps[start] if d in deps]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(d for d in deps[node] if d in deps)
    return seen


def expected(tasks: list[Task]) -> dict[str, ChainFacts]:
    """The definitions, computed the slow plain way: components from mutual reach, the
    longest path over them by memoised recursion, the reachers by brute force."""
    deps = {t.id: list(t.depends_on) for t in tasks}
    reach = {t: _reach(deps, t) for t in deps}
    component = {t: frozenset({t} | {u for u in reach[t] if t in reach[u]}) for t in deps}
    longest: dict[frozenset[str], int] = {}

    def chain(c: frozenset[str]) -> int:
        if c not in longest:
            out = {component[d] for t in c for d in deps[t] if d in deps} - {c}
            longest[c] = max((chain(d) + 1 for d in out), default=0)
        return longest[c]

    return {
        t: ChainFacts(
            chain(component[t]),
            sum(t in deps[u] for u in deps),
            sum(t in reach[u] for u in deps if u != t),
        )
        for t in deps
    }


@st.composite
def trees(draw: st.DrawFn) -> list[Task]:
    ids = IDS[: draw(st.integers(1, len(IDS)))]
    targets = st.sampled_from(ids + DANGLING)
    return [task(i, deps=draw(st.lists(targets, max_size=3, unique=True))) for i in ids]


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees())
def test_the_chain_facts_equal_their_definitions_computed_plainly(tasks: list[Task]) -> None:
    assert dict(chains(index_of(*tasks))) == expected(tasks)


@settings(max_examples=examples(50), deadline=None)
@given(trees(), st.data())
def test_the_chain_facts_after_an_edit_equal_those_of_a_fresh_build(
    tasks: list[Task], data: st.DataObject
) -> None:
    index = TaskIndex.build(tasks)
    chains(index)  # kept until the edit
    changed = replace(data.draw(st.sampled_from(tasks)), depends_on=(tasks[0].id,))
    index.apply([changed])
    edited = [changed if t.id == changed.id else t for t in tasks]
    assert dict(chains(index)) == expected(edited)


def test_a_cycle_counts_as_one_node_and_dangling_ids_as_none() -> None:
    index = index_of(
        task("a", deps=["b"]),
        task("b", deps=["a", "c", "missing"]),
        task("c", deps=["d"]),
        task("d"),
        task("top", deps=["a"]),
    )
    found = chains(index)
    assert found["top"] == ChainFacts(3, 0, 0)  # top → {a, b} → c → d
    assert found["a"] == ChainFacts(2, 2, 2)  # b and top name it; b and top reach it
    assert found["d"] == ChainFacts(0, 1, 4)
