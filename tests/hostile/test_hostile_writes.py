"""Hostile values through the write tools, over a real MCP client: what a caller writes is
what every later call (and every other reader of the file) sees, or a clean refusal that
leaves the tree as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from mcp import Client

from storage import codec
from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio

LINE_BREAKERS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r"]


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def task_file(root: Path, data: dict[str, object]) -> Path:
    task = data["task"]
    assert isinstance(task, dict)
    return root / str(task["path"])


async def test_a_title_holding_a_line_separator_survives_an_update_of_its_status(
    client: Client, example_root: Path
) -> None:
    written = {}
    for breaker in LINE_BREAKERS:
        title = f"a{breaker}status: done"
        created = await call(client, "create_task", title=title, status="active")
        await call(client, "update_task", task_id=created["task"]["id"], status="blocked")
        written[created["task"]["id"]] = (title, task_file(example_root, created))
    for task_id, (title, path) in written.items():
        task = (await call(client, "get_task", task_id=task_id))["task"]
        assert (task["title"], task["status"]) == (title, "blocked")
        read = codec.loads(path.read_text(encoding="utf-8"))
        assert (read.title, read.status) == (title, "blocked")


async def test_tags_yaml_1_1_would_retype_are_kept_as_written_for_every_reader(
    client: Client, example_root: Path
) -> None:
    tags = ["0b101", "0o17", "0x1F", "1_000", "+1", "12:30", "on", "~", "2024-01-01"]
    created = await call(client, "create_task", title="Tagged", tags=tags)
    task = (await call(client, "get_task", task_id=created["task"]["id"]))["task"]
    assert task["tags"] == tags
    front = codec.split(task_file(example_root, created).read_text(encoding="utf-8")).front
    assert yaml.safe_load(front)["tags"] == tags


@pytest.mark.parametrize(
    "task_id", ["abc\n", "abc\r\n", "a\u2028b", "a" * 256, "../x", ".hidden"], ids=ascii
)
async def test_create_task_with_an_invalid_id_is_refused_and_writes_nothing(
    client: Client, example_root: Path, task_id: str
) -> None:
    before = files(example_root)
    data = await fail(client, "create_task", title="T", id=task_id)
    assert data["error"]["code"] == "INVALID_ARGUMENT"
    assert files(example_root) == before


async def test_create_task_with_a_project_past_the_length_cap_is_refused_and_writes_nothing(
    client: Client, example_root: Path
) -> None:
    before = files(example_root)
    data = await fail(client, "create_task", title="T", project="p" * 256)
    assert data["error"]["code"] == "INVALID_ARGUMENT"
    assert files(example_root) == before
