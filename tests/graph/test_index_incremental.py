"""Invariant: an index kept fresh with `apply` answers exactly like one built from scratch."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.index import GroupKind, TaskIndex
from storage.model import Task
from tests.conftest import examples
from tests.graph.builders import NOW, state_of, task

IDS = ["a", "b", "c", "d", "e", "f", "g"]
MISSING = ["x", "y"]
NAMES = IDS + MISSING
STATUSES = ["active", "active", "in_progress", "blocked", "review", "inbox", "done", "cancelled"]
STAMPS = [None, *(NOW - timedelta(days=d) for d in range(4))]

names = st.sampled_from(NAMES)
tasks = st.builds(
    lambda task_id, status, parent, deps, soft, project, kind, priority, order, stamps, extra: task(
        task_id,
        status=status,
        parent=parent,
        deps=deps,
        soft=soft,
        project=project,
        type=kind,
        priority=priority,
        order=order,
        modified=stamps[0],
        completed=stamps[1],
        extra=extra,
    ),
    st.sampled_from(IDS),
    st.sampled_from(STATUSES),
    st.one_of(st.none(), names),
    st.lists(names, max_size=3),
    st.lists(names, max_size=2),
    st.sampled_from([None, "p1", "p2"]),
    st.sampled_from(["task", "epic", "bug"]),
    st.integers(0, 2),
    st.integers(0, 2),
    st.tuples(st.sampled_from(STAMPS), st.sampled_from(STAMPS)),
    st.sampled_from([{}, {"defer_until": "2027-01-01"}]),
)
edits = st.lists(
    st.tuples(st.lists(tasks, max_size=3), st.lists(st.sampled_from(IDS), max_size=2)),
    min_size=1,
    max_size=25,
)


PROJECTS = [None, "p1", "p2"]
GROUPS: list[tuple[GroupKind, str | None]] = [
    *(("project", p) for p in PROJECTS),
    ("orphans", None),
    *((kind, n) for kind in ("parent", "depends_on", "soft_depends_on") for n in NAMES),
]


def current(index: TaskIndex) -> list[Task]:
    return index.tasks()


def is_member(item: Task, kind: GroupKind, value: str | None) -> bool:
    """Group membership read straight off the task's fields (the oracle)."""
    if kind == "project":
        return item.project == value
    if kind == "orphans":
        return item.parent is None and not item.depends_on
    if kind == "parent":
        return item.parent == value
    return value in (item.depends_on if kind == "depends_on" else item.soft_depends_on)


def sorted_afresh(index: TaskIndex) -> dict[tuple[str, str | None], list[str]]:
    """Every group's ids by filtering every task and sorting them now."""
    everything = sorted(index.tasks(), key=lambda t: (t.priority, t.order, t.id))
    return {(k, v): [t.id for t in everything if is_member(t, k, v)] for k, v in GROUPS}


def kept_orders(index: TaskIndex) -> dict[tuple[str, str | None], list[str]]:
    """Every group's ids as the index keeps them (reading a group keeps it from then on)."""
    return {(k, v): index.in_order(k, v)[:] for k, v in GROUPS}


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(tasks, max_size=7), edits)
def test_applied_edits_give_the_same_index_as_a_fresh_build(
    start: list[Task], steps: list[tuple[list[Task], list[str]]]
) -> None:
    index = TaskIndex.build(start)
    for upserted, removed in steps:
        index.apply(upserted, removed)
        assert state_of(index) == state_of(TaskIndex.build(current(index)))


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(tasks, max_size=7))
def test_building_in_any_order_gives_the_same_index(start: list[Task]) -> None:
    unique = list({t.id: t for t in start}.values())
    forward = TaskIndex.build(unique)
    backward = TaskIndex.build(reversed(unique))
    one_by_one = TaskIndex()
    for item in unique:
        one_by_one.apply([item])
    assert state_of(forward) == state_of(backward) == state_of(one_by_one)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(tasks, max_size=7), edits, st.sampled_from(IDS))
def test_kept_task_orders_stay_equal_to_sorting_afresh_after_any_edits(
    start: list[Task], steps: list[tuple[list[Task], list[str]]], left_out: str
) -> None:
    index = TaskIndex.build(start)
    assert kept_orders(index) == sorted_afresh(index)
    for upserted, removed in steps:
        index.apply(upserted, removed)
        expected = sorted_afresh(index)
        assert kept_orders(index) == expected == kept_orders(TaskIndex.build(current(index)))
        for (kind, value), ids in expected.items():
            without = [i for i in ids if i != left_out]
            assert index.in_order(kind, value, without=left_out)[:] == without  # type: ignore[arg-type]
