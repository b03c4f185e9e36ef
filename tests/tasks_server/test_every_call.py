"""Meta-tests over every session shape and every tool, through a real MCP client.

For each role, a `--tools` allowlist and a bot-only server: every listed tool is called once
with valid arguments (and must succeed) and once with an unknown argument; every result is
checked the way strict clients check it (structured content valid against the published
outputSchema with jsonschema; errors carry no structured content and a JSON error object),
and every tool that guidance names anywhere must be in that session's tools/list. Then each
error class (TASK_NOT_FOUND, INVALID_CURSOR, CONFLICT, UNKNOWN_TOOL, TOOL_NOT_ALLOWED) is
raised and checked the same way. Also: every published schema is portable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client

from docs.examples import ARGUMENTS
from graph.neighborhood import decomposition_context, neighborhood
from graph.sections import Sections
from tasks_server.edge.schemas import output_schema
from tasks_server.edge.server import to_tool
from tasks_server.guidance import ACTION_HELP
from tasks_server.toolset import open_toolset
from tasks_server.views import BRIEF_FIELDS, CLAIM_FIELDS
from tests.gitrepo import commit_all, init
from tests.tasks_server.conftest import error_of, make_server
from tests.tasks_server.schema_lint import findings

pytestmark = pytest.mark.anyio

SESSIONS: dict[str, dict[str, Any]] = {
    "all": {},
    "planner": {"role": "planner"},
    "editor": {"role": "editor"},
    "bot": {"role": "bot"},
    "allowlist": {"tools": ["get_task*", "list_tasks", "story_bot_*"]},
    "bot_only": {"bot": "story_bot"},
}
WORD = re.compile(r"[a-z][a-z0-9_]*[a-z0-9]")


def walk_order(names: list[str]) -> list[str]:
    """Named tools in the table's order first (the bot starts its project), then the rest."""
    first = [name for name in ARGUMENTS if name in names]
    return first + sorted(set(names) - set(first))


def named_tools(guidance: dict[str, Any], known: set[str]) -> set[str]:
    text = json.dumps(guidance)
    return {word for word in WORD.findall(text) if word in known}


class Session:
    """One client session and what it lists."""

    def __init__(self, client: Client, tools: list[Any], known: set[str]) -> None:
        self.client = client
        self.listed = {tool.name for tool in tools}
        self.schemas = {tool.name: tool.output_schema for tool in tools}
        self.known = known

    async def ok(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(name, arguments)
        assert not result.is_error, (name, result.content)
        data = result.structured_content
        assert data is not None and data["success"] is True, name
        Draft202012Validator(self.schemas[name]).validate(data)
        assert json.loads(result.content[0].text) == data  # type: ignore[union-attr]
        self.check_guidance(name, data["guidance"])
        return dict(data)

    async def error(self, name: str, arguments: dict[str, Any], code: str) -> dict[str, Any]:
        data = error_of(await self.client.call_tool(name, arguments))
        assert data["success"] is False and data["error"]["code"] == code, (name, data)
        assert isinstance(data["error"]["message"], str) and data["error"]["message"]
        self.check_guidance(name, data["guidance"])
        return data

    def check_guidance(self, name: str, guidance: dict[str, Any]) -> None:
        assert guidance["current_state"] and guidance["next_action"], name
        outside = named_tools(guidance, self.known) - self.listed
        assert not outside, f"{name}: guidance names {sorted(outside)}, not listed here"
        assert len(json.dumps(guidance)) < 1200, f"{name}: guidance is not compact"


@pytest.mark.parametrize("shape", sorted(SESSIONS))
async def test_every_listed_tool_succeeds_and_fails_cleanly_for_every_session(
    example_root: Path, shape: str
) -> None:
    commit_all(init(example_root), "the example tree")  # get_changes reads git
    server = make_server(example_root, **SESSIONS[shape])
    known = set(server.toolset.specs)
    async with Client(server) as client:
        session = Session(client, (await client.list_tools()).tools, known)
        for name in walk_order(sorted(session.listed)):
            arguments = dict(ARGUMENTS.get(name, {}))
            if name == "wait_for_changes":  # a token of the state now; answers at once
                live = server.context.live
                arguments = {"since_token": live.tokens.issue(live.feed.seq), "timeout_seconds": 0}
            await session.ok(name, arguments)
            await session.error(name, {**arguments, "not_an_argument": 1}, "INVALID_ARGUMENT")
    server.context.close()
    assert session.listed


@pytest.mark.parametrize("shape", sorted(SESSIONS))
async def test_every_error_class_is_a_clean_error_with_guidance_the_session_can_follow(
    example_root: Path, shape: str
) -> None:
    server = make_server(example_root, **SESSIONS[shape])
    known = set(server.toolset.specs)
    hidden = sorted(known - set(server.toolset.names))
    async with Client(server) as client:
        session = Session(client, (await client.list_tools()).tools, known)
        await session.error("no_such_tool", {}, "UNKNOWN_TOOL")
        if hidden:
            refused = await session.error(hidden[0], {}, "TOOL_NOT_ALLOWED")
            assert refused["guidance"]["available_actions"], "names the nearest allowed tools"
        if "get_task" in session.listed:
            await session.error("get_task", {"task_id": "nope"}, "TASK_NOT_FOUND")
            await session.error("get_task", {}, "INVALID_ARGUMENT")
            await session.error("get_task", {"task_id": 5}, "INVALID_ARGUMENT")
        if "list_tasks" in session.listed:
            await session.error("list_tasks", {"cursor": "garbage"}, "INVALID_CURSOR")
        if "update_task" in session.listed:
            stale = {"task_id": "wx-6ca4a1a9", "expected_modified": "2001-01-01T00:00:00Z"}
            await session.error("update_task", {**stale, "priority": 3}, "CONFLICT")
    server.context.close()


async def test_a_refused_tool_lists_the_allowed_tools_that_do_the_nearest_job(
    example_root: Path,
) -> None:
    server = make_server(example_root, role="planner")
    async with Client(server) as client:
        data = error_of(await client.call_tool("update_task", {"task_id": "wx-6ca4a1a9"}))
    server.context.close()
    assert data["error"]["code"] == "TOOL_NOT_ALLOWED"
    named = [entry.split(" - ")[0] for entry in data["guidance"]["available_actions"]]
    assert named[:2] == ["get_task", "get_task_neighborhood"]


async def test_planner_guidance_on_a_task_never_sends_it_to_a_writer(example_root: Path) -> None:
    server = make_server(example_root, role="planner")
    async with Client(server) as client:
        result = await client.call_tool("get_task", {"task_id": "wx-6ca4a1a9"})
    server.context.close()
    guidance = result.structured_content["guidance"]  # type: ignore[index]
    text = json.dumps(guidance)
    assert "update_task" not in text and "complete_task" not in text
    assert guidance["next_action"].startswith("Call get_task_neighborhood")


def test_every_published_schema_is_portable(example_root: Path) -> None:
    toolset = open_toolset(example_root, watch=False)
    toolset.context.close()
    problems = {
        f"{spec.name} {kind}: {finding}"
        for spec in toolset.visible()
        for kind, schema in (
            ("input", to_tool(spec).input_schema),
            ("output", to_tool(spec).output_schema),
        )
        for finding in findings(schema)
    }
    assert not problems, sorted(problems)[:10]
    assert len(toolset.visible()) >= 60


def test_the_portability_rules_catch_what_the_inspector_warns_about() -> None:
    bad = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {},
            "c": {"$ref": "https://example.com/s.json"},
            "d": True,
        },
        "additionalProperties": False,
    }
    rules = sorted(finding.split(" at ")[0] for finding in findings(bad))
    assert rules == ["boolean-schema", "remote-ref", "type-union", "untyped-schema"]


async def test_server_info_names_the_package_version(example_root: Path) -> None:
    from importlib.metadata import version  # noqa: PLC0415

    server = make_server(example_root)
    async with Client(server) as client:
        info = client.server_info
    server.context.close()
    assert info is not None and info.version == version("tasks-server") != ""


def test_a_list_row_is_published_as_its_required_brief_keys_open_to_the_rest(
    example_root: Path,
) -> None:
    toolset = open_toolset(example_root, watch=False)
    toolset.context.close()
    schema = output_schema(toolset.specs["list_tasks"].output_model)
    rows, _columns = schema["properties"]["tasks"]["anyOf"]  # objects first, then columns
    row = rows["items"]
    assert row == {"type": "object", "required": ["id", "title", "type", "status", "priority"]}
    assert set(row["required"]) == BRIEF_FIELDS - {"project", "parent"} - CLAIM_FIELDS
    validator = Draft202012Validator(row)
    assert validator.is_valid(BRIEF_ROW)
    assert validator.is_valid({**BRIEF_ROW, "project": "p", "parent": "a0", "body": "x"})
    assert not validator.is_valid({key: value for key, value in BRIEF_ROW.items() if key != "id"})
    assert not validator.is_valid(["a", "A"])


def test_guidance_is_published_as_its_three_required_keys(example_root: Path) -> None:
    toolset = open_toolset(example_root, watch=False)
    toolset.context.close()
    for spec in toolset.visible():
        guidance = output_schema(spec.output_model)["properties"]["guidance"]
        assert guidance == {
            "type": "object",
            "required": ["current_state", "next_action", "available_actions"],
        }, spec.name


def test_a_results_top_level_keys_are_closed_and_required(example_root: Path) -> None:
    toolset = open_toolset(example_root, watch=False)
    toolset.context.close()
    validator = Draft202012Validator(output_schema(toolset.specs["list_tasks"].output_model))
    answer = toolset.run("list_tasks", {"limit": 2}).data
    validator.validate(answer)
    assert not validator.is_valid({**answer, "extra": 1})
    assert not validator.is_valid({k: v for k, v in answer.items() if k != "total"})


def test_a_row_leaves_out_project_and_parent_when_the_task_has_none(
    example_root: Path,
) -> None:
    """Absent, not null: a row carries only the fields the task has."""
    toolset = open_toolset(example_root, watch=False)
    toolset.context.close()
    validator = Draft202012Validator(output_schema(toolset.specs["list_tasks"].output_model))
    tasks = {task.id: task for task in toolset.context.index.tasks()}
    for fields in ("brief", "full"):
        answer = toolset.run("list_tasks", {"limit": 1000, "fields": fields}).data
        rows = answer["tasks"]
        assert any("parent" in row for row in rows) and any("parent" not in row for row in rows)
        for row in rows:
            task = tasks[row["id"]]
            assert (row.get("project"), row.get("parent")) == (task.project, task.parent)
            assert None not in (row.get("project", ""), row.get("parent", ""))
        validator.validate(answer)


BRIEF_ROW = {"id": "a", "title": "A", "type": "task", "status": "active", "priority": 2}


def keys_of(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data).union(*(keys_of(v) for v in data.values()))
    if isinstance(data, list):
        return set().union(*(keys_of(v) for v in data))
    return set()


@pytest.mark.parametrize(
    ("tool", "query"),
    [("get_task_neighborhood", neighborhood), ("get_decomposition_context", decomposition_context)],
)
async def test_every_list_the_graph_computes_reaches_the_tool_result(
    client: Client, example_root: Path, tool: str, query: Callable[..., Sections]
) -> None:
    result = await client.call_tool(tool, {"task_id": "wx-6ca4a1a9"})
    found = keys_of(result.structured_content)
    toolset = open_toolset(example_root, watch=False)
    index = toolset.context.index
    sections = query(index, index.require("wx-6ca4a1a9"))
    toolset.context.close()
    lost = {*sections.lists, *sections.facts} - found
    assert not lost, f"{tool} drops {sorted(lost)}"


def test_every_tool_has_a_purpose_for_guidance_to_name(example_root: Path) -> None:
    toolset = open_toolset(example_root, watch=False)
    toolset.context.close()
    tier_tools = {spec.name for spec in toolset.specs.values() if spec.tier != "workflow"}
    assert tier_tools <= set(ACTION_HELP), sorted(tier_tools - set(ACTION_HELP))


async def test_a_write_the_file_system_refuses_is_an_io_error_and_writes_nothing(
    example_root: Path,
) -> None:
    (example_root / "zz").mkdir()
    (example_root / "zz" / "tasks").write_text("a file where the folder should be")
    before = tree_files(example_root)
    server = make_server(example_root)
    async with Client(server) as client:
        result = await client.call_tool("create_task", {"title": "Cannot land", "project": "zz"})
    server.context.close()
    data = error_of(result)
    assert data["error"]["code"] == "IO_ERROR", data
    assert tree_files(example_root) == before


def tree_files(root: Path) -> dict[str, bytes]:
    """Every file of the tree but the server's own folders, with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.relative_to(root).parts[0].startswith(".tasks-")
    }
