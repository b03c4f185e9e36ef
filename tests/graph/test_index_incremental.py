"""Invariant: an index kept fresh with `apply` answers exactly like one built from scratch."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.index import TaskIndex
from storage.model import Task
from tests.graph.builders import NOW, state_of, task

IDS = ["a", "b", "c", "d", "e", "f", "g"]
MISSING = ["x", "y"]
NAMES = IDS + MISSING
STATUSES = ["active", "active", "in_progress", "blocked", "review", "inbox", "done", "cancelled"]
STAMPS = [None, *(NOW - timedelta(days=d) for d in range(4))]

names = st.sampled_from(NAMES)
tasks = st.builds(
    lambda task_id, status, parent, deps, soft, project, kind, priority, modified, completed: task(
        task_id,
        status=status,
        parent=parent,
        deps=deps,
        soft=soft,
        project=project,
        type=kind,
        priority=priority,
        modified=modified,
        completed=completed,
    ),
    st.sampled_from(IDS),
    st.sampled_from(STATUSES),
    st.one_of(st.none(), names),
    st.lists(names, max_size=3),
    st.lists(names, max_size=2),
    st.sampled_from([None, "p1", "p2"]),
    st.sampled_from(["task", "epic", "bug"]),
    st.integers(0, 2),
    st.sampled_from(STAMPS),
    st.sampled_from(STAMPS),
)
edits = st.lists(
    st.tuples(st.lists(tasks, max_size=3), st.lists(st.sampled_from(IDS), max_size=2)),
    min_size=1,
    max_size=25,
)


def current(index: TaskIndex) -> list[Task]:
    return index.tasks()


@settings(max_examples=200, deadline=None)
@given(st.lists(tasks, max_size=7), edits)
def test_applied_edits_give_the_same_index_as_a_fresh_build(
    start: list[Task], steps: list[tuple[list[Task], list[str]]]
) -> None:
    index = TaskIndex.build(start)
    for upserted, removed in steps:
        index.apply(upserted, removed)
        assert state_of(index) == state_of(TaskIndex.build(current(index)))


@settings(max_examples=60, deadline=None)
@given(st.lists(tasks, max_size=7))
def test_building_in_any_order_gives_the_same_index(start: list[Task]) -> None:
    unique = list({t.id: t for t in start}.values())
    forward = TaskIndex.build(unique)
    backward = TaskIndex.build(reversed(unique))
    one_by_one = TaskIndex()
    for item in unique:
        one_by_one.apply([item])
    assert state_of(forward) == state_of(backward) == state_of(one_by_one)
