"""Tasks as MCP resources through the SDK client: listed, read as the file is, the template's
id completed, and a subscriber told of a change to a task's file by any writer (an
editor's save, another process's write), under both protocol generations: the handshake
era's `resources/subscribe` and 2026-07-28's `subscriptions/listen`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceTemplateReference, ResourceUpdatedNotification

from tasks_server.edge.server import TasksServer
from tests.tasks_server.conftest import make_server
from tests.tasks_server.test_changes import edit, first_state

pytestmark = pytest.mark.anyio

SCRIPT = Path(sys.executable).with_name("tasks-server")
GUARD = 60  # seconds: a hang guard only, never a measure


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tasks"
    first_state(root)
    return root


@pytest.fixture
async def server(tree: Path) -> AsyncIterator[TasksServer]:
    built = make_server(tree, watch=True)
    yield built
    built.context.close()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_every_task_is_a_resource_read_as_its_file(
    server: TasksServer, tree: Path, mode: str
) -> None:
    async with Client(server, mode=mode) as client:
        listed = await client.list_resources()
        templates = await client.list_resource_templates()
        read = await client.read_resource("task://a")
    assert sorted(r.uri for r in listed.resources) == sorted(f"task://{i}" for i in "abcdefghkmp")
    assert {r.mime_type for r in listed.resources} == {"text/markdown"}
    assert [t.uri_template for t in templates.resource_templates] == ["task://{id}"]
    assert read.contents[0].text == (tree / "a.md").read_text()  # type: ignore[union-attr]


async def test_an_unknown_task_or_another_scheme_is_an_error(server: TasksServer) -> None:
    async with Client(server) as client:
        for uri in ("task://nope", "file:///etc/passwd"):
            with pytest.raises(MCPError):
                await client.read_resource(uri)


async def test_the_templates_id_completes_from_the_tasks_ids(server: TasksServer) -> None:
    ref = ResourceTemplateReference(uri="task://{id}")
    async with Client(server) as client:
        some = await client.complete(ref, {"name": "id", "value": "a"})
        every = await client.complete(ref, {"name": "id", "value": ""})
        other = await client.complete(ref, {"name": "other", "value": "a"})
    assert some.completion.values == ["a"]
    assert every.completion.total == 11 and not every.completion.has_more
    assert other.completion.values == []


def write_from_another_process(root: Path) -> None:
    done = subprocess.run(
        [str(SCRIPT), "call", "update_task", "--root", str(root),
         "--args", '{"task_id": "a", "title": "Written elsewhere"}'],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


WRITERS = {
    "editor": lambda root: edit(root, "a.md", title="Saved by hand"),
    "process": write_from_another_process,
}


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")  # this era's own call
@pytest.mark.parametrize("writer", sorted(WRITERS))
async def test_a_subscriber_of_the_handshake_era_is_told_of_a_change(
    server: TasksServer, tree: Path, writer: str
) -> None:
    told: list[str] = []
    arrived = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            told.append(message.params.uri)
            arrived.set()

    async with Client(server, mode="legacy", message_handler=on_message) as client:
        await client.subscribe_resource("task://a")
        await anyio.to_thread.run_sync(WRITERS[writer], tree)
        with anyio.fail_after(GUARD):
            await arrived.wait()
    assert told[0] == "task://a"


@pytest.mark.parametrize("writer", sorted(WRITERS))
async def test_a_listener_of_2026_is_told_of_a_change(
    server: TasksServer, tree: Path, writer: str
) -> None:
    async with Client(server) as client, client.listen(resource_subscriptions=["task://a"]) as sub:
        await anyio.to_thread.run_sync(WRITERS[writer], tree)
        with anyio.fail_after(GUARD):
            event = await anext(aiter(sub))
    assert event.uri == "task://a"  # type: ignore[union-attr]
