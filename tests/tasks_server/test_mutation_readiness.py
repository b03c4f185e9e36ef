"""Every write reports the tasks it made ready and those it made blocked, through
dependencies and ancestors alike (through a real in-memory MCP client)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import write
from tests.tasks_server.conftest import call, make_server

pytestmark = pytest.mark.anyio

# dep <- user (depends on dep) with two open parts; gate (blocked) over an open epic.
TREE = {
    "dep": {"status": "active"},
    "user": {"status": "active", "depends_on": "[dep]"},
    "part-1": {"status": "active", "parent": "user"},
    "part-2": {"status": "active", "parent": "user"},
    "gate": {"status": "blocked"},
    "epic": {"status": "active", "parent": "gate"},
    "leaf": {"status": "active", "parent": "epic"},
    "waiting": {"status": "active", "depends_on": "[later]"},
}


def tree(root: Path) -> Path:
    for task_id, fields in TREE.items():
        lines = [f"id: {task_id}", f"title: Task {task_id}"]
        lines += [f"{key}: {value}" for key, value in fields.items()]
        write(root, f"t/{task_id}.md", "---\n" + "\n".join(lines) + "\n---\n")
    return root


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    server = make_server(tree(tmp_path / "tree"))
    async with Client(server) as session:
        yield session
    server.context.close()


async def ready_ids(client: Client) -> set[str]:
    return {t["id"] for t in (await call(client, "get_ready_tasks"))["tasks"]}


async def test_completing_a_dependency_readies_the_open_subtree_of_its_dependent(
    client: Client,
) -> None:
    data = await call(client, "complete_task", task_id="dep")
    assert data["unblocked"] == ["part-1", "part-2"]
    assert data["became_blocked"] == []
    assert {"part-1", "part-2"} <= await ready_ids(client)


async def test_completing_several_tasks_reports_every_subtree_they_unblock(
    client: Client,
) -> None:
    data = await call(client, "complete_tasks", task_ids=["dep", "gate"])
    assert data["unblocked"] == ["leaf", "part-1", "part-2"]
    assert data["became_blocked"] == []


async def test_reopening_a_done_dependency_reports_its_dependents_subtree_blocked(
    client: Client,
) -> None:
    await call(client, "complete_task", task_id="dep")
    data = await call(client, "update_task", task_id="dep", status="active")
    assert data["became_blocked"] == ["part-1", "part-2", "user"]
    assert data["unblocked"] == ["dep"]


async def test_moving_a_task_under_a_blocked_parent_reports_it_blocked(client: Client) -> None:
    data = await call(client, "update_task", task_id="dep", parent="gate")
    assert data["became_blocked"] == ["dep"]


async def test_deleting_a_blocked_parent_reports_the_children_it_frees(client: Client) -> None:
    data = await call(client, "delete_task", task_id="gate")
    assert data["unblocked"] == ["leaf"]
    assert data["became_blocked"] == []


async def test_decomposing_a_blocked_task_reports_its_new_children_blocked(
    client: Client,
) -> None:
    data = await call(client, "decompose_task", task_id="epic", children=[{"title": "More"}])
    assert data["became_blocked"] == [data["children"][0]["id"]]
    assert data["unblocked"] == []


async def test_decomposing_a_ready_task_reports_its_new_children_ready(client: Client) -> None:
    data = await call(client, "decompose_task", task_id="dep", children=[{"title": "Half"}])
    assert data["unblocked"] == [data["children"][0]["id"]]


async def test_creating_a_missing_dependency_as_done_readies_the_task_naming_it(
    client: Client,
) -> None:
    data = await call(client, "create_task", title="Later", id="later", status="done")
    assert data["unblocked"] == ["waiting"]
    assert data["became_blocked"] == []
