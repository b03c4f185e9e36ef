"""The kept task order: a group's view reads like the sorted list, with one member left out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graph._order import Group, Key, Order, OrderedIds

ids = st.lists(st.sampled_from("abcdefghij"), unique=True)
bounds = st.one_of(st.none(), st.integers(-12, 12))


@given(ids, st.integers(0, 12), bounds, bounds, st.sampled_from([None, 1, 2, -1]))
def test_a_view_slices_like_the_list_without_the_left_out_member(
    members: list[str], skip: int, start: int | None, stop: int | None, step: int | None
) -> None:
    expected = [m for n, m in enumerate(members) if n != skip]
    view = OrderedIds(members, skip if skip < len(members) else None)
    assert len(view) == len(expected)
    assert view[start:stop:step] == expected[start:stop:step]
    assert [view[i] for i in range(-len(view), len(view))] == expected + expected


KEYS: dict[str, Key] = {"a": (1, 0, "a"), "b": (2, 0, "b"), "c": (0, 5, "c")}


def test_a_group_is_sorted_on_its_first_read_and_not_asked_for_again() -> None:
    asked: list[Group] = []

    def members(group: Group) -> list[str]:
        asked.append(group)
        return ["b", "a", "c"]

    order = Order()
    first = order.view(("project", "p"), members, KEYS.__getitem__)
    again = order.view(("project", "p"), members, KEYS.__getitem__, without="a")
    assert (first[:], again[:], asked) == (["c", "a", "b"], ["c", "b"], [("project", "p")])


def test_leaving_out_a_task_that_is_not_a_member_leaves_the_group_whole() -> None:
    order = Order()
    view = order.view(("project", "p"), lambda group: ["a", "b"], KEYS.__getitem__, without="c")
    assert (view[:], len(view)) == (["a", "b"], 2)
