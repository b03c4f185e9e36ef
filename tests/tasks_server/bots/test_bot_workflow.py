"""Four workflows end to end (continue, jump to a behavior, jump to an action, close),
through a real MCP client to `story_bot_server`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from syrupy.assertion import SnapshotAssertion

from tests.tasks_server.bots.helpers import completed_keys, saved_state, state_file
from tests.tasks_server.conftest import NOW, call, fail

pytestmark = pytest.mark.anyio

STAMP = NOW.isoformat()
SHAPE = ["initialize_project", "gather_context", "decide_planning_criteria", "build_knowledge",
         "render_output", "validate_rules"]  # fmt: skip
BEHAVIORS = ["shape", "discovery", "exploration", "specification"]


def write_state(root: Path, current: str | None, *done: str) -> None:
    """A state file as a bot keeps it: current behavior and action, completions."""
    state_file(root).parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"timestamp": STAMP, "completed_actions": [
        {"action_state": f"story_bot.{key}", "timestamp": STAMP} for key in done
    ]}  # fmt: skip
    if current is not None:
        data["current_behavior"] = "story_bot." + current.split(".")[0]
        data["current_action"] = f"story_bot.{current}"
    state_file(root).write_text(json.dumps(data))


def where(result: dict[str, Any]) -> str:
    return f"{result['behavior']}.{result['action']}"


# --- example 1: continue where I left off ------------------------------------------------------


async def test_continuing_runs_the_current_action_from_the_state_file(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "shape.gather_context", "shape.initialize_project")
    result = await call(bot_client, "story_bot_tool", user_input="continue story work")
    assert where(result) == "shape.gather_context"
    assert result["tool"] == "story_bot_shape_gather_context"
    assert result["instructions"]["steps"] and result["user_input"] == "continue story work"
    assert result["guidance"]["next_action"].endswith("story_bot_close_current_action")
    assert completed_keys(bot_root) == ["story_bot.shape.initialize_project"]


async def test_a_fresh_bot_starts_at_the_first_action_and_reports_it(
    bot_client: Client, snapshot: SnapshotAssertion
) -> None:
    assert await call(bot_client, "story_bot_tool") == snapshot


async def test_running_an_action_never_completes_it(bot_client: Client, bot_root: Path) -> None:
    write_state(bot_root, "shape.gather_context", "shape.initialize_project")
    for _ in range(2):
        result = await call(bot_client, "story_bot_tool")
        assert where(result) == "shape.gather_context" and not result["done"]
    assert saved_state(bot_root)["current_action"] == "story_bot.shape.gather_context"
    assert completed_keys(bot_root) == ["story_bot.shape.initialize_project"]


# --- example 2: jump to a behavior ---------------------------------------------------------------


async def test_jumping_to_a_behavior_runs_its_first_action_and_makes_it_current(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "shape.build_knowledge", "shape.initialize_project")
    result = await call(bot_client, "story_bot_discovery_tool")
    assert where(result) == "discovery.initialize_project"
    assert saved_state(bot_root)["current_behavior"] == "story_bot.discovery"
    assert result["state"]["current_action"] == "story_bot.discovery.initialize_project"


async def test_jumping_back_to_a_behavior_resumes_after_its_last_completed_action(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "discovery.gather_context",
                "shape.initialize_project", "shape.gather_context")  # fmt: skip
    result = await call(bot_client, "story_bot_shape_tool")
    assert where(result) == "shape.decide_planning_criteria"
    assert saved_state(bot_root)["current_action"] == "story_bot.shape.decide_planning_criteria"


# --- example 3: jump to an action ----------------------------------------------------------------


async def test_jumping_to_an_action_makes_it_current_without_completing_anything(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "shape.gather_context", "shape.initialize_project")
    result = await call(bot_client, "story_bot_exploration_gather_context")
    assert where(result) == "exploration.gather_context"
    state = saved_state(bot_root)
    assert (state["current_behavior"], state["current_action"]) == (
        "story_bot.exploration", "story_bot.exploration.gather_context",
    )  # fmt: skip
    assert completed_keys(bot_root) == ["story_bot.shape.initialize_project"]
    assert where(await call(bot_client, "story_bot_tool")) == "exploration.gather_context"


async def test_reopening_a_completed_action_clears_its_own_completion(
    bot_client: Client, bot_root: Path
) -> None:
    done = ["shape.initialize_project", "shape.gather_context", "shape.decide_planning_criteria"]
    write_state(bot_root, "shape.build_knowledge", *done)
    await call(bot_client, "story_bot_shape_gather_context")
    assert completed_keys(bot_root) == [
        "story_bot.shape.initialize_project", "story_bot.shape.decide_planning_criteria",
    ]  # fmt: skip


# --- example 4: close, through a behavior and to the end ----------------------------------------


async def test_closing_marks_the_current_action_complete_and_names_the_next_tool(
    bot_client: Client, bot_root: Path, snapshot: SnapshotAssertion
) -> None:
    write_state(bot_root, "shape.gather_context", "shape.initialize_project")
    result = await call(bot_client, "story_bot_close_current_action")
    assert result == snapshot
    assert result["closed"] == "story_bot.shape.gather_context"
    assert "story_bot_shape_decide_planning_criteria" in result["guidance"]["next_action"]


async def test_closing_through_a_whole_behavior_moves_into_the_next_one(
    bot_client: Client, bot_root: Path
) -> None:
    for name in SHAPE:
        assert where(await call(bot_client, "story_bot_tool")) == f"shape.{name}"
        closed = await call(bot_client, "story_bot_close_current_action")
    assert where(closed) == "discovery.initialize_project"
    assert closed["guidance"]["context"]["entered_behavior"] == "discovery"
    assert completed_keys(bot_root) == [f"story_bot.shape.{name}" for name in SHAPE]
    assert saved_state(bot_root)["current_behavior"] == "story_bot.discovery"


async def test_finishing_the_bot_reports_done_and_a_second_close_records_nothing(
    bot_client: Client, bot_root: Path
) -> None:
    for behavior in BEHAVIORS:
        for name in SHAPE:
            assert where(await call(bot_client, "story_bot_tool")) == f"{behavior}.{name}"
            last = await call(bot_client, "story_bot_close_current_action")
    assert last["done"] and last["guidance"]["current_state"] == "bot_done"
    again = await call(bot_client, "story_bot_close_current_action")
    assert again["done"] and again["guidance"]["context"]["already_closed"] is True
    assert len(completed_keys(bot_root)) == 24 == again["state"]["completed_actions"]
    assert (await call(bot_client, "story_bot_tool"))["done"]


async def test_closing_a_named_action_twice_records_it_once(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "shape.gather_context", "shape.initialize_project")
    for _ in range(2):
        result = await call(
            bot_client, "story_bot_close_current_action", action="shape.gather_context"
        )
    assert where(result) == "shape.decide_planning_criteria"
    assert completed_keys(bot_root) == [
        "story_bot.shape.initialize_project", "story_bot.shape.gather_context",
    ]  # fmt: skip


async def test_closing_an_open_action_that_is_not_current_is_refused(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "shape.gather_context", "shape.initialize_project")
    error = await fail(bot_client, "story_bot_close_current_action", action="shape.render_output")
    assert error["error"]["code"] == "INVALID_ARGUMENT"
    unknown = await fail(bot_client, "story_bot_close_current_action", action="shape.nap")
    assert unknown["error"]["code"] == "INVALID_ARGUMENT"
    assert completed_keys(bot_root) == ["story_bot.shape.initialize_project"]


async def test_a_side_action_is_closed_back_into_the_workflow(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(
        bot_root, "shape.build_knowledge", "shape.initialize_project", "shape.gather_context"
    )
    assert where(await call(bot_client, "story_bot_shape_correct_bot")) == "shape.correct_bot"
    result = await call(bot_client, "story_bot_close_current_action")
    assert where(result) == "shape.decide_planning_criteria"


# --- the state file: deleted, corrupt ------------------------------------------------------------


async def test_deleting_the_state_file_resets_to_the_first_action(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "exploration.render_output", "shape.initialize_project")
    assert where(await call(bot_client, "story_bot_tool")) == "exploration.render_output"
    state_file(bot_root).unlink()
    result = await call(bot_client, "story_bot_tool")
    assert where(result) == "shape.initialize_project"
    assert "warnings" not in result["guidance"]


async def test_a_corrupt_state_file_is_reported_and_the_bot_starts_over_safely(
    bot_client: Client, bot_root: Path
) -> None:
    state_file(bot_root).parent.mkdir(parents=True)
    state_file(bot_root).write_text('{"current_action": "story_bot.shape.gath')
    result = await call(bot_client, "story_bot_shape_gather_context")
    assert where(result) == "shape.gather_context"
    assert len(result["guidance"]["warnings"]) == 1
    kept = state_file(bot_root).with_name("workflow_state.json.corrupt")
    assert kept.read_text() == '{"current_action": "story_bot.shape.gath'
    assert saved_state(bot_root)["current_action"] == "story_bot.shape.gather_context"


async def test_a_state_file_with_a_wrongly_typed_field_keeps_its_completions(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, None, "shape.initialize_project", "shape.gather_context")
    data = saved_state(bot_root) | {"current_action": ["not", "a", "string"]}
    state_file(bot_root).write_text(json.dumps(data))
    result = await call(bot_client, "story_bot_tool")
    assert where(result) == "shape.decide_planning_criteria"
    assert result["guidance"]["warnings"]


async def test_a_current_action_naming_no_action_falls_back_with_a_warning(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "shape.make_coffee", "shape.initialize_project")
    result = await call(bot_client, "story_bot_tool")
    assert where(result) == "shape.gather_context" and result["guidance"]["warnings"]


# --- initialize_project -------------------------------------------------------------------------


async def test_initialize_project_completes_itself_and_puts_the_project_in_the_tree(
    client: Client, bot_root: Path
) -> None:
    result = await call(client, "story_bot_tool")
    assert where(result) == "shape.initialize_project"
    assert result["project_task"] == "story_bot-project"
    assert result["state"]["completed_in_behavior"] == ["initialize_project"]
    task = await call(client, "get_task", task_id="story_bot-project")
    assert task["task"]["type"] == "project"
    closed = await call(client, "story_bot_close_current_action")
    assert where(closed) == "shape.gather_context"
    assert completed_keys(bot_root) == ["story_bot.shape.initialize_project"]


async def test_initialize_project_reuses_the_project_and_takes_a_given_id(
    client: Client, bot_root: Path
) -> None:
    first = await call(client, "story_bot_shape_initialize_project", project="weather-map")
    again = await call(client, "story_bot_discovery_initialize_project", project="weather-map")
    assert first["project_task"] == again["project_task"] == "weather-map"
    assert len(list(bot_root.glob("weather-map/tasks/weather-map-*.md"))) == 1


async def test_initialize_project_refuses_an_id_held_by_another_kind_of_task(
    bot_client: Client,
) -> None:
    error = await fail(bot_client, "story_bot_shape_initialize_project", project="wx-6ca4a1a9")
    assert error["error"]["code"] == "INVALID_ARGUMENT"


# --- initialize_project gates the workflow (issue 10, item 7) -----------------------------------


async def test_closing_initialize_project_before_it_ran_is_refused_naming_the_tool_to_call(
    bot_client: Client, bot_root: Path
) -> None:
    error = await fail(bot_client, "story_bot_close_current_action")
    assert error["error"]["code"] == "ACTION_INCOMPLETE"
    assert "story_bot_shape_initialize_project" in error["error"]["message"]
    assert not state_file(bot_root).exists()
    assert not list(bot_root.glob("story_bot-project/**/*.md"))
    assert where(await call(bot_client, "story_bot_tool")) == "shape.initialize_project"


async def test_closing_initialize_project_whose_project_task_was_deleted_is_refused(
    bot_client: Client, bot_root: Path
) -> None:
    ran = await call(bot_client, "story_bot_tool", project="kite-shop")
    for path in bot_root.glob("kite-shop/**/kite-shop*.md"):
        path.unlink()
    error = await fail(bot_client, "story_bot_close_current_action")
    assert (
        error["error"]["code"] == "ACTION_INCOMPLETE" and "kite-shop" in error["error"]["message"]
    )
    assert saved_state(bot_root)["current_action"] == ran["state"]["current_action"]


async def test_a_hand_written_completion_without_a_project_task_does_not_let_the_close_through(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "shape.initialize_project", "shape.initialize_project")
    error = await fail(bot_client, "story_bot_close_current_action")
    assert error["error"]["code"] == "ACTION_INCOMPLETE"


async def test_the_bot_tool_twice_on_a_fresh_tree_runs_initialize_project_once(
    bot_client: Client, bot_root: Path
) -> None:
    first = await call(bot_client, "story_bot_tool")
    second = await call(bot_client, "story_bot_tool")
    assert (where(first), where(second)) == ("shape.initialize_project", "shape.gather_context")
    assert second["project_task"] is None
    assert completed_keys(bot_root) == ["story_bot.shape.initialize_project"]
    assert saved_state(bot_root)["current_action"] == "story_bot.shape.gather_context"


async def test_a_completed_current_action_is_stepped_past_by_both_forward_tools(
    bot_client: Client, bot_root: Path
) -> None:
    done = ("shape.initialize_project", "shape.gather_context", "shape.decide_planning_criteria")
    write_state(bot_root, "shape.gather_context", *done)
    assert where(await call(bot_client, "story_bot_tool")) == "shape.build_knowledge"
    write_state(bot_root, "shape.gather_context", *done)
    assert where(await call(bot_client, "story_bot_shape_tool")) == "shape.build_knowledge"


async def test_a_behavior_tool_stays_in_its_behavior_when_all_of_it_is_complete(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "shape.validate_rules", *(f"shape.{name}" for name in SHAPE))
    assert where(await call(bot_client, "story_bot_shape_tool")) == "shape.validate_rules"
    assert where(await call(bot_client, "story_bot_tool")) == "discovery.initialize_project"


async def test_the_close_result_carries_the_seeds_status_completed_and_next_action(
    bot_client: Client, bot_root: Path
) -> None:
    write_state(bot_root, "shape.validate_rules", *(f"shape.{name}" for name in SHAPE[:-1]))
    result = await call(bot_client, "story_bot_close_current_action")
    assert (result["status"], result["completed_action"], result["next_action"]) == (
        "completed", "validate_rules", "initialize_project",
    )  # fmt: skip
    assert result["behavior"] == "discovery"
    ran = await call(bot_client, "story_bot_tool")
    assert ran["status"] is None and ran["next_action"] is None


async def test_the_bot_tool_runs_initialize_project_again_when_its_project_task_is_gone(
    bot_client: Client, bot_root: Path
) -> None:
    await call(bot_client, "story_bot_tool", project="kite-shop")
    for path in bot_root.glob("kite-shop/**/kite-shop*.md"):
        path.unlink()
    again = await call(bot_client, "story_bot_tool", project="kite-shop")
    assert where(again) == "shape.initialize_project" and again["project_task"] == "kite-shop"
    assert list(bot_root.glob("kite-shop/**/kite-shop*.md"))
    assert where(await call(bot_client, "story_bot_close_current_action")) == "shape.gather_context"
