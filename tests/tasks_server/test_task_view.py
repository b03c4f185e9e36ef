"""A full task view stays bounded: a hub's dependents are counted in full and listed by id
up to a page, in task order."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tasks_server.views import BLOCKS_SHOWN
from tests.conftest import write
from tests.tasks_server.conftest import call, make_server

pytestmark = pytest.mark.anyio


async def test_a_hub_view_counts_every_dependent_and_lists_the_first_page(
    tmp_path: Path,
) -> None:
    write(tmp_path, "hub.md", "---\nid: hub\ntitle: Hub\nstatus: active\n---\n")
    waiting = [f"w{i:03d}" for i in range(BLOCKS_SHOWN + 10)]
    for n, task_id in enumerate(waiting):
        text = f"---\nid: {task_id}\ntitle: W\npriority: {n % 3}\ndepends_on: [hub]\n---\n"
        write(tmp_path, f"{task_id}.md", text)
    server = make_server(tmp_path)
    async with Client(server) as client:
        view = (await call(client, "get_task", task_id="hub"))["task"]
    server.context.close()
    in_order = sorted(waiting, key=lambda i: (waiting.index(i) % 3, i))
    assert view["blocking_count"] == len(waiting)
    assert view["blocks"] == in_order[:BLOCKS_SHOWN]
