"""A meta-test over the whole registry: every tool, on success and on error, carries a
well-formed guidance object that names only real tools."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tasks_server.registry import discover

pytestmark = pytest.mark.anyio

# Minimal valid arguments for tools that need some; the rest are called with none.
ARGUMENTS: dict[str, dict[str, Any]] = {
    "get_task": {"task_id": "wx-6ca4a1a9"},
    "search_tasks": {"query": "station"},
    "get_children": {"task_id": "wx-84e61ceb"},
    "get_dependencies": {"task_id": "wx-ec7ac8ad"},
    "get_task_tree": {"project": "wx"},
    "get_decomposition_context": {"task_id": "wx-6ca4a1a9"},
    "get_task_neighborhood": {"task_id": "wx-6ca4a1a9"},
    "create_task": {"title": "Meta test task", "project": "wx"},
    "update_task": {"task_id": "wx-6ca4a1a9", "priority": 1},
    "complete_task": {"task_id": "pipe-281fa6f5", "force": True},
    "complete_tasks": {"task_ids": ["pipe-a84567f9"], "force": True},
    "decompose_task": {"task_id": "wx-dc36fc90", "children": [{"title": "Sub"}]},
    "reorder_children": {"parent_id": "wx-84e61ceb", "order": []},
    "delete_task": {"task_id": "grant-c85990d2"},
}
TOOL_NAMES = {spec.name for spec in discover()}


def check_guidance(guidance: dict[str, Any], tool: str) -> None:
    assert isinstance(guidance["current_state"], str) and guidance["current_state"], tool
    assert isinstance(guidance["next_action"], str) and guidance["next_action"], tool
    for entry in guidance["available_actions"]:
        named = entry.split(" - ")[0]
        assert named in TOOL_NAMES, f"{tool} guidance names unknown tool {named!r}"
    assert len(str(guidance)) < 1200, f"{tool} guidance is not compact"


@pytest.mark.parametrize("spec", discover(), ids=lambda s: s.name)
async def test_every_tool_result_carries_guidance(client: Client, spec: Any) -> None:
    arguments = dict(ARGUMENTS.get(spec.name, {}))
    if spec.name == "reorder_children":
        children = await client.call_tool("get_children", {"task_id": "wx-84e61ceb"})
        arguments["order"] = [t["id"] for t in children.structured_content["tasks"]][::-1]
    result = await client.call_tool(spec.name, arguments)
    assert result.structured_content is not None
    assert result.structured_content["success"] is (not result.is_error), result.structured_content
    check_guidance(result.structured_content["guidance"], spec.name)


@pytest.mark.parametrize("spec", discover(), ids=lambda s: s.name)
async def test_every_tool_error_carries_guidance_and_a_code(client: Client, spec: Any) -> None:
    result = await client.call_tool(spec.name, {"not_an_argument": 1})
    assert result.is_error
    data = result.structured_content
    assert data is not None and data["success"] is False
    assert data["error"]["code"] == "INVALID_ARGUMENT"
    check_guidance(data["guidance"], spec.name)
