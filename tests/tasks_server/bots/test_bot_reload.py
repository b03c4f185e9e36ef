"""Cached config and instructions: edits are seen, restart reloads in-process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mcp import Client

from tests.tasks_server.bots.helpers import edit_json
from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio

GATHER = Path("behaviors/1_shape/2_gather_context")


async def test_a_changed_instructions_file_is_seen_after_restart(
    bot_client: Client, bot_folder: Path
) -> None:
    before = await call(bot_client, "story_bot_shape_gather_context")
    edit_json(bot_folder / GATHER / "instructions.json", steps=["Ask one question only."])
    restarted = await call(bot_client, "story_bot_restart_server")
    assert restarted["guidance"]["current_state"] == "config_reloaded"
    assert "warnings" not in restarted["guidance"]
    after = await call(bot_client, "story_bot_shape_gather_context")
    assert before["instructions"]["steps"] != after["instructions"]["steps"]
    assert after["instructions"]["steps"] == ["Ask one question only."]


async def test_a_changed_trigger_file_is_seen_on_the_next_call_without_restart(
    bot_client: Client, bot_folder: Path
) -> None:
    await call(bot_client, "story_bot_shape_gather_context")
    edit_json(bot_folder / GATHER / "trigger_words.json", patterns=["what is the background"])
    result = await call(bot_client, "story_bot_shape_gather_context")
    assert result["trigger_patterns"] == ["what is the background"]


async def test_restart_lists_the_actions_the_config_now_has_and_until_then_warns(
    bot_client: Client, bot_folder: Path
) -> None:
    shape = bot_folder / "behaviors/1_shape"
    shutil.copytree(shape / "correct_bot", shape / "review_bot")
    edit_json(shape / "review_bot/action_config.json", name="review_bot")
    before = await call(bot_client, "story_bot_tool")
    (warning,) = before["guidance"]["warnings"]
    assert "story_bot_shape_review_bot" in warning and "restart" in warning
    restarted = await call(bot_client, "story_bot_restart_server")
    assert "warnings" not in restarted["guidance"]
    listed = {tool.name for tool in (await bot_client.list_tools()).tools}
    assert "story_bot_shape_review_bot" in listed
    assert (await call(bot_client, "story_bot_shape_review_bot"))["action"] == "review_bot"


async def test_restart_lists_a_changed_description_at_once(
    bot_client: Client, bot_folder: Path
) -> None:
    edit_json(bot_folder / GATHER / "instructions.json", description="Collect the background.")
    restarted = await call(bot_client, "story_bot_restart_server")
    assert "warnings" not in restarted["guidance"]
    listed = {tool.name: tool for tool in (await bot_client.list_tools()).tools}
    described = listed["story_bot_shape_gather_context"].description or ""
    assert described.startswith("Collect the background.")
    result = await call(bot_client, "story_bot_shape_gather_context")
    assert result["instructions"]["description"] == "Collect the background."


async def test_a_config_broken_while_serving_is_an_error_naming_the_file_until_fixed(
    bot_client: Client, bot_folder: Path
) -> None:
    instructions = bot_folder / GATHER / "instructions.json"
    good = instructions.read_text()
    instructions.write_text("{ not json")
    error = await fail(bot_client, "story_bot_tool")
    assert error["error"]["code"] == "PARSE_ERROR"
    assert str(instructions) in error["error"]["message"]
    assert (await fail(bot_client, "story_bot_restart_server"))["error"]["code"] == "PARSE_ERROR"
    instructions.write_text(good)
    assert (await call(bot_client, "story_bot_tool"))["success"]


async def test_a_tool_whose_action_was_removed_answers_with_an_error(
    bot_client: Client, bot_folder: Path
) -> None:
    shutil.rmtree(bot_folder / "behaviors/1_shape/correct_bot")
    error = await fail(bot_client, "story_bot_shape_correct_bot")
    assert error["error"]["code"] == "UNKNOWN_TOOL"
