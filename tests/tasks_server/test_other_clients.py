"""A Python client we did not write: fastmcp's, over stdio to a real server process
(one process shared by the tests that only read).

fastmcp turns each tool's published outputSchema into Python types of its own and parses
every structured result into them (`result.data`), a path independent of jsonschema; its
errors come back as `ToolError`. Every tool of the default session is called with the same
valid arguments the SDK-client meta-test uses.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError

from docs.examples import ARGUMENTS
from tasks_server.toolset import open_toolset
from tests.conftest import DATA
from tests.gitrepo import commit_all, init
from tests.tasks_server.test_every_call import walk_order

pytestmark = pytest.mark.anyio


def stdio(root: Path) -> StdioTransport:
    return StdioTransport(sys.executable, ["-m", "tasks_server", "serve", "--root", str(root)])


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module-wide, so one client session serves the tests that only read."""
    return "asyncio"


@pytest.fixture(scope="module")
async def reader(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client[Any]]:
    """One fastmcp session to one server process over a copy of the bundled tree, for the
    tests that only read it (the walk of every tool writes, so it has its own)."""
    root = tmp_path_factory.mktemp("read") / "tree"
    shutil.copytree(DATA, root)
    async with Client(stdio(root)) as client:
        yield client


async def test_fastmcp_reads_every_tools_result_into_the_types_its_schema_describes(
    example_root: Path,
) -> None:
    commit_all(init(example_root), "the example tree")  # get_changes reads git
    async with Client(stdio(example_root)) as client:
        names = [tool.name for tool in await client.list_tools()]
        for name in walk_order(names):
            arguments: dict[str, Any] = dict(ARGUMENTS.get(name, {}))
            if name == "reorder_children":
                children = await client.call_tool("get_children", {"task_id": "wx-84e61ceb"})
                arguments["order"] = [t["id"] for t in children.structured_content["tasks"]]
            if name == "wait_for_changes":  # the token of a state; answers at once
                stats = await client.call_tool("get_index_stats", {})
                arguments = {"since_token": stats.structured_content["token"], "timeout_seconds": 0}
            result = await client.call_tool(name, arguments)
            data = result.structured_content
            assert not result.is_error and data is not None and data["success"] is True, name
            assert json.loads(result.content[0].text) == data, name  # type: ignore[union-attr]
            assert result.data is not None and result.data.success is True, name
    toolset = open_toolset(example_root, watch=False)
    toolset.context.close()
    assert sorted(names) == sorted(toolset.names)


async def test_fastmcp_types_a_results_keys_and_gives_its_rows_as_the_tree_has_them(
    reader: Client[Any],
) -> None:
    result = await reader.call_tool("list_tasks", {"limit": 100})
    rows = result.structured_content["tasks"]  # type: ignore[index]
    assert result.data.count == len(rows) and result.data.total >= len(rows)
    assert result.data.tasks == rows  # a row is published as its required keys: a dict
    assert any("parent" not in row for row in result.data.tasks)
    assert all({"id", "title", "type", "status", "priority"} <= row.keys() for row in rows)


async def test_fastmcp_raises_the_error_code_and_the_unraised_result_carries_it(
    reader: Client[Any],
) -> None:
    with pytest.raises(ToolError, match="TASK_NOT_FOUND"):
        await reader.call_tool("get_task", {"task_id": "nope"})
    result = await reader.call_tool("get_task", {"task_id": "nope"}, raise_on_error=False)
    assert result.is_error and result.structured_content is None
    error = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert error["error"]["code"] == "TASK_NOT_FOUND"
    assert error["guidance"]["available_actions"]


async def test_fastmcp_reads_rows_in_columns_with_one_valued_fields_in_same(
    reader: Client[Any],
) -> None:
    arguments = {"project": "wx", "status": "active", "format": "columns"}
    result = await reader.call_tool("list_tasks", arguments)
    tasks = result.structured_content["tasks"]  # type: ignore[index]
    assert tasks["same"] == {"status": "active", "project": "wx"}
    assert result.data.tasks == tasks  # published as its required keys: a dict
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
