"""Writes are validated before their first byte, through a real client: a write whose file
would be over the size cap, or would not read back as a task, is refused with
INVALID_ARGUMENT and leaves the tree byte for byte as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from storage.repository import MAX_FILE_BYTES
from tests.conftest import write
from tests.tasks_server.conftest import fail, make_server

pytestmark = pytest.mark.anyio

TASK = "---\nid: a\ntitle: A\nstatus: active\n---\nBody.\n"


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*.md")}


async def refused(root: Path, tool: str, **arguments: object) -> str:
    server = make_server(root)
    try:
        async with Client(server) as client:
            return str((await fail(client, tool, **arguments))["error"]["code"])
    finally:
        server.context.close()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write(tmp_path / "tree", "p/tasks/a.md", TASK)
    return tmp_path / "tree"


async def test_an_update_whose_file_would_be_over_the_cap_changes_nothing(root: Path) -> None:
    before = snapshot(root)
    body = "x" * (MAX_FILE_BYTES + 1)
    assert await refused(root, "update_task", task_id="a", body=body) == "INVALID_ARGUMENT"
    assert snapshot(root) == before


async def test_a_create_with_an_oversized_title_writes_no_file(root: Path) -> None:
    before = snapshot(root)
    title = "t" * (MAX_FILE_BYTES + 1)
    assert await refused(root, "create_task", title=title) == "INVALID_ARGUMENT"
    assert snapshot(root) == before


async def test_a_decompose_with_one_blank_child_title_writes_no_child(root: Path) -> None:
    before = snapshot(root)
    children = [{"title": "Fine"}, {"title": "   "}, {"title": "Also fine"}]
    code = await refused(root, "decompose_task", task_id="a", children=children)
    assert code == "INVALID_ARGUMENT"
    assert snapshot(root) == before
