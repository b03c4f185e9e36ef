"""Every query tool called on the bundled tree and on imported real datasets, with the
results pinned as snapshots (read and judged right; unstable fields stripped)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from syrupy.assertion import SnapshotAssertion

from storage.importers import import_backlog, import_beads
from storage.repository import TaskRepository
from tests.conftest import DATASETS, datasets
from tests.tasks_server.conftest import call, make_server

pytestmark = pytest.mark.anyio

UNSTABLE = {
    "file_modified", "root", "load_seconds", "index_age_seconds", "last_refresh_seconds", "token",
}  # fmt: skip


def stable(data: Any) -> Any:
    """The result without fields that change from run to run (times of this run, tmp paths)."""
    if isinstance(data, dict):
        return {k: stable(v) for k, v in data.items() if k not in UNSTABLE}
    if isinstance(data, list):
        return [stable(item) for item in data]
    return data


BUNDLED_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_graph_metrics", {}),
    ("get_graph_metrics", {"scope": "project", "scope_id": "wx"}),
    ("get_graph_metrics", {"scope": "subtree", "scope_id": "pipe-2052e52b"}),
    ("get_task", {"task_id": "wx-ec7ac8ad"}),
    ("list_tasks", {"project": "grant", "status": "active"}),
    ("search_tasks", {"query": "battery"}),
    ("get_children", {"task_id": "wx-84e61ceb"}),
    ("get_dependencies", {"task_id": "grant-03f84c48"}),
    ("get_task_tree", {"project": "vol", "format": "ascii"}),
    ("get_task_tree", {"task_id": "pipe-2052e52b", "max_depth": 1}),
    ("get_ready_tasks", {}),
    ("get_blocked_tasks", {}),
    ("get_review_tasks", {}),
    ("get_task_scoring_factors", {}),
    ("get_decomposition_context", {"task_id": "wx-6ca4a1a9", "limit": 5}),
    ("get_task_neighborhood", {"task_id": "pipe-a84567f9", "limit": 5}),
    ("get_tasks_with_topology", {"min_depth": 3}),
    ("get_tasks_with_topology", {"min_blocking_count": 2}),
    ("get_review_snapshot", {"since_days": 7}),
    ("get_structural_signals", {}),
    ("get_index_stats", {}),
]


@pytest.fixture
async def bundled(example_root: Path) -> AsyncIterator[Client]:
    server = make_server(example_root)
    async with Client(server) as client:
        yield client
    server.context.close()


@pytest.mark.parametrize(("tool", "arguments"), BUNDLED_CALLS, ids=str)
async def test_query_tools_on_the_bundled_tree(
    bundled: Client, tool: str, arguments: dict[str, Any], snapshot: SnapshotAssertion
) -> None:
    assert stable(await call(bundled, tool, **arguments)) == snapshot


@pytest.fixture
async def imported(tmp_path: Path) -> AsyncIterator[Client]:
    """The skyhook beads export and the taskwright Backlog.md folder, in one tree."""
    root = tmp_path / "imported"
    repository = TaskRepository(root)
    import_beads(DATASETS / "beads" / "NVIDIA__skyhook.jsonl", repository)
    import_backlog(DATASETS / "backlog" / "ChronoVortex07__taskwright", repository)
    server = make_server(root)
    async with Client(server) as client:
        yield client
    server.context.close()


IMPORTED_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_graph_metrics", {}),
    ("get_graph_metrics", {"scope": "project", "scope_id": "skyhook"}),
    ("get_ready_tasks", {"limit": 10}),
    ("get_blocked_tasks", {"limit": 10}),
    ("get_task", {"task_id": "skyhook-gld"}),
    ("get_task_tree", {"task_id": "skyhook-gld", "format": "ascii"}),
    ("get_task_neighborhood", {"task_id": "skyhook-gld.1", "limit": 3}),
    ("get_tasks_with_topology", {"project": "skyhook"}),
    ("get_structural_signals", {}),
    ("get_review_snapshot", {"since_days": 30}),
]


@datasets
@pytest.mark.parametrize(("tool", "arguments"), IMPORTED_CALLS, ids=str)
async def test_query_tools_on_imported_datasets(
    imported: Client, tool: str, arguments: dict[str, Any], snapshot: SnapshotAssertion
) -> None:
    assert stable(await call(imported, tool, **arguments)) == snapshot
