"""Deferral: a task whose defer_until is ahead is neither ready nor blocked, and goes ready
by itself once the server's clock passes it (real files, real MCP client, fixed clock)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from mcp import Client

from tasks_server.edge.server import TasksServer
from tests.conftest import write
from tests.tasks_server.conftest import NOW, call, make_server
from tests.tasks_server.test_mutation_validation import files

pytestmark = pytest.mark.anyio

TREE = {
    "later.md": "---\nid: later\ntitle: Later\nstatus: active\ndefer_until: 2026-12-01\n---\n",
    "past.md": "---\nid: past\ntitle: Past\nstatus: active\n"
    'defer_until: "2026-11-22T11:59:59Z"\n---\n',
    "soon.md": "---\nid: soon\ntitle: Soon\nstatus: active\n"
    'defer_until: "2026-11-22T13:00:00+01:00"\n---\n',  # noon UTC: already over
    "held.md": "---\nid: held\ntitle: Held\nstatus: active\ndepends_on: [plain]\n"
    "defer_until: 2027-01-01\n---\n",
    "plain.md": "---\nid: plain\ntitle: Plain\nstatus: active\n---\n",
}


@pytest.fixture
async def deferred(tmp_path: Path) -> AsyncIterator[tuple[Client, TasksServer, Path]]:
    for name, text in TREE.items():
        write(tmp_path, name, text)
    server = make_server(tmp_path)
    async with Client(server) as client:
        yield client, server, tmp_path
    server.context.close()


async def ready_ids(client: Client) -> list[str]:
    return [t["id"] for t in (await call(client, "get_ready_tasks"))["tasks"]]


async def test_a_task_deferred_to_the_future_is_not_ready_and_one_in_the_past_is(
    deferred: tuple[Client, TasksServer, Path],
) -> None:
    client, _, _ = deferred
    assert await ready_ids(client) == ["past", "plain", "soon"]


async def test_its_facts_say_until_when_and_that_it_is_not_blocked(
    deferred: tuple[Client, TasksServer, Path],
) -> None:
    client, _, _ = deferred
    task = (await call(client, "get_task", task_id="later"))["task"]
    assert task["deferred_until"] == "2026-12-01T00:00:00Z"
    assert (task["is_ready"], task["is_blocked"]) == (False, False)
    assert "deferred_until" not in (await call(client, "get_task", task_id="past"))["task"]


async def test_get_blocked_tasks_lists_deferred_tasks_only_when_asked(
    deferred: tuple[Client, TasksServer, Path],
) -> None:
    client, _, _ = deferred
    assert (await call(client, "get_blocked_tasks"))["tasks"] == []
    asked = await call(client, "get_blocked_tasks", include_deferred=True)
    rows = {row["task"]["id"]: row for row in asked["tasks"]}
    assert sorted(rows) == ["held", "later"]
    assert rows["later"]["deferred_until"] == "2026-12-01T00:00:00Z"
    assert rows["held"]["unmet_dependencies"] == ["plain"]


async def test_it_goes_ready_by_itself_when_the_moment_passes_with_no_write(
    deferred: tuple[Client, TasksServer, Path],
) -> None:
    client, server, root = deferred
    before = files(root)
    server.context.clock = lambda: NOW + timedelta(days=9)
    assert await ready_ids(client) == ["later", "past", "plain", "soon"]
    assert "deferred_until" not in (await call(client, "get_task", task_id="later"))["task"]
    assert files(root) == before
