"""Every metric on real trees, pinned with syrupy: the bundled example tree and the datasets.

The bundled tree is read from `data/`; the beads and Backlog.md datasets are imported into
`tmp_path` with storage's importers first; the academicOps files are read where they are.
`now` is fixed, so ages and windows are stable. Outputs are compared as JSON-ready dicts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from graph.index import TaskIndex
from graph.metrics import graph_metrics
from graph.neighborhood import decomposition_context, neighborhood
from graph.query import render_ascii, tree
from graph.readiness import blocked_tasks, in_progress_tasks, ready_tasks, review_tasks
from graph.review import review_snapshot
from graph.sections import Sections
from graph.signals import structural_signals
from graph.topology import scoring_factors, topology_rows
from storage.importers import import_backlog, import_beads
from storage.repository import TaskRepository
from tests.conftest import DATA, DATASETS, datasets
from tests.graph.builders import NOW

BEADS = ("NVIDIA__skyhook", "NingYuM__mbtpdf", "MuhDur__rust-oracledb")
SMALL = ("data", "NVIDIA__skyhook", "academicops")


def _scan(root: Path) -> TaskIndex:
    return TaskIndex.build(TaskRepository(root).scan().tasks())


def _imported(factory: pytest.TempPathFactory, name: str) -> TaskIndex:
    root = factory.mktemp(name)
    if name in BEADS:
        import_beads(DATASETS / "beads" / f"{name}.jsonl", TaskRepository(root))
    else:
        import_backlog(DATASETS / "backlog" / "ChronoVortex07__taskwright", TaskRepository(root))
    return _scan(root)


class Trees(dict[str, TaskIndex]):
    """Each tree built the first time a test asks for it, so the bundled tree's tests run
    on a bare clone while the dataset ones skip."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        super().__init__()
        self.factory = factory

    def __missing__(self, name: str) -> TaskIndex:
        if name == "data":
            index = _scan(DATA)
        elif name == "academicops":
            index = _scan(DATASETS / "academicops")
        else:
            index = _imported(self.factory, name)
        self[name] = index
        return index


ALL_TREES = ("data", "academicops", *BEADS, "taskwright")


def tree_param(name: str) -> Any:
    return name if name == "data" else pytest.param(name, marks=datasets)


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Trees:
    return Trees(tmp_path_factory)


def dump(value: Any) -> Any:
    """Models and lists of models as JSON-ready data."""
    if isinstance(value, list):
        return [dump(item) for item in value]
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return value


def _review(index: TaskIndex) -> dict[str, Any]:
    snap = review_snapshot(index, since_days=30, now=NOW).model_dump(mode="json")
    return {key: snap[key] for key in ("changes_since", "staleness", "velocity")}


OUTPUTS: dict[str, Callable[[TaskIndex], Any]] = {
    "metrics": graph_metrics,
    "signals": structural_signals,
    "ready": ready_tasks,
    "blocked": blocked_tasks,
    "review_and_in_progress": lambda i: {
        "review": review_tasks(i),
        "in_progress": in_progress_tasks(i),
    },
    "review_snapshot": _review,
}
SMALL_OUTPUTS: dict[str, Callable[[TaskIndex], Any]] = {
    "metrics_by_project": lambda i: [graph_metrics(i, "project", p) for p in i.projects()],
    "facts": lambda i: {task_id: i.facts(task_id) for task_id in i.ids()},
    "topology": lambda i: topology_rows(i, now=NOW),
    "scoring_factors": lambda i: scoring_factors(i, ready_only=False, include_done=True, now=NOW),
    "tree": lambda i: render_ascii(tree(i)).splitlines(),
    "neighborhood_of_first_ready": lambda i: [
        _sections(neighborhood(i, i.require(t))) for t in ready_tasks(i)[:1]
    ],
    "decomposition_of_first_root": lambda i: [
        _sections(decomposition_context(i, i.require(t))) for t in sorted(i.tally.roots)[:1]
    ],
}


def _sections(sections: Sections) -> dict[str, Any]:
    return {**sections.facts, **{name: list(ids) for name, ids in sections.lists.items()}}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return dump(value)


@pytest.mark.parametrize("name", [tree_param(name) for name in ALL_TREES])
@pytest.mark.parametrize("output", sorted(OUTPUTS))
def test_every_tree_gives_its_pinned_metrics(
    trees: dict[str, TaskIndex], name: str, output: str, snapshot: SnapshotAssertion
) -> None:
    assert _plain(OUTPUTS[output](trees[name])) == snapshot


@pytest.mark.parametrize("name", [tree_param(name) for name in SMALL])
@pytest.mark.parametrize("output", sorted(SMALL_OUTPUTS))
def test_small_trees_give_their_pinned_per_task_outputs(
    trees: dict[str, TaskIndex], name: str, output: str, snapshot: SnapshotAssertion
) -> None:
    assert _plain(SMALL_OUTPUTS[output](trees[name])) == snapshot


@datasets
def test_every_real_tree_refreshes_to_the_same_answers_as_a_build(trees: Trees) -> None:
    for index in (trees[name] for name in ALL_TREES):
        fresh = TaskIndex()
        fresh.apply(index.tasks())
        assert graph_metrics(fresh) == graph_metrics(index)
        assert structural_signals(fresh) == structural_signals(index)
