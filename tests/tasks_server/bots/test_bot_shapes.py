"""Bots in every shape a bot system writes its files (written here, with our own content),
through a real MCP client: base actions as `{actionName, instructions[], templates?}` with
trigger words mostly absent, behaviours describing themselves in their own instructions.json
and trigger_words.json, a bot-level instructions.json, and one behavior.json holding a
behaviour's actions_workflow. Then the workflow's first rule (nothing closes before
initialize_project has written the project) and restart_server telling the client that the
tool list changed."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tasks_server.bots.errors import BotConfigError
from tasks_server.bots.loader import load_bot
from tasks_server.edge.server import TasksServer
from tests.tasks_server.bots.shapes import STEPS, own_action, own_bot, seed_bot, workflow_bot
from tests.tasks_server.conftest import call, fail, make_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty task tree with a bots folder."""
    (tmp_path / "tree" / "bots").mkdir(parents=True)
    return tmp_path / "tree"


@asynccontextmanager
async def session(root: Path, **options: Any) -> AsyncIterator[Client]:
    """A client session to a server over `root`, the server closed after it."""
    server = make_server(root, **options)
    try:
        async with Client(server) as client:
            yield client
    finally:
        server.context.close()


async def tools_of(client: Client) -> dict[str, Any]:
    return {tool.name: tool for tool in (await client.list_tools()).tools}


# --- the shapes --------------------------------------------------------------------------------


async def test_base_actions_in_the_actionname_shape_load_and_run(root: Path) -> None:
    seed_bot(root / "bots")
    async with session(root) as client:
        first = await call(client, "ship_bot_tool", project="parcels")
        assert first["action"] == "initialize_project"
        await call(client, "ship_bot_close_current_action")
        packed = await call(client, "ship_bot_prepare_pack")
    assert packed["instructions"]["steps"] == ["First pack.", "Then check the pack result."]
    assert packed["instructions"]["outputs"] == ["label: A label (from label.md, into docs/)"]
    assert packed["trigger_patterns"] == []  # no trigger_words.json: fine


async def test_a_behaviours_and_the_bots_own_files_reach_their_tools_descriptions(
    root: Path,
) -> None:
    seed_bot(root / "bots")
    async with session(root) as client:
        tools = await tools_of(client)
    prepare = tools["ship_bot_prepare_tool"].description
    assert "The prepare stage of shipping." in prepare and "Goal: Parcels ready." in prepare
    assert "time to prepare" in prepare
    assert "Goal: Every order shipped." in tools["ship_bot_tool"].description
    collect = tools["ship_bot_prepare_collect"]
    assert "gather the parcels" in collect.description
    assert (collect.meta or {})["trigger_patterns"] == ["gather the parcels", "count what came in"]
    bot_tool = tools["ship_bot_tool"]
    assert (bot_tool.meta or {})["trigger_patterns"] == ["ship the orders"]
    assert "ship the orders" in (bot_tool.description or "")


def test_the_bot_level_line_describes_a_behaviour_that_has_no_description(root: Path) -> None:
    folder = seed_bot(root / "bots")
    (folder / "behaviors/dispatch/instructions.json").unlink()
    config = load_bot(folder)
    dispatch = config.behavior("dispatch")
    assert dispatch is not None and dispatch.description == "Send them"
    assert dispatch.patterns == ("time to dispatch",)


def test_without_the_optional_files_the_bot_still_loads(root: Path) -> None:
    folder = seed_bot(root / "bots", bot_instructions=False)
    for behavior in ("prepare", "dispatch"):
        (folder / "behaviors" / behavior / "instructions.json").unlink()
        (folder / "behaviors" / behavior / "trigger_words.json").unlink()
    (folder / "base_actions/2_collect/trigger_words.json").unlink()
    (folder / "trigger_words.json").unlink(missing_ok=True)
    config = load_bot(folder)
    assert [a.name for a in config.behaviors[0].steps] == STEPS
    assert config.behaviors[0].description == "The prepare behavior of ship_bot."


async def test_a_behavior_json_with_actions_workflow_makes_the_behaviours_actions(
    root: Path,
) -> None:
    workflow_bot(root / "bots")
    async with session(root) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        await call(client, "crate_bot_tool", project="crates")
        closed = await call(client, "crate_bot_close_current_action")
        ran = await call(client, "crate_bot_tool")
    assert {f"crate_bot_load_{step}" for step in STEPS} <= set(listed)
    assert closed["action"] == "collect" and ran["instructions"]["steps"] == ["Now collect."]
    behavior = listed["crate_bot_load_tool"].description or ""
    assert "Load the crates. Goal: Crates loaded." in behavior and "load the crates" in behavior


@pytest.mark.parametrize(
    ("relative", "text", "field"),
    [
        ("behaviors/prepare/trigger_words.json", "{", "json"),
        ("behaviors/prepare/instructions.json", '{"goal": 3}', "goal"),
        ("instructions.json", '{"behaviors": ["x"]}', "behaviors"),
        ("base_actions/3_pack/instructions.json", '{"actionName": "pack"}', "instructions"),
    ],
)
def test_a_malformed_optional_file_is_one_line_naming_it(
    root: Path, relative: str, text: str, field: str
) -> None:
    folder = seed_bot(root / "bots")
    (folder / relative).write_text(text)
    with pytest.raises(BotConfigError) as caught:
        load_bot(folder)
    assert (caught.value.path, caught.value.field) == (folder / relative, field)
    done = subprocess.run(
        [sys.executable, "-m", "tasks_server", "bots", "--root", str(root)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert str(folder / relative) in done.stderr


# --- initialize_project comes first --------------------------------------------------------------


async def test_no_jump_closes_before_initialize_project_has_written_the_project(
    root: Path,
) -> None:
    seed_bot(root / "bots")
    async with session(root, bot="ship_bot") as client:
        await call(client, "ship_bot_dispatch_send")  # jump to the last action
        last = await fail(client, "ship_bot_close_current_action")
        await call(client, "ship_bot_prepare_pack")  # or to any later one
        later = await fail(client, "ship_bot_close_current_action")
        await call(client, "ship_bot_prepare_initialize_project", project="parcels")
        closed = await call(client, "ship_bot_close_current_action")
    for refused, behavior in ((last, "dispatch"), (later, "prepare")):
        init = f"ship_bot_{behavior}_initialize_project"  # the jumped-to behaviour's own
        assert refused["error"]["code"] == "ACTION_INCOMPLETE"
        assert init in refused["guidance"]["next_action"] and init in refused["error"]["message"]
    state = json.loads((root / ".workflow/ship_bot/workflow_state.json").read_text())
    assert [r["action_state"] for r in state["completed_actions"]] == [
        "ship_bot.prepare.initialize_project"
    ]
    assert closed["action"] == "collect" and closed["done"] is False


async def test_a_forward_after_a_jump_runs_initialize_project_first_and_says_so(
    root: Path,
) -> None:
    seed_bot(root / "bots")
    async with session(root, bot="ship_bot") as client:
        await call(client, "ship_bot_dispatch_send")  # jump past initialize_project
        forwarded = await call(client, "ship_bot_tool", project="parcels")
        again = await call(client, "ship_bot_tool")
        closed = await call(client, "ship_bot_close_current_action")
    assert (forwarded["behavior"], forwarded["action"]) == ("dispatch", "initialize_project")
    assert forwarded["project_task"] == "parcels"
    assert any("ran it instead of ship_bot.dispatch.send" in w
               for w in forwarded["guidance"]["warnings"])  # fmt: skip
    assert again["action"] == "collect"  # the project is written: the forward moves on
    assert closed["closed"] == "ship_bot.dispatch.collect"  # the close gate is open


async def test_a_behaviour_tool_before_the_project_runs_its_initialize_project(
    root: Path,
) -> None:
    seed_bot(root / "bots")
    async with session(root, bot="ship_bot") as client:
        await call(client, "ship_bot_prepare_pack")
        forwarded = await call(client, "ship_bot_prepare_tool")
        closed = await call(client, "ship_bot_close_current_action")
    assert forwarded["action"] == "initialize_project" and forwarded["project_task"]
    assert any("initialize_project has not completed" in w
               for w in forwarded["guidance"]["warnings"])  # fmt: skip
    assert closed["closed"] == "ship_bot.prepare.initialize_project"


# --- restart_server refreshes the tool list ------------------------------------------------------


@pytest.fixture
async def ship(root: Path) -> AsyncIterator[tuple[Path, TasksServer]]:
    folder = own_bot(root / "bots", "ship_bot", {"pack": ["initialize_project", "wrap"]})
    server = make_server(root)
    yield folder, server
    server.context.close()


async def test_restart_server_lists_new_tools_and_tells_a_handshake_era_client(
    ship: tuple[Path, TasksServer],
) -> None:
    folder, server = ship
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        heard.append(getattr(message, "method", ""))

    async with Client(server, message_handler=on_message, mode="legacy") as client:
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        own_action(folder / "behaviors/1_pack/3_seal", "seal", 3)
        unknown = await fail(client, "ship_bot_pack_seal")
        await call(client, "ship_bot_restart_server")
        listed = {tool.name for tool in (await client.list_tools()).tools}
        sealed = await call(client, "ship_bot_pack_seal")
        await call(client, "ship_bot_restart_server")  # nothing changed: no notice
    assert unknown["error"]["code"] == "UNKNOWN_TOOL"
    assert heard.count("notifications/tools/list_changed") == 1
    assert "ship_bot_pack_seal" in listed and sealed["action"] == "seal"


async def test_restart_server_publishes_the_change_on_a_listen_stream(
    ship: tuple[Path, TasksServer],
) -> None:
    folder, server = ship
    async with Client(server) as client:
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        async with client.listen(tools_list_changed=True) as events:
            own_action(folder / "behaviors/1_pack/3_seal", "seal", 3)
            await call(client, "ship_bot_restart_server")
            with anyio.fail_after(60):  # a guard against a hang, not a measure
                event = await events.__anext__()
        listed = {tool.name for tool in (await client.list_tools()).tools}
    assert type(event).__name__ == "ToolsListChanged"
    assert "ship_bot_pack_seal" in listed


async def test_a_restart_that_would_take_a_built_in_name_is_refused_and_keeps_the_tools(
    root: Path,
) -> None:
    folder = own_bot(root / "bots", "get", {"task": ["initialize_project"]})
    async with session(root) as client:
        own_action(folder / "behaviors/1_task/2_tree", "tree", 2)
        refused = await fail(client, "get_restart_server")
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        again = await call(client, "get_tool", project="p")
    assert refused["error"]["code"] == "PARSE_ERROR"
    assert "get_task_tree" in refused["error"]["message"]
    built_in = listed["get_task_tree"]
    assert built_in.annotations is not None and built_in.annotations.read_only_hint is True
    assert "trigger_patterns" not in (built_in.meta or {})
    assert again["action"] == "initialize_project"


async def test_listed_tools_carry_their_tier_and_bot_tools_their_trigger_patterns(
    root: Path,
) -> None:
    seed_bot(root / "bots")
    async with session(root) as client:
        tools = await tools_of(client)
    assert (tools["ship_bot_tool"].meta or {})["tier"] == "workflow"
    assert "trigger_patterns" in (tools["ship_bot_tool"].meta or {})
    assert tools["get_task"].meta == {"tier": "query"}
