"""The generated tool surface: names and counts from the config, one tools/list snapshot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp import Client
from syrupy.assertion import SnapshotAssertion

from tasks_server.bots.catalog import BotCatalog
from tasks_server.bots.config import BotConfig
from tasks_server.bots.errors import ActionIncomplete, NotCurrent, UnknownBot
from tasks_server.bots.loader import load_bot
from tasks_server.bots.models import CloseInput
from tasks_server.edge.server import TasksServer
from tasks_server.errors import ToolFailure
from tasks_server.live import LiveTree
from tests.tasks_server.bots.helpers import BOT
from tests.tasks_server.conftest import make_server

pytestmark = pytest.mark.anyio

TOOL_NAME = re.compile(r"^[a-z0-9_]{1,128}$")


def expected_names(config: BotConfig) -> set[str]:
    names = {f"{BOT}_tool", f"{BOT}_close_current_action", f"{BOT}_restart_server"}
    for behavior in config.behaviors:
        names.add(f"{BOT}_{behavior.name}_tool")
        names |= {f"{BOT}_{behavior.name}_{action.name}" for action in behavior.actions}
    return names


async def test_the_bot_server_lists_exactly_the_tools_the_config_implies(
    bot_client: Client, story_config: BotConfig
) -> None:
    tools = (await bot_client.list_tools()).tools
    names = [tool.name for tool in tools]
    assert len(names) == 4 * 7 + 4 + 3 == 35
    assert set(names) == expected_names(story_config)
    assert all(TOOL_NAME.match(name) for name in names)


async def test_the_bot_served_alone_is_named_after_it(bot_client: Client) -> None:
    assert bot_client.server_info is not None
    assert bot_client.server_info.name == "story_bot_server"


async def test_the_bot_tools_list_is_pinned(
    bot_client: Client, snapshot: SnapshotAssertion
) -> None:
    tools = (await bot_client.list_tools()).tools
    listing = [
        tool.model_dump(mode="json", include={"name", "description", "input_schema", "annotations"})
        for tool in tools
    ]
    assert listing == snapshot


async def test_every_action_tool_carries_its_instruction_and_trigger_patterns(
    bot_client: Client, story_config: BotConfig
) -> None:
    described = {
        tool.name: tool.description or "" for tool in (await bot_client.list_tools()).tools
    }
    for action in story_config.actions():
        text = described[action.tool]
        assert action.instructions.description in text
        assert "Triggers: " + "; ".join(action.patterns) in text


async def test_only_close_is_not_idempotent_and_no_bot_tool_is_read_only(
    bot_client: Client,
) -> None:
    tools = (await bot_client.list_tools()).tools
    assert all(t.annotations and t.annotations.read_only_hint is False for t in tools)
    not_idempotent = [t.name for t in tools if t.annotations and not t.annotations.idempotent_hint]
    assert not_idempotent == [f"{BOT}_close_current_action"]


async def test_the_main_server_mounts_every_bot_and_role_bot_selects_exactly_their_tools(
    bot_root: Path, story_config: BotConfig
) -> None:
    triage = load_bot(bot_root / "bots" / "triage_bot")
    server = make_server(bot_root, role="bot")
    try:
        async with Client(server) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
    finally:
        server.context.close()
    assert names == expected_names(story_config) | set(triage.tool_names())
    assert len(names) == 35 + 25


def test_the_catalog_json_gives_name_description_triggers_and_parameters(bot_root: Path) -> None:
    live = LiveTree(bot_root, watch=False)
    try:
        entries = BotCatalog.load(bot_root / "bots", live).catalog_json(only=BOT)
    finally:
        live.close()
    by_name = {entry["name"]: entry for entry in entries}
    assert len(by_name) == 35
    gather = by_name["story_bot_shape_gather_context"]
    assert gather["trigger_patterns"] == [
        "what do we know about the idea", "collect background for the story map",
        "gather context for shaping",
    ]  # fmt: skip
    assert set(gather["parameters"]["properties"]) == {"user_input"}
    assert set(by_name["story_bot_tool"]["parameters"]["properties"]) == {
        "user_input", "project", "project_title",
    }  # fmt: skip


def test_asking_for_an_unknown_bot_is_an_error(bot_root: Path) -> None:
    live = LiveTree(bot_root, watch=False)
    try:
        with pytest.raises(UnknownBot):
            BotCatalog.load(bot_root / "bots", live).specs(only="tea_bot")
    finally:
        live.close()


def test_a_bot_error_leaves_the_handler_as_itself_for_the_one_error_mapping(
    bot_server: TasksServer,
) -> None:
    specs = {spec.name: spec for spec in bot_server.context.bot_specs(only=BOT)}
    close = specs[f"{BOT}_close_current_action"]
    with pytest.raises(NotCurrent) as caught:
        close.handler(bot_server.context, CloseInput(action="shape.render_output"))
    assert isinstance(caught.value, ToolFailure) and caught.value.code == "INVALID_ARGUMENT"
    with pytest.raises(ActionIncomplete) as refused:
        close.handler(bot_server.context, CloseInput())
    assert refused.value.code == "ACTION_INCOMPLETE"
    assert refused.value.recovery is not None
    assert refused.value.recovery[1] == [f"{BOT}_shape_initialize_project", close.name]
