"""A misspelt tool name answers with the session's names spelled nearest to it, or none:
a fact about spelling (edit distance), never a guess at which other tool fits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from tasks_server.guidance import edit_distance, similar_names
from tests.tasks_server.conftest import fail, make_server

pytestmark = pytest.mark.anyio

SCRIPT = Path(sys.executable).with_name("tasks-server")

TYPOS = {
    "get_tsk": ["get_task"],
    "gettask": ["get_task"],
    "get_ready_task": ["get_ready_tasks"],
    "get_tasks": ["get_task", "list_tasks"],
    "make_coffee": [],
}


@pytest.mark.parametrize("typo", TYPOS)
async def test_an_unknown_tool_names_the_tools_spelled_nearest_or_none(
    client: Client, typo: str
) -> None:
    data = await fail(client, typo)
    near = TYPOS[typo]
    assert data["error"]["code"] == "UNKNOWN_TOOL"
    assert [a.split(" - ")[0] for a in data["guidance"]["available_actions"]] == near
    assert (
        (near[0] in data["guidance"]["next_action"])
        if near
        else "tools/list" in (data["guidance"]["next_action"])
    )


async def test_a_typo_is_matched_only_against_the_tools_the_session_may_call(
    example_root: Path,
) -> None:
    server = make_server(example_root, role="planner")
    async with Client(server) as session:
        data = await fail(session, "create_tsk")
    server.close()
    assert data["guidance"]["available_actions"] == []


def test_edit_distance_counts_inserts_deletes_and_substitutions() -> None:
    assert [
        edit_distance("kitten", "sitting"),
        edit_distance("", "ab"),
        edit_distance("a", "a"),
    ] == [
        3,
        2,
        0,
    ]
    assert similar_names("get_task", []) == []


def test_the_call_command_answers_a_typo_with_the_nearest_name(example_root: Path) -> None:
    done = subprocess.run(
        [str(SCRIPT), "call", "get_tsk", "--root", str(example_root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ},
    )
    data = json.loads(done.stdout)
    assert done.returncode == 1
    assert data["guidance"]["next_action"] == (
        "Call get_task if you meant it (spelled nearest to 'get_tsk')"
    )
