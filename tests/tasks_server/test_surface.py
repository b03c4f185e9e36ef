"""The public surface: tools/list per role, schemas, annotations, and guidance everywhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from syrupy.assertion import SnapshotAssertion

from tasks_server.edge.instructions import instructions, said_once
from tasks_server.edge.schemas import input_schema
from tasks_server.edge.server import to_tool
from tasks_server.registry import discover
from tests.tasks_server.conftest import make_server

pytestmark = pytest.mark.anyio

ROLES = ["planner", "editor", "bot", "all"]


async def listing(root: Path, role: str) -> list[dict[str, Any]]:
    server = make_server(root, role=role)
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    server.context.close()
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


@pytest.mark.parametrize("role", ROLES)
async def test_tools_list_per_role_is_pinned(
    example_root: Path, role: str, snapshot: SnapshotAssertion
) -> None:
    tools = await listing(example_root, role)
    summary = {t["name"]: t.get("annotations", {}) for t in tools}
    assert summary == snapshot


async def test_inputs_and_output_keys_of_every_task_tool_are_pinned(
    example_root: Path, snapshot: SnapshotAssertion
) -> None:
    pinned = [
        {
            "name": tool["name"],
            "description": tool["description"],
            "inputSchema": tool["inputSchema"],
            "outputKeys": sorted(tool["outputSchema"]["properties"]),
        }
        for tool in await listing(example_root, "editor")
    ]
    assert pinned == snapshot


async def test_every_tool_has_an_output_schema_with_success_and_guidance(
    example_root: Path,
) -> None:
    for tool in await listing(example_root, "all"):
        schema = tool["outputSchema"]
        assert {"success", "guidance"} <= set(schema["properties"]), tool["name"]


async def session_instructions(root: Path, role: str = "planner") -> str:
    server = make_server(root, role=role)
    async with Client(server) as client:
        text = client.instructions
    server.context.close()
    assert text is not None
    return text


async def test_every_input_field_is_described_in_its_tool_or_in_the_instructions(
    example_root: Path,
) -> None:
    text = await session_instructions(example_root, "all")
    said = {line.split(" ")[0].rstrip(":") for line in text.splitlines()}
    for tool in await listing(example_root, "all"):
        assert tool["description"], tool["name"]
        for name, field in tool["inputSchema"].get("properties", {}).items():
            assert field.get("description") or name in said, f"{tool['name']}.{name}"


async def test_an_argument_left_undescribed_is_the_one_the_instructions_describe(
    example_root: Path,
) -> None:
    text = await session_instructions(example_root, "all")
    lines = {line.split(" ")[0].rstrip(":"): line for line in text.splitlines()}
    for tool in await listing(example_root, "all"):
        for name, field in tool["inputSchema"].get("properties", {}).items():
            if "description" not in field:
                description = lines[name].split(": ", 1)[1]
                spec = next(s for s in discover() if s.name == tool["name"])
                declared = spec.input_model.model_fields[name].description
                assert declared == description, f"{tool['name']}.{name}"


async def test_a_sessions_instructions_say_only_what_its_tools_take(example_root: Path) -> None:
    planner = await session_instructions(example_root, "planner")
    bot = await session_instructions(example_root, "bot")
    assert "\nlimit (" in planner and "Start with get_graph_metrics" in planner
    assert "limit" not in bot and "cursor" not in bot and "Start with" not in bot
    assert "at most 255 characters unless a tool says otherwise" in bot
    assert len(bot) < len(planner)


def test_what_a_tool_leaves_out_of_an_argument_the_instructions_state() -> None:
    specs = discover()
    text = instructions({spec.name: list(spec.input_model.model_fields) for spec in specs})
    said = said_once()
    lines = {line.split(" ")[0].rstrip(":"): line for line in text.splitlines()}
    for spec in specs:
        declared = input_schema(spec.input_model)["properties"]
        published = to_tool(spec).input_schema["properties"]
        for name, schema in declared.items():
            for key, value in schema.items():
                where = f"{spec.name}.{name}.{key}"
                if key in published[name] or key == "items":
                    continue
                if key == "type":
                    assert "enum" in published[name], where
                elif key == "maxLength" and value == said.max_chars:
                    assert f"at most {value} characters unless" in text, where
                elif not (key == "default" and value is False):
                    assert said.arguments[name][key] == value, where
                    assert str(value) in lines[name], where


async def test_the_session_instructions_are_pinned(
    example_root: Path, snapshot: SnapshotAssertion
) -> None:
    assert await session_instructions(example_root) == snapshot


async def test_read_only_tools_say_so_and_writers_do_not(example_root: Path) -> None:
    tiers = {spec.name: spec.tier for spec in discover()}
    for tool in await listing(example_root, "all"):
        read_only = tool["annotations"].get("readOnlyHint")
        assert read_only is (tiers.get(tool["name"]) == "query"), tool["name"]


async def test_planner_listing_stays_small(example_root: Path) -> None:
    planner = len(json.dumps(await listing(example_root, "planner")))
    everything = len(json.dumps(await listing(example_root, "all")))
    assert planner < everything * 0.6


LISTING_MAX_BYTES = {
    "planner": (24_399, 9_981),  # get_index_stats.sync
    "editor": (43_013, 22_702),  # claim_next, get_index_stats.sync
    "bot": (119_331, 51_771),
    "all": (162_978, 74_771),  # claim_next, get_index_stats.sync
}
"""Each role's `tools/list` (with output schemas, without), compact JSON, as
`python -m bench.listing_bench` measures it on the bundled tree: pinned where it stands, so
that it cannot grow back unnoticed (a new tool or argument raises its bound by what it
measures). What every tool shares is said once in the server's instructions instead."""

PLANNER_GOAL = (30_000, 10_000)
"""Issue 23: a planner's context at most 30 KB with output schemas and 10 KB without."""


@pytest.mark.parametrize("role", ROLES)
async def test_each_roles_tools_list_stays_within_its_byte_budget(
    example_root: Path, role: str
) -> None:
    from bench.listing_bench import sizes  # noqa: PLC0415 - the bench's own measure

    _count, full, lean, _instructions = await sizes(example_root, role)
    assert full <= LISTING_MAX_BYTES[role][0] and lean <= LISTING_MAX_BYTES[role][1]


def test_the_planners_budget_is_within_the_goal() -> None:
    full, lean = LISTING_MAX_BYTES["planner"]
    assert full <= PLANNER_GOAL[0] and lean <= PLANNER_GOAL[1]
