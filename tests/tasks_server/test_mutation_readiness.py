"""Every write reports the tasks it made ready and those it made blocked, through
dependencies and ancestors alike (through a real in-memory MCP client)."""

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


def entered(before: TaskIndex, after: TaskIndex, flag: str) -> list[str]:
    was = {i for i in before.ids() if getattr(before.facts(i), flag)}
    return sorted(i for i in after.ids() if getattr(after.facts(i), flag) and i not in was)


async def check_writes(root: Path, sequence: list[tuple[str, dict[str, Any]]]) -> None:
    server = make_server(root)
    async with Client(server) as session:
        for tool, args in sequence:
            before = fresh_build(root)
            result = await session.call_tool(tool, {k: v for k, v in args.items() if v is not None})
            after = fresh_build(root)
            if result.is_error:
                assert entered(before, after, "is_ready") == [], (tool, args)
                continue
            data = result.structured_content or {}
            assert sorted(data["unblocked"]) == entered(before, after, "is_ready"), (tool, args)
            assert sorted(data["became_blocked"]) == entered(before, after, "is_blocked")
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
