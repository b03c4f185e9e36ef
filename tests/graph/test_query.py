"""list_tasks, search_tasks, tree and render_ascii."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graph.errors import InvalidArgument, UnknownTask
from graph.index import TaskIndex
from graph.query import list_tasks, render_ascii, search_tasks, tree
from tests.conftest import examples
from tests.graph.builders import index_of, sample_tree, task


def people() -> TaskIndex:
    return index_of(
        task("a", priority=0, assignee="ann", tags=["x"]),
        task("b", priority=3, assignee="bob", tags=["x", "y"], type="bug"),
        task("c", priority=4, status="inbox"),
    )


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, ["a", "b", "c"]),
        ({"priority": 3}, ["b"]),
        ({"priority_max": 3}, ["a", "b"]),
        ({"assignee": "ann"}, ["a"]),
        ({"tag": "x"}, ["a", "b"]),
        ({"tag": "y", "type": "bug"}, ["b"]),
        ({"status": "To-Do"}, ["a", "b"]),
    ],
)
def test_list_filters_are_mechanical(filters: dict[str, Any], expected: list[str]) -> None:
    assert list(list_tasks(people(), **filters)) == expected


def test_list_by_project_status_type_and_parent() -> None:
    index = sample_tree()
    assert list(list_tasks(index, project="alpha")) == ["e", "r", "t1", "t2", "t3"]
    assert list(list_tasks(index, status="closed")) == ["t1"]
    assert list(list_tasks(index, type="epic")) == ["e"]
    assert list(list_tasks(index, parent="e", status="active")) == ["t2"]


def test_bad_list_arguments_are_errors() -> None:
    with pytest.raises(InvalidArgument):
        list_tasks(people(), priority=5)
    with pytest.raises(UnknownTask):
        list_tasks(people(), parent="nope")


def test_search_matches_title_and_body_in_any_case_ordered_by_id() -> None:
    index = index_of(
        task("z", title="Parser rewrite", priority=0),
        task("b", title="Other", body="the PARSER fails"),
        task("c", title="Unrelated"),
    )
    assert list(search_tasks(index, "parser")) == ["b", "z"]
    with pytest.raises(InvalidArgument):
        search_tasks(index, "  ")


TRICKY = "aAbBsSiIkK fF\u00df\u1e9e\u0130\u0131\u0307\ufb01\u212a\u03a3\u03c3\u03c2\u00e9E\u0301"
TEXT = st.text(st.sampled_from(TRICKY), max_size=12) | st.text(
    st.characters(codec=None, categories=None), max_size=40
)


def plain_search(texts: list[tuple[str, str]], query: str) -> list[str]:
    """The definition: the query casefolded, in the title or the body casefolded."""
    needle = query.casefold()
    return sorted(
        f"t{n}"
        for n, (title, body) in enumerate(texts)
        if needle in title.casefold() or needle in body.casefold()
    )


@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=8), TEXT, st.data())
@settings(max_examples=examples(2000))
def test_search_finds_exactly_what_casefolded_containment_finds(
    texts: list[tuple[str, str]], query: str, data: st.DataObject
) -> None:
    """Any Unicode, ASCII or not on either side: "ß" is "ss", "ﬁ" is "fi", the Kelvin sign
    is "k" and "İ" is "i" with a combining dot, in a title, a body or the query."""
    if data.draw(st.booleans()):
        source = data.draw(st.sampled_from([text for pair in texts for text in pair]))
        start = data.draw(st.integers(0, len(source)))
        cut = source[start : start + data.draw(st.integers(1, 6))]
        query = data.draw(st.sampled_from([cut, cut.upper(), cut.casefold()])) or query
    assume(query.casefold().strip())
    index = index_of(*(task(f"t{n}", title=t or "x", body=b) for n, (t, b) in enumerate(texts)))
    texts = [(t or "x", b) for t, b in texts]
    assert list(search_tasks(index, query)) == plain_search(texts, query)


@pytest.mark.parametrize(
    ("body", "query", "found"),
    [
        ("STRASSE", "stra\u00dfe", True),
        ("the file", "\ufb01le", True),
        ("a \ufb01le", "FILE", True),
        ("\u0130stanbul", "i\u0307stanbul", True),
        ("istanbul", "\u0130stanbul", False),
        ("42 kelvin", "42 \u212aelvin", True),
        ("caf\u00e9", "CAF\u00c9", True),
        ("cafe\u0301", "caf\u00e9", False),
        ("lone \udc80 surrogate", "\udc80", True),
    ],
)
def test_search_in_bodies_follows_unicode_casefolding(body: str, query: str, found: bool) -> None:
    index = index_of(task("a", title="Untitled", body=body))
    assert list(search_tasks(index, query)) == (["a"] if found else [])


def test_a_search_asked_again_answers_afresh_after_every_edit() -> None:
    index = index_of(task("a", body="alpha notes"), task("b", body="beta notes"))
    assert list(search_tasks(index, "gamma")) == []
    index.apply(upserted=[task("b", body="now GAMMA too")])
    assert list(search_tasks(index, "gamma")) == ["b"]
    assert list(search_tasks(index, "notes")) == ["a"]
    index.apply(upserted=[task("c", title="Gamma ray")], removed=["b"])
    assert list(search_tasks(index, "Gamma")) == ["c"]


def test_the_whole_tree_renders_as_ascii() -> None:
    assert render_ascii(tree(sample_tree())) == "\n".join(
        [
            "o [active] Task o",
            "r [active] Task r",
            "└── e [active] Task e",
            "    ├── t1 [done] Task t1",
            "    ├── t2 [active] Task t2",
            "    └── t3 [blocked] Task t3",
            "s [in_progress] Task s",
            "└── u [inbox] Task u",
        ]
    )


def test_a_tree_of_one_project_one_root_or_limited_depth() -> None:
    index = sample_tree()
    assert [n.id for n in tree(index, project="beta")] == ["s"]
    (epic,) = tree(index, root_id="e", max_depth=0)
    assert (epic.id, epic.children) == ("e", [])
    (top,) = tree(index, root_id="r", max_depth=1)
    assert [c.id for c in top.children] == ["e"] and top.children[0].children == []


def test_excluded_statuses_drop_their_subtrees() -> None:
    (top,) = tree(sample_tree(), root_id="e", exclude_status=["completed"])
    assert [c.id for c in top.children] == ["t2", "t3"]


def test_a_tree_through_a_parent_cycle_stops_where_it_closes() -> None:
    index = index_of(task("a", parent="b"), task("b", parent="a"), task("c", parent="a"))
    assert tree(index) == []
    assert render_ascii(tree(index, root_id="a")) == "\n".join(
        ["a [active] Task a", "├── b [active] Task b", "└── c [active] Task c"]
    )


def test_bad_tree_arguments_are_errors() -> None:
    with pytest.raises(InvalidArgument):
        tree(sample_tree(), max_depth=-1)
    with pytest.raises(UnknownTask):
        tree(sample_tree(), root_id="nope")


def test_a_filtered_list_is_fresh_after_every_edit() -> None:
    index = index_of(task("a", project="x"), task("b", project="x", priority=0))
    assert list(list_tasks(index, project="x", priority_max=2)) == ["b", "a"]
    index.apply([task("a", project="x", priority=3), task("c", project="x", priority=1)])
    assert list(list_tasks(index, project="x", priority_max=2)) == ["b", "c"]
    assert list(list_tasks(index)) == ["b", "c", "a"]


def test_many_distinct_filters_between_edits_all_answer_right() -> None:
    index = index_of(*(task(f"t{i}", priority=i % 5) for i in range(20)))
    for _ in range(2):
        for limit in range(5):
            expected = sorted(
                (t for t in index.tasks() if t.priority <= limit), key=lambda t: (t.priority, t.id)
            )
            for tag in (None, *(f"tag{n}" for n in range(20))):
                found = list(list_tasks(index, priority_max=limit, tag=tag))
                assert found == ([t.id for t in expected] if tag is None else [])
