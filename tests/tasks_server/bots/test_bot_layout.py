"""The other bot layout: shared `base_actions/`, behaviour folders that also hold guardrails,
content and rules, `trigger_patterns`, numbered behaviour names (the bundled triage_bot)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mcp import Client

from tasks_server.bots.errors import BotConfigError
from tasks_server.bots.loader import load_bot
from tests.tasks_server.bots.helpers import edit_json
from tests.tasks_server.conftest import call, make_server

pytestmark = pytest.mark.anyio

TRIAGE = "triage_bot"
STEPS = ["initialize_project", "gather_evidence", "weigh_options", "write_tasks", "check_rules"]
BEHAVIORS = ["intake", "diagnose", "plan"]


@pytest.fixture
def triage(example_root: Path) -> Path:
    return example_root / "bots" / TRIAGE


def test_base_actions_are_shared_by_every_behavior_in_action_config_order(triage: Path) -> None:
    config = load_bot(triage)
    assert [b.name for b in config.behaviors] == BEHAVIORS
    for behavior in config.behaviors:
        assert [a.name for a in behavior.steps] == STEPS
        assert "correct_bot" in [a.name for a in behavior.actions]


def test_an_independent_action_is_callable_but_outside_the_sequence(triage: Path) -> None:
    config = load_bot(triage)
    plan = config.behavior("plan")
    assert plan is not None
    assert [a.name for a in plan.actions if not a.workflow] == ["correct_bot", "estimate"]
    assert config.behavior("intake") is not None
    assert "estimate" not in [a.name for a in config.behaviors[0].actions]
    assert "triage_bot_plan_estimate" in config.tool_names()


def test_trigger_patterns_and_behavior_overrides_are_read(triage: Path) -> None:
    config = load_bot(triage)
    intake = config.find("triage_bot.intake.gather_evidence")
    diagnose = config.find("triage_bot.diagnose.gather_evidence")
    assert intake is not None and diagnose is not None
    assert intake.patterns == diagnose.patterns == ("collect the evidence",
        "what do we have so far", "gather the reports")  # fmt: skip
    assert "bug reports" in intake.instructions.description
    assert "bug reports" not in diagnose.instructions.description
    assert config.behaviors[0].patterns == ("take in the bug reports", "start intake")


def test_guardrails_content_and_rules_folders_are_not_actions(triage: Path) -> None:
    config = load_bot(triage)
    names = {a.name for a in config.actions()}
    assert not names & {"guardrails", "content", "rules", "required_context"}
    assert len(config.tool_names()) == 3 + 3 + 3 * 6 + 1 == 25


def test_plain_and_numbered_behavior_names_load_the_same_bot(triage: Path) -> None:
    edit_json(triage / "config/bot_config.json", behaviors=["intake", "2_diagnose", "plan"])
    assert [b.name for b in load_bot(triage).behaviors] == BEHAVIORS


def test_base_actions_path_in_instructions_json_points_at_shared_actions(
    triage: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared" / "base_actions"
    shutil.move(triage / "base_actions", shared)
    (triage / "instructions.json").write_text(
        json.dumps({"description": "triage", "baseActionsPath": "../../../shared/base_actions"})
    )
    assert [a.name for a in load_bot(triage).behaviors[1].steps] == STEPS


def test_a_base_action_without_an_order_takes_its_place_from_its_folder_prefix(
    triage: Path,
) -> None:
    base = triage / "base_actions"
    for position, name in enumerate(STEPS, start=1):
        config = base / name / "action_config.json"
        data = json.loads(config.read_text())
        del data["order"], data["next_action"]
        config.write_text(json.dumps(data))
        (base / name).rename(base / f"{position}_{name}")
    assert [a.name for a in load_bot(triage).behaviors[2].steps] == STEPS


async def test_the_seed_layout_bot_runs_end_to_end_through_mcp(example_root: Path) -> None:
    server = make_server(example_root, bot=TRIAGE)
    try:
        async with Client(server) as client:
            first = await call(client, "triage_bot_tool", project="bug-triage")
            assert first["action"] == "initialize_project" and first["project_task"] == "bug-triage"
            closed = await call(client, "triage_bot_close_current_action")
            assert closed["action"] == "gather_evidence"
            gathered = await call(client, "triage_bot_tool")
            assert "bug reports" in gathered["instructions"]["description"]
            assert gathered["trigger_patterns"][0] == "collect the evidence"
            jumped = await call(client, "triage_bot_plan_estimate")
            assert jumped["behavior"] == "plan" and jumped["action"] == "estimate"
    finally:
        server.context.close()


# --- broken seed-layout configs: one error naming the file and field ---------------------------


def test_trigger_words_without_a_pattern_list_name_the_field(triage: Path) -> None:
    path = triage / "base_actions/gather_evidence/trigger_words.json"
    path.write_text(json.dumps({"words": ["x"]}))
    with pytest.raises(BotConfigError) as caught:
        load_bot(triage)
    assert (caught.value.path, caught.value.field) == (path, "patterns")
    path.write_text(json.dumps({}))
    with pytest.raises(BotConfigError) as caught:
        load_bot(triage)
    assert (caught.value.path, caught.value.field) == (path, "patterns")
    path.write_text(json.dumps({"patterns": ["a"], "trigger_patterns": ["b"]}))
    with pytest.raises(BotConfigError) as caught:
        load_bot(triage)
    assert (caught.value.path, caught.value.field) == (path, "trigger_patterns")


def test_a_folder_that_looks_like_an_action_but_has_no_action_config_is_refused(
    triage: Path,
) -> None:
    half = triage / "behaviors/2_diagnose/reproduce"
    half.mkdir()
    (half / "instructions.json").write_text(json.dumps({"description": "x", "steps": [],
                                                         "outputs": []}))  # fmt: skip
    with pytest.raises(BotConfigError) as caught:
        load_bot(triage)
    assert (caught.value.path, caught.value.field) == (half / "action_config.json", "file")


def test_a_base_actions_path_to_no_folder_is_refused(triage: Path) -> None:
    about = triage / "instructions.json"
    about.write_text(json.dumps({"baseActionsPath": "nowhere"}))
    with pytest.raises(BotConfigError) as caught:
        load_bot(triage)
    assert (caught.value.path, caught.value.field) == (about, "baseActionsPath")


def test_a_workflow_action_with_neither_order_nor_prefix_is_refused(triage: Path) -> None:
    config = triage / "base_actions/weigh_options/action_config.json"
    data = json.loads(config.read_text())
    del data["order"]
    config.write_text(json.dumps(data))
    with pytest.raises(BotConfigError) as caught:
        load_bot(triage)
    assert (caught.value.path, caught.value.field) == (config, "order")


def test_two_workflow_actions_with_one_order_are_refused(triage: Path) -> None:
    config = triage / "base_actions/weigh_options/action_config.json"
    edit_json(config, order=2)
    with pytest.raises(BotConfigError) as caught:
        load_bot(triage)
    assert caught.value.field == "order"


def test_an_override_folder_numbered_against_the_actions_order_is_refused(triage: Path) -> None:
    folder = triage / "behaviors/1_intake/2_gather_evidence"
    moved = folder.rename(folder.with_name("4_gather_evidence"))
    with pytest.raises(BotConfigError) as caught:
        load_bot(triage)
    assert (caught.value.path, caught.value.field) == (moved, "folder")


def test_a_rules_folder_that_becomes_an_action_makes_the_loaded_config_stale(triage: Path) -> None:
    config = load_bot(triage)
    (triage / "behaviors/3_plan/rules/trigger_words.json").write_text('{"patterns": []}')
    assert config.is_stale()


def test_unnumbered_behavior_folders_take_their_order_from_bot_config(triage: Path) -> None:
    behaviors = triage / "behaviors"
    for folder in behaviors.iterdir():
        folder.rename(behaviors / folder.name.split("_", 1)[1])
    edit_json(triage / "config/bot_config.json", behaviors=["plan", "intake", "diagnose"])
    assert [b.name for b in load_bot(triage).behaviors] == ["plan", "intake", "diagnose"]


def test_a_numbered_behavior_name_must_match_its_folders_number(triage: Path) -> None:
    config = triage / "config/bot_config.json"
    edit_json(config, behaviors=["1_intake", "3_diagnose", "3_plan"])
    with pytest.raises(BotConfigError) as caught:
        load_bot(triage)
    assert (caught.value.path, caught.value.field) == (config, "behaviors")
