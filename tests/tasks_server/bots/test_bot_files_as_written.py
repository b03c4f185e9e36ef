"""Bot files exactly as the system of seed 000 writes them (written here, with our own
content): trigger files with a description and a priority beside their patterns, a base
action's intent-keyed trigger file, a bot-level trigger file, keys of that system's own in
every file, and one `baseActionsPath` value meaning one folder wherever it is given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from tasks_server.bots.errors import BotConfigError
from tasks_server.bots.loader import load_bot
from tests.tasks_server.bots.shapes import STEPS, put, seed_bot
from tests.tasks_server.conftest import call, make_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "tree" / "bots").mkdir(parents=True)
    return tmp_path / "tree"


def _add_key_everywhere(folder: Path) -> int:
    """Give every JSON file of the bot a key no reader of ours knows; how many files."""
    files = sorted(folder.rglob("*.json"))
    for path in files:
        data = json.loads(path.read_text())
        path.write_text(json.dumps({**data, "written_by": "another system"}))
    return len(files)


def test_unknown_keys_in_every_bot_file_are_ignored_not_refused(root: Path) -> None:
    folder = seed_bot(root / "bots")
    before = load_bot(folder, root)
    assert _add_key_everywhere(folder) >= 12
    after = load_bot(folder, root)
    assert after.surface() == before.surface()


def test_an_intent_keyed_trigger_file_gives_every_intents_patterns(root: Path) -> None:
    collect = load_bot(seed_bot(root / "bots"), root).find("ship_bot.prepare.collect")
    assert collect is not None
    assert collect.patterns == ("gather the parcels", "count what came in")


def test_an_intent_without_a_pattern_list_is_one_line_naming_the_file(root: Path) -> None:
    folder = seed_bot(root / "bots")
    path = put(folder / "base_actions/2_collect/trigger_words.json", {"collect": {"priority": 1}})
    with pytest.raises(BotConfigError) as caught:
        load_bot(folder, root)
    assert (caught.value.path, caught.value.field) == (path, "intents.collect.patterns")
    assert "\n" not in str(caught.value)


def test_a_trigger_files_description_describes_a_behaviour_nothing_else_describes(
    root: Path,
) -> None:
    folder = seed_bot(root / "bots", bot_instructions=False)
    (folder / "behaviors/dispatch/instructions.json").unlink()
    dispatch = load_bot(folder, root).behavior("dispatch")
    assert dispatch is not None and dispatch.description == "Words for dispatch"


def test_base_actions_path_in_a_behaviour_file_is_read_from_the_bots_folder(root: Path) -> None:
    folder = seed_bot(root / "bots")
    (folder / "base_actions").rename(folder / "shared_actions")
    for behavior in ("prepare", "dispatch"):
        path = folder / "behaviors" / behavior / "instructions.json"
        data = json.loads(path.read_text())
        path.write_text(json.dumps({**data, "baseActionsPath": "shared_actions"}))
    (folder / "instructions.json").unlink()
    config = load_bot(folder, root)
    assert [a.name for a in config.behaviors[1].steps] == STEPS


def test_base_actions_path_falls_back_to_the_task_trees_root(root: Path) -> None:
    folder = seed_bot(root / "bots")
    (folder / "base_actions").rename(root / "actions")
    for path in (folder / "instructions.json", folder / "behaviors/prepare/instructions.json"):
        data = json.loads(path.read_text())
        path.write_text(json.dumps({**data, "baseActionsPath": "actions"}))
    (folder / "behaviors/dispatch/instructions.json").unlink()
    config = load_bot(folder, root)
    assert [a.name for a in config.behaviors[0].steps] == STEPS
    assert [a.name for a in config.behaviors[1].steps] == STEPS


def test_a_base_actions_path_to_no_folder_names_the_file_and_the_paths_tried(
    root: Path,
) -> None:
    folder = seed_bot(root / "bots")
    path = folder / "behaviors/prepare/instructions.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "baseActionsPath": "gone"}))
    with pytest.raises(BotConfigError) as caught:
        load_bot(folder, root)
    message = str(caught.value)
    assert (caught.value.path, caught.value.field) == (path, "baseActionsPath")
    assert str(folder / "gone") in message and str(root / "gone") in message
    assert "\n" not in message


async def test_a_base_actions_instructions_come_back_once(root: Path) -> None:
    seed_bot(root / "bots")
    server = make_server(root)
    try:
        async with Client(server) as client:
            await call(client, "ship_bot_tool", project="parcels")
            packed = await call(client, "ship_bot_prepare_pack")
    finally:
        server.context.close()
    assert packed["instructions"]["description"] is None
    assert packed["instructions"]["steps"] == ["First pack.", "Then check the pack result."]
