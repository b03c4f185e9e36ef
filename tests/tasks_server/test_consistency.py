"""The same rule on every tool: an unknown project, arguments that exclude each other,
fields update_task can set and unset, an allowlist that matches nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from tasks_server.registry import discover
from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio

PROJECT_READERS = sorted(
    spec.name
    for spec in discover()
    if spec.hints.read_only and "project" in spec.input_model.model_fields
)

REQUIRED: dict[str, dict[str, str]] = {"search_tasks": {"query": "station"}}
"""The arguments a reader cannot be called without, beside its project."""


def test_the_readers_taking_a_project_are_the_ones_the_rule_is_about() -> None:
    assert {"list_tasks", "get_ready_tasks", "get_task_tree", "get_tasks_with_topology",
            "get_task_scoring_factors"} <= set(PROJECT_READERS)  # fmt: skip


@pytest.mark.parametrize("tool", PROJECT_READERS)
async def test_an_unknown_project_is_an_invalid_argument_on_every_reader(
    client: Client, tool: str
) -> None:
    required = REQUIRED.get(tool, {})
    error = await fail(client, tool, project="no-such-project", **required)
    assert error["error"]["code"] == "INVALID_ARGUMENT"
    assert "no-such-project" in error["error"]["message"]
    assert (await call(client, tool, project="wx", **required))["success"] is True


async def test_metrics_of_an_unknown_project_say_the_same(client: Client) -> None:
    error = await fail(client, "get_graph_metrics", scope="project", scope_id="no-such-project")
    assert error["error"]["code"] == "INVALID_ARGUMENT"


async def test_a_tree_asked_by_task_and_by_project_at_once_is_refused(client: Client) -> None:
    error = await fail(client, "get_task_tree", task_id="wx-84e61ceb", project="wx")
    assert error["error"]["code"] == "INVALID_ARGUMENT"
    assert "not both" in error["error"]["message"]


def file_of(root: Path, task_id: str) -> Path:
    (path,) = root.rglob(f"{task_id}*.md")
    return path


async def test_update_task_sets_effort_and_context_and_null_removes_a_line(
    client: Client, example_root: Path
) -> None:
    task_id = "wx-6ca4a1a9"
    await call(client, "update_task", task_id=task_id, effort="2h", context="at the bench",
               assignee="sam")  # fmt: skip
    text = file_of(example_root, task_id).read_text()
    assert "effort: 2h" in text and "context: at the bench" in text and "assignee: sam" in text
    updated = await call(client, "update_task", task_id=task_id, assignee=None, effort=None)
    assert {"assignee", "effort"} <= set(updated["changed"])
    text = file_of(example_root, task_id).read_text()
    assert "assignee" not in text and "effort" not in text and "context: at the bench" in text
    task = (await call(client, "get_task", task_id=task_id))["task"]
    assert (task["assignee"], task["effort"], task["context"]) == (None, None, "at the bench")


async def test_update_task_makes_a_root_with_a_null_parent_and_keeps_the_title(
    client: Client, example_root: Path
) -> None:
    task_id = "wx-6ca4a1a9"
    await call(client, "update_task", task_id=task_id, parent=None)
    assert "parent:" not in file_of(example_root, task_id).read_text()
    before = file_of(example_root, task_id).read_bytes()
    error = await fail(client, "update_task", task_id=task_id, title=None)
    assert error["error"]["code"] == "INVALID_ARGUMENT" and "title" in error["error"]["message"]
    assert file_of(example_root, task_id).read_bytes() == before


def test_serving_an_allowlist_that_matches_no_tool_is_one_line_and_exit_2(
    example_root: Path,
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tasks_server", "serve", "--root", str(example_root),
         "--tools", "nosuch_*"],
        capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "nosuch_*" in lines[0], done.stderr
