"""Loading a bot folder: names and order from the folders, and one clear error per broken file."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tasks_server.bots.catalog import BotCatalog
from tasks_server.bots.config import BotConfig
from tasks_server.bots.errors import BotConfigError
from tasks_server.bots.loader import load_bot
from tasks_server.edge.server import create_server
from tests.tasks_server.bots.helpers import edit_json

SHAPE = Path("behaviors/1_shape")
GATHER = SHAPE / "2_gather_context"
BEHAVIORS = ["shape", "discovery", "exploration", "specification"]
ACTIONS = [
    "initialize_project",
    "gather_context",
    "decide_planning_criteria",
    "build_knowledge",
    "render_output",
    "validate_rules",
    "correct_bot",
]


def test_prefixes_order_the_folders_and_are_stripped_from_names(story_config: BotConfig) -> None:
    assert [b.name for b in story_config.behaviors] == BEHAVIORS
    for behavior in story_config.behaviors:
        assert [a.name for a in behavior.actions] == ACTIONS
        assert [a.name for a in behavior.steps] == ACTIONS[:-1]


def test_correct_bot_stands_outside_the_workflow_sequence(story_config: BotConfig) -> None:
    correct = story_config.find("story_bot.shape.correct_bot")
    assert correct is not None and not correct.workflow and correct.next_action is None


def test_instructions_and_trigger_words_are_read_with_the_action(story_config: BotConfig) -> None:
    gather = story_config.find("story_bot.discovery.gather_context")
    assert gather is not None
    assert gather.instructions.description and gather.instructions.steps
    assert gather.patterns and gather.key == "story_bot.discovery.gather_context"
    assert gather.tool == "story_bot_discovery_gather_context"


def test_the_bot_makes_four_behaviors_times_seven_actions_plus_seven_tools(
    story_config: BotConfig,
) -> None:
    names = story_config.tool_names()
    assert len(names) == 4 * 7 + 4 + 3 == len(set(names))


def test_a_behavior_without_behavior_json_is_described_from_its_name(bot_folder: Path) -> None:
    (bot_folder / SHAPE / "behavior.json").unlink()
    shape = load_bot(bot_folder).behavior("shape")
    assert shape is not None and shape.description == "The shape behavior of story_bot."


def test_guardrails_content_and_rules_beside_the_actions_are_not_actions(bot_folder: Path) -> None:
    for folder in ["1_guardrails/1_required_context", "content", "rules"]:
        (bot_folder / SHAPE / folder).mkdir(parents=True)
    (bot_folder / SHAPE / "1_guardrails/1_required_context/key_questions.json").write_text("{}")
    (bot_folder / SHAPE / "rules/rules.json").write_text("[]")
    shape = load_bot(bot_folder).behavior("shape")
    assert shape is not None and [a.name for a in shape.actions] == ACTIONS


def test_an_edited_file_makes_the_loaded_config_stale(bot_folder: Path) -> None:
    config = load_bot(bot_folder)
    assert not config.is_stale()
    edit_json(bot_folder / GATHER / "instructions.json", description="Something else entirely.")
    assert config.is_stale()


def test_an_added_action_folder_makes_the_loaded_config_stale(bot_folder: Path) -> None:
    config = load_bot(bot_folder)
    (bot_folder / SHAPE / "8_extra").mkdir()
    assert config.is_stale()


# --- broken configs: each is one BotConfigError naming the file and the field ----------------


def _remove(relative: str) -> Callable[[Path], None]:
    def run(bot: Path) -> None:
        target = bot / relative
        shutil.rmtree(target) if target.is_dir() else target.unlink()

    return run


def _write(relative: str, text: str) -> Callable[[Path], object]:
    return lambda bot: (bot / relative).write_text(text)


def _edit(relative: str, **changes: object) -> Callable[[Path], object]:
    return lambda bot: edit_json(bot / relative, **changes)


def _rename(relative: str, new_name: str) -> Callable[[Path], object]:
    return lambda bot: (bot / relative).rename((bot / relative).with_name(new_name))


def _copy(relative: str, new_name: str) -> Callable[[Path], object]:
    return lambda bot: shutil.copytree(bot / relative, (bot / relative).with_name(new_name))


def _mkdir(relative: str) -> Callable[[Path], object]:
    return lambda bot: (bot / relative).mkdir()


def _both(*steps: Callable[[Path], object]) -> Callable[[Path], None]:
    def run(bot: Path) -> None:
        for step in steps:
            step(bot)

    return run


CFG = "config/bot_config.json"
GATHER_CONFIG = f"{GATHER}/action_config.json"

BROKEN = {
    "missing bot config": (_remove(CFG), CFG, "file"),
    "bad JSON": (_write(f"{GATHER}/instructions.json", "{"), f"{GATHER}/instructions.json", "json"),
    "JSON nested past the recursion limit": (
        _write(f"{GATHER}/instructions.json", "[" * 100_000 + "]" * 100_000),
        f"{GATHER}/instructions.json", "json",
    ),
    "JSON nested 100 deep": (
        _write(f"{GATHER}/instructions.json", '{"a": ' * 100 + "1" + "}" * 100),
        f"{GATHER}/instructions.json", "json",
    ),
    "missing instructions": (
        _remove(f"{GATHER}/instructions.json"), f"{GATHER}/instructions.json", "file",
    ),
    "instructions in neither shape": (
        _write(f"{GATHER}/instructions.json", '{"actionName": "gather_context"}'),
        f"{GATHER}/instructions.json", "instructions",
    ),
    "instructions naming another action": (
        _write(f"{GATHER}/instructions.json", '{"actionName": "x", "instructions": []}'),
        f"{GATHER}/instructions.json", "actionName",
    ),
    "bot instructions naming another bot": (
        _write("instructions.json", '{"botName": "other_bot"}'), "instructions.json", "botName",
    ),
    "a behavior's own instructions of the wrong shape": (
        _write(f"{SHAPE}/instructions.json", '{"goal": ["x"]}'), f"{SHAPE}/instructions.json",
        "goal",
    ),
    "an actions_workflow step without an order": (
        _write(f"{SHAPE}/behavior.json",
               '{"actions_workflow": {"actions": [{"name": "a", "instructions": []}]}}'),
        f"{SHAPE}/behavior.json", "actions_workflow.actions.0.order",
    ),
    "behavior description of the wrong type": (
        _edit(f"{SHAPE}/behavior.json", description=3), f"{SHAPE}/behavior.json", "description",
    ),
    "a guardrails folder holding a half action": (
        _both(_mkdir(f"{SHAPE}/1_guardrails"),
              _write(f"{SHAPE}/1_guardrails/trigger_words.json", '{"patterns": []}')),
        f"{SHAPE}/1_guardrails/action_config.json", "file",
    ),
    "missing behaviors folder": (_remove("behaviors"), "behaviors", "folder"),
    "unknown next action": (
        _edit(GATHER_CONFIG, next_action="make_coffee"), GATHER_CONFIG, "next_action",
    ),
    "next action out of folder order": (
        _edit(GATHER_CONFIG, next_action="render_output"), GATHER_CONFIG, "next_action",
    ),
    "workflow flag of the wrong type": (
        _edit(GATHER_CONFIG, workflow="yes"), GATHER_CONFIG, "workflow",
    ),
    "order differs from the prefix": (_edit(GATHER_CONFIG, order=5), GATHER_CONFIG, "order"),
    "action name differs from its folder": (
        _edit(GATHER_CONFIG, name="collect_context"), GATHER_CONFIG, "name",
    ),
    "action name unfit for a tool name": (
        _both(_edit(GATHER_CONFIG, name="gather-it!"), _rename(str(GATHER), "2_gather-it!")),
        f"{SHAPE}/2_gather-it!/action_config.json", "name",
    ),
    "behavior name unfit for a tool name": (
        _edit(CFG, behaviors=["Shape", *BEHAVIORS[1:]]), CFG, "behaviors",
    ),
    "duplicate behavior in the list": (
        _edit(CFG, behaviors=["shape", "shape", "exploration", "specification"]), CFG, "behaviors",
    ),
    "duplicate action folders": (_copy(str(GATHER), "7_gather_context"), str(SHAPE), "folder"),
    "listed behavior without a folder": (_remove("behaviors/4_specification"), CFG, "behaviors"),
    "behavior folder not listed": (
        _edit(CFG, behaviors=BEHAVIORS[:3]), "behaviors/4_specification", "folder",
    ),
    "behaviors listed out of folder order": (
        _edit(CFG, behaviors=["discovery", "shape", *BEHAVIORS[2:]]), CFG, "behaviors",
    ),
    "bot name differs from its folder": (_edit(CFG, name="other_bot"), CFG, "name"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_config_is_one_error_naming_the_file_and_field(
    bot_folder: Path, case: str
) -> None:
    breaks, relative, field = BROKEN[case]
    breaks(bot_folder)
    with pytest.raises(BotConfigError) as caught:
        load_bot(bot_folder)
    assert (caught.value.path, caught.value.field) == (bot_folder / relative, field)


def test_two_generated_tools_with_one_name_are_refused(bot_folder: Path) -> None:
    # behavior "shape_initialize" with an action "project" would make the tool name of
    # shape's initialize_project a second time
    edit_json(
        bot_folder / CFG, behaviors=["shape", "shape_initialize", "exploration", "specification"]
    )
    behavior = (bot_folder / "behaviors/2_discovery").rename(
        bot_folder / "behaviors/2_shape_initialize"
    )
    shutil.copytree(behavior / "correct_bot", behavior / "project")
    edit_json(behavior / "project/action_config.json", name="project")
    with pytest.raises(BotConfigError) as caught:
        load_bot(bot_folder)
    assert (caught.value.path, caught.value.field) == (bot_folder / CFG, "behaviors")


def test_a_bot_name_making_tool_names_over_128_characters_is_refused(bot_folder: Path) -> None:
    name = "b" * 120
    folder = bot_folder.rename(bot_folder.with_name(name))
    edit_json(folder / CFG, name=name)
    with pytest.raises(BotConfigError) as caught:
        load_bot(folder)
    assert (caught.value.path, caught.value.field) == (folder / CFG, "name")


def test_no_bots_folder_means_no_bots(tmp_path: Path) -> None:
    assert BotCatalog.load(tmp_path / "absent", live=None).specs() == []  # type: ignore[arg-type]
    assert BotCatalog.load(None, live=None).specs() == []  # type: ignore[arg-type]


def test_a_broken_bot_stops_the_server_from_starting(bot_root: Path, bot_folder: Path) -> None:
    edit_json(bot_folder / GATHER_CONFIG, next_action="make_coffee")
    with pytest.raises(BotConfigError) as caught:
        create_server(bot_root, watch=False)
    assert caught.value.path == bot_folder / GATHER_CONFIG
