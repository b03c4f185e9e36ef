"""Every write reports readiness as deltas: of the tasks that existed before it, those that
became ready and those no longer ready, each with why; the tasks it created under `created`
(through a real in-memory MCP client). A write and its inverse give inverse lists."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from graph.index import TaskIndex
from storage.repository import TaskRepository
from tests.conftest import examples, write
from tests.tasks_server.conftest import call, make_server, session_on

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
    async with session_on(tree(tmp_path / "tree")) as session:
        yield session


async def ready_ids(client: Client) -> set[str]:
    return {t["id"] for t in (await call(client, "get_ready_tasks"))["tasks"]}


def moved(data: dict[str, Any], key: str) -> dict[str, str]:
    return {row["task_id"]: row["reason"] for row in data[key]}


async def test_completing_a_dependency_readies_the_open_subtree_of_its_dependent(
    client: Client,
) -> None:
    data = await call(client, "complete_task", task_id="dep")
    assert moved(data, "became_ready") == {"part-1": "blocked", "part-2": "blocked"}
    assert moved(data, "no_longer_ready") == {"dep": "done"}
    assert data["created"] == []
    assert {"part-1", "part-2"} <= await ready_ids(client)


async def test_completing_several_tasks_reports_every_subtree_they_unblock(
    client: Client,
) -> None:
    data = await call(client, "complete_tasks", task_ids=["dep", "gate"])
    assert [row["task_id"] for row in data["became_ready"]] == ["leaf", "part-1", "part-2"]
    assert moved(data, "no_longer_ready") == {"dep": "done"}


async def test_reopening_a_done_dependency_reports_its_dependents_subtree_no_longer_ready(
    client: Client,
) -> None:
    await call(client, "complete_task", task_id="dep")
    data = await call(client, "update_task", task_id="dep", status="active")
    assert moved(data, "no_longer_ready") == {"part-1": "blocked", "part-2": "blocked"}
    assert moved(data, "became_ready") == {"dep": "done"}


async def test_blocking_then_unblocking_a_parent_gives_inverse_lists(client: Client) -> None:
    blocked = await call(client, "update_task", task_id="user", status="blocked")
    freed = await call(client, "update_task", task_id="user", status="active")
    assert moved(blocked, "became_ready") == moved(freed, "no_longer_ready") == {}
    assert set(moved(blocked, "no_longer_ready")) == set(moved(freed, "became_ready"))
    assert all(reason == "blocked" for reason in moved(freed, "became_ready").values())


async def test_moving_a_task_under_a_blocked_parent_reports_it_no_longer_ready(
    client: Client,
) -> None:
    data = await call(client, "update_task", task_id="dep", parent="gate")
    assert moved(data, "no_longer_ready") == {"dep": "blocked"}


async def test_moving_a_task_under_a_ready_parent_reports_the_parent_no_longer_ready(
    client: Client,
) -> None:
    data = await call(client, "update_task", task_id="waiting", parent="dep")
    assert moved(data, "no_longer_ready") == {"dep": "waiting_on_children"}


async def test_deleting_a_blocked_parent_reports_the_children_it_frees(client: Client) -> None:
    data = await call(client, "delete_task", task_id="gate")
    assert moved(data, "became_ready") == {"leaf": "blocked"}
    assert data["no_longer_ready"] == []


async def test_deleting_a_ready_task_reports_it_no_longer_ready_as_deleted(
    client: Client,
) -> None:
    data = await call(client, "delete_task", task_id="dep")
    assert moved(data, "no_longer_ready") == {"dep": "deleted"}


async def test_decomposing_a_blocked_task_lists_its_children_as_created_not_ready(
    client: Client,
) -> None:
    data = await call(client, "decompose_task", task_id="epic", children=[{"title": "More"}])
    child = data["children"][0]["id"]
    assert data["created"] == [{"task_id": child, "ready": False}]
    assert data["became_ready"] == data["no_longer_ready"] == []


async def test_decomposing_a_ready_task_names_the_parent_no_longer_ready(client: Client) -> None:
    data = await call(client, "decompose_task", task_id="dep", children=[{"title": "Half"}])
    child = data["children"][0]["id"]
    assert data["created"] == [{"task_id": child, "ready": True}]
    assert moved(data, "no_longer_ready") == {"dep": "waiting_on_children"}
    assert data["became_ready"] == []


async def test_creating_a_missing_dependency_as_done_readies_the_task_naming_it(
    client: Client,
) -> None:
    data = await call(client, "create_task", title="Later", id="later", status="done")
    assert moved(data, "became_ready") == {"waiting": "blocked"}
    assert data["created"] == [{"task_id": "later", "ready": False}]


async def test_creating_a_child_of_a_ready_task_reports_the_parent_no_longer_ready(
    client: Client,
) -> None:
    data = await call(client, "create_task", title="Sub", id="sub", status="active", parent="dep")
    assert moved(data, "no_longer_ready") == {"dep": "waiting_on_children"}
    assert data["created"] == [{"task_id": "sub", "ready": True}]


# --- every write, at random, against two fresh builds of the tree on disk ----------------

IDS = ["dep", "user", "part-1", "gate", "epic", "leaf", "later"]
ids = st.sampled_from(IDS)
statuses = st.sampled_from(["active", "blocked", "done", "inbox"])
writes = st.one_of(
    st.builds(lambda i: ("complete_task", {"task_id": i, "force": True}), ids),
    st.builds(
        lambda i: ("complete_tasks", {"task_ids": i, "force": True}),
        st.lists(ids, min_size=1, max_size=3),
    ),
    st.builds(lambda i, s: ("update_task", {"task_id": i, "status": s}), ids, statuses),
    st.builds(
        lambda i, p: ("update_task", {"task_id": i, "parent": p}), ids, st.one_of(st.just(""), ids)
    ),
    st.builds(
        lambda i, d: ("update_task", {"task_id": i, "depends_on": d}),
        ids,
        st.lists(ids, max_size=2),
    ),
    st.builds(
        lambda s, p: ("create_task", {"title": "New", "id": "later", "status": s, "parent": p}),
        statuses,
        st.one_of(st.none(), ids),
    ),
    st.builds(lambda i: ("decompose_task", {"task_id": i, "children": [{"title": "C"}]}), ids),
    st.builds(lambda i: ("delete_task", {"task_id": i}), ids),
)


def fresh_build(root: Path) -> TaskIndex:
    return TaskIndex.build(TaskRepository(root).scan().tasks())


def ready(index: TaskIndex) -> set[str]:
    return {i for i in index.ids() if index.facts(i).is_ready}


def readiness_delta(before: TaskIndex, after: TaskIndex) -> dict[str, list[str]]:
    """The deltas an oracle sees between two fresh builds."""
    old, new = ready(before), ready(after)
    existed = set(before.ids())
    return {
        "became_ready": sorted((new - old) & existed),
        "no_longer_ready": sorted(old - new),
        "created": sorted(set(after.ids()) - existed),
    }


def reported(data: dict[str, Any]) -> dict[str, list[str]]:
    return {key: sorted(row["task_id"] for row in data[key]) for key in
            ("became_ready", "no_longer_ready", "created")}  # fmt: skip


async def check_writes(root: Path, sequence: list[tuple[str, dict[str, Any]]]) -> None:
    server = make_server(root)
    async with Client(server) as session:
        for tool, args in sequence:
            before = fresh_build(root)
            result = await session.call_tool(tool, {k: v for k, v in args.items() if v is not None})
            after = fresh_build(root)
            if result.is_error:
                assert ready(before) == ready(after), (tool, args)
                continue
            data = result.structured_content or {}
            assert reported(data) == readiness_delta(before, after), (tool, args)
            new_ready = {row["task_id"] for row in data["created"] if row["ready"]}
            assert new_ready == set(readiness_delta(before, after)["created"]) & ready(after)
    server.context.close()


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(sequence=st.lists(writes, min_size=1, max_size=4))
def test_every_write_reports_what_two_fresh_builds_of_the_tree_differ_by(
    tmp_path_factory: pytest.TempPathFactory, sequence: list[tuple[str, dict[str, Any]]]
) -> None:
    root = tree(tmp_path_factory.mktemp("tree"))
    anyio.run(check_writes, root, sequence)
