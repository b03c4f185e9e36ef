"""An index built from saved facts equals one derived from the tasks, and saved facts that do
not fit the tasks are never taken."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bench.generate import generate_tree
from graph import _facts
from graph.index import TaskIndex
from storage.importers import import_backlog
from storage.model import Task
from storage.repository import TaskRepository
from tests.conftest import datasets, need_datasets
from tests.graph.builders import state_of, task


def in_order(index: TaskIndex) -> dict[str, Any]:
    """What `state_of` sorts, in the index's own order: the records and the tally's groups."""
    tally = index.tally
    groups = (tally.ready, tally.blocked, tally.roots, tally.orphans, tally.terminal_open)
    return {
        "records": list(index._records.items()),
        "groups": [list(group) for group in groups],
        "by_status": {k: list(v) for k, v in tally.by_status.items()},
        "out_degrees": {k: list(v) for k, v in tally.out_degrees.items()},
    }


def assert_restored_equal(tasks: list[Task]) -> None:
    built = TaskIndex.build(tasks)
    saved = built.saved_facts()
    assert saved is not None
    restored = TaskIndex.build(tasks, saved)
    assert restored._records is not built._records
    assert in_order(restored) == in_order(built)
    assert state_of(restored) == state_of(built)
    assert restored._sorted["all"] == tuple(sorted(built.ids(), key=built.sort_key))


def test_an_index_from_saved_facts_equals_a_built_one_on_a_generated_tree(
    tmp_path: Path,
) -> None:
    generate_tree(tmp_path, 300, seed=3)
    assert_restored_equal(TaskRepository(tmp_path).scan().tasks())


@datasets
def test_an_index_from_saved_facts_equals_a_built_one_on_an_imported_dataset(
    tmp_path: Path,
) -> None:
    source = need_datasets() / "backlog" / "ChronoVortex07__taskwright"
    import_backlog(source, TaskRepository(tmp_path), project="taskwright")
    assert_restored_equal(TaskRepository(tmp_path).scan().tasks())


def test_a_tree_with_a_cycle_saves_no_facts() -> None:
    deps = [task("a", deps=["b"]), task("b", deps=["a"])]
    parents = [task("a", parent="b"), task("b", parent="a")]
    assert TaskIndex.build(deps).saved_facts() is None
    assert TaskIndex.build(parents).saved_facts() is None


def tree() -> list[Task]:
    return [task("p"), task("a", parent="p"), task("b", parent="p", deps=["a"])]


def test_facts_of_other_tasks_or_another_order_are_not_taken() -> None:
    tasks = tree()
    saved = TaskIndex.build(tasks).saved_facts()
    renamed = [*tasks[:2], replace(tasks[2], id="c")]
    for other in (tasks[::-1], renamed, tasks[:2]):
        assert _facts.restore(saved or b"", TaskIndex.build(other)._store) is None


def test_facts_under_other_rules_or_corrupt_are_not_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tasks = tree()
    built = TaskIndex.build(tasks)
    saved = built.saved_facts() or b""
    for bad in (b"not msgpack", saved[:-3], saved[:5]):
        restored = TaskIndex.build(tasks, bad)
        assert state_of(restored) == state_of(built)
    monkeypatch.setattr(_facts, "RULES", "another")
    assert _facts.restore(saved, built._store) is None


def test_saved_locals_naming_a_string_past_the_end_or_cut_mid_row_are_not_taken() -> None:
    built = TaskIndex.build(tree())
    saved = _facts._DECODER.decode(built.saved_facts() or b"")
    past_end = bytearray(saved.locals)
    past_end[0:4] = len(saved.texts).to_bytes(4, sys.byteorder)  # the first field: a string
    for locals_ in (bytes(past_end), saved.locals[:-4]):
        bad = _facts._ENCODER.encode(msgspec.structs.replace(saved, locals=locals_))
        assert _facts.restore(bad, built._store) is None
        assert state_of(TaskIndex.build(tree(), bad)) == state_of(built)


def test_a_saved_order_naming_a_task_twice_or_past_the_end_is_not_taken() -> None:
    built = TaskIndex.build(tree())
    saved = _facts._DECODER.decode(built.saved_facts() or b"")
    positions = list(memoryview(saved.order).cast("i"))
    twice = [positions[0], *positions[:-1]]
    past_end = [*positions[:-1], len(positions)]
    for order in (twice, past_end, positions[:-1], [-1, *positions[1:]]):
        bad = _facts._ENCODER.encode(msgspec.structs.replace(saved, order=_facts._ints(order)))
        assert _facts.restore(bad, built._store) is None
        rebuilt = TaskIndex.build(tree(), bad)
        assert not rebuilt.restored
        assert list(rebuilt.ordered_ids()) == built.ids()
