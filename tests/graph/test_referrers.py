"""Referrers, edited link by link, are what gathering the final edges at once gives, and a
networkx graph's predecessors."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph._referrers import Referrers
from tests.conftest import examples

NODES = list("abcde")
edge = st.tuples(st.sampled_from(NODES), st.sampled_from(NODES))
steps = st.lists(st.tuples(st.booleans(), edge), max_size=30)


class FewInTuples(Referrers):
    """Referrers that go from tuples to dicts and back at a few names, as big ones do."""

    __slots__ = ()
    TUPLE_MOST = 2


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from([Referrers, FewInTuples]), st.lists(edge, max_size=10), steps)
def test_linked_and_unlinked_referrers_equal_gathered_ones_and_networkx_predecessors(
    kind: type[Referrers],
    start: list[tuple[str, str]],
    edits: list[tuple[bool, tuple[str, str]]],
) -> None:
    referrers = kind.gathered(start)
    graph: nx.DiGraph[str] = nx.DiGraph(start)
    graph.add_nodes_from(NODES)
    for add, (source, target) in edits:
        if add:
            referrers.link(source, target)
            graph.add_edge(source, target)
        elif graph.has_edge(source, target):
            referrers.unlink(source, target)
            graph.remove_edge(source, target)
    assert {n: list(referrers[n]) for n in NODES} == {n: list(graph.predecessors(n)) for n in NODES}
    assert {n: set(names) for n, names in referrers.items()} == {
        n: set(names) for n, names in kind.gathered(graph.edges).items()
    }
    assert all(referrers.values())
    assert all(isinstance(names, tuple) for names in referrers.values() if len(names) <= 1)


def test_a_task_nobody_names_reads_as_named_by_none_and_gets_no_entry() -> None:
    referrers = Referrers.gathered([("a", "b")])
    assert referrers["a"] == () and referrers.get("a") is None and len(referrers) == 1


def test_unlinking_an_edge_that_is_not_there_raises_key_error_and_changes_nothing() -> None:
    referrers = Referrers.gathered([("a", "b")])
    with pytest.raises(KeyError):
        referrers.unlink("c", "b")
    with pytest.raises(KeyError):
        referrers.unlink("a", "c")
    assert referrers == {"b": ("a",)}


def test_forgetting_a_target_hands_back_its_referrers() -> None:
    referrers = Referrers.gathered([("a", "b"), ("c", "b")])
    assert referrers.forget("b") == ("a", "c") and referrers.forget("b") == () and not referrers


def test_a_task_named_by_thousands_keeps_them_in_order_through_edits() -> None:
    sources = [f"t{i}" for i in range(2000)]
    referrers = Referrers.gathered((source, "p") for source in sources)
    for source in sources[::2]:
        referrers.unlink(source, "p")
    referrers.link("t0", "p")
    assert list(referrers["p"]) == [*sources[1::2], "t0"]
    for source in [*sources[1::2], "t0"]:
        referrers.unlink(source, "p")
    assert not referrers
