"""A person confirms, where the client can ask: MCP elicitation (form mode), through the SDK's
client with an elicitation callback that accepts, declines or cancels; a client without the
capability gets the call as before, with a guidance line saying nobody was asked."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import pytest
from mcp import Client
from mcp.client import ClientRequestContext
from mcp_types import ElicitRequestParams, ElicitResult

from tasks_server.consent import NOT_ASKED
from tests.tasks_server.bots.shapes import put, seed_bot
from tests.tasks_server.conftest import call, error_of, make_server

pytestmark = pytest.mark.anyio

Action = Literal["accept", "decline", "cancel"]


class Person:
    """An elicitation callback that gives one answer and remembers the questions."""

    def __init__(self, action: Action, confirm: bool = True) -> None:
        self.action, self.confirm = action, confirm
        self.asked: list[str] = []

    async def __call__(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult:
        self.asked.append(params.message)
        content = {"confirm": self.confirm} if self.action == "accept" else None
        return ElicitResult(action=self.action, content=content)


@asynccontextmanager
async def session(
    root: Path, person: Person | None, mode: Any = "auto", **options: Any
) -> AsyncIterator[Client]:
    """A 2026-07-28 session (the question comes back as input_required) unless `mode` is
    "legacy" (a handshake-era session: the server asks within the call)."""
    server = make_server(root, **options)
    try:
        async with Client(server, elicitation_callback=person, mode=mode) as client:
            yield client
    finally:
        server.context.close()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "bots").mkdir(parents=True)
    return root


async def _a_task(client: Client, body: str = "") -> str:
    created = await call(client, "create_task", title="Ship the parcels", project="ship", body=body)
    task_id: str = created["task"]["id"]
    return task_id


# --- delete_task and complete_task(force) ----------------------------------------------------


async def test_an_accepted_delete_deletes(tree: Path) -> None:
    person = Person("accept")
    async with session(tree, person) as client:
        task_id = await _a_task(client)
        await call(client, "delete_task", task_id=task_id)
        left = await client.call_tool("get_task", {"task_id": task_id})
    assert error_of(left)["error"]["code"] == "TASK_NOT_FOUND"
    assert len(person.asked) == 1 and task_id in person.asked[0]


@pytest.mark.parametrize(("action", "confirm"), [("decline", True), ("cancel", True),
                                                 ("accept", False)])  # fmt: skip
async def test_a_declined_or_cancelled_delete_writes_nothing(
    tree: Path, action: Action, confirm: bool
) -> None:
    async with session(tree, Person(action, confirm)) as client:
        task_id = await _a_task(client)
        refused = error_of(await client.call_tool("delete_task", {"task_id": task_id}))
        kept = await call(client, "get_task", task_id=task_id)
    assert refused["error"]["code"] == "DECLINED" and "person" in refused["error"]["message"]
    assert kept["task"]["id"] == task_id


@pytest.mark.parametrize(("action", "deleted"), [("accept", True), ("decline", False)])
async def test_a_handshake_era_session_is_asked_within_the_call(
    tree: Path, action: Action, deleted: bool
) -> None:
    person = Person(action)
    async with session(tree, person, mode="legacy") as client:
        task_id = await _a_task(client)
        result = await client.call_tool("delete_task", {"task_id": task_id})
    assert result.is_error is not deleted and len(person.asked) == 1


async def test_a_client_that_cannot_ask_deletes_as_before_and_is_told(tree: Path) -> None:
    async with session(tree, None) as client:
        task_id = await _a_task(client)
        deleted = await call(client, "delete_task", task_id=task_id)
    assert NOT_ASKED in deleted["guidance"]["warnings"]


async def test_completing_by_force_asks_first_and_a_plain_completion_does_not(
    tree: Path,
) -> None:
    person = Person("decline")
    async with session(tree, person) as client:
        forced = await _a_task(client, body="- [ ] weigh them")
        refused = error_of(await client.call_tool("complete_task",
                                                  {"task_id": forced, "force": True}))  # fmt: skip
        plain = await _a_task(client)
        done = await call(client, "complete_task", task_id=plain)
    assert refused["error"]["code"] == "DECLINED" and len(person.asked) == 1
    assert done["task"]["status"] == "done" and NOT_ASKED not in str(done["guidance"])


# --- the bot's close and initialize_project ---------------------------------------------------


async def _started(client: Client) -> None:
    await call(client, "ship_bot_tool", project="parcels")
    await call(client, "ship_bot_close_current_action")  # initialize_project → collect
    await call(client, "ship_bot_tool")


def _completed(root: Path) -> list[str]:
    state = json.loads((root / ".workflow/ship_bot/workflow_state.json").read_text())
    return [entry["action_state"] for entry in state["completed_actions"]]


async def test_an_accepted_close_closes_and_the_question_names_the_action(tree: Path) -> None:
    seed_bot(tree / "bots")
    person = Person("accept")
    async with session(tree, person, bot="ship_bot") as client:
        await _started(client)
        closed = await call(client, "ship_bot_close_current_action")
    assert closed["closed"] == "ship_bot.prepare.collect"
    assert "ship_bot.prepare.collect" in person.asked[-1] and "First collect." in person.asked[-1]


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_declined_close_leaves_the_action_open_and_says_so(
    tree: Path, action: Action
) -> None:
    seed_bot(tree / "bots")
    async with session(tree, Person("accept"), bot="ship_bot") as client:
        await _started(client)
    async with session(tree, Person(action), bot="ship_bot") as client:
        refused = error_of(await client.call_tool("ship_bot_close_current_action", {}))
        current = await call(client, "ship_bot_tool")
    assert refused["error"]["code"] == "DECLINED"
    assert "declined" in refused["guidance"]["next_action"]
    assert "ship_bot.prepare.collect" not in _completed(tree)
    assert current["action"] == "collect"


async def test_a_close_without_the_capability_closes_and_says_nobody_was_asked(
    tree: Path,
) -> None:
    seed_bot(tree / "bots")
    async with session(tree, None, bot="ship_bot") as client:
        await _started(client)
        closed = await call(client, "ship_bot_close_current_action")
    assert closed["closed"] == "ship_bot.prepare.collect"
    assert NOT_ASKED in closed["guidance"]["warnings"]


async def test_initialize_project_asks_when_its_config_requires_confirmation(tree: Path) -> None:
    folder = seed_bot(tree / "bots")
    config = folder / "base_actions/1_initialize_project/action_config.json"
    put(config, {**json.loads(config.read_text()), "requires_confirmation": True})
    declining = Person("decline")
    async with session(tree, declining, bot="ship_bot") as client:
        refused = error_of(await client.call_tool("ship_bot_tool", {"project": "parcels"}))
    async with session(tree, Person("accept"), bot="ship_bot") as client:
        made = await call(client, "ship_bot_tool", project="parcels")
    assert refused["error"]["code"] == "DECLINED" and "project task" in declining.asked[0]
    assert made["project_task"] == "parcels"
    assert _completed(tree) == ["ship_bot.prepare.initialize_project"]


@pytest.mark.parametrize(("mode", "calls"), [("legacy", 1), ("auto", 2)])
async def test_a_calls_question_is_worked_out_once_per_call(
    tree: Path, mode: Any, calls: int
) -> None:
    """The edge works the question out to ask it; the call then runs with the answer and
    never works it out again (a 2026-07-28 session calls twice: asked, then answered)."""
    server = make_server(tree)
    spec = server.toolset.specs["delete_task"]
    worked_out: list[object] = []

    def question(context: Any, args: Any) -> str | None:
        worked_out.append(args)
        return spec.confirm(context, args) if spec.confirm is not None else None

    server.toolset.specs["delete_task"] = replace(spec, confirm=question)
    try:
        async with Client(server, elicitation_callback=Person("accept"), mode=mode) as client:
            task_id = await _a_task(client)
            await call(client, "delete_task", task_id=task_id)
    finally:
        server.context.close()
    assert len(worked_out) == calls
