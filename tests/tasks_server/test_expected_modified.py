"""`expected_modified` takes what get_task shows under that name: the task's `modified`
(every write through the server stamps it anew) or its `file_modified` (which an editor's
save moves too). Either, as read, lets the write through; either, once the task was
written since, is CONFLICT and nothing changes."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio

TASK = "wx-6ca4a1a9"


@pytest.mark.parametrize("shown", ["modified", "file_modified"])
async def test_the_value_get_task_shows_lets_the_next_write_through_after_other_writes(
    client: Client, shown: str
) -> None:
    await call(client, "update_task", task_id=TASK, priority=3)  # any earlier write
    read = (await call(client, "get_task", task_id=TASK))["task"]
    data = await call(
        client, "update_task", task_id=TASK, priority=0, expected_modified=read[shown]
    )
    assert data["task"]["priority"] == 0


@pytest.mark.parametrize("shown", ["modified", "file_modified"])
async def test_the_value_read_before_another_write_is_a_conflict_and_nothing_changes(
    client: Client, example_root: Path, shown: str
) -> None:
    read = (await call(client, "get_task", task_id=TASK))["task"]
    await call(client, "add_note", task_id=TASK, text="Someone else wrote.", author="w2")
    path = example_root / read["path"]
    before = path.read_bytes()
    data = await fail(
        client, "update_task", task_id=TASK, priority=0, expected_modified=read[shown]
    )  # fmt: skip
    assert data["error"]["code"] == "CONFLICT"
    assert path.read_bytes() == before
